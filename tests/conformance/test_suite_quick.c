/*
 * test_suite_quick.c - the quick suite's coverage (conformance/suite/suite.c,
 * factors.c, cover.c), checked against rules restated here.
 *
 * The rules a suite must keep are restated here, independently of the
 * generator: which factor values go together (op "none" exactly for the
 * collectives that do not reduce, a root exactly for the rooted ones, an
 * alltoallv pattern exactly for alltoallv) and the quick suite's budget
 * for the two large count classes. The coverage check then enumerates every
 * pair of factor values those rules allow and looks for it in the list.
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

enum { F_COLL, F_DTYPE, F_OP, F_MODE, F_INPLACE, F_COMM, F_COUNT, F_ROOT,
       F_MISALIGN, F_A2AV, NF };

#define NA (-1)
#define MAXV 40
#define BIG_MIN ((size_t)1 << 20)
#define MID 65537

/* The values each factor may take in a list, and which of them it has. */
struct dom {
	long long v[NF][MAXV];
	int n[NF];
};

static long long fval(const cs_hcase_t *h, int f)
{
	switch (f) {
	case F_COLL: return h->c.coll;
	case F_DTYPE: return h->c.dtype;
	case F_OP: return h->c.op;
	case F_MODE: return h->c.mode;
	case F_INPLACE: return h->inplace;
	case F_COMM: return h->comm;
	case F_COUNT: return (long long)h->c.count;
	case F_ROOT: return cs_coll_rooted(h->c.coll) ? h->c.root : NA;
	case F_MISALIGN: return h->misalign;
	default: return h->c.coll == CS_COLL_ALLTOALLV ? (long long)h->a2av_pattern
						      : NA;
	}
}

static int dom_index(const struct dom *d, int f, long long v)
{
	int i;

	for (i = 0; i < d->n[f]; i++)
		if (d->v[f][i] == v)
			return i;
	return -1;
}

static void dom_add(struct dom *d, int f, long long v)
{
	if (dom_index(d, f, v) < 0) {
		assert_true(d->n[f] < MAXV);
		d->v[f][d->n[f]++] = v;
	}
}

/* Every value of every factor, then only those the filter keeps. */
static void dom_expected(struct dom *d, int P, const cs_filter_t *f,
			 const cs_hcase_t *cases, size_t n)
{
	int i;
	size_t k;

	memset(d, 0, sizeof *d);
	for (i = 0; i < CS_NUM_COLLS; i++)
		if (!f->colls || (f->colls >> i & 1))
			dom_add(d, F_COLL, i);
	for (i = 0; i < CS_NUM_DTYPES; i++)
		if (!f->dtypes || (f->dtypes >> i & 1))
			dom_add(d, F_DTYPE, i);
	for (i = 0; i <= CS_NUM_OPS; i++)
		if (!f->ops || (f->ops >> i & 1))
			dom_add(d, F_OP, i);
	for (i = 0; i < CS_NUM_MODES; i++)
		if (!f->modes || (f->modes >> i & 1))
			dom_add(d, F_MODE, i);
	for (i = 0; i < 2; i++)
		if (f->inplace < 0 || f->inplace == i)
			dom_add(d, F_INPLACE, i);
	for (i = 0; i < (P == 1 && !f->comms ? 1 : CS_NUM_COMMVARS); i++)
		if (!f->comms || (f->comms >> i & 1))
			dom_add(d, F_COMM, i);
	dom_add(d, F_ROOT, NA);
	if (f->root < 0) {
		dom_add(d, F_ROOT, 0);
		dom_add(d, F_ROOT, P - 1);
		dom_add(d, F_ROOT, P / 2);
	} else if (f->root < P) {
		dom_add(d, F_ROOT, f->root);
	}
	for (i = 0; i < 2; i++)
		if (f->misalign < 0 || f->misalign == i)
			dom_add(d, F_MISALIGN, i);
	dom_add(d, F_A2AV, NA);
	for (i = 0; i < CS_NUM_A2AV; i++)
		if (!f->a2av || (f->a2av >> i & 1))
			dom_add(d, F_A2AV, i);
	/* counts: the explicit ones, or the classes the list shows (their
	 * presence is checked by test_quick_count_classes) */
	for (i = 0; i < f->ncounts; i++)
		dom_add(d, F_COUNT, (long long)f->counts[i]);
	for (k = 0; !f->ncounts && k < n; k++)
		dom_add(d, F_COUNT, (long long)cases[k].c.count);
}

