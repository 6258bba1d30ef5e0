/*
 * test_stats.c - the statistical verdicts (ref/stats.c) against emulated
 * implementations (stats_emul.c) on random-mode allreduce cases.
 *
 * Conforming implementations (ring and tree order, per hop in the dtype or
 * accumulated in float32, avg premultiplied or divided once) must pass
 * every case: no WARN, no FAIL. Broken ones must be caught at the level
 * spec/numerics.md, "Statistical verdicts" promises: every-hop truncation
 * (float32, float16, bfloat16) and float8 results of 0 or -S at P = 64 at
 * FAIL; avg's truncated division at FAIL with 4096 elements where c*P >= 1;
 * 4 bits of precision lost at FAIL where the spec's figures say so. The
 * emulation's own arithmetic is checked first, against the library's
 * conversions and the C library's rounding modes. The FAIL and WARN
 * thresholds are checked against exact binomial tails computed here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/oracle.h"
#include "csref/stats.h"
#include "stats_emul.h"

#define COUNT 1024

static const cs_dtype_t float_types[] = {
	CS_DTYPE_FLOAT32, CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16,
	CS_DTYPE_FLOAT64, CS_DTYPE_FLOAT8_E4M3, CS_DTYPE_FLOAT8_E5M2,
};
static const cs_op_t rounding_ops[] = {CS_OP_SUM, CS_OP_AVG,
				       CS_OP_PREMULSUM, CS_OP_PROD};
static const int ranks[] = {2, 3, 5, 8, 13, 33, 64};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A small deterministic generator for this test (independent of gen.c). */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- the emulation's arithmetic --------------------------------------- */

/* Every encoding of the narrow formats decodes to the library's value and
 * encodes back to itself. */
static void test_emul_formats(void **state)
{
	const cs_dtype_t narrow[] = {CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16,
				     CS_DTYPE_FLOAT8_E4M3, CS_DTYPE_FLOAT8_E5M2};
	size_t i;
	uint64_t b;

	(void)state;
	for (i = 0; i < N_OF(narrow); i++) {
		cs_dtype_t d = narrow[i];
		uint64_t top = (uint64_t)1 << (8 * cs_dtype_size(d));

		for (b = 0; b < top; b++) {
			double v = emul_decode(d, b), w = cs_to_f64(d, b);
			if (isnan(w)) {
				assert_true(isnan(v));
				continue;
			}
			assert_true(v == w && signbit(v) == signbit(w));
			assert_int_equal(emul_encode(d, v), b);
		}
	}
}

/* A random double around the range of d: 2^e with e from below the
 * subnormals to above the largest finite value. */
static double random_double(cs_dtype_t d)
{
	int lo = cs_dtype_emin(d) - cs_dtype_prec(d) - 2;
	int e = lo + (int)(rng() % (uint64_t)(cs_dtype_emax(d) + 3 - lo));
	double v = ldexp(1.0 + (double)(rng() >> 11) * 0x1p-53, e);

	if (rng() & 1) /* short mantissas: ties and exact values */
		v = ldexp(round(ldexp(v, cs_dtype_prec(d) + 1 - e)),
			  e - cs_dtype_prec(d) - 1);
	return (rng() & 1) ? -v : v;
}

/* Rounding to nearest matches the library's conversion; toward zero
 * matches the C library's float conversion under FE_TOWARDZERO (float32)
 * and, for every format, is the largest magnitude not above |x|. */
static void test_emul_rounding(void **state)
{
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < N_OF(float_types); i++) {
		cs_dtype_t d = float_types[i];
		for (k = 0; k < 20000; k++) {
			double x = random_double(d), rn, rz, nx;
			volatile double vx = x;
			volatile float f;

			rn = emul_round(d, x, 0, 0);
			assert_true(rn == cs_to_f64(d, cs_from_f64(d, x, 0)) ||
				    (isnan(rn) && d == CS_DTYPE_FLOAT8_E4M3));
			rz = emul_round(d, x, 0, 1);
			assert_true(fabs(rz) <= fabs(x));
			nx = emul_decode(d, emul_encode(d, fabs(rz)) + 1);
			assert_true(fabs(rz) == cs_max_finite(d) || nx > fabs(x));
			if (d == CS_DTYPE_FLOAT32) {
				fesetround(FE_TOWARDZERO);
				f = (float)vx;
				fesetround(FE_TONEAREST);
				assert_true(rz == f);
			}
		}
	}
}

