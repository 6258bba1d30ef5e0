/*
 * report.c - what a run tells its reader: a human table (nccl-tests'
 * columns where they fit), a summary per collective, the implementation
 * profile, the failure signatures (failsig.c), JSON Lines and JUnit XML.
 * With an expectations file (--expect), every result passes through it
 * first (expect_apply.c): every process model's final results come here,
 * the driver's crash and hang results included, so this is the one place
 * that turns a known failure into XFAIL and a listed pass into XPASS.
 *
 * Report files are valid after every case: each JSON line and each JUnit
 * testcase is written whole with SIGINT, SIGTERM and SIGHUP blocked, and the
 * JUnit document is closed after every testcase (its closing tags are
 * overwritten by the next one), so a run cut short leaves valid files.
 * Whatever bytes a result's strings hold, JSON lines are valid UTF-8
 * (names.c) and the JUnit document is well-formed XML (xml_put).
 *
 * Every write is checked: the first failure on a file (a full disk, a
 * device that refuses writes) is reported on stderr naming the file, and
 * the run's exit code becomes 2 (cs_report_close).
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
#include "csref/case.h"
#include "json.h"
#include "names.h"
#include "report.h"
#include "result.h"
#include "suite.h"
#include "expect.h"
#include "failsig.h"

#define MAX_LISTED_FAILS 64
#define MAX_PROFILE 16
#define JUNIT_HEADER_WIDTH 160 /* the start tag, but the suite's name */

struct profile_item {
	char token[sizeof ((cs_result_t *)0)->info]; /* a token of info */
	size_t cases;
	uint32_t dtypes; /* bit mask */
};

struct cs_report {
	cs_report_opts_t o;
	FILE *out, *json, *junit;
	char *suite_name;      /* the backend's name, XML-escaped */
	size_t header_width;   /* bytes of the <testsuite> start tag */
	int json_bad, junit_bad, out_bad; /* a write to that file failed */
	long junit_header, junit_body_end;
	size_t total, done, n[CS_NUM_COLLS][CS_NUM_VERDICTS],
		all[CS_NUM_VERDICTS];
	cs_expect_t *expect;   /* --expect, or NULL */
	cs_result_t *scratch;  /* a result with the expectations applied */
	cs_failsigs_t sigs;
	struct timespec t0;
	int progress_shown, header_shown, errors, run_fails;
	struct profile_item profile[MAX_PROFILE];
	int nprofile;
	char *fails[MAX_LISTED_FAILS];
	int nfails;
};

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

static double wall_seconds(const cs_report_t *r)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - r->t0.tv_sec) +
	       1e-9 * (double)(t.tv_nsec - r->t0.tv_nsec);
}

/* ---- checked writes ------------------------------------------------------- */

/* The first failure on a report file (path; NULL for standard output):
 * said on stderr, remembered. */
static void io_failed(int *bad, const char *what, const char *path, int err)
{
	if (*bad)
		return;
	*bad = 1;
	if (path)
		fprintf(stderr, "collspec: cannot write the %s report '%s': "
			"%s\n", what, path, err ? strerror(err) : "write error");
	else
		fprintf(stderr, "collspec: cannot write the %s: %s\n", what,
			err ? strerror(err) : "write error");
}

/* Flush f and check it for an earlier failed write: true while every
 * write to it has succeeded (a failure is said once, on stderr). */
static bool io_ok(FILE *f, int *bad, const char *what, const char *path)
{
	if (*bad)
		return false;
	if (ferror(f) || fflush(f) != 0)
		io_failed(bad, what, path, errno);
	return !*bad;
}

static bool json_ok(cs_report_t *r)
{
	return io_ok(r->json, &r->json_bad, "JSON", r->o.json);
}

static bool junit_ok(cs_report_t *r)
{
	return io_ok(r->junit, &r->junit_bad, "JUnit", r->o.junit);
}

/* Move to offset off of the JUnit file: true when there, false when the
 * file has failed (now or before). */
