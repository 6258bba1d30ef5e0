/*
 * backend_gpu_impl.h - what the `gpu` and `gpu-sim` backends share
 * (backend_gpu_coll.c, ipgroup.h): their
 * options, which cases they run, and how one team's call (ipgroup.h)
 * becomes a schedule plan (csgpu/sched.h).
 *
 * Options (`--backend-opt`, comma-separated):
 *   algo=auto|ring|tree|direct|pairwise  the algorithm (default auto);
 *       a collective the algorithm does not implement is SKIP, so that
 *       each algorithm can be validated on its own;
 *   channels=N  channels (1..CSG_MAX_CHAN, 32: the runtime's step
 *       counters per rank); slices=N  slices per chunk (1..64);
 *       0 or absent: the backend's default (gpu-sim: 2 and 2, so that
 *       every quick-suite case runs several channels and slices; gpu:
 *       the runtime's choice for the size).
 *   dcheck=0|1  whether the harness checks values where the data is
 *       first (check/dcheck.h; default 1 on gpu-sim, 0 on gpu until a
 *       device has run it); read by the harness, only validated here.
 */
#ifndef CS_BACKEND_GPU_IMPL_H
#define CS_BACKEND_GPU_IMPL_H

#include <stddef.h>
#include "collspec/backend.h"
#include "csgpu/sched.h"
#include "csref/status.h"
#include "backends/gpu/ipgroup.h"

typedef struct cs_gpuopts {
	csg_algo_t algo;
	int nchan;
	int nslices;
} cs_gpuopts_t;

/* Parse options into o: CS_OK, or CS_ERR_INVALID with a message naming
 * the bad option in err[0..len) (the backend's error_string gives it;
 * cs_last_error() is not set). */
cs_status_t cs_gpuopts_parse(const char *options, cs_gpuopts_t *o, char *err,
			     size_t len);

/* The name of algorithm a ("ring"). */
const char *cs_gpu_algo_name(csg_algo_t a);

/* The backend ABI's supports(): the algorithm implements the collective,
 * and P <= CSG_MAX_RANKS. */
int cs_gpu_supports(const cs_gpuopts_t *o, const cs_backend_query_t *q,
		    char *reason, size_t len);

/* The alltoallv matrix of a call: cnt/sdis/rdis of P*P entries each. */
typedef struct cs_gpuvmat {
	size_t *cnt, *sdis, *rdis;
} cs_gpuvmat_t;

/*
 * The plan of one team's call (channel 0; csg_plan_init's rules), its
 * in-place flag agreed by every rank that matters, and for alltoallv the
 * matrix (v->cnt etc. allocated; free with cs_gpu_vmat_free). 0, or a
 * status with the reason in err[0..len).
 */
int cs_gpu_plan(const cs_gpuopts_t *o, const cs_ipcall_t *c, csg_plan_t *p,
		cs_gpuvmat_t *v, char *err, size_t len);
void cs_gpu_vmat_free(cs_gpuvmat_t *v);

/* Elements of rank q's send and receive buffers for the plan's call
 * (0 where the rank has none: rooted collectives away from the root). */
size_t cs_gpu_send_len(const csg_plan_t *p, int q);
size_t cs_gpu_recv_len(const csg_plan_t *p, int q);

#endif /* CS_BACKEND_GPU_IMPL_H */
