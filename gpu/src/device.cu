/*
 * device.cu - the CUDA device layer of libcsgpu over the CUDA runtime API
 * (csgpu/device.h): device discovery, device memory, copies, streams and
 * the mapping of CUDA errors to CollSpec statuses. Host code only.
 *
 * Every call on a device first checks that the device exists, so that a
 * machine without one gets "no CUDA device ..." (CS_ERR_UNSUPPORTED) from
 * every function, whatever CUDA itself would have said first.
 */
#include <cuda_runtime_api.h>
#include "csgpu/device.h"

/* ---- errors ---------------------------------------------------------------- */

static cs_status_t cs_gpu_status_of(cudaError_t err)
{
	switch ((int)err) { /* int: CUDA's own enum, a few codes mapped */
	case cudaSuccess:
		return CS_OK;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInitializationError:
	case cudaErrorNoKernelImageForDevice:
		return CS_ERR_UNSUPPORTED;
	case cudaErrorInvalidValue:
	case cudaErrorInvalidDevice:
	case cudaErrorInvalidDevicePointer:
	case cudaErrorInvalidConfiguration:
		return CS_ERR_INVALID;
	case cudaErrorMemoryAllocation:
		return CS_ERR_NOMEM;
	default:
		return CS_ERR_INTERNAL;
	}
}

cs_status_t cs_gpu_error(cudaError_t err, const char *what)
{
	if (err == cudaSuccess)
		return CS_OK;
	(void)cudaGetLastError(); /* do not leave it for the next call */
	return cs_error(cs_gpu_status_of(err), "%s failed: %s (%s)",
			what ? what : "CUDA call", cudaGetErrorString(err),
			cudaGetErrorName(err));
}

/* ---- devices --------------------------------------------------------------- */

cs_status_t cs_dev_find(int *n)
{
	cudaError_t err;
	int found = 0;

	if (!n)
		return cs_error(CS_ERR_INVALID, "cs_dev_find: NULL");
	*n = 0;
	err = cudaGetDeviceCount(&found);
	if (err != cudaSuccess) {
		(void)cudaGetLastError();
		return cs_error(CS_ERR_UNSUPPORTED, CS_NODEV_REASON " "
				"(cudaGetDeviceCount: %s, %s)",
				cudaGetErrorString(err), cudaGetErrorName(err));
	}
	if (found < 1)
		return cs_error(CS_ERR_UNSUPPORTED, CS_NODEV_REASON
				" (cudaGetDeviceCount found none)");
	*n = found;
	return CS_OK;
}

int cs_dev_count(void)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);

	if (err != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n > 0 ? n : 0;
}

int cs_gpu_device_count(void)
{
	return cs_dev_count();
}

/* CS_OK when dev is a device of this process; the refusal otherwise. */
static cs_status_t cs_dev_check(int dev)
{
	cs_status_t st;
	int n;

	if ((st = cs_dev_find(&n)) != CS_OK)
		return st;
	if (dev < 0 || dev >= n)
		return cs_error(CS_ERR_INVALID, "CUDA device %d does not exist "
				"(this process sees %d, numbered from 0)", dev, n);
	return CS_OK;
}

cs_status_t cs_dev_current(int *dev)
{
	cs_status_t st;
	int n;

	if (!dev)
		return cs_error(CS_ERR_INVALID, "cs_dev_current: NULL");
	*dev = -1;
	if ((st = cs_dev_find(&n)) != CS_OK)
		return st;
	return cs_gpu_error(cudaGetDevice(dev), "cudaGetDevice");
}

cs_status_t cs_dev_set(int dev)
{
	cs_status_t st = cs_dev_check(dev);

	if (st != CS_OK)
		return st;
	return cs_gpu_error(cudaSetDevice(dev), "cudaSetDevice");
}

/* Make dev current for one call, remembering the one that was (*old). */
static cs_status_t cs_dev_enter(int dev, int *old)
{
	cs_status_t st = cs_dev_check(dev);

	if (st != CS_OK)
		return st;
	if ((st = cs_gpu_error(cudaGetDevice(old), "cudaGetDevice")) != CS_OK)
		return st;
	if (*old == dev)
		return CS_OK;
	return cs_gpu_error(cudaSetDevice(dev), "cudaSetDevice");
}

