/*
 * devmem.c - device memory for CS_MEM_CUDA backends over the CUDA runtime
 * API (devmem.h). Compiled only when CMake finds CUDA.
 */
#include <cuda_runtime_api.h>
#include "devmem.h"

/* CS_OK, or an error naming the call and CUDA's message; the sticky last
 * error is cleared so that the backend does not see it again. */
static cs_status_t cuda_status(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return CS_OK;
	(void)cudaGetLastError();
	return cs_error(e == cudaErrorMemoryAllocation ? CS_ERR_NOMEM
			: CS_ERR_UNSUPPORTED, "%s failed: %s (%s)", call,
			cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Make dev current, remembering the one that was (*old). */
static cs_status_t enter(int dev, int *old)
{
	cs_status_t st = cuda_status(cudaGetDevice(old), "cudaGetDevice");

	if (st == CS_OK && *old != dev)
		st = cuda_status(cudaSetDevice(dev), "cudaSetDevice");
	return st;
}

static void leave(int dev, int old)
{
	if (old != dev)
		(void)cuda_status(cudaSetDevice(old), "cudaSetDevice");
}

int cs_dev_count(void)
{
	int n = 0;

	if (cuda_status(cudaGetDeviceCount(&n), "cudaGetDeviceCount") != CS_OK)
		return 0;
	return n;
}

cs_status_t cs_dev_current(int *dev)
{
	if (!dev)
		return cs_error(CS_ERR_INVALID, "cs_dev_current: NULL");
	return cuda_status(cudaGetDevice(dev), "cudaGetDevice");
}

cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out)
{
	cs_status_t st;
	int old = dev;

	if (!out)
		return cs_error(CS_ERR_INVALID, "cs_dev_alloc: NULL");
	*out = NULL;
	if ((st = enter(dev, &old)) != CS_OK)
		return st;
	st = cuda_status(cudaMalloc(out, bytes ? bytes : 1), "cudaMalloc");
	if (st != CS_OK)
		st = cs_error(st, "cannot allocate %zu bytes on CUDA device %d: "
			      "%s", bytes, dev, cs_last_error());
	leave(dev, old);
	return st;
}

void cs_dev_free(int dev, void *p)
{
	int old = dev;

	if (!p || enter(dev, &old) != CS_OK)
		return;
	(void)cuda_status(cudaFree(p), "cudaFree");
	leave(dev, old);
}

cs_status_t cs_dev_put(int dev, void *dst, const void *host, size_t bytes)
{
	cs_status_t st;
	int old = dev;

	if ((st = enter(dev, &old)) != CS_OK)
		return st;
	st = cuda_status(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice),
			 "cudaMemcpy (host to device)");
	leave(dev, old);
	return st;
}

cs_status_t cs_dev_get(int dev, void *host, const void *src, size_t bytes)
{
	cs_status_t st;
	int old = dev;

	if ((st = enter(dev, &old)) != CS_OK)
		return st;
	st = cuda_status(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost),
			 "cudaMemcpy (device to host)");
	leave(dev, old);
	return st;
}

cs_status_t cs_dev_stream_create(int dev, void **stream)
{
	cudaStream_t s = NULL;
	cs_status_t st;
	int old = dev;

	if (!stream)
		return cs_error(CS_ERR_INVALID, "cs_dev_stream_create: NULL");
	*stream = NULL;
	if ((st = enter(dev, &old)) != CS_OK)
		return st;
	/* a blocking stream: ordered with the synchronous copies around it */
	st = cuda_status(cudaStreamCreate(&s), "cudaStreamCreate");
	if (st == CS_OK)
		*stream = s;
	leave(dev, old);
	return st;
}

void cs_dev_stream_destroy(int dev, void *stream)
{
	int old = dev;

	if (!stream || enter(dev, &old) != CS_OK)
		return;
	(void)cuda_status(cudaStreamDestroy((cudaStream_t)stream),
			  "cudaStreamDestroy");
	leave(dev, old);
}
