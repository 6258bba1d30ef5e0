/*
 * test_worker.c - the worker (conformance/worker/worker.h) with the other ranks
 * played by a mock rank group (rgroup.h) and a fake backend.
 *
 * The world has two ranks; this process drives one of them (`me`), the
 * mock plays the other: what it contributes to each exchange (its vote in
 * an agreement, its verdict in the merge, its fingerprint in the identity
 * check, the root's result it broadcasts) is set by each test. The fake
 * backend is a broadcast (and a reduce that does nothing at a non-root),
 * right or wrong on purpose. Expectations come from the contracts: a case
 * another rank cannot run is SKIP and makes no call; another rank's FAIL
 * is the case's; a cached result on the fresh-input call, an error on any
 * call, a fingerprint that differs, or a root's result that is wrong is
 * a FAIL of the named check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "check/check.h"
#include "worker/precheck.h"
#include "worker/worker.h"
#include "run/run_args.h"

#define COUNT 1000 /* elements: 4000 bytes, unlike any other exchange */

/* ---- the mock group ---------------------------------------------------------- */

static struct {
	int me;                 /* the world rank this process drives */
	int votes[8], nvotes;   /* the other rank's next votes in max() */
	int nmax;               /* max() calls */
	cs_local_t other;       /* the other rank's verdict in the merge */
	int corrupt_fp;         /* the other rank's fingerprint of its values
				   (1) or of its bytes (2) differs */
	int root_bytes;         /* bcasts of COUNT * 4 bytes from the other */
} mock;

static cs_status_t m_split(cs_rgroup_t *g, cs_commvar_t v, const int *color,
			   const int *key, int *rank, int *size)
{
	int oc, ok;

	(void)g;
	cs_commvar_split(v, 1 - mock.me, 2, &oc, &ok);
	size[0] = oc == color[0] ? 2 : 1;
	rank[0] = oc == color[0] &&
		  (ok < key[0] || (ok == key[0] && mock.me == 1));
	return CS_OK;
}

static const cs_bootstrap_t *m_boot(cs_rgroup_t *g, cs_commvar_t v, int i)
{
	(void)g, (void)v, (void)i;
	return NULL;
}

static int m_max(cs_rgroup_t *g, const int *v)
{
	int other = mock.nvotes ? mock.votes[0] : 0;

	(void)g;
	if (mock.nvotes)
		memmove(mock.votes, mock.votes + 1,
			(size_t)--mock.nvotes * sizeof *mock.votes);
	mock.nmax++;
	return v[0] > other ? v[0] : other;
}

static void m_gather(cs_rgroup_t *g, const void *mine, size_t n, void *all)
{
	(void)g;
	if (mock.me != 0)
		return;
	assert_int_equal(n, sizeof(cs_local_t));
	memcpy(all, mine, n);
	memcpy((char *)all + n, &mock.other, n);
}

/* (every variant the tests use holds both ranks, rank order = world's) */
static void m_allgather(cs_rgroup_t *g, cs_commvar_t v, const void *mine,
			size_t n, void *out)
{
	char *theirs = (char *)out + (size_t)(1 - mock.me) * n;

	(void)g, (void)v;
	memcpy((char *)out + (size_t)mock.me * n, mine, n);
	memcpy(theirs, mine, n);
	/* the last call's fingerprints: of its values (1), of its bytes (2) */
	if (mock.corrupt_fp)
		theirs[n - 1 - (mock.corrupt_fp == 1 ? sizeof(cs_khash_t) : 0)]
			^= 1;
}

static void m_bcast(cs_rgroup_t *g, cs_commvar_t v, void *const *buf,
		    size_t n, int root)
{
	(void)g, (void)v;
	if (root == mock.me)
		return;
	if (n == sizeof(int)) /* the root's "nothing to check" flag */
		memset(buf[0], 0, n);
	else if (n == sizeof(cs_khash_t)) /* the identity check's key */
		memset(buf[0], 0x5a, n);
	else { /* the root's result: wrong on purpose */
		assert_int_equal(n, COUNT * 4);
		memset(buf[0], 0xab, n);
		mock.root_bytes++;
	}
}

static double m_now(cs_rgroup_t *g)
{
	(void)g;
	return 0.0;
}

static void m_free(cs_rgroup_t *g)
{
	(void)g;
}

