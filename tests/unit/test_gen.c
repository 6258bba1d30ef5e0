/*
 * test_gen.c - the deterministic input generators (ref/gen.c).
 *
 * Checks the properties spec/numerics.md ("Inputs") asks of each data mode,
 * on the generated values themselves: determinism, exactness of every order
 * and association in exact mode, no overflow in random mode, coverage of
 * every special pattern, wrap-around of random integers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "csref/gen.h"
#include "csref/arith.h"
#include "csref/catalog.h"

#define FIRST_FLOAT CS_DTYPE_FLOAT16
#define MAXP 6

static cs_case_t mkcase(cs_dtype_t d, int op, cs_mode_t mode, int P,
			uint64_t seed)
{
	cs_case_t c;

	memset(&c, 0, sizeof c);
	c.coll = op == CS_OP_NONE ? CS_COLL_ALLGATHER : CS_COLL_ALLREDUCE;
	c.dtype = d;
	c.op = (cs_op_t)op;
	c.mode = mode;
	c.nranks = P;
	c.count = 1000;
	c.seed = seed;
	return c;
}

static double maxf(cs_dtype_t d)
{
	return cs_to_f64(d, cs_fmt_maxbits(cs_fmt_of(d)));
}

static double min_normal(cs_dtype_t d)
{
	return ldexp(1.0, cs_dtype_emin(d));
}

/* b is a finite value of d that survives a round trip through double. */
static int finite_repr(cs_dtype_t d, uint64_t b)
{
	double x = cs_to_f64(d, b);

	return isfinite(x) && cs_from_f64(d, x, 0) == b;
}

/* ---- 1. determinism -------------------------------------------------------- */

#define DET_N 3000
#define DET_P 5

static void gen_table(const cs_case_t *c, uint64_t *t, int order)
{
	long i;
	int r;

	if (order == 2) {
#pragma omp parallel for schedule(dynamic, 7) num_threads(4) private(r)
		for (i = 0; i < DET_N; i++)
			for (r = 0; r < DET_P; r++)
				t[r * DET_N + i] = cs_gen_input(c, r, (size_t)i);
		return;
	}
	for (i = 0; i < DET_N; i++) {
		long k = order ? DET_N - 1 - i : i;
		for (r = 0; r < DET_P; r++) {
			int q = order ? DET_P - 1 - r : r;
			t[q * DET_N + k] = cs_gen_input(c, q, (size_t)k);
		}
	}
}

static void check_fill(const cs_case_t *c, const uint64_t *t)
{
	unsigned char buf[8 * DET_N];
	int r;
	size_t i, lo = 7;

	for (r = 0; r < DET_P; r++) {
		cs_gen_fill(c, r, buf, lo, DET_N - lo);
		for (i = 0; i + lo < DET_N; i++)
			assert_true(cs_load(c->dtype, buf, i) == t[r * DET_N + i + lo]);
		assert_true(cs_gen_scalar(c, r) == cs_gen_scalar(c, r));
	}
}

static void test_determinism(void **state)
{
	static const int cases[][2] = {
		{CS_DTYPE_FLOAT32, CS_OP_SUM}, {CS_DTYPE_BFLOAT16, CS_OP_PROD},
		{CS_DTYPE_FLOAT8_E4M3, CS_OP_PREMULSUM}, {CS_DTYPE_INT32, CS_OP_MAX},
		{CS_DTYPE_FLOAT16, CS_OP_NONE}, {CS_DTYPE_FLOAT64, CS_OP_AVG},
		{CS_DTYPE_FLOAT8_E5M2, CS_OP_MIN}, {CS_DTYPE_UINT8, CS_OP_NONE},
	};
	size_t sz = sizeof(uint64_t) * DET_N * DET_P;
	uint64_t *fwd = malloc(sz), *rev = malloc(sz), *par = malloc(sz);
	size_t k;
	int m;

	(void)state;
	assert_non_null(fwd);
	assert_non_null(rev);
	assert_non_null(par);
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
		for (m = 0; m < CS_NUM_MODES; m++) {
			cs_case_t c = mkcase(cases[k][0], cases[k][1], m, DET_P, 42);
			gen_table(&c, fwd, 0);
			gen_table(&c, rev, 1);
			gen_table(&c, par, 2);
			assert_memory_equal(fwd, rev, sz);
			assert_memory_equal(fwd, par, sz);
			check_fill(&c, fwd);
		}
	free(fwd);
	free(rev);
	free(par);
}

/* Fraction of the first n elements where two streams agree. */
static double agree(const cs_case_t *a, int ra, const cs_case_t *b, int rb,
		    size_t n)
{
	size_t i, same = 0;

	for (i = 0; i < n; i++)
		same += cs_gen_input(a, ra, i) == cs_gen_input(b, rb, i);
	return (double)same / (double)n;
}

