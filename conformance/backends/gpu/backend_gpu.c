/*
 * backend_gpu.c - the `gpu` backend: this project's CUDA kernels
 * (libcsgpu, csgpu/coll.h) behind the plugin ABI. All ranks live in this
 * process (CS_PROC_ALL_IN_PROCESS) and their buffers in device memory
 * (CS_MEM_CUDA): the harness puts rank i's buffers and stream on device
 * i mod n (cs_dev_of_rank), which is where csg_world_create places rank i,
 * so with fewer GPUs than ranks several virtual ranks share a GPU.
 *
 * One call per rank between group_start and group_end is one collective
 * (ipgroup.h); group_end queues the kernels (csg_run) after the work on
 * every rank's stream, and each rank's synchronize waits for its stream.
 * Options are those of gpu-sim (backend_gpu_impl.h), with channels and
 * slices left to the runtime by default.
 *
 * Sub-communicators are not offered (comm_split is NULL: those cases are
 * SKIP): a team of a split holds world ranks whose devices are not
 * team-rank mod n, which csg_world_create does not place.
 *
 * Built only with CUDA (CS_HAVE_CUDA).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backends/gpu/backend_gpu_impl.h"
#include "collspec/backend.h"
#include "backends/gpu/backend_gpu.h"
#include "backends/gpu/ipgroup.h"
#include "csgpu/coll.h"
#include "csgpu/device.h"
#include "csref/catalog.h"

static cs_gpuopts_t gb_opts;
static cs_ipg_t *gb_ipg;
static char gb_err[1024];

static int gb_fail(int st, const char *msg)
{
	snprintf(gb_err, sizeof gb_err, "%s", msg);
	return st;
}

static void gb_free_state(void *ctx, void *state)
{
	(void)ctx;
	csg_world_destroy(state);
}

/* The team's world of the runtime, made at its first call. */
static int team_world(cs_ipteam_t *t, csg_world_t **w, char *err, size_t len)
{
	if (!t->exec_state &&
	    csg_world_create(t->nranks, (csg_world_t **)&t->exec_state) !=
		    CS_OK) {
		snprintf(err, len, "gpu: %s", cs_last_error());
		return CS_IPG_EINVAL;
	}
	*w = t->exec_state;
	return 0;
}

/* The ipgroup executor: one team's call, queued on the ranks' streams. */
static int gb_run(void *ctx, cs_ipcall_t *c, char *err, size_t len)
{
	csg_call_t *call;
	cs_gpuvmat_t v;
	csg_plan_t p;
	csg_world_t *w;
	int q, rc;

	(void)ctx;
	if ((rc = cs_gpu_plan(&gb_opts, c, &p, &v, err, len)) != 0)
		return rc;
	if ((rc = team_world(c->team, &w, err, len)) != 0 ||
	    !(call = calloc(1, sizeof *call))) {
		cs_gpu_vmat_free(&v);
		if (!rc)
			snprintf(err, len, "gpu: out of memory");
		return rc ? rc : CS_IPG_ENOMEM;
	}
	call->coll = c->coll;
	call->dtype = c->dtype;
	call->op = cs_coll_reduces(c->coll) ? c->op : CS_OP_SUM;
	call->algo = gb_opts.algo;
	call->n = c->count;
	call->root = c->root;
	call->inplace = p.inplace;
	call->nchan = gb_opts.nchan;
	call->nslices = gb_opts.nslices;
	call->cnt = v.cnt;
	call->sdis = v.sdis;
	call->rdis = v.rdis;
	for (q = 0; q < c->P; q++) {
		call->send[q] = c->send[q];
		call->recv[q] = c->recv[q];
		call->scalar[q] = c->scalar[q];
	}
	if (csg_run(w, call, c->stream) != CS_OK) {
		snprintf(err, len, "gpu: %s", cs_last_error());
		rc = CS_IPG_EINVAL;
	}
	free(call);
	cs_gpu_vmat_free(&v);
	return rc;
}

static int gb_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	cs_ipexec_t x = { gb_run, gb_free_state, NULL };
	int rc;

	if (cs_gpuopts_parse(options, &gb_opts, gb_err, sizeof gb_err) !=
	    CS_OK)
		return CS_IPG_EINVAL;
	if (!gb_ipg && !(gb_ipg = cs_ipg_new(x)))
		return gb_fail(CS_IPG_ENOMEM, "gpu: out of memory");
	if ((rc = cs_ipg_world(gb_ipg, nranks, comms)) != 0)
		return gb_fail(rc, cs_ipg_error(gb_ipg));
	return 0;
}

static int gb_finalize(void)
{
	cs_ipg_free(gb_ipg);
	gb_ipg = NULL;
	return 0;
}

static int gb_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
		       char *reason, size_t len)
{
	(void)comm;
	return cs_gpu_supports(&gb_opts, q, reason, len);
}

static int gb_group_start(void)
{
	return gb_ipg ? cs_ipg_start(gb_ipg)
		      : gb_fail(CS_IPG_EINVAL, "gpu: not initialised");
}

static int gb_group_end(void)
{
	return gb_ipg ? cs_ipg_end(gb_ipg)
		      : gb_fail(CS_IPG_EINVAL, "gpu: not initialised");
}

/* Wait for the rank's stream (on the rank's device: the current one is
 * irrelevant to cudaStreamSynchronize, which cs_dev_sync wraps), then
 * whether the team's last call was aborted (a lane waited past the
 * runtime's timeout: the error names it, and the world is clean again). */
static int gb_synchronize(cs_bcomm_t comm, void *stream)
{
	cs_ipcomm_t *c = comm;
	int dev = cs_dev_of_rank(c->team ? c->team->world[c->rank] : 0,
				 cs_dev_count());

	if (cs_dev_sync(dev, stream) != CS_OK ||
	    (c->team && c->team->exec_state &&
	     csg_world_check(c->team->exec_state) != CS_OK))
		return gb_fail(CS_IPG_EINVAL, cs_last_error());
	return 0;
}

static const char *gb_error_string(cs_bcomm_t comm, int err)
{
	const char *m = gb_ipg ? cs_ipg_error(gb_ipg) : "";

	(void)comm;
	(void)err;
	if (m[0])
		return m;
	return gb_err[0] ? gb_err : "gpu: unknown error";
}

static const cs_backend_t gb_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "gpu",
	.description = "this project's CUDA ring, tree and all-to-all kernels "
		       "(libcsgpu; algo=...; virtual ranks share GPUs)",
	/* ring and tree reduce each element once and copy it to every rank
	 * (csgpu/sched.h) */
	.flags = CS_BACKEND_F_BIT_IDENTICAL,
	.mem_kind = CS_MEM_CUDA,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = gb_init_all,
	.comm_split = NULL,
	.comm_free = cs_ipg_comm_free,
	.finalize = gb_finalize,
	.supports = gb_supports,
	.allreduce = cs_ipg_allreduce,
	.allgather = cs_ipg_allgather,
	.reducescatter = cs_ipg_reducescatter,
	.alltoall = cs_ipg_alltoall,
	.alltoallv = cs_ipg_alltoallv,
	.broadcast = cs_ipg_broadcast,
	.reduce = cs_ipg_reduce,
	.gather = cs_ipg_gather,
	.scatter = cs_ipg_scatter,
	.sendrecv = cs_ipg_sendrecv,
	.group_start = gb_group_start,
	.group_end = gb_group_end,
	.synchronize = gb_synchronize,
	.error_string = gb_error_string,
};

const cs_backend_t *cs_backend_gpu(void)
{
	return &gb_backend;
}
