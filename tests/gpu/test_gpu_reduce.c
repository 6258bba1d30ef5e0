/*
 * test_gpu_reduce.c - cs_gpu_reduce_bufs on a CUDA device, for every
 * catalog dtype x op, out of place and in place, against the host
 * reference cs_reduce_bufs, bit for bit (except that a NaN from float
 * arithmetic may be any NaN: cs_test_same). Also checks that nothing is
 * written outside the output range and that the input is left untouched.
 * Without a device: prints "SKIP: no CUDA device" and exits 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cuda_runtime_api.h>
#include "csgpu/device.h"
#include "csgpu/reduce.h"
#include "csref/catalog.h"
#include "csref/reduce.h"
#include "gpu_test_pairs.h"

/* More elements than 4096 blocks x 256 threads: the grid-stride loop runs
 * more than once, and the count is odd. */
#define N (((size_t)1 << 20) + 4099)
#define GUARD 65 /* elements each side; odd, so the data is not 16-aligned */
#define GUARD_BYTE 0xa5

#define CUDA_OK(call)                                                      \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess)                                     \
			fail_msg("%s: %s", #call, cudaGetErrorString(e_)); \
	} while (0)

struct bufs {
	unsigned char *h_a, *h_b, *h_want, *h_got; /* host, with guards */
	unsigned char *d_a, *d_b;                  /* device, with guards */
	size_t total;                              /* bytes incl. guards */
	cudaStream_t stream;
};

/* Copy host buffer `h` (with its guards) to device buffer `dev`. */
static void upload(const struct bufs *B, unsigned char *dev,
		   const unsigned char *h)
{
	CUDA_OK(cudaMemcpy(dev, h, B->total, cudaMemcpyHostToDevice));
}

/* Fail at the first guard byte that changed, then at the first element
 * that differs: exactly when `exact`, else as cs_test_same allows. */
static void compare(cs_dtype_t d, cs_op_t op, const char *what, int exact,
		    const unsigned char *got, const unsigned char *want,
		    const struct bufs *B)
{
	size_t size = cs_dtype_size(d), g = GUARD * size, i;

	for (i = 0; i < g; i++)
		if (got[i] != want[i] || got[B->total - 1 - i] != want[B->total - 1 - i])
			fail_msg("%s %s %s: a guard byte %zu from the end of the "
				 "buffer changed", what, cs_dtype_name(d),
				 cs_op_name(op), i);
	for (i = 0; i < N; i++) {
		uint64_t x = cs_load(d, got + g, i), y = cs_load(d, want + g, i);

		if (exact ? x == y : cs_test_same(d, op, x, y))
			continue;
		fail_msg("%s %s %s, element %zu: a=0x%llx b=0x%llx: device gave "
			 "0x%llx, host reference 0x%llx", what, cs_dtype_name(d),
			 cs_op_name(op), i,
			 (unsigned long long)cs_load(d, B->h_a + g, i),
			 (unsigned long long)cs_load(d, B->h_b + g, i),
			 (unsigned long long)x, (unsigned long long)y);
	}
}

/* One (dtype, op): out of place (inout = a, in = b), then in place
 * (inout = in = a). The inputs are already in B->h_a and B->h_b. */
static void check_case(cs_dtype_t d, cs_op_t op, struct bufs *B)
{
	size_t g = GUARD * cs_dtype_size(d);

	memcpy(B->h_want, B->h_a, B->total);
	cs_reduce_bufs(d, op, B->h_want + g, B->h_b + g, N);
	upload(B, B->d_a, B->h_a);
	upload(B, B->d_b, B->h_b);
	assert_int_equal(cs_gpu_reduce_bufs(d, op, B->d_a + g, B->d_b + g, N,
					    B->stream), CS_OK);
	CUDA_OK(cudaStreamSynchronize(B->stream));
	CUDA_OK(cudaMemcpy(B->h_got, B->d_a, B->total, cudaMemcpyDeviceToHost));
	compare(d, op, "out of place", 0, B->h_got, B->h_want, B);
	CUDA_OK(cudaMemcpy(B->h_got, B->d_b, B->total, cudaMemcpyDeviceToHost));
	compare(d, op, "input buffer", 1, B->h_got, B->h_b, B);

	memcpy(B->h_want, B->h_a, B->total);
	cs_reduce_bufs(d, op, B->h_want + g, B->h_want + g, N);
	upload(B, B->d_a, B->h_a);
	assert_int_equal(cs_gpu_reduce_bufs(d, op, B->d_a + g, B->d_a + g, N,
					    B->stream), CS_OK);
	CUDA_OK(cudaStreamSynchronize(B->stream));
	CUDA_OK(cudaMemcpy(B->h_got, B->d_a, B->total, cudaMemcpyDeviceToHost));
	compare(d, op, "in place", 0, B->h_got, B->h_want, B);
}

static void test_kernel_all_dtype_op(void **state)
{
	struct bufs B;
	size_t max = (N + 2 * GUARD) * 8;
	int d, op;

	(void)state;
	B.h_a = malloc(max);
	B.h_b = malloc(max);
	B.h_want = malloc(max);
	B.h_got = malloc(max);
	assert_true(B.h_a && B.h_b && B.h_want && B.h_got);
	CUDA_OK(cudaMalloc((void **)&B.d_a, max));
	CUDA_OK(cudaMalloc((void **)&B.d_b, max));
	CUDA_OK(cudaStreamCreate(&B.stream));
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		size_t g = GUARD * cs_dtype_size(d);

		B.total = (N + 2 * GUARD) * cs_dtype_size(d);
		memset(B.h_a, GUARD_BYTE, B.total);
		memset(B.h_b, GUARD_BYTE, B.total);
		cs_test_fill_pairs(d, B.h_a + g, B.h_b + g, N, 4000 + d);
		for (op = 0; op < CS_NUM_OPS; op++)
			check_case(d, op, &B);
	}
	CUDA_OK(cudaStreamDestroy(B.stream));
	CUDA_OK(cudaFree(B.d_a));
	CUDA_OK(cudaFree(B.d_b));
	free(B.h_a);
	free(B.h_b);
	free(B.h_want);
	free(B.h_got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_all_dtype_op),
	};

	if (cs_gpu_device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
