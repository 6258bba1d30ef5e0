/*
 * expect_apply.c - what an expectations file (expect.h, parsed by
 * expect.c) does to the run's results: which entries select a case, the
 * XFAIL a known failure becomes (the entry named in its detail, --expect
 * on its re-run line), and, after the last case, the entries whose defect
 * no longer showed (XPASS).
 */
#include <stdio.h>
#include <string.h>
#include "base/cli_parse.h"
#include "base/names.h"
#include "base/result.h"
#include "suite/suite.h"
#include "report/expect.h"

/* ---- matching ---------------------------------------------------------------- */

static int in_mask(uint32_t m, int v)
{
	return !m || (v >= 0 && v < 32 && ((m >> v) & 1u));
}

static int count_listed(const cs_filter_t *f, size_t count)
{
	int i;

	for (i = 0; i < f->ncounts; i++)
		if (f->counts[i] == count)
			return 1;
	return f->ncounts == 0;
}

static int world_listed(const cs_expect_entry_t *e, int P)
{
	int i;

	for (i = 0; i < e->nranges; i++)
		if (P >= e->ranks[i][0] && P <= e->ranks[i][1])
			return 1;
	return e->nranges == 0;
}

int cs_expect_case_matches(const cs_expect_entry_t *e, const cs_result_t *r)
{
	const cs_hcase_t *hc = &r->hc;
	const cs_filter_t *f = &e->f;

	if (!in_mask(f->colls, (int)hc->c.coll) ||
	    !in_mask(f->dtypes, (int)hc->c.dtype) ||
	    !in_mask(f->ops, (int)hc->c.op) ||
	    !in_mask(f->modes, (int)hc->c.mode) ||
	    !in_mask(f->comms, (int)hc->comm))
		return 0;
	if (hc->c.coll == CS_COLL_ALLTOALLV &&
	    !in_mask(f->a2av, (int)hc->a2av_pattern))
		return 0;
	if ((f->inplace >= 0 && hc->inplace != f->inplace) ||
	    (f->misalign >= 0 && hc->misalign != f->misalign) ||
	    (f->root >= 0 && cs_coll_rooted(hc->c.coll) &&
	     hc->c.root != f->root) ||
	    (f->has_seed && hc->c.seed != f->seed))
		return 0;
	return count_listed(f, hc->c.count) &&
	       world_listed(e, hc->c.nranks) &&
	       (!e->backend[0] || !strcmp(e->backend, r->backend));
}

/* Is every comma-separated word of want one of the words of have? */
static int words_in(const char *want, const char *have)
{
	const char *w = want;

	while (*w) {
		size_t len = strcspn(w, ",");

		if (!cs_list_has(have, w, len))
			return 0;
		w += len + (w[len] == ',');
	}
	return 1;
}

int cs_expect_opt_matches(const cs_expect_entry_t *e, const char *run_opt)
{
	return words_in(e->backend_opt, run_opt);
}

int cs_expect_alg_matches(const cs_expect_entry_t *e, const char *run_alg)
{
	return words_in(e->mpi_alg, run_alg);
}

void cs_expect_set_run_opt(cs_expect_t *x, const char *run_opt)
{
	if (x)
		x->run_opt = run_opt;
}

void cs_expect_set_run_alg(cs_expect_t *x, const char *run_alg)
{
	if (x)
		x->run_alg = run_alg;
}

/* ---- applying ---------------------------------------------------------------- */

static int lists_check(const cs_expect_entry_t *e, const char *check)
{
	int i;

	for (i = 0; i < cs_expect_nchecks(); i++)
		if (!strcmp(cs_expect_check_name(i), check))
			return (e->checks >> i) & 1u;
	return 0;
}

/* The entry's checks, space separated. */
static void checks_text(const cs_expect_entry_t *e, char *buf, size_t n)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < cs_expect_nchecks() && used < n; i++)
		if ((e->checks >> i) & 1u)
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? " " : "",
						 cs_expect_check_name(i));
}

/* line, then r's detail as it was; what does not fit of the old detail is
 * dropped at a line boundary and marked with "[...]". */
static void prepend_detail(cs_result_t *r, const char *line)
{
	static const char more[] = "[...]";
	char tmp[sizeof r->detail];
	size_t cap = sizeof tmp, n = strlen(line), old = strlen(r->detail);
	size_t keep = old, k;
	int cut = 0;
	char *nl;

	if (n > cap - sizeof more - 2)
		n = cap - sizeof more - 2; /* (never: its parts are bounded) */
	if (n + 1 + old + 1 > cap) { /* keep whole lines, then the mark */
		keep = cap - n - 1 - sizeof more - 1;
		r->detail[keep] = '\0';
		nl = strrchr(r->detail, '\n');
		keep = nl ? (size_t)(nl - r->detail) + 1 : 0;
		cut = 1;
	}
	memcpy(tmp, line, n);
	k = n;
	if (keep || cut)
		tmp[k++] = '\n';
	memcpy(tmp + k, r->detail, keep);
	k += keep;
	if (cut) {
		memcpy(tmp + k, more, sizeof more - 1);
		k += sizeof more - 1;
	}
	tmp[k] = '\0';
	memcpy(r->detail, tmp, k + 1);
}

