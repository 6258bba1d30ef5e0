/*
 * backend_mpi.h - the `mpi` backend's entry (backend_mpi.c): the MPI
 * library's own collectives behind the plugin ABI's struct.
 */
#ifndef CS_BACKEND_MPI_H
#define CS_BACKEND_MPI_H

#include "collspec/backend.h"

/* The backend's table (static). */
const cs_backend_t *cs_backend_mpi(void);

#endif /* CS_BACKEND_MPI_H */
