/*
 * test_scalesuite.c - the `scale` suite's cases (conformance/suite/
 * scalesuite.c) against what its contract says, derived here from the
 * collectives' definitions: which buffer of each collective holds P blocks
 * (spec/collectives.md), and for each class the least count that crosses
 * its boundary, odd, not a multiple of P (found by walking down from the
 * suite's count, not by the suite's formula).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/catalog.h"
#include "suite/scalesuite.h"
#include "suite_util.h"

/* Blocks in the largest buffer of a call of count n (the definitions):
 * allgather's receive buffer, reducescatter's send buffer, alltoall(v)'s
 * both, gather's receive and scatter's send buffers on the root hold P
 * blocks of count; every other buffer holds count elements. */
static uint64_t blocks(cs_coll_t c, int P)
{
	switch (c) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
		return (uint64_t)P;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS:
		break;
	}
	return 1;
}

/* Whether count n of dtype size s crosses class k's boundary. */
static int crosses(int k, cs_coll_t c, int P, uint64_t n, uint64_t s)
{
	const uint64_t two31 = (uint64_t)1 << 31;

	switch (k) {
	case CS_SCALE_BYTES:
		return blocks(c, P) * n * s > two31;
	case CS_SCALE_ELEMENTS:
		return blocks(c, P) * n > two31;
	default: /* shard: the per-rank count past 4 GiB */
		return n * s > 2 * two31;
	}
}

static int admissible(int k, cs_coll_t c, int P, uint64_t n, uint64_t s)
{
	return crosses(k, c, P, n, s) && n % 2 == 1 &&
	       (P == 1 || n % (uint64_t)P != 0);
}

static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 64};

/* Every collective three times, one per class, each case the least
 * admissible count of its class, with the suite's fixed fields. */
static void test_classes(void **state)
{
	cs_hcase_t *h;
	size_t n, i;
	unsigned j;

	(void)state;
	for (j = 0; j < sizeof sizes / sizeof *sizes; j++) {
		int P = sizes[j], seen[CS_NUM_COLLS] = {0};

		build("scale", P, NULL, &h, &n);
		assert_int_equal(n, 3 * CS_NUM_COLLS);
		for (i = 0; i < n; i++) {
			const cs_case_t *c = &h[i].c;
			int k = (int)(i % 3);
			uint64_t s = k == CS_SCALE_ELEMENTS ? 1 : 4, m;

			assert_int_equal(h[i].index, i);
			assert_int_equal(c->coll, (cs_coll_t)(i / 3));
			seen[c->coll]++;
			assert_int_equal(c->dtype, k == CS_SCALE_ELEMENTS
							   ? CS_DTYPE_INT8
							   : CS_DTYPE_FLOAT32);
			assert_int_equal(c->op, cs_coll_reduces(c->coll)
							? CS_OP_SUM
							: CS_OP_NONE);
			assert_int_equal(c->mode, CS_MODE_RANDOM);
			assert_int_equal(c->nranks, P);
			assert_int_equal(c->root,
					 cs_coll_rooted(c->coll) ? P - 1 : 0);
			assert_int_equal(h[i].inplace, 0);
			assert_int_equal(h[i].misalign, 0);
			assert_int_equal(h[i].comm, CS_COMM_WORLD);
			assert_true(admissible(k, c->coll, P, c->count, s));
			/* the least: no smaller count is admissible (below the
			 * boundary none is, so the walk stops there) */
			for (m = c->count - 1;
			     m > 0 && crosses(k, c->coll, P, m, s); m--)
				assert_false(admissible(k, c->coll, P, m, s));
			assert_int_equal(c->count,
					 cs_scale_count(c->coll,
							(cs_scale_class_t)k, P));
			if (c->coll != CS_COLL_ALLTOALLV)
				assert_valid(&h[i]);
		}
		for (i = 0; i < CS_NUM_COLLS; i++)
			assert_int_equal(seen[i], 3);
		free(h);
	}
}