static void test_streams_differ(void **state)
{
	int m;

	(void)state;
	for (m = 0; m < CS_NUM_MODES; m++) {
		/* random values rarely collide (the near-limit pattern puts
		 * one magnitude at every rank); exact and special ones come
		 * from small sets, so only most of them differ */
		double lim = m == CS_MODE_RANDOM ? 0.1 : 0.7;
		cs_case_t a = mkcase(CS_DTYPE_FLOAT32, CS_OP_SUM, m, 8, 1);
		cs_case_t b = mkcase(CS_DTYPE_FLOAT32, CS_OP_SUM, m, 8, 2);
		cs_case_t p = mkcase(CS_DTYPE_FLOAT32, CS_OP_SUM, m, 9, 1);

		assert_true(agree(&a, 0, &b, 0, 4000) < lim);  /* seeds */
		assert_true(agree(&a, 0, &a, 1, 4000) < lim);  /* ranks */
		assert_true(agree(&a, 3, &p, 3, 4000) < lim);  /* P */
	}
	{
		cs_case_t a = mkcase(CS_DTYPE_INT64, CS_OP_NONE, CS_MODE_RANDOM, 4, 1);
		cs_case_t b = mkcase(CS_DTYPE_INT64, CS_OP_NONE, CS_MODE_RANDOM, 4, 2);
		assert_true(agree(&a, 2, &b, 2, 4000) < 0.01);
		assert_true(cs_gen_scalar(&a, 0) != cs_gen_scalar(&a, 1) ||
			    cs_gen_scalar(&a, 2) != cs_gen_scalar(&a, 3));
	}
}

/* ---- 2. exact mode: every order and association ---------------------------- */

/*
 * The result of a binary tree over a subset S of the inputs is the step op
 * applied to the results of its two subtrees, over an ordered split
 * S = A u B. So the set of values reachable by all permutations x all
 * binary trees over S is built from those of every ordered split, smallest
 * subsets first: this enumerates exactly every order and association.
 */
#define VSET 8

struct vset {
	int n; /* -1: more than VSET distinct values */
	uint64_t v[VSET];
};

static void vset_add(struct vset *s, uint64_t b)
{
	int i;

	if (s->n < 0)
		return;
	for (i = 0; i < s->n; i++)
		if (s->v[i] == b)
			return;
	if (s->n == VSET)
		s->n = -1;
	else
		s->v[s->n++] = b;
}

static void all_orders(cs_dtype_t d, cs_op_t step, const uint64_t *x, int P,
		       struct vset *out)
{
	struct vset s[1 << MAXP];
	unsigned S, A, full = (1u << P) - 1;
	int i, j;

	for (S = 1; S <= full; S++) {
		s[S].n = 0;
		if (!(S & (S - 1))) {
			vset_add(&s[S], x[__builtin_ctz(S)]);
			continue;
		}
		for (A = (S - 1) & S; A; A = (A - 1) & S) {
			const struct vset *a = &s[A], *b = &s[S ^ A];
			if (a->n < 0 || b->n < 0) {
				s[S].n = -1;
				break;
			}
			for (i = 0; i < a->n; i++)
				for (j = 0; j < b->n; j++)
					vset_add(&s[S], cs_step(d, step, a->v[i],
								b->v[j]));
		}
	}
	*out = s[full];
}

/* Exact float result, independently in long double. */
static long double exact_float(cs_dtype_t d, cs_op_t op, const uint64_t *x,
			       const uint64_t *alpha, int P)
{
	long double r = cs_to_f64(d, x[0]);
	int i;

	if (op == CS_OP_PREMULSUM)
		r *= cs_to_f64(d, alpha[0]);
	for (i = 1; i < P; i++) {
		long double y = cs_to_f64(d, x[i]);
		switch (op) {
		case CS_OP_PROD: r *= y; break;
		case CS_OP_MAX: r = y > r ? y : r; break;
		case CS_OP_MIN: r = y < r ? y : r; break;
		case CS_OP_PREMULSUM: r += y * cs_to_f64(d, alpha[i]); break;
		case CS_OP_SUM:
		case CS_OP_AVG:
		case CS_NUM_OPS: /* CS_OP_NONE: not a reduction op */
		default: r += y; break;
		}
	}
	return op == CS_OP_AVG ? r / P : r;
}

/* Every reachable result equals the exact one (a zero of either sign is
 * accepted only for max/min ties, where the spec allows either). */
static void check_float_exact(cs_dtype_t d, cs_op_t op, const struct vset *s,
			      long double ex, size_t index, int P)
{
	int i;

	if (s->n < 0 || (s->n > 1 && ex != 0) ||
	    (s->n > 1 && op != CS_OP_MAX && op != CS_OP_MIN))
		fail_msg("%s %s P=%d index %zu: %d different results",
			 cs_dtype_name(d), cs_op_name(op), P, index, s->n);
	for (i = 0; i < s->n; i++) {
		long double got = cs_to_f64(d, s->v[i]);
		int minmax = op == CS_OP_MAX || op == CS_OP_MIN;
		if (got != ex || (!minmax && !signbit(got) != !signbit(ex)))
			fail_msg("%s %s P=%d index %zu: got %.20Lg, exact %.20Lg",
				 cs_dtype_name(d), cs_op_name(op), P, index,
				 got, ex);
	}
}

