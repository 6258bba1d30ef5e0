/*
 * coll.h - libcsgpu's collectives: one process drives P ranks on the CUDA
 * devices it sees, with the kernels of gpu/src/ running the schedules of
 * csgpu/sched.h.
 *
 * Plain C. Rank r lives on device cs_dev_of_rank(r, n) (r mod n, n the
 * number of devices): with at least P devices one rank per GPU, otherwise
 * several *virtual ranks* share a GPU. Ranks on different devices reach
 * each other's buffers through CUDA peer access (csg_world_create enables
 * it, and refuses when two devices cannot reach each other). All ranks of
 * one device run in one cooperative launch, so their thread blocks are
 * co-resident and may wait for each other.
 *
 * Not thread-safe: one thread drives a world.
 */
#ifndef CSGPU_COLL_H
#define CSGPU_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "cs_catalog.h"
#include "csref/status.h"
#include "csgpu/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* P ranks, their devices, flags and scratch buffers. Opaque. */
typedef struct csg_world csg_world_t;

/*
 * Make a world of P ranks (1 <= P <= CSG_MAX_RANKS) over the devices this
 * process sees. CS_ERR_UNSUPPORTED (message naming the reason) when there
 * is no device or two devices used cannot access each other's memory.
 */
cs_status_t csg_world_create(int P, csg_world_t **out);

/* Wait for the world's work, free it. NULL is ignored. */
void csg_world_destroy(csg_world_t *w);

/* Size of the world and the device of rank r. */
int csg_world_size(const csg_world_t *w);
int csg_world_device(const csg_world_t *w, int r);

/*
 * One collective call of every rank. Buffers are device pointers on the
 * rank's device, laid out as the backend ABI says (collspec/backend.h);
 * in place when send[r] and recv[r] follow NCCL's in-place rule (inplace
 * says so; it must be the same on every rank). For rooted collectives,
 * send (broadcast, scatter) and recv (reduce, gather) matter at the root
 * only. scalar[r] is rank r's PREMULSUM scalar as bits of the dtype.
 * alltoallv: cnt, sdis, rdis in host memory, as csg_vmat_t describes.
 */
typedef struct csg_call {
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;            /* reducing collectives only */
	csg_algo_t algo;       /* CSG_ALGO_AUTO: csg_auto_algo decides */
	size_t n;              /* the count argument (csg_plan_t's n) */
	int root;
	int inplace;
	int nchan;             /* channels; 0: the runtime chooses */
	int nslices;           /* slices per chunk; 0: the runtime chooses */
	const void *send[CSG_MAX_RANKS];
	void *recv[CSG_MAX_RANKS];
	uint64_t scalar[CSG_MAX_RANKS];
	const size_t *cnt, *sdis, *rdis;
} csg_call_t;

/*
 * Queue the call: the kernels start after the work already queued on
 * stream[r] of every rank r (a cudaStream_t on r's device; NULL: the
 * world's own), and stream[r] waits for them, so synchronising stream[r]
 * waits for the call. streams may be NULL (the world's own streams).
 * Returns CS_OK once queued; CS_ERR_INVALID for arguments the plan
 * refuses (csg_plan_init), naming them; the status of cs_gpu_error for a
 * failed CUDA call (a failed launch aborts the grids already started on
 * other devices, and the world is recovered before returning). Execution
 * errors show when a stream is synchronised; a call that could not finish
 * shows in csg_world_check. When the previous call was aborted and nobody
 * checked, this call is not queued: csg_world_check's error is returned
 * and the world is clean for the next call.
 */
cs_status_t csg_run(csg_world_t *w, const csg_call_t *call,
		    void *const *stream);

/*
 * The plan csg_run would launch for the call (AUTO resolved, channels and
 * slices chosen, channel 0; for alltoallv, p->v points at the call's host
 * matrix): what a CPU execution of the same call (csgpu/sim.h) needs to
 * reproduce the kernels' bits, since the cut decides the order of every
 * fold. Launches nothing. csg_run's statuses for a call it refuses.
 */
cs_status_t csg_plan_of(const csg_world_t *w, const csg_call_t *call,
			csg_plan_t *p);

/*
 * Wait for everything queued on the world's devices, then csg_world_check.
 * The status of the first failed device, else that of csg_world_check.
 */
cs_status_t csg_world_sync(csg_world_t *w);

/*
 * After the streams of a call were synchronised: CS_OK when no lane gave
 * up; otherwise CS_ERR_INTERNAL with a message naming the lane that
 * waited past the timeout (rank, channel, whom, counter values), once the
 * world's devices are idle and every counter is set back to where the next
 * call expects it (that call starts clean). Costs nothing when no call was
 * aborted (one host read).
 */
cs_status_t csg_world_check(csg_world_t *w);

/* How long a lane waits for a peer's counter before it aborts the call
 * (default 30 s). CS_ERR_INVALID outside (0, 3600] seconds. */
cs_status_t csg_world_set_timeout(csg_world_t *w, double seconds);

/* Test hook: in the next call, the lanes of `rank` never publish a step,
 * so that its peers wait until the timeout and the call is aborted (-1:
 * none). CS_ERR_INVALID for a rank outside -1..P-1. */
cs_status_t csg_world_stall_next(csg_world_t *w, int rank);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_COLL_H */
