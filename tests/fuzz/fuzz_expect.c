/*
 * fuzz_expect.c - expectations files (--expect): cs_expect_parse on any
 * bytes, then the entries applied to results of every verdict.
 *
 * Properties: the parser returns CS_OK, or CS_ERR_INVALID with a message
 * that names the file and a line of the input ("f.txt:N: ...", or "f.txt:
 * no entry") and no result; what it accepts holds 1 to
 * CS_EXPECT_ENTRIES_MAX entries, each with a name, a check, a reason and a
 * finding within their bounds, on a line of the input. Applying the
 * entries never overruns a result's strings; only a FAIL becomes XFAIL,
 * a pass (PASS, INFO, WARN) and a SKIP stay as they were; after the
 * results, an entry is XPASS exactly when it selected some and none of
 * them failed by its check.
 */
#include <stdlib.h>
#include <string.h>
#include "base/names.h"
#include "base/result.h"
#include "report/expect.h"
#include "fuzz.h"

static size_t lines_of(const uint8_t *data, size_t size)
{
	size_t i, n = 1;

	for (i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_entries(const cs_expect_t *x, size_t nlines)
{
	size_t i;

	CS_FUZZ_CHECK(x->n >= 1 && x->n <= CS_EXPECT_ENTRIES_MAX,
		      "%zu entries", x->n);
	for (i = 0; i < x->n; i++) {
		const cs_expect_entry_t *e = &x->e[i];
		CS_FUZZ_CHECK(e->line >= 1 && (size_t)e->line <= nlines,
			      "entry %zu on line %d of %zu", i, e->line, nlines);
		CS_FUZZ_CHECK(e->name[0] && e->name[0] != '-' && e->checks &&
			      e->reason[0] && e->finding[0] &&
			      !strchr(e->finding, '/'),
			      "entry %zu incomplete", i);
		CS_FUZZ_CHECK(strlen(e->reason) <= CS_EXPECT_REASON_MAX &&
			      strlen(e->name) <= CS_EXPECT_NAME_MAX,
			      "entry %zu too long", i);
	}
}

/* A result of verdict v whose case is drawn from the input's bytes. */
static void one_result(cs_expect_t *x, cs_verdict_t v, const uint8_t *data,
		       size_t size)
{
	static cs_result_t r;
	const cs_expect_entry_t *e;
	unsigned b = size ? data[size / 2] : 0;

	memset(&r, 0, sizeof r);
	r.hc.c.coll = (cs_coll_t)(b % CS_NUM_COLLS);
	r.hc.c.dtype = (cs_dtype_t)(b % CS_NUM_DTYPES);
	r.hc.c.op = cs_coll_reduces(r.hc.c.coll) ? (cs_op_t)(b % CS_NUM_OPS)
						 : CS_OP_NONE;
	r.hc.c.nranks = 1 + (int)(b % 9);
	r.hc.c.count = b;
	r.verdict = v;
	snprintf(r.backend, sizeof r.backend, "mpi");
	snprintf(r.check, sizeof r.check, "%s",
		 cs_expect_check_name((int)(b % (unsigned)cs_expect_nchecks())));
	memset(r.detail, 'd', sizeof r.detail - 1);
	memset(r.repro, 'r', sizeof r.repro / 2);
	e = cs_expect_apply(x, &r);
	CS_FUZZ_CHECK(memchr(r.detail, 0, sizeof r.detail) &&
		      memchr(r.repro, 0, sizeof r.repro) &&
		      memchr(r.reason, 0, sizeof r.reason),
		      "a string of the result is no longer terminated");
	if (v == CS_V_FAIL)
		CS_FUZZ_CHECK(r.verdict == (e ? CS_V_XFAIL : CS_V_FAIL),
			      "FAIL became %s", cs_verdict_name(r.verdict));
	else if (v == CS_V_SKIP)
		CS_FUZZ_CHECK(!e && r.verdict == CS_V_SKIP, "SKIP changed");
	else
		CS_FUZZ_CHECK(!e && r.verdict == v, "%s became %s",
			      cs_verdict_name(v), cs_verdict_name(r.verdict));
}

/* After the results: XPASS entries are those that matched and were not
 * shown, and cs_expect_finish counts them. */
static void check_finish(cs_expect_t *x)
{
	size_t i, n = cs_expect_finish(x), k = 0;

	for (i = 0; i < x->n; i++) {
		const cs_expect_entry_t *e = &x->e[i];
		CS_FUZZ_CHECK(e->shown <= e->matched && e->xfail <= e->matched,
			      "entry %zu: shown %zu, xfail %zu of %zu", i,
			      e->shown, e->xfail, e->matched);
		CS_FUZZ_CHECK(e->xpass == (e->matched && !e->shown),
			      "entry %zu: xpass %d", i, e->xpass);
		k += (size_t)e->xpass;
	}
	CS_FUZZ_CHECK(k == n, "%zu XPASS entries, finish said %zu", k, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const cs_verdict_t v[] = {CS_V_PASS, CS_V_INFO, CS_V_SKIP,
					 CS_V_WARN, CS_V_FAIL};
	cs_expect_t *x = NULL;
	cs_status_t st;
	size_t i;

	st = cs_expect_parse("f.txt", (const char *)data, size, &x);
	if (st != CS_OK) {
		CS_FUZZ_CHECK(st == CS_ERR_INVALID && !x,
			      "status %d, result %p", st, (void *)x);
		CS_FUZZ_CHECK(!strncmp(cs_last_error(), "f.txt:", 6),
			      "message '%s'", cs_last_error());
		return 0;
	}
	check_entries(x, lines_of(data, size));
	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		one_result(x, v[i], data, size);
	check_finish(x);
	cs_expect_free(x);
	return 0;
}
