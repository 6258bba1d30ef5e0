/*
 * test_fp8_nccl.c - a correct NCCL never fails on float8, and wrong
 * overflow outcomes never pass.
 *
 * Every pair and every triple of float8 bit patterns (both formats), every
 * op, every order NCCL can apply them in (for three ranks: the three
 * pairings of a tree or of the ring's rotations, each step with both operand
 * orders), evaluated with an emulation of NCCL's device arithmetic
 * (nccl_fp8_model.c, steps in half narrowed with __NV_SATFINITE), must be
 * accepted by the golden value and the comparator exactly as the harness
 * calls them (cs_golden_reduce, cs_compare_elem), with a consistent
 * overflow profile: saturation, never Inf or NaN from finite terms. The
 * reference's own arithmetic (ref/reduce.c, overflow to Inf or NaN) must be
 * accepted too, with the other profile. Results that no order and no
 * profile can produce, by sign and magnitude arguments that need no bound,
 * must be rejected.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include "csref/golden.h"
#include "csref/compare.h"
#include "csref/arith.h"
#include "csref/reduce.h"
#include "nccl_fp8_model.h"

enum { NCCL, REF, NMODELS };

/* Tables of one format and op, per model: a step [a][b], a premultiplied
 * input [x][scalar], AVG's scalar for P = 1..3; and each pattern's value. */
struct tables {
	cs_dtype_t d;
	cs_op_t op;
	uint8_t step[NMODELS][256][256];
	uint8_t premul[NMODELS][256][256];
	uint8_t avg[NMODELS][4];
	double val[256];
};

static struct tables T;

static void build_tables(cs_dtype_t d, cs_op_t op)
{
	cs_op_t sop = cs_step_op(op);
	int a, b;

	T.d = d;
	T.op = op;
	for (a = 0; a < 256; a++) {
		uint8_t x = (uint8_t)a;
		T.val[a] = ncclm_value(d, x);
		for (b = 0; b < 256; b++) {
			uint8_t y = (uint8_t)b;
			T.step[NCCL][a][b] = ncclm_step(d, sop, x, y);
			T.step[REF][a][b] = (uint8_t)cs_step(d, sop, x, y);
			T.premul[NCCL][a][b] = ncclm_premul(d, x, y);
			T.premul[REF][a][b] = (uint8_t)cs_op_premul(d, x, y);
		}
	}
	for (a = 1; a <= 3; a++) {
		T.avg[NCCL][a] = ncclm_avg_scalar(d, a);
		T.avg[REF][a] = (uint8_t)cs_avg_scalar(d, a);
	}
}

/* A rank's prepared contribution under a model (scalar: PREMULSUM's). */
static uint8_t prepare(int model, int P, uint8_t x, uint8_t scalar)
{
	if (T.op == CS_OP_AVG)
		return T.premul[model][x][T.avg[model][P]];
	if (T.op == CS_OP_PREMULSUM)
		return T.premul[model][x][scalar];
	return x;
}

/* Per-call tallies of one model. */
struct tally {
	long elems, wrong, obs[CS_NUM_OBS];
	uint64_t first_x, first_r;
};

/* Results seen for one element, as a 256-bit set. */
struct seen {
	uint64_t w[4];
};

static void mark(struct seen *s, uint8_t r)
{
	s->w[r >> 6] |= 1ull << (r & 63);
}

static int member(const struct seen *s, int r)
{
	return (int)(s->w[r >> 6] >> (r & 63) & 1);
}

/* The next member of s from *it on (it starts at 0), or -1. */
static int next(const struct seen *s, int *it)
{
	for (; *it < 256; *it = (*it | 63) + 1) {
		uint64_t w = s->w[*it >> 6] >> (*it & 63);
		if (w) {
			int r = *it + __builtin_ctzll(w);
			*it = r + 1;
			return r;
		}
	}
	return -1;
}

/* Every result one model can give for prepared inputs y, P = 1..3: for
 * three ranks each pairing first (a ring's rotations and a tree's shapes
 * are among them), each step with both operand orders. */
