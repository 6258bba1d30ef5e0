/*
 * report.c - what a run tells its reader: a human table (nccl-tests'
 * columns where they fit), a summary per collective, the implementation
 * profile, JSON Lines and JUnit XML.
 *
 * Report files are valid after every case: each JSON line and each JUnit
 * testcase is written whole with SIGINT, SIGTERM and SIGHUP blocked, and the
 * JUnit document is closed after every testcase (its closing tags are
 * overwritten by the next one), so a run cut short leaves valid files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collspec.h"

#define MAX_LISTED_FAILS 64
#define MAX_PROFILE 16
#define JUNIT_HEADER_WIDTH 160

struct profile_item {
	char token[32];
	size_t cases;
	uint32_t dtypes; /* bit mask */
};

struct cs_report {
	cs_report_opts_t o;
	FILE *out, *json, *junit;
	long junit_header, junit_body_end;
	size_t total, done, n[CS_NUM_COLLS][CS_V_FAIL + 1], all[CS_V_FAIL + 1];
	struct timespec t0;
	int progress_shown, header_shown, errors;
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

/* ---- XML ----------------------------------------------------------------- */

/* Write s with XML's special characters escaped; control bytes other than
 * tab and newline (not allowed in XML 1.0) become '?'. */
static void xml_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else if (ch == '\'')
			fputs("&apos;", f);
		else if (ch < 0x20 && ch != '\n' && ch != '\t')
			fputc('?', f);
		else
			fputc(ch, f);
	}
}

/* The <testsuite> start tag, always JUNIT_HEADER_WIDTH bytes. */
static void junit_header(cs_report_t *r)
{
	char tag[JUNIT_HEADER_WIDTH + 1], name[80];
	int len;
	size_t i;

	for (i = 0; r->o.backend[i] && i + 1 < sizeof name; i++)
		name[i] = strchr("<>&\"'", r->o.backend[i]) ? '_' : r->o.backend[i];
	name[i] = '\0';
	len = snprintf(tag, sizeof tag, "<testsuite name=\"collspec.%s\" "
		       "tests=\"%zu\" failures=\"%zu\" errors=\"%d\" "
		       "skipped=\"%zu\" time=\"%.3f\"", name,
		       r->done + (size_t)r->errors,
		       r->all[CS_V_FAIL], r->errors, r->all[CS_V_SKIP],
		       wall_seconds(r));
	if (len < 0 || len > JUNIT_HEADER_WIDTH - 2)
		len = JUNIT_HEADER_WIDTH - 2;
	memset(tag + len, ' ', (size_t)(JUNIT_HEADER_WIDTH - 1 - len));
	tag[JUNIT_HEADER_WIDTH - 2] = '>';
	tag[JUNIT_HEADER_WIDTH - 1] = '\n';
	fseek(r->junit, r->junit_header, SEEK_SET);
	fwrite(tag, 1, JUNIT_HEADER_WIDTH, r->junit);
}

/* Close the document after the body, then refresh the counts. */
static void junit_seal(cs_report_t *r)
{
	fseek(r->junit, r->junit_body_end, SEEK_SET);
	fputs("</testsuite>\n</testsuites>\n", r->junit);
	junit_header(r);
	fflush(r->junit);
}

static void junit_open_body(cs_report_t *r)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
	      "name=\"collspec\">\n", r->junit);
	r->junit_header = ftell(r->junit);
	junit_header(r);
	r->junit_body_end = ftell(r->junit);
	junit_seal(r);
}

static void junit_case(cs_report_t *r, const cs_result_t *res)
{
	char name[256];

	cs_case_format(&res->hc.c, name, sizeof name);
	fseek(r->junit, r->junit_body_end, SEEK_SET);
	fprintf(r->junit, "  <testcase classname=\"collspec.%s\" name=\"#%zu ",
		cs_coll_name(res->hc.c.coll), res->hc.index);
	xml_put(r->junit, name);
	fprintf(r->junit, " inplace=%d comm=%s misalign=%d\" time=\"%.6f\">\n",
		res->hc.inplace, cs_commvar_name(res->hc.comm), res->hc.misalign,
		res->seconds);
	if (res->verdict == CS_V_FAIL || res->verdict == CS_V_SKIP) {
		int fail = res->verdict == CS_V_FAIL;
		fputs(fail ? "    <failure type=\"" : "    <skipped type=\"",
		      r->junit);
		xml_put(r->junit, res->check);
		fputs("\" message=\"", r->junit);
		xml_put(r->junit, res->reason);
		fputs("\">", r->junit);
		xml_put(r->junit, res->detail);
		if (fail) {
			fputs("\nre-run: ", r->junit);
			xml_put(r->junit, res->repro);
		}
		fputs(fail ? "</failure>\n" : "</skipped>\n", r->junit);
	} else if (res->verdict != CS_V_PASS || res->info[0]) {
		fprintf(r->junit, "    <system-out>%s %s: ",
			cs_verdict_name(res->verdict), res->check);
		xml_put(r->junit, res->reason);
		fputc(' ', r->junit);
		xml_put(r->junit, res->info);
		fputs("</system-out>\n", r->junit);
	}
	fputs("  </testcase>\n", r->junit);
	r->junit_body_end = ftell(r->junit);
	junit_seal(r);
}

