/* device.cu - device discovery and CUDA error mapping (see csgpu/device.h). */
#include <cuda_runtime_api.h>
#include "csgpu/device.h"

int cs_gpu_device_count(void)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);

	if (err != cudaSuccess) {
		(void)cudaGetLastError(); /* do not leave it for the next call */
		return 0;
	}
	return n;
}

static cs_status_t cs_gpu_status_of(cudaError_t err)
{
	switch (err) {
	case cudaSuccess:
		return CS_OK;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInitializationError:
	case cudaErrorNoKernelImageForDevice:
		return CS_ERR_UNSUPPORTED;
	case cudaErrorInvalidValue:
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
	return cs_error(cs_gpu_status_of(err), "%s failed: %s (%s)",
			what ? what : "CUDA call", cudaGetErrorString(err),
			cudaGetErrorName(err));
}
