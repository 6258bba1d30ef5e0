/*
 * stats.h - statistical verdicts over the elements of one call.
 *
 * The per-element test |r - S| <= B (compare.h) admits every error a
 * rounding to nearest could make in the worst order, so a systematic error
 * that stays inside B on each element passes it: truncation toward zero at
 * every hop, an avg whose division truncates, a float8 result of 0 or -S at
 * large P. These checks look at all elements of a call together
 * (spec/numerics.md, "Statistical verdicts"):
 *
 *   sign       the fraction of results that are 0 or of the other sign
 *              than S, among elements that underflow cannot erase;
 *   bias       direction tests: among elements whose result is off the
 *              reference point, the fraction on its zero side, beyond it,
 *              above it and below it, over every element and over the
 *              well-conditioned ones (float16, bfloat16, float32, float64;
 *              float8_e4m3 sum at P <= 64 over every element only);
 *   precision  the mean squared error in units of the probabilistic error
 *              scale sqrt(k) u A of Higham and Mary (k roundings).
 *
 * Each FAILs where a conforming implementation would be flagged with
 * probability at most 2^-40 under its stated model, WARNs at 2^-20.
 *
 * Elements that are not a plain finite rounding case are ignored: exact
 * goldens (bit-checked already), NaN, overflow, saturation, max/min,
 * integers, data movement, |S| below the least normal magnitude 2^emin
 * (S = 0 included), a non-finite result. Exact-mode inputs
 * give no evidence. The models are about random-mode inputs: accumulate
 * random-mode calls only.
 *
 * Usage, per call: cs_stats_init, then cs_stats_add for each block of
 * received elements (any order, any split: the checker's blocks of
 * cs_oracle_expect and cs_compare_range), cs_stats_merge to combine the
 * accumulators of threads or ranks (sent as bytes), cs_stats_judge once at
 * the end. Cost: about 16 ns per element on one core, 6% of the oracle
 * and the comparison together (bench_stats_power 0).
 */
#ifndef CSREF_STATS_H
#define CSREF_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"
#include "csref/golden.h"

/* Verdict levels of cs_stats_judge (the harness maps them to its own). */
#define CS_STATS_PASS 0
#define CS_STATS_WARN 1
#define CS_STATS_FAIL 2

/* The four direction tests: error toward zero from the reference nearer
 * zero, away from zero beyond the farther one, above the upper one, below
 * the lower one (one reference S except for avg, spec/numerics.md). */
enum cs_stats_dir {
  CS_STATS_TOWARD = 0,
  CS_STATS_AWAY,
  CS_STATS_UP,
  CS_STATS_DOWN,
  CS_STATS_NDIR
};

/* Tests: direction t % CS_STATS_NDIR over every element (t < NDIR) or over
 * the well-conditioned ones only (t >= NDIR: error scale <= 2|S|). */
#define CS_STATS_NTEST (2 * CS_STATS_NDIR)

/*
 * Accumulator of one call. Plain old data: it may be copied, and sent
 * between ranks as bytes (same build on both ends). Zeroed by
 * cs_stats_init; fields are read by cs_stats_judge only.
 */
typedef struct cs_stats {
  int32_t dtype, op, nranks; /* of the elements added; -1 while empty */
  int32_t mixed;             /* 1 when adds disagreed on dtype, op or P */
  uint64_t n_seen;           /* elements passed to cs_stats_add */
  uint64_t n_used;           /* of which plain finite rounding cases */
  uint64_t hit[CS_STATS_NTEST]; /* elements off the reference that way */
  uint64_t off[CS_STATS_NTEST]; /* elements off that test's reference */
  uint64_t sign_off;         /* elements the sign check counts */
  uint64_t sign_hit;         /* of which r = 0 or r of the other sign */
  double energy;             /* sum of squared errors / model variance */
  double energy_cap;         /* sum of the per-element caps of those terms */
  double energy_capmax;      /* largest cap */
} cs_stats_t;

#ifdef __cplusplus
extern "C" {
#endif

/* Empty the accumulator. */
void cs_stats_init(cs_stats_t *s);

/*
 * Add received elements got[0..n) (a buffer of dtype d, in the machine's
 * byte order) against their golden values g[0..n), for op over nranks
 * ranks, to *s. Integer dtypes and ops other than sum, prod, avg and
 * premulsum add nothing but n_seen. Adding elements of a different
 * (d, op, nranks) than earlier adds marks the accumulator mixed. Runs in
 * parallel with OpenMP when n is large; s is only touched by the caller's
 * thread.
 */
void cs_stats_add(cs_stats_t *s, cs_dtype_t d, cs_op_t op, int nranks,
                  const cs_golden_t *g, const void *got, size_t n);

/* dst += src: the statistics of both sets of elements. src is unchanged.
 * Merging accumulators of different (dtype, op, nranks) marks dst mixed. */
void cs_stats_merge(cs_stats_t *dst, const cs_stats_t *src);

/*
 * The verdict of the accumulated elements: CS_STATS_PASS, CS_STATS_WARN or
 * CS_STATS_FAIL. Writes the name of the deciding check ("sign", "bias" or
 * "precision"; "stats" on a pass) into check[0..check_n) and one line with
 * its figures (counts, fraction or mean, score, thresholds; on a pass the
 * figures of every check) into reason[0..reason_n), both NUL-terminated
 * and cut to fit (the line is under 1100 bytes); either may be NULL with
 * size 0. A mixed or empty accumulator passes with a reason saying so.
 */
int cs_stats_judge(const cs_stats_t *s, char *check, size_t check_n,
                   char *reason, size_t reason_n);

/*
 * The model's standard deviation of the error of one element (the sqrt(k) u
 * A scale of spec/numerics.md, "Statistical verdicts"), derived from its
 * golden value; 0 when the element is not a plain finite rounding case.
 * Exported for tests.
 */
double cs_stats_sigma(cs_dtype_t d, cs_op_t op, int nranks,
                      const cs_golden_t *g);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_STATS_H */
