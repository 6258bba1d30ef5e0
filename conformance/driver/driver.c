/*
 * driver.c - `collspec run --ranks A-B`: launch one mpiexec per world size
 * and supervise it (protocol in driver.h).
 *
 * Each launch runs in a session of its own (setsid), with stdin from
 * /dev/null. Open MPI puts every rank in a process group of its own, so the
 * process group of mpiexec does not hold the ranks; the session does. To
 * end a launch the driver sends SIGTERM to mpiexec (which tears its ranks
 * down), waits up to KILL_GRACE seconds, then sends SIGKILL to every
 * process of the session and to any process that was reparented to the
 * driver (it makes itself a child subreaper for the duration of the run),
 * and reaps what it can. This runs on every way out of a launch: normal
 * exit, crash, hang, and SIGINT/SIGTERM/SIGHUP to the driver.
 *
 * Interpretation of a launch's end (nothing pending = every "start" line
 * has its final line):
 *   a case pending             -> FAIL "crash" for it, resume after it;
 *   no final line in time      -> FAIL "hang" for it, kill, resume after it;
 *   status 0 or 1, none pending -> the worker finished its list (1 is the
 *                                 CLI's "failures found");
 *   other status, none pending -> if cases ran, resume after the last one;
 *                                 if none, a launch failure: the second one
 *                                 at the same --first is an environment
 *                                 error (CS_ERR_UNSUPPORTED).
 * The results file is a temporary file on this machine, so rank 0 of the
 * worker must run here (mpiexec's default placement).
 *
 * The launcher's profile (launcher.h: Open MPI, MPICH's Hydra or generic)
 * is detected once per run from `mpiexec --version`; it gives the launch
 * line's options and the reading of a rank's death. To read that death,
 * the launcher's stdout and stderr go to two temporary files that the
 * driver copies to its own stdout and stderr as they grow (every POLL_S),
 * keeping the last TAIL_MAX bytes of each for the crash reason (Hydra
 * reports a rank's signal only in words, on stdout). Files, not pipes: a
 * writer never blocks on a driver that is busy killing a launch.
 *
 * This file finds the launcher, reads the results file, supervises each
 * launch and runs the sweep; driver_proc.c holds the processes (the
 * signal handlers, starting and ending a launch, the captured output);
 * driver_impl.h is the state they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "driver/driver.h"
#include "driver/driver_impl.h"
#include "driver/launcher.h"
#include "base/json.h"

#define POLL_S 0.05       /* how often the results file is read */
#define IDLE_GRACE 60.0   /* extra silence allowed when no case is pending */

/* The mpiexec of the MPI library collspec was built with (set by the
 * build: conformance/CMakeLists.txt); empty when unknown. */
#ifndef CS_BUILD_MPIEXEC
#define CS_BUILD_MPIEXEC ""
#endif

/* ---- finding the launcher ----------------------------------------------- */

static int executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* name as given if it has a '/', else the first match on PATH. */
static cs_status_t find_launcher(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/')) {
		if (executable(name) && (size_t)snprintf(out, n, "%s", name) < n)
			return CS_OK;
		return cs_error(CS_ERR_UNSUPPORTED, "mpiexec not found: '%s' "
				"is not an executable file", name);
	}
	for (p = path; p && *p;) {
		size_t len = strcspn(p, ":");
		int w = snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", name);

		if (w > 0 && (size_t)w < n && executable(out))
			return CS_OK;
		p += len + (p[len] == ':');
	}
	return cs_error(CS_ERR_UNSUPPORTED, "mpiexec not found: no '%s' on "
			"PATH (%s); install MPI or pass the launcher's path",
			name, path ? path : "unset");
}

const char *cs_driver_default_launcher(void)
{
	if (*CS_BUILD_MPIEXEC && executable(CS_BUILD_MPIEXEC))
		return CS_BUILD_MPIEXEC;
	return "mpiexec";
}

/* ---- reading results ---------------------------------------------------- */