/* The remainder decides ties and values on the grid: 1 + 2^-11 is a
 * float16 midpoint, 1 a grid point. */
static void test_emul_remainder(void **state)
{
	(void)state;
	assert_true(emul_round(CS_DTYPE_FLOAT16, 1 + 0x1p-11, 0, 0) == 1);
	assert_true(emul_round(CS_DTYPE_FLOAT16, 1 + 0x1p-11, 0x1p-70, 0) ==
		    1 + 0x1p-10);
	assert_true(emul_round(CS_DTYPE_FLOAT16, 1 + 0x1p-11, -0x1p-70, 0) == 1);
	assert_true(emul_round(CS_DTYPE_FLOAT16, 1, -0x1p-70, 1) == 1 - 0x1p-11);
	assert_true(emul_round(CS_DTYPE_FLOAT16, -1, 0x1p-70, 1) == -1 + 0x1p-11);
	assert_true(emul_round(CS_DTYPE_FLOAT16, 1, 0x1p-70, 1) == 1);
	assert_true(emul_round(CS_DTYPE_FLOAT64, 1, -0x1p-70, 1) == 1 - 0x1p-53);
}

/* ---- verdicts on emulated implementations ------------------------------- */

static cs_golden_t goldens[4096];
static uint64_t got_buf[4096];

/* The verdict on implementation im for one random-mode allreduce case. */
static int judge_impl(cs_dtype_t d, cs_op_t op, int P, uint64_t seed,
		      size_t n, const emul_impl_t *im, char *check,
		      char *reason)
{
	cs_case_t c = {CS_COLL_ALLREDUCE, d, op, CS_MODE_RANDOM, P, 0, n, seed,
		       NULL, 0};
	cs_stats_t s;

	assert_int_equal(cs_oracle_expect(&c, 0, 0, n, NULL, goldens), CS_OK);
	emul_call(&c, im, 0, n, got_buf);
	cs_stats_init(&s);
	cs_stats_add(&s, d, op, P, goldens, got_buf, n);
	return cs_stats_judge(&s, check, 16, reason, 512);
}

static const emul_impl_t conforming[] = {
	{EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_OK},
	{EMUL_TREE, 0, EMUL_AVG_PREMUL, EMUL_OK},
	{EMUL_RING, 1, EMUL_AVG_PREMUL, EMUL_OK},
	{EMUL_TREE, 1, EMUL_AVG_PREMUL, EMUL_OK},
	{EMUL_RING, 0, EMUL_AVG_DIVIDE, EMUL_OK},
	{EMUL_TREE, 1, EMUL_AVG_DIVIDE, EMUL_OK},
};

/* Every conforming implementation passes every case: 0 false positives. */
static void test_no_false_positive(void **state)
{
	char check[16], reason[512];
	size_t di, oi, pi, ii;
	uint64_t seed;
	int flagged = 0;

	(void)state;
	for (di = 0; di < N_OF(float_types); di++)
	for (oi = 0; oi < N_OF(rounding_ops); oi++)
	for (pi = 0; pi < N_OF(ranks); pi++)
	for (ii = 0; ii < N_OF(conforming); ii++)
	for (seed = 1; seed <= 2; seed++) {
		cs_dtype_t d = float_types[di];
		cs_op_t op = rounding_ops[oi];

		if (conforming[ii].avg == EMUL_AVG_DIVIDE && op != CS_OP_AVG)
			continue;
		if (judge_impl(d, op, ranks[pi], seed, COUNT, &conforming[ii],
			       check, reason) != CS_STATS_PASS) {
			print_message("%s %s P=%d seed=%d impl %zu: %s: %s\n",
				      cs_dtype_name(d), cs_op_name(op), ranks[pi],
				      (int)seed, ii, check, reason);
			flagged++;
		}
	}
	assert_int_equal(flagged, 0);
}

/* float8 avg where the premultiplied terms underflow (P = 100, 128): a
 * conforming result may be 0 for every element whose partials cannot
 * overflow; the sign check must not count those. */
