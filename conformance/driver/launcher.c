/*
 * launcher.c - launcher profiles (launcher.h): detection from `mpiexec
 * --version`, the options of each, and the reading of a rank's death
 * from mpiexec's exit status and messages.
 *
 * The texts are matched with plain substring searches on what the
 * launchers print (their wording is stable across the releases named in
 * launcher.h); tests/conformance/test_launcher.c holds captured copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "driver/launcher.h"

#define VERSION_TIMEOUT_S 10.0
#define VERSION_MAX 4096

struct profile {
	const char *name;
	const char *const *marks; /* any of these in --version: this one */
	int signal_offset;        /* exit status = offset + signal; 0: none */
};

static const char *const openmpi_marks[] = {"(OpenRTE)", "(Open MPI)",
					    "Open MPI", NULL};
static const char *const hydra_marks[] = {"HYDRA build details", NULL};
static const char *const no_marks[] = {NULL};

/* Indexed by cs_launcher_kind_t. */
static const struct profile profiles[] = {
	[CS_LAUNCHER_GENERIC] = {"generic", no_marks, 128},
	[CS_LAUNCHER_OPENMPI] = {"Open MPI", openmpi_marks, 128},
	[CS_LAUNCHER_HYDRA] = {"MPICH (Hydra)", hydra_marks, 0},
};
#define NPROFILES (sizeof profiles / sizeof *profiles)

static const struct profile *profile_of(cs_launcher_kind_t k)
{
	return (unsigned)k < NPROFILES ? &profiles[k]
				       : &profiles[CS_LAUNCHER_GENERIC];
}

const char *cs_launcher_name(cs_launcher_kind_t k)
{
	return profile_of(k)->name;
}

cs_launcher_kind_t cs_launcher_kind_of(const char *text)
{
	size_t k;
	int m;

	if (!text)
		return CS_LAUNCHER_GENERIC;
	for (k = 0; k < NPROFILES; k++)
		for (m = 0; profiles[k].marks[m]; m++)
			if (strstr(text, profiles[k].marks[m]))
				return (cs_launcher_kind_t)k;
	return CS_LAUNCHER_GENERIC;
}

int cs_launcher_flags(cs_launcher_kind_t k, unsigned euid,
		      const char **flags)
{
	int n = 0;

	if (!flags || k != CS_LAUNCHER_OPENMPI)
		return 0;
	flags[n++] = "--oversubscribe";
	if (euid == 0)
		flags[n++] = "--allow-run-as-root";
	return n;
}

/* ---- running `mpiexec --version` ---------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* In the child, right after fork: stdin from /dev/null, stdout and stderr
 * into the pipe, then exec; _exit(127) when exec fails (the child never
 * returns into the harness's code). */
static void exec_version(const char *path, int out)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	execl(path, path, "--version", (char *)NULL);
	_exit(127);
}

/* Read the pipe until EOF, a full buffer or the deadline; NUL-ends buf. */
static size_t read_until(int fd, char *buf, size_t cap, double deadline)
{
	size_t len = 0;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (len + 1 < cap && now_s() < deadline) {
		ssize_t k = read(fd, buf + len, cap - 1 - len);
		struct timespec tick = {0, 10 * 1000 * 1000};

		if (k == 0)
			break;
		if (k > 0)
			len += (size_t)k;
		else if (errno == EAGAIN || errno == EINTR)
			nanosleep(&tick, NULL);
		else
			break;
	}
	buf[len] = '\0';
	return len;
}

/* The line of text that names the version: the one holding "Version:"
 * (Hydra prints a table), else the first non-empty one; blanks squeezed. */
static void version_line(const char *text, char *out, size_t n)
{
	const char *p = strstr(text, "Version:");
	size_t k = 0;

	if (p)
		while (p > text && p[-1] != '\n')
			p--;
	else
		p = text + strspn(text, " \t\r\n");
	p += strspn(p, " \t");
	for (; *p && *p != '\n' && *p != '\r' && k + 1 < n; p++) {
		if ((*p == ' ' || *p == '\t') && k && out[k - 1] == ' ')
			continue;
		out[k++] = *p == '\t' ? ' ' : *p;
	}
	out[k] = '\0';
}