static void take_line(struct driver *d, struct launch *l, const char *line)
{
	cs_result_t r;

	if (!*line)
		return;
	if (cs_result_from_json(line, &r) != CS_OK) {
		fprintf(stderr, "collspec: ignoring a malformed result line "
			"from the worker (%s)\n", cs_last_error());
		return;
	}
	l->t_last = cs_driver_now_s();
	if (strcmp(r.check, "start") == 0) {
		l->pending = r;
		l->has_pending = 1;
		l->t_pending = l->t_last;
		l->started++;
		if (d->o->on_start)
			d->o->on_start(&r, d->ctx);
		return;
	}
	/* a second final line for the case just finished: more than one
	 * rank reported a fault on a guard page (worker/fault.c) */
	if (!l->has_pending && l->finals && r.hc.index + 1 == l->next)
		return;
	l->has_pending = 0;
	l->faulted = strcmp(r.check, "guardpage") == 0;
	l->finals++;
	l->next = r.hc.index + 1;
	d->sink(&r, d->ctx);
}

/* Read what the worker appended since last time; hand on complete lines. */
static cs_status_t read_results(struct driver *d, struct launch *l)
{
	for (;;) {
		size_t start = 0, i;
		ssize_t k;

		if (l->cap - l->len < 4096) {
			char *b = realloc(l->buf, l->cap * 2 + 8192);
			if (!b)
				return cs_error(CS_ERR_NOMEM, "driver: out of memory");
			l->buf = b;
			l->cap = l->cap * 2 + 8192;
		}
		k = pread(d->fd, l->buf + l->len, l->cap - l->len - 1, l->off);
		if (k <= 0)
			return CS_OK;
		l->off += k;
		l->len += (size_t)k;
		for (i = 0; i < l->len; i++) {
			if (l->buf[i] != '\n')
				continue;
			l->buf[i] = '\0';
			take_line(d, l, l->buf + start);
			start = i + 1;
		}
		memmove(l->buf, l->buf + start, l->len - start);
		l->len -= start;
	}
}

/* ---- supervising -------------------------------------------------------- */

/* Follow the launch until it exits, hangs, goes silent or we are signalled. */
static cs_status_t watch_launch(struct driver *d, struct launch *l,
				enum end_kind *end)
{
	double timeout = d->o->case_timeout;
	cs_status_t st;

	for (;;) {
		double t;

		st = read_results(d, l);
		if (st != CS_OK || cs_driver_signalled()) {
			*end = END_SIGNAL;
			return st;
		}
		cs_driver_drain_captures(d);
		if (cs_driver_wait_launcher(l, 0)) {
			st = read_results(d, l); /* what it wrote last */
			*end = l->has_pending ? END_CRASH : END_OK;
			return st;
		}
		t = cs_driver_now_s();
		if (l->has_pending && t - l->t_pending > timeout) {
			*end = END_HANG;
			return CS_OK;
		}
		if (!l->has_pending && t - l->t_last > timeout + IDLE_GRACE) {
			*end = END_SILENT;
			return CS_OK;
		}
		cs_driver_sleep_s(POLL_S);
	}
}

/* One line on how the launcher (or the launcher-less worker) ended; the
 * launcher's own words on a rank's death are read by its profile. */
static void describe_end(const struct driver *d, const struct launch *l,
			 enum end_kind end, char *buf, size_t n)
{
	int s = l->status;
	char out[2 * TAIL_MAX + 2];

	if (end == END_SILENT) {
		snprintf(buf, n, "no output for %.3g s",
			 d->o->case_timeout + IDLE_GRACE);
	} else if (!d->o->no_launcher) {
		snprintf(out, sizeof out, "%s\n%s", d->cap[0].tail,
			 d->cap[1].tail);
		cs_launcher_describe(d->kind, s, out, buf, n);
	} else if (WIFSIGNALED(s)) {
		snprintf(buf, n, "the worker was killed by signal %d (%s)",
			 WTERMSIG(s), strsignal(WTERMSIG(s)));
	} else {
		snprintf(buf, n, "the worker exited with status %d",
			 WIFEXITED(s) ? WEXITSTATUS(s) : -1);
	}
}

/* FAIL "crash" or "hang" for the case the launch was running. */
static void emit_failure(struct driver *d, const struct launch *l, int P,
			 enum end_kind end)
{
	cs_result_t r = l->pending;
	char how[256];