/* The filter a re-run line makes of case h (base/repro.c's fields). */
static void repro_filter(const cs_hcase_t *h, cs_filter_t *f)
{
	cs_filter_init(f);
	f->colls = 1u << h->c.coll;
	f->dtypes = 1u << h->c.dtype;
	if (cs_coll_reduces(h->c.coll))
		f->ops = 1u << h->c.op;
	f->modes = 1u << h->c.mode;
	f->comms = 1u << h->comm;
	if (h->c.coll == CS_COLL_ALLTOALLV)
		f->a2av = 1u << h->a2av_pattern;
	f->counts[0] = h->c.count;
	f->ncounts = 1;
	f->inplace = h->inplace;
	if (cs_coll_rooted(h->c.coll))
		f->root = h->c.root;
	f->misalign = h->misalign;
	f->has_seed = 1;
	f->seed = h->c.seed;
}

/* Each case's re-run line selects exactly that case. */
static void test_repro_selects_one(void **state)
{
	cs_hcase_t *h, *one, want;
	cs_filter_t f;
	size_t n, m, i;
	int P;

	(void)state;
	for (P = 1; P <= 9; P += 4) {
		build("scale", P, NULL, &h, &n);
		for (i = 0; i < n; i++) {
			repro_filter(&h[i], &f);
			build("scale", P, &f, &one, &m);
			assert_int_equal(m, 1);
			want = h[i];
			want.index = 0;
			assert_memory_equal(one, &want, sizeof want);
			free(one);
		}
		free(h);
	}
}

/* Filters: a dtype moves every class to it, an op keeps the collectives
 * that reduce, --coll keeps its collective, a count replaces the
 * classes. */
static void test_filters(void **state)
{
	cs_hcase_t *h;
	cs_filter_t f;
	size_t n, i;

	(void)state;
	cs_filter_init(&f);
	f.dtypes = 1u << CS_DTYPE_BFLOAT16;
	build("scale", 4, &f, &h, &n);
	assert_int_equal(n, 3 * CS_NUM_COLLS);
	for (i = 0; i < n; i++) {
		assert_int_equal(h[i].c.dtype, CS_DTYPE_BFLOAT16);
		assert_true(admissible((int)(i % 3), h[i].c.coll, 4,
				       h[i].c.count, 2));
	}
	free(h);

	/* a 1-byte dtype: bytes and elements are one count, one case */
	cs_filter_init(&f);
	f.dtypes = 1u << CS_DTYPE_UINT8;
	f.colls = 1u << CS_COLL_BROADCAST;
	build("scale", 2, &f, &h, &n);
	assert_int_equal(n, 2);
	assert_true(admissible(CS_SCALE_BYTES, CS_COLL_BROADCAST, 2,
			       h[0].c.count, 1));
	assert_true(admissible(CS_SCALE_ELEMENTS, CS_COLL_BROADCAST, 2,
			       h[0].c.count, 1));
	assert_true(admissible(CS_SCALE_SHARD, CS_COLL_BROADCAST, 2,
			       h[1].c.count, 1));
	free(h);

	cs_filter_init(&f);
	f.ops = 1u << CS_OP_MAX;
	build("scale", 3, &f, &h, &n);
	assert_int_equal(n, 3 * 3); /* allreduce, reducescatter, reduce */
	for (i = 0; i < n; i++) {
		assert_true(cs_coll_reduces(h[i].c.coll));
		assert_int_equal(h[i].c.op, CS_OP_MAX);
	}
	free(h);

	cs_filter_init(&f);
	f.colls = 1u << CS_COLL_GATHER;
	f.counts[0] = 7;
	f.counts[1] = 1000001;
	f.ncounts = 2;
	f.root = 0;
	build("scale", 2, &f, &h, &n);
	assert_int_equal(n, 4); /* two counts x float32, int8 */
	assert_int_equal(h[0].c.count, 7);
	assert_int_equal(h[0].c.dtype, CS_DTYPE_FLOAT32);
	assert_int_equal(h[1].c.dtype, CS_DTYPE_INT8);
	assert_int_equal(h[3].c.count, 1000001);
	for (i = 0; i < n; i++)
		assert_int_equal(h[i].c.root, 0);
	free(h);
}

/* A count whose buffers overflow size_t is an error, not a case. */
static void test_overflow(void **state)
{
	cs_hcase_t *h = NULL;
	cs_filter_t f;
	size_t n = 0;

	(void)state;
	cs_filter_init(&f);
	f.colls = 1u << CS_COLL_ALLGATHER;
	f.counts[0] = SIZE_MAX / 2;
	f.ncounts = 1;
	assert_int_equal(cs_suite_build("scale", 4, &f, &h, &n),
			 CS_ERR_OVERFLOW);
	assert_null(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_repro_selects_one),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
