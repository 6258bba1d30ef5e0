/*
 * options.h - the options of a `collspec run` (cs_run_opts_t), as parsed
 * (run/run_args.c): what the worker, the checks, the reports and bench's
 * checked calls read; and whether an MPI launcher started this process
 * (options.c).
 */
#ifndef CS_OPTIONS_H
#define CS_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include "base/cli_parse.h" /* CS_MAX_SIZES */
#include "base/hcase.h"

/* The options of `collspec run`, as parsed. */
typedef struct cs_run_opts {
	const char *backend, *backend_opt, *suite;
	cs_filter_t f;
	double timeout;
	const char *json, *junit, *results, *mpiexec;
	const char *expect; /* --expect FILE: known failures (expect.h) */
	const char *grid;   /* --grid G (suite patterns), NULL: per pattern */
	const char *comm_log; /* --comm-log FILE (suite patterns) */
	const char *mpi_alg;  /* --mpi-alg SPEC (base/mpialg.h), NULL: none */
	size_t first; /* --first K: cases with index < K are not run */
	int sizes[CS_MAX_SIZES], nsizes;
	int fail_on_warn, quiet, verbose;
	int repeat;   /* --repeat N: calls per case (see docs/running.md) */
	char **wargs; /* worker arguments (driver mode) */
	int nwargs;
	FILE *out;    /* where the human report goes (the real stdout) */
	int help;     /* --help was given: the usage is printed, nothing runs */
} cs_run_opts_t;

/* True when this process was started by an MPI launcher (mpiexec, srun).
 * Decided at the first call: cs_cmd_run makes it before MPI_Init, which
 * sets some of the variables it reads. */
int cs_run_launched(void);

#endif /* CS_OPTIONS_H */
