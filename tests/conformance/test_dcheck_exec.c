/*
 * test_dcheck_exec.c - the value check where the data is, in the harness
 * (conformance/check/dcheck.c), without MPI: which backends use it; on a
 * receive buffer written by hand with the oracle's values it passes the
 * range itself (cs_exec_dcheck_pass says 1) and the rank's verdict is
 * the host check's; with one element wrong, placed where a sloppy check
 * would miss it (the range's last element, on a rank other than 0), it
 * hands the range back (0), and the verdict (check, reason, detail,
 * counts) is exactly the host check's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "check/check.h"
#include "check/dcheck.h"
#include "check/exec.h"
#include "check/verdict.h"
#include "suite/suite.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/oracle.h"

static void test_where(void **state)
{
	(void)state;
	assert_int_equal(cs_dcheck_where("gpu-sim", NULL), CS_DCHECK_GRID);
	assert_int_equal(cs_dcheck_where("gpu-sim", "algo=ring"),
			 CS_DCHECK_GRID);
	assert_int_equal(cs_dcheck_where("gpu-sim", "algo=ring,dcheck=0"),
			 CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("gpu-sim", "dcheck=1"), CS_DCHECK_GRID);
	/* gpu: only when asked (never run on a device yet) */
	assert_int_equal(cs_dcheck_where("gpu", ""), CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("gpu", NULL), CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("gpu", "slices=2,dcheck=1"),
			 CS_DCHECK_DEV);
	assert_int_equal(cs_dcheck_where("gpu", "dcheck=0,slices=2"),
			 CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("gpu", "dcheck=10"), CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("ref", NULL), CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where("nccl-local", NULL), CS_DCHECK_OFF);
	assert_int_equal(cs_dcheck_where(NULL, NULL), CS_DCHECK_OFF);
}

struct xcase {
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;
	cs_mode_t mode;
	int P, rank, root;
	size_t count;
	int covered;
};

static const struct xcase xcases[] = {
	{CS_COLL_ALLTOALL, CS_DTYPE_INT32, CS_OP_NONE, CS_MODE_RANDOM, 4, 3, 0, 37, 1},
	{CS_COLL_REDUCESCATTER, CS_DTYPE_UINT8, CS_OP_SUM, CS_MODE_RANDOM, 3, 2, 0, 1025, 1},
	{CS_COLL_REDUCESCATTER, CS_DTYPE_INT64, CS_OP_PREMULSUM, CS_MODE_RANDOM, 5, 4, 0, 9, 1},
	{CS_COLL_SENDRECV, CS_DTYPE_INT64, CS_OP_NONE, CS_MODE_RANDOM, 5, 4, 0, 5000, 1},
	{CS_COLL_SCATTER, CS_DTYPE_FLOAT32, CS_OP_NONE, CS_MODE_RANDOM, 4, 3, 1, 300, 1},
	{CS_COLL_REDUCE, CS_DTYPE_INT32, CS_OP_AVG, CS_MODE_RANDOM, 4, 2, 2, 70000, 1},
	{CS_COLL_GATHER, CS_DTYPE_FLOAT16, CS_OP_NONE, CS_MODE_RANDOM, 3, 1, 1, 17, 1},
	/* not covered: float reductions, exact mode */
	{CS_COLL_REDUCESCATTER, CS_DTYPE_FLOAT32, CS_OP_SUM, CS_MODE_RANDOM, 3, 1, 0, 100, 0},
	{CS_COLL_SENDRECV, CS_DTYPE_INT32, CS_OP_NONE, CS_MODE_EXACT, 3, 1, 0, 100, 0},
};

/* Rank x->rank's exec of the case, its receive range holding the oracle's
 * bits (the send buffer and everything else as cs_exec_fill left them). */
