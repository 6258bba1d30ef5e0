/*
 * run_args.h - `collspec run`'s options (run_args.c): what the command line
 * says, parsed and checked, and the report options it implies.
 */
#ifndef CS_RUN_ARGS_H
#define CS_RUN_ARGS_H

#include <stdio.h>
#include "report.h"
#include "suite.h"

#define CS_MAX_SIZES 1024

/* The options of `collspec run`, as parsed. */
typedef struct cs_run_opts {
	const char *backend, *backend_opt, *suite;
	cs_filter_t f;
	double timeout;
	const char *json, *junit, *results, *mpiexec;
	const char *expect; /* --expect FILE: known failures (expect.h) */
	const char *grid;   /* --grid G (suite patterns), NULL: per pattern */
	const char *comm_log; /* --comm-log FILE (suite patterns) */
	size_t first; /* --first K: cases with index < K are not run */
	int sizes[CS_MAX_SIZES], nsizes;
	int fail_on_warn, quiet, verbose;
	int repeat;   /* --repeat N: calls per case (see docs/running.md) */
	char **wargs; /* worker arguments (driver mode) */
	int nwargs;
	FILE *out;    /* where the human report goes (the real stdout) */
	int help;     /* --help was given: the usage is printed, nothing runs */
} cs_run_opts_t;

/*
 * Parse run's arguments (argv[0] is "run") into o, which it initialises.
 * CS_OK, also after --help (the usage printed on stdout, o->help set);
 * CS_ERR_INVALID on a usage error (the message printed on stderr);
 * CS_ERR_NOMEM. o->wargs is malloc'ed in every case: the caller frees it.
 */
cs_status_t cs_run_parse_args(int argc, char **argv, cs_run_opts_t *o);

/* Checks that need no MPI: suite name, backend name, count sizes for the
 * largest world size P, and no two of --json, --junit, --results naming
 * the same file. 1 when o is fine; else 0, the message printed. */
int cs_run_opts_ok(const cs_run_opts_t *o, int P);

/* The report options of a run (human report to o->out). */
void cs_run_report_opts(const cs_run_opts_t *o, cs_report_opts_t *ro);

/* True when this process was started by an MPI launcher (mpiexec, srun).
 * Decided at the first call: cs_cmd_run makes it before MPI_Init, which
 * sets some of the variables it reads. */
int cs_run_launched(void);

#endif /* CS_RUN_ARGS_H */
