/*
 * test_interrupt.c - a run cut short by SIGINT or SIGTERM leaves valid
 * reports: the JUnit document is complete (its counts match its
 * testcases) and every JSON line parses.
 *
 *   test_interrupt COLLSPEC SIGNAL
 *
 * Starts `COLLSPEC run --backend ref` (a singleton MPI process) with both
 * reports, waits until a few cases are reported, sends SIGNAL, and checks
 * the files.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

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

int main(int argc, char **argv)
{
	char junit[64], json[64];
	int sig = argc > 2 ? atoi(argv[2]) : SIGINT, status, i, n = 0, nj = 0;
	pid_t pid;

	if (argc < 2)
		return 2;
	snprintf(junit, sizeof junit, "interrupt_%d.xml", (int)getpid());
	snprintf(json, sizeof json, "interrupt_%d.json", (int)getpid());
	pid = fork();
	if (pid == 0) {
		execl(argv[1], argv[1], "run", "--backend", "ref", "--quiet",
		      "--junit", junit, "--json", json, (char *)NULL);
		_exit(127);
	}
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
