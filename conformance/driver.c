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
 * About 880 lines, over the project's 500: a launch's life (start, watch,
 * end, kill what is left) reads as one unit; the launcher profiles live
 * in launcher.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "driver.h"
#include "launcher.h"
#include "json.h"

#define POLL_S 0.05       /* how often the results file is read */
#define KILL_GRACE 2.0    /* SIGTERM to SIGKILL */
#define IDLE_GRACE 60.0   /* extra silence allowed when no case is pending */
#define MAX_PRE 256       /* children the caller had before the run */
#define TAIL_MAX 8192     /* bytes of each launcher stream kept */

/* The mpiexec of the MPI library collspec was built with (set by the
 * build: conformance/CMakeLists.txt); empty when unknown. */
#ifndef CS_BUILD_MPIEXEC
#define CS_BUILD_MPIEXEC ""
#endif

static volatile sig_atomic_t g_signal;   /* signal received, 0 if none */
static volatile sig_atomic_t g_launcher; /* pid of the running mpiexec */

static void on_signal(int sig)
{
	g_signal = sig;
	if (g_launcher > 0)
		kill((pid_t)g_launcher, SIGTERM);
}

/* How a launch ended. */
enum end_kind {
	END_OK,      /* exited, nothing pending */
	END_CRASH,   /* exited with a case pending */
	END_HANG,    /* a case went past the timeout */
	END_SILENT,  /* no line for too long, nothing pending */
	END_SIGNAL   /* the driver was interrupted */
};

/* One of the launcher's output streams, captured in a file (see top). */
struct capture {
	int fd;               /* the file (O_APPEND); -1 when not captured */
	int to;               /* our descriptor it is copied to */
	off_t off;            /* bytes copied so far */
	char tail[TAIL_MAX];  /* the last bytes copied, NUL-terminated */
	size_t tail_len;
	char path[PATH_MAX];
};

struct driver {
	const cs_driver_opts_t *o;
	cs_result_sink_t sink;
	void *ctx;
	char mpiexec[PATH_MAX];
	cs_launcher_kind_t kind; /* the launcher's profile */
	char results[PATH_MAX];
	int fd;
	struct capture cap[2];   /* the launcher's stdout, stderr */
	pid_t pre[MAX_PRE]; /* the caller's own children: never touched */
	int npre;
	struct sigaction old[3];
	int old_reaper;
};

/* One launch's state, as read from the results file. */
struct launch {
	pid_t pid;
	int status, reaped;
	size_t first, started, finals, next; /* next: index after the last */
	cs_result_t pending;
	int has_pending;
	double t_pending, t_last;
	char *buf;               /* bytes read, not yet a complete line */
	size_t len, cap;
	off_t off;
};

static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL); /* a signal cuts it short: fine */
}

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

/* ---- processes ---------------------------------------------------------- */

/* ppid, session and state of pid from /proc: true when read, false when
 * pid is gone or its stat line cannot be parsed. */
static bool proc_ids_ok(pid_t pid, pid_t *ppid, pid_t *sid, char *state)
{
	char path[64], buf[512], *p;
	int fd, ppid_i, pgrp, sid_i;
	ssize_t k;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	k = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (k <= 0)
		return false;
	buf[k] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p || sscanf(p + 1, " %c %d %d %d", state, &ppid_i, &pgrp,
			 &sid_i) != 4)
		return false;
	*ppid = ppid_i;
	*sid = sid_i;
	return true;
}

static int is_pre(const struct driver *d, pid_t pid)
{
	int i;

	for (i = 0; i < d->npre; i++)
		if (d->pre[i] == pid)
			return 1;
	return 0;
}

/*
 * SIGKILL every process of session sid and every child of ours that the
 * caller did not have before the run (orphans reparented to us); reap our
 * children among them. Returns how many processes were signalled.
 */
static int kill_session(const struct driver *d, pid_t sid)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		pid_t pid = (pid_t)atoi(e->d_name), ppid, psid;
		char state;

		if (pid <= 0 || pid == self ||
		    !proc_ids_ok(pid, &ppid, &psid, &state))
			continue;
		if (psid != sid && (ppid != self || is_pre(d, pid)))
			continue;
		/* a zombie is dead already; its parent, or we, reap it */
		if (state != 'Z' && kill(pid, SIGKILL) == 0)
			n++;
		if (ppid == self && pid != sid) /* the launcher: wait_launcher */
			waitpid(pid, NULL, 0);
	}
	closedir(dir);
	return n;
}

/* The caller's children before the run, so that they are left alone. */
static void note_children(struct driver *d)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();

	d->npre = 0;
	while (dir && (e = readdir(dir)) && d->npre < MAX_PRE) {
		pid_t pid = (pid_t)atoi(e->d_name), ppid, sid;
		char state;

		if (pid > 0 && proc_ids_ok(pid, &ppid, &sid, &state) &&
		    ppid == self)
			d->pre[d->npre++] = pid;
	}
	if (dir)
		closedir(dir);
}

