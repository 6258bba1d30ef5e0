/*
 * test_cover.c - the row generator on its own (conformance/suite/cover.c), on
 * small synthetic factor spaces that have nothing to do with collectives.
 *
 * Each space is a list of levels and a rule on complete rows. The test
 * enumerates every row of the product itself, keeps those the rule
 * admits, and derives from them what the generator must produce: for
 * cs_cover_all exactly those rows in lexicographic order; for
 * cs_cover_pairs rows the rule admits that hold every pair of levels (and
 * every triple of the named factors) that some admissible row holds. The
 * predicate the generator is given answers for partial rows by searching
 * the same list, which is what "exact" means in cover.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "suite/cover.h"

#define MAXF 8
#define MAXROWS 4096

/* A synthetic space: levels, a rule, and its admissible rows. */
struct space {
	int nf, n[MAXF];
	int (*rule)(const int *row);
	int adm[MAXROWS][MAXF]; /* the admissible rows, lexicographic */
	size_t nadm;
	long calls;             /* predicate calls */
};

/* Every row of the product in lexicographic order, the admissible kept. */
static void space_enumerate(struct space *s)
{
	int row[MAXF] = {0}, f;

	s->nadm = 0;
	for (f = 0; f < s->nf; f++)
		if (s->n[f] == 0)
			return;
	for (;;) {
		if (s->rule(row)) {
			assert_true(s->nadm < MAXROWS);
			memcpy(s->adm[s->nadm++], row, sizeof row);
		}
		for (f = s->nf - 1; f >= 0 && ++row[f] == s->n[f]; f--)
			row[f] = 0;
		if (f < 0)
			return;
	}
}

/* The exact predicate: some admissible row agrees with row's chosen
 * entries. */
static int completable(const void *arg, const int *row)
{
	struct space *s = (struct space *)arg;
	size_t i;
	int f;

	s->calls++;
	for (i = 0; i < s->nadm; i++) {
		for (f = 0; f < s->nf; f++)
			if (row[f] >= 0 && row[f] != s->adm[i][f])
				break;
		if (f == s->nf)
			return 1;
	}
	return 0;
}

static int is_admissible(const struct space *s, const int *row)
{
	size_t i;

	for (i = 0; i < s->nadm; i++)
		if (!memcmp(s->adm[i], row, (size_t)s->nf * sizeof *row))
			return 1;
	return 0;
}

static void cover_space(struct space *s, const int *tri, uint64_t seed,
			cs_cover_space_t *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->nf = s->nf;
	memcpy(sp->n, s->n, sizeof s->n);
	sp->completable = completable;
	sp->arg = s;
	memcpy(sp->tri, tri, sizeof sp->tri);
	sp->seed = seed;
}

/* Whether some row of rows[0..n) holds levels a of factor i and b of j
 * (and c of k when k >= 0). */
static int held(const int *rows, size_t n, int nf, int i, int a, int j, int b,
		int k, int c)
{
	size_t r;

	for (r = 0; r < n; r++) {
		const int *x = &rows[r * (size_t)nf];
		if (x[i] == a && x[j] == b && (k < 0 || x[k] == c))
			return 1;
	}
	return 0;
}

/* Whether some admissible row holds the same levels. */
static int required(const struct space *s, int i, int a, int j, int b, int k,
		    int c)
{
	return held(&s->adm[0][0], s->nadm, MAXF, i, a, j, b, k, c);
}

/*
 * rows[0..n) from cs_cover_pairs: each admissible, sorted, every required
 * pair and triple held. Returns the number of required pairs.
 */
