/*
 * oracle.h - the pure oracle: the expected output of any rank, no MPI.
 */
#ifndef CSREF_ORACLE_H
#define CSREF_ORACLE_H

#include <stddef.h>
#include "csref/case.h"
#include "csref/golden.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Expected contents of elements [lo, lo+n) of `rank`'s receive buffer for
 * case c, written to out[0..n). The case must be valid and lo+n must not
 * exceed cs_case_recv_count(c, rank). `canary` is the receive buffer's
 * prior contents for elements the collective must not write (alltoallv
 * gaps), as a function of the element index; NULL means all-zero bits.
 * Runs in parallel with OpenMP when n is large.
 */
cs_status_t cs_oracle_expect(const cs_case_t *c, int rank, size_t lo,
                             size_t n, uint64_t (*canary)(size_t index),
                             cs_golden_t *out);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_ORACLE_H */
