/*
 * test_mpi_userops.c - the `mpi` backend's user-defined reduction functions
 * (conformance/backends/mpi/mpi_userops.c) are bit-commutative, so that creating them
 * commutative is sound. Each function is called as MPI calls it (no MPI
 * runtime is started), in both operand orders, on:
 *  - float8_e4m3, float8_e5m2: every pair of the 256 x 256 bit patterns;
 *  - float16, bfloat16: every pair of NaN encodings, every encoding
 *    against each special value (zeros, subnormals, normals, max, inf,
 *    NaNs), and pseudo-random pairs.
 * Beyond equal bits in both orders, each result must be what the op means:
 * sum and prod the golden step (cs_step); max and min the rule of
 * mpi_userops.h, written here through double comparisons; and wherever
 * cs_step itself gives the same bits in both orders, those bits. max and
 * min are also checked associative on every fp8 triple.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "backends/mpi/mpi_userops.h"
#include "csref/arith.h"

#define BATCH 65536

static const cs_dtype_t small_floats[] = {
	CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16, CS_DTYPE_FLOAT8_E4M3,
	CS_DTYPE_FLOAT8_E5M2,
};
static const cs_op_t step_ops[] = { CS_OP_SUM, CS_OP_PROD, CS_OP_MAX,
				    CS_OP_MIN };

/* out[i] = in[i] OP inout[i] through the user function, for i < n. */
static void call_op(cs_dtype_t d, cs_op_t op, const uint64_t *in,
		    const uint64_t *inout, uint64_t *out, int n)
{
	static unsigned char ibuf[2 * BATCH], obuf[2 * BATCH];
	MPI_User_function *fn = cs_mpi_userop(d, op);
	MPI_Datatype dt = MPI_BYTE; /* not read by the function */
	int i;

	assert_non_null(fn);
	assert_true(n <= BATCH);
	for (i = 0; i < n; i++) {
		cs_store(d, ibuf, (size_t)i, in[i]);
		cs_store(d, obuf, (size_t)i, inout[i]);
	}
	fn(ibuf, obuf, &n, &dt);
	for (i = 0; i < n; i++)
		out[i] = cs_load(d, obuf, (size_t)i);
}

/* The max (want_max) or min rule of mpi_userops.h, through doubles. */
static uint64_t expect_pick(cs_dtype_t d, int want_max, uint64_t a,
			    uint64_t b)
{
	double x = cs_to_f64(d, a), y = cs_to_f64(d, b);

	if (isnan(x) && isnan(y))
		return a > b ? a : b; /* the larger bits */
	if (isnan(x) || isnan(y))
		return isnan(x) ? b : a; /* a number beats a NaN */
	if (x != y)
		return (want_max ? x > y : x < y) ? a : b;
	if (a == b)
		return a;
	/* +0 and -0: -0 is the smaller */
	return (want_max ? !signbit(x) : signbit(x)) ? a : b;
}

/* What r = a OP b must be, beyond being the same in both orders; 1 when
 * r is right. */
static int right(cs_dtype_t d, cs_op_t op, uint64_t a, uint64_t b,
		 uint64_t r)
{
	uint64_t ab = cs_step(d, op, a, b), ba = cs_step(d, op, b, a);

	if (op == CS_OP_MAX || op == CS_OP_MIN)
		return r == expect_pick(d, op == CS_OP_MAX, a, b) &&
		       (ab != ba || r == ab);
	return r == ab;
}

static long failures;

static void report(cs_dtype_t d, cs_op_t op, uint64_t a, uint64_t b,
		   uint64_t r1, uint64_t r2, const char *what)
{
	if (failures++ < 10)
		fprintf(stderr, "%s %s: a=0x%llx b=0x%llx: a OP b = 0x%llx, "
			"b OP a = 0x%llx: %s\n", cs_dtype_name(d),
			cs_op_name(op), (unsigned long long)a,
			(unsigned long long)b, (unsigned long long)r1,
			(unsigned long long)r2, what);
}

/* Check op on the pairs (a[i], b[i]), i < n, in both orders. */
static void check_pairs(cs_dtype_t d, cs_op_t op, const uint64_t *a,
			const uint64_t *b, int n)
{
	static uint64_t r1[BATCH], r2[BATCH];
	int i;

	call_op(d, op, a, b, r1, n);
	call_op(d, op, b, a, r2, n);
	for (i = 0; i < n; i++) {
		if (r1[i] != r2[i])
			report(d, op, a[i], b[i], r1[i], r2[i],
			       "not bit-commutative");
		else if (!right(d, op, a[i], b[i], r1[i]))
			report(d, op, a[i], b[i], r1[i], r2[i],
			       "not the op's result");
	}
}

/* Check every step op on the pairs (a[i], b[i]). */
static void check_all_ops(cs_dtype_t d, const uint64_t *a, const uint64_t *b,
			  int n)
{
	size_t k;

	for (k = 0; k < sizeof step_ops / sizeof step_ops[0]; k++)
		check_pairs(d, step_ops[k], a, b, n);
}

/* ---- which functions exist ------------------------------------------------ */

static void test_table(void **state)
{
	int d, o;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		int small = d == CS_DTYPE_FLOAT16 || d == CS_DTYPE_BFLOAT16 ||
			    d == CS_DTYPE_FLOAT8_E4M3 ||
			    d == CS_DTYPE_FLOAT8_E5M2;

		for (o = 0; o < CS_NUM_OPS; o++) {
			int step = o == CS_OP_SUM || o == CS_OP_PROD ||
				   o == CS_OP_MAX || o == CS_OP_MIN;

			if (small && step)
				assert_non_null(cs_mpi_userop(d, o));
			else
				assert_null(cs_mpi_userop(d, o));
		}
	}
	assert_null(cs_mpi_userop(CS_NUM_DTYPES, CS_OP_SUM));
	assert_null(cs_mpi_userop(CS_DTYPE_FLOAT16, CS_OP_NONE));
}