static size_t check_cover(const struct space *s, const int *tri,
			  const int *rows, size_t n)
{
	size_t r, need = 0;
	int i, j, a, b, c;

	for (r = 0; r < n; r++) {
		assert_true(is_admissible(s, &rows[r * (size_t)s->nf]));
		if (r)
			assert_true(memcmp(&rows[(r - 1) * (size_t)s->nf],
					   &rows[r * (size_t)s->nf],
					   (size_t)s->nf * sizeof(int)) <= 0);
	}
	for (i = 0; i < s->nf; i++)
		for (j = i + 1; j < s->nf; j++)
			for (a = 0; a < s->n[i]; a++)
				for (b = 0; b < s->n[j]; b++) {
					if (!required(s, i, a, j, b, -1, 0))
						continue;
					need++;
					if (!held(rows, n, s->nf, i, a, j, b, -1, 0))
						fail_msg("pair f%d=%d f%d=%d not covered",
							 i, a, j, b);
				}
	for (a = 0; tri[0] >= 0 && a < s->n[tri[0]]; a++)
		for (b = 0; b < s->n[tri[1]]; b++)
			for (c = 0; c < s->n[tri[2]]; c++)
				if (required(s, tri[0], a, tri[1], b, tri[2], c) &&
				    !held(rows, n, s->nf, tri[0], a, tri[1], b,
					  tri[2], c))
					fail_msg("triple %d %d %d not covered", a, b, c);
	return need;
}

/* ---- the spaces ----------------------------------------------------------- */

/* No rule: the plain product. */
static int rule_none(const int *x)
{
	(void)x;
	return 1;
}

/*
 * Rules with an implied constraint: f0 = 2 needs f2 < 2, and f2 < 2 needs
 * f3 = 2, so (f0 = 2, f3 = 0) is in no admissible row though no rule names
 * that pair. Also f0 = 0 excludes f1 = 1.
 */
static int rule_implied(const int *x)
{
	if (x[0] == 0 && x[1] == 1)
		return 0;
	if (x[0] == 2 && x[2] >= 2)
		return 0;
	return x[2] >= 2 || x[3] == 2;
}

/* The shape of the suites' rules: factor 0 decides whether factors 1 and 4
 * mean something (level 0 of each is "n/a", for exactly the odd levels of
 * factor 0), and one combination of factors 2 and 5 is too costly. */
static int rule_gated(const int *x)
{
	int odd = x[0] & 1;

	if ((x[1] == 0) != odd || (x[4] == 0) != (x[0] == 3))
		return 0;
	return !(x[2] == 2 && x[5] >= 4);
}

/* Admits nothing. */
static int rule_empty(const int *x)
{
	(void)x;
	return 0;
}

static void run_space(struct space *s, const int *tri, uint64_t seed,
		      size_t *nrows, size_t *need)
{
	cs_cover_space_t sp;
	int *rows, *again;
	size_t n, n2;

	space_enumerate(s);
	cover_space(s, tri, seed, &sp);
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_OK);
	*need = check_cover(s, tri, rows, n);
	/* the rows are a pure function of the space */
	assert_int_equal(cs_cover_pairs(&sp, &again, &n2), CS_OK);
	assert_int_equal(n2, n);
	if (n)
		assert_memory_equal(rows, again, n * (size_t)s->nf * sizeof *rows);
	free(rows);
	free(again);
	*nrows = n;
}

static void test_pairs_product(void **state)
{
	static struct space s = {.nf = 4, .n = {3, 3, 3, 3}, .rule = rule_none};
	int tri[3] = {-1, -1, -1};
	size_t n, need;

	(void)state;
	run_space(&s, tri, 1, &n, &need);
	assert_int_equal(need, 6 * 9);
	/* 9 rows suffice (an orthogonal array); greedy takes a few more, but
	 * far fewer than the 81 of the product */
	assert_in_range(n, 9, 20);
}

static void test_pairs_implied(void **state)
{
	static struct space s = {.nf = 4, .n = {3, 2, 4, 3}, .rule = rule_implied};
	int tri[3] = {-1, -1, -1};
	size_t n, need;
	uint64_t seed;

	(void)state;
	for (seed = 0; seed < 8; seed++) {
		run_space(&s, tri, seed, &n, &need);
		assert_true(n > 0 && n < s.nadm);
	}
	space_enumerate(&s);
	assert_false(required(&s, 0, 2, 3, 0, -1, 0)); /* the implied one */
	assert_true(required(&s, 0, 2, 3, 2, -1, 0));
}

static void test_pairs_gated_triples(void **state)
{
	static struct space s = {.nf = 6, .n = {4, 3, 3, 2, 3, 5}, .rule = rule_gated};
	int tri[3] = {0, 2, 5};
	size_t n, need;
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 4; seed++) {
		run_space(&s, tri, seed, &n, &need);
		print_message("gated, seed %d: %zu rows of %zu admissible, %zu "
			      "pairs\n", (int)seed, n, s.nadm, need);
		assert_true(n < s.nadm);
	}
}

