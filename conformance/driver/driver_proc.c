/*
 * driver_proc.c - the driver's processes (driver.c supervises them and
 * reads their results; its top comment describes a launch's life): the
 * run's signal handlers and subreaper, starting a launch in a session of
 * its own, capturing the launcher's stdout and stderr in files, and
 * ending a launch with everything it started (SIGTERM to mpiexec, a grace
 * of KILL_GRACE seconds, then SIGKILL to its session and to orphans
 * reparented to the driver).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "driver/driver_impl.h"
#include "driver/launcher.h"

#define KILL_GRACE 2.0    /* SIGTERM to SIGKILL */

static volatile sig_atomic_t g_signal;   /* signal received, 0 if none */
static volatile sig_atomic_t g_launcher; /* pid of the running mpiexec */

static void on_signal(int sig)
{
	g_signal = sig;
	if (g_launcher > 0)
		kill((pid_t)g_launcher, SIGTERM);
}

static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};

double cs_driver_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cs_driver_sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL); /* a signal cuts it short: fine */
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
		if (ppid == self && pid != sid) /* the launcher: cs_driver_wait_launcher */
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
int cs_driver_wait_launcher(struct launch *l, double secs)
{
	double end = cs_driver_now_s() + secs;

	while (!l->reaped) {
		pid_t w = waitpid(l->pid, &l->status, WNOHANG);

		if (w == l->pid || (w < 0 && errno == ECHILD)) {
			l->reaped = 1;
			break;
		}
		if (cs_driver_now_s() >= end)
			break;
		cs_driver_sleep_s(0.02);
	}
	return l->reaped;
}

/*
 * End the launch and everything it started: SIGTERM to mpiexec, a grace
 * period, then SIGKILL to the whole session until nothing is left.
 */
void cs_driver_end_launch(const struct driver *d, struct launch *l)
{
	int round;

	if (!l->reaped) {
		kill(l->pid, SIGTERM);
		cs_driver_wait_launcher(l, KILL_GRACE);
	}
	for (round = 0; round < 50; round++) {
		int n = kill_session(d, l->pid);

		if (!l->reaped) {
			kill(l->pid, SIGKILL);
			cs_driver_wait_launcher(l, 1.0);
		}
		if (!n && l->reaped)
			break;
		cs_driver_sleep_s(0.02);
	}
	g_launcher = 0;
}

/* ---- the run's signals --------------------------------------------------- */

void cs_driver_install(struct driver *d)
{
	struct sigaction sa;
	int i;

	g_signal = 0;
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

int cs_driver_restore(struct driver *d)
{
	int i, sig;

	prctl(PR_SET_CHILD_SUBREAPER, d->old_reaper, 0, 0, 0);
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &d->old[i], NULL);
	sig = g_signal;
	g_signal = 0;
	return sig;
}

int cs_driver_signalled(void)
{
	return g_signal;
}

/* ---- the launcher's output ---------------------------------------------- */

/* Temporary files for the launcher's stdout and stderr (launcher mode);
 * cap[i].fd stays -1 when not captured. */
cs_status_t cs_driver_open_captures(struct driver *d, const char *dir)
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

void cs_driver_close_captures(struct driver *d)
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
void cs_driver_drain_captures(struct driver *d)
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
	argv[a++] = (char *)(o->command ? o->command : "run");
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
	for (i = 0; i < d->o->nenv; i++) /* (the child's copy only) */
		putenv(d->o->env[i]);
	execv(argv[0], argv); /* the environment goes through, plus o->env */
	fprintf(stderr, "collspec: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

cs_status_t cs_driver_start_launch(struct driver *d, int P, struct launch *l)
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
	l->t_last = cs_driver_now_s();
	return CS_OK;
}

