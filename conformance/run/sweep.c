/*
 * sweep.c - `collspec run --ranks A-B` outside a launcher: the sweep over
 * world sizes. Checks everything it can before anything runs (options, the
 * suite at every size, memory, the backend loaded in a child, the
 * launcher), opens the reports, then hands the world sizes to the driver
 * (driver.c), which launches and supervises the workers; their results
 * come back here and go to the reports. The backend's code never runs in
 * this process.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "csref/case.h"
#include "backends/registry.h"
#include "report/report.h"
#include "base/memest.h"
#include "base/result.h"
#include "run/run_args.h"
#include "worker/validate.h"
#include "suite/suite.h"
#include "check/verdict.h"
#include "driver/driver.h"
#include "run/sweep.h"

struct dsink {
	cs_report_t *rep;      /* NULL once closed (a signal stopped the run) */
	const cs_run_opts_t *o;
	const char *name;      /* the backend's name */
};

/* Results from the driver: fill what a crash or hang result lacks. */
static void driver_sink(const cs_result_t *r, void *ctx)
{
	struct dsink *d = ctx;
	cs_result_t *tmp = malloc(sizeof *tmp);

	if (!tmp) {
		fprintf(stderr, "collspec run: out of memory: the result of case "
			"#%zu is lost\n", r->hc.index);
		return;
	}
	*tmp = *r;
	if (!tmp->repro[0])
		cs_run_repro(d->o, &tmp->hc, tmp->hc.c.nranks, tmp->repro,
			     sizeof tmp->repro);
	if (!tmp->backend[0])
		snprintf(tmp->backend, sizeof tmp->backend, "%s", d->name);
	cs_report_add(d->rep, tmp);
	free(tmp);
}

/* Why the filters select nothing: name the first combination the spec does
 * not define (an op on a collective that does not reduce, a root on one
 * that has none, a root beyond every rank count), else say so plainly. */
static void explain_empty(const cs_run_opts_t *o)
{
	const cs_filter_t *f = &o->f;
	uint32_t want_ops = f->ops ? f->ops : ~0u;
	int c, maxp = 0, i;

	for (i = 0; i < o->nsizes; i++)
		maxp = o->sizes[i] > maxp ? o->sizes[i] : maxp;
	for (c = 0; c < CS_NUM_COLLS; c++) {
		if (f->colls && !(f->colls & (1u << c)))
			continue;
		if (!cs_coll_reduces(c) && !(want_ops & (1u << CS_OP_NONE))) {
			fprintf(stderr, "collspec run: %s does not reduce: --op "
				"does not apply to it (drop --op, or give --op none)\n",
				cs_coll_name(c));
			return;
		}
		if (cs_coll_reduces(c) && !(want_ops & ((1u << CS_NUM_OPS) - 1))) {
			fprintf(stderr, "collspec run: %s reduces: it needs an op "
				"(sum prod max min avg premulsum), not 'none'\n",
				cs_coll_name(c));
			return;
		}
		if (f->root >= 0 && !cs_coll_rooted(c)) {
			fprintf(stderr, "collspec run: %s has no root: --root does "
				"not apply to it\n", cs_coll_name(c));
			return;
		}
		if (f->root >= maxp && cs_coll_rooted(c)) {
			fprintf(stderr, "collspec run: root %d is out of range for "
				"%d ranks\n", f->root, maxp);
			return;
		}
	}
	fprintf(stderr, "collspec run: no case of the suite matches the "
		"filters at the --ranks given\n");
}

/*
 * A case whose buffers cannot fit in this machine's memory, with all P ranks
 * of the launch on it, is refused before anything runs: otherwise the
 * kernel kills a rank and the harness would blame the implementation
 * ("crash"). The scale suite's cases are that large by design: its
 * workers skip each one that does not fit, with the reason (worker.c).
 */