/*
 * Input elements the checker generates for the case (its work): summed
 * over the P ranks, the send elements plus the received ones, a reduced
 * one counting once per contributing rank. Written per collective from
 * spec/collectives.md's buffer sizes (n = count), not from factors.c's
 * loop, so that a wrong cost there is seen here; alltoallv is costed as
 * alltoall (factors.c's documented rule).
 */
static double work(cs_coll_t coll, size_t count, int P)
{
	double n = (double)count, p = P;

	switch (coll) {
	case CS_COLL_ALLREDUCE:     /* n sent, n received (P inputs each) */
	case CS_COLL_ALLGATHER:     /* n sent, Pn received */
		return n * p * (1 + p);
	case CS_COLL_REDUCESCATTER: /* Pn sent, n received (P inputs each) */
	case CS_COLL_ALLTOALL:      /* Pn sent, Pn received */
	case CS_COLL_ALLTOALLV:
		return 2 * n * p * p;
	case CS_COLL_BROADCAST:     /* the root sends n, every rank gets n */
		return n * (p + 1);
	case CS_COLL_REDUCE:        /* n sent each, the root's n of P inputs */
	case CS_COLL_GATHER:        /* n sent each, the root gets Pn */
	case CS_COLL_SCATTER:       /* the root sends Pn, each gets n */
	case CS_COLL_SENDRECV:      /* n sent, n received */
		return 2 * n * p;
	case CS_NUM_COLLS:
		break;
	}
	fail_msg("work: not a collective: %d", (int)coll);
	return 0;
}

/* The quick suite's budget, restated from factors.c's comment. */
static int budget_ok(int coll, int dtype, int op, size_t count, int P)
{
	if (count >= BIG_MIN)
		return (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_BROADCAST ||
			coll == CS_COLL_REDUCE || coll == CS_COLL_SENDRECV) &&
		       cs_dtype_size((cs_dtype_t)dtype) <= 2 &&
		       (op == CS_OP_NONE || op == CS_OP_SUM);
	if (count == MID)
		return work((cs_coll_t)coll, count, P) <= (double)(8u << 20);
	return 1;
}

/* The rules, on a row of values where -2 means "any". */
static int row_ok(const long long *x, int P, int budget)
{
	int c = (int)x[F_COLL];

	if (x[F_OP] != -2 && (x[F_OP] == CS_OP_NONE) == cs_coll_reduces(c))
		return 0;
	if (x[F_ROOT] != -2 && (x[F_ROOT] == NA) == cs_coll_rooted(c))
		return 0;
	if (x[F_A2AV] != -2 && (x[F_A2AV] == NA) == (c == CS_COLL_ALLTOALLV))
		return 0;
	return !budget || budget_ok(c, (int)x[F_DTYPE], (int)x[F_OP],
				    (size_t)x[F_COUNT], P);
}

/* Whether some case of the domain holds x's fixed values (brute force over
 * the constrained factors left free). */
static int allowed(const struct dom *d, long long *x, int P, int budget)
{
	static const int free_f[] = {F_COLL, F_DTYPE, F_OP, F_COUNT};
	int k, i;

	for (k = 0; k < 4 && x[free_f[k]] != -2; k++)
		;
	if (k == 4)
		return row_ok(x, P, budget);
	for (i = 0; i < d->n[free_f[k]]; i++) {
		int ok;
		x[free_f[k]] = d->v[free_f[k]][i];
		ok = allowed(d, x, P, budget);
		x[free_f[k]] = -2;
		if (ok)
			return 1;
	}
	return 0;
}

/*
 * The list covers every pair of values the rules allow, and every allowed
 * (coll, dtype, op) triple; no case breaks a rule. Returns the number of
 * required pairs.
 */
