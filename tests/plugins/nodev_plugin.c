/*
 * nodev_plugin.c - a plugin that declares CUDA device memory but has no
 * device code, for the harness's tests on machines without a device (the
 * tests hide every device with CUDA_VISIBLE_DEVICES=-1).
 *
 * Without a device the harness must report every case SKIP "no CUDA
 * device" and call nothing of the plugin but the entry point: each
 * function here aborts with a message saying that it should not have been
 * called, which the driver would report as a crash. Built twice: one rank
 * per process, and all ranks in one process (NODEV_INPROC=1).
 */
#include <stdio.h>
#include <stdlib.h>
#include "collspec/backend.h"

#ifndef NODEV_INPROC
#define NODEV_INPROC 0
#endif

static void called(const char *what)
{
	fprintf(stderr, "nodev plugin: the harness called %s without a CUDA "
		"device\n", what);
	abort();
}

static int nd_init(const cs_bootstrap_t *world,
			     const char *options, cs_bcomm_t *comm)
{
	(void)world, (void)options, (void)comm;
	called("init");
	return 1;
}

static int nd_init_all(int nranks, const char *options,
				 cs_bcomm_t *comms)
{
	(void)nranks, (void)options, (void)comms;
	called("init_all");
	return 1;
}

static int nd_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t comm,
			void *stream)
{
	(void)s, (void)r, (void)count, (void)d, (void)op, (void)scalar;
	(void)comm, (void)stream;
	called("allreduce");
	return 1;
}

static int nd_group(void)
{
	called("group_start or group_end");
	return 1;
}

static int nd_sync(cs_bcomm_t comm, void *stream)
{
	(void)comm, (void)stream;
	called("synchronize");
	return 1;
}

static const char *nd_error_string(cs_bcomm_t comm, int err)
{
	(void)comm, (void)err;
	return "the nodev plugin has no device code";
}

#define NODEV_COMMON                                                           \
	.abi_version = CS_BACKEND_ABI_VERSION,                                 \
	.struct_size = sizeof(cs_backend_t),                                   \
	.name = "nodev",                                                       \
	.description = "declares CUDA memory, has no device code (tests only)",\
	.mem_kind = CS_MEM_CUDA,                                               \
	.allreduce = nd_allreduce,                                             \
	.synchronize = nd_sync,                                                \
	.error_string = nd_error_string

static const cs_backend_t nodev_rank = {
	NODEV_COMMON,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = nd_init,
};

static const cs_backend_t nodev_inproc = {
	NODEV_COMMON,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = nd_init_all,
	.group_start = nd_group,
	.group_end = nd_group,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return NODEV_INPROC ? &nodev_inproc : &nodev_rank;
}