/* Wait up to `secs` for the launcher to exit; 1 if it has. */
static int wait_launcher(struct launch *l, double secs)
{
	double end = now_s() + secs;

	while (!l->reaped) {
		pid_t w = waitpid(l->pid, &l->status, WNOHANG);

		if (w == l->pid || (w < 0 && errno == ECHILD)) {
			l->reaped = 1;
			break;
		}
		if (now_s() >= end)
			break;
		sleep_s(0.02);
	}
	return l->reaped;
}

/*
 * End the launch and everything it started: SIGTERM to mpiexec, a grace
 * period, then SIGKILL to the whole session until nothing is left.
 */
static void end_launch(const struct driver *d, struct launch *l)
{
	int round;

	if (!l->reaped) {
		kill(l->pid, SIGTERM);
		wait_launcher(l, KILL_GRACE);
	}
	for (round = 0; round < 50; round++) {
		int n = kill_session(d, l->pid);

		if (!l->reaped) {
			kill(l->pid, SIGKILL);
			wait_launcher(l, 1.0);
		}
		if (!n && l->reaped)
			break;
		sleep_s(0.02);
	}
	g_launcher = 0;
}

/* ---- the launcher's output ---------------------------------------------- */

/* Temporary files for the launcher's stdout and stderr (launcher mode);
 * cap[i].fd stays -1 when not captured. */
static cs_status_t open_captures(struct driver *d, const char *dir)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct capture *c = &d->cap[i];

		c->to = i ? STDERR_FILENO : STDOUT_FILENO;
		if (d->o->no_launcher)
			continue;
		snprintf(c->path, sizeof c->path, "%s/collspec-%s-XXXXXX", dir,
			 i ? "stderr" : "stdout");
		c->fd = mkostemp(c->path, O_APPEND);
		if (c->fd < 0)
			return cs_error(CS_ERR_IO, "cannot create a file for "
					"mpiexec's output in %s: %s", dir,
					strerror(errno));
	}
	return CS_OK;
}

static void close_captures(struct driver *d)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (d->cap[i].fd < 0)
			continue;
		close(d->cap[i].fd);
		unlink(d->cap[i].path);
		d->cap[i].fd = -1;
	}
}

/* Empty the capture files before a launch. */
static cs_status_t reset_captures(struct driver *d)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct capture *c = &d->cap[i];

		c->off = 0;
		c->tail_len = 0;
		c->tail[0] = '\0';
		if (c->fd >= 0 && ftruncate(c->fd, 0) != 0)
			return cs_error(CS_ERR_IO, "cannot reset %s: %s",
					c->path, strerror(errno));
	}
	return CS_OK;
}

/* Keep the last TAIL_MAX - 1 bytes seen in c->tail. */
static void keep_tail(struct capture *c, const char *b, size_t k)
{
	size_t room = TAIL_MAX - 1;

	if (k >= room) {
		memcpy(c->tail, b + k - room, room);
		c->tail_len = room;
	} else {
		if (c->tail_len + k > room) {
			size_t drop = c->tail_len + k - room;

			memmove(c->tail, c->tail + drop, c->tail_len - drop);
			c->tail_len -= drop;
		}
		memcpy(c->tail + c->tail_len, b, k);
		c->tail_len += k;
	}
	c->tail[c->tail_len] = '\0';
}

/* Copy what the launcher wrote since last time to our stdout/stderr. */
static void drain_captures(struct driver *d)
{
	char b[8192];
	int i;

	for (i = 0; i < 2; i++) {
		struct capture *c = &d->cap[i];
		ssize_t k;

		while (c->fd >= 0 &&
		       (k = pread(c->fd, b, sizeof b, c->off)) > 0) {
			ssize_t w = 0, done;

			for (done = 0; done < k && w >= 0; done += w)
				w = write(c->to, b + done, (size_t)(k - done));
			c->off += k;
			keep_tail(c, b, (size_t)k);
		}
	}
}

/* ---- launching ---------------------------------------------------------- */

/* argv of one launch; strings point into o, d and the number buffers. */
static char **launch_argv(const struct driver *d, int P, size_t first,
			  char *np, char *kfirst)
{
	const cs_driver_opts_t *o = d->o;
	char **argv = calloc((size_t)o->nworker_args + 16 +
			     CS_LAUNCHER_MAX_FLAGS, sizeof *argv);
	int a = 0, i;

	if (!argv)
		return NULL;
	snprintf(np, 16, "%d", P);
	snprintf(kfirst, 32, "%zu", first);
	if (!o->no_launcher) {
		const char *flags[CS_LAUNCHER_MAX_FLAGS];
		int nf = cs_launcher_flags(d->kind, (unsigned)geteuid(), flags);

		argv[a++] = (char *)d->mpiexec;
		argv[a++] = "-n";
		argv[a++] = np;
		for (i = 0; i < nf; i++)
			argv[a++] = (char *)flags[i];
	}
	argv[a++] = (char *)o->self;
	argv[a++] = "run";
	argv[a++] = "--results";
	argv[a++] = (char *)d->results;
	argv[a++] = "--first";
	argv[a++] = kfirst;
	if (o->no_launcher) {
		argv[a++] = "--ranks";
		argv[a++] = np;
	}
	for (i = 0; i < o->nworker_args; i++)
		argv[a++] = o->worker_args[i];
	argv[a] = NULL;
	return argv;
}

