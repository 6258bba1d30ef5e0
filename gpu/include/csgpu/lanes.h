/*
 * lanes.h - how libcsgpu cuts a call into lanes when the caller leaves it
 * to the runtime: the channels (thread blocks per rank) and slices (the
 * pipeline depth of a channel). Plain C, host only, no CUDA: the runtime
 * (gpu/src/runtime.cu) feeds it the device's numbers, and
 * tests/gpu/test_gpu_lanes.c runs it on the CPU.
 *
 * The cut decides the order of every fold (csgpu/sched.h), never what a
 * call means: any cut gives a conforming result, and gpu-sim picks its own
 * (backend options channels= and slices=).
 */
#ifndef CSGPU_LANES_H
#define CSGPU_LANES_H

#include <stddef.h>
#include "cs_catalog.h"
#include "csgpu/sched.h"

/* A channel gets at least this many bytes of a rank's data: below it a
 * call is latency-bound, and more lanes only mean more counters to wait
 * on. */
#define CSG_LANE_MIN_BYTES ((size_t)64 << 10)

/* A slice of a pipelined schedule gets at least this many bytes. */
#define CSG_SLICE_MIN_BYTES ((size_t)512 << 10)

/* The deepest pipeline the runtime picks by itself. */
#define CSG_MAX_AUTO_SLICES 32

/*
 * 1 when slices buy nothing for the (resolved) algorithm algo running
 * coll: every rank has work at every base step (ring allreduce,
 * reducescatter and allgather, the all-to-alls), or the schedule has a
 * single base step of pulls (gather, scatter, sendrecv), so that more
 * slices only add steps and their synchronisation. 0 for the schedules
 * whose base steps form a chain that leaves ranks idle (chain broadcast
 * and reduce, the trees), where slices fill the pipeline.
 */
static inline int csg_every_rank_busy(cs_coll_t coll, csg_algo_t algo)
{
	if (algo == CSG_ALGO_TREE)
		return 0;
	if (algo == CSG_ALGO_RING)
		return coll != CS_COLL_BROADCAST && coll != CS_COLL_REDUCE;
	return 1;
}

/*
 * The device as the runtime sees it for one call.
 *   sms:           SMs of the smallest device of the world;
 *   blocks_per_sm: co-resident blocks of the call's kernel per SM
 *                  (cudaOccupancyMaxActiveBlocksPerMultiprocessor);
 *   ranks_per_dev: ranks on the busiest device.
 */
typedef struct csg_lane_dev {
	int sms;
	int blocks_per_sm;
	int ranks_per_dev;
} csg_lane_dev_t;

/*
 * Channels and slices for a call of `bytes` bytes per rank running the
 * resolved algorithm algo (not AUTO) for coll on device d:
 *   channels: the blocks the device holds at once (blocks_per_sm x sms)
 *     shared by its ranks, at most CSG_MAX_CHAN, and no more than one per
 *     CSG_LANE_MIN_BYTES of the call; at least 1;
 *   slices: 1 where every rank is busy at every step
 *     (csg_every_rank_busy); otherwise one per CSG_SLICE_MIN_BYTES of a
 *     channel's data, 1 to CSG_MAX_AUTO_SLICES.
 * Numbers below 1 in d count as 1. The grid (channels x ranks_per_dev)
 * fits the device whenever ranks_per_dev <= blocks_per_sm x sms.
 */
static inline void csg_lanes_choose(size_t bytes, cs_coll_t coll,
				    csg_algo_t algo, csg_lane_dev_t d,
				    int *nchan, int *nslices)
{
	size_t c, s, cap;
	int rpd = d.ranks_per_dev < 1 ? 1 : d.ranks_per_dev;

	cap = (size_t)(d.sms < 1 ? 1 : d.sms) *
	      (size_t)(d.blocks_per_sm < 1 ? 1 : d.blocks_per_sm);
	c = cap / (size_t)rpd;
	if (c > CSG_MAX_CHAN)
		c = CSG_MAX_CHAN;
	if (c > bytes / CSG_LANE_MIN_BYTES)
		c = bytes / CSG_LANE_MIN_BYTES;
	if (c < 1)
		c = 1;
	s = 1;
	if (!csg_every_rank_busy(coll, algo)) {
		s = bytes / c / CSG_SLICE_MIN_BYTES;
		if (s > CSG_MAX_AUTO_SLICES)
			s = CSG_MAX_AUTO_SLICES;
		if (s < 1)
			s = 1;
	}
	if (nchan)
		*nchan = (int)c;
	if (nslices)
		*nslices = (int)s;
}

#endif /* CSGPU_LANES_H */