static bool junit_seek_ok(cs_report_t *r, long off)
{
	if (r->junit_bad)
		return false;
	if (fseek(r->junit, off, SEEK_SET) == 0)
		return true;
	io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	return false;
}

/* ---- XML ----------------------------------------------------------------- */

/*
 * Write s as XML character data, or with attr as an attribute value:
 * markup characters escaped, carriage return (and in an attribute, where a
 * parser would make them spaces, tab and newline) as character references,
 * valid UTF-8 copied, and every byte XML 1.0 cannot hold (other control
 * bytes, bytes that are not valid UTF-8, U+FFFE and U+FFFF) as U+FFFD, the
 * replacement character.
 */
static void xml_put(FILE *f, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *esc;
	int len;

	for (; *p; p += len ? len : 1) {
		len = cs_utf8_len((const char *)p);
		esc = *p == '&' ? "&amp;" : *p == '<' ? "&lt;"
		      : *p == '>' ? "&gt;" : *p == '"' ? "&quot;"
		      : *p == '\'' ? "&apos;"
		      : *p == '\r' ? "&#13;" : !attr ? NULL
		      : *p == '\t' ? "&#9;" : *p == '\n' ? "&#10;" : NULL;
		if (esc)
			fputs(esc, f);
		else if (!len || (*p < 0x20 && *p != '\t' && *p != '\n') ||
			 (len == 3 && p[0] == 0xef && p[1] == 0xbf &&
			  p[2] >= 0xbe))
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(p, 1, (size_t)len, f);
	}
}

/* s XML-escaped for an attribute, malloc'ed; NULL when out of memory. */
static char *xml_string(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	xml_put(f, s, 1);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The <testsuite> start tag, always r->header_width bytes: wide enough for
 * the suite's name and every count at 20 digits, so it is never cut. */
static void junit_header(cs_report_t *r)
{
	size_t w = r->header_width;
	char *tag = malloc(w + 1);
	int len;

	if (!tag) {
		io_failed(&r->junit_bad, "JUnit", r->o.junit, ENOMEM);
		return;
	}
	len = snprintf(tag, w + 1, "<testsuite name=\"collspec.%s\" "
		       "tests=\"%zu\" failures=\"%zu\" errors=\"%d\" "
		       "skipped=\"%zu\" time=\"%.3f\"", r->suite_name,
		       r->done + (size_t)r->errors + (size_t)r->run_fails,
		       r->all[CS_V_FAIL] + r->all[CS_V_XPASS] +
			       (size_t)r->run_fails, r->errors,
		       r->all[CS_V_SKIP] + r->all[CS_V_XFAIL], wall_seconds(r));
	if (len < 0 || (size_t)len > w - 2)
		len = 0; /* (impossible by the width) */
	memset(tag + len, ' ', w - 1 - (size_t)len);
	tag[w - 2] = '>';
	tag[w - 1] = '\n';
	if (junit_seek_ok(r, r->junit_header))
		fwrite(tag, 1, w, r->junit);
	free(tag);
}

/* Close the document after the body, then refresh the counts. */
static void junit_seal(cs_report_t *r)
{
	if (!junit_seek_ok(r, r->junit_body_end))
		return;
	fputs("</testsuite>\n</testsuites>\n", r->junit);
	junit_header(r);
	(void)junit_ok(r); /* (a failure is said, and kept for the close) */
}

/* Where the body ends now (after a testcase was written). */
static void junit_mark_end(cs_report_t *r)
{
	long end = ftell(r->junit);

	if (end < 0)
		io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	else
		r->junit_body_end = end;
}

static void junit_open_body(cs_report_t *r)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
	      "name=\"collspec\">\n", r->junit);
	r->junit_header = ftell(r->junit);
	junit_header(r);
	junit_mark_end(r);
	junit_seal(r);
}

/*
 * A FAIL as <failure type="CHECK">, an XPASS as <failure type="xpass">, a
 * SKIP as <skipped type="skip">, an XFAIL as <skipped type="xfail"> whose
 * message is "known failure (CHECK): REASON"; the text is the detail, and
 * for all but SKIP the re-run line.
 */
