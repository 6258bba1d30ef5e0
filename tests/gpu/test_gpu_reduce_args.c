/*
 * test_gpu_reduce_args.c - the host entry points of libcsgpu on any
 * machine: argument checks (made before CUDA is touched), CUDA error
 * mapping, and, where there is no device, a clean "unsupported" instead of
 * a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csgpu/device.h"
#include "csgpu/reduce.h"

/* Never dereferenced: every call below fails its argument checks first. */
static uint64_t fake[4];

static void test_rejects_bad_arguments(void **state)
{
	char *p = (char *)fake;

	(void)state;
	assert_int_equal(cs_gpu_reduce_bufs(CS_NUM_DTYPES, CS_OP_SUM, p, p, 1, 0),
			 CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "dtype"));
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_INT8, CS_NUM_OPS, p, p, 1, 0),
			 CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "op"));
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_FLOAT32, CS_OP_SUM, NULL, p,
					    1, 0), CS_ERR_INVALID);
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_FLOAT32, CS_OP_SUM, p, NULL,
					    1, 0), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "NULL"));
	/* one byte off a 4-byte element, on either side */
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_FLOAT32, CS_OP_SUM, p + 1, p,
					    1, 0), CS_ERR_INVALID);
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_INT64, CS_OP_MAX, p, p + 4, 1,
					    0), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "aligned"));
}

static void test_zero_count_does_nothing(void **state)
{
	(void)state;
	/* count 0 is legal, with any pointers, and launches nothing */
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_BFLOAT16, CS_OP_AVG, NULL,
					    NULL, 0, 0), CS_OK);
}

static void test_error_mapping(void **state)
{
	(void)state;
	assert_int_equal(cs_gpu_error(cudaSuccess, "x"), CS_OK);
	assert_int_equal(cs_gpu_error(cudaErrorNoDevice, "device query"),
			 CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "device query failed"));
	assert_non_null(strstr(cs_last_error(), "cudaErrorNoDevice"));
	assert_int_equal(cs_gpu_error(cudaErrorInsufficientDriver, "x"),
			 CS_ERR_UNSUPPORTED);
	assert_int_equal(cs_gpu_error(cudaErrorInvalidValue, "x"),
			 CS_ERR_INVALID);
	assert_int_equal(cs_gpu_error(cudaErrorMemoryAllocation, "x"),
			 CS_ERR_NOMEM);
	assert_int_equal(cs_gpu_error(cudaErrorIllegalAddress, "x"),
			 CS_ERR_INTERNAL);
}

/* Without a device, a well-formed call reports "unsupported" (and never
 * touches the pointers); with one, this check does not apply. */
static void test_no_device_is_unsupported(void **state)
{
	int n = cs_gpu_device_count();

	(void)state;
	assert_true(n >= 0);
	if (n > 0)
		skip();
	assert_int_equal(cs_gpu_reduce_bufs(CS_DTYPE_FLOAT32, CS_OP_SUM, fake,
					    fake + 2, 4, 0), CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "reduce kernel launch"));
	/* and the failure is not left behind for the next CUDA call */
	assert_int_equal(cs_gpu_device_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejects_bad_arguments),
		cmocka_unit_test(test_zero_count_does_nothing),
		cmocka_unit_test(test_error_mapping),
		cmocka_unit_test(test_no_device_is_unsupported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