static size_t check_coverage(const cs_hcase_t *h, size_t n, const struct dom *d,
			     int P, int budget)
{
	static unsigned char seen[NF][NF][MAXV][MAXV];
	static unsigned char tri[CS_NUM_COLLS][CS_NUM_DTYPES][CS_NUM_OPS + 1];
	long long x[NF];
	size_t k, need = 0;
	int i, j, a, b;

	memset(seen, 0, sizeof seen);
	memset(tri, 0, sizeof tri);
	for (k = 0; k < n; k++) {
		for (i = 0; i < NF; i++)
			x[i] = fval(&h[k], i);
		assert_true(row_ok(x, P, budget));
		for (i = 0; i < NF; i++) {
			assert_in_range(dom_index(d, i, x[i]), 0, MAXV);
			for (j = i + 1; j < NF; j++)
				seen[i][j][dom_index(d, i, x[i])]
				    [dom_index(d, j, x[j])] = 1;
		}
		tri[h[k].c.coll][h[k].c.dtype][h[k].c.op] = 1;
	}
	for (i = 0; i < NF; i++)
		x[i] = -2;
	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++)
			for (a = 0; a < d->n[i]; a++)
				for (b = 0; b < d->n[j]; b++) {
					x[i] = d->v[i][a];
					x[j] = d->v[j][b];
					if (allowed(d, x, P, budget)) {
						need++;
						if (!seen[i][j][a][b])
							fail_msg("P=%d: pair f%d=%lld f%d=%lld "
								 "not covered", P, i, x[i], j, x[j]);
					}
					x[i] = x[j] = -2;
				}
	for (a = 0; a < d->n[F_COLL]; a++)
		for (b = 0; b < d->n[F_DTYPE]; b++)
			for (i = 0; i < d->n[F_OP]; i++) {
				x[F_COLL] = d->v[F_COLL][a];
				x[F_DTYPE] = d->v[F_DTYPE][b];
				x[F_OP] = d->v[F_OP][i];
				if (allowed(d, x, P, budget) &&
				    !tri[x[F_COLL]][x[F_DTYPE]][x[F_OP]])
					fail_msg("P=%d: triple %s %s %s missing", P,
						 cs_coll_name((cs_coll_t)x[F_COLL]),
						 cs_dtype_name((cs_dtype_t)x[F_DTYPE]),
						 cs_op_name((cs_op_t)x[F_OP]));
				x[F_COLL] = x[F_DTYPE] = x[F_OP] = -2;
			}
	return need;
}

static void test_quick_covers_pairs(void **state)
{
	cs_filter_t f;
	struct dom d;
	cs_hcase_t *h;
	size_t n, k;
	int P;

	cs_filter_init(&f);
	for (P = 1; P <= 8; P++) {
		double w = 0;
		size_t need;

		build("quick", P, &f, &h, &n);
		dom_expected(&d, P, &f, h, n);
		need = check_coverage(h, n, &d, P, 1);
		for (k = 0; k < n; k++) {
			assert_int_equal(h[k].index, k);
			assert_int_equal(h[k].c.nranks, P);
			assert_int_equal(h[k].c.seed, 1);
			assert_valid(&h[k]);
			w += work(h[k].c.coll, h[k].c.count, P);
		}
		print_message("quick P=%d: %zu cases, %zu required pairs, "
			      "checker work %.0f Mi elements\n", P, n, need,
			      w / (1 << 20));
		/* the 300 (coll, dtype, op) triples are a lower bound; the
		 * generator gives 336 at every P, one that stopped choosing
		 * values by the pairs they cover gives about 355 */
		assert_in_range(n, 300, 345);
		free(h);
	}
}

static int is_prime(size_t x)
{
	size_t q;

	for (q = 2; q * q <= x; q++)
		if (x % q == 0)
			return 0;
	return x >= 2;
}

static int has_count(const cs_hcase_t *h, size_t n, size_t c)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (h[k].c.count == c)
			return 1;
	return 0;
}

/* The boundary classes: 0, 1, P-1, P+1, a small prime, a count not
 * divisible by P, one above a power of two, about a million. */
