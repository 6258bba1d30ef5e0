/*
 * report_table.c - the report's human side (report.c holds the files): the
 * progress line, the table with one row per result (nccl-tests' columns
 * where they fit), the detail under a failure, and at the close the
 * tallies: summary by collective, implementation profile, expectations,
 * failure signatures (failsig.c), failed cases and the totals line.
 * Strings from a backend go through text_put, so that one row stays one
 * line and sends no terminal escapes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/case.h"
#include "report/expect.h"
#include "report/failsig.h"
#include "base/names.h"
#include "csref/cost.h"
#include "suite/patsuite.h"
#include "report/report_impl.h"
#include "base/result.h"
#include "suite/suite.h"

/* ---- the human table ----------------------------------------------------- */

void cs_report_clear_progress(cs_report_t *r)
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
	if (hc->pattern)
		cs_hcase_pattern_label(hc, name, sizeof name);
	else
		cs_case_format(&hc->c, name, sizeof name);
	fprintf(r->out, "\r\033[K[%zu/%zu] #%zu %s inplace=%d comm=%s", r->done + 1,
		r->total, hc->index, name, hc->inplace, cs_commvar_name(hc->comm));
	fflush(r->out);
	r->progress_shown = 1;
}

/* Bytes one rank moves, as nccl-tests reports "size" (bench's rule). */
static size_t case_bytes(const cs_case_t *c)
{
	return c->count *
	       (size_t)cs_nccl_size_per_count(c->coll, c->dtype, c->nranks);
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

/* A pattern case's row: its pattern and variant, world size, dtype and
 * grid in the columns of coll, P, type and comm; the volume under -v. */
static void pattern_row(cs_report_t *r, const cs_result_t *res)
{
	const cs_case_t *c = &res->hc.c;
	const char *check = res->check[0] ? res->check : "-";
	size_t len = strlen(check);
	char label[96];

	cs_hcase_pattern_label(&res->hc, label, sizeof label);
	fprintf(r->out, "  %5zu %-27s %3d %-11s grid %-16s %10.1f  %-7s ",
		res->hc.index, label + strlen("pattern "), c->nranks,
		cs_dtype_name(c->dtype), res->grid, res->seconds * 1e6,
		cs_verdict_name(res->verdict));
	text_put(r->out, check, len);
	fprintf(r->out, "%*s", len < 11 ? (int)(12 - len) : 1, "");
	text_put(r->out, res->reason, strlen(res->reason));
	fputs(res->info[0] && res->reason[0] ? "; " : "", r->out);
	text_put(r->out, res->info, strlen(res->info));
	fputc('\n', r->out);
	if (r->o.verbose && res->volume[0])
		fprintf(r->out, "        volume (group coll calls bytes "
			"max-rank-bytes): %s\n", res->volume);
}

static void table_row(cs_report_t *r, const cs_result_t *res)
{
	const cs_case_t *c = &res->hc.c;
	const char *check = res->check[0] ? res->check : "-";
	size_t len = strlen(check);
	char root[16];

	table_header(r);
	if (res->hc.pattern) {
		pattern_row(r, res);
		return;
	}
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

void cs_report_table_add(cs_report_t *r, const cs_result_t *res)
{
	int v = res->verdict;
	int failed = v == CS_V_FAIL || v == CS_V_XPASS;
	int show = !r->o.quiet || failed || v == CS_V_WARN;

	cs_report_clear_progress(r);
	if (show)
		table_row(r, res);
	if (failed || (v == CS_V_XFAIL && show) ||
	    (v == CS_V_WARN && r->o.verbose) ||
	    (r->o.verbose > 1 && res->detail[0]))
		row_detail(r, res);
}

/* ---- tallies ------------------------------------------------------------- */

static void profile_add(cs_report_t *r, const cs_result_t *res)
{
	char buf[sizeof res->info], *tok, *save = NULL;
	int i;

	/* a pattern case's info is what the pattern measured (MoE's token
	 * counts), not an implementation-defined behaviour */
	if (res->hc.pattern)
		return;
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

void cs_report_tally(cs_report_t *r, const cs_result_t *res)
{
	profile_add(r, res);
	if (res->verdict == CS_V_FAIL || res->verdict == CS_V_XPASS)
		remember_fail(r, res);
}

void cs_report_remember_line(cs_report_t *r, const char *prefix,
			     const char *text)
{
	char *line = NULL;
	size_t n = 0;
	FILE *f;

	if (r->nfails == MAX_LISTED_FAILS || !(f = open_memstream(&line, &n)))
		return;
	fputs(prefix, f);
	text_put(f, text, strlen(text));
	if (fclose(f) == 0 && line)
		r->fails[r->nfails++] = line;
	else
		free(line);
}

/* ---- closing ------------------------------------------------------------- */

/* With expectations, one more column: xfail (an XPASS is an entry, not a
 * case: print_expectations). */
static void print_summary(cs_report_t *r)
{
	int c, v;

	fprintf(r->out, "\nsummary by collective:\n  %-14s %6s %6s %6s %6s %6s "
		"%6s%s\n", "collective", "cases", "pass", "info", "warn", "skip",
		"fail", r->expect ? "  xfail" : "");
	for (c = 0; c <= CS_NUM_COLLS; c++) {
		size_t *n = r->n[c], tot = 0;
		for (v = 0; v < CS_NUM_VERDICTS; v++)
			tot += n[v];
		if (!tot)
			continue;
		fprintf(r->out, "  %-14s %6zu %6zu %6zu %6zu %6zu %6zu",
			c == CS_NUM_COLLS ? "(patterns)"
					  : cs_coll_name((cs_coll_t)c),
			tot, n[CS_V_PASS],
			n[CS_V_INFO], n[CS_V_WARN], n[CS_V_SKIP], n[CS_V_FAIL]);
		if (r->expect)
			fprintf(r->out, " %6zu", n[CS_V_XFAIL]);
		fputc('\n', r->out);
	}
}

/* The expectations file's entries by finding, in the file's order: how
 * many entries, the cases they selected, what they turned into XFAIL, how
 * many entries are XPASS, how many selected no case of this run; then
 * each entry given --shows sometimes that selected cases, none failing. */
static void print_expectations(cs_report_t *r)
{
	const cs_expect_t *x = r->expect;
	size_t i, k, entries, cases, xfail, xpass, unmatched;

	if (!x)
		return;
	fputs("\nexpectations (", r->out);
	text_put(r->out, x->path, strlen(x->path));
	fprintf(r->out, ", %zu entries):\n  %-44s %7s %6s %6s %6s %9s\n",
		x->n, "finding", "entries", "cases", "xfail", "xpass",
		"unmatched");
	for (i = 0; i < x->n; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(x->e[k].finding, x->e[i].finding))
				break;
		if (k < i) /* (counted with its first entry) */
			continue;
		entries = cases = xfail = xpass = unmatched = 0;
		for (k = i; k < x->n; k++) {
			if (strcmp(x->e[k].finding, x->e[i].finding))
				continue;
			entries++;
			cases += x->e[k].matched;
			xfail += x->e[k].xfail;
			xpass += (size_t)x->e[k].xpass;
			unmatched += !x->e[k].matched;
		}
		fprintf(r->out, "  %-44s %7zu %6zu %6zu %6zu %9zu\n",
			x->e[i].finding, entries, cases, xfail, xpass,
			unmatched);
	}
	for (i = 0; i < x->n; i++)
		if (x->e[i].sometimes && x->e[i].matched && !x->e[i].shown)
			fprintf(r->out, "  not shown (--shows sometimes, not a "
				"failure): entry %s, %zu cases\n", x->e[i].name,
				x->e[i].matched);
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

/* FAIL cases and XPASS entries. */
static void print_fails(cs_report_t *r)
{
	size_t nf = r->all[CS_V_FAIL] + r->xpass;
	int i;

	if (!nf)
		return;
	fprintf(r->out, "\nfailed cases%s (%zu):\n",
		r->xpass ? " and XPASS entries" : "", nf);
	for (i = 0; i < r->nfails; i++)
		fprintf(r->out, "  %s\n", r->fails[i]);
	if (nf > (size_t)r->nfails)
		fprintf(r->out, "  ... and %zu more (see the table above)\n",
			nf - (size_t)r->nfails);
}

void cs_report_print_tallies(cs_report_t *r)
{
	print_summary(r);
	print_profile(r);
	print_expectations(r);
	cs_failsigs_print(&r->sigs, r->expect != NULL, r->out);
	print_fails(r);
}

/* The verdict line; with expectations, failed counts XPASS too. */
void cs_report_print_totals(cs_report_t *r, size_t passed, size_t failed)
{
	size_t *a = r->all;

	fprintf(r->out, "\ncollspec: %zu cases: %zu passed, %zu failed",
		r->done, passed, failed);
	if (r->expect)
		fprintf(r->out, " (%zu xpass)", r->xpass);
	fprintf(r->out, ", %zu skipped, %zu warned (%zu with info)",
		a[CS_V_SKIP], a[CS_V_WARN], a[CS_V_INFO]);
	if (r->expect)
		fprintf(r->out, ", %zu xfail", a[CS_V_XFAIL]);
	fprintf(r->out, " in %.1f s\n", cs_report_wall_seconds(r));
}

