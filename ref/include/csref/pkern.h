/*
 * pkern.h - the local arithmetic the patterns share (spec/patterns.md
 * section 4.1): element access as double, and the few kernels every model
 * needs (a matrix product, ReLU and its backward, a row bias).
 *
 * The rule every function follows: each output element is computed by one
 * fixed sequential loop in the accumulation type and rounded to the dtype
 * once. The accumulation type is
 *   float32 for float32, float16, bfloat16 (and the float8 formats),
 *   float64 for float64,
 *   the dtype itself for integers (wrapped arithmetic, modulo 2^bits).
 * So the distributed run and the serial mirror, given the same bits,
 * compute the same bits. OpenMP may split independent output elements,
 * never one element's loop.
 */
#ifndef CSREF_PKERN_H
#define CSREF_PKERN_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element i of buf (dtype d) as a double: exact for every float dtype and
 * for integers of at most 53 bits (the patterns' int32). */
double cs_pk_get(cs_dtype_t d, const void *buf, size_t i);

/* Store x into element i of buf, rounded to nearest even (floats) or
 * wrapped modulo 2^bits after truncation toward zero (integers). */
void cs_pk_set(cs_dtype_t d, void *buf, size_t i, double x);

/* The value x rounded through dtype d and back (what cs_pk_set then
 * cs_pk_get gives). */
double cs_pk_round(cs_dtype_t d, double x);

/*
 * C[m x n] = op(A) op(B), op(A) m x k, op(B) k x n, all row-major:
 * ta = 0: A is stored m x k; ta = 1: A is stored k x m and used
 * transposed (likewise tb for B, stored k x n or n x k). Element (i, j) is
 * sum over l = 0..k-1 ascending of A(i,l) B(l,j), accumulated from 0 in
 * the accumulation type and rounded once. k = 0 gives zeros. C must not
 * overlap A or B.
 */
void cs_pk_matmul(cs_dtype_t d, size_t m, size_t n, size_t k, const void *A,
                  int ta, const void *B, int tb, void *C);

/* x[i] = max(x[i], 0) for i < n (ReLU; a NaN stays). */
void cs_pk_relu(cs_dtype_t d, void *x, size_t n);

/* g[i] = pre[i] > 0 ? g[i] : 0 for i < n (ReLU's backward, pre being the
 * value before the ReLU, or after: the sign test is the same). */
void cs_pk_relu_bwd(cs_dtype_t d, void *g, const void *pre, size_t n);

/* Y[i][j] += b[j] for a rows x cols Y, one rounding per element. */
void cs_pk_add_rowbias(cs_dtype_t d, void *Y, const void *b, size_t rows,
                       size_t cols);

/* db[j] = sum over i ascending of G[i][j] (rows x cols G), accumulated
 * and rounded once: a bias's gradient. */
void cs_pk_colsum(cs_dtype_t d, const void *G, size_t rows, size_t cols,
                  void *db);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_PKERN_H */