static void echo_argv(char **argv)
{
	int i;

	fprintf(stderr, "collspec: launching");
	for (i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

/* In the child, right after fork: a session of its own, stdin from
 * /dev/null, stdout and stderr into the capture files (when captured),
 * then exec; _exit(127) when exec fails (the child never returns into
 * the driver's code). */
static void exec_child(const struct driver *d, char **argv)
{
	sigset_t none;
	int fd, i;

	setsid();
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	for (i = 0; i < 2; i++)
		if (d->cap[i].fd >= 0)
			dup2(d->cap[i].fd, d->cap[i].to);
	for (i = 0; i < 3; i++)
		signal(caught[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(argv[0], argv); /* the environment goes through unchanged */
	fprintf(stderr, "collspec: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

static cs_status_t start_launch(struct driver *d, int P, struct launch *l)
{
	char np[16], kfirst[32], **argv;

	if (ftruncate(d->fd, 0) != 0)
		return cs_error(CS_ERR_IO, "cannot reset results file %s: %s",
				d->results, strerror(errno));
	if (reset_captures(d) != CS_OK)
		return CS_ERR_IO;
	argv = launch_argv(d, P, l->first, np, kfirst);
	if (!argv)
		return cs_error(CS_ERR_NOMEM, "driver: out of memory");
	if (d->o->verbose)
		echo_argv(argv);
	fflush(NULL);
	l->pid = fork();
	if (l->pid == 0)
		exec_child(d, argv);
	free(argv);
	if (l->pid < 0)
		return cs_error(CS_ERR_IO, "cannot fork to launch %s: %s",
				d->mpiexec, strerror(errno));
	g_launcher = (sig_atomic_t)l->pid;
	l->t_last = now_s();
	return CS_OK;
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
	l->t_last = now_s();
	if (strcmp(r.check, "start") == 0) {
		l->pending = r;
		l->has_pending = 1;
		l->t_pending = l->t_last;
		l->started++;
		if (d->o->on_start)
			d->o->on_start(&r, d->ctx);
		return;
	}
	l->has_pending = 0;
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
		if (st != CS_OK || g_signal) {
			*end = END_SIGNAL;
			return st;
		}
		drain_captures(d);
		if (wait_launcher(l, 0)) {
			st = read_results(d, l); /* what it wrote last */
			*end = l->has_pending ? END_CRASH : END_OK;
			return st;
		}
		t = now_s();
		if (l->has_pending && t - l->t_pending > timeout) {
			*end = END_HANG;
			return CS_OK;
		}
		if (!l->has_pending && t - l->t_last > timeout + IDLE_GRACE) {
			*end = END_SILENT;
			return CS_OK;
		}
		sleep_s(POLL_S);
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
	r.seconds = now_s() - l->t_pending;
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
	cs_status_t st = start_launch(d, P, l);

	*end = END_SIGNAL;
	if (st == CS_OK)
		st = watch_launch(d, l, end);
	if (l->pid > 0)
		end_launch(d, l);
	drain_captures(d); /* its last words: the crash reason reads them */
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
			fprintf(stderr, "collspec: warning: the worker at %d "
				"ranks ended abnormally after case %zu (%s); "
				"resuming\n", P, l.next - 1, how);
			first = l.next;
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
	return open_captures(d, dir);
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
	close_captures(d);
}

/* Signal handlers and subreaper for the run; undone by restore(). */
static void install(struct driver *d)
{
	struct sigaction sa;
	int i;

	note_children(d);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &sa, &d->old[i]);
	d->old_reaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &d->old_reaper, 0, 0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static void restore(struct driver *d)
{
	int i;

	prctl(PR_SET_CHILD_SUBREAPER, d->old_reaper, 0, 0, 0);
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &d->old[i], NULL);
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
	g_signal = 0;
	install(d);
	n = o->nsizes > 0 ? o->nsizes : o->rmax - o->rmin + 1;
	for (i = 0; i < n && st == CS_OK && !g_signal; i++)
		st = run_world(d, o->nsizes > 0 ? o->sizes[i] : o->rmin + i,
			       o->ncases ? o->ncases[i] : (size_t)-1);
	restore(d);
	close_files(d);
	free(d);
	sig = g_signal;
	g_signal = 0;
	if (!sig)
		return st;
	if (o->on_signal)
		o->on_signal(sig, ctx);
	raise(sig);
	return cs_error(CS_ERR_IO, "interrupted by signal %d (%s); the "
			"workers were killed", sig, strsignal(sig));
}