	r.verdict = CS_V_FAIL;
	r.detail[0] = '\0';
	r.seconds = cs_driver_now_s() - l->t_pending;
	if (end == END_HANG) {
		snprintf(r.check, sizeof r.check, "hang");
		snprintf(r.reason, sizeof r.reason, "no result within the "
			 "per-case timeout of %.3g s at %d ranks; the worker's "
			 "processes were killed", d->o->case_timeout, P);
	} else {
		describe_end(d, l, end, how, sizeof how);
		snprintf(r.check, sizeof r.check, "crash");
		if (snprintf(r.reason, sizeof r.reason, "the worker died during "
			     "this case at %d ranks: %s", P, how) < 0)
			r.reason[0] = '\0';
	}
	d->sink(&r, d->ctx);
}

/* The launch ended normally and, where the case count is known, after its
 * last case (a worker that stops early has failed, whatever its status). */
static int finished(const struct launch *l, enum end_kind end, size_t ncases)
{
	if (!(end == END_OK && WIFEXITED(l->status) && WEXITSTATUS(l->status) <= 1))
		return 0;
	return ncases == (size_t)-1 || (l->finals ? l->next : l->first) >= ncases;
}

/* Launch, supervise and end one launch of P ranks from l->first. */
static cs_status_t one_launch(struct driver *d, int P, struct launch *l,
			      enum end_kind *end)
{
	cs_status_t st = cs_driver_start_launch(d, P, l);

	*end = END_SIGNAL;
	if (st == CS_OK)
		st = watch_launch(d, l, end);
	if (l->pid > 0)
		cs_driver_end_launch(d, l);
	cs_driver_drain_captures(d); /* its last words: the crash reason reads them */
	free(l->buf);
	l->buf = NULL;
	return st;
}

/* All cases at world size P, resuming after each crash or hang. */
static cs_status_t run_world(struct driver *d, int P, size_t ncases)
{
	size_t first = d->o->first, failed_at = (size_t)-1;

	for (;;) {
		struct launch l;
		enum end_kind end;
		char how[256];
		cs_status_t st;

		if (first >= ncases) /* nothing (left) to run at this size */
			return CS_OK;
		memset(&l, 0, sizeof l);
		l.first = first;
		st = one_launch(d, P, &l, &end);
		if (st != CS_OK || end == END_SIGNAL || finished(&l, end, ncases))
			return st;
		if (end == END_CRASH || end == END_HANG) {
			emit_failure(d, &l, P, end);
			first = l.pending.hc.index + 1;
			continue;
		}
		describe_end(d, &l, end, how, sizeof how);
		if (l.finals) { /* died between cases: resume after the last */
			first = l.next;
			if (l.faulted) /* the rank said why (worker/fault.c) */
				continue;
			fprintf(stderr, "collspec: warning: the worker at %d "
				"ranks ended abnormally after case %zu (%s); "
				"resuming\n", P, l.next - 1, how);
			continue;
		}
		if (first == failed_at)
			return cs_error(CS_ERR_UNSUPPORTED, "%s -n %d: the worker "
					"failed twice before running any case "
					"(--first %zu; %s); see its messages "
					"above", d->mpiexec, P, first, how);
		failed_at = first;
	}
}

/* ---- the run ------------------------------------------------------------ */

static cs_status_t check_opts(const cs_driver_opts_t *o, cs_result_sink_t sink)
{
	int i;

	if (!o || !sink)
		return cs_error(CS_ERR_INVALID, "cs_driver_run: NULL options "
				"or sink");
	if (!o->self || !executable(o->self))
		return cs_error(CS_ERR_INVALID, "worker binary '%s' is not an "
				"executable file", o->self ? o->self : "(null)");
	if (o->nworker_args < 0 || (o->nworker_args && !o->worker_args))
		return cs_error(CS_ERR_INVALID, "bad worker arguments");
	if (o->nenv < 0 || (o->nenv && !o->env))
		return cs_error(CS_ERR_INVALID, "bad worker environment");
	for (i = 0; i < o->nenv; i++)
		if (!o->env[i] || !strchr(o->env[i], '='))
			return cs_error(CS_ERR_INVALID, "worker environment "
					"entry %d: NAME=VALUE expected", i);
	if (!(o->case_timeout > 0))
		return cs_error(CS_ERR_INVALID, "case timeout %g s: must be "
				"positive", o->case_timeout);
	if (o->nsizes < 0 || (o->nsizes > 0 && !o->sizes))
		return cs_error(CS_ERR_INVALID, "bad list of world sizes");
	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] < 1)
			return cs_error(CS_ERR_INVALID, "world size %d: must be "
					"at least 1", o->sizes[i]);
	if (!o->nsizes && (o->rmin < 1 || o->rmax < o->rmin))
		return cs_error(CS_ERR_INVALID, "rank range %d-%d: need "
				"1 <= A <= B", o->rmin, o->rmax);
	return CS_OK;
}

