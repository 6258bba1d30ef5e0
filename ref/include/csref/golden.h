/*
 * golden.h - the golden value of one reduced element and its error bound.
 *
 * For P inputs x_0..x_{P-1} of one element (and, for PREMULSUM, P scalars),
 * computes what every conforming implementation must return
 * (spec/numerics.md):
 *   integers     the exact wrapped result, bit for bit;
 *   MAX, MIN     exactly one input, under either NaN rule;
 *   float sums   S (exact real result, double-double), A (sum of |terms|),
 *                and the bound B such that |r - S| <= B conforms.
 */
#ifndef CSREF_GOLDEN_H
#define CSREF_GOLDEN_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"

/* Flags of a golden element. */
#define CS_G_EXACT 0x01u      /* only bits (or bits_alt) conforms */
#define CS_G_NAN 0x02u        /* the result must be a NaN (any payload) */
#define CS_G_ANY_ZERO 0x04u   /* a zero result of either sign conforms */
#define CS_G_OVF 0x08u        /* a partial result may overflow in some order:
                                 a non-finite or saturated result conforms */
#define CS_G_NANRULE 0x10u    /* bits ("ignore") and bits_alt ("propagate")
                                 differ: the NaN rule decides */
#define CS_G_UNTOUCHED 0x20u  /* the element must keep its prior contents
                                 (alltoallv gaps); bits holds them */
#define CS_G_MOVED 0x40u      /* data movement: bits exactly, NaN payload too */
#define CS_G_NAN_OK 0x80u     /* an infinite result that some order turns
                                 into NaN (a finite partial overflowing to
                                 the other infinity, or underflowing to 0
                                 before it meets the infinity): NaN conforms
                                 too */

typedef struct cs_golden {
  uint64_t bits;     /* expected encoding: exact result, RNE(S), or the
                        "ignore" NaN-rule result of MAX/MIN */
  uint64_t bits_alt; /* MAX/MIN "propagate" result; else equal to bits */
  double s_hi, s_lo; /* floats: S = s_hi + s_lo (oracle error inside bound) */
  double bound;      /* floats: B, inf when unconstrained; 0 for exact */
  uint32_t flags;    /* CS_G_* */
} cs_golden_t;

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Golden value of op over x[0..P) (bit patterns of dtype d, in rank order).
 * alpha[0..P) are the PREMULSUM scalars (ignored otherwise; may be NULL).
 * exact=1 asserts the inputs are exact-mode inputs: CS_G_EXACT is set when
 * the spec guarantees a bit-exact result for them (all but AVG of floats
 * with P not a power of two).
 */
void cs_golden_reduce(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
                      const uint64_t *alpha, int exact, cs_golden_t *g);

/* The golden element of pure data movement: exactly these bits. */
void cs_golden_moved(cs_dtype_t d, uint64_t bits, cs_golden_t *g);

/* The factor theta(k,u) = (1+u)^k - 1, rounded up (spec/numerics.md). */
double cs_theta(int k, double u);

/* Unit roundoff u = 2^-p and the underflow unit eta = 2^(emin-p). */
double cs_unit_roundoff(cs_dtype_t d);
double cs_underflow_unit(cs_dtype_t d);

/* Largest finite value of a float dtype. */
double cs_max_finite(cs_dtype_t d);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_GOLDEN_H */