static void test_quick_count_classes(void **state)
{
	cs_hcase_t *h;
	size_t n, k;
	int P;

	for (P = 1; P <= 8; P++) {
		int prime = 0, nodiv = 0, pow2 = 0, big = 0;

		build("quick", P, NULL, &h, &n);
		assert_true(has_count(h, n, 0) && has_count(h, n, 1));
		assert_true(has_count(h, n, (size_t)P - 1));
		assert_true(has_count(h, n, (size_t)P + 1));
		for (k = 0; k < n; k++) {
			size_t c = h[k].c.count;
			prime |= is_prime(c) && c >= 7 && c != (size_t)P + 1 &&
				 c != (size_t)P - 1 && c < 100;
			nodiv |= c > (size_t)P + 1 && c % (size_t)P != 0;
			pow2 |= c >= 1025 && ((c - 1) & (c - 2)) == 0;
			big |= c >= BIG_MIN && c < 2 * BIG_MIN;
		}
		assert_true(prime && pow2 && big);
		assert_true(nodiv || P == 1);
		free(h);
	}
}

/* Roots 0, P-1 and the middle; alltoallv gaps zero and non-zero. */
static void test_quick_roots_and_gaps(void **state)
{
	int roots[8] = {0}, gap0 = 0, gap = 0, pats = 0;
	cs_hcase_t *h;
	size_t n, k;

	build("quick", 8, NULL, &h, &n);
	for (k = 0; k < n; k++) {
		if (cs_coll_rooted(h[k].c.coll))
			roots[h[k].c.root] = 1;
		else
			assert_int_equal(h[k].c.root, 0);
		if (h[k].c.coll != CS_COLL_ALLTOALLV)
			continue;
		gap0 |= h[k].c.a2av_gap == 0;
		gap |= h[k].c.a2av_gap > 0;
		pats |= 1 << h[k].a2av_pattern;
	}
	assert_true(roots[0] && roots[7] && roots[4]);
	assert_true(gap0 && gap);
	assert_int_equal(pats, (1 << CS_NUM_A2AV) - 1);
	free(h);
}

static void test_filters_restrict(void **state)
{
	cs_filter_t f;
	struct dom d;
	cs_hcase_t *h;
	size_t n, k;

	cs_filter_init(&f);
	f.colls = 1u << CS_COLL_ALLREDUCE | 1u << CS_COLL_ALLTOALLV |
		  1u << CS_COLL_GATHER;
	f.dtypes = 1u << CS_DTYPE_FLOAT16 | 1u << CS_DTYPE_INT32;
	f.counts[0] = 5;
	f.counts[1] = 1000;
	f.ncounts = 2;
	f.inplace = 1;
	f.has_seed = 1;
	f.seed = 42;
	build("quick", 4, &f, &h, &n);
	dom_expected(&d, 4, &f, h, n);
	check_coverage(h, n, &d, 4, 0);
	for (k = 0; k < n; k++) {
		assert_true(f.colls >> h[k].c.coll & 1);
		assert_true(f.dtypes >> h[k].c.dtype & 1);
		assert_true(h[k].c.count == 5 || h[k].c.count == 1000);
		assert_int_equal(h[k].inplace, 1);
		assert_int_equal(h[k].c.seed, 42);
	}
	free(h);

	/* op sum: only reductions, all with sum; root 2: every rooted case */
	cs_filter_init(&f);
	f.ops = 1u << CS_OP_SUM;
	f.root = 2;
	build("quick", 4, &f, &h, &n);
	assert_true(n > 0);
	for (k = 0; k < n; k++) {
		assert_int_equal(h[k].c.op, CS_OP_SUM);
		if (cs_coll_rooted(h[k].c.coll))
			assert_int_equal(h[k].c.root, 2);
	}
	free(h);

	/* a root beyond the world leaves no rooted case */
	cs_filter_init(&f);
	f.root = 5;
	build("full", 4, &f, &h, &n);
	for (k = 0; k < n; k++)
		assert_false(cs_coll_rooted(h[k].c.coll));
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quick_covers_pairs),
		cmocka_unit_test(test_quick_count_classes),
		cmocka_unit_test(test_quick_roots_and_gaps),
		cmocka_unit_test(test_filters_restrict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