static void test_underflow_zero_conforms(void **state)
{
	const int ps[] = {100, 128};
	char check[16], reason[512];
	size_t di, pi, ii;

	(void)state;
	for (di = 4; di < 6; di++)
	for (pi = 0; pi < N_OF(ps); pi++)
	for (ii = 0; ii < N_OF(conforming); ii++) {
		int lv = judge_impl(float_types[di], CS_OP_AVG, ps[pi], 1, COUNT,
				    &conforming[ii], check, reason);
		if (lv != CS_STATS_PASS)
			print_message("%s P=%d impl %zu: %s: %s\n",
				      cs_dtype_name(float_types[di]), ps[pi], ii,
				      check, reason);
		assert_int_equal(lv, CS_STATS_PASS);
	}
}

/* float8_e4m3 sum truncated at every hop: FAIL at every P of the list
 * (the bias check over every element, spec 8.4); float8_e5m2 is not
 * judged by bias. */
static void test_fp8_trunc_hops(void **state)
{
	const emul_impl_t bad = {EMUL_RING, 0, EMUL_AVG_PREMUL,
				 EMUL_TRUNC_HOPS};
	char check[16], reason[512];
	size_t pi;

	(void)state;
	for (pi = 0; pi < N_OF(ranks); pi++) {
		int lv = judge_impl(CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM, ranks[pi], 1,
				    COUNT, &bad, check, reason);
		if (lv != CS_STATS_FAIL || strcmp(check, "bias"))
			print_message("float8_e4m3 sum P=%d: %s: %s\n", ranks[pi],
				      check, reason);
		assert_int_equal(lv, CS_STATS_FAIL);
		assert_string_equal(check, "bias");
	}
}

/* The verdict on implementation im over n elements whose P inputs are
 * uniform in (-1, 1), rounded to d: not the generator's inputs, which the
 * library's API must judge soundly too. */
static int judge_uniform(cs_dtype_t d, cs_op_t op, int P, size_t n,
			 const emul_impl_t *im, char *check, char *reason)
{
	uint64_t x[64], st = 0x2545f4914f6cdd1dull;
	cs_stats_t s;
	size_t i;
	int q;

	assert_true(P <= 64 && n <= N_OF(goldens));
	for (i = 0; i < n; i++) {
		for (q = 0; q < P; q++) {
			st = cs_mix64(st);
			x[q] = emul_encode(d, emul_round(d, (double)(int64_t)st *
							     0x1p-63, 0, 0));
		}
		cs_golden_reduce(d, op, P, x, NULL, 0, &goldens[i]);
		cs_store(d, got_buf, i, emul_reduce(d, op, P, x, NULL,
						    (int)(i % (size_t)P), im));
	}
	cs_stats_init(&s);
	cs_stats_add(&s, d, op, P, goldens, got_buf, n);
	return cs_stats_judge(&s, check, 16, reason, 512);
}

/* float16 prod at P = 64 of inputs uniform in (-1, 1): the exact product
 * lies far below the least subnormal and 0 is its correct rounding; such
 * elements carry no evidence of bias, and every conforming order passes. */
static void test_prod_underflow_conforms(void **state)
{
	const int ps[] = {16, 32, 64};
	char check[16], reason[512];
	size_t di, pi, ii;

	(void)state;
	for (di = 0; di < 3; di++)
	for (pi = 0; pi < N_OF(ps); pi++)
	for (ii = 0; ii < 2; ii++) {
		int lv = judge_uniform(float_types[di], CS_OP_PROD, ps[pi], COUNT,
				       &conforming[ii], check, reason);
		if (lv != CS_STATS_PASS)
			print_message("%s prod P=%d impl %zu: %s: %s\n",
				      cs_dtype_name(float_types[di]), ps[pi], ii,
				      check, reason);
		assert_int_equal(lv, CS_STATS_PASS);
	}
}

/* Every hop truncated toward zero: FAIL for float32, float16, bfloat16,
 * every op and P; float64 avg at P = 25. */
static void test_trunc_hops_fail(void **state)
{
	const emul_impl_t bad = {EMUL_RING, 0, EMUL_AVG_PREMUL,
				 EMUL_TRUNC_HOPS};
	char check[16], reason[512];
	size_t di, oi, pi;

	(void)state;
	for (di = 0; di < 3; di++)
	for (oi = 0; oi < N_OF(rounding_ops); oi++)
	for (pi = 0; pi < N_OF(ranks); pi++) {
		int lv = judge_impl(float_types[di], rounding_ops[oi],
				    ranks[pi], 1, COUNT, &bad, check, reason);
		if (lv != CS_STATS_FAIL)
			print_message("%s %s P=%d: %s: %s\n",
				      cs_dtype_name(float_types[di]),
				      cs_op_name(rounding_ops[oi]), ranks[pi],
				      check, reason);
		assert_int_equal(lv, CS_STATS_FAIL);
		assert_string_equal(check, "bias");
	}
	/* float64 avg: NCCL's scalar through float applies below 24 bits
	 * only; at P = 25 it would sit 10^8 float64 ulps toward zero */
	assert_int_equal(judge_impl(CS_DTYPE_FLOAT64, CS_OP_AVG, 25, 1, COUNT,
				    &bad, check, reason), CS_STATS_FAIL);
}

