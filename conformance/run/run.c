/*
 * run.c - `collspec run`: parse the command line (run_args.c), then either
 * sweep (--ranks outside a launcher: sweep.c launches and supervises the
 * workers; the backend's code never runs in this process) or work (this
 * process is a worker: worker.h, with the ranks of an rgroup.h group).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "backends/mpilib.h"
#include "backends/registry.h"
#include "base/commands.h"
#include "run/run_args.h"
#include "worker/rgroup.h"
#include "run/sweep.h"
#include "worker/worker.h"

/*
 * The human report keeps the real stdout; anything else this process writes
 * to stdout (a backend's chatter) goes to stderr, so that it cannot garble
 * the report. Returns the report's stream (stdout when fd 1 is unusable).
 */
static FILE *claim_stdout(void)
{
	FILE *f;
	int fd;

	fflush(stdout);
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return stdout;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return stdout;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fclose(f);
		return stdout;
	}
	return f;
}

/* o's backend when it drives every rank from one process, else NULL. A
 * backend that does not load is left to the usual paths, which say why. */
static const cs_backend_t *backend_inproc(const cs_run_opts_t *o)
{
	const cs_backend_t *b;

	if (cs_backend_load(o->backend, &b) != CS_OK ||
	    b->proc_model != CS_PROC_ALL_IN_PROCESS)
		return NULL;
	return b;
}

/* The worker of one world size: every rank in this process when backend
 * b drives them all (the driver starts it with --results), else this
 * process as one rank under a launcher (or a singleton). */
static int run_worker(const cs_run_opts_t *o, const cs_backend_t *b)
{
	cs_rgroup_t g;
	int code;

	if (b && (cs_run_launched() || !o->nsizes)) {
		fprintf(stderr, "collspec run: backend '%s' drives every rank "
			"from one process: run it without mpiexec or srun, with "
			"the world sizes in --ranks (e.g. --ranks 1-4)\n",
			b->name);
		return 2;
	}
	if (b && o->nsizes != 1) {
		fprintf(stderr, "collspec run: --results runs one world size; "
			"--ranks lists %d\n", o->nsizes);
		return 2;
	}
	if ((b ? cs_rgroup_inproc(&g, o->sizes[0]) : cs_rgroup_mpi(&g)) !=
	    CS_OK) {
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		return 2;
	}
	code = cs_worker_run(o, &g, b);
	cs_rgroup_free(&g);
	return code;
}

/*
 * --mpi-alg: `list` prints what this MPI library offers (1); otherwise the
 * spec is checked against the library (the driver: before any launch) and,
 * in a worker, set in the environment before MPI_Init. 0 to go on, 1 when
 * the listing is the whole run, 2 (said why) on a bad spec.
 */
static int mpi_alg(const cs_run_opts_t *o, int worker)
{
	char version[128];
	cs_mpilib_t lib;

	if (!o->mpi_alg)
		return 0;
	if (!strcmp(o->mpi_alg, "list")) {
		lib = cs_mpilib_detect(version, sizeof version);
		if (lib != CS_MPILIB_OTHER) {
			fprintf(o->out, "# %s\n", version);
			cs_mpialg_list(lib, o->out);
			return 1;
		}
		fprintf(stderr, "collspec run: --mpi-alg list: this MPI library "
			"(%s) is neither Open MPI nor MPICH\n", version);
		return 2;
	}
	if (strcmp(o->backend, "mpi")) {
		fprintf(stderr, "collspec run: --mpi-alg selects the MPI "
			"library's own algorithms: it needs --backend mpi, not "
			"'%s'\n", o->backend);
		return 2;
	}
	if (cs_mpilib_apply_alg(o->mpi_alg, worker) != CS_OK) {
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		return 2;
	}
	return 0;
}

/*
 * `collspec run`: parse, then drive (--ranks outside a launcher: the
 * backend's code is never run in this process) or work (under a launcher,
 * a single process, or a worker the driver started with --results).
 */
int cs_cmd_run(int argc, char **argv)
{
	cs_run_opts_t *o = malloc(sizeof *o);
	int rc;

	if (!o)
		return 2;
	(void)cs_run_launched(); /* decide before anything calls MPI_Init */
	if (cs_run_parse_args(argc, argv, o) != CS_OK)
		rc = 2; /* (the parser said why) */
	else if (o->help)
		rc = 0;
	else {
		int drive = o->nsizes && !cs_run_launched() && !o->results;

		o->out = claim_stdout();
		rc = mpi_alg(o, !drive);
		if (rc)
			rc = rc == 1 ? 0 : rc;
		else if (drive)
			rc = cs_run_sweep(o);
		else
			rc = run_worker(o, backend_inproc(o));
	}
	free(o->wargs);
	free(o);
	return rc;
}

