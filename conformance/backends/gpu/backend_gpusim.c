/*
 * backend_gpusim.c - the `gpu-sim` backend: libcsgpu's schedules
 * (csgpu/sched.h) executed on the CPU, step by step, with the kernels'
 * element arithmetic (csgpu/exec.h), over host memory. All ranks live in
 * this process (CS_PROC_ALL_IN_PROCESS); one call per rank between
 * group_start and group_end is one collective (ipgroup.h), which
 * csg_sim_run (csgpu/sim.h) executes in lockstep.
 *
 * It is how CI proves the GPU algorithms without a GPU: the quick suite
 * runs on it for every `algo` (backend_gpu_impl.h has the options).
 *
 * Built with CSG_MUTANT=N (tests only), it runs schedule mutant N of
 * gpu/sim/mutate.h instead of the real schedule, so the tests can show
 * that the suite catches each injected schedule bug.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backends/gpu/backend_gpu_impl.h"
#include "collspec/backend.h"
#include "csgpu/sim.h"
#include "csref/status.h"
#include "csref/catalog.h"
#ifdef CSG_MUTANT
#include "mutate.h"
#include "backends/gpu/backend_gpu.h"
#endif

static cs_gpuopts_t gs_opts;
static cs_ipg_t *gs_ipg;
static char gs_err[1024];
static void *gs_tmp;         /* the ranks' TMP buffers, one allocation */
static size_t gs_tmp_bytes;

static int gs_fail(int st, const char *msg)
{
	snprintf(gs_err, sizeof gs_err, "%s", msg);
	return st;
}

#ifdef CSG_MUTANT
#define GS_GET_OP csg_exec_get_op
#else
#define GS_GET_OP NULL
#endif

/* TMP of every rank: as many elements as its send buffer. */
static int tmp_buffers(const csg_plan_t *p, size_t es, csg_sim_bufs_t *b)
{
	size_t total = 0, off = 0, n;
	int q;

	for (q = 0; q < p->P; q++)
		total += (cs_gpu_send_len(p, q) + 1) * es;
	if (total > gs_tmp_bytes) {
		void *t = realloc(gs_tmp, total);

		if (!t)
			return gs_fail(CS_IPG_ENOMEM, "gpu-sim: out of memory");
		gs_tmp = t;
		gs_tmp_bytes = total;
	}
	for (q = 0; q < p->P; q++) {
		n = cs_gpu_send_len(p, q);
		b->buf[q][CSG_TMP] = (char *)gs_tmp + off;
		b->len[q][CSG_TMP] = n;
		off += (n + 1) * es;
	}
	return 0;
}

#ifdef CS_GPUSIM_FAULT
/*
 * Tests only (tests/conformance/test_dcheck_diff.py): the cheapest wrong
 * results a check that passes buffers unseen by the host could let
 * through. CS_GPUSIM_FAULT=1: the last element of the last rank's
 * receive range; 2: the first element of the last block of the device
 * check's grid over it (csref/dcheck.h), on the last rank. The element
 * gets its second-highest bit flipped, out of any float bound.
 */
#include "csref/arith.h"
#include "csref/dcheck.h"

static void gs_fault(const csg_plan_t *p, const cs_ipcall_t *c)
{
	int q = c->P - 1;
	size_t n = c->recv[q] ? cs_gpu_recv_len(p, q) : 0, k = n - 1;
	uint64_t m = cs_bits_mask(c->dtype), B, T, C;

	if (!n)
		return;
	if (CS_GPUSIM_FAULT == 2) {
		cs_dcheck_grid_shape(n, &B, &T);
		C = (n + B - 1) / B;
		k = (size_t)(C * (B - 1) < n ? C * (B - 1) : n - 1);
	}
	cs_store(c->dtype, c->recv[q], k, cs_load(c->dtype, c->recv[q], k) ^
					    ((m >> 1) ^ (m >> 2)));
}
#else
#define gs_fault(p, c) ((void)0)
#endif

