/*
 * patsuite.h - the `patterns` suite's case list: one case per pattern,
 * variant and dtype of the pattern registry (csref/pattern.h,
 * spec/patterns.md section 6), restricted by the command line's filters.
 */
#ifndef CS_PATSUITE_H
#define CS_PATSUITE_H

#include <stddef.h>
#include "csref/pattern.h"
#include "suite/suite.h"

/*
 * The cases of suite `patterns` for world size `world` under filter f
 * (f->patterns, f->variant, f->dtypes and f->seed apply; the collective
 * filters do not), in registry, variant, dtype order; *out is the
 * caller's to free (NULL when *n is 0). CS_ERR_INVALID when f->variant
 * names no variant of any selected pattern, CS_ERR_NOMEM.
 */
cs_status_t cs_patsuite_build(int world, const cs_filter_t *f,
			      cs_hcase_t **out, size_t *n);

#endif /* CS_PATSUITE_H */
