/*
 * mpilib.h - which MPI library this process runs (MPI_Get_library_version,
 * which MPI allows before MPI_Init) and --mpi-alg applied to it: the
 * variables of base/mpialg.h set in this process's environment, where
 * MPI_Init reads them.
 */
#ifndef CS_MPILIB_H
#define CS_MPILIB_H

#include <stddef.h>
#include "base/mpialg.h"
#include "csref/status.h"

/* The library this process is linked with; its version text's first line
 * to version (n bytes, NUL-terminated) when version is not NULL. */
cs_mpilib_t cs_mpilib_detect(char *version, size_t n);

/*
 * The variables spec selects in this process's MPI library
 * (cs_mpialg_env), each set with setenv (replacing a value already there)
 * when set is 1, only checked when 0. Call before MPI_Init. CS_OK, or
 * CS_ERR_INVALID with the message of cs_mpialg_env (naming the library
 * and the valid names), or CS_ERR_IO when setenv fails.
 */
cs_status_t cs_mpilib_apply_alg(const char *spec, int set);

#endif /* CS_MPILIB_H */