static void junit_outcome(cs_report_t *r, const cs_result_t *res)
{
	int v = res->verdict;
	int fail = v == CS_V_FAIL || v == CS_V_XPASS;

	fputs(fail ? "    <failure type=\"" : "    <skipped type=\"", r->junit);
	xml_put(r->junit, v == CS_V_XPASS ? "xpass" : v == CS_V_XFAIL ? "xfail"
			  : res->check, 1);
	fputs("\" message=\"", r->junit);
	if (v == CS_V_XFAIL) {
		fputs("known failure (", r->junit);
		xml_put(r->junit, res->check, 1);
		fputs("): ", r->junit);
	}
	xml_put(r->junit, res->reason, 1);
	fputs("\">", r->junit);
	xml_put(r->junit, res->detail, 0);
	if (v != CS_V_SKIP) {
		fputs("\nre-run: ", r->junit);
		xml_put(r->junit, res->repro, 0);
	}
	fputs(fail ? "</failure>\n" : "</skipped>\n", r->junit);
}

static void junit_case(cs_report_t *r, const cs_result_t *res)
{
	char name[256];

	if (!junit_seek_ok(r, r->junit_body_end))
		return;
	cs_case_format(&res->hc.c, name, sizeof name);
	fprintf(r->junit, "  <testcase classname=\"collspec.%s\" name=\"#%zu ",
		cs_coll_name(res->hc.c.coll), res->hc.index);
	xml_put(r->junit, name, 1);
	fprintf(r->junit, " inplace=%d comm=%s misalign=%d\" time=\"%.6f\">\n",
		res->hc.inplace, cs_commvar_name(res->hc.comm), res->hc.misalign,
		res->seconds);
	if (res->verdict == CS_V_FAIL || res->verdict == CS_V_SKIP ||
	    res->verdict == CS_V_XFAIL || res->verdict == CS_V_XPASS) {
		junit_outcome(r, res);
	} else if (res->verdict != CS_V_PASS || res->info[0]) {
		fprintf(r->junit, "    <system-out>%s ",
			cs_verdict_name(res->verdict));
		xml_put(r->junit, res->check, 0);
		fputs(": ", r->junit);
		xml_put(r->junit, res->reason, 0);
		fputc(' ', r->junit);
		xml_put(r->junit, res->info, 0);
		fputs("</system-out>\n", r->junit);
	}
	fputs("  </testcase>\n", r->junit);
	junit_mark_end(r);
	junit_seal(r);
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
	r->suite_name = xml_string(o->backend ? o->backend : "");
	if (!r->suite_name) {
		free(r);
		return cs_error(CS_ERR_NOMEM, "report: out of memory");
	}
	r->header_width = JUNIT_HEADER_WIDTH + strlen(r->suite_name);
	if (o->expect && ((st = cs_expect_load(o->expect, &r->expect)) != CS_OK ||
			  !(r->scratch = malloc(sizeof *r->scratch)))) {
		if (st == CS_OK)
			st = cs_error(CS_ERR_NOMEM, "report: out of memory");
		(void)free_report_ok(r);
		return st;
	}
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
		junit_open_body(r);
	*out = r;
	return CS_OK;
}

void cs_report_set_total(cs_report_t *r, size_t total)
{
	r->total = total;
}

/* ---- the human table ----------------------------------------------------- */

static void clear_progress(cs_report_t *r)
{
	if (r->progress_shown) {
		fputs("\r\033[K", r->out);
		r->progress_shown = 0;
	}
}

void cs_report_start(cs_report_t *r, const cs_hcase_t *hc)
{
	char name[160];

	if (!r->o.progress)
		return;
	cs_case_format(&hc->c, name, sizeof name);
	fprintf(r->out, "\r\033[K[%zu/%zu] #%zu %s inplace=%d comm=%s", r->done + 1,
		r->total, hc->index, name, hc->inplace, cs_commvar_name(hc->comm));
	fflush(r->out);
	r->progress_shown = 1;
}

