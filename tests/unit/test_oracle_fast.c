/*
 * test_oracle_fast.c - the oracle's block path against its general path.
 *
 * cs_oracle_expect (inputs a block of columns at a time) and
 * cs_oracle_check (oracle, comparison and statistics in one pass) must give
 * what the general path gives: cs_oracle_expect_general's goldens, field by
 * field and bit for bit, and then cs_compare_range's and cs_stats_add's
 * verdicts on them. Every collective, dtype, op and mode, P = 1..64, with
 * counts, checked ranges, ranks and roots drawn at random, and received
 * values drawn around the goldens (exact, a few encodings off, random
 * bits, the other sign) so that every class and every recorded mismatch is
 * compared; plus ranges of several thousand elements, which the block path
 * splits into blocks across threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "csref/arith.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/oracle.h"
#include "csref/stats.h"

/* The test's own random numbers (splitmix64), seeded once. */
#define CS_TEST_RNG_SEED 0x0123456789abcdefull
#include "test_rng.h"

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static uint64_t canary(size_t index)
{
	return 0xa5a5a5a5a5a5a5a5ull ^ (index * 0x9e3779b97f4a7c15ull);
}

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static void fail_case(const cs_case_t *c, int rank, size_t lo, size_t n,
		      const char *what, size_t k)
{
	char name[256];

	cs_case_format(c, name, sizeof name);
	fail_msg("%s rank %d [%zu, %zu): %s at element %zu", name, rank, lo,
		 lo + n, what, k);
}

static void same_goldens(const cs_case_t *c, int rank, size_t lo, size_t n,
			 const cs_golden_t *a, const cs_golden_t *b)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (a[k].bits != b[k].bits || a[k].bits_alt != b[k].bits_alt ||
		    !same_double(a[k].s_hi, b[k].s_hi) ||
		    !same_double(a[k].s_lo, b[k].s_lo) ||
		    !same_double(a[k].bound, b[k].bound) ||
		    !same_double(a[k].sat_lo, b[k].sat_lo) ||
		    !same_double(a[k].sat_hi, b[k].sat_hi) ||
		    a[k].flags != b[k].flags)
			fail_case(c, rank, lo, n, "goldens differ", lo + k);
}

/* A received value around golden bits b: mostly exact, else a few
 * encodings off, random bits or the other sign. */
static uint64_t around(cs_dtype_t d, uint64_t b)
{
	uint64_t mask = cs_bits_mask(d), r = rnd();

	switch (r % 10) {
	case 0: return (b + 1) & mask;
	case 1: return (b - 1) & mask;
	case 2: return (b + 3) & mask;
	case 3: return (r >> 8) & mask;
	case 4: return (b ^ ((mask >> 1) + 1)) & mask; /* sign bit */
	default: return b;
	}
}

static void same_summaries(const cs_case_t *c, int rank, size_t lo, size_t n,
			   const cs_cmp_summary_t *a, const cs_cmp_summary_t *b)
{
	size_t i;

	if (a->n != b->n || a->n_exact != b->n_exact ||
	    a->n_within != b->n_within || a->n_wrong != b->n_wrong ||
	    memcmp(a->obs, b->obs, sizeof a->obs) ||
	    !same_double(a->max_ulps, b->max_ulps) ||
	    !same_double(a->max_err_ratio, b->max_err_ratio) ||
	    a->n_recorded != b->n_recorded)
		fail_case(c, rank, lo, n, "comparison summaries differ", 0);
	for (i = 0; i < a->n_recorded; i++) {
		const cs_mismatch_t *x = &a->first[i], *y = &b->first[i];
		if (x->index != y->index || x->got != y->got ||
		    x->expected != y->expected || !same_double(x->s, y->s) ||
		    !same_double(x->bound, y->bound) ||
		    !same_double(x->err, y->err) ||
		    !same_double(x->ulps, y->ulps) || x->flags != y->flags)
			fail_case(c, rank, lo, n, "recorded mismatches differ", i);
	}
}

/* Sums of doubles in another order: equal to 1e-12 relative (or the
 * same bits: infinite sums). */
static int near_equal(double a, double b)
{
	double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return same_double(a, b) || fabs(a - b) <= 1e-12 * m;
}

