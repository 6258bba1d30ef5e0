/*
 * dcheck.cu - the value check where the data is, on the device
 * (csgpu/dcheck.h): csref/dcheck.h's cs_dcheck_thread for every thread of
 * a grid, each block's threads merged in thread order by its thread 0,
 * the blocks' results merged on the host in block order: the partition
 * and the merges of the CPU grid executor (ref/dcheck.c), which gpu-sim
 * runs and the tests hold to the host oracle.
 */
#include <stdint.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include "csgpu/dcheck.h"
#include "csgpu/device.h"
#include "csref/dcheck.h"

/* One block: every thread's result into shared memory, merged by thread
 * 0 into blk[blockIdx.x]. */
static __global__ void cs_dcheck_kernel(cs_dcheck_desc_t d, const void *got,
					uint64_t lo, uint64_t n,
					cs_dcheck_res_t *blk)
{
	__shared__ cs_dcheck_res_t th[CS_DCHECK_THREADS];
	uint64_t t = threadIdx.x, T = blockDim.x;

	cs_dcheck_res_init(&th[t]);
	cs_dcheck_thread(&d, got, lo, n, blockIdx.x, gridDim.x, t, T, &th[t]);
	__syncthreads();
	if (t != 0)
		return;
	for (uint64_t k = 1; k < T; k++)
		cs_dcheck_res_merge(&th[0], &th[k]);
	blk[blockIdx.x] = th[0];
}

/* The launch on the current device; the blocks' results merged into r. */
static cs_status_t dcheck_launch(cudaStream_t s, const cs_dcheck_desc_t *d,
				 const void *dgot, uint64_t lo, uint64_t n,
				 uint64_t B, uint64_t T, cs_dcheck_res_t *r)
{
	cs_dcheck_res_t *dblk = NULL, *hblk = NULL;
	cs_status_t st;
	uint64_t b;

	hblk = (cs_dcheck_res_t *)malloc(sizeof *hblk * B);
	if (!hblk)
		return cs_error(CS_ERR_NOMEM, "out of memory for the device "
				"check's results");
	st = cs_gpu_error(cudaMalloc((void **)&dblk, sizeof *dblk * B),
			  "device check allocation");
	if (st != CS_OK)
		goto out_free_host;
	cs_dcheck_kernel<<<(unsigned)B, (unsigned)T, 0, s>>>(*d, dgot, lo, n,
							     dblk);
	st = cs_gpu_error(cudaGetLastError(), "device check kernel launch");
	if (st == CS_OK)
		st = cs_gpu_error(cudaMemcpyAsync(hblk, dblk, sizeof *hblk * B,
						  cudaMemcpyDeviceToHost, s),
				  "device check result copy");
	if (st == CS_OK)
		st = cs_gpu_error(cudaStreamSynchronize(s), "device check");
	cudaFree(dblk);
	for (b = 0; st == CS_OK && b < B; b++)
		cs_dcheck_res_merge(r, &hblk[b]);
out_free_host:
	free(hblk);
	return st;
}

cs_status_t cs_dev_dcheck(int dev, void *stream, const cs_dcheck_desc_t *d,
			  const void *dgot, uint64_t lo, uint64_t n,
			  uint64_t B, uint64_t T, cs_dcheck_res_t *r)
{
	int old = 0;
	cs_status_t st;

	cs_dcheck_res_init(r);
	if (B < 1 || T < 1 || T > CS_DCHECK_THREADS || B > 0x7fffffffu)
		return cs_error(CS_ERR_INVALID, "device check: a grid of %llu "
				"blocks of %llu threads", (unsigned long long)B,
				(unsigned long long)T);
	st = cs_gpu_error(cudaGetDevice(&old), "cudaGetDevice");
	if (st == CS_OK)
		st = cs_gpu_error(cudaSetDevice(dev), "cudaSetDevice");
	if (st != CS_OK)
		return st;
	st = dcheck_launch((cudaStream_t)stream, d, dgot, lo, n, B, T, r);
	cudaSetDevice(old);
	return st;
}
