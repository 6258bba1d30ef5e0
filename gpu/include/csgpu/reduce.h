/*
 * reduce.h - buffer-level reduction on a CUDA device: the GPU counterpart
 * of cs_reduce_bufs (csref/reduce.h), with the same element arithmetic
 * (csgpu/functor.h over csref/arith.h), hence the same bits.
 *
 * Plain C; the kernels themselves are instantiated for every catalog dtype
 * and op in gpu/src/reduce_kernels.cu.
 */
#ifndef CSGPU_REDUCE_H
#define CSGPU_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "cs_catalog.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * d_inout[i] = d_inout[i] STEP d_in[i] for i < n, on the device, where
 * STEP = cs_step_op(op) (AVG and PREMULSUM combine with SUM), bit for bit
 * what cs_reduce_bufs computes on the host.
 *
 * d_inout and d_in are device pointers to n elements of dtype d, aligned
 * to the element size; they may be equal, otherwise they must not
 * overlap. The work is queued on `stream` (0: the default stream) and runs
 * asynchronously: the buffers belong to the kernel until the stream is
 * synchronised, and errors of the kernel's execution show there, not here.
 *
 * Returns CS_OK once the kernel is queued (n == 0 queues nothing);
 * CS_ERR_INVALID for a dtype or op outside the catalog, or a NULL buffer
 * with n > 0; the status of cs_gpu_error() when the launch fails (e.g.
 * CS_ERR_UNSUPPORTED when there is no device).
 */
cs_status_t cs_gpu_reduce_bufs(cs_dtype_t d, cs_op_t op, void *d_inout,
			       const void *d_in, size_t n,
			       cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_REDUCE_H */
