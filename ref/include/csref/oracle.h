/*
 * oracle.h - the pure oracle: the expected output of any rank, no MPI.
 */
#ifndef CSREF_ORACLE_H
#define CSREF_ORACLE_H

#include <stddef.h>
#include "csref/case.h"
#include "csref/compare.h"
#include "csref/golden.h"
#include "csref/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Expected contents of elements [lo, lo+n) of `rank`'s receive buffer for
 * case c, written to out[0..n). The case must be valid and lo+n must not
 * exceed cs_case_recv_count(c, rank). `canary` is the receive buffer's
 * prior contents for elements the collective must not write (alltoallv
 * gaps), as a function of the element index; NULL means all-zero bits.
 * Runs in parallel with OpenMP when n is large. The block path: inputs
 * generated a block of columns at a time (cs_gen_columns, cs_gen_block);
 * the goldens are those of cs_oracle_expect_general, bit for bit.
 */
cs_status_t cs_oracle_expect(const cs_case_t *c, int rank, size_t lo,
                             size_t n, uint64_t (*canary)(size_t index),
                             cs_golden_t *out);

/*
 * The same goldens as cs_oracle_expect, one element at a time through
 * cs_gen_input / cs_gen_column and cs_golden_reduce: the general path the
 * block path is held to (tests/unit/test_oracle_fast.c). Same contract.
 */
cs_status_t cs_oracle_expect_general(const cs_case_t *c, int rank, size_t lo,
                                     size_t n, uint64_t (*canary)(size_t index),
                                     cs_golden_t *out);

/*
 * Check elements [lo, lo+n) of `rank`'s receive buffer in one pass: what
 * cs_oracle_expect for that range, cs_compare_range(c->dtype, goldens, got,
 * n, index0, s) and, when st is not NULL, cs_stats_add(st, c->dtype, c->op,
 * c->nranks, goldens, got, n) do together, block by block while a block's
 * goldens are in cache; data movement whose bits all match skips its
 * goldens. got is element lo of the received data (n elements of c's
 * dtype); s and st accumulate as those calls would (st's energy sums in
 * another order: equal up to rounding). Arguments as cs_oracle_expect;
 * CS_ERR_NOMEM when working memory is short (s, st then partial). Runs in
 * parallel with OpenMP.
 */
cs_status_t cs_oracle_check(const cs_case_t *c, int rank, size_t lo, size_t n,
                            uint64_t (*canary)(size_t index), const void *got,
                            size_t index0, cs_cmp_summary_t *s, cs_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_ORACLE_H */