/* A word of the re-run line: as is when plain, else in single quotes (a
 * quote inside as '\''). The path holds no control byte (parse). */
static size_t shell_word(const char *s, char *buf, size_t n)
{
	size_t k = 0, i;

	if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_./+,:=@%-") == strlen(s))
		return (size_t)snprintf(buf, n, "%s", s);
	for (i = 0; s[i]; i++)
		k += s[i] == '\'' ? 4 : 1;
	if (k + 3 > n)
		return k + 2;
	buf[0] = '\'';
	for (i = 0, k = 1; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else {
			buf[k++] = s[i];
		}
	}
	buf[k++] = '\'';
	buf[k] = '\0';
	return k;
}

/* " --expect PATH" after r's re-run line; a line that does not fit is
 * emptied (cut, it would re-run something else). */
static void add_expect_arg(const cs_expect_t *x, cs_result_t *r)
{
	size_t len = strlen(r->repro), cap = sizeof r->repro, w;
	static const char opt[] = " --expect ";

	if (!len)
		return;
	if (len + sizeof opt > cap) {
		r->repro[0] = '\0';
		return;
	}
	memcpy(r->repro + len, opt, sizeof opt);
	len += sizeof opt - 1;
	w = shell_word(x->path, r->repro + len, cap - len);
	if (len + w >= cap)
		r->repro[0] = '\0';
}

/* "known failure NAME (PATH:LINE): REASON; finding FINDING" */
static void entry_line(const cs_expect_t *x, const cs_expect_entry_t *e,
		       const char *what, char *buf, size_t n)
{
	if (snprintf(buf, n, "%s %s (%s:%d): %s; finding docs/findings/%s",
		     what, e->name, x->path, e->line, e->reason,
		     e->finding) < 0)
		buf[0] = '\0';
}

static void make_xfail(const cs_expect_t *x, cs_expect_entry_t *e,
		       cs_result_t *r)
{
	char line[2 * CS_EXPECT_PATH_MAX];

	entry_line(x, e, "known failure", line, sizeof line);
	prepend_detail(r, line);
	r->verdict = CS_V_XFAIL;
	e->xfail++;
}

/* A listed case that failed a check its entry does not list: still a
 * FAIL, with a line that says so. */
static void note_other(const cs_expect_t *x, const cs_expect_entry_t *e,
		       cs_result_t *r)
{
	char line[2 * CS_EXPECT_PATH_MAX], checks[256];

	checks_text(e, checks, sizeof checks);
	if (snprintf(line, sizeof line, "listed as known failure %s (%s:%d) "
		     "for check %s, but this case failed check %s", e->name,
		     x->path, e->line, checks, r->check) > 0)
		prepend_detail(r, line);
}

/* r's verdict counts for e (e selects r's case): matched, and shown when
 * r FAILed by one of e's checks. */
static void count_case(cs_expect_entry_t *e, const cs_result_t *r)
{
	e->matched++;
	if (r->verdict == CS_V_FAIL && lists_check(e, r->check))
		e->shown++;
}

const cs_expect_entry_t *cs_expect_apply(cs_expect_t *x, cs_result_t *r)
{
	cs_expect_entry_t *hit = NULL, *other = NULL;
	size_t i;

	if (!x || !r || (r->verdict != CS_V_FAIL && r->verdict != CS_V_PASS &&
			 r->verdict != CS_V_INFO && r->verdict != CS_V_WARN))
		return NULL;
	for (i = 0; i < x->n; i++) {
		if (!cs_expect_case_matches(&x->e[i], r) ||
		    !cs_expect_opt_matches(&x->e[i], x->run_opt) ||
		    !cs_expect_alg_matches(&x->e[i], x->run_alg))
			continue;
		count_case(&x->e[i], r);
		if (r->verdict != CS_V_FAIL || hit)
			continue;
		if (lists_check(&x->e[i], r->check))
			hit = &x->e[i];
		else if (!other)
			other = &x->e[i];
	}
	if (!hit) {
		if (other)
			note_other(x, other, r);
		return NULL;
	}
	make_xfail(x, hit, r);
	add_expect_arg(x, r);
	return hit;
}

size_t cs_expect_finish(cs_expect_t *x)
{
	size_t i, n = 0;

	for (i = 0; x && i < x->n; i++) {
		x->e[i].xpass = x->e[i].matched > 0 && x->e[i].shown == 0 &&
				!x->e[i].sometimes;
		n += (size_t)x->e[i].xpass;
	}
	return n;
}

void cs_expect_xpass_reason(const cs_expect_t *x, const cs_expect_entry_t *e,
			    char *buf, size_t n)
{
	char checks[256];

	checks_text(e, checks, sizeof checks);
	if (snprintf(buf, n, "entry %s (%s:%d, check %s) selected %zu cases of "
		     "this run and none failed by its check: the defect no "
		     "longer shows, or the entry selects the wrong cases; "
		     "finding docs/findings/%s", e->name, x->path, e->line,
		     checks, e->matched, e->finding) < 0 && n)
		buf[0] = '\0';
}
