/*
 * abi_mismatch_plugin.c - a plugin built for the next ABI version, for the
 * harness's tests: everything else is well formed, so the only reason to
 * refuse it is the version. The harness must refuse it at load, naming
 * both versions (CS_BACKEND_ABI_VERSION + 1 and CS_BACKEND_ABI_VERSION),
 * and run no case. Should it not, init fails with a message saying so.
 */
#include "collspec/backend.h"

static int mm_init(const cs_bootstrap_t *world, const char *options,
		   cs_bcomm_t *out)
{
	(void)world;
	(void)options;
	(void)out;
	return 1;
}

static int mm_sync(cs_bcomm_t c, void *stream)
{
	(void)c;
	(void)stream;
	return 0;
}

static const char *mm_error_string(cs_bcomm_t c, int err)
{
	(void)c;
	(void)err;
	return "this plugin declares another ABI version and should have been "
	       "refused at load";
}

static const cs_backend_t mm_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION + 1,
	.struct_size = sizeof(cs_backend_t),
	.name = "abi-mismatch",
	.description = "declares the next ABI version (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = mm_init,
	.synchronize = mm_sync,
	.error_string = mm_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &mm_backend;
}
