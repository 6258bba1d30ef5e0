/*
 * bench_gpu_copy.cu - the plain copy kernel bench_gpu measures the
 * device's copy bandwidth with, next to cudaMemcpyAsync (bench_gpu.h).
 * Nothing but loads and stores: what a memory-bound collective kernel can
 * at best reach on the same device.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include "csgpu/device.h"
#include "bench_gpu.h"

enum {
	GB_COPY_THREADS = 512, /* threads per block */
	GB_COPY_UNROLL = 4     /* 16-byte loads in flight per thread */
};

/* dst[i] = src[i] for i < n 16-byte words: a grid-stride loop that issues
 * GB_COPY_UNROLL loads before their stores. */
static __global__ void gb_copy16(uint4 *dst, const uint4 *src, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint4 v[GB_COPY_UNROLL];
	int u;

	for (; i + (GB_COPY_UNROLL - 1) * stride < n;
	     i += GB_COPY_UNROLL * stride) {
#pragma unroll
		for (u = 0; u < GB_COPY_UNROLL; u++)
			v[u] = src[i + u * stride];
#pragma unroll
		for (u = 0; u < GB_COPY_UNROLL; u++)
			dst[i + u * stride] = v[u];
	}
	for (; i < n; i += stride)
		dst[i] = src[i];
}

/* dst[i] = src[i] for i < n bytes (unaligned buffers, and the tail). */
static __global__ void gb_copy1(unsigned char *dst, const unsigned char *src,
				size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		dst[i] = src[i];
}

extern "C" cs_status_t gb_copy_kernel(void *dst, const void *src,
				      size_t bytes, int blocks, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	size_t words = 0;

	if ((!dst || !src) && bytes)
		return cs_error(CS_ERR_INVALID, "gb_copy_kernel: NULL buffer");
	if (blocks < 1)
		return cs_error(CS_ERR_INVALID, "gb_copy_kernel: %d blocks",
				blocks);
	if (!bytes)
		return CS_OK;
	if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0) {
		words = bytes / 16;
		if (words)
			gb_copy16<<<blocks, GB_COPY_THREADS, 0, s>>>(
				(uint4 *)dst, (const uint4 *)src, words);
	}
	if (bytes > words * 16)
		gb_copy1<<<blocks, GB_COPY_THREADS, 0, s>>>(
			(unsigned char *)dst + words * 16,
			(const unsigned char *)src + words * 16,
			bytes - words * 16);
	return cs_gpu_error(cudaGetLastError(), "copy kernel launch");
}