/* Significant bits of x (0 for zero): the width of its odd integer part. */
static int sig_bits(long double x)
{
	int top, low;

	if (x == 0 || !isfinite(x))
		return 0;
	(void)frexpl(x, &top);
	for (low = top - 1; ldexpl(x, -low) != truncl(ldexpl(x, -low)); low--)
		;
	return top - low;
}

/* Inputs of either sign seen in exact mode (bit 0: negative, 1: positive). */
static unsigned exact_signs;

/* Checks one index; returns the significant bits of the exact result. */
static int exact_float_index(const cs_case_t *c, size_t index)
{
	cs_dtype_t d = c->dtype;
	cs_op_t op = c->op;
	int P = c->nranks, r;
	uint64_t x[MAXP] = {0}, a[MAXP] = {0}, prep[MAXP] = {0};
	struct vset s;
	long double ex;

	for (r = 0; r < P; r++) {
		x[r] = cs_gen_input(c, r, index);
		a[r] = cs_gen_scalar(c, r);
		prep[r] = op == CS_OP_PREMULSUM ? cs_op_premul(d, x[r], a[r])
			  : op == CS_OP_AVG ? cs_op_premul(d, x[r], cs_avg_scalar(d, P))
			  : x[r];
		assert_true(finite_repr(d, x[r]));
		if (cs_to_f64(d, x[r]) != 0)
			exact_signs |= 1u << (cs_to_f64(d, x[r]) > 0);
	}
	ex = exact_float(d, op, x, a, P);
	all_orders(d, cs_step_op(op), prep, P, &s);
	check_float_exact(d, op, &s, ex, index, P);
	if (op == CS_OP_AVG) { /* sum first, then divide */
		all_orders(d, CS_OP_SUM, x, P, &s);
		assert_int_equal(s.n, 1);
		s.v[0] = cs_op_premul(d, s.v[0], cs_avg_scalar(d, P));
		check_float_exact(d, op, &s, ex, index, P);
	}
	return sig_bits(ex);
}

static uint64_t int_exact(cs_dtype_t d, cs_op_t op, const uint64_t *x,
			  const uint64_t *alpha, int P)
{
	int sgn = cs_is_signed_int(d), i;
	int64_t r = cs_int_value(d, x[0]);

	if (op == CS_OP_PREMULSUM)
		r = (int64_t)((uint64_t)r * (uint64_t)cs_int_value(d, alpha[0]));
	for (i = 1; i < P; i++) {
		int64_t y = cs_int_value(d, x[i]);
		switch (op) {
		case CS_OP_PROD: r = (int64_t)((uint64_t)r * (uint64_t)y); break;
		case CS_OP_MAX:
			r = (sgn ? y > r : (uint64_t)y > (uint64_t)r) ? y : r;
			break;
		case CS_OP_MIN:
			r = (sgn ? y < r : (uint64_t)y < (uint64_t)r) ? y : r;
			break;
		case CS_OP_PREMULSUM:
			r = (int64_t)((uint64_t)r +
				      (uint64_t)y * (uint64_t)cs_int_value(d, alpha[i]));
			break;
		case CS_OP_SUM:
		case CS_OP_AVG:
		case CS_NUM_OPS: /* CS_OP_NONE: not a reduction op */
		default: r = (int64_t)((uint64_t)r + (uint64_t)y); break;
		}
	}
	if (op == CS_OP_AVG) /* the wrapped sum, truncated division by P */
		r = sgn ? cs_int_value(d, (uint64_t)r & cs_bits_mask(d)) / P
			: (int64_t)(((uint64_t)r & cs_bits_mask(d)) / (uint64_t)P);
	return (uint64_t)r & cs_bits_mask(d);
}

static void exact_int_index(const cs_case_t *c, size_t index)
{
	cs_dtype_t d = c->dtype;
	int P = c->nranks, r, sgn = cs_is_signed_int(d);
	uint64_t x[MAXP] = {0}, a[MAXP] = {0}, prep[MAXP] = {0}, got;
	struct vset s;

	for (r = 0; r < P; r++) {
		int64_t v;
		x[r] = cs_gen_input(c, r, index);
		a[r] = cs_gen_scalar(c, r);
		v = cs_int_value(d, x[r]);
		assert_true(sgn ? v >= -100 && v <= 100 : x[r] <= 100);
		v = cs_int_value(d, a[r]);
		assert_true(sgn ? v >= -3 && v <= 3 : a[r] <= 3);
		prep[r] = c->op == CS_OP_PREMULSUM ? cs_op_premul(d, x[r], a[r]) : x[r];
	}
	all_orders(d, cs_step_op(c->op), prep, P, &s);
	assert_int_equal(s.n, 1);
	got = c->op == CS_OP_AVG ? cs_op_postdiv(d, s.v[0], P) : s.v[0];
	assert_true(got == int_exact(d, c->op, x, a, P));
}