/* avg summed to nearest, divided toward zero: FAIL with 4096 elements where
 * c*P >= 1 (float32 and bfloat16 at P = 3, 5, 6, 13, 17), decided by the
 * well-conditioned elements from P = 13 on; at least WARN with 1024
 * elements at P = 3. */
static void test_avg_trunc_div(void **state)
{
	const emul_impl_t bad = {EMUL_RING, 0, EMUL_AVG_DIVIDE,
				 EMUL_AVG_TRUNC_DIV};
	const cs_dtype_t dts[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16};
	const int ps[] = {3, 5, 6, 13, 17};
	char check[16], reason[512];
	size_t di, pi;

	(void)state;
	for (di = 0; di < N_OF(dts); di++) {
		for (pi = 0; pi < N_OF(ps); pi++) {
			double c = cs_to_f64(dts[di], cs_avg_scalar(dts[di], ps[pi]));
			assert_true(c * ps[pi] >= 1);
			assert_int_equal(judge_impl(dts[di], CS_OP_AVG, ps[pi], 1,
						    4096, &bad, check, reason),
					 CS_STATS_FAIL);
			if (ps[pi] >= 13)
				assert_non_null(strstr(reason, "well-conditioned"));
		}
		assert_true(judge_impl(dts[di], CS_OP_AVG, 3, 1, COUNT, &bad,
				       check, reason) >= CS_STATS_WARN);
	}
}

/* float8 at P = 64 returning 0 or the negated result: FAIL (sign), for sum
 * and premulsum, and avg in float8_e5m2. float8_e4m3 avg at P = 64 is out
 * of reach: every element whose partials cannot overflow has |S| < 2 P eta,
 * where underflow of the premultiplied terms can zero a conforming result
 * (spec). */
static void test_fp8_zero_negate(void **state)
{
	const emul_impl_t zero = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_ZERO};
	const emul_impl_t neg = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_NEGATE};
	char check[16], reason[512];
	size_t di, oi;

	(void)state;
	for (di = 4; di < 6; di++)
	for (oi = 0; oi < 3; oi++) { /* sum, avg, premulsum */
		cs_dtype_t d = float_types[di];
		cs_op_t op = rounding_ops[oi];

		if (d == CS_DTYPE_FLOAT8_E4M3 && op == CS_OP_AVG)
			continue;
		assert_int_equal(judge_impl(d, op, 64, 1, COUNT, &zero, check,
					    reason), CS_STATS_FAIL);
		assert_string_equal(check, "sign");
		assert_int_equal(judge_impl(d, op, 64, 1, COUNT, &neg, check,
					    reason), CS_STATS_FAIL);
		assert_string_equal(check, "sign");
	}
}

/* Every hop rounded to nearest with 4 mantissa bits less: prod fails the
 * precision check from P = 5 on, sum at P = 5. */
static void test_lost_bits(void **state)
{
	const emul_impl_t bad = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_LOSE_BITS};
	char check[16], reason[512];
	size_t pi;

	(void)state;
	for (pi = 2; pi < N_OF(ranks); pi++) {
		assert_int_equal(judge_impl(CS_DTYPE_FLOAT32, CS_OP_PROD,
					    ranks[pi], 1, COUNT, &bad, check,
					    reason), CS_STATS_FAIL);
		assert_string_equal(check, "precision");
	}
	assert_int_equal(judge_impl(CS_DTYPE_FLOAT32, CS_OP_SUM, 5, 1, COUNT,
				    &bad, check, reason), CS_STATS_FAIL);
	assert_string_equal(check, "precision");
}

/* ---- accumulation ------------------------------------------------------- */

/* Blocks added in any split, and accumulators merged, give the counts of
 * one add; the energy within the reassociation error of its sum (n terms:
 * relative n 2^-53). The large add takes the OpenMP path. */
