/*
 * test_golden.c - the golden value and its error bound (ref/golden.c) and
 * the comparator (ref/compare.c).
 *
 * Soundness: many implementations of the same reduction (random orders and
 * associations with rounding to the element type after every step, the
 * premultiplied and the sum-then-divide AVG, a wider accumulator rounded
 * once) must all land within B. Tightness: witnesses whose error is known
 * by hand must reach a stated fraction of B, so a bound that is too loose by
 * more than that factor fails too. Classification: a value about 2B away is
 * WRONG.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/golden.h"
#include "csref/compare.h"
#include "csref/arith.h"
#include "csref/reduce.h"

#define MAXP 128

static const cs_dtype_t float_types[] = {
	CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16, CS_DTYPE_FLOAT32,
	CS_DTYPE_FLOAT64, CS_DTYPE_FLOAT8_E4M3, CS_DTYPE_FLOAT8_E5M2,
};
#define NFLOAT (sizeof float_types / sizeof float_types[0])

/* A small deterministic generator for this test (independent of gen.c). */
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double urand(void) /* [0, 1) */
{
	return (double)(rng() >> 11) * 0x1p-53;
}

/* A random finite value of dtype d with magnitude about 2^e, sign random. */
static uint64_t rand_value(cs_dtype_t d, int e)
{
	double v = ldexp(1.0 + urand(), e);

	return cs_from_f64(d, (rng() & 1) ? -v : v, 0);
}

/*
 * Inputs for one trial: values whose sum of magnitudes stays far below the
 * overflow limit. Half the trials cancel heavily (alternating signs of
 * nearly equal magnitude), half spread over many binades.
 */
static void make_inputs(cs_dtype_t d, cs_op_t op, int P, uint64_t *x,
			uint64_t *alpha)
{
	int emax = cs_dtype_emax(d), emin = cs_dtype_emin(d);
	int span = op == CS_OP_PROD ? (emax < 20 ? 1 : 4) : (emax - emin) / 3;
	int base = op == CS_OP_PROD ? 0 : (int)(urand() * span) - span / 2;
	int cancel = rng() & 1;
	int i;

	if (base > emax - 8)
		base = emax - 8;
	for (i = 0; i < P; i++) {
		int e = cancel ? base : base - (int)(urand() * 6);
		x[i] = rand_value(d, op == CS_OP_PROD ? (int)(urand() * span) - span / 2 : e);
		if (cancel && op != CS_OP_PROD)
			x[i] = cs_from_f64(d, (i & 1 ? -1 : 1) *
					   fabs(cs_to_f64(d, x[i])), 0);
		alpha[i] = rand_value(d, (int)(urand() * 4) - 2);
	}
}

/* Evaluate the prepared values v[0..n) by a random association: repeatedly
 * combine two random live entries with one rounded step. */
static uint64_t random_tree(cs_dtype_t d, cs_op_t step, uint64_t *v, int n)
{
	while (n > 1) {
		int i = (int)(rng() % (uint64_t)n), j = (int)(rng() % (uint64_t)(n - 1));
		if (j >= i)
			j++;
		v[i] = cs_step(d, step, v[i], v[j]);
		v[j] = v[--n];
	}
	return v[0];
}

/* One implementation of op over x: strategy 0 = random tree of rounded
 * steps (with NCCL-style premultiplication), 1 = AVG as sum then divide,
 * 2 = wide (double) accumulation rounded once. */
static uint64_t implement(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
			  const uint64_t *alpha, int strategy)
{
	uint64_t v[MAXP];
	double acc = 0;
	int i;

	if (strategy == 2) {
		for (i = 0; i < P; i++) {
			double a = op == CS_OP_PREMULSUM ? cs_to_f64(d, alpha[i]) : 1;
			double t = cs_to_f64(d, x[i]) * a;
			acc = op == CS_OP_PROD ? (i ? acc * t : t) : acc + t;
		}
		if (op == CS_OP_AVG)
			acc /= P;
		return cs_from_f64(d, acc, 0);
	}
	for (i = 0; i < P; i++) {
		v[i] = x[i];
		if (op == CS_OP_PREMULSUM || (op == CS_OP_AVG && strategy == 0))
			cs_op_prepare(d, op, P, alpha[i], &v[i], &x[i], 1);
	}
	if (op == CS_OP_AVG && strategy == 1) {
		uint64_t s = random_tree(d, CS_OP_SUM, v, P);
		return cs_from_f64(d, cs_to_f64(d, s) / P, 0);
	}
	return random_tree(d, cs_step_op(op), v, P);
}