static void same_stats(const cs_case_t *c, int rank, size_t lo, size_t n,
		       const cs_stats_t *a, const cs_stats_t *b)
{
	char ca[32], cb[32];

	if (a->dtype != b->dtype || a->op != b->op || a->nranks != b->nranks ||
	    a->mixed != b->mixed || a->n_seen != b->n_seen ||
	    a->n_used != b->n_used || memcmp(a->hit, b->hit, sizeof a->hit) ||
	    memcmp(a->off, b->off, sizeof a->off) ||
	    a->sign_off != b->sign_off || a->sign_hit != b->sign_hit ||
	    !near_equal(a->energy, b->energy) ||
	    !near_equal(a->energy_cap, b->energy_cap) ||
	    !same_double(a->energy_capmax, b->energy_capmax))
		fail_case(c, rank, lo, n, "statistics differ", 0);
	if (cs_stats_judge(a, ca, sizeof ca, NULL, 0) !=
	    cs_stats_judge(b, cb, sizeof cb, NULL, 0) || strcmp(ca, cb))
		fail_case(c, rank, lo, n, "statistical verdicts differ", 0);
}

/* The general path's verdict on got (its goldens a) against
 * cs_oracle_check's. */
static void diff_verdicts(const cs_case_t *c, int rank, size_t lo, size_t n,
			  const cs_golden_t *a, const void *got)
{
	cs_cmp_summary_t sa, sb;
	cs_stats_t ta, tb;

	cs_cmp_summary_init(&sa);
	cs_cmp_summary_init(&sb);
	cs_stats_init(&ta);
	cs_stats_init(&tb);
	cs_compare_range(c->dtype, a, got, n, lo, &sa);
	cs_stats_add(&ta, c->dtype, c->op, c->nranks, a, got, n);
	assert_int_equal(cs_oracle_check(c, rank, lo, n, canary, got, lo, &sb, &tb),
			 CS_OK);
	same_summaries(c, rank, lo, n, &sa, &sb);
	same_stats(c, rank, lo, n, &ta, &tb);
}

/* Both paths over [lo, lo+n) of rank's receive buffer: goldens, then the
 * verdicts on the golden bits themselves (what a correct implementation
 * returns; data movement's shortcut) and on values drawn around them. */
static void diff_range(const cs_case_t *c, int rank, size_t lo, size_t n)
{
	size_t es = cs_dtype_size(c->dtype), k;
	cs_golden_t *a = malloc(sizeof *a * (n + 1));
	cs_golden_t *b = malloc(sizeof *b * (n + 1));
	unsigned char *got = malloc(es * (n + 1));

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(got);
	assert_int_equal(cs_oracle_expect_general(c, rank, lo, n, canary, a), CS_OK);
	assert_int_equal(cs_oracle_expect(c, rank, lo, n, canary, b), CS_OK);
	same_goldens(c, rank, lo, n, a, b);
	for (k = 0; k < n; k++)
		cs_store(c->dtype, got, k, a[k].bits);
	diff_verdicts(c, rank, lo, n, a, got);
	for (k = 0; k < n; k++)
		cs_store(c->dtype, got, k, around(c->dtype, a[k].bits));
	diff_verdicts(c, rank, lo, n, a, got);
	free(a);
	free(b);
	free(got);
}

/* One case with a random rank, root and checked range, count up to
 * maxcount (alltoallv: a random pattern around it). */
static int diff_case(cs_coll_t coll, cs_dtype_t d, cs_op_t op, cs_mode_t m,
		     int P, size_t maxcount)
{
	cs_case_t c = {coll, d, op, m, P, 0, below(maxcount + 1), rnd(), NULL, 0};
	size_t *M = NULL, n, lo;
	int rank = (int)below((size_t)P);

	if (cs_coll_rooted(coll))
		c.root = (int)below((size_t)P);
	if (coll == CS_COLL_ALLTOALLV) {
		M = malloc(sizeof *M * (size_t)P * (size_t)P);
		assert_non_null(M);
		cs_a2av_matrix((cs_a2av_pattern_t)below(CS_NUM_A2AV), P, c.count,
			       c.seed, M);
		c.a2av_counts = M;
		c.a2av_gap = below(3);
	}
	if (cs_case_validate(&c) != CS_OK) {
		free(M);
		return 0;
	}
	n = cs_case_recv_count(&c, rank);
	lo = below(n + 1);
	diff_range(&c, rank, lo, below(n - lo + 1));
	free(M);
	return 1;
}

