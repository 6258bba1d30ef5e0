/*
 * test_fp8_nccl_cuda.cu - the float8 model of nccl_fp8_model.c against
 * CUDA's own definitions, compiled by nvcc as host code (no device
 * needed): for every pair of bit patterns of both formats, NCCL's step
 * expressions of src/device/reduce_kernel.h, e.g.
 * __nv_fp8_e4m3(__hadd(__half(x), __half(y))), built from the host
 * implementations in cuda_fp16.hpp and cuda_fp8.hpp, give the model's bits
 * (any NaN for a NaN); so does the AVG scalar of src/enqueue.cc for P up
 * to 2^20.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
extern "C" {
#include <cmocka.h>
}
#include "nccl_fp8_model.h"

template <typename F> static uint8_t bits(F f)
{
	uint8_t b;

	memcpy(&b, &f, 1);
	return b;
}

template <typename F> static F from_bits(uint8_t b)
{
	F f;

	memcpy(&f, &b, 1);
	return f;
}

/* NCCL's four step expressions on x and y, as bits. */
template <typename F> static void nccl_steps(uint8_t a, uint8_t b, uint8_t r[4])
{
	__half x = __half(from_bits<F>(a)), y = __half(from_bits<F>(b));

	r[0] = bits(F(__hadd(x, y)));
	r[1] = bits(F(__hmul(x, y)));
	r[2] = bits(F(__hmax(x, y)));
	r[3] = bits(F(__hmin(x, y)));
}

template <typename F> static void check_format(cs_dtype_t d)
{
	static const cs_op_t ops[4] = {CS_OP_SUM, CS_OP_PROD, CS_OP_MAX, CS_OP_MIN};
	int a, b, k;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			uint8_t r[4];
			nccl_steps<F>((uint8_t)a, (uint8_t)b, r);
			for (k = 0; k < 4; k++) {
				uint8_t m = ncclm_step(d, ops[k], (uint8_t)a, (uint8_t)b);
				double vr = ncclm_value(d, r[k]), vm = ncclm_value(d, m);
				if (r[k] != m && !(vr != vr && vm != vm))
					fail_msg("%s op %d: %02x %02x: cuda %02x, model %02x",
						 d == CS_DTYPE_FLOAT8_E4M3 ? "e4m3" : "e5m2",
						 k, a, b, r[k], m);
			}
		}
}

static void test_steps(void **state)
{
	(void)state;
	check_format<__nv_fp8_e4m3>(CS_DTYPE_FLOAT8_E4M3);
	check_format<__nv_fp8_e5m2>(CS_DTYPE_FLOAT8_E5M2);
}

static void test_avg_scalar(void **state)
{
	int P;

	(void)state;
	for (P = 1; P <= 1 << 20; P++) {
		float c = float(1.0 / P);
		assert_int_equal(__nv_cvt_float_to_fp8(c, __NV_SATFINITE, __NV_E4M3),
				 ncclm_avg_scalar(CS_DTYPE_FLOAT8_E4M3, P));
		assert_int_equal(__nv_cvt_float_to_fp8(c, __NV_SATFINITE, __NV_E5M2),
				 ncclm_avg_scalar(CS_DTYPE_FLOAT8_E5M2, P));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_avg_scalar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