static void check_sound(cs_dtype_t d, cs_op_t op, int P, int trials)
{
	uint64_t x[MAXP], alpha[MAXP];
	cs_golden_t g;
	int t, s;

	for (t = 0; t < trials; t++) {
		make_inputs(d, op, P, x, alpha);
		cs_golden_reduce(d, op, P, x, alpha, 0, &g);
		for (s = 0; s < 3; s++) {
			uint64_t r;
			cs_cmp_elem_t e;
			if (s == 1 && op != CS_OP_AVG)
				continue;
			r = implement(d, op, P, x, alpha, s);
			if (cs_compare_elem(d, &g, r, &e) == CS_CMP_WRONG)
				fail_msg("%s %s P=%d strategy %d: r=%.17g S=%.17g "
					 "err=%.3g > B=%.3g",
					 cs_dtype_name(d), cs_op_name(op), P, s,
					 cs_to_f64(d, r), g.s_hi, e.err, g.bound);
		}
	}
}

static void test_bound_sound(void **state)
{
	static const int Ps[] = {1, 2, 3, 5, 8, 16, 64, 100};
	static const cs_op_t ops[] = {CS_OP_SUM, CS_OP_PROD, CS_OP_AVG,
				      CS_OP_PREMULSUM};
	size_t di, oi, pi;

	(void)state;
	for (di = 0; di < NFLOAT; di++)
		for (oi = 0; oi < 4; oi++)
			for (pi = 0; pi < sizeof Ps / sizeof Ps[0]; pi++)
				check_sound(float_types[di], ops[oi], Ps[pi],
					    Ps[pi] >= 16 ? 300 : 1500);
}

/* A value near S + 2B (rounded to the dtype) must be WRONG when it is in
 * fact further than B from S. */
static void test_perturbed_is_wrong(void **state)
{
	uint64_t x[8], alpha[8];
	size_t di;
	int t, tested = 0;

	(void)state;
	for (di = 0; di < NFLOAT; di++) {
		for (t = 0; t < 200; t++) {
			cs_dtype_t d = float_types[di];
			cs_golden_t g;
			uint64_t r;
			double rv;

			make_inputs(d, CS_OP_SUM, 8, x, alpha);
			cs_golden_reduce(d, CS_OP_SUM, 8, x, alpha, 0, &g);
			r = cs_from_f64(d, g.s_hi + 2 * g.bound, 0);
			rv = cs_to_f64(d, r);
			if (!isfinite(rv) || fabs(rv - g.s_hi) <= g.bound)
				continue; /* rounding brought it back */
			assert_int_equal(cs_compare_elem(d, &g, r, NULL), CS_CMP_WRONG);
			tested++;
		}
	}
	assert_true(tested > 100);
}

/*
 * Tightness witnesses, derived by hand. float16 (u = 2^-11):
 *  sum  1 + 2^-11: the exact sum is a tie and rounds to 1; error u.
 *       B = theta(1,u)*A + u*|S| = u(1+u) + u(1+u) ~= 2u: err/B ~ 1/2.
 *  prod (1+2^-10)(1+2^-10) = 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9, error
 *       2^-20; B = u*|S| ~= 2^-11: err/B ~ 1/2^9 -- not a witness of
 *       tightness for prod; we use (1+2^-10)(1-2^-11) = 1 + 2^-11 - 2^-21,
 *       which rounds to 1 (below the tie); error 2^-11 - 2^-21 ~ u, B ~ u:
 *       err/B ~ 1.
 *  avg  P = 3 of x = 1: c = RNE(1/3) = 0x3555 = 1365/4096; c + c = 2730/4096
 *       exactly; + c = 4095/4096 is a tie between 4094/4096 and 1 and goes
 *       to the even 1: error 0 although c is inexact (checked as a value).
 * A bound more than 2x (sum) or 1.5x (prod) looser than these witnesses
 * allow fails here.
 */
