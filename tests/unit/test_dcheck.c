/*
 * test_dcheck.c - the check where the data is (csref/dcheck.h) against
 * the host oracle.
 *
 * For every collective, dtype, op and mode, P = 1..8, with counts, ranks
 * and roots drawn at random: the cases it claims are exactly those whose
 * inputs are plain random bits (stated here from the spec's description
 * of the generator, not from dcheck.c); on a buffer holding the oracle's
 * expected bits (cs_oracle_expect, ref/oracle.c) the CPU grid executor
 * finds every element checked and none wrong, for several grid shapes; on
 * the same buffer with elements flipped at chosen and random places (the
 * first, the last, the last of a block, random ones), it counts exactly
 * those and reports the lowest of them, which the test sorts itself.
 * Built a second time with a planted error in dcheck.h (the last element
 * of each block not checked): that build must fail (test_dcheck_plant).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/arith.h"
#include "csref/case.h"
#include "csref/catalog.h"
#include "csref/dcheck.h"
#include "csref/gen.h"
#include "csref/oracle.h"

#include "test_rng.h"

/* The cases the check must cover, from the generator's contract
 * (ref/gen.c's header: "integers (every op) and op none: uniformly random
 * bits of the dtype" in random mode), minus alltoallv. */
static int must_cover(const cs_case_t *c)
{
	int intdt = cs_dtype_kind(c->dtype) != CS_KIND_FLOAT;

	return c->mode == CS_MODE_RANDOM && c->coll != CS_COLL_ALLTOALLV &&
	       (intdt || !cs_coll_reduces(c->coll));
}

