/*
 * test_gpu_device.c - libcsgpu's device layer (csgpu/device.h) on any
 * machine: the rank-to-device rule of all-ranks-in-one-process runs, and
 * the no-device path, where every request is refused with
 * CS_ERR_UNSUPPORTED and a message naming "no CUDA device".
 *
 * Built twice: against libcsgpu (CS_HAVE_CUDA; CTest runs it with every
 * device hidden, CUDA_VISIBLE_DEVICES=-1, so that it tests the no-device
 * path on a machine with a GPU too), and against the no-CUDA stubs of the
 * header (test_gpu_device_stubs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csgpu/device.h"

/* ---- the rank-to-device rule ------------------------------------------------ */

/*
 * Deal ranks 0, 1, 2, ... to ndev devices like cards, one each in turn:
 * rank r gets the device the dealer is at. cs_dev_of_rank must agree, for
 * fewer, as many and more ranks than devices.
 */
static void test_of_rank_deals_round_robin(void **state)
{
	int ndev, rank, dealer;

	(void)state;
	for (ndev = 1; ndev <= 9; ndev++) {
		dealer = 0;
		for (rank = 0; rank < 40; rank++) {
			assert_int_equal(cs_dev_of_rank(rank, ndev), dealer);
			dealer = dealer + 1 == ndev ? 0 : dealer + 1;
		}
	}
}

/* With P ranks on n devices, the first min(P, n) ranks each have a device
 * of their own, and no device carries more than ceil(P / n) ranks. */
static void test_of_rank_shares_evenly(void **state)
{
	int load[8], seen[8];
	int n, P, r, d;

	(void)state;
	for (n = 1; n <= 8; n++) {
		for (P = 1; P <= 24; P++) {
			memset(load, 0, sizeof load);
			memset(seen, 0, sizeof seen);
			for (r = 0; r < P; r++) {
				d = cs_dev_of_rank(r, n);
				assert_in_range(d, 0, n - 1);
				if (r < n) {
					assert_int_equal(seen[d], 0);
					seen[d] = 1;
				}
				load[d]++;
			}
			for (d = 0; d < n; d++)
				assert_true(load[d] <= (P + n - 1) / n);
		}
	}
}

static void test_of_rank_without_devices(void **state)
{
	(void)state;
	assert_int_equal(cs_dev_of_rank(0, 0), -1);
	assert_int_equal(cs_dev_of_rank(3, 0), -1);
	assert_int_equal(cs_dev_of_rank(3, -2), -1);
	assert_int_equal(cs_dev_of_rank(-1, 4), -1);
	assert_int_equal(cs_dev_of_rank(-4, 4), -1); /* -4 % 4 is 0 in C */
}

/* ---- no device ------------------------------------------------------------- */

/* A message that any refusal below must replace. */
static void stale_error(void)
{
	(void)cs_error(CS_ERR_IO, "stale message from an earlier call");
}

/* st is the no-device refusal: CS_ERR_UNSUPPORTED, with a fresh message
 * that starts with CS_NODEV_REASON. */
static void assert_nodev(cs_status_t st)
{
	assert_int_equal(st, CS_ERR_UNSUPPORTED);
	assert_int_equal(strncmp(cs_last_error(), CS_NODEV_REASON,
				 strlen(CS_NODEV_REASON)), 0);
	assert_string_equal(CS_NODEV_REASON, "no CUDA device");
}

static void test_no_device_counts_none(void **state)
{
	int n = 7;

	(void)state;
	assert_int_equal(cs_dev_count(), 0);
	assert_int_equal(cs_gpu_device_count(), 0);
	stale_error();
	assert_nodev(cs_dev_find(&n));
	assert_int_equal(n, 0);
	/* the failure is not left behind for the next call */
	assert_int_equal(cs_dev_count(), 0);
}

static void test_no_device_refuses_every_request(void **state)
{
	unsigned char host[16] = { 1, 2, 3 };
	void *p = host, *stream = host;
	int dev = 5;

	(void)state;
	stale_error();
	assert_nodev(cs_dev_current(&dev));
	assert_int_equal(dev, -1);
	stale_error();
	assert_nodev(cs_dev_set(0));
	stale_error();
	assert_nodev(cs_dev_alloc(0, sizeof host, &p));
	assert_null(p);
	stale_error();
	assert_nodev(cs_dev_put(0, host, host, sizeof host));
	stale_error();
	assert_nodev(cs_dev_get(0, host, host, sizeof host));
	stale_error();
	assert_nodev(cs_dev_stream_create(0, &stream));
	assert_null(stream);
	stale_error();
	assert_nodev(cs_dev_sync(0, NULL));
	/* nothing to free: a no-op, not a crash */
	cs_dev_free(0, NULL);
	cs_dev_stream_destroy(0, NULL);
	/* the copies did not touch the host buffer */
	assert_int_equal(host[0], 1);
	assert_int_equal(host[2], 3);
}

/* The harness's SKIP reason names the missing device, and says why in a
 * build without CUDA. */
static void test_skip_reason(void **state)
{
	(void)state;
	assert_int_equal(strncmp(CS_NODEV_SKIP, "no CUDA device", 14), 0);
#ifndef CS_HAVE_CUDA
	assert_non_null(strstr(CS_NODEV_SKIP, "built without CUDA"));
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_of_rank_deals_round_robin),
		cmocka_unit_test(test_of_rank_shares_evenly),
		cmocka_unit_test(test_of_rank_without_devices),
		cmocka_unit_test(test_no_device_counts_none),
		cmocka_unit_test(test_no_device_refuses_every_request),
		cmocka_unit_test(test_skip_reason),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