#define EXACT_N 300

/*
 * The inputs use the room exactness leaves: for sums and products some
 * exact result needs p - 1 significant bits or more (all-zero or too
 * timid inputs would pass the exactness check and test nothing). premulsum
 * with P >= 2 gives up to 4 bits to the spread of its scalars.
 */
static void exact_case(cs_dtype_t d, cs_op_t op, int P)
{
	cs_case_t c = mkcase(d, op, CS_MODE_EXACT, P, 7 + P);
	int widest = 0, b, want = cs_dtype_prec(d) - 1;
	size_t i;

	exact_signs = 0;
	for (i = 0; i < EXACT_N; i++) {
		if (!cs_is_float(d)) {
			exact_int_index(&c, i * 977);
			continue;
		}
		b = exact_float_index(&c, i * 977);
		widest = b > widest ? b : widest;
	}
	if (cs_is_float(d) && exact_signs != 3)
		fail_msg("%s %s P=%d: exact inputs of one sign only",
			 cs_dtype_name(d), cs_op_name(op), P);
	if (op == CS_OP_PREMULSUM && P > 1)
		want = want - 4 < 1 ? 1 : want - 4;
	if (cs_is_float(d) && op != CS_OP_MAX && op != CS_OP_MIN && widest < want)
		fail_msg("%s %s P=%d: exact results have at most %d bits",
			 cs_dtype_name(d), cs_op_name(op), P, widest);
}

static void test_exact_all_orders(void **state)
{
	int d, op, P;

	(void)state;
	for (P = 1; P <= 5; P++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (op = 0; op < CS_NUM_OPS; op++) {
				int pow2 = (P & (P - 1)) == 0;
				if (op == CS_OP_AVG && cs_is_float(d) && !pow2)
					continue; /* not exact: checked with its bound */
				exact_case(d, op, P);
			}
}

/*
 * Rank counts too large to enumerate every order: check the sufficient
 * condition instead. Sums: every value a multiple of 2^e (e >= the
 * subnormal exponent) with sum |x| <= min(2^(e+p), 2^emax), so every partial
 * is an integer of at most p bits times 2^e, at most 2^emax. Prod: at most
 * one value is not a power of two, and the sums of all positive (negative)
 * exponents stay inside the normal range.
 */
/* Returns 1 when some input at this index is nonzero. */
static int exact_large_sum(const cs_case_t *c, size_t index, int shift)
{
	cs_dtype_t d = c->dtype;
	int p = cs_dtype_prec(d), r, e = 99999;
	long double tot = 0, v[64];

	for (r = 0; r < c->nranks; r++) {
		uint64_t b = cs_gen_input(c, r, index);
		int ex;
		assert_true(finite_repr(d, b));
		v[r] = cs_to_f64(d, b);
		if (c->op == CS_OP_PREMULSUM)
			v[r] *= cs_to_f64(d, cs_gen_scalar(c, r));
		if (v[r] != 0) { /* exponent of the lowest set bit */
			(void)frexpl(v[r], &ex);
			while (ldexpl(v[r], -(ex - 1)) != truncl(ldexpl(v[r], -(ex - 1))))
				ex--;
			e = ex - 1 < e ? ex - 1 : e;
		}
		tot += fabsl(v[r]);
	}
	if (tot == 0)
		return 0;
	assert_true(e - shift >= cs_dtype_emin(d) - p + 1);
	assert_true(tot <= ldexpl(1, e + p));
	assert_true(tot <= ldexpl(1, cs_dtype_emax(d)));
	return 1;
}

static void exact_large_prod(const cs_case_t *c, size_t index)
{
	cs_dtype_t d = c->dtype;
	cs_fmt_t f = cs_fmt_of(d);
	int r, pos = 0, neg = 0, mant = 0, zero = 0;

	for (r = 0; r < c->nranks; r++) {
		uint64_t b = cs_gen_input(c, r, index);
		int k = (int)((b >> f.mbits) & cs_fmt_emask(f)) - cs_fmt_bias(f);
		assert_true(finite_repr(d, b));
		if (cs_to_f64(d, b) == 0) {
			zero++;
			continue;
		}
		mant += (b & cs_fmt_mmask(f)) != 0;
		pos += k > 0 ? k : 0;
		neg += k < 0 ? k : 0;
	}
	assert_true(mant <= 1 && zero <= 1);
	assert_true(pos + 1 <= cs_dtype_emax(d));
	assert_true(neg >= cs_dtype_emin(d));
}

static void test_exact_large_p(void **state)
{
	static const int Ps[] = {9, 17, 20, 64};
	size_t i, k;
	int d, nonzero;

	(void)state;
	for (k = 0; k < sizeof Ps / sizeof Ps[0]; k++)
		for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++) {
			cs_case_t s = mkcase(d, CS_OP_SUM, CS_MODE_EXACT, Ps[k], 3);
			cs_case_t m = mkcase(d, CS_OP_PREMULSUM, CS_MODE_EXACT, Ps[k], 3);
			cs_case_t a = mkcase(d, CS_OP_AVG, CS_MODE_EXACT, 64, 3);
			cs_case_t q = mkcase(d, CS_OP_PROD, CS_MODE_EXACT, Ps[k], 3);
			nonzero = 0;
			for (i = 0; i < 400; i++) {
				nonzero += exact_large_sum(&s, i, 0);
				nonzero += exact_large_sum(&m, i, 0);
				exact_large_prod(&q, i);
				if (k == 0) /* avg, P = 64: x / 64 and sum / 64 exact */
					nonzero += exact_large_sum(&a, i, 6);
			}
			assert_true(nonzero >= 600); /* not a stream of zeros */
		}
}

