/*
 * test_suite.c - the suite registry and what every suite's list keeps
 * (conformance/suite/suite.c, factors.c): determinism, one case per
 * single-valued filter, the full suite as the product, refusals. The
 * quick suite's coverage: test_suite_quick.c; the row generator alone:
 * test_cover.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "csref/case.h"
#include "base/names.h"
#include "suite/suite.h"
#include "suite_util.h"

static void test_deterministic(void **state)
{
	const char *names[2] = {"quick", "full"};
	cs_hcase_t *a, *b;
	size_t na, nb;
	int P, s;

	for (s = 0; s < 2; s++)
		for (P = 1; P <= 8; P += s ? 7 : 1) {
			build(names[s], P, NULL, &a, &na);
			build(names[s], P, NULL, &b, &nb);
			assert_int_equal(na, nb);
			assert_memory_equal(a, b, na * sizeof *a);
			free(a);
			free(b);
		}
}

/* The filter that names exactly case h, as a reproducer does. */
static void single_filter(const cs_hcase_t *h, cs_filter_t *f)
{
	cs_filter_init(f);
	f->colls = 1u << h->c.coll;
	f->dtypes = 1u << h->c.dtype;
	f->ops = 1u << h->c.op;
	f->modes = 1u << h->c.mode;
	f->comms = 1u << h->comm;
	f->a2av = 1u << h->a2av_pattern;
	f->counts[0] = h->c.count;
	f->ncounts = 1;
	f->inplace = h->inplace;
	f->root = h->c.root;
	f->misalign = h->misalign;
	f->has_seed = 1;
	f->seed = h->c.seed;
}

/* The same, naming op, root and pattern only where the collective has
 * them, as the reproducer line does. */
static void repro_filter(const cs_hcase_t *h, cs_filter_t *f)
{
	single_filter(h, f);
	if (!cs_coll_reduces(h->c.coll))
		f->ops = 0;
	if (!cs_coll_rooted(h->c.coll))
		f->root = -1;
	if (h->c.coll != CS_COLL_ALLTOALLV)
		f->a2av = 0;
}

static void assert_one_case(const char *suite, int P, const cs_filter_t *f,
			    const cs_hcase_t *want)
{
	cs_hcase_t *h, w = *want;
	size_t n;

	build(suite, P, f, &h, &n);
	assert_int_equal(n, 1);
	w.index = 0;
	assert_memory_equal(h, &w, sizeof w);
	free(h);
}

/* Every case of the quick suite, named by single-valued filters, is
 * exactly one case, identical to it, in both suites; so it is when the
 * filters leave out what the collective does not take. */
static void test_single_valued_filters(void **state)
{
	cs_filter_t f;
	cs_hcase_t *h, want;
	size_t n, k;
	int P;

	for (P = 1; P <= 8; P += 7) {
		build("quick", P, NULL, &h, &n);
		for (k = 0; k < n; k++) {
			single_filter(&h[k], &f);
			assert_one_case("quick", P, &f, &h[k]);
			assert_one_case("full", P, &f, &h[k]);
			repro_filter(&h[k], &f);
			assert_one_case("quick", P, &f, &h[k]);
		}
		free(h);
	}
	/* a case outside the suite: explicit values win over the budget */
	memset(&want, 0, sizeof want);
	want.c = (cs_case_t){CS_COLL_ALLTOALLV, CS_DTYPE_FLOAT64, CS_OP_NONE,
			     CS_MODE_SPECIAL, 5, 0, 3000001, 99, NULL, 3};
	want.inplace = 1;
	want.comm = CS_COMM_ODDEVEN;
	want.misalign = 0;
	want.a2av_pattern = CS_A2AV_UNEVEN;
	single_filter(&want, &f);
	f.root = -1;
	assert_one_case("quick", 5, &f, &want);
	f.ops = 0; /* alltoallv takes no op: "all ops" is the same one case */
	assert_one_case("quick", 5, &f, &want);
}

static int hcase_cmp(const void *a, const void *b)
{
	cs_hcase_t x = *(const cs_hcase_t *)a, y = *(const cs_hcase_t *)b;

	x.index = y.index = 0;
	return memcmp(&x, &y, sizeof x);
}

