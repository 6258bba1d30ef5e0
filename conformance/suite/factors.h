/*
 * factors.h - the factor space of harness cases, as the suites (suite.c)
 * hand it to the row generator (cover.h): the levels each factor takes for
 * a world size and the command line's filters, which rows of levels are
 * admissible, and the harness case a row stands for.
 */
#ifndef CS_FACTORS_H
#define CS_FACTORS_H

#include <stddef.h>
#include "suite/cover.h"
#include "suite/suite.h"

typedef struct cs_factors cs_factors_t;

/*
 * The space of suite kind `kind` at world size `world` (>= 1) under the
 * filters f: for CS_SUITE_COVER, with the middle root among the roots and
 * the cost budget on the two large count classes (factors.c). Fails with
 * CS_ERR_INVALID, naming the problem, on filters out of range (a mask bit
 * beyond the catalog, more than 32 counts, in-place, root or misalignment
 * out of range), or CS_ERR_NOMEM. On success *out is the caller's to free
 * with cs_factors_free.
 */
cs_status_t cs_factors_new(cs_suite_kind_t kind, int world,
			   const cs_filter_t *f, cs_factors_t **out);
void cs_factors_free(cs_factors_t *s);

/* *sp: the space as cover.h sees it (levels, admissibility, heavy counts,
 * the (collective, dtype, op) triple, the world size as seed); it refers
 * to s, which must outlive its use. */
void cs_factors_cover_space(const cs_factors_t *s, cs_cover_space_t *sp);

/* The case row (one level per factor, in cover space order) stands for,
 * at position index of the list. */
void cs_factors_case(const cs_factors_t *s, const int *row, size_t index,
		     cs_hcase_t *hc);

/*
 * With counts given by the filters (not the suite's own): check that the
 * cases of rows[0..n) (rows of cover space order) are valid, each
 * (collective, dtype, count, pattern) once. CS_ERR_OVERFLOW when a count
 * makes a buffer size overflow, CS_ERR_UNSUPPORTED for an alltoallv whose
 * matrix is too large, as cs_case_validate says; CS_ERR_NOMEM.
 */
cs_status_t cs_factors_check_counts(const cs_factors_t *s, const int *rows,
				    size_t n);

#endif /* CS_FACTORS_H */
