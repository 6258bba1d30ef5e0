/*
 * bench_gpu.h - the device pieces of bench_gpu that are not libcsgpu's:
 * a plain copy kernel (the copy-bandwidth yardstick) and NCCL's allreduce
 * across the local GPUs (the busbw yardstick).
 *
 * Plain C. Built only with CUDA (bench/CMakeLists.txt); the NCCL part only
 * when CS_HAVE_NCCL, and otherwise stubs that refuse with
 * CS_ERR_UNSUPPORTED ("built without NCCL"). Streams are cudaStream_t
 * passed as void *, as in csgpu/device.h.
 */
#ifndef CS_BENCH_GPU_H
#define CS_BENCH_GPU_H

#include <stddef.h>
#include "cs_catalog.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Queue dst[0..bytes) = src[0..bytes) as one kernel on `stream` of the
 * calling thread's current device, which must hold both buffers; blocks:
 * the grid size (e.g. a few per SM), 1 or more. 16-byte loads and stores
 * when both pointers are 16-byte aligned, byte by byte otherwise and for
 * the tail. CS_OK once launched; a launch error as cs_gpu_error gives it.
 */
cs_status_t gb_copy_kernel(void *dst, const void *src, size_t bytes,
			   int blocks, void *stream);

/* NCCL's communicators over devices 0..ndev-1, one rank per device. */
typedef struct gb_nccl gb_nccl_t;

#ifdef CS_HAVE_NCCL

/*
 * Make the communicators (ncclCommInitAll, rank i on device i) into *out;
 * the caller frees them with gb_nccl_close. CS_ERR_INVALID for ndev < 1,
 * CS_ERR_UNSUPPORTED (NCCL's message) when NCCL fails.
 */
cs_status_t gb_nccl_open(int ndev, gb_nccl_t **out);

/*
 * Queue one sum allreduce of count elements of dtype on every rank (one
 * NCCL group): rank i reads send[i] and writes recv[i], both on device i,
 * on stream[i]. CS_ERR_UNSUPPORTED for a dtype this NCCL lacks (fp8) or a
 * failed NCCL call, naming it.
 */
cs_status_t gb_nccl_allreduce(gb_nccl_t *g, cs_dtype_t dtype, size_t count,
			      const void *const *send, void *const *recv,
			      void *const *stream);

/* Free the communicators; NULL is ignored. */
void gb_nccl_close(gb_nccl_t *g);

#else /* no NCCL: nothing to compare with */

static inline cs_status_t gb_nccl_open(int ndev, gb_nccl_t **out)
{
	(void)ndev;
	if (out)
		*out = NULL;
	return cs_error(CS_ERR_UNSUPPORTED, "built without NCCL");
}

static inline cs_status_t gb_nccl_allreduce(gb_nccl_t *g, cs_dtype_t dtype,
					    size_t count,
					    const void *const *send,
					    void *const *recv,
					    void *const *stream)
{
	(void)g;
	(void)dtype;
	(void)count;
	(void)send;
	(void)recv;
	(void)stream;
	return cs_error(CS_ERR_UNSUPPORTED, "built without NCCL");
}

static inline void gb_nccl_close(gb_nccl_t *g)
{
	(void)g;
}

#endif /* CS_HAVE_NCCL */

#ifdef __cplusplus
}
#endif
#endif /* CS_BENCH_GPU_H */
