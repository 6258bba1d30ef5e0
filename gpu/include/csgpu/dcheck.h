/*
 * dcheck.h - the value check where the data is, on the device
 * (gpu/src/dcheck.cu): csref/dcheck.h's per-thread function launched as a
 * grid on a receive buffer in device memory, the result merged as the CPU
 * grid executor merges it (cs_dcheck_grid_host). Plain C; without CUDA a
 * stub that refuses (CS_NODEV_REASON), so the caller checks on the host.
 */
#ifndef CSGPU_DCHECK_H
#define CSGPU_DCHECK_H

#include <stdint.h>
#include "csref/dcheck.h"
#include "csref/status.h"
#include "csgpu/device.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef CS_HAVE_CUDA
/*
 * Elements [lo, lo+n) of dgot (device pointer to element 0 of the receive
 * range, on device dev) checked against d by a grid of B blocks of T
 * threads (T <= CS_DCHECK_THREADS) on `stream`, waited for; the merged
 * result into *r (host). CS_OK, or the CUDA error as a status (r then
 * holds nothing).
 */
cs_status_t cs_dev_dcheck(int dev, void *stream, const cs_dcheck_desc_t *d,
			  const void *dgot, uint64_t lo, uint64_t n,
			  uint64_t B, uint64_t T, cs_dcheck_res_t *r);
#else
static inline cs_status_t cs_dev_dcheck(int dev, void *stream,
					const cs_dcheck_desc_t *d,
					const void *dgot, uint64_t lo,
					uint64_t n, uint64_t B, uint64_t T,
					cs_dcheck_res_t *r)
{
	(void)dev, (void)stream, (void)d, (void)dgot, (void)lo, (void)n;
	(void)B, (void)T, (void)r;
	return cs_dev_find(NULL);
}
#endif

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_DCHECK_H */
