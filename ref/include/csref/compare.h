/*
 * compare.h - classify each received element against its golden value.
 */
#ifndef CSREF_COMPARE_H
#define CSREF_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include "csref/golden.h"

typedef enum cs_cmp_class {
  CS_CMP_EXACT = 0, /* bit-identical to the golden encoding (or an allowed
                       alternative: NaN rule, zero sign, any NaN) */
  CS_CMP_WITHIN,    /* differs, but |r - S| <= B */
  CS_CMP_WRONG      /* neither */
} cs_cmp_class_t;

/* Implementation-defined behaviours an element can reveal. */
typedef enum cs_obs {
  CS_OBS_NAN_IGNORE = 0, /* MAX/MIN dropped a NaN */
  CS_OBS_NAN_PROPAGATE,  /* MAX/MIN propagated a NaN */
  CS_OBS_OVF_NONFINITE,  /* an overflow gave Inf or NaN */
  CS_OBS_OVF_SATURATE,   /* a result only saturation explains (largest
                            finite value kept in place of an overflow or
                            an infinity, and reduced further) */
  CS_NUM_OBS
} cs_obs_t;

#define CS_OBS_BIT(k) (1u << (k))

typedef struct cs_cmp_elem {
  cs_cmp_class_t cls;
  unsigned obs_bits; /* CS_OBS_BIT(k) for each cs_obs_t k the element
                        reveals (saturation and a NaN rule can show
                        together); 0 when it reveals nothing */
  double err;     /* |r - S| for floats (inf/nan when not finite), 0 ints */
  double ulps;    /* err in units of the dtype's ulp at S */
} cs_cmp_elem_t;

/* One recorded mismatch. */
typedef struct cs_mismatch {
  size_t index;
  uint64_t got, expected;
  double s, bound, err, ulps;
  uint32_t flags;
} cs_mismatch_t;

#define CS_CMP_MAX_RECORD 8

typedef struct cs_cmp_summary {
  size_t n, n_exact, n_within, n_wrong;
  size_t obs[CS_NUM_OBS];   /* elements revealing each behaviour */
  double max_ulps;          /* over elements that are not bit-exact */
  double max_err_ratio;     /* max of err / B over CS_CMP_WITHIN elements
                               that no overflow explains */
  size_t n_recorded;
  cs_mismatch_t first[CS_CMP_MAX_RECORD]; /* the first wrong elements */
} cs_cmp_summary_t;

#ifdef __cplusplus
extern "C" {
#endif

/* Classify one element `got` (bits of dtype d) against g
 * (spec/numerics.md 6); *out, when not NULL, receives the details. */
cs_cmp_class_t cs_compare_elem(cs_dtype_t d, const cs_golden_t *g,
                               uint64_t got, cs_cmp_elem_t *out);

/* Units in the last place of a float dtype at magnitude |s| (the spacing of
 * the dtype's numbers there, subnormal spacing below 2^emin). */
double cs_ulp(cs_dtype_t d, double s);

/* Initialise a summary to empty. */
void cs_cmp_summary_init(cs_cmp_summary_t *s);

/*
 * Compare got[0..n) (a buffer of dtype d) with golden g[0..n) and add the
 * result to *s; `index0` is the index of got[0] used in recorded
 * mismatches. Runs in parallel with OpenMP when n is large.
 */
void cs_compare_range(cs_dtype_t d, const cs_golden_t *g, const void *got,
                      size_t n, size_t index0, cs_cmp_summary_t *s);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_COMPARE_H */