static int fits_in_memory(const cs_run_opts_t *o, const cs_hcase_t *cases,
			  size_t n, int P)
{
	const cs_suite_info_t *si = cs_suite_find(o->suite);
	double avail = cs_mem_available(), worst = 0, need;
	size_t i, k = 0;

	if (si && si->big) /* its workers skip case by case */
		return 1;
	for (i = 0; avail > 0 && i < n; i++) {
		need = cs_hcase_mem_need(&cases[i], P, o->repeat);
		if (need > worst) {
			worst = need;
			k = i;
		}
	}
	if (avail <= 0 || worst * P <= 0.9 * avail)
		return 1;
	fprintf(stderr, "collspec run: case #%zu (%s %s, count %zu) needs about "
		"%.1f GiB at %d ranks on this machine, which has %.1f GiB "
		"available: use a smaller --count\n", k,
		cs_coll_name(cases[k].c.coll), cs_dtype_name(cases[k].c.dtype),
		cases[k].c.count, worst * P / 1073741824.0, P,
		avail / 1073741824.0);
	return 0;
}

static size_t count_from(const cs_hcase_t *cases, size_t n, size_t first)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += cases[i].index >= first;
	return k;
}

/* Cases the sweep will run, over all world sizes (0 on a suite error or
 * a case too large for this machine's memory: said on stderr). */
static size_t sweep_total(const cs_run_opts_t *o, size_t *ncases)
{
	cs_hcase_t *cases;
	size_t n, total = 0;
	int i;

	for (i = 0; i < o->nsizes; i++) {
		if (cs_suite_build(o->suite, o->sizes[i], &o->f, &cases, &n) !=
		    CS_OK) {
			fprintf(stderr, "collspec run: %s\n", cs_last_error());
			return 0;
		}
		if (!fits_in_memory(o, cases, n, o->sizes[i])) {
			free(cases);
			return 0;
		}
		ncases[i] = n;
		total += count_from(cases, n, o->first);
		free(cases);
	}
	if (!total)
		explain_empty(o);
	return total;
}

/* 1 when the launcher can be executed (a path, or a name on PATH). */
static int launcher_found(const char *name)
{
	char buf[PATH_MAX], *path, *dir, *save = NULL;
	const char *env = getenv("PATH");
	int found = 0;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!env || !(path = strdup(env)))
		return 0;
	for (dir = strtok_r(path, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof buf, "%s/%s", *dir ? dir : ".", name);
		found = access(buf, X_OK) == 0;
	}
	free(path);
	return found;
}

/*
 * Everything the driver checks before it writes or launches anything:
 * options, a non-empty sweep, the backend (a plugin is loaded in a child
 * process, under the --timeout), the launcher (unless the backend runs
 * every rank in the worker). 1 when the sweep can start, 0 when it cannot
 * (said on stderr). A plugin that crashed, exited or hung while loading
 * is not a refusal but the run's failure: *loadfail is then its message
 * (malloc'ed) and the result 1.
 */
static int preflight_ok(const cs_run_opts_t *o, int pmax,
			cs_backend_info_t *info, size_t *total, size_t *ncases,
			char **loadfail)
{
	*loadfail = NULL;
	if (!cs_run_opts_ok(o, pmax))
		return 0;
	*total = sweep_total(o, ncases);
	if (!*total)
		return 0;
	if (cs_backend_probe(o->backend, o->timeout, info) != CS_OK) {
		if (info->fault)
			return (*loadfail = strdup(cs_last_error())) != NULL;
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		return 0;
	}
	if (info->proc_model != CS_PROC_ALL_IN_PROCESS &&
	    !launcher_found(o->mpiexec ? o->mpiexec
				       : cs_driver_default_launcher())) {
		fprintf(stderr, "collspec run: mpiexec not found: %s (install an "
			"MPI, or name the launcher with --mpiexec PATH)\n",
			o->mpiexec ? o->mpiexec : "no 'mpiexec' on PATH");
		return 0;
	}
	return 1;
}

/* A signal stops the sweep: the reports say so before the driver dies (or,
 * when the signal is ignored and the driver lives on, exits 2). */