/* Give the calling thread back the device it had before cs_dev_enter. */
static void cs_dev_leave(int dev, int old)
{
	if (old != dev)
		(void)cs_gpu_error(cudaSetDevice(old), "cudaSetDevice");
}

/* ---- memory and copies ----------------------------------------------------- */

cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out)
{
	cs_status_t st;
	int old = dev;

	if (!out)
		return cs_error(CS_ERR_INVALID, "cs_dev_alloc: NULL");
	*out = NULL;
	if ((st = cs_dev_enter(dev, &old)) != CS_OK)
		return st;
	st = cs_gpu_error(cudaMalloc(out, bytes ? bytes : 1), "cudaMalloc");
	if (st != CS_OK) {
		*out = NULL;
		st = cs_error(st, "cannot allocate %zu bytes on CUDA device %d: "
			      "%s", bytes, dev, cs_last_error());
	}
	cs_dev_leave(dev, old);
	return st;
}

void cs_dev_free(int dev, void *p)
{
	int old = dev;

	if (!p || cs_dev_enter(dev, &old) != CS_OK)
		return;
	(void)cs_gpu_error(cudaFree(p), "cudaFree");
	cs_dev_leave(dev, old);
}

/* One synchronous copy of `kind` on dev. */
static cs_status_t cs_dev_copy(int dev, void *dst, const void *src,
			       size_t bytes, cudaMemcpyKind kind,
			       const char *what)
{
	cs_status_t st;
	int old = dev;

	if (bytes && (!dst || !src))
		return cs_error(CS_ERR_INVALID, "%s: NULL buffer with %zu "
				"bytes", what, bytes);
	if ((st = cs_dev_enter(dev, &old)) != CS_OK)
		return st;
	if (bytes)
		st = cs_gpu_error(cudaMemcpy(dst, src, bytes, kind), what);
	cs_dev_leave(dev, old);
	return st;
}

cs_status_t cs_dev_put(int dev, void *dst, const void *host, size_t bytes)
{
	return cs_dev_copy(dev, dst, host, bytes, cudaMemcpyHostToDevice,
			   "cudaMemcpy (host to device)");
}

cs_status_t cs_dev_get(int dev, void *host, const void *src, size_t bytes)
{
	return cs_dev_copy(dev, host, src, bytes, cudaMemcpyDeviceToHost,
			   "cudaMemcpy (device to host)");
}

/* ---- streams --------------------------------------------------------------- */

cs_status_t cs_dev_stream_create(int dev, void **stream)
{
	cudaStream_t s = NULL;
	cs_status_t st;
	int old = dev;

	if (!stream)
		return cs_error(CS_ERR_INVALID, "cs_dev_stream_create: NULL");
	*stream = NULL;
	if ((st = cs_dev_enter(dev, &old)) != CS_OK)
		return st;
	/* a blocking stream: ordered with the synchronous copies around it */
	st = cs_gpu_error(cudaStreamCreate(&s), "cudaStreamCreate");
	if (st == CS_OK)
		*stream = (void *)s;
	cs_dev_leave(dev, old);
	return st;
}

void cs_dev_stream_destroy(int dev, void *stream)
{
	int old = dev;

	if (!stream || cs_dev_enter(dev, &old) != CS_OK)
		return;
	(void)cs_gpu_error(cudaStreamDestroy((cudaStream_t)stream),
			   "cudaStreamDestroy");
	cs_dev_leave(dev, old);
}

cs_status_t cs_dev_sync(int dev, void *stream)
{
	cs_status_t st;
	int old = dev;

	if ((st = cs_dev_enter(dev, &old)) != CS_OK)
		return st;
	st = cs_gpu_error(cudaStreamSynchronize((cudaStream_t)stream),
			  "cudaStreamSynchronize");
	cs_dev_leave(dev, old);
	return st;
}
