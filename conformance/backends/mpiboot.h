/*
 * mpiboot.h - the bootstrap channel the harness hands to per-process
 * backends (mpiboot.c): the plugin ABI's cs_bootstrap_t (allgather,
 * broadcast, barrier over bytes) carried by an MPI communicator.
 */
#ifndef CS_MPIBOOT_H
#define CS_MPIBOOT_H

#include "collspec/backend.h"
#include "csref/status.h"

/* Bootstrap over an MPI communicator (the harness's channel). The returned
 * object holds its own duplicate of comm; free with cs_boot_free. */
typedef struct cs_mpiboot cs_mpiboot_t;
#ifdef CS_HAVE_MPI
cs_status_t cs_boot_create(const void *mpi_comm, cs_mpiboot_t **out);
const cs_bootstrap_t *cs_boot_get(const cs_mpiboot_t *b);
void cs_boot_free(cs_mpiboot_t *b);
#else /* built without MPI (cmake -DCS_MPI=OFF): no channel to make */
static inline cs_status_t cs_boot_create(const void *mpi_comm,
					 cs_mpiboot_t **out)
{
	(void)mpi_comm;
	*out = NULL;
	return cs_error(CS_ERR_UNSUPPORTED, "no MPI bootstrap: this collspec "
			"was built without MPI (cmake -DCS_MPI=OFF)");
}

static inline const cs_bootstrap_t *cs_boot_get(const cs_mpiboot_t *b)
{
	(void)b;
	return NULL;
}

static inline void cs_boot_free(cs_mpiboot_t *b)
{
	(void)b;
}
#endif /* CS_HAVE_MPI */

#endif /* CS_MPIBOOT_H */
