/*
 * scalesuite.h - the `scale` suite's case list (scalesuite.c): counts at
 * the sizes people train with, where 32-bit byte offsets, 32-bit element
 * counts and vector tails break (docs/running.md, "The scale suite").
 */
#ifndef CS_SCALESUITE_H
#define CS_SCALESUITE_H

#include <stddef.h>
#include "base/hcase.h"

/* The classes of the suite: what each case's count is made to cross. */
typedef enum cs_scale_class {
	CS_SCALE_BYTES,    /* float32: the call's largest buffer > 2^31 bytes */
	CS_SCALE_ELEMENTS, /* int8: the largest buffer > 2^31 elements */
	CS_SCALE_SHARD,    /* float32: the per-rank count > 2^32 bytes */
	CS_NUM_SCALE_CLASSES
} cs_scale_class_t;

/* "bytes", "elements", "shard". */
const char *cs_scale_class_name(cs_scale_class_t k);

/*
 * The count of class k for collective coll at world size P: the least
 * count whose call crosses the class's boundary (a buffer of alltoallv
 * holds P blocks, as alltoall's), made odd (so that no vector width
 * divides it) and, when P > 1, not a multiple of P. 0 when coll or k is
 * out of range.
 */
size_t cs_scale_count(cs_coll_t coll, cs_scale_class_t k, int P);

/*
 * The cases of suite `scale` at world size `world` under the filters f:
 * every collective, each class its dtype, op sum (the filter's ops, for
 * the collectives that reduce), random mode, the world communicator, out
 * of place, aligned, the last rank as root, alltoallv uniform; each
 * filter given fixes its field; a filter's 1-byte dtype has one case for
 * the bytes and elements classes, which then have the same count.
 * Explicit counts replace the classes: one
 * case per collective, dtype (the classes' float32 and int8, or the
 * filter's) and count. The list is a pure function of (world, f). On
 * success *out (malloc'ed, NULL when *n is 0) is the caller's to free;
 * CS_ERR_OVERFLOW when a count makes a buffer size overflow, CS_ERR_NOMEM.
 */
cs_status_t cs_scalesuite_build(int world, const cs_filter_t *f,
				cs_hcase_t **out, size_t *n);

#endif /* CS_SCALESUITE_H */