static void evaluate(int model, int P, const uint8_t *y, struct seen *s)
{
	const uint8_t(*st)[256] = T.step[model];
	static const int pair[3][3] = {{0, 1, 2}, {1, 2, 0}, {0, 2, 1}};
	int k;

	memset(s, 0, sizeof *s);
	if (P == 1) { /* no step */
		mark(s, y[0]);
		return;
	}
	if (P == 2) {
		mark(s, st[y[0]][y[1]]);
		mark(s, st[y[1]][y[0]]);
		return;
	}
	for (k = 0; k < 3; k++) {
		uint8_t a = y[pair[k][0]], b = y[pair[k][1]], c = y[pair[k][2]];
		uint8_t ab = st[a][b], ba = st[b][a];
		mark(s, st[ab][c]);
		mark(s, st[c][ab]);
		mark(s, st[ba][c]);
		mark(s, st[c][ba]);
	}
}

/* Judge every result of both models against g, once per distinct value. */
static void judge(const cs_golden_t *g, const struct seen *s, uint64_t key,
		  struct tally *t)
{
	struct seen all;
	int it = 0, r, m, k;

	for (k = 0; k < 4; k++)
		all.w[k] = s[NCCL].w[k] | s[REF].w[k];
	for (m = 0; m < NMODELS; m++)
		t[m].elems++;
	while ((r = next(&all, &it)) >= 0) {
		cs_cmp_elem_t e;
		int wrong = cs_compare_elem(T.d, g, (uint64_t)r, &e) == CS_CMP_WRONG;
		for (m = 0; m < NMODELS; m++) {
			if (!member(&s[m], r))
				continue;
			if (wrong && !t[m].wrong++) {
				t[m].first_x = key;
				t[m].first_r = (uint64_t)r;
			}
			for (k = 0; k < CS_NUM_OBS; k++)
				t[m].obs[k] += (e.obs_bits >> k) & 1;
		}
	}
}

/*
 * Results no order of any profile can give, for finite inputs, P >= 2, by
 * arguments that need no error bound (rounding is monotone and grows a
 * magnitude by at most 2^-p per step, two steps here):
 *   - sums whose negative terms add up to at least -M/4 (M the largest
 *     finite value): no partial goes below -M/4 (1 + 2^-p)^2 > -M, so
 *     -M, -Inf and, but for E4M3's overflow, NaN are impossible; the same
 *     for positive terms up to M/4 and +M, +Inf;
 *   - sums of nonzero terms of one sign, and products of nonzero factors:
 *     the opposite sign of every result seen, and Inf of that sign (every
 *     partial keeps the sign; a product has the product of the signs);
 *   - zero, for such sums (a partial is at least its largest term in
 *     magnitude) and for products of factors >= 1 in magnitude.
 * Adds to *bad the number found accepted and to *tried the number tried.
 */
static void reject_impossible(const cs_golden_t *g, int P, const uint8_t *x,
			      const struct seen *s, long *bad, long *tried)
{
	double v, pm = 0, nm = 0, m = cs_max_finite(T.d), least = INFINITY;
	int e5 = T.d == CS_DTYPE_FLOAT8_E5M2, zero = 0, neg = 0, it = 0;
	uint8_t cand[264], top = ncclm_satfinite(T.d, m);
	int q, r, n = 0, i;

	if ((T.op != CS_OP_SUM && T.op != CS_OP_PROD) || P < 2)
		return;
	for (q = 0; q < P; q++) {
		v = T.val[x[q]];
		if (!isfinite(v))
			return;
		pm += v > 0 ? v : 0;
		nm += v < 0 ? v : 0;
		zero |= v == 0;
		neg ^= signbit(v) != 0;
		least = fmin(least, fabs(v));
	}
	if (T.op == CS_OP_SUM && nm >= -m / 4) {
		cand[n++] = 0x80 | top;
		if (e5)
			cand[n++] = 0xfc;
	}
	if (T.op == CS_OP_SUM && pm <= m / 4) {
		cand[n++] = top;
		if (e5)
			cand[n++] = 0x7c;
	}
	if (T.op == CS_OP_SUM && (e5 ? nm >= -m / 4 || pm <= m / 4
				     : nm >= -m / 4 && pm <= m / 4))
		cand[n++] = 0x7f; /* NaN */
	if (!zero && (T.op == CS_OP_PROD || !pm || !nm)) {
		int sg = T.op == CS_OP_PROD ? neg : nm < 0;
		while ((r = next(s, &it)) >= 0)
			if (T.val[r] != 0)
				cand[n++] = (uint8_t)r ^ 0x80;
		if (e5)
			cand[n++] = sg ? 0x7c : 0xfc; /* Inf of the other sign */
		if (T.op == CS_OP_SUM || least >= 1) {
			cand[n++] = 0x00;
			cand[n++] = 0x80;
		}
	}
	for (i = 0; i < n; i++)
		*bad += cs_compare_elem(T.d, g, cand[i], NULL) != CS_CMP_WRONG;
	*tried += n;
}