static void test_bound_tight(void **state)
{
	cs_dtype_t h = CS_DTYPE_FLOAT16;
	uint64_t one = cs_from_f64(h, 1.0, 0), x[3], alpha[3] = {0, 0, 0};
	cs_golden_t g;
	cs_cmp_elem_t e;
	uint64_t r;

	(void)state;
	x[0] = one;
	x[1] = cs_from_f64(h, 0x1p-11, 0);
	cs_golden_reduce(h, CS_OP_SUM, 2, x, alpha, 0, &g);
	r = cs_step(h, CS_OP_SUM, x[0], x[1]);
	assert_int_equal(r, one);
	assert_int_not_equal(cs_compare_elem(h, &g, r, &e), CS_CMP_WRONG);
	assert_true(e.err == 0x1p-11);
	assert_true(e.err >= g.bound / 2.0 * (1 - 1e-3));

	x[0] = cs_from_f64(h, 1 + 0x1p-10, 0);
	x[1] = cs_from_f64(h, 1 - 0x1p-11, 0);
	cs_golden_reduce(h, CS_OP_PROD, 2, x, alpha, 0, &g);
	r = cs_step(h, CS_OP_PROD, x[0], x[1]);
	assert_int_equal(r, one);
	assert_int_not_equal(cs_compare_elem(h, &g, r, &e), CS_CMP_WRONG);
	assert_true(e.err >= g.bound / 1.5);

	x[0] = x[1] = x[2] = one;
	cs_golden_reduce(h, CS_OP_AVG, 3, x, alpha, 0, &g);
	assert_int_equal(cs_avg_scalar(h, 3), 0x3555);
	r = implement(h, CS_OP_AVG, 3, x, alpha, 0);
	assert_true(cs_to_f64(h, r) == 1.0);
	assert_int_equal(cs_compare_elem(h, &g, r, &e), CS_CMP_EXACT);
}