/* ---- fp8: every pair, every triple for max and min ------------------------ */

static void test_fp8_every_pair(void **state)
{
	static uint64_t a[BATCH], b[BATCH];
	int k, i;

	(void)state;
	for (i = 0; i < BATCH; i++) {
		a[i] = (uint64_t)(i >> 8);
		b[i] = (uint64_t)(i & 255);
	}
	failures = 0;
	for (k = 2; k < 4; k++)
		check_all_ops(small_floats[k], a, b, BATCH);
	assert_int_equal(failures, 0);
}

/* (x OP y) OP z == x OP (y OP z) for every fp8 triple. */
static void test_fp8_minmax_associative(void **state)
{
	static uint64_t x[BATCH], y[BATCH], z[BATCH], t[BATCH], l[BATCH],
		r[BATCH];
	long bad = 0;
	int k, o, v, i;

	(void)state;
	for (i = 0; i < BATCH; i++) {
		y[i] = (uint64_t)(i >> 8);
		z[i] = (uint64_t)(i & 255);
	}
	for (k = 2; k < 4; k++)
		for (o = CS_OP_MAX; o <= CS_OP_MIN; o++)
			for (v = 0; v < 256; v++) {
				cs_dtype_t d = small_floats[k];

				for (i = 0; i < BATCH; i++)
					x[i] = (uint64_t)v;
				call_op(d, o, x, y, t, BATCH);
				call_op(d, o, t, z, l, BATCH);
				call_op(d, o, y, z, t, BATCH);
				call_op(d, o, x, t, r, BATCH);
				for (i = 0; i < BATCH; i++)
					bad += l[i] != r[i];
			}
	assert_int_equal(bad, 0);
}

/* ---- 16-bit floats -------------------------------------------------------- */

/* Every NaN encoding of d, in order; returns how many. */
static int nans_of(cs_dtype_t d, uint64_t *out)
{
	int n = 0;
	uint64_t b;

	for (b = 0; b < 65536; b++)
		if (cs_isnan_bits(d, b))
			out[n++] = b;
	return n;
}

static void test_16bit_every_nan_pair(void **state)
{
	static uint64_t nan[BATCH], a[BATCH];
	int k, n, i;

	(void)state;
	failures = 0;
	for (k = 0; k < 2; k++) {
		cs_dtype_t d = small_floats[k];

		n = nans_of(d, nan);
		assert_true(n == (d == CS_DTYPE_FLOAT16 ? 2046 : 254));
		for (i = 0; i < n; i++) {
			int j;

			for (j = 0; j < n; j++)
				a[j] = nan[i];
			check_all_ops(d, a, nan, n);
		}
	}
	assert_int_equal(failures, 0);
}

/* Zeros, subnormals, normals, max, inf and NaNs of d, both signs. */
static int specials_of(cs_dtype_t d, uint64_t *out)
{
	cs_fmt_t f = cs_fmt_of(d);
	uint64_t e1 = (uint64_t)1 << f.mbits, top = cs_fmt_emask(f) << f.mbits;
	uint64_t mag[] = {
		0, 1, e1 - 1, e1, e1 + 1, cs_from_f64(d, 1.0, 0),
		cs_from_f64(d, 1.5, 0), cs_fmt_maxbits(f) - 1,
		cs_fmt_maxbits(f), cs_fmt_infbits(f), cs_fmt_nanbits(f),
		top | 1, top | cs_fmt_mmask(f),
	};
	int n = 0;
	size_t i;

	for (i = 0; i < sizeof mag / sizeof mag[0]; i++) {
		out[n++] = mag[i];
		out[n++] = mag[i] | cs_fmt_sign(f);
	}
	return n;
}

static void test_16bit_against_specials(void **state)
{
	static uint64_t all[BATCH], s[BATCH];
	uint64_t sp[32];
	int k, n, i, j;

	(void)state;
	for (i = 0; i < BATCH; i++)
		all[i] = (uint64_t)i;
	failures = 0;
	for (k = 0; k < 2; k++) {
		cs_dtype_t d = small_floats[k];

		n = specials_of(d, sp);
		for (j = 0; j < n; j++) {
			for (i = 0; i < BATCH; i++)
				s[i] = sp[j];
			check_all_ops(d, all, s, BATCH);
		}
	}
	assert_int_equal(failures, 0);
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void test_16bit_random_pairs(void **state)
{
	static uint64_t a[BATCH], b[BATCH];
	uint64_t seed = 7;
	int k, rep, i;

	(void)state;
	failures = 0;
	for (k = 0; k < 2; k++)
		for (rep = 0; rep < 16; rep++) {
			for (i = 0; i < BATCH; i++) {
				uint64_t x = splitmix(&seed);

				a[i] = x & 0xffff;
				b[i] = (x >> 16) & 0xffff;
			}
			check_all_ops(small_floats[k], a, b, BATCH);
		}
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_fp8_every_pair),
		cmocka_unit_test(test_fp8_minmax_associative),
		cmocka_unit_test(test_16bit_every_nan_pair),
		cmocka_unit_test(test_16bit_against_specials),
		cmocka_unit_test(test_16bit_random_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
