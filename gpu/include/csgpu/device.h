/*
 * device.h - the one CUDA device layer of CollSpec (libcsgpu): which
 * devices this process sees, which device a rank's buffers go on, device
 * memory, copies and streams, and how CUDA errors become CollSpec statuses.
 *
 * Plain C. Built from gpu/src/device.cu when CMake finds CUDA (the target
 * csgpu defines CS_HAVE_CUDA for everything that links it); otherwise the
 * stubs below say that there is no device: every request is refused with
 * CS_ERR_UNSUPPORTED and a message naming CS_NODEV_REASON, so that a
 * device-memory backend's cases are SKIP "no CUDA device".
 *
 * Every function is safe to call on a machine with no GPU or no CUDA
 * driver. Every function that takes a device works on that one and leaves
 * the calling thread's current device as it found it (except cs_dev_set,
 * whose purpose is to change it). Pointers are device pointers unless
 * named host. A stream is a cudaStream_t passed as void *, as the backend
 * ABI passes it; NULL is CUDA's default stream.
 */
#ifndef CSGPU_DEVICE_H
#define CSGPU_DEVICE_H

#include <stddef.h>
#include "csref/status.h"

#ifdef CS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The SKIP reason of every case of a device-memory backend without one;
 * every "no device" message of this layer starts with it. */
#define CS_NODEV_REASON "no CUDA device"

/*
 * The device that rank `rank` of an all-ranks-in-one-process run uses
 * when this process sees ndev devices: rank mod ndev, so that ranks share
 * the devices round-robin when there are fewer devices than ranks (ranks
 * 0..ndev-1 each get their own). -1 when ndev < 1 or rank < 0. Pure; no
 * CUDA call.
 */
static inline int cs_dev_of_rank(int rank, int ndev)
{
	if (ndev < 1 || rank < 0)
		return -1;
	return rank % ndev;
}

#ifdef CS_HAVE_CUDA

/* The whole SKIP reason the harness gives. */
#define CS_NODEV_SKIP CS_NODEV_REASON

/*
 * Number of CUDA devices this process sees into *n (0 when there is none,
 * when the driver is missing or too old, or when CUDA fails to
 * initialise; never a crash). CS_OK when *n >= 1; otherwise
 * CS_ERR_UNSUPPORTED with a message that starts with CS_NODEV_REASON and
 * gives CUDA's own explanation. Clears the CUDA error it may have caused.
 */
cs_status_t cs_dev_find(int *n);

/* Number of CUDA devices this process sees: cs_dev_find's *n, 0 when none
 * (never an error, nothing recorded for cs_last_error). */
int cs_dev_count(void);

/* The same as cs_dev_count (the name libcsgpu's kernels and tests use). */
int cs_gpu_device_count(void);

/* The calling thread's current device (the one a backend selected) into
 * *dev. CS_ERR_UNSUPPORTED ("no CUDA device ...") without a device. */
cs_status_t cs_dev_current(int *dev);

/* Make dev the calling thread's current device. CS_ERR_UNSUPPORTED without
 * a device; CS_ERR_INVALID when dev is not one of the cs_dev_count() ones. */
cs_status_t cs_dev_set(int dev);

/*
 * bytes of device memory on dev into *out (at least one byte is allocated,
 * so that *out is never NULL on success); the caller frees it with
 * cs_dev_free(dev, *out). *out is NULL on failure: CS_ERR_UNSUPPORTED
 * without a device, CS_ERR_INVALID for a device that does not exist,
 * CS_ERR_NOMEM when the device is full.
 */
cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out);

/* Free p, allocated by cs_dev_alloc on dev; NULL is ignored. */
void cs_dev_free(int dev, void *p);

/* Synchronous copies of bytes between host memory and device memory on
 * dev (they wait for the device's earlier work on blocking streams). */
cs_status_t cs_dev_put(int dev, void *dst, const void *host, size_t bytes);
cs_status_t cs_dev_get(int dev, void *host, const void *src, size_t bytes);

/*
 * A new stream on dev into *stream: a blocking one, so ordered with the
 * synchronous copies above. Destroyed with cs_dev_stream_destroy(dev,
 * *stream), which ignores NULL. *stream is NULL on failure.
 */
cs_status_t cs_dev_stream_create(int dev, void **stream);
void cs_dev_stream_destroy(int dev, void *stream);

/* Wait until everything queued on `stream` (a stream of dev, or NULL for
 * dev's default stream) is done; an error of that work is returned. */
cs_status_t cs_dev_sync(int dev, void *stream);

/*
 * Turn the CUDA error `err` of the operation `what` (a short phrase such as
 * "reduce kernel launch"; NULL: "CUDA call") into a status, recording for
 * cs_last_error() a message "<what> failed: <CUDA's description>
 * (<cudaErrorName>)", and clear CUDA's last error so that the next call
 * does not see it again. cudaSuccess gives CS_OK and records nothing; no
 * device or no driver gives CS_ERR_UNSUPPORTED, a bad value or device
 * CS_ERR_INVALID, out of memory CS_ERR_NOMEM, anything else
 * CS_ERR_INTERNAL. Declared only where CUDA's types are (CS_HAVE_CUDA).
 */
cs_status_t cs_gpu_error(cudaError_t err, const char *what);

#else /* built without CUDA: no device, every request refused */

#define CS_NODEV_SKIP CS_NODEV_REASON " (this collspec was built without CUDA)"

static inline cs_status_t cs_dev_find(int *n)
{
	if (n)
		*n = 0;
	return cs_error(CS_ERR_UNSUPPORTED, CS_NODEV_SKIP);
}

static inline int cs_dev_count(void)
{
	return 0;
}

static inline int cs_gpu_device_count(void)
{
	return 0;
}

static inline cs_status_t cs_dev_current(int *dev)
{
	if (dev)
		*dev = -1;
	return cs_dev_find(NULL);
}

static inline cs_status_t cs_dev_set(int dev)
{
	(void)dev;
	return cs_dev_find(NULL);
}

static inline cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out)
{
	(void)dev;
	(void)bytes;
	if (out)
		*out = NULL;
	return cs_dev_find(NULL);
}

static inline void cs_dev_free(int dev, void *p)
{
	(void)dev;
	(void)p;
}

static inline cs_status_t cs_dev_put(int dev, void *dst, const void *host,
				     size_t bytes)
{
	(void)dev;
	(void)dst;
	(void)host;
	(void)bytes;
	return cs_dev_find(NULL);
}

static inline cs_status_t cs_dev_get(int dev, void *host, const void *src,
				     size_t bytes)
{
	(void)dev;
	(void)host;
	(void)src;
	(void)bytes;
	return cs_dev_find(NULL);
}

static inline cs_status_t cs_dev_stream_create(int dev, void **stream)
{
	(void)dev;
	if (stream)
		*stream = NULL;
	return cs_dev_find(NULL);
}

static inline void cs_dev_stream_destroy(int dev, void *stream)
{
	(void)dev;
	(void)stream;
}

static inline cs_status_t cs_dev_sync(int dev, void *stream)
{
	(void)dev;
	(void)stream;
	return cs_dev_find(NULL);
}

#endif /* CS_HAVE_CUDA */

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_DEVICE_H */
