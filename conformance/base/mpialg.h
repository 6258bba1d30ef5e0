/*
 * mpialg.h - `collspec run --mpi-alg`: the MPI library's own choice of
 * collective algorithm or component, as the environment variables that
 * make it, for the libraries whose names this file knows (mpialg.c holds
 * the tables; no MPI here: backends/mpilib.c detects the library and sets
 * the variables before MPI_Init).
 *
 * A spec is a comma list of KEY=VALUE, each key at most once:
 *   COLL=ALG   a blocking collective of the harness (allreduce, allgather,
 *              reducescatter, alltoall, alltoallv, broadcast, reduce,
 *              gather, scatter) and one of the library's algorithms for it;
 *   iCOLL=ALG  the same for the nonblocking call (iallreduce, ...), which
 *              --backend-opt api=nonblocking (and, in Open MPI, persistent)
 *              makes;
 *   component=NAME  (Open MPI) the coll component that gets priority 100;
 *   fallback=error|print|silent  (MPICH) MPIR_CVAR_COLLECTIVE_FALLBACK,
 *              error unless given (below).
 * Open MPI 4.1: COLL is coll_tuned's <coll>_algorithm (with
 * use_dynamic_rules=1; reducescatter is reduce_scatter_block's, the call
 * the mpi backend makes), iCOLL libnbc's i<coll>_algorithm; ALG is a name
 * `ompi_info --param coll tuned --level 9` lists or its number.
 * MPICH 4.0: MPIR_CVAR_<COLL>_INTRA_ALGORITHM and MPIR_CVAR_I<COLL>_...,
 * ALG one of the names `mpivars` lists (auto is the default, not listed),
 * with MPIR_CVAR_COLLECTIVE_FALLBACK=error: an algorithm that cannot take
 * a call's arguments makes the call fail ("User set collective algorithm
 * is not usable for the provided arguments") instead of running MPICH's
 * own choice silently, so no case passes on an algorithm not named. The
 * algorithms that run other collectives inside (smp) then fail where an
 * inner call refuses it: fallback=silent lets those inner calls fall back.
 */
#ifndef CS_MPIALG_H
#define CS_MPIALG_H

#include <stddef.h>
#include <stdio.h>
#include "csref/status.h"

typedef enum cs_mpilib {
	CS_MPILIB_OTHER = 0,
	CS_MPILIB_OPENMPI,
	CS_MPILIB_MPICH
} cs_mpilib_t;

#define CS_MPIALG_MAX_ENV 32   /* variables one spec may set */
#define CS_MPIALG_ENV_LEN 128  /* bytes of one NAME=VALUE */
#define CS_MPIALG_SPEC_MAX 1023

/* The variables a spec sets, as NAME=VALUE strings, in the spec's order. */
typedef struct cs_mpialg_env {
	char var[CS_MPIALG_MAX_ENV][CS_MPIALG_ENV_LEN];
	int n;
} cs_mpialg_env_t;

/* The library that MPI_Get_library_version's text names ("Open MPI v4.1.4,
 * ...", "MPICH Version: 4.0.2 ..."); OTHER for NULL or anything else. */
cs_mpilib_t cs_mpilib_of(const char *version_text);

/* The library's name for messages: "Open MPI", "MPICH", "another MPI". */
const char *cs_mpilib_name(cs_mpilib_t lib);

/*
 * The variables spec selects in library lib, into *out (cleared first).
 * CS_ERR_INVALID, with a message (cs_last_error) that names the key or
 * value and lists the valid ones, for a malformed spec, a key or value
 * the library does not have, a repeated key, or lib OTHER.
 */
cs_status_t cs_mpialg_env(cs_mpilib_t lib, const char *spec,
			  cs_mpialg_env_t *out);

/*
 * Every KEY=VALUE lib accepts, one per line, keys in the order above and
 * values in the library's order (numbers are not listed), to f, each
 * followed by the --coll list it applies to and the api that makes the
 * calls it selects: "allreduce=ring allreduce blocking", "iallreduce=ring
 * allreduce nonblocking", "component=sm allreduce,broadcast,reduce
 * blocking"; the api of han is "multinode": Open MPI 4.1's han takes
 * only communicators that span nodes. Returns the number of lines (0 for
 * OTHER).
 */
int cs_mpialg_list(cs_mpilib_t lib, FILE *f);

#endif /* CS_MPIALG_H */
