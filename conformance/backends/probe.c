/*
 * probe.c - loading a plugin in a child process for the driver
 * (cs_backend_probe, registry.h): the child loads it as cs_backend_load
 * does, reporting each stage (registry_impl.h) and then the outcome on a
 * pipe; the parent reads them under a timeout, so that a constructor or
 * entry point that crashes or blocks is named as such ("crashed while
 * loading ..., in its entry point") without taking the driver with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "backends/registry_impl.h"
#include "backends/registry.h"
#include "base/result.h"

/* The child's answer after STAGE_REPLY; the error message follows it. */
struct probe_reply {
	int status;
	int proc_model, mem_kind;
	char name[CS_BACKEND_NAME_MAX + 1];
};

/* In the child (probe_child), which _exits when the parent is gone. */
static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3);
		c += k;
		n -= (size_t)k;
	}
}

/* In the child, right after fork: load spec, write the stages and the
 * outcome to fd, _exit without running anything of the plugin's (no
 * destructors, no atexit handlers of the parent's). */
static void probe_child(const char *spec, int fd, pid_t parent)
{
	const cs_backend_t *b = NULL;
	struct probe_reply rep;
	const char *msg;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	cs_backend_set_stage_fd(fd);
	memset(&rep, 0, sizeof rep);
	rep.status = cs_backend_load(spec, &b);
	if (rep.status == CS_OK) {
		rep.proc_model = (int)b->proc_model;
		rep.mem_kind = (int)b->mem_kind;
		memcpy(rep.name, b->name, strlen(b->name) + 1);
	}
	fflush(NULL); /* what the constructors printed */
	msg = rep.status == CS_OK ? "" : cs_last_error();
	cs_backend_load_stage(STAGE_REPLY);
	write_all(fd, &rep, sizeof rep);
	write_all(fd, msg, strlen(msg) + 1);
	_exit(0);
}

/* Bytes from the child, and how it ended. */
struct probe {
	pid_t pid;
	int fd, status, timed_out;
	char *buf;
	size_t len, cap;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What one probe_read found. */
enum probe_got {
	PROBE_EOF,   /* end of file, or an error: the pipe is done */
	PROBE_NONE,  /* nothing yet */
	PROBE_BYTES, /* bytes, appended to p->buf */
};

/* Read what the pipe has, waiting up to ms for it. */
static enum probe_got probe_read(struct probe *p, int ms)
{
	struct pollfd pfd = {p->fd, POLLIN, 0};
	ssize_t k;
	char *nb;

	if (poll(&pfd, 1, ms) <= 0)
		return PROBE_NONE;
	if (p->cap - p->len < 4096) {
		nb = realloc(p->buf, p->cap + 65536);
		if (!nb)
			return PROBE_EOF;
		p->buf = nb;
		p->cap += 65536;
	}
	k = read(p->fd, p->buf + p->len, p->cap - p->len);
	if (k < 0 && errno == EINTR)
		return PROBE_NONE;
	if (k <= 0)
		return PROBE_EOF;
	p->len += (size_t)k;
	return PROBE_BYTES;
}

/* 1 when the child has exited (it stays a zombie, so that its process
 * group id cannot be reused before the group is killed). */
static int probe_exited(const struct probe *p)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT)
		       == 0 && si.si_pid == p->pid;
}

/* Follow the child until it exits (its pipe drained) or timeout seconds
 * pass; then kill its process group, so that nothing it started is left,
 * and reap it. */
static void probe_wait(struct probe *p, double timeout)
{
	double end = mono_s() + timeout;
	int open = 1, exited = 0;

	while (!(exited = probe_exited(p)) && mono_s() <= end) {
		if (open)
			open = probe_read(p, 20) != PROBE_EOF;
		else
			poll(NULL, 0, 20);
	}
	/* what the child wrote before it exited is in the pipe; a process it
	 * started may hold the pipe open, so no blocking read */
	while (exited && open && probe_read(p, 0) == PROBE_BYTES)
		;
	p->timed_out = !exited;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &p->status, 0);
}

