/*
 * judge.c - run collspec on a mutant (or on its correct base) and judge
 * the JSON report.
 *
 *   mutant_judge --json FILE (--kill CHECKS | --pass) [--coll NAME]
 *                [--warn] [--min-cases N] -- CMD ARGS...
 *
 * --kill CHECKS (a comma list): the mutant is killed: CMD exits 1, at
 *     least one case is a FAIL (with --warn: a FAIL or a WARN; the run then
 *     needs --fail-on-warn) whose check is the first of CHECKS, and every
 *     FAIL names a check of CHECKS and, with --coll, collective NAME: the
 *     fault was caught, by the checks that should catch it, and nothing
 *     else was blamed.
 * --pass: the base passes: CMD exits 0 and no case is a FAIL or a WARN.
 * Either way the report must hold at least --min-cases results (default 1),
 * each a valid line. Exit 0 when the verdict holds, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/json.h"
#include "base/names.h"
#include "suite/patsuite.h"
#include "base/result.h"

struct args {
	const char *json, *kill, *coll;
	int pass, warn;
	long min_cases;
	char **cmd;
};

struct tally {
	long n, bad, killed, fail, warn;
};

static int usage(void)
{
	fprintf(stderr, "usage: mutant_judge --json FILE (--kill CHECKS | "
		"--pass) [--coll NAME] [--warn] [--min-cases N] -- CMD...\n");
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof *a);
	a->min_cases = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			a->cmd = argv + i + 1;
			break;
		} else if (!strcmp(argv[i], "--pass")) {
			a->pass = 1;
		} else if (!strcmp(argv[i], "--warn")) {
			a->warn = 1;
		} else if (i + 1 >= argc) {
			return usage();
		} else if (!strcmp(argv[i], "--json")) {
			a->json = argv[++i];
		} else if (!strcmp(argv[i], "--kill")) {
			a->kill = argv[++i];
		} else if (!strcmp(argv[i], "--coll")) {
			a->coll = argv[++i];
		} else if (!strcmp(argv[i], "--min-cases")) {
			a->min_cases = atol(argv[++i]);
		} else {
			return usage();
		}
	}
	if (!a->json || !a->cmd || !a->cmd[0] || !a->pass == !a->kill)
		return usage();
	return 1;
}

/* The exit status of cmd, or -1 when it did not run to an exit. */
static int run(char **cmd)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Position of check in the comma list (0 = first), or -1. */
static int position(const char *list, const char *check)
{
	size_t len = strlen(check);
	int i = 0;

	while (*list) {
		size_t n = strcspn(list, ",");
		if (n == len && !strncmp(list, check, n))
			return i;
		list += n + (list[n] == ',');
		i++;
	}
	return -1;
}

/* What a result is about: its collective, or its pattern's name. */
static const char *what(const cs_result_t *r)
{
	const cs_pattern_t *p = cs_hcase_pattern(&r->hc);
	return p ? p->name : cs_coll_name(r->hc.c.coll);
}

static void judge_result(const struct args *a, const cs_result_t *r,
			 struct tally *t)
{
	int fail = r->verdict == CS_V_FAIL, warn = r->verdict == CS_V_WARN;
	int pos = position(a->kill ? a->kill : "", r->check);

	t->fail += fail;
	t->warn += warn;
	if (!fail && !(warn && a->warn))
		return;
	if (a->kill && pos == 0)
		t->killed++;
	if (a->kill && pos >= 0 && (!a->coll || !strcmp(what(r), a->coll)))
		return;
	if (a->kill && warn) /* a warning of another check is no blame */
		return;
	fprintf(stderr, "mutant_judge: unexpected %s #%zu %s %s: %s\n    %s\n",
		cs_verdict_name(r->verdict), r->hc.index, what(r), r->check,
		r->reason, r->repro);
	t->bad++;
}

static int read_report(const struct args *a, struct tally *t)
{
	static char line[65536];
	FILE *f = fopen(a->json, "r");
	cs_result_t r;

	memset(t, 0, sizeof *t);
	if (!f) {
		fprintf(stderr, "mutant_judge: no report '%s'\n", a->json);
		return 0;
	}
	while (fgets(line, sizeof line, f)) {
		if (cs_result_from_json(line, &r) != CS_OK) {
			fprintf(stderr, "mutant_judge: bad line: %s\n",
				cs_last_error());
			t->bad++;
			continue;
		}
		t->n++;
		judge_result(a, &r, t);
	}
	fclose(f);
	return 1;
}

static int verdict(const struct args *a, int rc, const struct tally *t)
{
	int want = a->pass ? 0 : 1;

	printf("mutant_judge: exit %d, %ld results, %ld FAIL, %ld WARN, %ld "
	       "killing, %ld unexpected\n", rc, t->n, t->fail, t->warn,
	       t->killed, t->bad);
	if (rc != want) {
		fprintf(stderr, "mutant_judge: exit status %d, expected %d\n",
			rc, want);
		return 0;
	}
	if (t->n < a->min_cases) {
		fprintf(stderr, "mutant_judge: %ld results, expected at least "
			"%ld\n", t->n, a->min_cases);
		return 0;
	}
	if (a->pass && (t->fail || t->warn)) {
		fprintf(stderr, "mutant_judge: the base must pass every "
			"case\n");
		return 0;
	}
	if (a->kill && !t->killed) {
		fprintf(stderr, "mutant_judge: the mutant survived: no %s with "
			"check '%.*s'\n", a->warn ? "FAIL or WARN" : "FAIL",
			(int)strcspn(a->kill, ","), a->kill);
		return 0;
	}
	return t->bad == 0;
}

int main(int argc, char **argv)
{
	struct args a;
	struct tally t;
	int rc;

	if (!parse_args(argc, argv, &a))
		return 1;
	remove(a.json);
	rc = run(a.cmd);
	if (rc < 0 || rc == 127) {
		fprintf(stderr, "mutant_judge: '%s' did not run to an exit\n",
			a.cmd[0]);
		return 1;
	}
	if (!read_report(&a, &t))
		return 1;
	return verdict(&a, rc, &t) ? 0 : 1;
}