/* op none, exact mode: small readable integers. */
static void test_exact_moved(void **state)
{
	int d, r;
	size_t i;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		cs_case_t c = mkcase(d, CS_OP_NONE, CS_MODE_EXACT, 4, 5);
		for (r = 0; r < 4; r++)
			for (i = 0; i < 500; i++) {
				uint64_t b = cs_gen_input(&c, r, i);
				if (!cs_is_float(d)) {
					assert_true(cs_int_value(d, b) >= 0);
					continue;
				}
				double x = cs_to_f64(d, b);
				assert_true(finite_repr(d, b));
				assert_true(x >= 0 && x == floor(x) &&
					    x < ldexp(1.0, cs_dtype_prec(d)));
			}
	}
}

/* Outside special mode every float input is finite (op none random: any
 * bits), for any P and far indices too. */
static void finite_case(const cs_case_t *c)
{
	size_t i, ix;
	int r;

	for (i = 0; i < 20; i++)
		for (r = 0; r < c->nranks; r++) {
			ix = i * 1000003u + (i & 1 ? SIZE_MAX - 40 : 0);
			assert_true(finite_repr(c->dtype, cs_gen_input(c, r, ix)));
			assert_true(finite_repr(c->dtype, cs_gen_scalar(c, r)));
		}
}

static void test_finite_everywhere(void **state)
{
	static const int Ps[] = {1, 2, 3, 7, 64, 1000};
	int d, op, m;
	size_t k;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++)
		for (op = 0; op <= CS_OP_NONE; op++)
			for (m = 0; m < CS_MODE_SPECIAL; m++)
				for (k = 0; k < sizeof Ps / sizeof Ps[0]; k++) {
					cs_case_t c = mkcase(d, op, m, Ps[k], 43);
					if (op != CS_OP_NONE || m != CS_MODE_RANDOM)
						finite_case(&c);
				}
}

/* ---- 3. random mode -------------------------------------------------------- */

#define RAND_N 2000

static void random_sum_index(const cs_case_t *c, size_t index, const double *alpha)
{
	cs_dtype_t d = c->dtype;
	long double tot = 0;
	int r;

	for (r = 0; r < c->nranks; r++) {
		uint64_t b = cs_gen_input(c, r, index);
		if (!finite_repr(d, b))
			fail_msg("%s %s P=%d rank %d index %zu: %#llx not a finite value",
				 cs_dtype_name(d), cs_op_name(c->op), c->nranks, r,
				 index, (unsigned long long)b);
		tot += fabsl((long double)cs_to_f64(d, b) * alpha[r]);
	}
	if (tot > maxf(d) / 2)
		fail_msg("%s %s P=%d index %zu: sum |x| = %Lg > max/2 = %g",
			 cs_dtype_name(d), cs_op_name(c->op), c->nranks, index,
			 tot, maxf(d) / 2);
}

static void check_scalars(const cs_case_t *c, double *alpha)
{
	int r, negs = 0;

	for (r = 0; r < c->nranks; r++) {
		uint64_t b = cs_gen_scalar(c, r);
		alpha[r] = c->op == CS_OP_PREMULSUM ? cs_to_f64(c->dtype, b) : 1.0;
		if (c->op != CS_OP_PREMULSUM)
			continue;
		assert_true(finite_repr(c->dtype, b));
		assert_true(fabs(alpha[r]) >= 1.0 / 16 && fabs(alpha[r]) <= 16);
		negs += alpha[r] < 0;
	}
	if (c->op == CS_OP_PREMULSUM && c->nranks >= 33) /* mixed signs */
		assert_true(negs > 0 && negs < c->nranks);
}

static void test_random_sums_bounded(void **state)
{
	static const int Ps[] = {1, 2, 3, 5, 8, 33, 1000, 1 << 16};
	static const int ops[] = {CS_OP_SUM, CS_OP_AVG, CS_OP_PREMULSUM};
	static double alpha[1 << 16];
	size_t i, k, o;
	int d;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++)
		for (o = 0; o < 3; o++)
			for (k = 0; k < sizeof Ps / sizeof Ps[0]; k++) {
				cs_case_t c = mkcase(d, ops[o], CS_MODE_RANDOM,
						     Ps[k], 11);
				size_t n = Ps[k] > 1000 ? 3 : Ps[k] > 100 ? 100 : RAND_N;
				check_scalars(&c, alpha);
				for (i = 0; i < n; i++)
					random_sum_index(&c, i, alpha);
			}
}