static const cs_rgroup_ops_t mock_ops = {
	m_split, m_boot, m_max, m_gather, m_allgather, m_bcast, m_now, m_free,
};

/* ---- the fake backend ---------------------------------------------------------- */

enum fake_mode { F_RIGHT, F_CACHE, F_ERROR };

static struct {
	enum fake_mode mode;
	int calls;
	unsigned char first[COUNT * 4]; /* what call 1 delivered */
} fake;

static int f_comm;

static int f_init(const cs_bootstrap_t *w, const char *opt, cs_bcomm_t *c)
{
	(void)w, (void)opt;
	*c = &f_comm;
	return 0;
}

static int f_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		       int root, cs_bcomm_t c, void *st)
{
	(void)d, (void)c, (void)st, (void)root;
	assert_int_equal(count, COUNT);
	if (++fake.calls == 2 && fake.mode == F_ERROR)
		return 7;
	/* the tests make this rank the root: its result is its input */
	if (fake.mode == F_CACHE && fake.calls > 1)
		memcpy(r, fake.first, sizeof fake.first);
	else if (r != s)
		memcpy(r, s, count * 4);
	if (fake.calls == 1)
		memcpy(fake.first, r, sizeof fake.first);
	return 0;
}

static int f_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		    cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		    void *st)
{
	(void)s, (void)r, (void)count, (void)d, (void)op, (void)scalar;
	(void)root, (void)c, (void)st;
	fake.calls++; /* (a non-root: nothing to deliver) */
	return 0;
}

static int f_sync(cs_bcomm_t c, void *st)
{
	(void)c, (void)st;
	return 0;
}

static const char *f_err(cs_bcomm_t c, int e)
{
	(void)c, (void)e;
	return "fake failure";
}

static const cs_backend_t fake_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "fake",
	.description = "test_worker's fake",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = f_init,
	.broadcast = f_broadcast,
	.reduce = f_reduce,
	.synchronize = f_sync,
	.error_string = f_err,
};

/* ---- a worker over them ------------------------------------------------------------ */

struct fixture {
	cs_run_opts_t o;
	cs_rgroup_t g;
	cs_worker_t w;
	cs_hcase_t *cases;
	cs_result_t res;
};

static struct fixture *start(int me)
{
	static char *argv[] = {"run", "--backend", "ref", "--quiet", "--coll",
			       "broadcast,reduce", NULL};
	struct fixture *f = calloc(1, sizeof *f);
	size_t n;

	assert_non_null(f);
	memset(&mock, 0, sizeof mock);
	memset(&fake, 0, sizeof fake);
	mock.me = me;
	cs_local_init(&mock.other, 1 - me, 1 - me);
	assert_int_equal(cs_run_parse_args(6, argv, &f->o), 0);
	f->o.out = fopen("/dev/null", "w");
	f->g.ops = &mock_ops;
	f->g.world = 2;
	f->g.nlocal = 1;
	f->g.first = me;
	f->w.o = &f->o;
	f->w.g = &f->g;
	f->w.b = &fake_backend;
	f->w.n = 1;
	assert_int_equal(cs_worker_start(&f->w, &f->cases, &n), 1);
	mock.nmax = 0;
	return f;
}

static void stop(struct fixture *f)
{
	if (f->w.rep)
		cs_report_close(f->w.rep);
	cs_worker_stop(&f->w);
	free(f->cases);
	free(f->o.wargs);
	fclose(f->o.out);
	free(f);
}

static cs_hcase_t hcase(cs_coll_t coll, int root)
{
	cs_hcase_t hc;

	memset(&hc, 0, sizeof hc);
	hc.c.coll = coll;
	hc.c.dtype = CS_DTYPE_INT32;
	hc.c.op = coll == CS_COLL_REDUCE ? CS_OP_SUM : CS_OP_NONE;
	hc.c.mode = CS_MODE_RANDOM;
	hc.c.nranks = 2;
	hc.c.count = COUNT;
	hc.c.root = root;
	hc.c.seed = 5;
	hc.comm = CS_COMM_WORLD;
	return hc;
}

/* ---- tests ---------------------------------------------------------------------------- */

/* A right broadcast passes, after 2 * repeat - 1 = 3 calls. */
static void t_pass(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 3);
	assert_int_equal(f->res.verdict, CS_V_PASS);
	stop(f);
}

