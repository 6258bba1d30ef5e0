/*
 * test_gpu_functor.c - the GPU reduction functors (csgpu/functor.h), built
 * by the host C compiler from the same header the kernels include, against
 * the reference buffer arithmetic of csref/reduce.h, for every dtype x op:
 * bit for bit, except that a NaN from float arithmetic may be any NaN
 * (cs_test_same).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csgpu/functor.h"
#include "csref/catalog.h"
#include "csref/reduce.h"
#include "gpu_test_pairs.h"

#define NPAIRS 100000 /* > 65536: every 8-bit pair, then random ones */

static const int nranks_list[] = { 1, 2, 3, 7, 8, 64 };
#define NNRANKS (sizeof nranks_list / sizeof nranks_list[0])

static void fail_bits(const char *what, cs_dtype_t d, cs_op_t op, size_t i,
		      uint64_t a, uint64_t b, uint64_t got, uint64_t want)
{
	fail_msg("%s %s %s, pair %zu: a=0x%llx b=0x%llx: functor gave 0x%llx, "
		 "reference 0x%llx", what, cs_dtype_name(d), cs_op_name(op), i,
		 (unsigned long long)a, (unsigned long long)b,
		 (unsigned long long)got, (unsigned long long)want);
}

/* cs_gpu_step against cs_reduce_bufs on the same pairs. */
static void check_step(cs_dtype_t d, cs_op_t op, const void *a,
		       const void *b, void *r, size_t n)
{
	size_t i;

	memcpy(r, a, n * cs_dtype_size(d));
	cs_reduce_bufs(d, op, r, b, n);
	for (i = 0; i < n; i++) {
		uint64_t x = cs_load(d, a, i), y = cs_load(d, b, i);
		uint64_t got = cs_gpu_step(d, op, x, y);

		if (!cs_test_same(d, op, got, cs_load(d, r, i)))
			fail_bits("step", d, op, i, x, y, got, cs_load(d, r, i));
	}
}

static void test_step_all_dtype_op(void **state)
{
	size_t bytes = NPAIRS * 8;
	void *a = malloc(bytes), *b = malloc(bytes), *r = malloc(bytes);
	int d, op;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(r);
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		cs_test_fill_pairs(d, a, b, NPAIRS, 1000 + d);
		for (op = 0; op < CS_NUM_OPS; op++)
			check_step(d, op, a, b, r, NPAIRS);
	}
	free(a);
	free(b);
	free(r);
}

/* cs_gpu_pre against cs_op_prepare, for one rank count and scalar. */
static void check_pre(cs_dtype_t d, cs_op_t op, int nranks, uint64_t scalar,
		      const void *a, void *r, size_t n)
{
	size_t i;

	cs_op_prepare(d, op, nranks, scalar, r, a, n);
	for (i = 0; i < n; i++) {
		uint64_t x = cs_load(d, a, i);
		uint64_t got = cs_gpu_pre(d, op, nranks, scalar, x);

		if (!cs_test_same(d, op, got, cs_load(d, r, i)))
			fail_bits("pre", d, op, i, x, scalar, got,
				  cs_load(d, r, i));
	}
}

/* cs_gpu_post against cs_op_finish, for one rank count. */
static void check_post(cs_dtype_t d, cs_op_t op, int nranks, const void *a,
		       void *r, size_t n)
{
	size_t i;

	memcpy(r, a, n * cs_dtype_size(d));
	cs_op_finish(d, op, nranks, r, n);
	for (i = 0; i < n; i++) {
		uint64_t x = cs_load(d, a, i);
		uint64_t got = cs_gpu_post(d, op, nranks, x);

		if (got != cs_load(d, r, i))
			fail_bits("post", d, op, i, x, 0, got, cs_load(d, r, i));
	}
}

/* Inputs: every 8-bit pattern, or the boundary patterns then random ones;
 * scalars: the boundary patterns; rank counts: nranks_list. */