/* The ipgroup executor: one team's call. */
static int gs_run(void *ctx, cs_ipcall_t *c, char *err, size_t len)
{
	size_t es = cs_dtype_size(c->dtype);
	csg_sim_bufs_t *b;
	cs_gpuvmat_t v;
	csg_red_t red;
	csg_plan_t p;
	int q, rc;

	(void)ctx;
	if ((rc = cs_gpu_plan(&gs_opts, c, &p, &v, err, len)) != 0)
		return rc;
	if (!(b = calloc(1, sizeof *b))) {
		cs_gpu_vmat_free(&v);
		snprintf(err, len, "gpu-sim: out of memory");
		return CS_IPG_ENOMEM;
	}
	for (q = 0; q < c->P; q++) {
		b->buf[q][CSG_SEND] = (void *)c->send[q];
		b->len[q][CSG_SEND] = c->send[q] ? cs_gpu_send_len(&p, q) : 0;
		b->buf[q][CSG_RECV] = c->recv[q];
		b->len[q][CSG_RECV] = c->recv[q] ? cs_gpu_recv_len(&p, q) : 0;
	}
	memset(&red, 0, sizeof red);
	red.dtype = c->dtype;
	red.op = cs_coll_reduces(c->coll) ? c->op : CS_OP_SUM;
	red.P = c->P;
	for (q = 0; q < c->P; q++)
		red.scalar[q] = c->scalar[q];
	rc = tmp_buffers(&p, es, b);
	if (rc == 0 && csg_sim_run(&p, &red, b, GS_GET_OP, NULL) != CS_OK) {
		snprintf(err, len, "gpu-sim: %s", cs_last_error());
		rc = CS_IPG_EINVAL;
	} else if (rc) {
		snprintf(err, len, "%s", gs_err);
	} else {
		gs_fault(&p, c);
	}
	free(b);
	cs_gpu_vmat_free(&v);
	return rc;
}

static int gs_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	cs_ipexec_t x = { gs_run, NULL, NULL };
	int rc;

	if (cs_gpuopts_parse(options, &gs_opts, gs_err, sizeof gs_err) !=
	    CS_OK)
		return CS_IPG_EINVAL;
	if (!gs_opts.nchan)
		gs_opts.nchan = 2;
	if (!gs_opts.nslices)
		gs_opts.nslices = 2;
	if (!gs_ipg && !(gs_ipg = cs_ipg_new(x)))
		return gs_fail(CS_IPG_ENOMEM, "gpu-sim: out of memory");
	if ((rc = cs_ipg_world(gs_ipg, nranks, comms)) != 0)
		return gs_fail(rc, cs_ipg_error(gs_ipg));
	return 0;
}

static int gs_finalize(void)
{
	cs_ipg_free(gs_ipg);
	gs_ipg = NULL;
	free(gs_tmp);
	gs_tmp = NULL;
	gs_tmp_bytes = 0;
	return 0;
}

static int gs_split(cs_bcomm_t comm, int color, int key,
		    const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	(void)sub;
	return cs_ipg_split(comm, color, key, out);
}

static int gs_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
		       char *reason, size_t len)
{
	(void)comm;
	return cs_gpu_supports(&gs_opts, q, reason, len);
}

static int gs_group_start(void)
{
	return gs_ipg ? cs_ipg_start(gs_ipg)
		      : gs_fail(CS_IPG_EINVAL, "gpu-sim: not initialised");
}

static int gs_group_end(void)
{
	return gs_ipg ? cs_ipg_end(gs_ipg)
		      : gs_fail(CS_IPG_EINVAL, "gpu-sim: not initialised");
}

static int gs_synchronize(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	(void)stream;
	return 0; /* group_end ran the call to completion */
}

static const char *gs_error_string(cs_bcomm_t comm, int err)
{
	const char *m = gs_ipg ? cs_ipg_error(gs_ipg) : "";

	(void)comm;
	(void)err;
	if (m[0])
		return m;
	return gs_err[0] ? gs_err : "gpu-sim: unknown error";
}

static const cs_backend_t gs_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "gpu-sim",
	.description = "libcsgpu's ring, tree and all-to-all schedules run on "
		       "the CPU step by step (algo=...; no GPU needed)",
	/* as gpu's: one result per element, copied to every rank */
	.flags = CS_BACKEND_F_BIT_IDENTICAL,
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = gs_init_all,
	.comm_split = gs_split,
	.comm_free = cs_ipg_comm_free,
	.finalize = gs_finalize,
	.supports = gs_supports,
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
	.group_start = gs_group_start,
	.group_end = gs_group_end,
	.synchronize = gs_synchronize,
	.error_string = gs_error_string,
};

#ifdef CSG_PLUGIN
/* Built as a plugin (the mutant tests): the plugin entry point. */
__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t v)
{
	return v == CS_BACKEND_ABI_VERSION ? &gs_backend : NULL;
}
#else
const cs_backend_t *cs_backend_gpusim(void)
{
	return &gs_backend;
}
#endif