/* full: valid, distinct, and as many as the product of the factors. */
static void test_full_is_the_product(void **state)
{
	int Ps[3] = {1, 3, 8}, i, c;

	for (i = 0; i < 3; i++) {
		int P = Ps[i], ncomm = P == 1 ? 1 : CS_NUM_COMMVARS;
		int nroot = P == 1 ? 1 : 2;
		cs_hcase_t *q, *h;
		size_t nq, n, k, counts = 0, want = 0;

		build("quick", P, NULL, &q, &nq);
		for (k = 0; k < nq; k++) {
			size_t j;
			for (j = 0; j < k && q[j].c.count != q[k].c.count; j++)
				;
			counts += j == k;
		}
		free(q);
		for (c = 0; c < CS_NUM_COLLS; c++)
			want += (size_t)CS_NUM_DTYPES *
				(cs_coll_reduces(c) ? CS_NUM_OPS : 1) *
				CS_NUM_MODES * 2 * ncomm * counts *
				(cs_coll_rooted(c) ? nroot : 1) *
				(c == CS_COLL_ALLTOALLV ? CS_NUM_A2AV : 1) * 2;
		build("full", P, NULL, &h, &n);
		print_message("full P=%d: %zu cases\n", P, n);
		assert_int_equal(n, want);
		for (k = 0; k < n; k++)
			if (P < 8 || k % 97 == 0)
				assert_valid(&h[k]);
		qsort(h, n, sizeof *h, hcase_cmp);
		for (k = 1; k < n; k++)
			assert_int_not_equal(hcase_cmp(&h[k - 1], &h[k]), 0);
		free(h);
	}
}

static void test_bad_arguments(void **state)
{
	cs_filter_t f;
	cs_hcase_t *h = NULL;
	size_t n = 0;

	cs_filter_init(&f);
	assert_int_equal(cs_suite_build("slow", 4, &f, &h, &n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "quick"));
	assert_int_equal(cs_suite_build("quick", 0, &f, &h, &n), CS_ERR_INVALID);
	assert_int_equal(cs_suite_build(NULL, 4, &f, &h, &n), CS_ERR_INVALID);
	assert_int_equal(cs_suite_build("quick", 4, &f, NULL, &n),
			 CS_ERR_INVALID);
	f.colls = 1u << CS_NUM_COLLS;
	assert_int_equal(cs_suite_build("quick", 4, &f, &h, &n), CS_ERR_INVALID);
	cs_filter_init(&f);
	f.inplace = 2;
	assert_int_equal(cs_suite_build("quick", 4, &f, &h, &n), CS_ERR_INVALID);
	cs_filter_init(&f);
	f.misalign = -2;
	assert_int_equal(cs_suite_build("full", 4, &f, &h, &n), CS_ERR_INVALID);
	cs_filter_init(&f);
	f.ncounts = 33;
	assert_int_equal(cs_suite_build("full", 4, &f, &h, &n), CS_ERR_INVALID);
	/* a count whose buffer size overflows */
	cs_filter_init(&f);
	f.colls = 1u << CS_COLL_ALLGATHER;
	f.counts[0] = SIZE_MAX / 4;
	f.ncounts = 1;
	assert_int_equal(cs_suite_build("quick", 8, &f, &h, &n),
			 CS_ERR_OVERFLOW);
	assert_null(h);
}

/* The registry: names distinct and found, each one buildable, and the
 * message for an unknown name lists every one of them. */
static void test_registry(void **state)
{
	const cs_suite_info_t *si, *sj;
	cs_hcase_t *h;
	size_t i, j, n;
	int kinds = 0;

	for (i = 0; (si = cs_suite_at(i)) != NULL; i++) {
		assert_true(si->name[0] && si->desc[0] && si->cases[0]);
		assert_ptr_equal(cs_suite_find(si->name), si);
		for (j = 0; j < i; j++)
			assert_string_not_equal(cs_suite_at(j)->name, si->name);
		build(si->name, 2, NULL, &h, &n);
		assert_true(n > 0);
		free(h);
		kinds |= 1 << si->kind;
	}
	assert_true(i >= 2);
	assert_int_equal(kinds, 1 << CS_SUITE_PRODUCT | 1 << CS_SUITE_COVER |
					1 << CS_SUITE_PATTERNS |
					1 << CS_SUITE_SCALE);
	assert_int_equal(cs_suite_find("quick")->kind, CS_SUITE_COVER);
	assert_int_equal(cs_suite_find("scale")->kind, CS_SUITE_SCALE);
	/* only scale skips case by case, with one call and an hour each */
	assert_int_equal(cs_suite_find("scale")->big, 1);
	assert_int_equal(cs_suite_find("scale")->repeat, 1);
	assert_int_equal(cs_suite_find("quick")->big, 0);
	assert_int_equal(cs_suite_find("quick")->repeat, 2);
	assert_int_equal(cs_suite_find("patterns")->kind, CS_SUITE_PATTERNS);
	assert_int_equal(cs_suite_find("full")->kind, CS_SUITE_PRODUCT);
	assert_null(cs_suite_find("Quick"));
	assert_null(cs_suite_find(NULL));
	assert_int_equal(cs_suite_check_name("slow"), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "unknown suite 'slow'"));
	for (j = 0; (sj = cs_suite_at(j)) != NULL; j++)
		assert_non_null(strstr(cs_last_error(), sj->name));
	assert_int_equal(cs_suite_check_name("full"), CS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_single_valued_filters),
		cmocka_unit_test(test_full_is_the_product),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