/* One element: inputs x and scalars a of P ranks, both models. */
static void element(int P, const uint8_t *x, const uint8_t *a,
		    struct tally *t, long *bad, long *tried)
{
	uint64_t xb[3], ab[3], key = 0;
	struct seen s[NMODELS];
	uint8_t y[3] = {0, 0, 0}; /* y[P..2] unused; GCC 12 -O3 cannot tell */
	cs_golden_t g;
	int q, m;

	for (q = 0; q < P; q++) {
		xb[q] = x[q];
		ab[q] = a[q];
		key = key << 16 | (uint64_t)x[q] << 8 | a[q];
	}
	cs_golden_reduce(T.d, T.op, P, xb, ab, 0, &g);
	for (m = 0; m < NMODELS; m++) {
		for (q = 0; q < P; q++)
			y[q] = prepare(m, P, x[q], a[q]);
		evaluate(m, P, y, &s[m]);
	}
	judge(&g, s, key, t);
	reject_impossible(&g, P, x, &s[NCCL], bad, tried);
}

static void merge(struct tally *into, const struct tally *t)
{
	int k;

	if (t->wrong && !into->wrong) {
		into->first_x = t->first_x;
		into->first_r = t->first_r;
	}
	into->elems += t->elems;
	into->wrong += t->wrong;
	for (k = 0; k < CS_NUM_OBS; k++)
		into->obs[k] += t->obs[k];
}

/* PREMULSUM scalars: 1, -1, 2, 1/2, the largest finite value, the least
 * subnormal, 0 and 14 (E4M3) or +Inf (E5M2). */
static const uint8_t scal_e4m3[] = {0x38, 0xb8, 0x40, 0x30, 0x7e, 0x01, 0x00,
				    0x56};
static const uint8_t scal_e5m2[] = {0x3c, 0xbc, 0x40, 0x38, 0x7b, 0x01, 0x00,
				    0x7c};
#define NSCAL 8

static uint8_t scalar(int i)
{
	const uint8_t *s = T.d == CS_DTYPE_FLOAT8_E4M3 ? scal_e4m3 : scal_e5m2;

	return s[i % NSCAL];
}

/* Every P-tuple x; PREMULSUM scalars for P = 1 every pattern, for P = 2
 * sixteen pairs from the list: (s_i, s_i) and (s_i, s_(i+3)). */
static void sweep_ordered(int P, struct tally *tot, long *bad, long *tried)
{
	int nsc = T.op != CS_OP_PREMULSUM ? 1 : P == 1 ? 256 : 2 * NSCAL;
	long n = 1L << (8 * P), k;

#pragma omp parallel
	{
		struct tally t[NMODELS];
		long b = 0, tr = 0;
		int m;

		memset(t, 0, sizeof t);
#pragma omp for schedule(static)
		for (k = 0; k < n * nsc; k++) {
			uint8_t x[2], a[2] = {0, 0};
			int i = (int)(k / n), q;
			for (q = 0; q < P; q++)
				x[q] = (uint8_t)(k % n >> (8 * q));
			if (T.op == CS_OP_PREMULSUM) {
				a[0] = P == 1 ? (uint8_t)i : scalar(i);
				a[1] = scalar(i + 3 * (i / NSCAL));
			}
			element(P, x, a, t, &b, &tr);
		}
#pragma omp critical
		{
			for (m = 0; m < NMODELS; m++)
				merge(&tot[m], &t[m]);
			*bad += b;
			*tried += tr;
		}
	}
}

/*
 * Every multiset {x0 <= x1 <= x2} of bit patterns, all orders evaluated:
 * the orders are all there are, and the verdict on a result depends on the
 * multiset only (test_symmetric checks it), so this covers every triple.
 * PREMULSUM: scalar sc at every rank.
 */