static void test_split_merge(void **state)
{
	const emul_impl_t im = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_TRUNC_HOPS};
	enum { N = 40000 };
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_AVG,
		       CS_MODE_RANDOM, 7, 0, N, 3, NULL, 0};
	cs_golden_t *g = malloc(N * sizeof *g);
	float *got = malloc(N * sizeof *got);
	cs_stats_t whole, a, b;
	size_t lo;
	int t;

	(void)state;
	assert_non_null(g);
	assert_non_null(got);
	assert_int_equal(cs_oracle_expect(&c, 0, 0, N, NULL, g), CS_OK);
	emul_call(&c, &im, 0, N, got);
	cs_stats_init(&whole);
	cs_stats_add(&whole, c.dtype, c.op, 7, g, got, N);
	cs_stats_init(&a);
	cs_stats_init(&b);
	for (lo = 0; lo < N; lo += 1000) /* odd blocks to a, even to b */
		cs_stats_add((lo / 1000) % 2 ? &a : &b, c.dtype, c.op, 7,
			     g + lo, got + lo, 1000);
	cs_stats_merge(&a, &b);
	assert_int_equal(a.n_seen, N);
	assert_int_equal(a.n_used, whole.n_used);
	assert_int_equal(a.sign_hit, whole.sign_hit);
	assert_int_equal(a.sign_off, whole.sign_off);
	for (t = 0; t < CS_STATS_NTEST; t++) {
		assert_int_equal(a.hit[t], whole.hit[t]);
		assert_int_equal(a.off[t], whole.off[t]);
	}
	assert_true(fabs(a.energy - whole.energy) <= N * 0x1p-53 * whole.energy);
	assert_true(a.energy_capmax == whole.energy_capmax);
	assert_int_equal(a.mixed, 0);
	assert_int_equal(cs_stats_judge(&a, NULL, 0, NULL, 0), CS_STATS_FAIL);
	free(g);
	free(got);
}

/* Accumulators of different dtypes, ops or P are marked mixed and pass
 * with a reason; an empty one merged changes nothing. */
static void test_mixed(void **state)
{
	cs_stats_t a, b, e;
	char check[16], reason[256];
	uint16_t h = 0x3c00;

	(void)state;
	cs_stats_init(&a);
	cs_stats_init(&b);
	cs_stats_init(&e);
	memset(goldens, 0, sizeof goldens[0]);
	cs_stats_add(&a, CS_DTYPE_FLOAT32, CS_OP_SUM, 4, goldens, got_buf, 1);
	cs_stats_merge(&a, &e);
	assert_int_equal(a.mixed, 0);
	cs_stats_add(&b, CS_DTYPE_FLOAT16, CS_OP_SUM, 4, goldens, &h, 1);
	cs_stats_merge(&a, &b);
	assert_int_equal(a.mixed, 1);
	assert_int_equal(cs_stats_judge(&a, check, sizeof check, reason,
					sizeof reason), CS_STATS_PASS);
	assert_string_equal(check, "stats");
	assert_non_null(strstr(reason, "merged"));
	cs_stats_init(&a);
	cs_stats_add(&a, CS_DTYPE_FLOAT32, CS_OP_SUM, 4, goldens, got_buf, 1);
	cs_stats_add(&a, CS_DTYPE_FLOAT32, CS_OP_SUM, 5, goldens, got_buf, 1);
	assert_int_equal(a.mixed, 1);
}

/* Elements that are not a plain finite rounding case add nothing: special
 * goldens, a NaN result, integers, max, exact mode. */
