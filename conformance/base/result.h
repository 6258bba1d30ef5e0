/*
 * result.h - one case's outcome (cs_result_t), what every stage after the
 * checks passes on: merged by the worker, carried to the driver as JSON
 * (json.h), judged against expectations (expect.h) and reported.
 */
#ifndef CS_RESULT_H
#define CS_RESULT_H

#include <stddef.h>
#include "base/names.h"
#include "base/hcase.h"

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
                          "nan=ignore fp8ovf=saturate"; a pattern case:
                          what the pattern reports (MoE's imbalance) */
  char grid[72];       /* a pattern case: its grid ("pp2,dp2,tp2") */
  char volume[512];    /* a pattern case: its calls' totals per (group,
                          collective), "tp allreduce 8 2048 256; ...":
                          calls over all ranks, bytes over all ranks, the
                          largest rank's bytes (spec/patterns.md 3.2) */
  char repro[CS_REPRO_MAX]; /* one command line that re-runs exactly this
                               case (printable ASCII and UTF-8) */
  size_t elems_checked;
  size_t bytes_checked;
  double seconds;      /* wall time of the collective call (max over ranks) */
  uint64_t peak_rss;   /* suite scale: peak resident memory per rank, bytes
                          (max over ranks; 0: not measured) */
} cs_result_t;

#endif /* CS_RESULT_H */
