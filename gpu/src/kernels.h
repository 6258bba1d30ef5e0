/*
 * kernels.h - what libcsgpu's runtime (runtime.cu) hands to the kernels of
 * gpu/src/ and how it finds them. Internal to libcsgpu (C++/CUDA).
 *
 * One cooperative launch per device runs every (rank, channel) lane of the
 * ranks on that device: block b is lane (rank[b / nchan], b % nchan). The
 * kernels execute csgpu/sched.h's plan step by step (step.cuh).
 */
#ifndef CSGPU_KERNELS_H
#define CSGPU_KERNELS_H

#include <stdint.h>
#include "cs_catalog.h"
#include "csgpu/exec.h"
#include "csgpu/sched.h"

/*
 * At most CSG_MAX_CHAN channels (lanes per rank; csgpu/sched.h); each
 * rank has this many step counters, each on its own 128-byte line (the
 * L2's line; no two lanes' counters share one, so a lane that publishes
 * does not disturb the polling of another's): the counter of channel c is
 * flag[r][csg_ctr_index(c)], and a rank's counters take CSG_CTR_BYTES.
 */
#define CSG_CTR_LINE 128
#define CSG_CTR_STRIDE (CSG_CTR_LINE / 8) /* uint64_t per line */
#define CSG_CTR_BYTES (CSG_MAX_CHAN * CSG_CTR_LINE)

CS_HD size_t csg_ctr_index(int chan)
{
	return (size_t)chan * CSG_CTR_STRIDE;
}

/*
 * A world's abort record, in host-mapped memory (every device and the host
 * read it while kernels run). A lane that waited longer than the call's
 * timeout fills it and sets flag; every lane polls flag while it waits and
 * returns when it is set, as does every lane when the host sets it (a
 * launch on another device failed). The host reads it after the call and
 * sets the counters back (runtime.cu). claim: 0 until one lane owns the
 * record (atomicCAS), so that two lanes giving up at once do not mix it.
 */
typedef struct csg_abort {
	volatile unsigned int flag;
	unsigned int claim;
	int rank, chan, whom;
	unsigned long long want, got, waited_ns;
} csg_abort_t;

/* Threads per block (one block per lane). */
#define CSG_THREADS 512

/*
 * The arguments of one launch (passed by value, under the 4 KiB kernel
 * parameter limit).
 *   plan:  the call's plan, channel 0 (each block sets its own chan);
 *          plan.v points at a device copy of the alltoallv matrix.
 *   red:   the reduction (reducing collectives).
 *   buf:   every rank's SEND, RECV and TMP base pointers (csg_buf_t),
 *          directly dereferenceable from this device (peer access).
 *   flag:  every rank's CSG_MAX_CHAN step counters (device memory of the
 *          rank's device; channel c's at flag[r] + csg_ctr_index(c)).
 *   base:  each channel's counter value at the start of this call: every
 *          lane of channel c finished every earlier call when all ranks'
 *          counters of every channel c' reach base[c']; this call's step t
 *          is finished when the lane's counter reaches base[c] + t + 1.
 *   nrank, rank: the ranks of this launch (on this device).
 *   abort: the world's abort record (host-mapped; see csg_abort_t).
 *   timeout_ns: how long a lane waits for a counter before it gives up.
 *   stall: a test hook (csg_world_stall_next): the lanes of this rank
 *          never publish a step; -1 for none.
 *   sys:   1 when the world spans several devices: counters are published
 *          and acquired at system scope; 0 (one device holds every rank)
 *          at GPU scope.
 */
typedef struct csg_kargs {
	csg_plan_t plan;
	csg_red_t red;
	void *buf[CSG_MAX_RANKS][3];
	uint64_t *flag[CSG_MAX_RANKS];
	uint64_t base[CSG_MAX_CHAN];
	csg_abort_t *abort;
	uint64_t timeout_ns;
	int stall;
	int sys;
	int nrank;
	signed char rank[CSG_MAX_RANKS];
} csg_kargs_t;

/* The kernels of one call and how runtime.cu finds them: lane_kernels.h
 * (C++). */

#endif /* CSGPU_KERNELS_H */