static void driver_signal(int sig, void *ctx)
{
	struct dsink *d = ctx;
	char why[96];

	snprintf(why, sizeof why, "run stopped by signal %d (%s)", sig,
		 strsignal(sig));
	cs_report_abort(d->rep, why);
	d->rep = NULL;
}

/* A case has started in a worker: the progress line. */
static void driver_start(const cs_result_t *r, void *ctx)
{
	struct dsink *d = ctx;

	cs_report_start(d->rep, &r->hc);
}

static void driver_opts(const cs_run_opts_t *o, int pmax, int inproc,
			const char *self, cs_driver_opts_t *d)
{
	memset(d, 0, sizeof *d);
	d->sizes = o->sizes;
	d->nsizes = o->nsizes;
	d->rmin = o->sizes[0];
	d->rmax = pmax;
	d->case_timeout = o->timeout;
	d->first = o->first;
	d->mpiexec = o->mpiexec;
	d->self = self;
	d->worker_args = o->wargs;
	d->nworker_args = o->nwargs;
	d->verbose = o->verbose;
	d->no_launcher = inproc;
	d->on_start = driver_start;
	d->on_signal = driver_signal;
}

/* The path of this executable into self[0..n); 0 when not found (said). */
static int find_self_ok(char *self, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", self, n - 1);

	if (len <= 0 || (size_t)len >= n - 1) {
		fprintf(stderr, "collspec run: cannot find my own executable\n");
		return 0;
	}
	self[len] = '\0';
	return 1;
}

/* The sweep, reports open: the exit code. */
static int drive(const cs_run_opts_t *o, int pmax, const cs_backend_info_t *bi,
		 const char *self, size_t *ncases, struct dsink *sink)
{
	cs_driver_opts_t d;

	driver_opts(o, pmax, bi->proc_model == CS_PROC_ALL_IN_PROCESS, self, &d);
	d.ncases = ncases;
	if (cs_driver_run(&d, driver_sink, sink) == CS_OK)
		return cs_report_close(sink->rep);
	fprintf(stderr, "collspec run: %s\n", cs_last_error());
	cs_report_abort(sink->rep, cs_last_error()); /* (none after a signal) */
	return 2;
}

/* --comm-log: the file emptied before the first world size (each
 * worker appends its own). 1 when it could be (or none was asked for). */
static int comm_log_emptied(const cs_run_opts_t *o)
{
	FILE *f;

	if (!o->comm_log)
		return 1;
	if (!(f = fopen(o->comm_log, "w"))) {
		fprintf(stderr, "collspec run: cannot write the communication "
			"log '%s': %s\n", o->comm_log, strerror(errno));
		return 0;
	}
	fclose(f);
	return 1;
}

int cs_run_sweep(const cs_run_opts_t *o)
{
	cs_backend_info_t bi;
	cs_report_opts_t ro;
	struct dsink sink = {NULL, o, NULL};
	size_t ncases[CS_MAX_SIZES], total = 0;
	char self[PATH_MAX], *loadfail = NULL;
	int i, pmax = 1, rc;

	for (i = 0; i < o->nsizes; i++)
		pmax = o->sizes[i] > pmax ? o->sizes[i] : pmax;
	if (!preflight_ok(o, pmax, &bi, &total, ncases, &loadfail) ||
	    !find_self_ok(self, sizeof self)) {
		free(loadfail);
		return 2;
	}
	sink.name = bi.name;
	if (!comm_log_emptied(o)) {
		free(loadfail);
		return 2;
	}
	cs_run_report_opts(o, &ro);
	if (cs_report_open(&ro, &sink.rep) != CS_OK) {
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		free(loadfail);
		return 2;
	}
	if (loadfail) { /* (said in the report) */
		rc = cs_report_fail_run(sink.rep, "load", loadfail);
		free(loadfail);
		return rc;
	}
	cs_report_set_total(sink.rep, total);
	return drive(o, pmax, &bi, self, ncases, &sink);
}
