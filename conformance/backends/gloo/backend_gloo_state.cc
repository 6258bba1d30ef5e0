/*
 * backend_gloo_state.cc - the gloo backend's run state that both of its
 * other files read (backend_gloo_impl.h): the options chosen and the
 * message of the last failure.
 */
#include <stdio.h>
#include "backends/gloo/backend_gloo_impl.h"

static char glb_err[1024];
static int glb_algo_chosen = CS_GLB_FUNCTION;
static int glb_allgatherv;

extern "C" int cs_glb_fail(const char *what, const char *msg)
{
	char *p;

	snprintf(glb_err, sizeof glb_err, "%s: %s", what, msg);
	for (p = glb_err; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return CS_GLB_ERR;
}

extern "C" const char *cs_glb_error_text(int err)
{
	if (err == CS_GLB_ERR && glb_err[0])
		return glb_err;
	return "gloo backend: unknown error";
}

extern "C" void cs_glb_set_state(int algo, int use_allgatherv)
{
	glb_algo_chosen = algo;
	glb_allgatherv = use_allgatherv;
}

extern "C" int cs_glb_algo(void)
{
	return glb_algo_chosen;
}

extern "C" int cs_glb_use_allgatherv(void)
{
	return glb_allgatherv;
}
