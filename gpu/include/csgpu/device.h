/*
 * device.h - CUDA devices as libcsgpu sees them, and how CUDA errors become
 * CollSpec statuses.
 *
 * Plain C; safe to call on a machine with no GPU or no CUDA driver.
 */
#ifndef CSGPU_DEVICE_H
#define CSGPU_DEVICE_H

#include <cuda_runtime_api.h>
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Number of CUDA devices this process can use: 0 when there is none, when
 * the driver is missing or too old, or when CUDA fails to initialise (never
 * an error, never a crash). Clears the CUDA error it may have caused.
 */
int cs_gpu_device_count(void);

/*
 * Turn the CUDA error `err` of the operation `what` (a short phrase such as
 * "reduce kernel launch") into a status, recording for cs_last_error() a
 * message that names the operation and CUDA's own description. cudaSuccess
 * gives CS_OK and records nothing; no device or no driver gives
 * CS_ERR_UNSUPPORTED, a bad value CS_ERR_INVALID, out of memory
 * CS_ERR_NOMEM, anything else CS_ERR_INTERNAL.
 */
cs_status_t cs_gpu_error(cudaError_t err, const char *what);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_DEVICE_H */