/* Hand-computed golden values and flags. */
static void test_golden_values(void **state)
{
	cs_dtype_t f = CS_DTYPE_FLOAT32, e4 = CS_DTYPE_FLOAT8_E4M3;
	uint64_t x[4], a[4] = {0, 0, 0, 0};
	cs_golden_t g;

	(void)state;
	/* int8 sum wraps: 100 + 100 + 100 = 300 - 256 = 44 */
	x[0] = x[1] = x[2] = 100;
	cs_golden_reduce(CS_DTYPE_INT8, CS_OP_SUM, 3, x, a, 0, &g);
	assert_int_equal(g.bits, 44);
	assert_true(g.flags & CS_G_EXACT);
	/* int32 avg: (-7 + 0) / 2 = -3 (truncation) */
	x[0] = (uint32_t)-7;
	x[1] = 0;
	cs_golden_reduce(CS_DTYPE_INT32, CS_OP_AVG, 2, x, a, 0, &g);
	assert_int_equal(g.bits, (uint32_t)-3);
	/* float32 sum: 1 + 2^-30 + (-1): S = 2^-30 exactly */
	x[0] = cs_from_f64(f, 1, 0);
	x[1] = cs_from_f64(f, 0x1p-30, 0);
	x[2] = cs_from_f64(f, -1, 0);
	cs_golden_reduce(f, CS_OP_SUM, 3, x, a, 0, &g);
	assert_true(g.s_hi == 0x1p-30 && g.s_lo == 0);
	assert_int_equal(g.bits, cs_from_f64(f, 0x1p-30, 0));
	/* ... and an implementation returning 0 (1 + 2^-30 rounds to 1) is
	 * within the bound: theta(2,u)*A >= 2^-24 * 2 > 2^-30 */
	assert_int_equal(cs_compare_elem(f, &g, 0, NULL), CS_CMP_WITHIN);
	/* +Inf and -Inf give NaN; NaN payload does not matter */
	x[0] = cs_from_f64(f, INFINITY, 0);
	x[1] = cs_from_f64(f, -INFINITY, 0);
	cs_golden_reduce(f, CS_OP_SUM, 2, x, a, 0, &g);
	assert_true(g.flags & CS_G_NAN);
	assert_int_equal(cs_compare_elem(f, &g, 0x7fc00001u, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(f, &g, x[0], NULL), CS_CMP_WRONG);
	/* prod: 0 * Inf = NaN */
	x[0] = 0;
	x[1] = cs_from_f64(f, INFINITY, 0);
	cs_golden_reduce(f, CS_OP_PROD, 2, x, a, 0, &g);
	assert_true(g.flags & CS_G_NAN);
	/* max with a NaN: ignore gives 2, propagate gives NaN; both conform
	 * and are told apart; 3 conforms to neither */
	x[0] = cs_from_f64(f, 2, 0);
	x[1] = cs_from_f64(f, NAN, 0);
	cs_golden_reduce(f, CS_OP_MAX, 2, x, a, 0, &g);
	assert_true(g.flags & CS_G_NANRULE);
	{
		cs_cmp_elem_t e;
		assert_int_equal(cs_compare_elem(f, &g, x[0], &e), CS_CMP_EXACT);
		assert_int_equal(e.obs_bits, CS_OBS_BIT(CS_OBS_NAN_IGNORE));
		assert_int_equal(cs_compare_elem(f, &g, x[1], &e), CS_CMP_EXACT);
		assert_int_equal(e.obs_bits, CS_OBS_BIT(CS_OBS_NAN_PROPAGATE));
		assert_int_equal(cs_compare_elem(f, &g, cs_from_f64(f, 3, 0), &e),
				 CS_CMP_WRONG);
	}
	/* max(+0, -0): either zero */
	x[0] = 0;
	x[1] = 0x80000000u;
	cs_golden_reduce(f, CS_OP_MAX, 2, x, a, 0, &g);
	assert_int_equal(cs_compare_elem(f, &g, 0, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(f, &g, 0x80000000u, NULL), CS_CMP_EXACT);
	/* e4m3: 448 + 448 overflows; NaN and saturation both conform (OVF)
	 * and are reported as such; 64 is wrong */
	x[0] = x[1] = cs_from_f64(e4, 448, 0);
	cs_golden_reduce(e4, CS_OP_SUM, 2, x, a, 0, &g);
	assert_true(g.flags & CS_G_OVF);
	{
		cs_cmp_elem_t e;
		assert_int_not_equal(cs_compare_elem(e4, &g, 0x7f, &e), CS_CMP_WRONG);
		assert_int_equal(e.obs_bits, CS_OBS_BIT(CS_OBS_OVF_NONFINITE));
		assert_int_equal(cs_compare_elem(e4, &g, 0x7e, &e), CS_CMP_WITHIN);
		assert_int_equal(e.obs_bits, CS_OBS_BIT(CS_OBS_OVF_SATURATE));
		assert_int_equal(cs_compare_elem(e4, &g, cs_from_f64(e4, 64, 0), &e),
				 CS_CMP_WRONG);
	}
}

/* In exact mode only the golden bits conform, even within the bound. */
static void test_exact_flag(void **state)
{
	cs_dtype_t h = CS_DTYPE_FLOAT16;
	uint64_t x[3], a[3] = {0, 0, 0};
	cs_golden_t g;

	(void)state;
	x[0] = cs_from_f64(h, 3, 0);
	x[1] = cs_from_f64(h, 5, 0);
	cs_golden_reduce(h, CS_OP_SUM, 2, x, a, 1, &g);
	assert_true(g.flags & CS_G_EXACT);
	assert_int_equal(g.bits, cs_from_f64(h, 8, 0));
	assert_int_equal(cs_compare_elem(h, &g, cs_from_f64(h, 8, 0), NULL),
			 CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(h, &g, cs_from_f64(h, 8 + 0x1p-7, 0), NULL),
			 CS_CMP_WRONG);
	/* AVG over 3 ranks can never be exact: checked with the bound */
	x[2] = x[0];
	cs_golden_reduce(h, CS_OP_AVG, 3, x, a, 1, &g);
	assert_false(g.flags & CS_G_EXACT);
}

/* Infinities meeting finite partials that may overflow or vanish. */
static void test_order_dependent_specials(void **state)
{
	cs_dtype_t h = CS_DTYPE_FLOAT16;
	uint64_t pinf = 0x7c00, ninf = 0xfc00, nmax = 0xfbff, nan = 0x7e00;
	uint64_t x[3], a[3] = {0, 0, 0};
	cs_golden_t g;

	(void)state;
	/* +Inf - max - max: adding the two -max first gives -Inf, then NaN */
	x[0] = pinf;
	x[1] = x[2] = nmax;
	cs_golden_reduce(h, CS_OP_SUM, 3, x, a, 0, &g);
	assert_int_equal(cs_compare_elem(h, &g, pinf, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(h, &g, nan, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(h, &g, ninf, NULL), CS_CMP_WRONG);
	/* +Inf + 1 + 2: no order gives NaN */
	x[1] = cs_from_f64(h, 1, 0);
	x[2] = cs_from_f64(h, 2, 0);
	cs_golden_reduce(h, CS_OP_SUM, 3, x, a, 0, &g);
	assert_int_equal(cs_compare_elem(h, &g, nan, NULL), CS_CMP_WRONG);
	/* Inf * 2^-14 * 2^-14: the finite pair underflows to 0 first, then
	 * 0 * Inf is NaN */
	x[1] = x[2] = cs_from_f64(h, 0x1p-14, 0);
	cs_golden_reduce(h, CS_OP_PROD, 3, x, a, 0, &g);
	assert_int_equal(cs_compare_elem(h, &g, pinf, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(h, &g, nan, NULL), CS_CMP_EXACT);
	/* float64 2^1000 * 2^1000 * 2^-1000: S = 2^1000 is finite, but one
	 * order overflows first; the golden must stay finite and exact */
	{
		cs_dtype_t f = CS_DTYPE_FLOAT64;
		uint64_t y[3] = {cs_from_f64(f, 0x1p1000, 0), cs_from_f64(f, 0x1p1000, 0),
				 cs_from_f64(f, 0x1p-1000, 0)};
		cs_golden_reduce(f, CS_OP_PROD, 3, y, a, 0, &g);
		assert_true(g.s_hi == 0x1p1000);
		assert_true(g.flags & CS_G_OVF);
		assert_int_equal(cs_compare_elem(f, &g, y[0], NULL), CS_CMP_EXACT);
		assert_int_not_equal(cs_compare_elem(f, &g, cs_from_f64(f, INFINITY, 0), NULL),
				     CS_CMP_WRONG);
		assert_int_equal(cs_compare_elem(f, &g, cs_from_f64(f, 0x1p999, 0), NULL),
				 CS_CMP_WRONG);
	}
	/* float64 avg of six DBL_MAX: the sum leaves the double range, the
	 * average does not */
	{
		cs_dtype_t f = CS_DTYPE_FLOAT64;
		uint64_t y[6], z[6] = {0};
		int q;
		for (q = 0; q < 6; q++)
			y[q] = cs_from_f64(f, 0x1.fffffffffffffp1023, 0);
		cs_golden_reduce(f, CS_OP_AVG, 6, y, z, 0, &g);
		assert_true(g.s_hi == 0x1.fffffffffffffp1023);
		assert_int_equal(cs_compare_elem(f, &g, y[0], NULL), CS_CMP_EXACT);
	}
	/* Inf * 0.5 * 0.5: no order vanishes */
	x[1] = x[2] = cs_from_f64(h, 0.5, 0);
	cs_golden_reduce(h, CS_OP_PROD, 3, x, a, 0, &g);
	assert_int_equal(cs_compare_elem(h, &g, nan, NULL), CS_CMP_WRONG);
}

/* Classify got against the golden of op over x (P ranks, scalars a). */
static cs_cmp_class_t judge(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
			    const uint64_t *a, int exact, uint64_t got,
			    unsigned *obs)
{
	cs_golden_t g;
	cs_cmp_elem_t e;
	cs_cmp_class_t c;

	cs_golden_reduce(d, op, P, x, a, exact, &g);
	c = cs_compare_elem(d, &g, got, &e);
	if (obs)
		*obs = e.obs_bits;
	return c;
}

#define SAT CS_OBS_BIT(CS_OBS_OVF_SATURATE)
#define NONFIN CS_OBS_BIT(CS_OBS_OVF_NONFINITE)

/*
 * What NCCL returns where a float8 step saturates (issue 7), each worked by
 * hand from NCCL's steps (in half, narrowed with __NV_SATFINITE), must
 * conform and reveal saturation; neighbours no order gives must not.
 */
static void test_saturation_examples(void **state)
{
	cs_dtype_t e4 = CS_DTYPE_FLOAT8_E4M3, e5 = CS_DTYPE_FLOAT8_E5M2;
	uint64_t x[3], a[3] = {0, 0, 0};
	unsigned obs;

	(void)state;
	/* e5m2 [Inf, 1]: Inf + 1 = Inf in half, narrowed to 57344 (0x7b);
	 * max(Inf, 1) = Inf, narrowed the same */
	x[0] = 0x7c;
	x[1] = 0x3c;
	assert_int_equal(judge(e5, CS_OP_SUM, 2, x, a, 0, 0x7b, &obs), CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e5, CS_OP_MAX, 2, x, a, 0, 0x7b, &obs), CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e5, CS_OP_SUM, 2, x, a, 0, 0x7c, NULL), CS_CMP_EXACT);
	assert_int_equal(judge(e5, CS_OP_SUM, 2, x, a, 0, 0xfb, NULL), CS_CMP_WRONG);
	assert_int_equal(judge(e5, CS_OP_SUM, 2, x, a, 0, 0x7a, NULL), CS_CMP_WRONG);
	assert_int_equal(judge(e5, CS_OP_MAX, 2, x, a, 0, 0x3c, NULL), CS_CMP_WRONG);
	/* one rank performs no step: Inf stays Inf */
	assert_int_equal(judge(e5, CS_OP_SUM, 1, x, a, 0, 0x7b, NULL), CS_CMP_WRONG);
	/* e4m3 [-448, -96, 18], S = -526: (-448 - 96) saturates to -448,
	 * + 18 = -430 rounds to -416 (0xfd); other orders give -448 */
	x[0] = 0xfe;
	x[1] = 0xec;
	x[2] = 0x59;
	assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0xfd, &obs), CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0xfe, NULL), CS_CMP_WITHIN);
	assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0x00, NULL), CS_CMP_WRONG);
	assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0x7e, NULL), CS_CMP_WRONG);
	/* e4m3 prod [448, 4.5, 2^-8], S = 7.875: 448 * 4.5 saturates to 448,
	 * * 2^-8 = 1.75 (0x3e); the sign cannot flip */
	x[0] = 0x7e;
	x[1] = 0x49;
	x[2] = 0x02;
	assert_int_equal(judge(e4, CS_OP_PROD, 3, x, a, 0, 0x3e, &obs), CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e4, CS_OP_PROD, 3, x, a, 0, 0xbe, NULL), CS_CMP_WRONG);
	/* e4m3 premulsum x = [448, 448], alpha = [-1, 2]: -448 + sat(896) = 0 */
	x[0] = x[1] = 0x7e;
	a[0] = 0xb8;
	a[1] = 0x40;
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 2, x, a, 0, 0x00, &obs),
			 CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 2, x, a, 0, 0xfe, NULL),
			 CS_CMP_WRONG);
	/* one rank, premulsum 448 * 2: saturates to 448 (or NaN without) */
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 1, x + 1, a + 1, 0, 0x7e, &obs),
			 CS_CMP_WITHIN);
	assert_int_equal(obs, SAT);
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 1, x + 1, a + 1, 0, 0x7f, &obs),
			 CS_CMP_EXACT);
	assert_int_equal(obs, NONFIN);
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 1, x + 1, a + 1, 0, 0xfe, NULL),
			 CS_CMP_WRONG);
	assert_int_equal(judge(e4, CS_OP_PREMULSUM, 1, x + 1, a + 1, 0, 0x76, NULL),
			 CS_CMP_WRONG);
	/* saturation is a float8 behaviour: float16 65504 + 65504 -> 65504 is
	 * wrong (S = 131008, B = 2u S = 128) */
	x[0] = x[1] = 0x7bff;
	assert_int_equal(judge(CS_DTYPE_FLOAT16, CS_OP_SUM, 2, x, a, 0, 0x7bff, NULL),
			 CS_CMP_WRONG);
}

