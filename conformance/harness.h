/*
 * harness.h - internal interfaces of the collspec harness, shared by the
 * suite builder, the worker (the process that runs cases under MPI), the
 * driver (the process that launches and supervises workers) and reporters.
 *
 * Data flow:
 *   suite   cs_suite_build() turns a suite name and filters into a list of
 *           cs_hcase_t for one world size;
 *   worker  runs each case on its backend, checks it and produces one
 *           cs_result_t per case (rank 0 holds the merged result); for a
 *           backend that drives every rank from one process, the
 *           in-process worker (inproc.c) does the same with no MPI;
 *   driver  (collspec run --ranks A-B) launches workers with mpiexec per
 *           world size (the in-process worker without a launcher), reads their results as JSON Lines from a file,
 *           turns a crash or hang into a FAIL result for the case running
 *           then, and resumes with the next case;
 *   report  writes results as a table, JSON Lines and JUnit XML.
 */
#ifndef CS_HARNESS_H
#define CS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "csref/case.h"

/* Communicator variants a case runs on (every world rank takes part). */
#define CS_COMMVAR_LIST(X)                                                     \
  X(WORLD, world, "all ranks in world order")                                  \
  X(REVERSED, reversed, "all ranks, rank order reversed")                      \
  X(HALVES, halves, "two halves, each its own communicator")                   \
  X(ODDEVEN, oddeven, "even ranks and odd ranks, each its own communicator")

#define CS_HENUM_(ID, ...) CS_COMM_##ID,
typedef enum cs_commvar { CS_COMMVAR_LIST(CS_HENUM_) CS_NUM_COMMVARS } cs_commvar_t;
#undef CS_HENUM_

/* alltoallv count-matrix patterns; the matrix is a pure function of
 * (pattern, P, count, seed): see cs_a2av_matrix. */
#define CS_A2AV_LIST(X)                                                        \
  X(UNIFORM, uniform, "every pair exchanges count elements")                   \
  X(UNEVEN, uneven, "pair counts vary between 0 and 2*count")                  \
  X(ZEROROWS, zerorows, "some ranks send nothing, others receive nothing")     \
  X(SPARSE, sparse, "most pairs exchange nothing, a few exchange a lot")

#define CS_HENUM_(ID, ...) CS_A2AV_##ID,
typedef enum cs_a2av_pattern { CS_A2AV_LIST(CS_HENUM_) CS_NUM_A2AV } cs_a2av_pattern_t;
#undef CS_HENUM_

/* One harness case: a semantic case (cs_case_t) plus how the call is made.
 * c.nranks is the WORLD size the case is meant for; the worker sets the
 * communicator's own size when it runs the case on a sub-communicator.
 * c.a2av_counts is NULL here; the worker builds the matrix from
 * a2av_pattern with cs_a2av_matrix for the communicator's size. */
typedef struct cs_hcase {
  cs_case_t c;
  int inplace;                    /* 1: NCCL in-place pointer convention */
  cs_commvar_t comm;
  int misalign;                   /* buffers offset by this many elements */
  cs_a2av_pattern_t a2av_pattern; /* alltoallv only */
  size_t index;                   /* position in the suite, 0-based */
} cs_hcase_t;

/* Verdicts, worst last up to FAIL (a case's verdict is the worst of its
 * checks). XFAIL and XPASS come after: no check sets them; an
 * expectations file (--expect, expect.h) turns a final FAIL or pass into
 * them. */
typedef enum cs_verdict {
  CS_V_PASS = 0,
  CS_V_INFO,  /* an implementation-defined behaviour observed */
  CS_V_SKIP,  /* the backend does not support the case (always a reason) */
  CS_V_WARN,  /* a recommended property broken (e.g. determinism) */
  CS_V_FAIL,  /* a required property broken, or a crash or hang */
  CS_V_XFAIL, /* a FAIL the expectations list: not a failure of the run */
  CS_V_XPASS, /* a case the expectations list as failing that passed: a
                 failure of the run */
  CS_NUM_VERDICTS
} cs_verdict_t;

/*
 * Limits on what the command line may carry into a result, so that no
 * string of a result is ever cut: --backend holds at most CS_BACKEND_MAX
 * bytes ("plugin:" and a path of up to PATH_MAX - 1 bytes), --backend-opt
 * at most CS_BACKEND_OPT_MAX, neither a control byte; a backend's name at
 * most CS_BACKEND_NAME_MAX. A re-run line quotes each byte of both in at
 * most 4 bytes (cs_repro_format), so CS_REPRO_MAX holds any of them,
 * and the --expect path an XFAIL or XPASS adds.
 */
