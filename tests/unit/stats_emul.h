/*
 * stats_emul.h - emulated reduction implementations for the tests and the
 * benchmark of the statistical verdicts (ref/stats.c).
 *
 * Conforming implementations round to nearest in ring or tree order, per
 * hop in the element type or accumulated in float32 and rounded once; avg
 * premultiplies by 1/P rounded (NCCL) or sums and divides once. Broken ones
 * truncate toward zero at every hop, truncate avg's final division, round
 * every hop to 4 bits less precision, or return 0 or the negated result.
 *
 * Independent of csref/arith.h: formats are decoded, encoded and rounded
 * here from their field widths, exactly (a value and the sign of its
 * remainder); float32 and float64 steps are the C library's arithmetic
 * under fesetround.
 */
#ifndef CS_TESTS_STATS_EMUL_H
#define CS_TESTS_STATS_EMUL_H

#include <stddef.h>
#include <stdint.h>
#include "csref/case.h"

enum emul_order {
	EMUL_RING, /* element i: ranks i mod P, i+1, ... (a ring's chunks) */
	EMUL_TREE  /* balanced pairwise tree over the ranks in order */
};

enum emul_avg {
	EMUL_AVG_PREMUL, /* y_q = c x_q with c = 1/P rounded, then sum */
	EMUL_AVG_DIVIDE  /* sum, then one division by P */
};

enum emul_bug {
	EMUL_OK,            /* round to nearest everywhere */
	EMUL_TRUNC_HOPS,    /* every rounding toward zero */
	EMUL_AVG_TRUNC_DIV, /* avg: sum to nearest, divide toward zero */
	EMUL_ZERO,          /* every element 0 */
	EMUL_NEGATE,        /* the conforming result with its sign flipped */
	EMUL_LOSE_BITS      /* every hop rounds to nearest with 4 bits less */
};

#define EMUL_LOST_BITS 4

typedef struct emul_impl {
	enum emul_order order;
	int acc32;        /* accumulate in float32 (narrow dtypes), round once */
	enum emul_avg avg;
	enum emul_bug bug;
} emul_impl_t;

/* Value of bits b of float dtype d (exact), from the dtype's field widths. */
double emul_decode(cs_dtype_t d, uint64_t b);

/*
 * hi + lo (|lo| at most half an ulp of hi in double, as an error-free
 * transformation leaves it) rounded to float dtype d, to nearest even
 * (rz = 0) or toward zero (rz = 1), as an exact double value; overflow
 * gives +-inf (NaN for float8_e4m3) to nearest and the largest finite value
 * toward zero.
 */
double emul_round(cs_dtype_t d, double hi, double lo, int rz);

/* Bits of a value of d (a result of emul_round, or a NaN). */
uint64_t emul_encode(cs_dtype_t d, double v);

/*
 * Result bits of one element reduced by implementation im: x[0..P) are the
 * inputs (bits of d) in rank order, alpha[0..P) the premulsum scalars
 * (NULL for other ops), `start` the first rank of a ring order.
 */
uint64_t emul_reduce(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
		     const uint64_t *alpha, int start, const emul_impl_t *im);

/*
 * Elements [lo, lo + n) of what implementation im returns for an
 * allreduce case c (any rank), stored as c->dtype into got. Inputs come
 * from cs_gen_column.
 */
void emul_call(const cs_case_t *c, const emul_impl_t *im, size_t lo,
	       size_t n, void *got);

#endif /* CS_TESTS_STATS_EMUL_H */