static void test_ignored(void **state)
{
	const uint32_t flags[] = {CS_G_EXACT, CS_G_NAN, CS_G_ANY_ZERO,
				  CS_G_OVF_POS, CS_G_OVF_NEG, CS_G_OVF_NAN,
				  CS_G_SAT, CS_G_NANRULE, CS_G_UNTOUCHED,
				  CS_G_MOVED, CS_G_NAN_OK};
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
		       CS_MODE_EXACT, 8, 0, COUNT, 1, NULL, 0};
	float got[16];
	cs_stats_t s;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(flags); i++) {
		goldens[i] = (cs_golden_t){.bits = 0x3f800000, .s_hi = 1.0,
					   .bound = 1e-6, .flags = flags[i]};
		got[i] = 1.5f;
	}
	goldens[i] = (cs_golden_t){.bits = 0x3f800000, .s_hi = 1.0,
				   .bound = 1e-6};
	got[i] = NAN;
	cs_stats_init(&s);
	cs_stats_add(&s, CS_DTYPE_FLOAT32, CS_OP_SUM, 8, goldens, got, i + 1);
	assert_int_equal(s.n_seen, i + 1);
	assert_int_equal(s.n_used, 0);
	cs_stats_add(&s, CS_DTYPE_INT32, CS_OP_SUM, 8, goldens, got, 1);
	assert_int_equal(s.n_seen, i + 2);
	assert_int_equal(s.n_used, 0);
	cs_stats_init(&s);
	cs_stats_add(&s, CS_DTYPE_FLOAT32, CS_OP_MAX, 8, goldens, got, i);
	assert_int_equal(s.n_used, 0);
	/* float64 near the bottom of its range: a correct sign is no hit
	 * (r times S would underflow to 0) */
	goldens[0] = (cs_golden_t){.s_hi = 1e-200, .bound = 1e-210};
	got_buf[0] = 0x16687e92154ef7acull; /* 1e-200 */
	cs_stats_init(&s);
	cs_stats_add(&s, CS_DTYPE_FLOAT64, CS_OP_SUM, 8, goldens, got_buf, 1);
	assert_int_equal(s.sign_off, 1);
	assert_int_equal(s.sign_hit, 0);
	/* exact mode: every conforming result is the golden, error 0 */
	assert_int_equal(cs_oracle_expect(&c, 0, 0, COUNT, NULL, goldens), CS_OK);
	for (i = 0; i < COUNT; i++)
		((float *)got_buf)[i] = (float)cs_to_f64(c.dtype, goldens[i].bits);
	cs_stats_init(&s);
	cs_stats_add(&s, c.dtype, c.op, 8, goldens, got_buf, COUNT);
	assert_int_equal(s.off[CS_STATS_TOWARD], 0);
	assert_int_equal(cs_stats_judge(&s, NULL, 0, NULL, 0), CS_STATS_PASS);
}

/* The model scale recovered from B is proportional to A = sum |terms|
 * (sum, premulsum: the same factor for every element of a case; avg: A/P)
 * and to |S| for prod, and sigma is at least the spec's sqrt(k) u a. B's
 * underflow terms, at most P eta (1 + theta) + eta, shift the ratio by
 * about P eta / (u A) = 13 * 2^-14 / A: under 1e-6 for A >= 1024, so the
 * ratio agrees to 1e-5. */
static void test_sigma_scale(void **state)
{
	uint64_t x[64], al[64];
	double u = cs_unit_roundoff(CS_DTYPE_FLOAT16);
	size_t oi, i;
	int q, P = 13;

	(void)state;
	for (oi = 0; oi < N_OF(rounding_ops); oi++) {
		cs_op_t op = rounding_ops[oi];
		cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT16, op,
			       CS_MODE_RANDOM, P, 0, 256, 5, NULL, 0};
		double ratio = 0;

		assert_int_equal(cs_oracle_expect(&c, 0, 0, 256, NULL, goldens),
				 CS_OK);
		for (i = 0; i < 256; i++) {
			double A = 0, sg = cs_stats_sigma(c.dtype, op, P, &goldens[i]), r;

			cs_gen_column(&c, i, x, al);
			for (q = 0; q < P; q++)
				A += fabs(cs_to_f64(c.dtype, x[q]) *
					  (op == CS_OP_PREMULSUM ?
					   cs_to_f64(c.dtype, al[q]) : 1.0));
			if (op == CS_OP_PROD)
				A = fabs(goldens[i].s_hi);
			if (sg == 0 || (op != CS_OP_PROD && A < 1024))
				continue;
			r = sg / A;
			if (ratio == 0)
				ratio = r;
			assert_true(fabs(r / ratio - 1) < 1e-5);
			/* at least the RMS of k roundings of u times the scale:
			 * k = P (sum, prod), 2P of A/P (avg), 2P (premulsum) */
			if (op == CS_OP_AVG)
				assert_true(sg >= sqrt(2.0 * P) * u * A / P);
			else if (op == CS_OP_PREMULSUM)
				assert_true(sg >= sqrt(2.0 * P) * u * A);
			else if (op == CS_OP_SUM)
				assert_true(sg >= sqrt((double)P) * u * A);
			else
				assert_true(sg >= sqrt(pow(1 + u * u, P) - 1) * A);
		}
		assert_true(ratio > 0);
	}
}

