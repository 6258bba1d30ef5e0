/*
 * bench.c - `collspec bench` (bench.h): parse, then either work (this
 * process is a worker the driver started: --results) or drive: every
 * series (a backend of --backend; for mpi, one more per --ompi-alg
 * number) run by the driver (driver.h) at each world size of --ranks,
 * its workers' records read back from the side file, then the tables,
 * --json, --csv and --plot. A size whose worker crashed or hung, or whose
 * last call failed the harness's check, is reported and makes the exit
 * status 1; bad options or an environment that cannot run exit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/commands.h"
#include "base/memest.h"
#include "bench/bench.h"
#include "bench/bench_plot.h"
#include "backends/registry.h"
#include "collspec/backend.h"
#include "driver/driver.h"
#include "driver/launcher.h"
#include "base/result.h"
#include "suite/suite.h"

#define MAX_WARGS 48

/* One series: what the driver runs, and its name. */
struct series {
	const char *backend;
	cs_backend_info_t info; /* probed before any series runs */
	char name[64];
	char env[2][96]; /* Open MPI's variables for an algorithm series */
	int nenv;
};

/* The driving side's state. */
struct bench {
	const cs_bench_opts_t *o;
	char self[PATH_MAX];
	char out[PATH_MAX];   /* the side file */
	cs_bench_rec_t *recs; /* every series' records */
	size_t nrecs, cap;
	int failures;
	const char *current;  /* the series running */
};

/* ---- series ---------------------------------------------------------------- */

/* Open MPI's coll_tuned name of c, or NULL when it has none. */
static const char *tuned_name(cs_coll_t c)
{
	switch (c) {
	case CS_COLL_ALLREDUCE: return "allreduce";
	case CS_COLL_ALLGATHER: return "allgather";
	/* (the mpi backend calls MPI_Reduce_scatter_block, which follows
	 * this variable, not reduce_scatter's: docs/bench-compare.md) */
	case CS_COLL_REDUCESCATTER: return "reduce_scatter_block";
	case CS_COLL_ALLTOALL: return "alltoall";
	case CS_COLL_ALLTOALLV: return "alltoallv";
	case CS_COLL_BROADCAST: return "bcast";
	case CS_COLL_REDUCE: return "reduce";
	case CS_COLL_GATHER: return "gather";
	case CS_COLL_SCATTER: return "scatter";
	case CS_COLL_SENDRECV: /* (a point-to-point pair in MPI) */
	case CS_NUM_COLLS:
		break;
	}
	return NULL;
}

