/*
 * test_gpu_peer.c - the peer-access rule of libcsgpu's worlds (peer.h) on
 * the CPU: a pair already enabled (the second world of a process) is a
 * success and leaves no error for the next cudaGetLastError; any other
 * status is passed on. A fake last-error slot stands for the runtime's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "peer.h"

/* The runtime's last-error slot, as cudaDeviceEnablePeerAccess leaves it. */
static cudaError_t slot;
static int clears;

/* cudaGetLastError's contract: return the slot's error and reset it. */
static cudaError_t fake_get_last_error(void)
{
	cudaError_t e = slot;

	slot = cudaSuccess;
	clears++;
	return e;
}

/* Enable "peer access" with the given status, as the runtime reports it. */
static cudaError_t enable_with(cudaError_t st)
{
	slot = st;
	clears = 0;
	return csg_peer_outcome(st, fake_get_last_error);
}

static void test_already_enabled_is_success_and_cleared(void **state)
{
	(void)state;
	assert_int_equal(enable_with(cudaErrorPeerAccessAlreadyEnabled),
			 cudaSuccess);
	assert_int_equal(clears, 1);
	/* what the next launch check would see */
	assert_int_equal(slot, cudaSuccess);
}

static void test_success_passes_untouched(void **state)
{
	(void)state;
	assert_int_equal(enable_with(cudaSuccess), cudaSuccess);
	assert_int_equal(clears, 0);
}

static void test_other_errors_pass_on(void **state)
{
	(void)state;
	assert_int_equal(enable_with(cudaErrorInvalidDevice),
			 cudaErrorInvalidDevice);
	assert_int_equal(enable_with(cudaErrorPeerAccessUnsupported),
			 cudaErrorPeerAccessUnsupported);
	assert_int_equal(enable_with(cudaErrorTooManyPeers),
			 cudaErrorTooManyPeers);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_already_enabled_is_success_and_cleared),
		cmocka_unit_test(test_success_passes_untouched),
		cmocka_unit_test(test_other_errors_pass_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