/* Every nonempty subset of the P inputs: exact product (long double) and
 * product rounded to the dtype in rank order stay in [min normal, max]. */
static void random_prod_index(const cs_case_t *c, size_t index)
{
	cs_dtype_t d = c->dtype;
	uint64_t x[MAXP];
	unsigned S;
	int r;

	for (r = 0; r < c->nranks; r++) {
		x[r] = cs_gen_input(c, r, index);
		assert_true(finite_repr(d, x[r]));
	}
	for (S = 1; S < (1u << c->nranks); S++) {
		long double ex = 1;
		uint64_t acc = 0;
		int first = 1;
		for (r = 0; r < c->nranks; r++) {
			if (!(S >> r & 1))
				continue;
			ex *= cs_to_f64(d, x[r]);
			acc = first ? x[r] : cs_step(d, CS_OP_PROD, acc, x[r]);
			first = 0;
		}
		if (fabsl(ex) < min_normal(d) || fabsl(ex) > maxf(d) ||
		    !isfinite(cs_to_f64(d, acc)) ||
		    fabs(cs_to_f64(d, acc)) < min_normal(d))
			fail_msg("%s prod P=%d index %zu subset %#x: %Lg",
				 cs_dtype_name(d), c->nranks, index, S, ex);
	}
}

/* Larger P: every prefix in rank order, rounded to the dtype. */
static void random_prod_prefixes(const cs_case_t *c, size_t index)
{
	cs_dtype_t d = c->dtype;
	uint64_t acc = cs_gen_input(c, 0, index);
	int r;

	for (r = 1; r < c->nranks; r++) {
		acc = cs_step(d, CS_OP_PROD, acc, cs_gen_input(c, r, index));
		assert_true(isfinite(cs_to_f64(d, acc)));
		assert_true(fabs(cs_to_f64(d, acc)) >= min_normal(d));
	}
}

static void test_random_prod_in_range(void **state)
{
	int d, P;
	size_t i;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++) {
		for (P = 1; P <= MAXP; P++) {
			cs_case_t c = mkcase(d, CS_OP_PROD, CS_MODE_RANDOM, P, 13);
			for (i = 0; i < RAND_N; i++)
				random_prod_index(&c, i);
		}
		for (P = 16; P <= 256; P *= 4) {
			cs_case_t c = mkcase(d, CS_OP_PROD, CS_MODE_RANDOM, P, 13);
			for (i = 0; i < 200; i++)
				random_prod_prefixes(&c, i);
		}
	}
}

/* The patterns are there: cancellation (an odd P too), near the limit, wide
 * range; max/min: finite values of both signs, ties. */
#define PAT_P 7
#define PAT_N 4000

static void test_random_patterns(void **state)
{
	int d, r, cancel, near, wide, ties, negs;
	size_t i;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++) {
		cs_case_t c = mkcase(d, CS_OP_SUM, CS_MODE_RANDOM, PAT_P, 17);
		cs_case_t m = mkcase(d, CS_OP_MAX, CS_MODE_RANDOM, PAT_P, 17);
		int p = cs_dtype_prec(d);
		cancel = near = wide = ties = negs = 0;
		for (i = 0; i < PAT_N; i++) {
			long double s = 0, a = 0, lo = INFINITY, hi = 0;
			for (r = 0; r < PAT_P; r++) {
				long double x = cs_to_f64(d, cs_gen_input(&c, r, i));
				uint64_t y = cs_gen_input(&m, r, i);
				s += x;
				a += fabsl(x);
				lo = x != 0 && fabsl(x) < lo ? fabsl(x) : lo;
				hi = fabsl(x) > hi ? fabsl(x) : hi;
				assert_true(finite_repr(d, y));
				negs += (int)(y >> (8 * cs_size_of(d) - 1));
				ties += r && y == cs_gen_input(&m, 0, i);
			}
			/* condition number sum|x| / |sum x| >= 2^min(p, 12) */
			cancel += a > 0 && fabsl(s) <= ldexpl(a, -(p < 12 ? p : 12));
			near += a >= maxf(d) / 4;
			wide += hi >= ldexpl(lo, p + 2);
		}
		assert_true(cancel >= 100 && near >= 100 && wide >= 100);
		assert_true(ties >= 100);
		assert_true(negs >= PAT_N * PAT_P / 4 && negs <= PAT_N * PAT_P * 3 / 4);
	}
}

/* ---- 4. special mode ------------------------------------------------------- */

enum kind {
	K_NAN1, K_NANALL, K_NANSOME, K_INF1, K_INFPAIR, K_NEGZERO, K_MIXZERO,
	K_SUBN, K_MAX1, K_MAXALL, K_MAXPAIR, K_ZEROINF, K_ZEROMAX, K_NKINDS
};

struct counts {
	int nan, pinf, ninf, pmax, nmax, pzero, nzero, sub, minsub, small;
};

