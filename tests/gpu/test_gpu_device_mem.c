/*
 * test_gpu_device_mem.c - libcsgpu's device layer (csgpu/device.h) on the
 * CUDA devices of this machine: memory lands on the device asked for,
 * copies round-trip, streams synchronise, the calling thread's current
 * device is left as it was, and bad devices and sizes are refused.
 *
 * Without a device: prints "SKIP: no CUDA device" and exits 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "csgpu/device.h"

#define NBYTES 4099 /* not a multiple of any vector width */

/* A pattern of NBYTES bytes that differs per device and per byte. */
static void pattern(unsigned char *buf, int dev)
{
	size_t i;

	for (i = 0; i < NBYTES; i++)
		buf[i] = (unsigned char)(i * 131u + (unsigned)dev * 17u + 1u);
}

/* Alloc, put, get back on dev while device `home` is current: the bytes
 * come back, the memory is on dev, and home is still current. */
static void round_trip(int dev, int home)
{
	unsigned char want[NBYTES], got[NBYTES];
	struct cudaPointerAttributes a;
	void *p = NULL;
	int cur = -1;

	pattern(want, dev);
	memset(got, 0, sizeof got);
	assert_int_equal(cs_dev_set(home), CS_OK);
	assert_int_equal(cs_dev_alloc(dev, NBYTES, &p), CS_OK);
	assert_non_null(p);
	assert_int_equal(cudaPointerGetAttributes(&a, p), cudaSuccess);
	assert_int_equal(a.type, cudaMemoryTypeDevice);
	assert_int_equal(a.device, dev);
	assert_int_equal(cs_dev_put(dev, p, want, NBYTES), CS_OK);
	assert_int_equal(cs_dev_get(dev, got, p, NBYTES), CS_OK);
	assert_memory_equal(got, want, NBYTES);
	cs_dev_free(dev, p);
	assert_int_equal(cs_dev_current(&cur), CS_OK);
	assert_int_equal(cur, home);
}

static void test_round_trip_every_device(void **state)
{
	int n = cs_dev_count(), dev;

	(void)state;
	for (dev = 0; dev < n; dev++) {
		round_trip(dev, 0);
		round_trip(dev, n - 1);
	}
}

/* A stream of dev synchronises (with work queued on it) and is freed. */
static void test_streams(void **state)
{
	unsigned char want[NBYTES], got[NBYTES];
	int n = cs_dev_count(), dev;
	void *s = NULL, *p = NULL;

	(void)state;
	for (dev = 0; dev < n; dev++) {
		pattern(want, dev);
		assert_int_equal(cs_dev_stream_create(dev, &s), CS_OK);
		assert_non_null(s);
		assert_int_equal(cs_dev_alloc(dev, NBYTES, &p), CS_OK);
		assert_int_equal(cs_dev_set(dev), CS_OK);
		assert_int_equal(cudaMemcpyAsync(p, want, NBYTES,
						 cudaMemcpyHostToDevice,
						 (cudaStream_t)s), cudaSuccess);
		assert_int_equal(cs_dev_sync(dev, s), CS_OK);
		assert_int_equal(cs_dev_sync(dev, NULL), CS_OK);
		assert_int_equal(cs_dev_get(dev, got, p, NBYTES), CS_OK);
		assert_memory_equal(got, want, NBYTES);
		cs_dev_free(dev, p);
		cs_dev_stream_destroy(dev, s);
	}
}

/* Zero bytes still give a pointer; a device that does not exist and a size
 * no device has are refused with the right status. */
static void test_refusals(void **state)
{
	int n = cs_dev_count();
	void *p = NULL;

	(void)state;
	assert_int_equal(cs_dev_alloc(0, 0, &p), CS_OK);
	assert_non_null(p);
	cs_dev_free(0, p);
	assert_int_equal(cs_dev_set(n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "does not exist"));
	assert_int_equal(cs_dev_set(-1), CS_ERR_INVALID);
	p = &n;
	assert_int_equal(cs_dev_alloc(n, 8, &p), CS_ERR_INVALID);
	assert_null(p);
	assert_int_equal(cs_dev_alloc(0, SIZE_MAX / 2, &p), CS_ERR_NOMEM);
	assert_null(p);
	assert_non_null(strstr(cs_last_error(), "CUDA device 0"));
	assert_int_equal(cs_dev_alloc(0, 8, NULL), CS_ERR_INVALID);
	/* and the failures left nothing behind for the next call */
	assert_int_equal(cs_dev_alloc(0, 8, &p), CS_OK);
	cs_dev_free(0, p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_device),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_refusals),
	};

	if (cs_dev_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
