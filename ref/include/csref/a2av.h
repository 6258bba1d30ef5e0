/*
 * a2av.h - the alltoallv count matrices: which pair of ranks exchanges how
 * many elements in an alltoallv case (spec/collectives.md, alltoallv).
 *
 * A case names a pattern, not a matrix: the matrix is a pure function of
 * (pattern, P, count, seed), so any process builds the same one for any
 * communicator size, and a re-run line that names the pattern re-creates
 * the exchange exactly. cs_case_t.a2av_counts points at such a matrix.
 */
#ifndef CSREF_A2AV_H
#define CSREF_A2AV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The patterns: X(ID, name, one-line description). The enumerator order is
 * the order of names on the command line and in reports. */
#define CS_A2AV_LIST(X)                                                        \
  X(UNIFORM, uniform, "every pair exchanges count elements")                   \
  X(UNEVEN, uneven, "pair counts vary between 0 and 2*count")                  \
  X(ZEROROWS, zerorows, "some ranks send nothing, others receive nothing")     \
  X(SPARSE, sparse, "most pairs exchange nothing, a few exchange a lot")

#define CS_A2AV_ENUM_(ID, ...) CS_A2AV_##ID,
typedef enum cs_a2av_pattern {
  CS_A2AV_LIST(CS_A2AV_ENUM_) CS_NUM_A2AV
} cs_a2av_pattern_t;
#undef CS_A2AV_ENUM_

/*
 * Fill M[src*P + dst], P*P entries owned by the caller, with the counts
 * pattern p gives P ranks around the base count `count`:
 *   uniform   count for every pair;
 *   uneven    each pair a hashed count in 0..2*count;
 *   zerorows  every third rank (from a seeded offset) sends nothing and
 *             every third rank of another residue receives nothing; the
 *             other pairs exchange count;
 *   sparse    each pair exchanges P*count with probability about 1/P,
 *             else nothing.
 * A pure function of its arguments (the seed draws the hashed counts and
 * the offset). Counts that would overflow saturate at SIZE_MAX, which
 * cs_case_validate then reports as an overflow. A value of p that is not a
 * pattern gives uniform's counts; P < 1 or a NULL M does nothing.
 */
void cs_a2av_matrix(cs_a2av_pattern_t p, int P, size_t count, uint64_t seed,
                    size_t *M);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_A2AV_H */
