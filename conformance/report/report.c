/*
 * report.c - what a run tells its reader: a human table (nccl-tests'
 * columns where they fit), a summary per collective, the implementation
 * profile, the failure signatures (failsig.c), JSON Lines and JUnit XML.
 * With an expectations file (--expect), every result passes through it
 * first (expect_apply.c): every process model's final results come here,
 * the driver's crash and hang results included, so this is the one place
 * that turns a known failure into XFAIL; when the run ends, an entry that
 * selected cases none of which failed by its check is an XPASS.
 *
 * Report files are valid after every case: each JSON line and each JUnit
 * testcase is written whole with SIGINT, SIGTERM and SIGHUP blocked, and the
 * JUnit document is closed after every testcase (its closing tags are
 * overwritten by the next one), so a run cut short leaves valid files.
 * Whatever bytes a result's strings hold, JSON lines are valid UTF-8
 * (names.c) and the JUnit document is well-formed XML (report_junit.c).
 *
 * Every write is checked: the first failure on a file (a full disk, a
 * device that refuses writes) is reported on stderr naming the file, and
 * the run's exit code becomes 2 (cs_report_close).
 *
 * This file holds the report's files and its public API (report.h):
 * opening, checked writes, adding a result (the JSON line here, the JUnit
 * testcase in report_junit.c, the table row and tallies in
 * report_table.c) and closing; report_impl.h is the state they share.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "report/expect.h"
#include "report/failsig.h"
#include "base/json.h"
#include "report/report.h"
#include "report/report_impl.h"
#include "base/result.h"

/* ---- signal-safe sections ------------------------------------------------ */

static void block_signals(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(SIG_BLOCK, &s, old);
}

static void restore_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

static bool json_ok(cs_report_t *r)
{
	return cs_report_io_ok(r->json, &r->json_bad, "JSON", r->o.json);
}


/* ---- opening ------------------------------------------------------------- */

/*
 * Open path for reading and writing without truncating it, into *out;
 * *created says whether this call made the file. Both reports are opened
 * so before either is emptied (empty_file), so that a report that cannot
 * be opened leaves the other one as it was.
 */
static cs_status_t open_file(const char *path, const char *what, FILE **out,
			     int *created)
{
	int fd;

	*out = NULL;
	*created = 0;
	if (!path)
		return CS_OK;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		*created = fd >= 0;
	}
	if (fd >= 0 && !(*out = fdopen(fd, "w+"))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	if (!*out)
		return cs_error(CS_ERR_IO, "cannot write the %s report '%s': %s",
				what, path, strerror(errno));
	return CS_OK;
}

/* Empty an opened report (a regular file; anything else, such as a pipe,
 * has nothing to empty). */
static cs_status_t empty_file(FILE *f, const char *path, const char *what)
{
	struct stat st;

	if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    ftruncate(fileno(f), 0) == 0)
		return CS_OK;
	return cs_error(CS_ERR_IO, "cannot write the %s report '%s': %s", what,
			path, strerror(errno));
}

/* The JUnit document is rewritten in place after every case. */
static cs_status_t check_seekable(FILE *f, const char *path)
{
	if (!f || fseek(f, 0, SEEK_SET) == 0)
		return CS_OK;
	return cs_error(CS_ERR_IO, "cannot write the JUnit report '%s': %s (it "
			"is rewritten in place after every case: name a "
			"regular file)", path, strerror(errno));
}

static bool free_report_ok(cs_report_t *r);