static void count_value(cs_dtype_t d, uint64_t b, struct counts *n)
{
	cs_fmt_t f = cs_fmt_of(d);
	uint64_t mag = b & ~cs_fmt_sign(f);
	int neg = (b & cs_fmt_sign(f)) != 0;
	double x = cs_to_f64(d, b);

	if (isnan(x))
		n->nan++;
	else if (isinf(x))
		*(neg ? &n->ninf : &n->pinf) += 1;
	else if (mag == cs_fmt_maxbits(f))
		*(neg ? &n->nmax : &n->pmax) += 1;
	else if (x == 0)
		*(neg ? &n->nzero : &n->pzero) += 1;
	else if (mag < ((uint64_t)1 << f.mbits)) {
		n->sub++;
		n->minsub += b == 1;
	} else {
		n->small += fabs(x) >= 0.25 && fabs(x) < 8;
	}
}

/* Bit set of the kinds the P values at one index fit; 0: none. */
static unsigned classify(cs_dtype_t d, const uint64_t *x, int P)
{
	struct counts n;
	unsigned k = 0;
	int r, zeros;

	memset(&n, 0, sizeof n);
	for (r = 0; r < P; r++)
		count_value(d, x[r], &n);
	zeros = n.pzero + n.nzero;
	k |= (n.nan == 1 && n.small == P - 1) << K_NAN1;
	k |= (n.nan == P) << K_NANALL;
	k |= (n.nan >= 2 && n.nan < P && n.nan + n.small == P) << K_NANSOME;
	k |= (n.pinf == 1 && n.small == P - 1) << K_INF1;
	k |= (n.pinf == 1 && n.ninf == 1 && n.small == P - 2) << K_INFPAIR;
	k |= (n.nzero == P) << K_NEGZERO;
	k |= (n.pzero >= 1 && n.nzero >= 1 && zeros == P) << K_MIXZERO;
	k |= (n.sub == P && n.minsub >= 1) << K_SUBN;
	k |= (n.pmax == 1 && n.small == P - 1) << K_MAX1;
	k |= (n.pmax == P) << K_MAXALL;
	k |= (n.pmax == 1 && n.nmax == 1 && n.small == P - 2) << K_MAXPAIR;
	k |= (zeros == 1 && n.pinf + n.ninf == 1 && n.small == P - 2) << K_ZEROINF;
	k |= (zeros == 1 && n.pmax + n.nmax == 1 && n.small == P - 2) << K_ZEROMAX;
	return k;
}

/* Kinds every special float reduction must show (e4m3: Inf -> max). */
static unsigned expected_kinds(cs_dtype_t d, cs_op_t op)
{
	unsigned k = 1u << K_NAN1 | 1u << K_NANALL | 1u << K_NEGZERO |
		     1u << K_MIXZERO | 1u << K_SUBN | 1u << K_MAX1 |
		     1u << K_MAXALL | 1u << K_MAXPAIR;
	int fn = cs_fmt_of(d).fn;

	if (!fn)
		k |= 1u << K_INF1 | 1u << K_INFPAIR;
	if (op == CS_OP_PROD)
		k |= 1u << (fn ? K_ZEROMAX : K_ZEROINF);
	if (op == CS_OP_MAX || op == CS_OP_MIN)
		k |= 1u << K_NANSOME;
	return k;
}

static void test_special_reductions(void **state)
{
	uint64_t x[4];
	int d, op, r;
	size_t i;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++)
		for (op = 0; op < CS_NUM_OPS; op++) {
			cs_case_t c = mkcase(d, op, CS_MODE_SPECIAL, 4, 19);
			unsigned seen = 0, want = expected_kinds(d, op), k;
			for (i = 0; i < 2000; i++) {
				for (r = 0; r < 4; r++)
					x[r] = cs_gen_input(&c, r, i);
				k = classify(d, x, 4);
				if (!k)
					fail_msg("%s %s index %zu: no special pattern",
						 cs_dtype_name(d), cs_op_name(op), i);
				seen |= k;
			}
			if ((seen & want) != want)
				fail_msg("%s %s: patterns %#x missing", cs_dtype_name(d),
					 cs_op_name(op), want & ~seen);
		}
}

/* Data movement: non-canonical quiet NaN, sNaN, +-Inf, +-0, subnormal, max. */
static unsigned moved_kind(cs_dtype_t d, uint64_t b)
{
	cs_fmt_t f = cs_fmt_of(d);
	uint64_t mag = b & ~cs_fmt_sign(f), qbit = (uint64_t)1 << (f.mbits - 1);
	int neg = (b & cs_fmt_sign(f)) != 0;

	if (cs_fmt_isnan(f, b)) {
		if (f.fn)
			return 1u << neg;
		if (!(mag & qbit))
			return 1u << 2;                          /* signalling */
		return (mag != cs_fmt_nanbits(f)) << 3;          /* payload */
	}
	if (cs_fmt_isinf(f, b))
		return 1u << (4 + neg);
	if (mag == 0)
		return 1u << (6 + neg);
	if (mag < ((uint64_t)1 << f.mbits))
		return 1u << 8;
	return (mag == cs_fmt_maxbits(f)) << 9;
}

