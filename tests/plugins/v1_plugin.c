/*
 * v1_plugin.c - a plugin built for backend ABI version 1 (the struct
 * without `flags`), for the harness's tests. Like a careful plugin, it
 * answers only a harness of its own version. The harness (version 2) must
 * refuse it at load, saying it was built for version 1 and must be
 * rebuilt, and run no case.
 */
#include <stddef.h>
#include "collspec/backend.h"

/* The size of a version 1 struct: everything before `flags`. */
#define V1_SIZE offsetof(cs_backend_t, flags)

static int v1_init(const cs_bootstrap_t *world, const char *options,
		   cs_bcomm_t *out)
{
	(void)world;
	(void)options;
	(void)out;
	return 1;
}

static int v1_sync(cs_bcomm_t c, void *stream)
{
	(void)c;
	(void)stream;
	return 0;
}

static const char *v1_error_string(cs_bcomm_t c, int err)
{
	(void)c;
	(void)err;
	return "this plugin is built for ABI version 1 and should have been "
	       "refused at load";
}

static const cs_backend_t v1_backend = {
	.abi_version = 1,
	.struct_size = V1_SIZE,
	.name = "v1",
	.description = "built for backend ABI version 1 (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = v1_init,
	.synchronize = v1_sync,
	.error_string = v1_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	return harness_abi_version == 1 ? &v1_backend : NULL;
}
