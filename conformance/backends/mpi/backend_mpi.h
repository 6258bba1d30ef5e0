/*
 * backend_mpi.h - the `mpi` backend's entry (backend_mpi.c): the MPI
 * library's own collectives behind the plugin ABI's struct.
 */
#ifndef CS_BACKEND_MPI_H
#define CS_BACKEND_MPI_H

#include <stddef.h>
#include "collspec/backend.h"

#ifdef CS_HAVE_MPI

/* The backend's table (static). */
const cs_backend_t *cs_backend_mpi(void);

#else /* built without MPI (cmake -DCS_MPI=OFF) */

/* Not built: the registry lists it as needing MPI at build time. */
static inline const cs_backend_t *cs_backend_mpi(void)
{
	return NULL;
}

#endif /* CS_HAVE_MPI */

#endif /* CS_BACKEND_MPI_H */