static void sweep_triples(uint8_t sc, struct tally *tot, long *bad,
			  long *tried)
{
	int a0;

#pragma omp parallel
	{
		struct tally t[NMODELS];
		long b = 0, tr = 0;
		int m;

		memset(t, 0, sizeof t);
#pragma omp for schedule(dynamic, 1)
		for (a0 = 0; a0 < 256; a0++) {
			uint8_t x[3], a[3] = {sc, sc, sc};
			int x1, x2;
			x[0] = (uint8_t)a0;
			for (x1 = x[0]; x1 < 256; x1++)
				for (x2 = x1; x2 < 256; x2++) {
					x[1] = (uint8_t)x1;
					x[2] = (uint8_t)x2;
					element(3, x, a, t, &b, &tr);
				}
		}
#pragma omp critical
		{
			for (m = 0; m < NMODELS; m++)
				merge(&tot[m], &t[m]);
			*bad += b;
			*tried += tr;
		}
	}
}

static void check_tally(cs_dtype_t d, cs_op_t op, int P, struct tally *tot)
{
	int m;

	for (m = 0; m < NMODELS; m++)
		if (tot[m].wrong)
			fail_msg("%s %s P=%d %s: %ld results rejected, first: "
				 "inputs (x,alpha per rank) %llx -> %02llx",
				 cs_dtype_name(d), cs_op_name(op), P,
				 m == NCCL ? "nccl" : "ref", tot[m].wrong,
				 (unsigned long long)tot[m].first_x,
				 (unsigned long long)tot[m].first_r);
	/* one overflow profile per model, never the other */
	assert_int_equal(tot[NCCL].obs[CS_OBS_OVF_NONFINITE], 0);
	assert_int_equal(tot[REF].obs[CS_OBS_OVF_SATURATE], 0);
	if (P >= 2 && op != CS_OP_AVG &&
	    !(d == CS_DTYPE_FLOAT8_E4M3 && (op == CS_OP_MAX || op == CS_OP_MIN)))
		assert_true(tot[NCCL].obs[CS_OBS_OVF_SATURATE] > 0);
	if (P >= 2 && (op == CS_OP_SUM || op == CS_OP_PROD))
		assert_true(tot[REF].obs[CS_OBS_OVF_NONFINITE] > 0);
}

static void check_op(cs_dtype_t d, cs_op_t op)
{
	struct tally tot[NMODELS];
	long bad = 0, tried = 0;
	int P;

	build_tables(d, op);
	for (P = 1; P <= 3; P++) {
		memset(tot, 0, sizeof tot);
		if (P < 3)
			sweep_ordered(P, tot, &bad, &tried);
		else /* PREMULSUM: scalar -2 (0xc0 in both formats) */
			sweep_triples(0xc0, tot, &bad, &tried);
		check_tally(d, op, P, tot);
	}
	if (bad)
		fail_msg("%s %s: %ld impossible results accepted", cs_dtype_name(d),
			 cs_op_name(op), bad);
	if (op == CS_OP_SUM || op == CS_OP_PROD)
		assert_true(tried > 100000);
}

/*
 * The verdict on every result of a triple, and what it reveals, do not
 * depend on the order of the ranks: random ordered triples (specials
 * included), all six orders of the ranks, every result of both models.
 */
static void check_symmetric(cs_dtype_t d, cs_op_t op)
{
	static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
				       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	int n, k, m;

	build_tables(d, op);
	for (n = 0; n < 20000; n++) {
		uint64_t x[3], a[3] = {0xc0, 0xc0, 0xc0};
		struct seen s[NMODELS], all;
		cs_golden_t g[6];
		uint8_t y[3];
		int it = 0, r, q;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		for (q = 0; q < 3; q++)
			x[q] = rng >> (8 * q) & 0xff;
		for (m = 0; m < NMODELS; m++) {
			for (q = 0; q < 3; q++)
				y[q] = prepare(m, 3, (uint8_t)x[q], 0xc0);
			evaluate(m, 3, y, &s[m]);
		}
		for (k = 0; k < 6; k++) {
			uint64_t px[3] = {x[perm[k][0]], x[perm[k][1]], x[perm[k][2]]};
			cs_golden_reduce(d, op, 3, px, a, 0, &g[k]);
		}
		for (q = 0; q < 4; q++)
			all.w[q] = s[NCCL].w[q] | s[REF].w[q];
		while ((r = next(&all, &it)) >= 0) {
			cs_cmp_elem_t e0, e;
			cs_cmp_class_t c0 = cs_compare_elem(d, &g[0], (uint64_t)r, &e0);
			for (k = 1; k < 6; k++) {
				cs_cmp_class_t c = cs_compare_elem(d, &g[k], (uint64_t)r, &e);
				if ((c == CS_CMP_WRONG) != (c0 == CS_CMP_WRONG) ||
				    e.obs_bits != e0.obs_bits)
					fail_msg("%s %s: %02x %02x %02x -> %02x judged "
						 "%d/%x, order %d: %d/%x", cs_dtype_name(d),
						 cs_op_name(op), (int)x[0], (int)x[1],
						 (int)x[2], r, c0, e0.obs_bits, k, c,
						 e.obs_bits);
			}
		}
	}
}

