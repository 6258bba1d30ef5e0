/*
 * report.h - the reports of a run (report.c; the JUnit document in
 * report_junit.c, the human table in report_table.c): the human table with
 * its progress line and summary, JSON Lines (--json) and JUnit XML
 * (--junit), with known failures (--expect) applied as results arrive.
 */
#ifndef CS_REPORT_H
#define CS_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "base/options.h"
#include "base/result.h"
#include "suite/suite.h"

typedef struct cs_report_opts {
	const char *json;      /* JSON Lines path or NULL */
	const char *junit;     /* JUnit XML path or NULL */
	const char *backend;   /* for the header */
	const char *backend_opt; /* the run's --backend-opt or NULL, for the
				  entries of expect that name one */
	const char *mpi_alg;   /* the run's --mpi-alg or NULL, likewise */
	const char *suite;
	const char *expect;    /* expectations file (--expect) or NULL: the
				  report loads it and applies it to every
				  result it is given (expect.h) */
	int quiet, verbose, fail_on_warn;
	int progress;          /* 1: draw a progress line (stdout is a tty) */
	FILE *out;             /* the human report (stdout) */
} cs_report_opts_t;

typedef struct cs_report cs_report_t;

/* The report options of a run (human report to o->out). */
void cs_run_report_opts(const cs_run_opts_t *o, cs_report_opts_t *ro);

/* Open the report files (emptying them once both are open). Fails with
 * CS_ERR_IO naming an unwritable path (or a JUnit path that cannot be
 * rewritten in place: a pipe) before anything is written, leaving both
 * files as they were (a file it had to create is removed again); with o->expect, first reads that
 * file, and fails as cs_expect_load does (naming file, line and problem)
 * before any report file is touched. */
cs_status_t cs_report_open(const cs_report_opts_t *o, cs_report_t **out);
void cs_report_set_total(cs_report_t *r, size_t total);
/* A case is about to run (progress line). */
void cs_report_start(cs_report_t *r, const cs_hcase_t *hc);
/* One final result: table row, JSON line, JUnit testcase, tallies; with
 * expectations, after cs_expect_apply (XFAIL; the XPASS entries come
 * at cs_report_close). */
void cs_report_add(cs_report_t *r, const cs_result_t *res);
/* How a run ended, as its report saw it. `collspec run` exits with this
 * value (docs/ci.md's exit codes). */
typedef enum cs_outcome {
	CS_OUTCOME_PASSED = 0, /* nothing failed, not everything skipped */
	CS_OUTCOME_FAILED = 1, /* failures, XPASS, everything skipped, or
				  warnings with --fail-on-warn */
	CS_OUTCOME_BROKEN = 2  /* the run could not happen, or a report could
				  not be written */
} cs_outcome_t;

/* Print summary, profile, expectations, failure signatures and totals,
 * close the files and free r. FAILED on failures or XPASS (warnings with
 * fail_on_warn), or when every case was skipped (XFAIL is not a failure);
 * BROKEN when a write to a report failed (each file's first failure is
 * said on stderr as it happens, naming the file). */
cs_outcome_t cs_report_close(cs_report_t *r);
/* The run stopped with an environment error: close the files with an error
 * entry so that no partial report claims success, free r. */
void cs_report_abort(cs_report_t *r, const char *why);
/* The run failed as a whole before any case (check "load": the plugin
 * crashed or hung while loading): a FAIL entry of that check with reason
 * why in both files, then close and free r. FAILED, or BROKEN when a report
 * could not be written. */
cs_outcome_t cs_report_fail_run(cs_report_t *r, const char *check,
				 const char *why);

#endif /* CS_REPORT_H */