/* ---- opening ------------------------------------------------------------- */

static cs_status_t open_file(const char *path, const char *what, FILE **out)
{
	*out = NULL;
	if (!path)
		return CS_OK;
	*out = fopen(path, "w+");
	if (!*out)
		return cs_error(CS_ERR_IO, "cannot write the %s report '%s': %s",
				what, path, strerror(errno));
	return CS_OK;
}

cs_status_t cs_report_open(const cs_report_opts_t *o, cs_report_t **out)
{
	cs_report_t *r = calloc(1, sizeof *r);
	cs_status_t st;

	if (!r)
		return cs_error(CS_ERR_NOMEM, "report: out of memory");
	r->o = *o;
	r->out = o->out ? o->out : stdout;
	if ((st = open_file(o->json, "JSON", &r->json)) != CS_OK ||
	    (st = open_file(o->junit, "JUnit", &r->junit)) != CS_OK) {
		if (r->json)
			fclose(r->json);
		free(r);
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
	default:
		return b;
	}
}

static void table_header(cs_report_t *r)
{
	if (r->header_shown)
		return;
	r->header_shown = 1;
	fprintf(r->out, "# collspec run: backend %s, suite %s\n#\n",
		r->o.backend, r->o.suite);
	fprintf(r->out, "# %5s %-13s %3s %11s %10s %-11s %-9s %-7s %4s %7s "
		"%-8s %3s %10s  %-7s %-11s %s\n", "case", "coll", "P", "size(B)",
		"count", "type", "redop", "mode", "root", "inplace", "comm",
		"mis", "time(us)", "verdict", "check", "reason");
}

static void table_row(cs_report_t *r, const cs_result_t *res)
{
	const cs_case_t *c = &res->hc.c;
	char root[16];

	table_header(r);
	if (cs_coll_rooted(c->coll))
		snprintf(root, sizeof root, "%d", c->root);
	else
		snprintf(root, sizeof root, "-");
	fprintf(r->out, "  %5zu %-13s %3d %11zu %10zu %-11s %-9s %-7s %4s %7d "
		"%-8s %3d %10.1f  %-7s %-11s %s%s%s\n", res->hc.index,
		cs_coll_name(c->coll), c->nranks, case_bytes(c), c->count,
		cs_dtype_name(c->dtype),
		cs_coll_reduces(c->coll) ? cs_op_name(c->op) : "-",
		cs_mode_name(c->mode), root, res->hc.inplace,
		cs_commvar_name(res->hc.comm), res->hc.misalign,
		res->seconds * 1e6, cs_verdict_name(res->verdict),
		res->check[0] ? res->check : "-", res->reason,
		res->info[0] && res->reason[0] ? "; " : "", res->info);
}

/* The detail and reproducer under a FAIL (or WARN) row. */
static void row_detail(cs_report_t *r, const cs_result_t *res)
{
	const char *p = res->detail, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(r->out, "          | %.*s\n",
			(int)(nl ? (size_t)(nl - p) : strlen(p)), p);
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

static void remember_fail(cs_report_t *r, const cs_result_t *res)
{
	char line[sizeof res->check + sizeof res->reason + sizeof res->repro + 64];

	if (r->nfails == MAX_LISTED_FAILS)
		return;
	snprintf(line, sizeof line, "#%zu %s: %s\n      %s", res->hc.index,
		 res->check, res->reason, res->repro);
	r->fails[r->nfails] = strdup(line);
	if (r->fails[r->nfails])
		r->nfails++;
}

/* The inside of a JSON string literal. */
static void json_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
}

static void json_line(cs_report_t *r, const cs_result_t *res)
{
	char buf[32768]; /* a result, every byte escaped, fits */
	int n = cs_result_to_json(res, buf, sizeof buf);

	if (n < 0 || (size_t)n >= sizeof buf)
		return;
	fputs(buf, r->json);
	fputc('\n', r->json);
	fflush(r->json);
}

