/*
 * names.h - the harness's own enumerations (communicator variants and
 * verdicts) and the names of those and of the alltoallv patterns
 * (csref/a2av.h): what the command line, the reports and the JSON form of
 * a result call them. The catalog's names (collectives, dtypes, ops,
 * modes) are csref/catalog.h's.
 */
#ifndef CS_NAMES_H
#define CS_NAMES_H

#include "csref/a2av.h"
#include "csref/status.h"

/* Communicator variants a case runs on (every world rank takes part):
 * X(ID, name, one-line description). */
#define CS_COMMVAR_LIST(X)                                                     \
  X(WORLD, world, "all ranks in world order")                                  \
  X(REVERSED, reversed, "all ranks, rank order reversed")                      \
  X(HALVES, halves, "two halves, each its own communicator")                   \
  X(ODDEVEN, oddeven, "even ranks and odd ranks, each its own communicator")

#define CS_HENUM_(ID, ...) CS_COMM_##ID,
typedef enum cs_commvar { CS_COMMVAR_LIST(CS_HENUM_) CS_NUM_COMMVARS } cs_commvar_t;
#undef CS_HENUM_

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
  CS_V_XPASS, /* an expectations entry whose defect no longer showed in
                 the cases it selected: a failure of the run (the
                 report's own line, not a case's verdict) */
  CS_NUM_VERDICTS
} cs_verdict_t;

/* Name and one-line description of a value; "?" for a value out of range.
 * The strings are static. Verdict names are upper case ("PASS", "FAIL"). */
const char *cs_commvar_name(cs_commvar_t v);
const char *cs_commvar_desc(cs_commvar_t v);
const char *cs_a2av_name(cs_a2av_pattern_t p);
const char *cs_a2av_desc(cs_a2av_pattern_t p);
const char *cs_verdict_name(cs_verdict_t v);

/* The value named s (exact, case-sensitive) into *out. An unknown or NULL
 * s is CS_ERR_INVALID with a message that lists the valid names; *out is
 * then left as it was. */
cs_status_t cs_commvar_parse(const char *s, cs_commvar_t *out);
cs_status_t cs_a2av_parse(const char *s, cs_a2av_pattern_t *out);
cs_status_t cs_verdict_parse(const char *s, cs_verdict_t *out);

#endif /* CS_NAMES_H */
