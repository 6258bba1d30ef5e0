/*
 * test_query.c - what a backend's supports() is asked (backend.h,
 * cs_backend_query_t): the case's collective, dtype, op, root and in-place
 * flag, and its count, which for alltoallv is the largest count of one
 * pair in the matrix the case will use, not the matrix's scale.
 *
 * The expected largest pair count is found through the layout each rank
 * sees (cs_a2av_layout's send counts), not by scanning the matrix as the
 * harness does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "collspec/backend.h"
#include "csref/a2av.h"
#include "worker/precheck.h"
#include "suite/suite.h"
#include "csref/case.h"

static cs_backend_query_t seen;

static int rec_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
			char *reason, size_t len)
{
	(void)comm;
	(void)reason;
	(void)len;
	seen = *q;
	return 1;
}

static int rec_a2av(const void *s, const size_t *sc, const size_t *sd,
		    void *r, const size_t *rc, const size_t *rd, cs_dtype_t d,
		    cs_bcomm_t comm, void *stream)
{
	(void)s, (void)sc, (void)sd, (void)r, (void)rc, (void)rd, (void)d;
	(void)comm, (void)stream;
	return 0;
}

static int rec_allreduce(const void *s, void *r, size_t n, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t comm,
			 void *stream)
{
	(void)s, (void)r, (void)n, (void)d, (void)op, (void)scalar;
	(void)comm, (void)stream;
	return 0;
}

static cs_backend_t rec = {
	.name = "rec",
	.supports = rec_supports,
	.alltoallv = rec_a2av,
	.allreduce = rec_allreduce,
};

/* The largest count rank r sends, by the layout it is given. */
static size_t largest_by_layout(const cs_hcase_t *hc, int P)
{
	size_t *m = malloc((size_t)P * P * sizeof *m), most = 0;
	size_t *v = malloc(4 * (size_t)P * sizeof *v);
	cs_case_t c = hc->c;
	int r, q;

	assert_non_null(m);
	assert_non_null(v);
	c.nranks = P;
	cs_a2av_matrix(hc->a2av_pattern, P, c.count, c.seed, m);
	c.a2av_counts = m;
	for (r = 0; r < P; r++) {
		cs_a2av_layout(&c, r, v, v + P, v + 2 * P, v + 3 * P);
		for (q = 0; q < P; q++)
			if (v[q] > most)
				most = v[q];
	}
	free(v);
	free(m);
	return most;
}

static void test_alltoallv_count(void **state)
{
	cs_hcase_t hc;
	char why[128];
	int p, P;

	(void)state;
	for (p = 0; p < CS_NUM_A2AV; p++)
		for (P = 1; P <= 8; P++) {
			memset(&hc, 0, sizeof hc);
			hc.c.coll = CS_COLL_ALLTOALLV;
			hc.c.dtype = CS_DTYPE_INT32;
			hc.c.op = CS_NUM_OPS;
			hc.c.count = 37;
			hc.c.seed = 11;
			hc.a2av_pattern = (cs_a2av_pattern_t)p;
			memset(&seen, 0, sizeof seen);
			assert_int_equal(cs_backend_takes(&rec, NULL, &hc, P, why,
							  sizeof why), 0);
			assert_int_equal(seen.count, largest_by_layout(&hc, P));
			assert_int_equal(seen.nranks, P);
		}
}

/* Any other collective: the count as given. */
static void test_plain_count(void **state)
{
	cs_hcase_t hc;
	char why[128];

	(void)state;
	memset(&hc, 0, sizeof hc);
	hc.c.coll = CS_COLL_ALLREDUCE;
	hc.c.dtype = CS_DTYPE_FLOAT32;
	hc.c.op = CS_OP_SUM;
	hc.c.count = 1048577;
	hc.inplace = 1;
	assert_int_equal(cs_backend_takes(&rec, NULL, &hc, 4, why, sizeof why),
			 0);
	assert_int_equal(seen.count, 1048577);
	assert_int_equal(seen.inplace, 1);
	assert_int_equal(seen.struct_size, sizeof seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alltoallv_count),
		cmocka_unit_test(test_plain_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
