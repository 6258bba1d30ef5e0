/*
 * devstatus_plugin.c - a plugin whose init_all answers with the backend
 * ABI's device statuses (version 2), for the harness's tests: the harness
 * must turn them into a SKIP of every case, with the reason the ABI gives
 * (CS_BACKEND_ERR_NODEV: "no CUDA device"; CS_BACKEND_ERR_FEWDEV: the
 * plugin's own error_string), exactly as it does for the built-in nccl
 * backends. --backend-opt nodev|fewdev chooses; anything else is an
 * ordinary failure of init_all (an error, not a SKIP).
 *
 * Host memory and all ranks in one process: no device is needed to run
 * the test; it declares CS_BACKEND_F_OWN_DEVICES like a backend that
 * counts its devices itself.
 */
#include <stdio.h>
#include <string.h>
#include "collspec/backend.h"

static char ds_msg[128];

static int ds_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	(void)comms;
	if (options && !strcmp(options, "nodev"))
		return CS_BACKEND_ERR_NODEV;
	if (options && !strcmp(options, "fewdev")) {
		snprintf(ds_msg, sizeof ds_msg, "devstatus plugin: %d ranks "
			 "need %d devices, it sees 0", nranks, nranks);
		return CS_BACKEND_ERR_FEWDEV;
	}
	snprintf(ds_msg, sizeof ds_msg, "devstatus plugin: an ordinary "
		 "failure");
	return 1;
}

static int ds_sync(cs_bcomm_t c, void *stream)
{
	(void)c;
	(void)stream;
	return 0;
}

static int ds_group(void)
{
	return 0;
}

static int ds_comm_free(cs_bcomm_t c)
{
	(void)c;
	return 0;
}

static const char *ds_error_string(cs_bcomm_t c, int err)
{
	(void)c;
	(void)err;
	return ds_msg;
}

static const cs_backend_t ds_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "devstatus",
	.description = "answers init_all with a device status (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.flags = CS_BACKEND_F_OWN_DEVICES,
	.init_all = ds_init_all,
	.comm_free = ds_comm_free,
	.group_start = ds_group,
	.group_end = ds_group,
	.synchronize = ds_sync,
	.error_string = ds_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	return harness_abi_version == CS_BACKEND_ABI_VERSION ? &ds_backend
							     : NULL;
}
