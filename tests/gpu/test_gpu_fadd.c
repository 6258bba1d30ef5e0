/*
 * test_gpu_fadd.c - csgpu/fadd.h's csg_f32_add, the float32 SUM step of
 * the kernels (gpu/src/native.cuh), against csref/arith.h's cs_step
 * (what csg_apply, gpu-sim and the reference compute), bit for bit, on
 * the CPU: the host compilation of the same function, whose `+` is binary32
 * addition rounded to nearest like the device's __fadd_rn (fadd.h gives
 * the argument; tests/gpu/sass_check.py shows the kernel's FADD has no
 * .FTZ, and test_gpu_native runs the device's own on a GPU).
 *
 * Operands: every exponent (subnormals, 0, infinities, NaNs included),
 * each with mantissas at both ends and in the middle, both signs: every
 * pair of those (4096 x 4096), so that sums that cancel, that round at a
 * tie, that overflow, that land in or leave the subnormal range, and
 * every NaN and infinity rule are all met; then pseudo-random pairs with
 * exponents close together (where rounding matters most).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "csgpu/fadd.h"
#include "csref/arith.h"

#define NVAL 4096

/* The operands: exponent e (0..255) x 8 mantissas x 2 signs. */
static uint32_t vals[NVAL];

static void make_vals(void)
{
	static const uint32_t mant[8] = {0, 1, 2, 0x155555, 0x400000,
					 0x400001, 0x7ffffe, 0x7fffff};
	int n = 0;

	for (uint32_t e = 0; e < 256; e++)
		for (int m = 0; m < 8; m++)
			for (uint32_t s = 0; s < 2; s++)
				vals[n++] = s << 31 | e << 23 | mant[m];
}

/* Fail with the first pair whose bits differ from cs_step's. */
static void expect_same(uint32_t a, uint32_t b, unsigned long long *bad)
{
	uint32_t got = csg_f32_add(a, b),
		 want = (uint32_t)cs_step(CS_DTYPE_FLOAT32, CS_OP_SUM, a, b);

	if (got != want && (*bad)++ == 0)
		print_error("0x%08x + 0x%08x: csg_f32_add 0x%08x, cs_step "
			    "0x%08x\n", (unsigned)a, (unsigned)b,
			    (unsigned)got, (unsigned)want);
}

static void test_every_pair_of_special_operands(void **state)
{
	unsigned long long bad = 0;

	(void)state;
	make_vals();
	for (int i = 0; i < NVAL; i++)
		for (int j = 0; j < NVAL; j++)
			expect_same(vals[i], vals[j], &bad);
	if (bad)
		fail_msg("%llu of %d pairs differ", bad, NVAL * NVAL);
}

/* xorshift64: the same pairs on every run. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_random_pairs_of_near_exponents(void **state)
{
	unsigned long long bad = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int i = 0; i < 20000000; i++) {
		uint32_t a = (uint32_t)next(&x), d = (uint32_t)next(&x);
		/* b: a's exponent moved by -26..+26, its own sign and
		 * mantissa, clamped to the exponent range */
		int e = (int)(a >> 23 & 0xff) + (int)(d % 53) - 26;
		uint32_t b;

		e = e < 0 ? 0 : e > 255 ? 255 : e;
		b = (d & 0x80000000u) | (uint32_t)e << 23 | (d >> 6 & 0x7fffff);
		expect_same(a, b, &bad);
	}
	if (bad)
		fail_msg("%llu random pairs differ", bad);
}

/* The cases the argument leans on, by hand. */
static void test_hand_worked(void **state)
{
	(void)state;
	/* two smallest subnormals: 2^-148, kept (no flush to zero) */
	assert_int_equal(csg_f32_add(0x00000001u, 0x00000001u), 0x00000002u);
	/* 1 + 2^-24 is a tie: to even, 1 */
	assert_int_equal(csg_f32_add(0x3f800000u, 0x33800000u), 0x3f800000u);
	/* 1 + 3 x 2^-24 is the tie between 1 + 2^-23 (odd) and 1 + 2^-22:
	 * to even, 1 + 2^-22 */
	assert_int_equal(csg_f32_add(0x3f800000u, 0x34400000u), 0x3f800002u);
	/* 1 + 1.5 x 2^-24: above the tie, 1 + 2^-23 */
	assert_int_equal(csg_f32_add(0x3f800000u, 0x33c00000u), 0x3f800001u);
	/* FLT_MAX + FLT_MAX: +inf */
	assert_int_equal(csg_f32_add(0x7f7fffffu, 0x7f7fffffu), 0x7f800000u);
	/* +inf + -inf, and a signalling NaN with a payload: canonical NaN */
	assert_int_equal(csg_f32_add(0x7f800000u, 0xff800000u), CSG_F32_NAN);
	assert_int_equal(csg_f32_add(0xff800123u, 0x3f800000u), CSG_F32_NAN);
	/* x + -x is +0; -0 + -0 is -0 */
	assert_int_equal(csg_f32_add(0x3f800000u, 0xbf800000u), 0x00000000u);
	assert_int_equal(csg_f32_add(0x80000000u, 0x80000000u), 0x80000000u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_every_pair_of_special_operands),
		cmocka_unit_test(test_random_pairs_of_near_exponents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