#define CS_BACKEND_MAX 4102
#define CS_BACKEND_OPT_MAX 4096
#define CS_BACKEND_NAME_MAX 63
#define CS_EXPECT_ARG_MAX (4 * 1024 + 16) /* " --expect PATH", quoted
                                            (CS_EXPECT_PATH_MAX, expect.h) */
#define CS_REPRO_MAX                                                           \
  (4 * (CS_BACKEND_MAX + CS_BACKEND_OPT_MAX) + 1024 + CS_EXPECT_ARG_MAX)

/* One case's outcome. Strings are NUL-terminated; the harness writes into
 * them only what fits (the limits above; messages it composes itself are
 * bounded by their formats). */
typedef struct cs_result {
  cs_hcase_t hc;
  char backend[CS_BACKEND_NAME_MAX + 1];
  cs_verdict_t verdict;
  char check[32];      /* the check that set the verdict: "value",
                          "identity", "sendbuf", "guard", "determinism",
                          "nanrule", "crash", "hang", "skip", ... */
  char reason[256];    /* one line: why (skip reason, failure summary) */
  char detail[2048];   /* FAIL: the first wrong elements, one per line:
                          rank, index, inputs, expected, bound, got, ulps */
  char info[128];      /* implementation-defined profile, e.g.
                          "nan=ignore fp8ovf=saturate" */
  char repro[CS_REPRO_MAX]; /* one command line that re-runs exactly this
                               case (printable ASCII and UTF-8) */
  size_t elems_checked;
  size_t bytes_checked;
  double seconds;      /* wall time of the collective call (max over ranks) */
} cs_result_t;

/* Filters from the command line; an empty set means "all". */
typedef struct cs_filter {
  uint32_t colls, dtypes, ops, modes, comms, a2av; /* bit masks, 0 = all */
  size_t counts[32];
  int ncounts;       /* 0 = the suite's own counts */
  int inplace;       /* -1 both, 0 out-of-place only, 1 in-place only */
  int root;          /* -1 the suite's roots */
  int misalign;      /* -1 the suite's choice */
  int has_seed;
  uint64_t seed;
} cs_filter_t;

void cs_filter_init(cs_filter_t *f);

/*
 * Build the cases of suite `name` ("quick" or "full") for world size
 * `world`, restricted by f. *out is malloc'ed; the caller frees it. The
 * list is a pure function of (name, world, f): every rank and the driver
 * compute the same list, and index i names the same case everywhere.
 */
cs_status_t cs_suite_build(const char *name, int world, const cs_filter_t *f,
                           cs_hcase_t **out, size_t *n);

/* Fill M[P*P] (M[src*P+dst]) with the counts of pattern p. */
void cs_a2av_matrix(cs_a2av_pattern_t p, int P, size_t count, uint64_t seed,
                    size_t *M);

const char *cs_commvar_name(cs_commvar_t v);
const char *cs_a2av_name(cs_a2av_pattern_t p);
const char *cs_verdict_name(cs_verdict_t v); /* "PASS", "FAIL", ... */
cs_status_t cs_commvar_parse(const char *s, cs_commvar_t *out);
cs_status_t cs_a2av_parse(const char *s, cs_a2av_pattern_t *out);

/*
 * One JSON object (no newline) describing r; returns bytes written as
 * snprintf does (the length needed; buf may be NULL when n is 0). The
 * object is valid UTF-8 whatever bytes r's strings hold: a byte that is
 * not part of valid UTF-8 is written as \u00XX (XX its value).
 * cs_result_from_json parses what cs_result_to_json wrote and gives back
 * every string byte for byte (it reads \u0080-\u00ff as one byte); a
 * string longer than its field is an error, never cut.
 */
int cs_result_to_json(const cs_result_t *r, char *buf, size_t n);
cs_status_t cs_result_from_json(const char *line, cs_result_t *r);

/* s as a JSON string literal, quotes included, escaped as
 * cs_result_to_json escapes strings; malloc'ed (the caller frees it), or
 * NULL when out of memory. */
char *cs_json_quote(const char *s);

/* Length of the valid UTF-8 sequence that starts at s (1 to 4), or 0 when
 * s[0] does not start one (or is the terminating NUL). */
int cs_utf8_len(const char *s);

#endif /* CS_HARNESS_H */