static void test_special_moved(void **state)
{
	int d, r;
	size_t i;

	(void)state;
	for (d = FIRST_FLOAT; d < CS_NUM_DTYPES; d++) {
		cs_case_t c = mkcase(d, CS_OP_NONE, CS_MODE_SPECIAL, 4, 23);
		unsigned seen = 0;
		unsigned want = cs_fmt_of(d).fn ? 0x3c3u : 0x3fcu;
		for (r = 0; r < 4; r++)
			for (i = 0; i < 1000; i++)
				seen |= moved_kind(d, cs_gen_input(&c, r, i));
		if ((seen & want) != want)
			fail_msg("%s: kinds %#x missing", cs_dtype_name(d), want & ~seen);
	}
}

static void test_special_ints_and_scalars(void **state)
{
	int d, op, r;
	size_t i;

	(void)state;
	for (d = 0; d < FIRST_FLOAT; d++)
		for (op = 0; op <= CS_OP_NONE; op++) {
			cs_case_t c = mkcase(d, op, CS_MODE_SPECIAL, 4, 29);
			uint64_t mask = cs_bits_mask(d), top = (mask >> 1) + 1;
			const uint64_t want[5] = {top, top - 1, 0, mask, 1};
			unsigned seen = 0;
			int k;
			for (i = 0; i < 400; i++)
				for (r = 0; r < 4; r++) {
					uint64_t b = cs_gen_input(&c, r, i);
					for (k = 0; k < 5 && want[k] != b; k++)
						;
					assert_true(k < 5);
					seen |= 1u << k;
				}
			assert_int_equal(seen, 0x1f);
		}
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		cs_case_t c = mkcase(d, CS_OP_PREMULSUM, CS_MODE_SPECIAL, 64, 31);
		unsigned seen = 0;
		for (r = 0; r < 64; r++) {
			uint64_t b = cs_gen_scalar(&c, r);
			double a = cs_is_float(d) ? cs_to_f64(d, b)
				   : b == cs_bits_mask(d) ? -1.0 /* wrapped -1 */
				   : (double)cs_int_value(d, b);
			assert_true(a == 0 || a == 2 || a == 1 || a == -1);
			seen |= 1u << (int)(a + 1);
		}
		assert_int_equal(seen, 0xf);
	}
}

/* ---- 5. random integers wrap ----------------------------------------------- */

static void test_random_ints_wrap(void **state)
{
	int d, r;
	size_t i;

	(void)state;
	for (d = 0; d < FIRST_FLOAT; d++) {
		cs_case_t c = mkcase(d, CS_OP_SUM, CS_MODE_RANDOM, 8, 37);
		int bits = 8 * cs_size_of(d), sgn = cs_is_signed_int(d), wrapped = 0;
		__int128 lo = sgn ? -((__int128)1 << (bits - 1)) : 0;
		__int128 hi = sgn ? ((__int128)1 << (bits - 1)) - 1
				  : ((__int128)1 << bits) - 1;
		for (i = 0; i < 100; i++) {
			__int128 s = 0;
			for (r = 0; r < 8; r++) {
				uint64_t b = cs_gen_input(&c, r, i);
				s += sgn ? (__int128)cs_int_value(d, b) : (__int128)b;
			}
			wrapped += s < lo || s > hi;
		}
		assert_true(wrapped >= 10);
	}
}

/* cs_gen_column equals rank-by-rank calls, also when cases alternate (the
 * per-thread parameter cache must follow the case it is given). */
static void test_column_matches(void **state)
{
	cs_case_t a = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT16, CS_OP_PREMULSUM,
		       CS_MODE_RANDOM, 6, 0, 100, 3, NULL, 0};
	cs_case_t b = a;
	uint64_t x[6], al[6];
	size_t i;
	int q;

	(void)state;
	b.mode = CS_MODE_EXACT;
	b.nranks = 5;
	for (i = 0; i < 200; i++) {
		const cs_case_t *c = (i & 1) ? &a : &b;
		cs_gen_column(c, i, x, al);
		for (q = 0; q < c->nranks; q++) {
			assert_int_equal(x[q], cs_gen_input(c, q, i));
			assert_int_equal(al[q], cs_gen_scalar(c, q));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_column_matches),
		cmocka_unit_test(test_streams_differ),
		cmocka_unit_test(test_exact_all_orders),
		cmocka_unit_test(test_exact_large_p),
		cmocka_unit_test(test_exact_moved),
		cmocka_unit_test(test_finite_everywhere),
		cmocka_unit_test(test_random_sums_bounded),
		cmocka_unit_test(test_random_prod_in_range),
		cmocka_unit_test(test_random_patterns),
		cmocka_unit_test(test_special_reductions),
		cmocka_unit_test(test_special_moved),
		cmocka_unit_test(test_special_ints_and_scalars),
		cmocka_unit_test(test_random_ints_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