/* The step of the load the child reached, in words. */
static const char *probe_where(const struct probe *p)
{
	/* (no memchr on a NULL buf, even of length 0: undefined) */
	if (p->len && memchr(p->buf, STAGE_ENTERED, p->len))
		return "after its entry point returned, in the harness's check "
		       "of the backend struct it returned";
	if (p->len && memchr(p->buf, STAGE_OPENED, p->len))
		return "in its entry point " CS_BACKEND_SYMBOL "()";
	return "in dlopen, running its constructors (or those of the "
	       "libraries it needs)";
}

/* A child that did not answer: the FAIL message. */
static cs_status_t probe_fault(const struct probe *p, const char *path,
			       double timeout, cs_backend_info_t *info)
{
	int s = p->status;

	info->fault = 1;
	if (p->timed_out)
		return cs_error(CS_ERR_UNSUPPORTED, "plugin %s did not finish "
				"loading within %g s (the --timeout), %s; it was "
				"killed", path, timeout, probe_where(p));
	if (WIFSIGNALED(s))
		return cs_error(CS_ERR_UNSUPPORTED, "plugin %s crashed while "
				"loading (signal %d, %s), %s", path, WTERMSIG(s),
				strsignal(WTERMSIG(s)), probe_where(p));
	return cs_error(CS_ERR_UNSUPPORTED, "plugin %s exited with status %d "
			"while loading, %s", path, WEXITSTATUS(s),
			probe_where(p));
}

/* The child's answer into info, or the error it names. */
static cs_status_t probe_answer(const struct probe *p, const char *path,
				double timeout, cs_backend_info_t *info)
{
	const char *r = p->buf ? memchr(p->buf, STAGE_REPLY, p->len) : NULL;
	struct probe_reply rep;
	size_t off;

	off = r ? (size_t)(r - p->buf) + 1 : 0;
	if (!r || p->len < off + sizeof rep + 1 || p->buf[p->len - 1] ||
	    !WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		return probe_fault(p, path, timeout, info);
	memcpy(&rep, p->buf + off, sizeof rep);
	if (rep.status != CS_OK)
		return cs_error(rep.status, "%s", p->buf + off + sizeof rep);
	rep.name[sizeof rep.name - 1] = '\0';
	memcpy(info->name, rep.name, sizeof info->name);
	info->proc_model = rep.proc_model;
	info->mem_kind = rep.mem_kind;
	return CS_OK;
}

/* A built-in backend: its code is the harness's own. */
static cs_status_t probe_builtin(const char *spec, cs_backend_info_t *info)
{
	const cs_backend_t *b;
	cs_status_t st = cs_backend_load(spec, &b);

	if (st != CS_OK)
		return st;
	snprintf(info->name, sizeof info->name, "%s", b->name);
	info->proc_model = (int)b->proc_model;
	info->mem_kind = (int)b->mem_kind;
	return CS_OK;
}

cs_status_t cs_backend_probe(const char *spec, double timeout,
			     cs_backend_info_t *info)
{
	struct probe p = {0};
	int fds[2];
	pid_t self = getpid();
	cs_status_t st;

	memset(info, 0, sizeof *info);
	if (!spec || strncmp(spec, "plugin:", 7) != 0)
		return probe_builtin(spec, info);
	if (!(timeout > 0))
		return cs_error(CS_ERR_INVALID, "plugin probe: timeout %g s",
				timeout);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return cs_error(CS_ERR_IO, "cannot load %s: pipe: %s", spec,
				strerror(errno));
	fflush(NULL);
	p.pid = fork();
	if (p.pid == 0) {
		close(fds[0]);
		probe_child(spec, fds[1], self);
	}
	close(fds[1]);
	if (p.pid < 0) {
		close(fds[0]);
		return cs_error(CS_ERR_IO, "cannot load %s: fork: %s", spec,
				strerror(errno));
	}
	setpgid(p.pid, p.pid); /* (either side may get there first) */
	p.fd = fds[0];
	probe_wait(&p, timeout);
	close(p.fd);
	st = probe_answer(&p, spec + 7, timeout, info);
	free(p.buf);
	return st;
}