/* Bytes one rank moves, as nccl-tests reports "size". */
static size_t case_bytes(const cs_case_t *c)
{
	size_t b = c->count * cs_dtype_size(c->dtype);

	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
		return b * (size_t)c->nranks;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return b;
	}
}

/* n bytes of s on the table, a control byte as \xNN, so that a string from
 * a backend keeps one row one line and sends no terminal escapes. */
static void text_put(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
		else
			fputc(s[i], f);
	}
}

static void table_header(cs_report_t *r)
{
	if (r->header_shown)
		return;
	r->header_shown = 1;
	fputs("# collspec run: backend ", r->out);
	text_put(r->out, r->o.backend, strlen(r->o.backend));
	fprintf(r->out, ", suite %s\n#\n", r->o.suite);
	fprintf(r->out, "# %5s %-13s %3s %11s %10s %-11s %-9s %-7s %4s %7s "
		"%-8s %3s %10s  %-7s %-11s %s\n", "case", "coll", "P", "size(B)",
		"count", "type", "redop", "mode", "root", "inplace", "comm",
		"mis", "time(us)", "verdict", "check", "reason");
}

static void table_row(cs_report_t *r, const cs_result_t *res)
{
	const cs_case_t *c = &res->hc.c;
	const char *check = res->check[0] ? res->check : "-";
	size_t len = strlen(check);
	char root[16];

	table_header(r);
	if (cs_coll_rooted(c->coll))
		snprintf(root, sizeof root, "%d", c->root);
	else
		snprintf(root, sizeof root, "-");
	fprintf(r->out, "  %5zu %-13s %3d %11zu %10zu %-11s %-9s %-7s %4s %7d "
		"%-8s %3d %10.1f  %-7s ", res->hc.index,
		cs_coll_name(c->coll), c->nranks, case_bytes(c), c->count,
		cs_dtype_name(c->dtype),
		cs_coll_reduces(c->coll) ? cs_op_name(c->op) : "-",
		cs_mode_name(c->mode), root, res->hc.inplace,
		cs_commvar_name(res->hc.comm), res->hc.misalign,
		res->seconds * 1e6, cs_verdict_name(res->verdict));
	text_put(r->out, check, len); /* %-11s, with its escapes */
	fprintf(r->out, "%*s", len < 11 ? (int)(12 - len) : 1, "");
	text_put(r->out, res->reason, strlen(res->reason));
	fputs(res->info[0] && res->reason[0] ? "; " : "", r->out);
	text_put(r->out, res->info, strlen(res->info));
	fputc('\n', r->out);
}

/* The detail and reproducer under a FAIL (or WARN) row. */
static void row_detail(cs_report_t *r, const cs_result_t *res)
{
	const char *p = res->detail, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		fputs("          | ", r->out);
		text_put(r->out, p, nl ? (size_t)(nl - p) : strlen(p));
		fputc('\n', r->out);
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (res->repro[0])
		fprintf(r->out, "          | re-run: %s\n", res->repro);
}

/* ---- tallies ------------------------------------------------------------- */

static void profile_add(cs_report_t *r, const cs_result_t *res)
{
	char buf[sizeof res->info], *tok, *save = NULL;
	int i;

	snprintf(buf, sizeof buf, "%s", res->info);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		for (i = 0; i < r->nprofile; i++)
			if (!strcmp(r->profile[i].token, tok))
				break;
		if (i == r->nprofile) {
			if (r->nprofile == MAX_PROFILE)
				continue;
			snprintf(r->profile[i].token, sizeof r->profile[i].token,
				 "%s", tok);
			r->nprofile++;
		}
		r->profile[i].cases++;
		r->profile[i].dtypes |= 1u << res->hc.c.dtype;
	}
}