cs_status_t cs_launcher_detect(const char *path, cs_launcher_kind_t *kind,
			       char *version, size_t n)
{
	char *text;
	int fds[2];
	pid_t pid;

	if (!path || !kind || (version && !n))
		return cs_error(CS_ERR_INVALID, "cs_launcher_detect: NULL "
				"argument");
	if (pipe(fds) != 0)
		return cs_error(CS_ERR_IO, "cannot run %s --version: %s", path,
				strerror(errno));
	text = malloc(VERSION_MAX);
	if (!text) {
		close(fds[0]);
		close(fds[1]);
		return cs_error(CS_ERR_NOMEM, "cannot run %s --version: out of "
				"memory", path);
	}
	pid = fork();
	if (pid == 0)
		exec_version(path, fds[1]);
	close(fds[1]);
	if (pid < 0) {
		cs_status_t st = cs_error(CS_ERR_IO, "cannot run %s --version: "
					  "%s", path, strerror(errno));
		close(fds[0]);
		free(text);
		return st;
	}
	read_until(fds[0], text, VERSION_MAX, now_s() + VERSION_TIMEOUT_S);
	close(fds[0]);
	if (waitpid(pid, NULL, WNOHANG) == 0) { /* still running: stop it */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	*kind = cs_launcher_kind_of(text);
	if (version)
		version_line(text, version, n);
	free(text);
	return CS_OK;
}

/* ---- a rank's death ------------------------------------------------------ */

/* The number right after the last occurrence of key in text, or -1. */
static long number_after_last(const char *text, const char *key)
{
	const char *p = NULL, *q;
	char *end;
	long v;

	for (q = text; (q = strstr(q, key)); q++)
		p = q;
	if (!p)
		return -1;
	v = strtol(p + strlen(key), &end, 10);
	return end == p + strlen(key) || v < 0 ? -1 : v;
}

/* Hydra: "... EXIT STRING: Segmentation fault (signal 11)". */
static int hydra_signal(const char *text)
{
	const char *p = NULL, *q;
	char line[256];
	long s;

	for (q = text; (q = strstr(q, "EXIT STRING:")); q++)
		p = q;
	if (!p)
		return 0;
	snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\r\n"), p);
	s = number_after_last(line, "(signal ");
	return s > 0 && s <= 64 ? (int)s : 0;
}

/* Open MPI: "... process rank 1 with PID 0 on node vm exited on signal 11
 * (Segmentation fault)." */
static int openmpi_signal(const char *text, int *rank)
{
	long s = number_after_last(text, "exited on signal ");
	long r = number_after_last(text, "process rank ");

	if (s <= 0 || s > 64)
		return 0;
	*rank = r >= 0 && r <= 1L << 30 ? (int)r : -1;
	return (int)s;
}

int cs_launcher_death_signal(cs_launcher_kind_t k, int wstatus,
			     const char *output, int *rank)
{
	int off = profile_of(k)->signal_offset, code, s, r = -1;

	if (rank)
		*rank = -1;
	if (output && ((s = openmpi_signal(output, &r)) ||
		       (s = hydra_signal(output)))) {
		if (rank)
			*rank = r;
		return s;
	}
	if (!WIFEXITED(wstatus) || !off)
		return 0;
	code = WEXITSTATUS(wstatus);
	return code > off && code <= off + 64 ? code - off : 0;
}

void cs_launcher_describe(cs_launcher_kind_t k, int wstatus,
			  const char *output, char *buf, size_t n)
{
	int rank, s;

	if (!buf || !n)
		return;
	if (WIFSIGNALED(wstatus)) {
		snprintf(buf, n, "mpiexec was killed by signal %d (%s)",
			 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
		return;
	}
	if (!WIFEXITED(wstatus)) {
		snprintf(buf, n, "mpiexec ended with wait status %#x", wstatus);
		return;
	}
	s = cs_launcher_death_signal(k, wstatus, output, &rank);
	if (!s)
		snprintf(buf, n, "mpiexec exited with status %d",
			 WEXITSTATUS(wstatus));
	else if (rank < 0)
		snprintf(buf, n, "mpiexec exited with status %d: a rank died "
			 "of signal %d (%s)", WEXITSTATUS(wstatus), s,
			 strsignal(s));
	else
		snprintf(buf, n, "mpiexec exited with status %d: a rank died "
			 "of signal %d (%s); mpiexec names rank %d",
			 WEXITSTATUS(wstatus), s, strsignal(s), rank);
}