/* name as given if it has a '/', else its path on PATH, into out. */
static int resolve(const char *name, char *out, size_t n)
{
	const char *p = getenv("PATH");

	if (strchr(name, '/'))
		return snprintf(out, n, "%s", name) < (int)n;
	for (; p && *p;) {
		size_t len = strcspn(p, ":");
		int w = snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", name);
		if (w > 0 && (size_t)w < n && access(out, X_OK) == 0)
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

/* --ompi-alg: 1 when it can apply (Open MPI's launcher, a collective
 * coll_tuned has, an mpi backend listed); else 0, said why. */
static int algs_ok(const cs_bench_opts_t *o)
{
	const char *m = o->mpiexec ? o->mpiexec : cs_driver_default_launcher();
	cs_launcher_kind_t kind = CS_LAUNCHER_GENERIC;
	char path[PATH_MAX], version[160];
	int i, mpi = 0;

	for (i = 0; i < o->nbackends; i++)
		mpi |= !strcmp(o->backends[i], "mpi");
	if (!mpi) {
		fprintf(stderr, "collspec bench: --ompi-alg applies to the mpi "
			"backend: add mpi to --backend\n");
		return 0;
	}
	if (!tuned_name(o->coll)) {
		fprintf(stderr, "collspec bench: --ompi-alg: Open MPI's "
			"coll_tuned has no %s algorithms\n",
			cs_coll_name(o->coll));
		return 0;
	}
	if (!resolve(m, path, sizeof path) ||
	    cs_launcher_detect(path, &kind, version, sizeof version) != CS_OK ||
	    kind != CS_LAUNCHER_OPENMPI) {
		fprintf(stderr, "collspec bench: --ompi-alg selects Open MPI's "
			"coll_tuned algorithms, but the launcher '%s' is %s, not "
			"Open MPI's: drop --ompi-alg\n", m,
			kind == CS_LAUNCHER_GENERIC ? "not recognised"
						    : cs_launcher_name(kind));
		return 0;
	}
	return 1;
}

/* The series of the command line into s (at most max); their number. */
static int make_series(const cs_bench_opts_t *o, struct series *s, int max)
{
	int i, k, n = 0;

	for (i = 0; i < o->nbackends && n < max; i++) {
		memset(&s[n], 0, sizeof s[n]);
		s[n].backend = o->backends[i];
		snprintf(s[n].name, sizeof s[n].name, "%.63s", o->backends[i]);
		n++;
		for (k = 0; !strcmp(o->backends[i], "mpi") && k < o->nalgs &&
			    n < max; k++, n++) {
			memset(&s[n], 0, sizeof s[n]);
			s[n].backend = o->backends[i];
			snprintf(s[n].name, sizeof s[n].name, "mpi/alg=%d",
				 o->algs[k]);
			snprintf(s[n].env[0], sizeof s[n].env[0],
				 "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
			snprintf(s[n].env[1], sizeof s[n].env[1],
				 "OMPI_MCA_coll_tuned_%s_algorithm=%d",
				 tuned_name(o->coll), o->algs[k]);
			s[n].nenv = 2;
		}
	}
	return n;
}

/* ---- one series -------------------------------------------------------------- */

/* The worker's arguments for series s into args (numbers in num). */
static int worker_args(const struct bench *B, const struct series *s,
		       char **args, char num[][24])
{
	const cs_bench_opts_t *o = B->o;
	int a = 0;

#define ARG(x) (args[a++] = (char *)(x))
#define NUM(fmt, v) (snprintf(num[a], 24, fmt, v), args[a] = num[a], a++)
	ARG("--backend"); ARG(s->backend);
	if (o->backend_opt) {
		ARG("--backend-opt"); ARG(o->backend_opt);
	}
	ARG("--series"); ARG(s->name);
	ARG("--coll"); ARG(cs_coll_name(o->coll));
	ARG("--dtype"); ARG(cs_dtype_name(o->dtype));
	if (o->op != CS_OP_NONE) {
		ARG("--op"); ARG(cs_op_name(o->op));
	}
	ARG("-b"); NUM("%llu", (unsigned long long)o->minb);
	ARG("-e"); NUM("%llu", (unsigned long long)o->maxb);
	ARG("-f"); NUM("%llu", (unsigned long long)o->factor);
	ARG("-n"); NUM("%d", o->iters);
	ARG("-w"); NUM("%d", o->warmup);
	ARG("-c"); NUM("%d", o->check);
	ARG("--inplace");
	ARG(o->inplace < 0 ? "both" : o->inplace ? "1" : "0");
	ARG("--timeout"); NUM("%.17g", o->timeout);
	ARG("--bench-out"); ARG(B->out);
#undef ARG
#undef NUM
	return a;
}

/* Results from the driver: a failed size said (its reason, its re-run
 * line when the worker wrote one). */
static void sink(const cs_result_t *r, void *ctx)
{
	struct bench *B = ctx;

	if (r->verdict != CS_V_FAIL)
		return;
	B->failures++;
	fprintf(stderr, "collspec bench: FAIL %s %s count %zu %s at %d "
		"ranks (%s): %s\n", B->current, cs_coll_name(r->hc.c.coll),
		r->hc.c.count, r->hc.inplace ? "in place" : "out of place",
		r->hc.c.nranks, r->check, r->reason);
	if (r->detail[0])
		fprintf(stderr, "%s%s", r->detail,
			r->detail[strlen(r->detail) - 1] == '\n' ? "" : "\n");
}

/* The cases of each world size (the driver's ncases); 0 when a size has
 * none or the suite cannot be built (said). */
static int count_cases(const cs_bench_opts_t *o, size_t *ncases)
{
	cs_run_opts_t *ro = malloc(sizeof *ro);
	cs_hcase_t *cases;
	int i, ok = ro != NULL;

	for (i = 0; ok && i < o->nsizes; i++) {
		ok = cs_bench_run_opts(o, o->sizes[i], ro) == CS_OK &&
		     cs_suite_build(ro->suite, o->sizes[i], &ro->f, &cases,
				    &ncases[i]) == CS_OK;
		if (ok)
			free(cases);
		if (ok && !ncases[i])
			ok = cs_error(CS_ERR_INVALID, "no case at %d ranks",
				      o->sizes[i]) == CS_OK;
	}
	if (!ok)
		fprintf(stderr, "collspec bench: %s\n",
			ro ? cs_last_error() : "out of memory");
	free(ro);
	return ok;
}

/* The side file's records appended to B->recs (the file then emptied). */
static cs_status_t read_back(struct bench *B)
{
	FILE *f = fopen(B->out, "r");
	char line[4096];
	int lineno = 0;

	if (!f)
		return cs_error(CS_ERR_IO, "cannot read '%s': %s", B->out,
				strerror(errno));
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (B->nrecs == B->cap) {
			size_t c = B->cap * 2 + 64;
			cs_bench_rec_t *r = realloc(B->recs, c * sizeof *r);
			if (!r) {
				fclose(f);
				return cs_error(CS_ERR_NOMEM, "out of memory");
			}
			B->recs = r;
			B->cap = c;
		}
		if (cs_bench_rec_from_json(line, &B->recs[B->nrecs]) != CS_OK)
			fprintf(stderr, "collspec bench: ignoring line %d of the "
				"workers' records: %s\n", lineno, cs_last_error());
		else
			B->nrecs++;
	}
	fclose(f);
	return truncate(B->out, 0) == 0 ? CS_OK
		: cs_error(CS_ERR_IO, "cannot empty '%s'", B->out);
}

/* One series at every world size; CS_OK when the driver ran it. */
static cs_status_t run_series(struct bench *B, const struct series *s,
			      const size_t *ncases)
{
	const cs_bench_opts_t *o = B->o;
	char *args[MAX_WARGS], num[MAX_WARGS][24], *env[2];
	cs_driver_opts_t d;
	cs_status_t st;

	memset(&d, 0, sizeof d);
	d.sizes = o->sizes;
	d.nsizes = o->nsizes;
	d.case_timeout = o->timeout;
	d.mpiexec = o->mpiexec;
	d.self = B->self;
	d.worker_args = args;
	d.nworker_args = worker_args(B, s, args, num);
	d.verbose = o->verbose;
	d.no_launcher = s->info.proc_model == CS_PROC_ALL_IN_PROCESS;
	d.ncases = ncases;
	d.command = "bench";
	env[0] = (char *)s->env[0];
	env[1] = (char *)s->env[1];
	d.env = env;
	d.nenv = s->nenv;
	B->current = s->name;
	st = cs_driver_run(&d, sink, B);
	return st == CS_OK ? read_back(B) : st;
}

/* Every series' backend loaded (in a child, under --timeout) before any
 * runs: 1 when all load, else 0 (said). A plugin's series is named by
 * the plugin's name, not its path. */
static int probe_all(const cs_bench_opts_t *o, struct series *s, int ns)
{
	int i;

	for (i = 0; i < ns; i++) {
		if (cs_backend_probe(s[i].backend, o->timeout, &s[i].info) !=
		    CS_OK) {
			fprintf(stderr, "collspec bench: %s\n", cs_last_error());
			return 0;
		}
		if (!strncmp(s[i].backend, "plugin:", 7))
			snprintf(s[i].name, sizeof s[i].name, "%s",
				 s[i].info.name);
	}
	return 1;
}

/*
 * The largest size must fit with every rank of the largest world size on
 * this machine, or the kernel would kill a rank and the size would read
 * as the implementation's crash. Per rank: send and receive buffers of
 * up to `bytes` each, the images of their inputs and the copies the
 * checks keep (about 6 x bytes), and 64 MB for the oracle and the
 * process. 1 when it fits (or memory is unknown), else 0 (said).
 */
static int fits_ok(const cs_bench_opts_t *o)
{
	double avail = cs_mem_available(), need;
	int i, pmax = 1;

	for (i = 0; i < o->nsizes; i++)
		pmax = o->sizes[i] > pmax ? o->sizes[i] : pmax;
	need = ((double)o->maxb * 6 + 64e6) * pmax;
	if (avail <= 0 || need <= 0.9 * avail)
		return 1;
	fprintf(stderr, "collspec bench: -e %llu needs about %.1f GiB at %d "
		"ranks on this machine, which has %.1f GiB available: lower "
		"-e\n", (unsigned long long)o->maxb, need / 1073741824.0, pmax,
		avail / 1073741824.0);
	return 0;
}

/* --json and --csv writable before anything runs (created empty). */
static int outputs_ok(const cs_bench_opts_t *o)
{
	const char *path[2] = {o->json, o->csv};
	int i;

	for (i = 0; i < 2; i++) {
		FILE *f = path[i] ? fopen(path[i], "w") : NULL;
		if (path[i] && !f) {
			fprintf(stderr, "collspec bench: cannot write '%s': "
				"%s\n", path[i], strerror(errno));
			return 0;
		}
		if (f)
			fclose(f);
	}
	return 1;
}

/* ---- outputs ----------------------------------------------------------------- */

static int outputs(struct bench *B, const struct series *s, int ns)
{
	const cs_bench_opts_t *o = B->o;
	int i, k, rc = 0;

	for (i = 0; !o->quiet && i < ns; i++)
		for (k = 0; k < o->nsizes; k++)
			cs_bench_table(stdout, B->recs, B->nrecs, s[i].name,
				       o->sizes[k]);
	if (o->json && cs_bench_write_json(o->json, B->recs, B->nrecs) != CS_OK)
		rc = 2;
	if (o->csv && cs_bench_write_csv(o->csv, B->recs, B->nrecs) != CS_OK)
		rc = 2;
	if (o->plot && cs_bench_plot(o->plot, B->recs, B->nrecs) != CS_OK)
		rc = 2;
	if (rc)
		fprintf(stderr, "collspec bench: %s\n", cs_last_error());
	if (B->failures)
		printf("# %d message size%s FAILED (see above)\n", B->failures,
		       B->failures > 1 ? "s" : "");
	return rc ? rc : B->failures ? 1 : 0;
}

/* The driving side: the exit status. */
static int drive(const cs_bench_opts_t *o)
{
	struct bench B = {o, "", "", NULL, 0, 0, 0, NULL};
	struct series s[CS_BENCH_MAX_SERIES];
	size_t ncases[CS_MAX_SIZES];
	const char *dir = getenv("TMPDIR");
	ssize_t len = readlink("/proc/self/exe", B.self, sizeof B.self - 1);
	int ns, i, fd, rc = 2;

	if (len <= 0 || (size_t)len >= sizeof B.self - 1) {
		fprintf(stderr, "collspec bench: cannot find my own executable\n");
		return 2;
	}
	B.self[len] = '\0';
	if ((o->nalgs && !algs_ok(o)) || !count_cases(o, ncases) ||
	    !fits_ok(o) || !outputs_ok(o))
		return 2;
	ns = make_series(o, s, CS_BENCH_MAX_SERIES);
	if (!probe_all(o, s, ns))
		return 2;
	snprintf(B.out, sizeof B.out, "%s/collspec-bench-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(B.out)) < 0) {
		fprintf(stderr, "collspec bench: cannot create a file in %s: "
			"%s\n", dir && *dir ? dir : "/tmp", strerror(errno));
		return 2;
	}
	close(fd);
	for (i = 0; i < ns; i++)
		if (run_series(&B, &s[i], ncases) != CS_OK) {
			fprintf(stderr, "collspec bench: series %s: %s\n",
				s[i].name, cs_last_error());
			goto out_free;
		}
	rc = outputs(&B, s, ns);
out_free:
	unlink(B.out);
	free(B.recs);
	return rc;
}

int cs_cmd_bench(int argc, char **argv)
{
	cs_bench_opts_t *o = malloc(sizeof *o);
	int rc;

	if (!o)
		return 2;
	(void)cs_run_launched(); /* decide before anything calls MPI_Init */
	if (cs_bench_parse_args(argc, argv, o) != CS_OK)
		rc = 2;
	else if (o->help)
		rc = 0;
	else if (o->results)
		rc = cs_bench_worker(o);
	else if (cs_run_launched()) {
		fprintf(stderr, "collspec bench: run it without mpiexec or "
			"srun: it launches its own workers (--ranks)\n");
		rc = 2;
	} else
		rc = drive(o);
	free(o->list_buf);
	free(o);
	return rc;
}