/* The line of the final list of failures: case, check, reason, re-run. */
static void remember_fail(cs_report_t *r, const cs_result_t *res)
{
	char *line = NULL;
	size_t n = 0;
	FILE *f;

	if (r->nfails == MAX_LISTED_FAILS || !(f = open_memstream(&line, &n)))
		return;
	fprintf(f, "#%zu ", res->hc.index);
	text_put(f, res->check, strlen(res->check));
	fputs(": ", f);
	text_put(f, res->reason, strlen(res->reason));
	fprintf(f, "\n      %s", res->repro);
	if (fclose(f) == 0 && line)
		r->fails[r->nfails++] = line;
	else
		free(line);
}

static void json_line(cs_report_t *r, const cs_result_t *res)
{
	int n = cs_result_to_json(res, NULL, 0);
	char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;

	if (!buf) {
		io_failed(&r->json_bad, "JSON", r->o.json, ENOMEM);
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
	int failed = v == CS_V_FAIL || v == CS_V_XPASS;
	int show = !r->o.quiet || failed || v == CS_V_WARN;
	sigset_t old;

	if ((unsigned)v >= CS_NUM_VERDICTS)
		v = CS_V_FAIL;
	block_signals(&old);
	r->done++;
	r->n[res->hc.c.coll < CS_NUM_COLLS ? res->hc.c.coll : 0][v]++;
	r->all[v]++;
	profile_add(r, res);
	cs_failsigs_add(&r->sigs, res);
	if (failed)
		remember_fail(r, res);
	if (r->json)
		json_line(r, res);
	if (r->junit)
		junit_case(r, res);
	clear_progress(r);
	if (show)
		table_row(r, res);
	if (failed || (v == CS_V_XFAIL && show) ||
	    (v == CS_V_WARN && r->o.verbose) ||
	    (r->o.verbose > 1 && res->detail[0]))
		row_detail(r, res);
	fflush(r->out);
	restore_signals(&old);
}

/* ---- closing ------------------------------------------------------------- */

/* With expectations, two more columns: xfail and xpass. */
static void print_summary(cs_report_t *r)
{
	int c, v;

	fprintf(r->out, "\nsummary by collective:\n  %-14s %6s %6s %6s %6s %6s "
		"%6s%s\n", "collective", "cases", "pass", "info", "warn", "skip",
		"fail", r->expect ? "  xfail  xpass" : "");
	for (c = 0; c < CS_NUM_COLLS; c++) {
		size_t *n = r->n[c], tot = 0;
		for (v = 0; v < CS_NUM_VERDICTS; v++)
			tot += n[v];
		if (!tot)
			continue;
		fprintf(r->out, "  %-14s %6zu %6zu %6zu %6zu %6zu %6zu",
			cs_coll_name((cs_coll_t)c), tot, n[CS_V_PASS],
			n[CS_V_INFO], n[CS_V_WARN], n[CS_V_SKIP], n[CS_V_FAIL]);
		if (r->expect)
			fprintf(r->out, " %6zu %6zu", n[CS_V_XFAIL],
				n[CS_V_XPASS]);
		fputc('\n', r->out);
	}
}

/* The expectations file's entries by finding, in the file's order: how
 * many entries, what they turned into XFAIL and XPASS, how many matched
 * no case of this run. */
static void print_expectations(cs_report_t *r)
{
	const cs_expect_t *x = r->expect;
	size_t i, k, entries, xfail, xpass, unmatched;

	if (!x)
		return;
	fputs("\nexpectations (", r->out);
	text_put(r->out, x->path, strlen(x->path));
	fprintf(r->out, ", %zu entries):\n  %-44s %7s %6s %6s %9s\n", x->n,
		"finding", "entries", "xfail", "xpass", "unmatched");
	for (i = 0; i < x->n; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(x->e[k].finding, x->e[i].finding))
				break;
		if (k < i) /* (counted with its first entry) */
			continue;
		entries = xfail = xpass = unmatched = 0;
		for (k = i; k < x->n; k++) {
			if (strcmp(x->e[k].finding, x->e[i].finding))
				continue;
			entries++;
			xfail += x->e[k].xfail;
			xpass += x->e[k].xpass;
			unmatched += !x->e[k].xfail && !x->e[k].xpass;
		}
		fprintf(r->out, "  %-44s %7zu %6zu %6zu %9zu\n",
			x->e[i].finding, entries, xfail, xpass, unmatched);
	}
}