void cs_report_add(cs_report_t *r, const cs_result_t *res)
{
	int v = res->verdict;
	int show = !r->o.quiet || v == CS_V_FAIL || v == CS_V_WARN;
	sigset_t old;

	if ((unsigned)v > CS_V_FAIL)
		v = CS_V_FAIL;
	block_signals(&old);
	r->done++;
	r->n[res->hc.c.coll < CS_NUM_COLLS ? res->hc.c.coll : 0][v]++;
	r->all[v]++;
	profile_add(r, res);
	if (v == CS_V_FAIL)
		remember_fail(r, res);
	if (r->json)
		json_line(r, res);
	if (r->junit)
		junit_case(r, res);
	clear_progress(r);
	if (show)
		table_row(r, res);
	if (v == CS_V_FAIL || (v == CS_V_WARN && r->o.verbose) ||
	    (r->o.verbose > 1 && res->detail[0]))
		row_detail(r, res);
	fflush(r->out);
	restore_signals(&old);
}

/* ---- closing ------------------------------------------------------------- */

static void print_summary(cs_report_t *r)
{
	int c;

	fprintf(r->out, "\nsummary by collective:\n  %-14s %6s %6s %6s %6s %6s "
		"%6s\n", "collective", "cases", "pass", "info", "warn", "skip",
		"fail");
	for (c = 0; c < CS_NUM_COLLS; c++) {
		size_t *n = r->n[c];
		size_t tot = n[0] + n[1] + n[2] + n[3] + n[4];
		if (!tot)
			continue;
		fprintf(r->out, "  %-14s %6zu %6zu %6zu %6zu %6zu %6zu\n",
			cs_coll_name((cs_coll_t)c), tot, n[CS_V_PASS],
			n[CS_V_INFO], n[CS_V_WARN], n[CS_V_SKIP], n[CS_V_FAIL]);
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

static void print_fails(cs_report_t *r)
{
	int i;

	if (!r->all[CS_V_FAIL])
		return;
	fprintf(r->out, "\nfailed cases (%zu):\n", r->all[CS_V_FAIL]);
	for (i = 0; i < r->nfails; i++)
		fprintf(r->out, "  %s\n", r->fails[i]);
	if (r->all[CS_V_FAIL] > (size_t)r->nfails)
		fprintf(r->out, "  ... and %zu more (see the table above)\n",
			r->all[CS_V_FAIL] - (size_t)r->nfails);
}

static void free_report(cs_report_t *r)
{
	int i;

	for (i = 0; i < r->nfails; i++)
		free(r->fails[i]);
	if (r->json)
		fclose(r->json);
	if (r->junit)
		fclose(r->junit);
	free(r);
}

int cs_report_close(cs_report_t *r)
{
	size_t *a = r->all, passed = a[CS_V_PASS] + a[CS_V_INFO];
	double wall = wall_seconds(r);
	int code;

	clear_progress(r);
	print_summary(r);
	print_profile(r);
	print_fails(r);
	fprintf(r->out, "\ncollspec: %zu cases: %zu passed, %zu failed, %zu "
		"skipped, %zu warned (%zu with info) in %.1f s\n", r->done,
		passed, a[CS_V_FAIL], a[CS_V_SKIP], a[CS_V_WARN], a[CS_V_INFO],
		wall);
	code = a[CS_V_FAIL] || (r->o.fail_on_warn && a[CS_V_WARN]) ||
	       r->done == a[CS_V_SKIP];
	if (r->done == 0)
		fprintf(r->out, "collspec: no case ran: not a pass\n");
	else if (r->done == a[CS_V_SKIP])
		fprintf(r->out, "collspec: every case was skipped: not a pass\n");
	else if (r->o.fail_on_warn && a[CS_V_WARN])
		fprintf(r->out, "collspec: warnings fail this run "
			"(--fail-on-warn)\n");
	fprintf(r->out, "%zu passed, %zu failed\n", passed, a[CS_V_FAIL]);
	fflush(r->out);
	free_report(r);
	return code;
}

void cs_report_abort(cs_report_t *r, const char *why)
{
	sigset_t old;

	if (!r)
		return;
	block_signals(&old);
	clear_progress(r);
	if (r->junit) {
		r->errors++;
		fseek(r->junit, r->junit_body_end, SEEK_SET);
		fputs("  <testcase classname=\"collspec.run\" name=\"run\">\n"
		      "    <error message=\"", r->junit);
		xml_put(r->junit, why);
		fputs("\"/>\n  </testcase>\n", r->junit);
		r->junit_body_end = ftell(r->junit);
		junit_seal(r);
	}
	if (r->json) {
		fputs("{\"verdict\":\"FAIL\",\"check\":\"error\",\"aborted\":"
		      "true,\"reason\":\"", r->json);
		json_put(r->json, why);
		fputs("\"}\n", r->json);
		fflush(r->json);
	}
	fprintf(r->out, "collspec: run aborted: %s\n", why);
	fflush(r->out);
	free_report(r);
	restore_signals(&old);
}