cs_status_t cs_report_open(const cs_report_opts_t *o, cs_report_t **out)
{
	cs_report_t *r = calloc(1, sizeof *r);
	int made[2] = { 0, 0 };
	cs_status_t st;

	if (!r)
		return cs_error(CS_ERR_NOMEM, "report: out of memory");
	r->o = *o;
	r->out = o->out ? o->out : stdout;
	r->suite_name = cs_report_xml_string(o->backend ? o->backend : "");
	if (!r->suite_name) {
		free(r);
		return cs_error(CS_ERR_NOMEM, "report: out of memory");
	}
	if (o->expect && ((st = cs_expect_load(o->expect, &r->expect)) != CS_OK ||
			  !(r->scratch = malloc(sizeof *r->scratch)))) {
		if (st == CS_OK)
			st = cs_error(CS_ERR_NOMEM, "report: out of memory");
		(void)free_report_ok(r);
		return st;
	}
	cs_expect_set_run_opt(r->expect, r->o.backend_opt);
	cs_expect_set_run_alg(r->expect, r->o.mpi_alg);
	if ((st = open_file(o->json, "JSON", &r->json, &made[0])) != CS_OK ||
	    (st = open_file(o->junit, "JUnit", &r->junit, &made[1])) != CS_OK ||
	    (st = check_seekable(r->junit, o->junit)) != CS_OK ||
	    (st = empty_file(r->json, o->json, "JSON")) != CS_OK ||
	    (st = empty_file(r->junit, o->junit, "JUnit")) != CS_OK) {
		(void)free_report_ok(r);
		/* a file made here for nothing goes again */
		if (made[0])
			unlink(o->json);
		if (made[1])
			unlink(o->junit);
		return st;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	if (r->junit)
		cs_report_junit_open_body(r);
	*out = r;
	return CS_OK;
}

void cs_report_set_total(cs_report_t *r, size_t total)
{
	r->total = total;
}

static void json_line(cs_report_t *r, const cs_result_t *res)
{
	int n = cs_result_to_json(res, NULL, 0);
	char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;

	if (!buf) {
		cs_report_io_failed(&r->json_bad, "JSON", r->o.json, ENOMEM);
		return;
	}
	cs_result_to_json(res, buf, (size_t)n + 1);
	fputs(buf, r->json);
	fputc('\n', r->json);
	free(buf);
	(void)json_ok(r); /* (a failure is said, and kept for the close) */
}

/* res, or with expectations r's copy of it with them applied. */
static const cs_result_t *expected(cs_report_t *r, const cs_result_t *res)
{
	if (!r->expect)
		return res;
	*r->scratch = *res;
	cs_expect_apply(r->expect, r->scratch);
	return r->scratch;
}

void cs_report_add(cs_report_t *r, const cs_result_t *given)
{
	const cs_result_t *res = expected(r, given);
	int v = res->verdict;
	sigset_t old;

	if ((unsigned)v >= CS_NUM_VERDICTS)
		v = CS_V_FAIL;
	block_signals(&old);
	r->done++;
	/* row CS_NUM_COLLS: the pattern cases */
	r->n[res->hc.pattern ? CS_NUM_COLLS
	     : res->hc.c.coll < CS_NUM_COLLS ? res->hc.c.coll : 0][v]++;
	r->all[v]++;
	cs_report_tally(r, res);
	cs_failsigs_add(&r->sigs, res);
	if (r->json)
		json_line(r, res);
	if (r->junit)
		cs_report_junit_case(r, res);
	cs_report_table_add(r, res);
	fflush(r->out);
	restore_signals(&old);
}

/* Close the files and free r: true when every write to every report
 * succeeded, false when one failed (then or earlier: said on stderr). */
static bool free_report_ok(cs_report_t *r)
{
	bool bad;
	int i;

	for (i = 0; i < r->nfails; i++)
		free(r->fails[i]);
	if (r->json && fclose(r->json) != 0)
		cs_report_io_failed(&r->json_bad, "JSON", r->o.json, errno);
	if (r->junit && fclose(r->junit) != 0)
		cs_report_io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	if (fflush(r->out) != 0 || ferror(r->out))
		cs_report_io_failed(&r->out_bad, "report to standard output",
				    NULL, errno);
	bad = r->json_bad || r->junit_bad || r->out_bad;
	cs_expect_free(r->expect);
	free(r->scratch);
	free(r->suite_name);
	free(r);
	return !bad;
}

/* Close and free r, saying on stderr when a report could not be written
 * (the run then exits 2, whatever its verdicts): true when all were. */
static bool close_reports_ok(cs_report_t *r)
{
	if (free_report_ok(r))
		return true;
	fprintf(stderr, "collspec: a report could not be written (see above): "
		"exit status 2\n");
	return false;
}

/* One XPASS entry of the expectations file in every report: a JSON line
 * (verdict XPASS, check expect, the entry's name), a JUnit testcase
 * "expect NAME" with a <failure type="xpass">, a line of the closing list
 * of failures. */
static void xpass_entry(cs_report_t *r, const cs_expect_entry_t *e)
{
	char why[2 * CS_EXPECT_PATH_MAX], name[CS_EXPECT_NAME_MAX + 8], *q, *n;

	cs_expect_xpass_reason(r->expect, e, why, sizeof why);
	snprintf(r->scratch->check, sizeof r->scratch->check, "expect");
	if (r->json) {
		q = cs_json_quote(why);
		n = cs_json_quote(e->name);
		fprintf(r->json, "{\"verdict\":\"XPASS\",\"check\":\"%s\","
			"\"expect_entry\":%s,\"reason\":%s}\n",
			r->scratch->check, n ? n : "\"\"",
			q ? q : "\"(out of memory)\"");
		free(q);
		free(n);
		(void)json_ok(r);
	}
	if (r->junit) {
		snprintf(name, sizeof name, "expect %s", e->name);
		cs_report_junit_run_entry(r, 1, name, "xpass", why);
	}
	cs_report_remember_line(r, "expect: ", why);
}

/* After the last case: the entries whose defect no longer showed (XPASS),
 * each in every report. Returns how many. */
static size_t xpass_entries(cs_report_t *r)
{
	size_t i, n;
	sigset_t old;

	if (!r->expect || !(n = cs_expect_finish(r->expect)))
		return 0;
	block_signals(&old);
	for (i = 0; i < r->expect->n; i++)
		if (r->expect->e[i].xpass)
			xpass_entry(r, &r->expect->e[i]);
	restore_signals(&old);
	return n;
}

cs_outcome_t cs_report_close(cs_report_t *r)
{
	size_t *a = r->all, passed = a[CS_V_PASS] + a[CS_V_INFO], failed;
	int fail;

	r->xpass = xpass_entries(r);
	failed = a[CS_V_FAIL] + r->xpass;
	cs_report_clear_progress(r);
	cs_report_print_tallies(r);
	cs_report_print_totals(r, passed, failed);
	fail = failed || (r->o.fail_on_warn && a[CS_V_WARN]) ||
	       r->done == a[CS_V_SKIP];
	if (r->done == 0)
		fprintf(r->out, "collspec: no case ran: not a pass\n");
	else if (r->done == a[CS_V_SKIP])
		fprintf(r->out, "collspec: every case was skipped: not a pass\n");
	else if (r->o.fail_on_warn && a[CS_V_WARN])
		fprintf(r->out, "collspec: warnings fail this run "
			"(--fail-on-warn)\n");
	fprintf(r->out, "%zu passed, %zu failed", passed, failed);
	if (r->expect)
		fprintf(r->out, ", %zu xfail", a[CS_V_XFAIL]);
	fputc('\n', r->out);
	if (!close_reports_ok(r))
		return CS_OUTCOME_BROKEN;
	return fail ? CS_OUTCOME_FAILED : CS_OUTCOME_PASSED;
}

/*
 * An entry for the whole run in both files: a JUnit testcase `name` with
 * an <error> (fail 0: the run could not go on) or a <failure> of type
 * check (fail 1), and a JSON line with verdict FAIL, that check and
 * "aborted":true.
 */
static void run_entry(cs_report_t *r, int fail, const char *name,
		      const char *check, const char *why)
{
	char *q;

	if (r->junit)
		cs_report_junit_run_entry(r, fail, name, check, why);
	if (r->json) {
		q = cs_json_quote(why);
		fprintf(r->json, "{\"verdict\":\"FAIL\",\"check\":\"%s\","
			"\"aborted\":true,\"reason\":%s}\n", check,
			q ? q : "\"(out of memory)\"");
		free(q);
		(void)json_ok(r);
	}
}

void cs_report_abort(cs_report_t *r, const char *why)
{
	sigset_t old;

	if (!r)
		return;
	block_signals(&old);
	cs_report_clear_progress(r);
	run_entry(r, 0, "run", "error", why);
	fprintf(r->out, "collspec: run aborted: %s\n", why);
	(void)free_report_ok(r); /* (a failed write is said on stderr) */
	restore_signals(&old);
}

cs_outcome_t cs_report_fail_run(cs_report_t *r, const char *check,
				 const char *why)
{
	sigset_t old;
	cs_outcome_t out;

	block_signals(&old);
	cs_report_clear_progress(r);
	run_entry(r, 1, check, check, why);
	fprintf(r->out, "collspec: FAIL (%s): %s\n", check, why);
	fprintf(r->out, "0 passed, 1 failed\n");
	out = close_reports_ok(r) ? CS_OUTCOME_FAILED : CS_OUTCOME_BROKEN;
	restore_signals(&old);
	return out;
}

void cs_run_report_opts(const cs_run_opts_t *o, cs_report_opts_t *ro)
{
	memset(ro, 0, sizeof *ro);
	ro->json = o->json;
	ro->junit = o->junit;
	ro->backend = o->backend;
	ro->backend_opt = o->backend_opt;
	ro->mpi_alg = o->mpi_alg;
	ro->suite = o->suite;
	ro->quiet = o->quiet;
	ro->verbose = o->verbose;
	ro->fail_on_warn = o->fail_on_warn;
	ro->expect = o->expect;
	/* under a launcher stdout may be a forwarded pseudo-terminal */
	ro->out = o->out ? o->out : stdout;
	ro->progress = !o->quiet && isatty(fileno(ro->out)) && !cs_run_launched();
}
