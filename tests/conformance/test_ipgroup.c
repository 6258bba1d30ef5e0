/*
 * test_ipgroup.c - the group recorder of the all-in-process built-in
 * backends (conformance/backends/gpu/ipgroup.h) and the options and plans the gpu and
 * gpu-sim backends share (conformance/backend_gpu_impl.h).
 *
 * The recorder is driven with a fake executor that keeps what it was
 * handed; the expectations are written from the backend ABI's rules
 * (backend.h: one call per rank between group_start and group_end is one
 * collective; comm_split orders ranks by key, then by parent rank).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "backends/gpu/backend_gpu_impl.h"
#include "backends/gpu/ipgroup.h"

/* What the fake executor saw. */
static int nruns;
static cs_ipcall_t last;
static const void *last_send[8];
static uint64_t last_scalar[8];
static int last_world[8];

static int fake_run(void *ctx, cs_ipcall_t *c, char *err, size_t len)
{
	int q;

	(void)ctx;
	(void)err;
	(void)len;
	nruns++;
	last = *c;
	for (q = 0; q < c->P && q < 8; q++) {
		last_send[q] = c->send[q];
		last_scalar[q] = c->scalar[q];
		last_world[q] = c->team->world[q];
	}
	return 0;
}

static cs_ipg_t *new_group(void **comms, int P)
{
	cs_ipexec_t x = { fake_run, NULL, NULL };
	cs_ipg_t *g = cs_ipg_new(x);

	assert_non_null(g);
	assert_int_equal(cs_ipg_world(g, P, comms), 0);
	nruns = 0;
	return g;
}

static void free_group(cs_ipg_t *g, void **comms, int P)
{
	int r;

	for (r = 0; r < P; r++)
		cs_ipg_comm_free(comms[r]);
	cs_ipg_free(g);
}

/* Every rank's allreduce in one group is one call with every rank's
 * arguments in rank order (recorded in reverse order on purpose). */
static void test_group_is_one_call(void **state)
{
	void *comms[4];
	cs_ipg_t *g = new_group(comms, 4);
	int32_t buf[4][2], scal[4];
	int r;

	(void)state;
	assert_int_equal(cs_ipg_start(g), 0);
	for (r = 3; r >= 0; r--) {
		scal[r] = 10 + r;
		assert_int_equal(cs_ipg_allreduce(buf[r], buf[r], 2,
						  CS_DTYPE_INT32,
						  CS_OP_PREMULSUM, &scal[r],
						  comms[r], NULL), 0);
	}
	assert_int_equal(nruns, 0); /* nothing runs before group_end */
	assert_int_equal(cs_ipg_end(g), 0);
	assert_int_equal(nruns, 1);
	assert_int_equal(last.coll, CS_COLL_ALLREDUCE);
	assert_int_equal(last.P, 4);
	assert_int_equal(last.count, 2);
	for (r = 0; r < 4; r++) {
		assert_ptr_equal(last_send[r], buf[r]);
		assert_int_equal(last_scalar[r], 10 + r);
	}
	free_group(g, comms, 4);
}

/* Mismatched calls, a missing rank, calls outside a group: refused with
 * a message, nothing run. */
static void test_refusals(void **state)
{
	void *comms[3];
	cs_ipg_t *g = new_group(comms, 3);
	int32_t b[3][4];
	int r;

	(void)state;
	assert_int_not_equal(cs_ipg_allgather(b[0], b[0], 1, CS_DTYPE_INT32,
					      comms[0], NULL), 0);
	assert_non_null(strstr(cs_ipg_error(g), "outside a group"));

	assert_int_equal(cs_ipg_start(g), 0);
	for (r = 0; r < 3; r++)
		assert_int_equal(cs_ipg_allgather(b[r], b[r], r == 2 ? 2 : 1,
						  CS_DTYPE_INT32, comms[r],
						  NULL), 0);
	assert_int_not_equal(cs_ipg_end(g), 0);
	assert_non_null(strstr(cs_ipg_error(g), "different calls"));

	assert_int_equal(cs_ipg_start(g), 0);
	for (r = 0; r < 2; r++)
		assert_int_equal(cs_ipg_broadcast(b[r], b[r], 1, CS_DTYPE_INT8,
						  0, comms[r], NULL), 0);
	assert_int_not_equal(cs_ipg_end(g), 0);
	assert_non_null(strstr(cs_ipg_error(g), "2 of the 3 ranks"));

	assert_int_not_equal(cs_ipg_end(g), 0); /* no group open */
	assert_non_null(strstr(cs_ipg_error(g), "without group_start"));
	assert_int_equal(nruns, 0);
	free_group(g, comms, 3);
}

/* A split: colors r % 2, keys descending, so the new ranks run in the
 * reverse order of the parent's; the teams' world ranks follow. */