/* The cheapest forgery of a repeated call: deliver call 1's result again.
 * The second call has fresh inputs: FAIL "value". */
static void t_cached_result(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	fake.mode = F_CACHE;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 3);
	assert_int_equal(f->res.verdict, CS_V_FAIL);
	assert_string_equal(f->res.check, "value");
	stop(f);
}

/* An error on any call is the case's FAIL "error", naming the call; the
 * calls after it are still made. */
static void t_error_on_call_2(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	fake.mode = F_ERROR;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 3);
	assert_int_equal(f->res.verdict, CS_V_FAIL);
	assert_string_equal(f->res.check, "error");
	assert_non_null(strstr(f->res.reason, "call 2 of 3 returned error 7"));
	stop(f);
}

/* The other rank cannot run the case (its vote is 1, "skip"): no call is
 * made, no other exchange happens, and its reason is the case's. */
static void t_other_rank_skips(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	mock.votes[mock.nvotes++] = 1;
	cs_local_set(&mock.other, CS_V_SKIP, "skip", "rank 1 declines", NULL);
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 0);
	assert_int_equal(mock.nmax, 1);
	assert_int_equal(f->res.verdict, CS_V_SKIP);
	assert_string_equal(f->res.reason, "rank 1 declines");
	stop(f);
}

/* The other rank could run the case but not place its inputs (its vote
 * before the first call is 1): no rank calls the backend. */
static void t_other_rank_inputs_fail(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	mock.votes[mock.nvotes++] = 0;
	mock.votes[mock.nvotes++] = 1;
	cs_local_set(&mock.other, CS_V_FAIL, "harness", "rank 1: no inputs",
		     NULL);
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 0);
	assert_int_equal(f->res.verdict, CS_V_FAIL);
	assert_string_equal(f->res.check, "harness");
	stop(f);
}

/* The other rank's FAIL is the case's, though this rank passed. */
static void t_other_rank_fails(void **state)
{
	struct fixture *f = start(0);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 0);

	(void)state;
	cs_local_set(&mock.other, CS_V_FAIL, "value", "rank 1: wrong", NULL);
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(f->w.l[0].verdict, CS_V_PASS);
	assert_int_equal(f->res.verdict, CS_V_FAIL);
	assert_string_equal(f->res.reason, "rank 1: wrong");
	stop(f);
}

/* This rank (1, the root) received other values than comm rank 0: FAIL
 * "identity" on this rank; the same values in other bits: WARN
 * "bitidentity" (the fake backend promises no bit identity); the same
 * fingerprints pass. */
static void t_identity(void **state)
{
	struct fixture *f = start(1);
	cs_hcase_t hc = hcase(CS_COLL_BROADCAST, 1);

	(void)state;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(f->w.l[0].verdict, CS_V_PASS);
	stop(f);

	f = start(1);
	mock.corrupt_fp = 1;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(f->w.l[0].verdict, CS_V_FAIL);
	assert_string_equal(f->w.l[0].check, "identity");
	stop(f);

	f = start(1);
	mock.corrupt_fp = 2;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(f->w.l[0].verdict, CS_V_WARN);
	assert_string_equal(f->w.l[0].check, "bitidentity");
	stop(f);
}

/* A non-root of a reduce checks its share of the root's result as the root
 * sends it: a wrong one is FAIL "value" here, on every call. */
static void t_root_share(void **state)
{
	struct fixture *f = start(1);
	cs_hcase_t hc = hcase(CS_COLL_REDUCE, 0);

	(void)state;
	cs_worker_case(&f->w, &hc, &f->res);
	assert_int_equal(fake.calls, 3);
	assert_int_equal(mock.root_bytes, 3);
	assert_int_equal(f->w.l[0].verdict, CS_V_FAIL);
	assert_string_equal(f->w.l[0].check, "value");
	stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_pass),
		cmocka_unit_test(t_cached_result),
		cmocka_unit_test(t_error_on_call_2),
		cmocka_unit_test(t_other_rank_skips),
		cmocka_unit_test(t_other_rank_inputs_fail),
		cmocka_unit_test(t_other_rank_fails),
		cmocka_unit_test(t_identity),
		cmocka_unit_test(t_root_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
