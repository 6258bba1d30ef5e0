/*
 * patsuite.h - the `patterns` suite's case list: one case per pattern,
 * variant and dtype of the pattern registry (csref/pattern.h,
 * spec/patterns.md section 6), restricted by the command line's filters.
 */
#ifndef CS_PATSUITE_H
#define CS_PATSUITE_H

#include <stddef.h>
#include "csref/pattern.h"
#include "suite.h"

/*
 * The cases of suite `patterns` for world size `world` under filter f
 * (f->patterns, f->variant, f->dtypes and f->seed apply; the collective
 * filters do not), in registry, variant, dtype order; *out is the
 * caller's to free (NULL when *n is 0). CS_ERR_INVALID when f->variant
 * names no variant of any selected pattern, CS_ERR_NOMEM.
 */
cs_status_t cs_patsuite_build(int world, const cs_filter_t *f,
			      cs_hcase_t **out, size_t *n);

/* The pattern of case hc, NULL for a collective case. */
const cs_pattern_t *cs_hcase_pattern(const cs_hcase_t *hc);

/* The name of hc's variant ("?" for a collective case). */
const char *cs_hcase_variant(const cs_hcase_t *hc);

/* "pattern NAME/VARIANT" written into buf[0..n): a case's label in the
 * reports. */
void cs_hcase_pattern_label(const cs_hcase_t *hc, char *buf, size_t n);

#endif /* CS_PATSUITE_H */
