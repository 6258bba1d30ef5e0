/*
 * gen.h - deterministic input generators (spec/numerics.md, "Inputs").
 *
 * An input is a pure function of (case key, nranks, rank, element index):
 * any process can compute any rank's input without communication, which is
 * what lets the expected output of a rank be computed locally.
 *
 * The index is the element's position in that rank's send buffer. For
 * collectives that reduce, the inputs of all ranks at the same index are
 * generated jointly (a per-index pattern chosen from the index alone, a
 * per-rank value within it), so that in exact mode every partial result in
 * every order is representable, and in random mode no partial overflows.
 */
#ifndef CSREF_GEN_H
#define CSREF_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "csref/case.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of element `index` of `rank`'s send buffer. */
uint64_t cs_gen_input(const cs_case_t *c, int rank, size_t index);

/* Bits of `rank`'s PREMULSUM scalar (same dtype as the data). Defined for
 * every case; only meaningful when c->op == CS_OP_PREMULSUM. */
uint64_t cs_gen_scalar(const cs_case_t *c, int rank);

/* Whether every input of case c is plain random bits of its dtype drawn
 * by csref/genbits.h (random mode with an integer dtype, or with no op),
 * and the stream those functions draw them from (their `base`): what the
 * device check (csref/dcheck.h) needs to recompute them. 0 for a case
 * cs_gen_input gives 0 for. */
int cs_gen_bits_only(const cs_case_t *c);
uint64_t cs_gen_stream(const cs_case_t *c);

/* Inputs of every rank at one index: x[q] = cs_gen_input(c, q, index) and,
 * when alpha is not NULL, alpha[q] = cs_gen_scalar(c, q), for q < P. The
 * oracle's fast path for reducing collectives. */
void cs_gen_column(const cs_case_t *c, size_t index, uint64_t *x,
		   uint64_t *alpha);

/* Inputs of every rank at indices lo..lo+n-1, column by column:
 * x[k*P + q] = cs_gen_input(c, q, lo + k) for k < n, q < P, and when alpha
 * is not NULL alpha[q] = cs_gen_scalar(c, q). The same bits as those calls,
 * at a fraction of their cost (parameters derived once per call, per-index
 * choices once per column). Thread-safe; x and alpha are the caller's. */
void cs_gen_columns(const cs_case_t *c, size_t lo, size_t n, uint64_t *x,
		    uint64_t *alpha);

/* out[k] = cs_gen_input(c, rank, lo + k) for k < n, parameters derived
 * once. Thread-safe; out is the caller's. */
void cs_gen_block(const cs_case_t *c, int rank, size_t lo, size_t n,
		  uint64_t *out);

/* Fill buf[0..n) with elements lo..lo+n-1 of rank's send buffer. */
void cs_gen_fill(const cs_case_t *c, int rank, void *buf, size_t lo, size_t n);

/* The 64-bit mixing function the generators use (splitmix64 finalizer). */
uint64_t cs_mix64(uint64_t x);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_GEN_H */