/* The results file and the capture files, in TMPDIR (or /tmp). */
static cs_status_t open_files(struct driver *d)
{
	const char *dir = getenv("TMPDIR");

	if (!dir || !*dir)
		dir = "/tmp";
	if (strlen(dir) + 32 >= sizeof d->results)
		return cs_error(CS_ERR_IO, "TMPDIR is too long");
	snprintf(d->results, sizeof d->results, "%s/collspec-results-XXXXXX",
		 dir);
	d->fd = mkstemp(d->results);
	if (d->fd < 0)
		return cs_error(CS_ERR_IO, "cannot create a results file in "
				"%s: %s", dir, strerror(errno));
	return cs_driver_open_captures(d, dir);
}

/* The launcher's path and profile (nothing to find without a launcher). */
static cs_status_t find_profile(struct driver *d)
{
	const cs_driver_opts_t *o = d->o;
	char version[160];
	cs_status_t st;

	d->kind = CS_LAUNCHER_GENERIC;
	if (o->no_launcher) {
		snprintf(d->mpiexec, sizeof d->mpiexec, "%s", o->self);
		return CS_OK;
	}
	st = find_launcher(o->mpiexec ? o->mpiexec
				       : cs_driver_default_launcher(),
			   d->mpiexec, sizeof d->mpiexec);
	if (st == CS_OK)
		st = cs_launcher_detect(d->mpiexec, &d->kind, version,
					sizeof version);
	if (st == CS_OK && o->verbose)
		fprintf(stderr, "collspec: %s is %s (%s)\n", d->mpiexec,
			cs_launcher_name(d->kind),
			*version ? version : "its --version printed nothing");
	return st;
}

static void close_files(struct driver *d)
{
	if (d->fd >= 0) {
		close(d->fd);
		unlink(d->results);
	}
	cs_driver_close_captures(d);
}


/*
 * Run the sweep (see driver.h and the top of this file). Results go to
 * sink as they come. If the driver receives SIGINT, SIGTERM or SIGHUP, it
 * kills the running launch, restores the handlers the caller had and
 * raises the signal again (with the default handler the process ends);
 * if the process survives that, it returns CS_ERR_IO ("interrupted").
 */
cs_status_t cs_driver_run(const cs_driver_opts_t *o, cs_result_sink_t sink,
			  void *ctx)
{
	struct driver *d;
	cs_status_t st = check_opts(o, sink);
	int i, n, sig;

	if (st != CS_OK)
		return st;
	d = calloc(1, sizeof *d);
	if (!d)
		return cs_error(CS_ERR_NOMEM, "driver: out of memory");
	d->o = o;
	d->sink = sink;
	d->ctx = ctx;
	d->fd = d->cap[0].fd = d->cap[1].fd = -1;
	st = find_profile(d);
	if (st == CS_OK)
		st = open_files(d);
	if (st != CS_OK) {
		close_files(d);
		free(d);
		return st;
	}
	cs_driver_install(d);
	n = o->nsizes > 0 ? o->nsizes : o->rmax - o->rmin + 1;
	for (i = 0; i < n && st == CS_OK && !cs_driver_signalled(); i++)
		st = run_world(d, o->nsizes > 0 ? o->sizes[i] : o->rmin + i,
			       o->ncases ? o->ncases[i] : (size_t)-1);
	sig = cs_driver_restore(d);
	close_files(d);
	free(d);
	if (!sig)
		return st;
	if (o->on_signal)
		o->on_signal(sig, ctx);
	raise(sig);
	return cs_error(CS_ERR_IO, "interrupted by signal %d (%s); the "
			"workers were killed", sig, strsignal(sig));
}