/*
 * Exact-mode avg at P = 2^k: exact while c = RN(1/P) = 1/P, that is
 * 2^-k at least the least subnormal; beyond (e4m3 from P = 1024, where
 * 2^-10 ties to 0) the premultiplied path gives 0 and is checked with
 * the bound, which admits it.
 */
static void test_avg_scalar_underflow(void **state)
{
	cs_dtype_t e4 = CS_DTYPE_FLOAT8_E4M3;
	uint64_t x[1024], a[1024] = {0};
	cs_golden_t g;
	int q;

	(void)state;
	for (q = 0; q < 1024; q++) /* 64 at the first rank, +0 elsewhere */
		x[q] = q ? 0 : 0x68;
	cs_golden_reduce(e4, CS_OP_AVG, 512, x, a, 1, &g);
	assert_true(g.flags & CS_G_EXACT);
	assert_true(g.s_hi == 0.125);
	assert_int_equal(cs_compare_elem(e4, &g, 0x20, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(e4, &g, 0x00, NULL), CS_CMP_WRONG);
	assert_int_equal(cs_avg_scalar(e4, 1024), 0);
	cs_golden_reduce(e4, CS_OP_AVG, 1024, x, a, 1, &g);
	assert_false(g.flags & CS_G_EXACT);
	assert_int_equal(cs_compare_elem(e4, &g, 0x00, NULL), CS_CMP_WITHIN);
	assert_int_equal(cs_compare_elem(e4, &g, 0x18, NULL), CS_CMP_EXACT);
}

/*
 * NCCL rounds 1/P to float before the dtype (spec 4.5): a third rounding.
 * Count the P <= 2^24 where that scalar differs from cs_avg_scalar's
 * RN(RN53(1/P)), and check each differs by one unit in the last place at
 * most, within u' = u + 2^-23 of 1/P.
 */
static void test_avg_scalar_through_float(void **state)
{
	static const struct {
		cs_dtype_t d;
		long differ, first;
	} t[] = {
		{CS_DTYPE_FLOAT16, 6, 8283},
		{CS_DTYPE_BFLOAT16, 101, 555767},
		{CS_DTYPE_FLOAT8_E4M3, 0, 0},
		{CS_DTYPE_FLOAT8_E5M2, 0, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		cs_dtype_t d = t[i].d;
		double u = cs_unit_roundoff(d), eta = cs_underflow_unit(d);
		long P, n = 0, first = 0;

		for (P = 1; P <= 1L << 24; P++) {
			uint64_t a = cs_avg_scalar(d, (int)P);
			double f = (float)(1.0 / (double)P);
			uint64_t b = cs_from_f64(d, f, 0);
			double cb = cs_to_f64(d, b);
			if (a == b)
				continue;
			if (!n++)
				first = P;
			assert_true(b == a + 1 || b + 1 == a);
			assert_true(fabs(cb - 1.0 / (double)P) <=
				    (u + 0x1p-23) / (double)P + eta);
		}
		assert_int_equal(n, t[i].differ);
		assert_int_equal(first, t[i].first);
	}
}

/*
 * An infinite result from finite inputs needs a partial that overflows
 * toward that infinity in some order; NaN needs both (or E4M3's NaN
 * overflow). Saturation (float8 only) has the same signs.
 */
static void test_overflow_sign(void **state)
{
	static const cs_dtype_t ds[] = {CS_DTYPE_FLOAT32, CS_DTYPE_FLOAT16,
					CS_DTYPE_BFLOAT16, CS_DTYPE_FLOAT64,
					CS_DTYPE_FLOAT8_E5M2};
	uint64_t x[4], a[4] = {0, 0, 0, 0};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		cs_dtype_t d = ds[i];
		cs_fmt_t f = cs_fmt_of(d);
		uint64_t mx = cs_fmt_maxbits(f), sg = cs_fmt_sign(f);
		uint64_t pinf = cs_fmt_infbits(f), ninf = sg | pinf;
		uint64_t nan = cs_fmt_nanbits(f), one = cs_from_f64(d, 1, 0);
		unsigned obs;

		/* max + max: only +Inf */
		x[0] = x[1] = mx;
		assert_int_equal(judge(d, CS_OP_SUM, 2, x, a, 0, pinf, &obs), CS_CMP_EXACT);
		assert_int_equal(obs, NONFIN);
		assert_int_equal(judge(d, CS_OP_SUM, 2, x, a, 0, ninf, NULL), CS_CMP_WRONG);
		assert_int_equal(judge(d, CS_OP_SUM, 2, x, a, 0, nan, NULL), CS_CMP_WRONG);
		/* -max - max: only -Inf */
		x[0] = x[1] = sg | mx;
		assert_int_equal(judge(d, CS_OP_SUM, 2, x, a, 0, ninf, NULL), CS_CMP_EXACT);
		assert_int_equal(judge(d, CS_OP_SUM, 2, x, a, 0, pinf, NULL), CS_CMP_WRONG);
		/* max + max - 1: mixed signs, still only +Inf */
		x[0] = x[1] = mx;
		x[2] = sg | one;
		assert_int_not_equal(judge(d, CS_OP_SUM, 3, x, a, 0, pinf, NULL),
				     CS_CMP_WRONG);
		assert_int_equal(judge(d, CS_OP_SUM, 3, x, a, 0, ninf, NULL), CS_CMP_WRONG);
		assert_int_equal(judge(d, CS_OP_SUM, 3, x, a, 0, nan, NULL), CS_CMP_WRONG);
		/* max + max - max - max: either infinity, or NaN */
		x[2] = x[3] = sg | mx;
		assert_int_not_equal(judge(d, CS_OP_SUM, 4, x, a, 0, pinf, NULL),
				     CS_CMP_WRONG);
		assert_int_not_equal(judge(d, CS_OP_SUM, 4, x, a, 0, ninf, NULL),
				     CS_CMP_WRONG);
		assert_int_not_equal(judge(d, CS_OP_SUM, 4, x, a, 0, nan, &obs),
				     CS_CMP_WRONG);
		assert_int_equal(obs, NONFIN);
		/* prod max * -2: the sign of the product */
		x[1] = sg | cs_from_f64(d, 2, 0);
		assert_int_not_equal(judge(d, CS_OP_PROD, 2, x, a, 0, ninf, NULL),
				     CS_CMP_WRONG);
		assert_int_equal(judge(d, CS_OP_PROD, 2, x, a, 0, pinf, NULL), CS_CMP_WRONG);
		/* premulsum max * 2 + max * -1 at two ranks: only +Inf (the
		 * first term alone overflows upward) */
		x[1] = mx;
		a[0] = cs_from_f64(d, 2, 0);
		a[1] = sg | one;
		assert_int_not_equal(judge(d, CS_OP_PREMULSUM, 2, x, a, 0, pinf, NULL),
				     CS_CMP_WRONG);
		assert_int_equal(judge(d, CS_OP_PREMULSUM, 2, x, a, 0, ninf, NULL),
				 CS_CMP_WRONG);
		a[0] = a[1] = 0;
	}
	/* e4m3 saturates with the sign of the overflowing partial; its
	 * non-saturating overflow is NaN, of either sign */
	{
		cs_dtype_t e4 = CS_DTYPE_FLOAT8_E4M3;
		unsigned obs;
		x[0] = x[1] = 0x7e;
		x[2] = 0xb8; /* -1 */
		assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0x7e, &obs), CS_CMP_WITHIN);
		assert_int_equal(obs, SAT);
		assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0xfe, NULL), CS_CMP_WRONG);
		assert_int_not_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0xff, &obs),
				     CS_CMP_WRONG);
		assert_int_equal(obs, NONFIN);
		x[0] = x[1] = 0xfe;
		x[2] = 0x38;
		assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0xfe, NULL), CS_CMP_WITHIN);
		assert_int_equal(judge(e4, CS_OP_SUM, 3, x, a, 0, 0x7e, NULL), CS_CMP_WRONG);
	}
}

