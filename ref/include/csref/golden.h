/*
 * golden.h - the golden value of one reduced element and its error bound.
 *
 * For P inputs x_0..x_{P-1} of one element (and, for PREMULSUM, P scalars),
 * computes what every conforming implementation must return
 * (spec/numerics.md):
 *   integers     the exact wrapped result, bit for bit;
 *   MAX, MIN     exactly one input, under either NaN rule;
 *   float sums   S (exact real result, double-double), A (sum of |terms|),
 *                and the bound B such that |r - S| <= B conforms;
 *   overflow     which infinities (or NaN) a non-saturating implementation
 *                may reach, and the interval of results of a saturating one.
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
#define CS_G_OVF_POS 0x08u    /* a partial may overflow upward in some order:
                                 +Inf conforms (NaN for float8_e4m3) */
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
#define CS_G_OVF_NEG 0x100u   /* a partial may overflow downward: -Inf */
#define CS_G_OVF_NAN 0x200u   /* an overflow can end in a NaN (float8_e4m3;
                                 +Inf meeting -Inf; Inf meeting 0) */
#define CS_G_SAT 0x400u       /* a saturating implementation may return any
                                 finite value in [sat_lo, sat_hi] */
#define CS_G_NONNEG 0x800u   /* no negative result conforms (terms all >= 0;
                                 a product of sign +) */
#define CS_G_NONPOS 0x1000u  /* no positive result conforms */
#define CS_G_OVF (CS_G_OVF_POS | CS_G_OVF_NEG | CS_G_OVF_NAN) /* some partial
                                 may overflow */

typedef struct cs_golden {
  uint64_t bits;     /* expected encoding: exact result, RNE(S), or the
                        "ignore" NaN-rule result of MAX/MIN */
  uint64_t bits_alt; /* MAX/MIN "propagate" result; else equal to bits */
  double s_hi, s_lo; /* floats: S = s_hi + s_lo (oracle error inside bound) */
  double bound;      /* floats: B, inf when unconstrained; 0 for exact */
  double sat_lo, sat_hi; /* CS_G_SAT: the results of the saturating
                            profile (spec/numerics.md 4.9), hull included */
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

/*
 * The fast path of cs_golden_reduce for what the suites generate most:
 * float SUM and AVG over P >= 2 finite inputs that are not exact-mode
 * inputs, where no partial of any order can overflow and the terms are far
 * from the top of the double range. Prepare once per (dtype, op, P) with
 * cs_gsum_init (0 when the fast path never applies), then
 * cs_golden_sum_fast gives, for the column x[0..P), exactly the golden
 * cs_golden_reduce(d, op, P, x, NULL, 0, g) gives, field by field and bit
 * for bit, and returns 1; it returns 0 (g undefined) for a column it
 * cannot prove it handles that way (a NaN or an infinity, a possible
 * overflow), which the caller hands to cs_golden_reduce.
 * tests/unit/test_golden_fast.c holds the two to identical goldens.
 */
typedef struct cs_gsum {
  cs_dtype_t d;
  cs_op_t op;
  int P, avg_sub;
  double u, e1, e2, th, th2, thr, fuzz, kavg, yavg, eta, zavg;
  int fn;
} cs_gsum_t;

int cs_gsum_init(cs_gsum_t *k, cs_dtype_t d, cs_op_t op, int P, int exact);
int cs_golden_sum_fast(const cs_gsum_t *k, const uint64_t *x, cs_golden_t *g);

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
