/*
 * reduce.h - buffer-level reduction arithmetic, as an implementation applies
 * it: what the MPI reference, the host step executor and the MPI backend's
 * user-defined ops call. Element semantics are those of arith.h.
 *
 * An implementation of a reducing collective with op `op` over P ranks:
 *   1. prepares its own contribution: cs_op_prepare (PREMULSUM multiplies by
 *      the rank's scalar, float AVG by cs_avg_scalar; else a copy);
 *   2. combines contributions pairwise, in any order and association, with
 *      cs_reduce_bufs and the step op cs_step_op(op);
 *   3. finishes: cs_op_finish (integer AVG divides by P; else nothing).
 */
#ifndef CSREF_REDUCE_H
#define CSREF_REDUCE_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* inout[i] = inout[i] STEP in[i] for i < n, step = cs_step_op(op).
 * inout and in may be the same buffer; otherwise they must not overlap. */
void cs_reduce_bufs(cs_dtype_t d, cs_op_t op, void *inout, const void *in,
                    size_t n);

/* dst[i] = this rank's prepared contribution of src[i]. `scalar` is the
 * rank's PREMULSUM scalar (bits of d; ignored for other ops). dst may equal
 * src. */
void cs_op_prepare(cs_dtype_t d, cs_op_t op, int nranks, uint64_t scalar,
                   void *dst, const void *src, size_t n);

/* Final step on the fully reduced buffer (integer AVG: divide by P). */
void cs_op_finish(cs_dtype_t d, cs_op_t op, int nranks, void *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_REDUCE_H */
