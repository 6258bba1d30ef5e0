/*
 * test_rerun.c - the re-run line of a failure, pasted to a shell, re-runs
 * exactly that case, whatever the plugin's path and the option string hold.
 *
 *   test_rerun COLLSPEC PLUGIN MPIEXEC
 *
 * Links PLUGIN (the bad plugin: every allreduce sum FAILs) under a path of
 * about 4000 bytes with a quote and spaces in it, runs the driver on it with
 * a --backend-opt that holds quotes, $, a backquote, a backslash, %, UTF-8
 * and a byte that is not UTF-8, and takes the re-run line of a FAIL from
 * the JSON report (it must also be the one printed in the table). Then
 * `sh -c "LINE --json F"`, with COLLSPEC's and MPIEXEC's directories first
 * on PATH, must run one case: the same case (every field that names it),
 * the same verdict, and the same re-run line (so the same backend and
 * option bytes reached it).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/json.h"
#include "base/names.h"
#include "base/result.h"

#define OPT "it's \"quoted\" $HOME `x` \\ 100% caf\xc3\xa9 \xff end"

static int fail(const char *msg, const char *arg)
{
	fprintf(stderr, "test_rerun: %s%s\n", msg, arg ? arg : "");
	return 1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)))
		buf[fread(buf, 1, (size_t)n, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* A directory path of about 4000 bytes under the current one, with a
 * quote and spaces in its first component; the plugin linked in it. */
static int long_plugin(const char *plugin, char *path, size_t n)
{
	char comp[241];
	size_t len;

	if (!getcwd(path, n))
		return fail("getcwd failed", NULL);
	len = strlen(path);
	snprintf(path + len, n - len, "/rerun: it's here");
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return fail("mkdir failed: ", path);
	memset(comp, 'd', sizeof comp - 1);
	comp[sizeof comp - 1] = '\0';
	while (strlen(path) + sizeof comp + 16 < 4000) {
		len = strlen(path);
		snprintf(path + len, n - len, "/%s", comp);
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return fail("mkdir failed: ", path);
	}
	len = strlen(path);
	snprintf(path + len, n - len, "/p.so");
	unlink(path);
	if (symlink(plugin, path) != 0)
		return fail("symlink failed: ", path);
	return 0;
}

/* Run argv with stdout into out; its exit status (-1 if it did not exit). */
static int run(char **argv, const char *out)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The last result of a JSON Lines file into r; the number of results. */
static int last_result(const char *path, cs_result_t *r)
{
	char *x = slurp(path), *ln, *save = NULL;
	int n = 0;

	for (ln = x ? strtok_r(x, "\n", &save) : NULL; ln;
	     ln = strtok_r(NULL, "\n", &save))
		n += cs_result_from_json(ln, r) == CS_OK;
	free(x);
	return n;
}

static int same_case(const cs_result_t *a, const cs_result_t *b)
{
	const cs_case_t *x = &a->hc.c, *y = &b->hc.c;

	return x->coll == y->coll && x->dtype == y->dtype && x->op == y->op &&
	       x->mode == y->mode && x->nranks == y->nranks &&
	       x->root == y->root && x->count == y->count &&
	       x->seed == y->seed && a->hc.inplace == b->hc.inplace &&
	       a->hc.comm == b->hc.comm && a->hc.misalign == b->hc.misalign &&
	       a->verdict == b->verdict && !strcmp(a->check, b->check) &&
	       !strcmp(a->repro, b->repro);
}

/* PATH with the directories of collspec and mpiexec first. */
static void set_path(const char *collspec, const char *mpiexec)
{
	char *a = strdup(collspec), *b = strdup(mpiexec), *path;
	const char *old = getenv("PATH");
	size_t n;

	n = strlen(a) + strlen(b) + strlen(old ? old : "") + 3;
	path = malloc(n);
	snprintf(path, n, "%s:%s:%s", dirname(a), dirname(b), old ? old : "");
	setenv("PATH", path, 1);
	free(a);
	free(b);
	free(path);
}

int main(int argc, char **argv)
{
	static char path[PATH_MAX], backend[PATH_MAX + 8];
	static cs_result_t r1, r2;
	char *run1[] = {argv[1], "run", "--backend", backend, "--backend-opt",
			OPT, "--ranks", "2", "--coll", "allreduce", "--dtype",
			"int32", "--op", "sum", "--mode", "exact", "--count", "1,2",
			"--comm", "world", "--inplace", "0", "--misalign", "0",
			"--json", "rerun1.json", "--mpiexec", argv[3], NULL};
	char *run2[] = {"sh", "-c", NULL, NULL}, *cmd, *out, *want;
	int rc;

	if (argc != 4)
		return fail("usage: test_rerun COLLSPEC PLUGIN MPIEXEC", NULL);
	if (long_plugin(argv[2], path, sizeof path))
		return 1;
	snprintf(backend, sizeof backend, "plugin:%s", path);
	rc = run(run1, "rerun1.out");
	if (rc != 1 || last_result("rerun1.json", &r1) != 2 ||
	    r1.verdict != CS_V_FAIL || !r1.repro[0])
		return fail("the first run did not end with a FAIL and its "
			    "re-run line", NULL);
	out = slurp("rerun1.out");
	want = malloc(strlen(r1.repro) + 16);
	sprintf(want, "re-run: %s\n", r1.repro);
	if (!out || !strstr(out, want))
		return fail("the table does not print the JSON's re-run line: ",
			    r1.repro);
	cmd = malloc(strlen(r1.repro) + 32);
	sprintf(cmd, "%s --json rerun2.json", r1.repro);
	run2[2] = cmd;
	set_path(argv[1], argv[3]);
	rc = run(run2, "rerun2.out");
	if (rc != 1 || last_result("rerun2.json", &r2) != 1 ||
	    !same_case(&r1, &r2))
		return fail("the re-run line did not re-run the case: ", cmd);
	printf("test_rerun: a re-run line of %zu bytes (plugin path of %zu "
	       "bytes) re-ran its case:\n%s\n", strlen(r1.repro),
	       strlen(path), r1.repro);
	free(cmd);
	free(want);
	free(out);
	return 0;
}