static void run_by_hand(cs_exec_t *e, const struct xcase *x)
{
	cs_hcase_t hc;
	cs_golden_t *g;
	size_t k;

	memset(&hc, 0, sizeof hc);
	hc.c.coll = x->coll;
	hc.c.dtype = x->dtype;
	hc.c.op = x->op;
	hc.c.mode = x->mode;
	hc.c.nranks = x->P;
	hc.c.root = x->root;
	hc.c.count = x->count;
	hc.c.seed = 5;
	assert_int_equal(cs_exec_setup(e, &hc, x->P, x->rank), CS_OK);
	cs_exec_fill(e);
	g = malloc(sizeof *g * (e->recv_n ? e->recv_n : 1));
	assert_non_null(g);
	assert_int_equal(cs_oracle_expect(&e->c, x->rank, 0, e->recv_n, NULL, g),
			 CS_OK);
	for (k = 0; k < e->recv_n; k++)
		cs_store(e->c.dtype, cs_exec_recvp(e), k, g[k].bits);
	free(g);
}

static cs_local_t checked(const cs_exec_t *e)
{
	cs_local_t l;

	cs_local_init(&l, e->rank, e->rank);
	cs_exec_check(e, &l);
	return l;
}

static void same_verdict(const cs_local_t *a, const cs_local_t *b)
{
	assert_int_equal(a->verdict, b->verdict);
	assert_string_equal(a->check, b->check);
	assert_string_equal(a->reason, b->reason);
	assert_string_equal(a->detail, b->detail);
	assert_int_equal(a->elems, b->elems);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->wrong, b->wrong);
	assert_memory_equal(a->obs, b->obs, sizeof a->obs);
	assert_int_equal(a->stats.n_seen, b->stats.n_seen);
}

/* Right buffers pass on the grid, wrong ones go back with the host's
 * verdict. */
static void test_pass_and_handback(void **state)
{
	size_t i, last;

	(void)state;
	for (i = 0; i < sizeof xcases / sizeof xcases[0]; i++) {
		const struct xcase *x = &xcases[i];
		cs_local_t host, grid, l;
		cs_exec_t e;
		uint64_t b;

		run_by_hand(&e, x);
		assert_true(e.recv_n > 0);
		cs_local_init(&l, x->rank, x->rank);
		e.dcheck = CS_DCHECK_GRID;
		assert_int_equal(cs_exec_dcheck_pass(&e, x->rank,
						     cs_exec_recvp(&e), 0,
						     e.recv_n, &l), x->covered);
		assert_int_equal(l.elems, x->covered ? e.recv_n : 0);
		e.dcheck = CS_DCHECK_OFF;
		host = checked(&e);
		e.dcheck = CS_DCHECK_GRID;
		grid = checked(&e);
		assert_int_equal(host.verdict, CS_V_PASS);
		same_verdict(&host, &grid);
		/* the last element wrong, on a rank other than 0 (the
		 * second-highest bit: far out of any float bound) */
		last = e.recv_n - 1;
		b = cs_load(e.c.dtype, cs_exec_recvp(&e), last);
		cs_store(e.c.dtype, cs_exec_recvp(&e), last,
			 b ^ ((cs_bits_mask(e.c.dtype) >> 1) ^
			      (cs_bits_mask(e.c.dtype) >> 2)));
		cs_local_init(&l, x->rank, x->rank);
		assert_int_equal(cs_exec_dcheck_pass(&e, x->rank,
						     cs_exec_recvp(&e), 0,
						     e.recv_n, &l), 0);
		assert_int_equal(l.elems, 0);
		e.dcheck = CS_DCHECK_OFF;
		host = checked(&e);
		e.dcheck = CS_DCHECK_GRID;
		grid = checked(&e);
		assert_int_equal(host.verdict, CS_V_FAIL);
		assert_string_equal(host.check, "value");
		assert_int_equal(host.wrong, 1);
		same_verdict(&host, &grid);
		cs_exec_free(&e);
	}
}

/* The device mode without a device copy (a host backend, or no CUDA)
 * checks on the host: nothing passes unseen. */
static void test_dev_without_device(void **state)
{
	cs_exec_t e;
	cs_local_t l;

	(void)state;
	run_by_hand(&e, &xcases[0]);
	e.dcheck = CS_DCHECK_DEV;
	cs_local_init(&l, 3, 3);
	assert_int_equal(cs_exec_dcheck_pass(&e, 3, cs_exec_recvp(&e), 0,
					     e.recv_n, &l), 0);
	cs_exec_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_pass_and_handback),
		cmocka_unit_test(test_dev_without_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
