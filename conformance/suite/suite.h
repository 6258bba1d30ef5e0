/*
 * suite.h - the suites: which cases a run makes. A suite turns a world
 * size and the command line's filters into a list of harness cases
 * (cs_hcase_t, base/hcase.h), the first stage of every run; the registry below lists
 * the suites there are.
 */
#ifndef CS_SUITE_H
#define CS_SUITE_H

#include <stddef.h>
#include <stdint.h>
#include "base/hcase.h"

/* How a suite chooses its cases among every case the factors allow. */
typedef enum cs_suite_kind {
  CS_SUITE_PRODUCT, /* all of them */
  CS_SUITE_COVER,   /* a covering array (cover.h), under a cost budget */
  CS_SUITE_PATTERNS, /* the parallelism patterns (patsuite.c) */
  CS_SUITE_SCALE     /* counts at training sizes (scalesuite.c) */
} cs_suite_kind_t;

/* One entry of the suite registry. */
typedef struct cs_suite_info {
  const char *name;  /* what --suite takes: "quick" */
  const char *desc;  /* one line: what the suite is for */
  const char *cases; /* one line: how its cases are chosen */
  cs_suite_kind_t kind;
  /* Cases past the machine's memory: 0, the run refuses to start (its
   * cases are small unless --count says otherwise); 1, the workers skip
   * each such case with the reason and measure each case's peak memory
   * (suite scale: large by design). */
  int big;
  int repeat;     /* --repeat when not given */
  double timeout; /* --timeout when not given, seconds */
} cs_suite_info_t;

/* The i-th suite of the registry (static), or NULL past the end. */
const cs_suite_info_t *cs_suite_at(size_t i);

/* The suite named name (exact), or NULL when there is none. */
const cs_suite_info_t *cs_suite_find(const char *name);

/* CS_OK when name names a suite, else CS_ERR_INVALID with the message
 * "unknown suite 'NAME'; valid suites: ..." listing the registry. */
cs_status_t cs_suite_check_name(const char *name);

/*
 * Build the cases of suite `name` (a name of the registry) for world size
 * `world` >= 1, restricted by f (NULL: none). The list is a pure function
 * of (name, world, f): every rank and the driver compute the same list,
 * and index i names the same case everywhere. Filter semantics: each mask
 * keeps the cases whose value is in it (op: bit CS_OP_NONE keeps the
 * collectives that do not reduce; a2av restricts alltoallv's patterns
 * only); explicit counts replace the suite's count classes and are not
 * subject to its budget; root restricts rooted collectives only (a root >=
 * world leaves none); inplace, misalign and seed fix their field. On
 * success *out (malloc'ed, NULL when *n is 0) is the caller's to free.
 * Returns CS_ERR_INVALID on bad arguments (an unknown suite: the message
 * lists the valid ones), CS_ERR_OVERFLOW when an explicit count makes a
 * buffer size overflow, CS_ERR_NOMEM.
 */
cs_status_t cs_suite_build(const char *name, int world, const cs_filter_t *f,
                           cs_hcase_t **out, size_t *n);

#endif /* CS_SUITE_H */