/* ---- thresholds ---------------------------------------------------------- */

/* log P(Binomial(m, q) >= k), summed exactly in log space. */
static double log_binom_tail(uint64_t k, uint64_t m, double q)
{
	double mx = -INFINITY, s = 0;
	uint64_t j;

	for (j = k; j <= m; j++) {
		double l = lgamma((double)m + 1) - lgamma((double)j + 1) -
			   lgamma((double)(m - j) + 1) + (double)j * log(q) +
			   (double)(m - j) * log1p(-q);
		if (l > mx) {
			s = s * exp(mx - l) + 1;
			mx = l;
		} else {
			s += exp(l - mx);
		}
	}
	return mx + log(s);
}

/* A FAIL of the bias or sign check has an exact binomial tail below 2^-40
 * at the spec's q0 (0.65 and 0.5), a WARN below 2^-20; clear cases are
 * caught. */
static void test_thresholds_sound(void **state)
{
	const uint64_t ms[] = {20, 40, 64, 100, 300, 1000, 5000};
	size_t i;
	uint64_t k;

	(void)state;
	for (i = 0; i < N_OF(ms); i++) {
		for (k = 0; k <= ms[i]; k += 1 + ms[i] / 200) {
			cs_stats_t s;
			int lv, w;
			for (w = 0; w < 2; w++) {
				double q0 = w ? 0.5 : 0.65, lt;
				cs_stats_init(&s);
				s.dtype = CS_DTYPE_FLOAT32;
				s.op = CS_OP_SUM;
				s.nranks = 8;
				s.n_seen = s.n_used = ms[i];
				if (w) {
					s.sign_hit = k;
					s.sign_off = ms[i];
				} else {
					s.hit[CS_STATS_TOWARD] = k;
					s.off[CS_STATS_TOWARD] = ms[i];
				}
				s.energy_cap = (double)ms[i];
				s.energy_capmax = 1;
				lv = cs_stats_judge(&s, NULL, 0, NULL, 0);
				lt = log_binom_tail(k, ms[i], q0);
				if (lv == CS_STATS_FAIL)
					assert_true(lt <= -40 * log(2.0));
				if (lv == CS_STATS_WARN)
					assert_true(lt <= -20 * log(2.0));
				if (ms[i] >= 300 && k >= ms[i] * 9 / 10)
					assert_int_equal(lv, CS_STATS_FAIL);
			}
		}
	}
}

/* The reason names the deciding figures; outputs are cut, never overrun. */
static void test_reason(void **state)
{
	const emul_impl_t bad = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_TRUNC_HOPS};
	char check[16], reason[512], tiny[8];
	cs_stats_t s;

	(void)state;
	assert_int_equal(judge_impl(CS_DTYPE_FLOAT32, CS_OP_SUM, 8, 1, COUNT,
				    &bad, check, reason), CS_STATS_FAIL);
	assert_non_null(strstr(reason, "on the zero side"));
	assert_non_null(strstr(reason, "FAIL 27.7"));
	assert_non_null(strstr(reason, "of 1024 elements used"));
	cs_stats_init(&s);
	cs_stats_add(&s, CS_DTYPE_FLOAT32, CS_OP_SUM, 8, goldens, got_buf, COUNT);
	memset(tiny, 'x', sizeof tiny);
	assert_int_equal(cs_stats_judge(&s, tiny, 3, tiny + 3, 5), CS_STATS_FAIL);
	assert_string_equal(tiny, "bi");
	assert_int_equal(strlen(tiny + 3), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emul_formats),
		cmocka_unit_test(test_emul_rounding),
		cmocka_unit_test(test_emul_remainder),
		cmocka_unit_test(test_no_false_positive),
		cmocka_unit_test(test_underflow_zero_conforms),
		cmocka_unit_test(test_prod_underflow_conforms),
		cmocka_unit_test(test_fp8_trunc_hops),
		cmocka_unit_test(test_trunc_hops_fail),
		cmocka_unit_test(test_avg_trunc_div),
		cmocka_unit_test(test_fp8_zero_negate),
		cmocka_unit_test(test_lost_bits),
		cmocka_unit_test(test_split_merge),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_sigma_scale),
		cmocka_unit_test(test_thresholds_sound),
		cmocka_unit_test(test_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
