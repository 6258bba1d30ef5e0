/*
 * test_interrupt.c - a run cut short by SIGINT or SIGTERM leaves valid
 * reports: the JUnit document is complete (its counts match its
 * testcases) and every JSON line parses.
 *
 *   test_interrupt COLLSPEC SIGNAL
 *   test_interrupt COLLSPEC SIGNAL ignored MPIEXEC
 *
 * Starts `COLLSPEC run --backend ref` (a singleton MPI process) with both
 * reports, waits until a few cases are reported, sends SIGNAL, and checks
 * the files: the run died of that signal.
 *
 * With "ignored", the run is the driver (--ranks 1) started with SIGNAL
 * ignored (as `trap '' INT` or nohup leave it): it must still stop the
 * sweep, close both reports with an error entry and exit 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/json.h"
#include "base/result.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf)
		buf[fread(buf, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return buf;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what)) != NULL)
		n++, s++;
	return n;
}

static void nap(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&t, NULL);
}

/* 0 when the JUnit file is a complete document consistent with itself. */
static int junit_ok(const char *path, int *ncases)
{
	char *x = slurp(path), want[64];
	const char *tail = "</testsuite>\n</testsuites>\n";
	int ok;

	if (!x)
		return 1;
	*ncases = count_of(x, "<testcase ");
	snprintf(want, sizeof want, "tests=\"%d\"", *ncases);
	ok = strlen(x) > strlen(tail) &&
	     !strcmp(x + strlen(x) - strlen(tail), tail) &&
	     count_of(x, "</testcase>") == *ncases &&
	     !strncmp(x, "<?xml", 5) && strstr(x, want);
	if (!ok)
		fprintf(stderr, "test_interrupt: invalid JUnit file:\n%s\n", x);
	free(x);
	return !ok;
}

static int json_ok(const char *path, int *nlines)
{
	char *x = slurp(path), *line, *save = NULL;
	cs_result_t r;
	int bad = 0;

	*nlines = 0;
	if (!x)
		return 1;
	for (line = strtok_r(x, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		(*nlines)++;
		if (cs_result_from_json(line, &r) != CS_OK) {
			fprintf(stderr, "test_interrupt: bad JSON line: %s\n", line);
			bad = 1;
		}
	}
	free(x);
	return bad;
}

/* The ignored signal ended the driver as docs/running.md says: exit 2,
 * an error entry last in both reports. 0 when it did. */
static int ignored_ok(int status, const char *junit, const char *json)
{
	char *x = slurp(junit), *j = slurp(json), *last;
	int ok;

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2) {
		fprintf(stderr, "test_interrupt: the driver with the signal "
			"ignored ended with status 0x%x, expected exit 2\n",
			status);
		return 1;
	}
	last = j ? strrchr(j, '{') : NULL;
	ok = x && strstr(x, "<error message=\"run stopped by signal") &&
	     last && strstr(last, "\"aborted\":true");
	if (!ok)
		fprintf(stderr, "test_interrupt: no error entry for the signal "
			"in the reports:\n%s\n%s\n", x ? x : "", j ? j : "");
	free(x);
	free(j);
	return !ok;
}

/* In the child: the run, with sig ignored when mpiexec is given. */
static void start_run(char **argv, int sig, const char *mpiexec,
		      const char *junit, const char *json)
{
	if (!mpiexec)
		execl(argv[1], argv[1], "run", "--backend", "ref", "--quiet",
		      "--junit", junit, "--json", json, (char *)NULL);
	signal(sig, SIG_IGN); /* inherited through exec */
	execl(argv[1], argv[1], "run", "--backend", "ref", "--quiet", "--ranks",
	      "1", "--mpiexec", mpiexec, "--junit", junit, "--json", json,
	      (char *)NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	char junit[64], json[64];
	int sig = argc > 2 ? atoi(argv[2]) : SIGINT, status, i, n = 0, nj = 0;
	const char *mpiexec = argc > 4 ? argv[4] : NULL;
	pid_t pid;

	if (argc < 2)
		return 2;
	snprintf(junit, sizeof junit, "interrupt_%d.xml", (int)getpid());
	snprintf(json, sizeof json, "interrupt_%d.json", (int)getpid());
	pid = fork();
	if (pid == 0)
		start_run(argv, sig, mpiexec, junit, json);
	for (i = 0; i < 6000; i++) { /* at most 60 s for three cases */
		char *x = slurp(junit);
		n = count_of(x, "<testcase ");
		free(x);
		if (n >= 3 || waitpid(pid, &status, WNOHANG) == pid)
			break;
		nap(10);
	}
	if (n < 3) {
		fprintf(stderr, "test_interrupt: the run never reported 3 cases\n");
		return 1;
	}
	kill(pid, sig);
	waitpid(pid, &status, 0);
	if (mpiexec) {
		if (ignored_ok(status, junit, json) || junit_ok(junit, &n) ||
		    json_ok(json, &nj))
			return 1;
		printf("test_interrupt: signal %d ignored: exit 2 after %d cases; "
		       "JUnit and JSON (%d lines) are valid and say why\n", sig,
		       n - 1, nj);
		remove(junit);
		remove(json);
		return n == nj ? 0 : 1;
	}
	if (!WIFSIGNALED(status)) {
		fprintf(stderr, "test_interrupt: the run ended before the signal "
			"(status %d): nothing was interrupted\n", status);
		return 1;
	}
	if (junit_ok(junit, &n) || json_ok(json, &nj))
		return 1;
	printf("test_interrupt: killed by signal %d after %d cases; JUnit and "
	       "JSON (%d lines) are valid\n", WTERMSIG(status), n, nj);
	remove(junit);
	remove(json);
	return n == nj ? 0 : 1;
}