/* Every collective, dtype, op (none for data movement) and mode, P =
 * 1..64, small counts. */
static void test_every_case(void **state)
{
	int coll, d, op, m, P, ran = 0;

	(void)state;
	for (coll = 0; coll < CS_NUM_COLLS; coll++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (op = 0; op < CS_NUM_OPS; op++)
				for (m = 0; m < CS_NUM_MODES; m++)
					for (P = 1; P <= 64; P++) {
						if (!cs_coll_reduces((cs_coll_t)coll) && op)
							continue;
						ran += diff_case((cs_coll_t)coll, (cs_dtype_t)d,
								 cs_coll_reduces((cs_coll_t)coll)
								 ? (cs_op_t)op : CS_OP_NONE,
								 (cs_mode_t)m, P, 24);
					}
	assert_true(ran > 50000);
}

/* Ranges of thousands of elements: many blocks, split across threads;
 * P = 1000 takes blocks shorter than 512 elements. */
static void test_long_ranges(void **state)
{
	static const int ps[] = {1, 3, 8, 17, 64, 1000};
	int coll, d, m, i;

	(void)state;
	for (coll = 0; coll < CS_NUM_COLLS; coll++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (m = 0; m < CS_NUM_MODES; m++)
				for (i = 0; i < 6; i++)
					diff_case((cs_coll_t)coll, (cs_dtype_t)d,
						  cs_coll_reduces((cs_coll_t)coll)
						  ? (cs_op_t)below(CS_NUM_OPS) : CS_OP_NONE,
						  (cs_mode_t)m, ps[i],
						  ps[i] >= 1000 ? 40 :
						  ps[i] > 8 ? 600 : 9000);
}

/* cs_gen_columns and cs_gen_block against cs_gen_input, element by
 * element, at offsets far into the stream. */
static void test_gen_blocks(void **state)
{
	int d, op, m, P;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (op = 0; op <= CS_NUM_OPS; op++)
			for (m = 0; m < CS_NUM_MODES; m++)
				for (P = 1; P <= 64; P += 7) {
					cs_case_t c = {op == CS_NUM_OPS ? CS_COLL_ALLGATHER
							: CS_COLL_ALLREDUCE, (cs_dtype_t)d,
						       op == CS_NUM_OPS ? CS_OP_NONE : (cs_op_t)op,
						       (cs_mode_t)m, P, 0, 8, rnd(), NULL, 0};
					uint64_t x[8 * 64], al[64], one[8];
					size_t lo = (size_t)rnd() >> 1, k;
					int q;

					cs_gen_columns(&c, lo, 8, x, al);
					for (k = 0; k < 8; k++)
						for (q = 0; q < P; q++)
							assert_true(x[k * (size_t)P + (size_t)q] ==
								    cs_gen_input(&c, q, lo + k));
					for (q = 0; q < P; q++)
						assert_true(al[q] == cs_gen_scalar(&c, q));
					cs_gen_block(&c, P - 1, lo, 8, one);
					for (k = 0; k < 8; k++)
						assert_true(one[k] == cs_gen_input(&c, P - 1, lo + k));
				}
}

/* Bad arguments: the same errors as the general path. */
static void test_bad_args(void **state)
{
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
		       CS_MODE_RANDOM, 4, 0, 10, 1, NULL, 0};
	cs_golden_t g[12];
	cs_cmp_summary_t s;
	float got[12] = {0};

	(void)state;
	cs_cmp_summary_init(&s);
	assert_int_equal(cs_oracle_expect(&c, 4, 0, 1, NULL, g), CS_ERR_INVALID);
	assert_int_equal(cs_oracle_expect(&c, 0, 5, 6, NULL, g), CS_ERR_INVALID);
	assert_int_equal(cs_oracle_check(&c, -1, 0, 1, NULL, got, 0, &s, NULL),
			 CS_ERR_INVALID);
	assert_int_equal(cs_oracle_check(&c, 0, 11, 0, NULL, got, 0, &s, NULL),
			 CS_ERR_INVALID);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_blocks),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_long_ranges),
		cmocka_unit_test(test_every_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