static void test_split(void **state)
{
	void *comms[5], *sub[5];
	cs_ipg_t *g = new_group(comms, 5);
	int32_t b[5];
	int r;

	(void)state;
	assert_int_equal(cs_ipg_start(g), 0);
	for (r = 0; r < 5; r++)
		assert_int_equal(cs_ipg_split(comms[r], r % 2, 10 - r, &sub[r]),
				 0);
	assert_int_equal(cs_ipg_end(g), 0);
	/* color 0: world ranks 0, 2, 4 -> new ranks 2, 1, 0 */
	assert_int_equal(((cs_ipcomm_t *)sub[4])->rank, 0);
	assert_int_equal(((cs_ipcomm_t *)sub[2])->rank, 1);
	assert_int_equal(((cs_ipcomm_t *)sub[0])->rank, 2);
	assert_int_equal(((cs_ipcomm_t *)sub[0])->team->nranks, 3);
	assert_int_equal(((cs_ipcomm_t *)sub[1])->team->nranks, 2);
	assert_int_equal(((cs_ipcomm_t *)sub[3])->rank, 0);

	assert_int_equal(cs_ipg_start(g), 0);
	for (r = 0; r < 5; r += 2)
		assert_int_equal(cs_ipg_sendrecv(&b[r], &b[r], 1,
						 CS_DTYPE_INT32, sub[r], NULL),
				 0);
	assert_int_equal(cs_ipg_end(g), 0);
	assert_int_equal(nruns, 1);
	assert_int_equal(last.P, 3);
	assert_int_equal(last_world[0], 4);
	assert_int_equal(last_world[1], 2);
	assert_int_equal(last_world[2], 0);
	assert_ptr_equal(last_send[0], &b[4]);
	for (r = 0; r < 5; r++)
		cs_ipg_comm_free(sub[r]);
	free_group(g, comms, 5);
}

/* A one-rank team runs a call outside a group at once. */
static void test_one_rank(void **state)
{
	void *comms[1];
	cs_ipg_t *g = new_group(comms, 1);
	int8_t b[3];

	(void)state;
	assert_int_equal(cs_ipg_gather(b, b, 3, CS_DTYPE_UINT8, 0, comms[0],
				       NULL), 0);
	assert_int_equal(nruns, 1);
	assert_int_equal(last.coll, CS_COLL_GATHER);
	assert_int_equal(last.op, CS_NUM_OPS);
	free_group(g, comms, 1);
}

/* The in-place rule of each collective, by NCCL's pointers. */
static void test_inplace(void **state)
{
	int32_t buf[64];
	const void *send[2];
	void *recv[2];
	cs_ipcall_t c;

	(void)state;
	memset(&c, 0, sizeof c);
	c.send = send;
	c.recv = recv;
	c.P = 2;
	c.count = 4;
	c.dtype = CS_DTYPE_INT32;
	c.coll = CS_COLL_ALLGATHER;
	recv[1] = buf;
	send[1] = buf + 4; /* recv + rank * count */
	assert_int_equal(cs_ipcall_inplace(&c, 1), 1);
	send[1] = buf;
	assert_int_equal(cs_ipcall_inplace(&c, 1), 0);
	c.coll = CS_COLL_REDUCESCATTER;
	send[1] = buf;
	recv[1] = buf + 4; /* send + rank * count */
	assert_int_equal(cs_ipcall_inplace(&c, 1), 1);
	c.coll = CS_COLL_ALLREDUCE;
	assert_int_equal(cs_ipcall_inplace(&c, 1), 0);
	recv[1] = buf;
	assert_int_equal(cs_ipcall_inplace(&c, 1), 1);
	c.coll = CS_COLL_BROADCAST; /* rooted: the root's pointers only */
	c.root = 0;
	assert_int_equal(cs_ipcall_inplace(&c, 1), 0);
}

/* --backend-opt of the gpu backends. */
static void test_options(void **state)
{
	cs_gpuopts_t o;
	char err[256];

	(void)state;
	assert_int_equal(cs_gpuopts_parse("", &o, err, sizeof err), 0);
	assert_int_equal(o.algo, CSG_ALGO_AUTO);
	assert_int_equal(o.nchan, 0);
	assert_int_equal(cs_gpuopts_parse("algo=tree,channels=3,slices=64", &o,
					  err, sizeof err), 0);
	assert_int_equal(o.algo, CSG_ALGO_TREE);
	assert_int_equal(o.nchan, 3);
	assert_int_equal(o.nslices, 64);
	assert_int_equal(cs_gpuopts_parse("algo=pairwise", &o, err, sizeof err),
			 0);
	assert_int_equal(o.algo, CSG_ALGO_PAIRWISE);
	assert_int_not_equal(cs_gpuopts_parse("algo=rings", &o, err,
					      sizeof err), 0);
	assert_non_null(strstr(err, "algo=rings"));
	assert_int_not_equal(cs_gpuopts_parse("slices=65", &o, err, sizeof err),
			     0);
	/* channels: at most the runtime's counters per rank, the range named */
	assert_int_equal(cs_gpuopts_parse("channels=32", &o, err, sizeof err),
			 0);
	assert_int_equal(o.nchan, 32);
	assert_int_not_equal(cs_gpuopts_parse("channels=33", &o, err,
					      sizeof err), 0);
	assert_non_null(strstr(err, "'channels=33'"));
	assert_non_null(strstr(err, "channels=0..32"));
	assert_int_not_equal(cs_gpuopts_parse("channels=64", &o, err,
					      sizeof err), 0);
	assert_int_not_equal(cs_gpuopts_parse("channels=-1", &o, err,
					      sizeof err), 0);
	assert_int_not_equal(cs_gpuopts_parse("channels=2x", &o, err,
					      sizeof err), 0);
	assert_int_not_equal(cs_gpuopts_parse("nccl", &o, err, sizeof err), 0);
}