static void test_symmetric(void **state)
{
	int o;

	(void)state;
	for (o = CS_OP_SUM; o <= CS_OP_PREMULSUM; o++) {
		check_symmetric(CS_DTYPE_FLOAT8_E4M3, (cs_op_t)o);
		check_symmetric(CS_DTYPE_FLOAT8_E5M2, (cs_op_t)o);
	}
}

/* The model's AVG scalar (through float, narrowed with SATFINITE) is the
 * golden's cs_avg_scalar for every P up to 2^20. */
static void test_avg_scalar(void **state)
{
	int P;

	(void)state;
	for (P = 1; P <= 1 << 20; P++) {
		assert_int_equal(ncclm_avg_scalar(CS_DTYPE_FLOAT8_E4M3, P),
				 cs_avg_scalar(CS_DTYPE_FLOAT8_E4M3, P));
		assert_int_equal(ncclm_avg_scalar(CS_DTYPE_FLOAT8_E5M2, P),
				 cs_avg_scalar(CS_DTYPE_FLOAT8_E5M2, P));
	}
}

#define FP8_TEST(name, d, op)                  \
	static void name(void **state)         \
	{                                      \
		(void)state;                   \
		check_op(d, op);               \
	}
FP8_TEST(test_e4m3_sum, CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM)
FP8_TEST(test_e4m3_prod, CS_DTYPE_FLOAT8_E4M3, CS_OP_PROD)
FP8_TEST(test_e4m3_max, CS_DTYPE_FLOAT8_E4M3, CS_OP_MAX)
FP8_TEST(test_e4m3_min, CS_DTYPE_FLOAT8_E4M3, CS_OP_MIN)
FP8_TEST(test_e4m3_avg, CS_DTYPE_FLOAT8_E4M3, CS_OP_AVG)
FP8_TEST(test_e4m3_premulsum, CS_DTYPE_FLOAT8_E4M3, CS_OP_PREMULSUM)
FP8_TEST(test_e5m2_sum, CS_DTYPE_FLOAT8_E5M2, CS_OP_SUM)
FP8_TEST(test_e5m2_prod, CS_DTYPE_FLOAT8_E5M2, CS_OP_PROD)
FP8_TEST(test_e5m2_max, CS_DTYPE_FLOAT8_E5M2, CS_OP_MAX)
FP8_TEST(test_e5m2_min, CS_DTYPE_FLOAT8_E5M2, CS_OP_MIN)
FP8_TEST(test_e5m2_avg, CS_DTYPE_FLOAT8_E5M2, CS_OP_AVG)
FP8_TEST(test_e5m2_premulsum, CS_DTYPE_FLOAT8_E5M2, CS_OP_PREMULSUM)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avg_scalar),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_e4m3_sum),
		cmocka_unit_test(test_e4m3_prod),
		cmocka_unit_test(test_e4m3_max),
		cmocka_unit_test(test_e4m3_min),
		cmocka_unit_test(test_e4m3_avg),
		cmocka_unit_test(test_e4m3_premulsum),
		cmocka_unit_test(test_e5m2_sum),
		cmocka_unit_test(test_e5m2_prod),
		cmocka_unit_test(test_e5m2_max),
		cmocka_unit_test(test_e5m2_min),
		cmocka_unit_test(test_e5m2_avg),
		cmocka_unit_test(test_e5m2_premulsum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