static void test_pre_post_all_dtype_op(void **state)
{
	enum { N = 1500 };
	uint64_t pat[CS_TEST_MAX_PATTERNS];
	void *a = malloc(N * 8), *b = malloc(N * 8), *r = malloc(N * 8);
	size_t k, s, np;
	int d, op;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(r);
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		cs_test_fill_pairs(d, a, b, N, 2000 + d);
		np = cs_test_patterns(d, pat);
		for (op = 0; op < CS_NUM_OPS; op++) {
			for (k = 0; k < NNRANKS; k++) {
				for (s = 0; s < np; s++)
					check_pre(d, op, nranks_list[k], pat[s],
						  a, r, N);
				check_post(d, op, nranks_list[k], a, r, N);
			}
		}
	}
	free(a);
	free(b);
	free(r);
}

/*
 * Values worked out by hand from spec/numerics.md, so that a wrong functor
 * is caught even if the reference were wrong the same way.
 */
static void test_known_values(void **state)
{
	(void)state;
	/* float16: 1 + 1 = 2; AVG and PREMULSUM combine with SUM */
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT16, CS_OP_SUM, 0x3c00, 0x3c00),
			 0x4000);
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT16, CS_OP_AVG, 0x3c00, 0x3c00),
			 0x4000);
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT16, CS_OP_PREMULSUM, 0x3c00,
				     0x3c00), 0x4000);
	/* int8 wraps: 127 + 1 = -128; -128 * -1 = -128; max(-1, 1) = 1 */
	assert_int_equal(cs_gpu_step(CS_DTYPE_INT8, CS_OP_SUM, 0x7f, 0x01), 0x80);
	assert_int_equal(cs_gpu_step(CS_DTYPE_INT8, CS_OP_PROD, 0x80, 0xff), 0x80);
	assert_int_equal(cs_gpu_step(CS_DTYPE_INT8, CS_OP_MAX, 0xff, 0x01), 0x01);
	/* uint8: max(255, 1) = 255 (unsigned compare) */
	assert_int_equal(cs_gpu_step(CS_DTYPE_UINT8, CS_OP_MAX, 0xff, 0x01), 0xff);
	/* float32 max ignores a NaN: max(NaN, 2) = 2, min(-3, NaN) = -3 */
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT32, CS_OP_MAX, 0x7fc00000,
				     0x40000000), 0x40000000);
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT32, CS_OP_MIN, 0xc0400000,
				     0x7fc00000), 0xc0400000);
	/* float8_e4m3: 448 + 448 has no infinity to go to: NaN (0x7f) */
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM, 0x7e, 0x7e),
			 0x7f);
	/* float8_e5m2: 57344 + 57344 overflows to +inf (0x7c) */
	assert_int_equal(cs_gpu_step(CS_DTYPE_FLOAT8_E5M2, CS_OP_SUM, 0x7b, 0x7b),
			 0x7c);
	/* float32 AVG over 4 ranks: each input times 0.25 before the sum */
	assert_int_equal(cs_gpu_pre(CS_DTYPE_FLOAT32, CS_OP_AVG, 4, 0, 0x3f800000),
			 0x3e800000);
	assert_int_equal(cs_gpu_post(CS_DTYPE_FLOAT32, CS_OP_AVG, 4, 0x3f800000),
			 0x3f800000);
	/* int32 AVG: no pre, post divides truncating toward zero: -7 / 2 = -3 */
	assert_int_equal(cs_gpu_pre(CS_DTYPE_INT32, CS_OP_AVG, 2, 0, 0xfffffff9),
			 0xfffffff9);
	assert_int_equal(cs_gpu_post(CS_DTYPE_INT32, CS_OP_AVG, 2, 0xfffffff9),
			 0xfffffffd);
	/* uint8 PREMULSUM: 200 * 2 wraps to 144 */
	assert_int_equal(cs_gpu_pre(CS_DTYPE_UINT8, CS_OP_PREMULSUM, 3, 2, 200),
			 144);
	/* bfloat16 PREMULSUM: 1.5 * -2 = -3 (0xc040) */
	assert_int_equal(cs_gpu_pre(CS_DTYPE_BFLOAT16, CS_OP_PREMULSUM, 2, 0xc000,
				    0x3fc0), 0xc040);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_all_dtype_op),
		cmocka_unit_test(test_pre_post_all_dtype_op),
		cmocka_unit_test(test_known_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