/* One rank: at most one rounding, so only the correctly rounded bits. */
static void test_single_rank_exact(void **state)
{
	cs_dtype_t f = CS_DTYPE_FLOAT32;
	uint64_t x = cs_from_f64(f, 1.0, 0), a = cs_from_f64(f, 1.0 / 3, 0);
	cs_golden_t g;

	(void)state;
	cs_golden_reduce(f, CS_OP_SUM, 1, &x, &a, 0, &g);
	assert_true(g.flags & CS_G_EXACT);
	assert_int_equal(cs_compare_elem(f, &g, x, NULL), CS_CMP_EXACT);
	assert_int_equal(cs_compare_elem(f, &g, x - 1, NULL), CS_CMP_WRONG);
	cs_golden_reduce(f, CS_OP_PREMULSUM, 1, &x, &a, 0, &g);
	assert_int_equal(g.bits, a);
}

static void test_ulp(void **state)
{
	(void)state;
	assert_true(cs_ulp(CS_DTYPE_FLOAT16, 1.0) == 0x1p-10);
	assert_true(cs_ulp(CS_DTYPE_FLOAT16, 1.99) == 0x1p-10);
	assert_true(cs_ulp(CS_DTYPE_FLOAT16, 2.0) == 0x1p-9);
	assert_true(cs_ulp(CS_DTYPE_FLOAT16, 0x1p-20) == 0x1p-24);
	assert_true(cs_ulp(CS_DTYPE_FLOAT8_E4M3, 448) == 32);
	assert_true(cs_ulp(CS_DTYPE_FLOAT32, -3.0) == 0x1p-22);
}

