/*
 * backend_gloo.h - the `gloo` backend: Gloo's collectives (Debian's
 * libgloo-dev) behind the plugin ABI's struct (collspec/backend.h), on host
 * memory, one rank per process.
 *
 * The ranks meet through Gloo's file store in a directory of this run that
 * rank 0 creates and sends to the others through the harness's bootstrap
 * channel, then connect a full mesh of Gloo's TCP pairs on the loopback
 * (127.0.0.1). Sub-communicators are new Gloo contexts connected the same
 * way over the sub-group. backend_gloo.cc holds the table, options,
 * communicators and errors; backend_gloo_coll.cc the collectives;
 * backend_gloo_impl.h what the two share.
 *
 * Built only when CMake finds Gloo (conformance/backends/gloo/gloo.cmake
 * defines CS_HAVE_GLOO); otherwise the entry point below is a stub that
 * says "not built" (NULL).
 */
#ifndef CS_BACKEND_GLOO_H
#define CS_BACKEND_GLOO_H

#include <stddef.h>
#include "collspec/backend.h"

#ifdef CS_HAVE_GLOO

#ifdef __cplusplus
extern "C" {
#endif

/* The gloo backend ("gloo"), one rank per process. Never NULL. */
const cs_backend_t *cs_backend_gloo(void);

#ifdef __cplusplus
}
#endif

#else /* built without Gloo */

static inline const cs_backend_t *cs_backend_gloo(void)
{
	return NULL;
}

#endif /* CS_HAVE_GLOO */
#endif /* CS_BACKEND_GLOO_H */
