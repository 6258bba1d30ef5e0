/*
 * case.h - one conformance case and the buffer shapes it implies.
 *
 * A case fixes everything a collective call and its inputs depend on. The
 * shapes follow NCCL (spec/collectives.md):
 *   allreduce      send = recv = count
 *   allgather      send = count,       recv = P*count
 *   reducescatter  send = P*count,     recv = count
 *   alltoall       send = recv = P*count (count per peer)
 *   alltoallv      per-pair counts M[src*P + dst], blocks separated by gap
 *   broadcast      send (root only) = recv = count
 *   reduce         send = count, recv (root only) = count
 *   gather         send = count, recv (root only) = P*count
 *   scatter        send (root only) = P*count, recv = count
 *   sendrecv       send = recv = count
 * A rank whose buffer is "root only" has a count of 0 on the other ranks.
 */
#ifndef CSREF_CASE_H
#define CSREF_CASE_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"

typedef struct cs_case {
  cs_coll_t coll;
  cs_dtype_t dtype;
  cs_op_t op;       /* CS_OP_NONE for collectives that do not reduce */
  cs_mode_t mode;
  int nranks;       /* P >= 1: size of the communicator the call runs on */
  int root;         /* rooted collectives only, 0 <= root < P */
  size_t count;     /* NCCL's count argument; unused by alltoallv */
  uint64_t seed;
  /* alltoallv only: P*P element counts, a2av_counts[src*P + dst], owned by
   * the caller, and the gap (elements) left between consecutive blocks of
   * both the send and the receive buffer. */
  const size_t *a2av_counts;
  size_t a2av_gap;
} cs_case_t;

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Check that the case is one the spec defines. Returns CS_OK, or
 * CS_ERR_INVALID (a value out of range), CS_ERR_UNDEFINED (e.g. an op on a
 * collective that does not reduce, a root on one that has none, alltoallv
 * without a count matrix) or CS_ERR_OVERFLOW (a buffer whose byte size does
 * not fit in size_t), with the reason in cs_last_error().
 */
cs_status_t cs_case_validate(const cs_case_t *c);

/* Elements in rank's send and receive buffers (0 where not significant).
 * The case must be valid. */
size_t cs_case_send_count(const cs_case_t *c, int rank);
size_t cs_case_recv_count(const cs_case_t *c, int rank);

/*
 * alltoallv layout seen by one rank, each array of P entries, caller-owned:
 * sendcounts[d] and sdispls[d] are the block rank sends to d; recvcounts[s]
 * and rdispls[s] the block it receives from s. Blocks are laid out in peer
 * order, each followed by a2av_gap untouched elements.
 */
void cs_a2av_layout(const cs_case_t *c, int rank, size_t *sendcounts,
                    size_t *sdispls, size_t *recvcounts, size_t *rdispls);

/* A key identifying (seed, coll, dtype, op, mode): the generators' stream. */
uint64_t cs_case_key(const cs_case_t *c);

/* One line naming the case, e.g.
 * "allreduce float32 sum random P=8 count=1025 root=0 seed=1". Writes at
 * most n bytes including the terminator; returns what snprintf returns. */
int cs_case_format(const cs_case_t *c, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_CASE_H */