/* A valid case of (coll, dtype, op, mode) at P ranks, or 0. */
static int make_case(cs_case_t *c, int coll, int dt, int op, int mode, int P)
{
	memset(c, 0, sizeof *c);
	c->coll = (cs_coll_t)coll;
	c->dtype = (cs_dtype_t)dt;
	c->op = cs_coll_reduces(c->coll) ? (cs_op_t)op : CS_OP_NONE;
	c->mode = (cs_mode_t)mode;
	c->nranks = P;
	c->root = cs_coll_rooted(c->coll) ? (int)(rnd() % (uint64_t)P) : 0;
	c->count = (size_t)(rnd() % 3 == 0 ? rnd() % 4 : rnd() % 700);
	c->seed = rnd();
	return coll != CS_COLL_ALLTOALLV && cs_case_validate(c) == CS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Run the grid executor on buf (n elements) and require `checked` = n,
 * the wrong count and lowest indices of the sorted planted set w[0..nw). */
static void expect_result(const cs_dcheck_desc_t *d, const void *buf,
			  uint64_t n, uint64_t B, uint64_t T,
			  const uint64_t *w, size_t nw)
{
	cs_dcheck_res_t r;
	size_t k;

	assert_int_equal(cs_dcheck_grid_host(d, buf, 0, n, B, T, &r), 0);
	assert_int_equal(r.checked, n);
	assert_int_equal(r.wrong, nw);
	assert_int_equal(r.nfirst, nw < CS_DCHECK_FIRST ? nw : CS_DCHECK_FIRST);
	for (k = 0; k < r.nfirst; k++)
		assert_int_equal(r.first[k], w[k]);
}

/* Flip bits of the elements at the distinct positions w[0..nw) of buf. */
static void plant(cs_dtype_t d, void *buf, const uint64_t *w, size_t nw)
{
	size_t k;

	for (k = 0; k < nw; k++)
		cs_store(d, buf, w[k], cs_load(d, buf, w[k]) ^
				       ((1 + rnd() % cs_bits_mask(d)) &
					cs_bits_mask(d)));
}

/* Planted positions: the first, the last, the last of block b of B, and
 * random ones; distinct and sorted into w, their number returned. */
static size_t positions(uint64_t n, uint64_t B, uint64_t *w)
{
	uint64_t C = (n + B - 1) / B, cand[8];
	size_t nc = 0, nw = 0, k;

	cand[nc++] = n - 1;
	if (rnd() & 1)
		cand[nc++] = 0;
	if (C * (B - 1) < n && rnd() % 2)
		cand[nc++] = C * (B - 1) - 1 < n ? C * (B - 1) - 1 : n - 1;
	while (nc < 3 + rnd() % 5)
		cand[nc++] = rnd() % n;
	qsort(cand, nc, sizeof *cand, cmp_u64);
	for (k = 0; k < nc; k++)
		if (!nw || w[nw - 1] != cand[k])
			w[nw++] = cand[k];
	return nw;
}

/* One case: its claim, and the grid executor on good and spoilt buffers. */
static void one_case(const cs_case_t *c, int rank)
{
	size_t n = cs_case_recv_count(c, rank), es = cs_dtype_size(c->dtype), k;
	static const uint64_t shapes[][2] = {{1, 1}, {1, 256}, {7, 3},
					     {1024, 256}, {3, 64}};
	uint64_t w[8], B, T;
	cs_golden_t *g;
	cs_dcheck_desc_t d;
	unsigned char *buf;
	size_t nw, s;

	assert_int_equal(cs_dcheck_desc_init(c, rank, &d), must_cover(c));
	if (!must_cover(c) || !n)
		return;
	g = malloc(sizeof *g * n);
	buf = malloc(n * es);
	assert_non_null(g);
	assert_non_null(buf);
	assert_int_equal(cs_oracle_expect(c, rank, 0, n, NULL, g), CS_OK);
	for (k = 0; k < n; k++)
		cs_store(c->dtype, buf, k, g[k].bits);
	for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		expect_result(&d, buf, n, shapes[s][0], shapes[s][1], NULL, 0);
	cs_dcheck_grid_shape(n, &B, &T);
	expect_result(&d, buf, n, B, T, NULL, 0);
	s = (size_t)(rnd() % (sizeof shapes / sizeof shapes[0]));
	nw = positions(n, shapes[s][0], w);
	plant(c->dtype, buf, w, nw);
	expect_result(&d, buf, n, shapes[s][0], shapes[s][1], w, nw);
	free(buf);
	free(g);
}

static void test_against_oracle(void **state)
{
	int coll, dt, op, mode, P, rank, cases = 0;
	cs_case_t c;

	(void)state;
	for (coll = 0; coll < CS_NUM_COLLS; coll++)
		for (dt = 0; dt < CS_NUM_DTYPES; dt++)
			for (op = 0; op < CS_NUM_OPS; op++)
				for (mode = 0; mode < CS_NUM_MODES; mode++)
					for (P = 1; P <= 8; P++) {
						if (!make_case(&c, coll, dt, op, mode, P))
							continue;
						rank = (int)(rnd() % (uint64_t)P);
						if (rnd() % 3 == 0 && cs_coll_rooted(c.coll))
							rank = c.root;
						one_case(&c, rank);
						cases++;
					}
	assert_true(cases > 1000);
}

/* Results merge the same in any order: the lowest indices of the union. */
static void test_merge(void **state)
{
	cs_dcheck_res_t a, b, ab, ba;
	uint64_t all[64];
	int k, na = 0;

	(void)state;
	cs_dcheck_res_init(&a);
	cs_dcheck_res_init(&b);
	for (k = 0; k < 64; k++) {
		uint64_t j = rnd() % 100000 + (uint64_t)k * 100000;
		cs_dcheck_res_t *r = rnd() & 1 ? &a : &b;
		r->wrong++;
		r->checked += 2;
		cs_dcheck_res_keep(r, j);
		all[na++] = j;
	}
	qsort(all, (size_t)na, sizeof *all, cmp_u64);
	ab = a;
	cs_dcheck_res_merge(&ab, &b);
	ba = b;
	cs_dcheck_res_merge(&ba, &a);
	assert_int_equal(ab.wrong, 64);
	assert_int_equal(ab.checked, 128);
	assert_int_equal(ab.nfirst, CS_DCHECK_FIRST);
	assert_memory_equal(ab.first, ba.first, sizeof ab.first);
	assert_memory_equal(ab.first, all, sizeof ab.first);
}

/* Indices past 2^32 elements: the descriptor's offset arithmetic is
 * 64-bit (scatter's source offset rank*count, reducescatter's). */
static void test_large_offset(void **state)
{
	cs_case_t c;
	cs_dcheck_desc_t d;
	size_t k;

	(void)state;
	memset(&c, 0, sizeof c);
	c.coll = CS_COLL_SCATTER;
	c.dtype = CS_DTYPE_UINT8;
	c.op = CS_OP_NONE;
	c.mode = CS_MODE_RANDOM;
	c.nranks = 4;
	c.root = 1;
	c.count = (size_t)3 << 31;
	c.seed = 7;
	assert_int_equal(cs_dcheck_desc_init(&c, 3, &d), 1);
	for (k = 0; k < 64; k++) {
		uint64_t j = c.count - 1 - rnd() % 1000;
		assert_int_equal(cs_dcheck_expect(&d, j),
				 cs_gen_input(&c, 1, 3 * c.count + j));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_large_offset),
		cmocka_unit_test(test_against_oracle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