/* The comparator's summary records the first wrong elements in order. */
static void test_compare_range(void **state)
{
	cs_dtype_t d = CS_DTYPE_INT32;
	enum { N = 50000 };
	static cs_golden_t g[N];
	static int32_t got[N];
	cs_cmp_summary_t s;
	int i;

	(void)state;
	for (i = 0; i < N; i++) {
		cs_golden_moved(d, (uint32_t)i, &g[i]);
		got[i] = i;
	}
	got[123] = -1;
	got[40000] = 7;
	cs_cmp_summary_init(&s);
	cs_compare_range(d, g, got, N, 10, &s);
	assert_int_equal(s.n, N);
	assert_int_equal(s.n_wrong, 2);
	assert_int_equal(s.n_exact, N - 2);
	assert_int_equal(s.n_recorded, 2);
	assert_int_equal(s.first[0].index, 133);
	assert_int_equal(s.first[1].index, 40010);
	assert_int_equal(s.first[1].got, 7);
	assert_int_equal(s.first[1].expected, 40000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_values),
		cmocka_unit_test(test_exact_flag),
		cmocka_unit_test(test_ulp),
		cmocka_unit_test(test_order_dependent_specials),
		cmocka_unit_test(test_single_rank_exact),
		cmocka_unit_test(test_saturation_examples),
		cmocka_unit_test(test_avg_scalar_underflow),
		cmocka_unit_test(test_avg_scalar_through_float),
		cmocka_unit_test(test_overflow_sign),
		cmocka_unit_test(test_bound_tight),
		cmocka_unit_test(test_perturbed_is_wrong),
		cmocka_unit_test(test_compare_range),
		cmocka_unit_test(test_bound_sound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
