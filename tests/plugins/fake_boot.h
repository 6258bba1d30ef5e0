/*
 * fake_boot.h - a bootstrap for the nccl backend tests, within one process.
 *
 * allgather hands every rank's slot what this rank sends; with
 * other_status set, the other ranks' messages start with that status
 * instead (the first int of the backend's readiness message is its status).
 * broadcast does nothing. Both count their calls.
 */
#ifndef CS_TEST_FAKE_BOOT_H
#define CS_TEST_FAKE_BOOT_H

#include <string.h>
#include <cuda_runtime_api.h>
#include "collspec/backend.h"

struct fake_boot {
	cs_bootstrap_t b;
	int other_status;
	int allgathers, broadcasts;
};

static int fake_allgather(void *ctx, const void *send, void *recv,
			  size_t bytes)
{
	struct fake_boot *f = ctx;
	char *slot;
	int q;

	for (q = 0; q < f->b.nranks; q++) {
		slot = (char *)recv + (size_t)q * bytes;
		memcpy(slot, send, bytes);
		if (q != f->b.rank && f->other_status && bytes >= sizeof(int))
			memcpy(slot, &f->other_status, sizeof(int));
	}
	f->allgathers++;
	return 0;
}

static int fake_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
	struct fake_boot *f = ctx;

	(void)buf;
	(void)bytes;
	(void)root;
	f->broadcasts++;
	return 0;
}

static void fake_boot_init(struct fake_boot *f, int rank, int nranks)
{
	memset(f, 0, sizeof *f);
	f->b.struct_size = sizeof f->b;
	f->b.rank = rank;
	f->b.nranks = nranks;
	f->b.ctx = f;
	f->b.allgather = fake_allgather;
	f->b.broadcast = fake_broadcast;
}

/* CUDA devices visible here; 0 without a device or a driver. */
static int device_count(void)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n;
}

#endif /* CS_TEST_FAKE_BOOT_H */
