/*
 * devmem.h - the CUDA device memory the harness gives to backends that
 * declare CS_MEM_CUDA: device count, allocation, copies and streams.
 *
 * Built from devmem.c (CUDA runtime API, plain C) when CMake finds CUDA
 * (CS_HAVE_CUDA); otherwise the stubs below say that there is no device,
 * so every case of such a backend is a SKIP with the reason
 * CS_NODEV_REASON.
 *
 * Every function takes the device it works on and leaves the calling
 * thread's current device as it found it. Pointers are device pointers
 * unless named host.
 */
#ifndef CS_DEVMEM_H
#define CS_DEVMEM_H

#include <stddef.h>
#include "csref/status.h"

/* The SKIP reason of every case of a device-memory backend without one. */
#define CS_NODEV_REASON "no CUDA device"

#ifdef CS_HAVE_CUDA

/* The whole SKIP reason the harness gives. */
#define CS_NODEV_SKIP CS_NODEV_REASON

/* Devices this process sees; 0 when there is none or no usable driver. */
int cs_dev_count(void);

/* The calling thread's current device (the one a backend selected). */
cs_status_t cs_dev_current(int *dev);

/* bytes of device memory on dev into *out (freed with cs_dev_free). */
cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out);
void cs_dev_free(int dev, void *p);

/* Synchronous copies of bytes between host and device memory on dev. */
cs_status_t cs_dev_put(int dev, void *dst, const void *host, size_t bytes);
cs_status_t cs_dev_get(int dev, void *host, const void *src, size_t bytes);

/* A stream on dev, as the void * the backend ABI passes (cudaStream_t). */
cs_status_t cs_dev_stream_create(int dev, void **stream);
void cs_dev_stream_destroy(int dev, void *stream);

#else /* built without CUDA: no device, every request refused */

#define CS_NODEV_SKIP CS_NODEV_REASON " (this collspec was built without CUDA)"

static inline int cs_dev_count(void)
{
	return 0;
}

static inline cs_status_t cs_dev_current(int *dev)
{
	*dev = -1;
	return cs_error(CS_ERR_UNSUPPORTED, CS_NODEV_REASON " (this collspec "
			"was built without CUDA)");
}

static inline cs_status_t cs_dev_alloc(int dev, size_t bytes, void **out)
{
	(void)dev;
	(void)bytes;
	*out = NULL;
	return cs_dev_current(&dev);
}

static inline void cs_dev_free(int dev, void *p)
{
	(void)dev;
	(void)p;
}

static inline cs_status_t cs_dev_put(int dev, void *dst, const void *host,
				     size_t bytes)
{
	(void)dst;
	(void)host;
	(void)bytes;
	return cs_dev_current(&dev);
}

static inline cs_status_t cs_dev_get(int dev, void *host, const void *src,
				     size_t bytes)
{
	(void)host;
	(void)src;
	(void)bytes;
	return cs_dev_current(&dev);
}

static inline cs_status_t cs_dev_stream_create(int dev, void **stream)
{
	*stream = NULL;
	return cs_dev_current(&dev);
}

static inline void cs_dev_stream_destroy(int dev, void *stream)
{
	(void)dev;
	(void)stream;
}

#endif /* CS_HAVE_CUDA */
#endif /* CS_DEVMEM_H */
