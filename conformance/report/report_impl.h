/*
 * report_impl.h - private to the report (report.c, report_junit.c,
 * report_table.c, report_io.c): the report's state and the few functions
 * its files share (report_io.c). Callers outside the report use report.h.
 */
#ifndef CS_REPORT_IMPL_H
#define CS_REPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "report/expect.h"
#include "report/failsig.h"
#include "report/report.h"
#include "base/result.h"

#define MAX_LISTED_FAILS 64
#define MAX_PROFILE 16

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
	size_t total, done, n[CS_NUM_COLLS + 1][CS_NUM_VERDICTS],
		all[CS_NUM_VERDICTS];
	cs_expect_t *expect;   /* --expect, or NULL */
	cs_result_t *scratch;  /* a result with the expectations applied */
	size_t xpass;          /* the expectations' XPASS entries, counted
				  at the close (cs_expect_finish) */
	cs_failsigs_t sigs;
	struct timespec t0;
	int progress_shown, header_shown, errors, run_fails;
	struct profile_item profile[MAX_PROFILE];
	int nprofile;
	char *fails[MAX_LISTED_FAILS];
	int nfails;
};

/* ---- report_io.c ---- */

/* Seconds since the report was opened (r->t0). */
double cs_report_wall_seconds(const cs_report_t *r);
/* The first failure on a report file (path; NULL for standard output,
 * what names the report): said on stderr once, remembered in *bad. err
 * is an errno value, 0 for a plain write error. */
void cs_report_io_failed(int *bad, const char *what, const char *path,
			 int err);
/* Flush f and check it for an earlier failed write: true while every
 * write to it has succeeded (a failure is said once, on stderr, through
 * cs_report_io_failed). */
bool cs_report_io_ok(FILE *f, int *bad, const char *what, const char *path);

/* ---- report_junit.c: the JUnit XML document ---- */

/* s XML-escaped for an attribute, malloc'ed (the caller frees it); NULL
 * when out of memory. */
char *cs_report_xml_string(const char *s);
/* Start the document in the freshly emptied r->junit: prolog, the
 * <testsuite> start tag, and the closing tags (the document is valid from
 * here on). A failed write is remembered in r->junit_bad. */
void cs_report_junit_open_body(cs_report_t *r);
/* One final result as a <testcase>, then the document closed again and its
 * counts refreshed (reads r's tallies: call after counting res). */
void cs_report_junit_case(cs_report_t *r, const cs_result_t *res);
/* A <testcase> for the whole run named name: an <error> (fail 0) or a
 * <failure> of type check (fail 1) with message why; counts it in
 * r->errors or r->run_fails. Nothing when the file has failed. */
void cs_report_junit_run_entry(cs_report_t *r, int fail, const char *name,
			       const char *check, const char *why);

/* ---- report_table.c: the human table and the tallies ---- */

/* Erase the progress line, if one is shown. */
void cs_report_clear_progress(cs_report_t *r);
/* Note res in the implementation profile and, when it failed (FAIL or
 * XPASS), in the final list of failures (r keeps a copy). */
void cs_report_tally(cs_report_t *r, const cs_result_t *res);
/* "PREFIX TEXT" as a line of the final list of failures (r keeps a
 * copy; nothing past the list's limit). */
void cs_report_remember_line(cs_report_t *r, const char *prefix,
			     const char *text);
/* res on the table: the progress line cleared, its row (unless --quiet
 * hides it) and, for failures and by --verbose, its detail and re-run
 * line under it. */
void cs_report_table_add(cs_report_t *r, const cs_result_t *res);
/* The closing sections: summary by collective, implementation profile,
 * expectations, failure signatures and the list of failed cases. */
void cs_report_print_tallies(cs_report_t *r);
/* The totals line: passed and failed as cs_report_close counts them. */
void cs_report_print_totals(cs_report_t *r, size_t passed, size_t failed);

#endif /* CS_REPORT_IMPL_H */