/* Support: an algorithm runs its collectives only, and says which. */
static void test_supports(void **state)
{
	cs_gpuopts_t o = { CSG_ALGO_PAIRWISE, 0, 0 };
	cs_backend_query_t q;
	char why[256] = "";

	(void)state;
	memset(&q, 0, sizeof q);
	q.nranks = 4;
	q.coll = CS_COLL_ALLTOALLV;
	assert_int_equal(cs_gpu_supports(&o, &q, why, sizeof why), 1);
	q.coll = CS_COLL_ALLREDUCE;
	assert_int_equal(cs_gpu_supports(&o, &q, why, sizeof why), 0);
	assert_string_equal(why, "algo=pairwise implements alltoall "
			    "alltoallv only");
	o.algo = CSG_ALGO_RING;
	q.nranks = 65;
	assert_int_equal(cs_gpu_supports(&o, &q, why, sizeof why), 0);
	assert_non_null(strstr(why, "at most 64 ranks"));
}

/* Plans: ranks that disagree about in place, and an alltoallv whose send
 * and receive counts disagree, are refused; a good alltoallv's matrix is
 * the ranks' arrays transposed where the layout says. */
static void test_plans(void **state)
{
	cs_gpuopts_t o = { CSG_ALGO_DIRECT, 0, 0 };
	int32_t buf[2][16];
	const void *send[2] = { buf[0], buf[1] };
	void *recv[2] = { buf[0], buf[1] + 8 };
	size_t sc[2][2] = { { 1, 2 }, { 3, 4 } }, sd[2][2] = { { 0, 1 }, { 0, 3 } };
	size_t rc[2][2] = { { 1, 3 }, { 2, 4 } }, rd[2][2] = { { 0, 1 }, { 0, 2 } };
	const size_t *psc[2] = { sc[0], sc[1] }, *psd[2] = { sd[0], sd[1] };
	const size_t *prc[2] = { rc[0], rc[1] }, *prd[2] = { rd[0], rd[1] };
	cs_gpuvmat_t v;
	csg_plan_t p;
	cs_ipcall_t c;
	char err[256];

	(void)state;
	memset(&c, 0, sizeof c);
	c.coll = CS_COLL_ALLTOALL;
	c.dtype = CS_DTYPE_INT32;
	c.P = 2;
	c.count = 2;
	c.send = send;
	c.recv = recv;
	assert_int_not_equal(cs_gpu_plan(&o, &c, &p, &v, err, sizeof err), 0);
	assert_non_null(strstr(err, "some ranks called in place"));

	recv[1] = buf[1] + 8;
	recv[0] = buf[0] + 8;
	c.coll = CS_COLL_ALLTOALLV;
	c.sc = psc;
	c.sd = psd;
	c.rc = prc;
	c.rd = prd;
	assert_int_equal(cs_gpu_plan(&o, &c, &p, &v, err, sizeof err), 0);
	/* rank 1 sends sc[1][0] = 3 to rank 0 from sd[1][0] = 0, into rank
	 * 0's rd[0][1] = 1 */
	assert_int_equal(p.v.cnt[1 * 2 + 0], 3);
	assert_int_equal(p.v.sdis[1 * 2 + 0], 0);
	assert_int_equal(p.v.rdis[0 * 2 + 1], 1);
	assert_int_equal(cs_gpu_send_len(&p, 1), 7);
	assert_int_equal(cs_gpu_recv_len(&p, 1), 6);
	cs_gpu_vmat_free(&v);

	rc[0][1] = 2; /* rank 0 expects 2 from rank 1, which sends 3 */
	assert_int_not_equal(cs_gpu_plan(&o, &c, &p, &v, err, sizeof err), 0);
	assert_non_null(strstr(err, "rank 1 sends 3 elements to rank 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_is_one_call),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_one_rank),
		cmocka_unit_test(test_inplace),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_supports),
		cmocka_unit_test(test_plans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
