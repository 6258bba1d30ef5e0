/*
 * backend_gpu.h - the entries of the `gpu` backend (backend_gpu.c:
 * libcsgpu's kernels) and the `gpu-sim` backend (backend_gpusim.c: the
 * same schedules executed on the CPU).
 */
#ifndef CS_BACKEND_GPU_H
#define CS_BACKEND_GPU_H

#include <stddef.h>
#include "collspec/backend.h"

/* libcsgpu's schedules on the CPU, always built (static table). */
const cs_backend_t *cs_backend_gpusim(void);

#ifdef CS_HAVE_CUDA
/* libcsgpu's kernels (static table). */
const cs_backend_t *cs_backend_gpu(void);
#else
/* Built without CUDA: no `gpu` backend. */
static inline const cs_backend_t *cs_backend_gpu(void)
{
	return NULL;
}
#endif

#endif /* CS_BACKEND_GPU_H */