/* cs_cover_all: exactly the admissible rows, in lexicographic order. */
static void test_all(void **state)
{
	static struct space spaces[] = {
		{.nf = 4, .n = {3, 2, 4, 3}, .rule = rule_implied},
		{.nf = 6, .n = {4, 3, 3, 2, 3, 5}, .rule = rule_gated},
		{.nf = 3, .n = {2, 0, 3}, .rule = rule_none},
		{.nf = 2, .n = {3, 3}, .rule = rule_empty},
	};
	int tri[3] = {-1, -1, -1};
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
		struct space *s = &spaces[i];
		cs_cover_space_t sp;
		int *rows;
		size_t r;

		space_enumerate(s);
		cover_space(s, tri, 0, &sp);
		assert_int_equal(cs_cover_all(&sp, &rows, &n), CS_OK);
		assert_int_equal(n, s->nadm);
		for (r = 0; r < n; r++)
			assert_memory_equal(&rows[r * (size_t)s->nf], s->adm[r],
					    (size_t)s->nf * sizeof *rows);
		if (!n)
			assert_null(rows);
		free(rows);
	}
}

/* Nothing admissible, or a factor without levels: no rows, no array. */
static void test_pairs_empty(void **state)
{
	static struct space s1 = {.nf = 2, .n = {3, 3}, .rule = rule_empty};
	static struct space s2 = {.nf = 3, .n = {2, 0, 3}, .rule = rule_none};
	int tri[3] = {0, 1, 2};
	cs_cover_space_t sp;
	int *rows = (int *)&sp;
	size_t n = 1;

	(void)state;
	space_enumerate(&s1);
	cover_space(&s1, tri, 0, &sp);
	sp.tri[0] = -1;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_OK);
	assert_int_equal(n, 0);
	assert_null(rows);
	space_enumerate(&s2);
	cover_space(&s2, tri, 0, &sp);
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_OK);
	assert_int_equal(n, 0);
	assert_null(rows);
}

/* A predicate that accepts partial rows no admissible row completes. */
static int inexact(const void *arg, const int *row)
{
	(void)arg;
	return row[0] < 0 || row[1] < 0 || row[2] < 0 || row[0] != row[1];
}

static void test_bad_spaces(void **state)
{
	static struct space s = {.nf = 3, .n = {2, 2, 2}, .rule = rule_none};
	int tri[3] = {-1, -1, -1};
	cs_cover_space_t sp;
	int *rows = NULL;
	size_t n;

	(void)state;
	space_enumerate(&s);
	cover_space(&s, tri, 0, &sp);
	sp.nf = 0;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_ERR_INVALID);
	sp.nf = CS_COVER_MAXF + 1;
	assert_int_equal(cs_cover_all(&sp, &rows, &n), CS_ERR_INVALID);
	cover_space(&s, tri, 0, &sp);
	sp.n[1] = CS_COVER_MAXLV + 1;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_ERR_INVALID);
	cover_space(&s, tri, 0, &sp);
	sp.tri[0] = 0;
	sp.tri[1] = 2;
	sp.tri[2] = 0;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_ERR_INVALID);
	sp.tri[2] = 3;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_ERR_INVALID);
	cover_space(&s, tri, 0, &sp);
	sp.completable = NULL;
	assert_int_equal(cs_cover_all(&sp, &rows, &n), CS_ERR_INVALID);
	cover_space(&s, tri, 0, &sp);
	assert_int_equal(cs_cover_pairs(&sp, NULL, &n), CS_ERR_INVALID);
	/* pair (0, 0) of factors 0 and 1 looks possible and is not */
	sp.completable = inexact;
	assert_int_equal(cs_cover_pairs(&sp, &rows, &n), CS_ERR_INTERNAL);
	assert_null(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_product),
		cmocka_unit_test(test_pairs_implied),
		cmocka_unit_test(test_pairs_gated_triples),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_pairs_empty),
		cmocka_unit_test(test_bad_spaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
