/*
 * test_gpu_native.cu - the native arithmetic of libcsgpu's kernels
 * (gpu/src/native.cuh) against the shared functors (csref/arith.h's
 * cs_step, which csg_apply and the CPU executor use), bit for bit, on a
 * CUDA device:
 *   float16, bfloat16 SUM and PROD: every one of the 2^32 operand pairs,
 *     scalar (step) and packed (step2, both lanes, operands swapped in the
 *     high lane);
 *   float8 e4m3, e5m2 SUM and PROD: every one of the 2^16 pairs;
 *   float32 SUM (the hardware's add, csgpu/fadd.h): every pair of 4096
 *     operands of every exponent (test_gpu_fadd.c's, on the CPU).
 * PREMULSUM and float AVG pre-multiply through the same PROD natives
 * (csg_arith::pre), so these cover them too.
 * Without a device: prints "SKIP: no CUDA device" and exits 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include <cmocka.h>
}
#include <cuda_runtime.h>
#include "csgpu/device.h"
#include "csref/catalog.h"
#include "native.cuh"

#define NONE (~0ull)

/* What a check kernel found: mismatches and the first (lowest index). */
struct verdict {
	unsigned long long bad;
	unsigned long long first;
};

/* Record pair index i as a mismatch. */
static __device__ void mismatch(verdict *v, unsigned long long i)
{
	atomicAdd(&v->bad, 1ull);
	atomicMin(&v->first, i);
}

/* Every pair (a, b) of 16-bit patterns: i = a << 16 | b. */
template <cs_dtype_t D, cs_op_t S>
static __global__ void check16(verdict *v)
{
	typedef csg_native<D, S> N;
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;

	for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
	     i < (1ull << 32); i += stride) {
		uint16_t a = (uint16_t)(i >> 16), b = (uint16_t)i;
		uint16_t want = (uint16_t)cs_step(D, S, a, b);
		uint16_t want_ba = (uint16_t)cs_step(D, S, b, a);
		uint32_t w = N::step2((uint32_t)a | (uint32_t)b << 16,
				      (uint32_t)b | (uint32_t)a << 16);

		if (N::step(a, b) != want || (uint16_t)w != want ||
		    (uint16_t)(w >> 16) != want_ba)
			mismatch(v, i);
	}
}

/* Every pair (a, b) of 8-bit patterns: i = a << 8 | b. */
template <cs_dtype_t D, cs_op_t S>
static __global__ void check8(verdict *v)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	uint8_t a = (uint8_t)(i >> 8), b = (uint8_t)i;

	if (i < (1u << 16) &&
	    csg_native<D, S>::step(a, b) != (uint8_t)cs_step(D, S, a, b))
		mismatch(v, i);
}

/* float32 operand i < 4096 of the SUM check: exponent i >> 4, one of 8
 * mantissas (both ends, the middle), sign i & 1 (as test_gpu_fadd.c). */
static __host__ __device__ uint32_t f32_operand(unsigned i)
{
	const uint32_t mant[8] = {0, 1, 2, 0x155555, 0x400000, 0x400001,
				  0x7ffffe, 0x7fffff};

	return (uint32_t)(i & 1) << 31 | (uint32_t)(i >> 4) << 23 |
	       mant[i >> 1 & 7];
}

/* Every pair of those operands: i = a << 12 | b. */
static __global__ void check_f32_sum(verdict *v)
{
	typedef csg_native<CS_DTYPE_FLOAT32, CS_OP_SUM> N;
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t a = f32_operand(i >> 12), b = f32_operand(i & 4095);

	if (i < (1u << 24) &&
	    N::step(a, b) != (uint32_t)cs_step(CS_DTYPE_FLOAT32, CS_OP_SUM, a, b))
		mismatch(v, i);
}

/* Run kernel `k` (grid, block) and fail with the first mismatch. */
static void run_check(void (*k)(verdict *), unsigned grid, cs_dtype_t d,
		      cs_op_t op, int bits)
{
	verdict h = {0, NONE}, *dv;

	assert_int_equal(cudaMalloc((void **)&dv, sizeof(h)), cudaSuccess);
	assert_int_equal(cudaMemcpy(dv, &h, sizeof(h), cudaMemcpyHostToDevice),
			 cudaSuccess);
	k<<<grid, 256>>>(dv);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaMemcpy(&h, dv, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	cudaFree(dv);
	if (h.bad) {
		unsigned long long a = h.first >> bits,
				   b = h.first & ((1ull << bits) - 1);

		fail_msg("%s %s: %llu pairs differ from cs_step; first a=0x%llx "
			 "b=0x%llx: cs_step gives 0x%llx",
			 cs_dtype_name(d), cs_op_name(op), h.bad, a, b,
			 (unsigned long long)cs_step(d, op, a, b));
	}
}

template <cs_dtype_t D, cs_op_t S> static void check_pairs16(void)
{
	run_check(check16<D, S>, 8192, D, S, 16);
}

template <cs_dtype_t D, cs_op_t S> static void check_pairs8(void)
{
	run_check(check8<D, S>, (1u << 16) / 256, D, S, 8);
}

static void test_float16(void **state)
{
	(void)state;
	check_pairs16<CS_DTYPE_FLOAT16, CS_OP_SUM>();
	check_pairs16<CS_DTYPE_FLOAT16, CS_OP_PROD>();
}

static void test_bfloat16(void **state)
{
	(void)state;
	check_pairs16<CS_DTYPE_BFLOAT16, CS_OP_SUM>();
	check_pairs16<CS_DTYPE_BFLOAT16, CS_OP_PROD>();
}

static void test_float8(void **state)
{
	(void)state;
	check_pairs8<CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM>();
	check_pairs8<CS_DTYPE_FLOAT8_E4M3, CS_OP_PROD>();
	check_pairs8<CS_DTYPE_FLOAT8_E5M2, CS_OP_SUM>();
	check_pairs8<CS_DTYPE_FLOAT8_E5M2, CS_OP_PROD>();
}

/* float32 SUM's hardware add (csgpu/fadd.h): the pairs of
 * test_gpu_fadd.c, on the device. */
static void test_float32_sum(void **state)
{
	verdict h = {0, NONE}, *dv;

	(void)state;
	assert_int_equal(cudaMalloc((void **)&dv, sizeof(h)), cudaSuccess);
	assert_int_equal(cudaMemcpy(dv, &h, sizeof(h), cudaMemcpyHostToDevice),
			 cudaSuccess);
	check_f32_sum<<<(1u << 24) / 256, 256>>>(dv);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaMemcpy(&h, dv, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	cudaFree(dv);
	if (h.bad) {
		uint32_t a = f32_operand((unsigned)(h.first >> 12)),
			 b = f32_operand((unsigned)(h.first & 4095));

		fail_msg("float32 sum: %llu pairs differ from cs_step; first "
			 "a=0x%08x b=0x%08x: cs_step gives 0x%08x", h.bad,
			 (unsigned)a, (unsigned)b,
			 (unsigned)cs_step(CS_DTYPE_FLOAT32, CS_OP_SUM, a, b));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float32_sum),
		cmocka_unit_test(test_float16),
		cmocka_unit_test(test_bfloat16),
		cmocka_unit_test(test_float8),
	};

	if (cs_gpu_device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
