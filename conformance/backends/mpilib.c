/*
 * mpilib.c - the MPI library of this process and --mpi-alg's environment
 * (mpilib.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CS_HAVE_MPI
#include <mpi.h>
#endif
#include "backends/mpilib.h"

cs_mpilib_t cs_mpilib_detect(char *version, size_t n)
{
#ifdef CS_HAVE_MPI
	char text[MPI_MAX_LIBRARY_VERSION_STRING + 1];
	int len = 0;

	if (MPI_Get_library_version(text, &len) != MPI_SUCCESS)
		len = 0;
	text[len < 0 ? 0 : len] = '\0';
#else
	/* a build without MPI (CS_MPI=OFF): no library to name */
	const char *text = "no MPI library (built with CS_MPI=OFF)";
#endif
	if (version && n)
		snprintf(version, n, "%.*s", (int)strcspn(text, "\r\n"), text);
	return cs_mpilib_of(text);
}

cs_status_t cs_mpilib_apply_alg(const char *spec, int set)
{
	cs_mpialg_env_t *e = malloc(sizeof *e);
	cs_status_t st;
	int i;

	if (!e)
		return cs_error(CS_ERR_NOMEM, "--mpi-alg: out of memory");
	st = cs_mpialg_env(cs_mpilib_detect(NULL, 0), spec, e);
	for (i = 0; st == CS_OK && set && i < e->n; i++) {
		char *eq = strchr(e->var[i], '=');

		*eq = '\0';
		if (setenv(e->var[i], eq + 1, 1) != 0)
			st = cs_error(CS_ERR_IO, "--mpi-alg: setenv %s: %s",
				      e->var[i], strerror(errno));
	}
	free(e);
	return st;
}