static void print_profile(cs_report_t *r)
{
	int i, d;

	if (!r->nprofile) {
		fprintf(r->out, "\nimplementation profile: no implementation-"
			"defined behaviour observed\n");
		return;
	}
	fprintf(r->out, "\nimplementation profile (implementation-defined "
		"behaviour observed):\n");
	for (i = 0; i < r->nprofile; i++) {
		fprintf(r->out, "  %-16s %6zu cases:", r->profile[i].token,
			r->profile[i].cases);
		for (d = 0; d < CS_NUM_DTYPES; d++)
			if (r->profile[i].dtypes & (1u << d))
				fprintf(r->out, " %s", cs_dtype_name((cs_dtype_t)d));
		fputc('\n', r->out);
	}
}

/* FAIL and XPASS cases. */
static void print_fails(cs_report_t *r)
{
	size_t nf = r->all[CS_V_FAIL] + r->all[CS_V_XPASS];
	int i;

	if (!nf)
		return;
	fprintf(r->out, "\nfailed cases (%zu):\n", nf);
	for (i = 0; i < r->nfails; i++)
		fprintf(r->out, "  %s\n", r->fails[i]);
	if (nf > (size_t)r->nfails)
		fprintf(r->out, "  ... and %zu more (see the table above)\n",
			nf - (size_t)r->nfails);
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
		io_failed(&r->json_bad, "JSON", r->o.json, errno);
	if (r->junit && fclose(r->junit) != 0)
		io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	if (fflush(r->out) != 0 || ferror(r->out))
		io_failed(&r->out_bad, "report to standard output", NULL,
			  errno);
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

/* The verdict line; with expectations, failed counts XPASS too. */
static void print_totals(cs_report_t *r, size_t passed, size_t failed)
{
	size_t *a = r->all;

	fprintf(r->out, "\ncollspec: %zu cases: %zu passed, %zu failed",
		r->done, passed, failed);
	if (r->expect)
		fprintf(r->out, " (%zu xpass)", a[CS_V_XPASS]);
	fprintf(r->out, ", %zu skipped, %zu warned (%zu with info)",
		a[CS_V_SKIP], a[CS_V_WARN], a[CS_V_INFO]);
	if (r->expect)
		fprintf(r->out, ", %zu xfail", a[CS_V_XFAIL]);
	fprintf(r->out, " in %.1f s\n", wall_seconds(r));
}

cs_outcome_t cs_report_close(cs_report_t *r)
{
	size_t *a = r->all, passed = a[CS_V_PASS] + a[CS_V_INFO];
	size_t failed = a[CS_V_FAIL] + a[CS_V_XPASS];
	int fail;

	clear_progress(r);
	print_summary(r);
	print_profile(r);
	print_expectations(r);
	cs_failsigs_print(&r->sigs, r->expect != NULL, r->out);
	print_fails(r);
	print_totals(r, passed, failed);
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

	if (r->junit && junit_seek_ok(r, r->junit_body_end)) {
		if (fail)
			r->run_fails++;
		else
			r->errors++;
		fprintf(r->junit, "  <testcase classname=\"collspec.run\" "
			"name=\"%s\">\n", name);
		if (fail)
			fprintf(r->junit, "    <failure type=\"%s\" message=\"",
				check);
		else
			fputs("    <error message=\"", r->junit);
		xml_put(r->junit, why, 1);
		fputs("\"/>\n  </testcase>\n", r->junit);
		junit_mark_end(r);
		junit_seal(r);
	}
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
	clear_progress(r);
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
	clear_progress(r);
	run_entry(r, 1, check, check, why);
	fprintf(r->out, "collspec: FAIL (%s): %s\n", check, why);
	fprintf(r->out, "0 passed, 1 failed\n");
	out = close_reports_ok(r) ? CS_OUTCOME_FAILED : CS_OUTCOME_BROKEN;
	restore_signals(&old);
	return out;
}
