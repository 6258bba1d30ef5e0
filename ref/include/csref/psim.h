/*
 * psim.h - the pattern simulator: runs a pattern (csref/pattern.h) with
 * every rank of a grid in this process and the collectives done in memory
 * by their definitions (spec/collectives.md), with no MPI and no backend.
 *
 * It is what the patterns' own unit tests run on: every pattern, every
 * grid, every dtype, in one process, with the calls logged (their bytes
 * per rank, checked against the spec's closed forms) and with the two
 * faults of spec/patterns.md section 7 injected on demand, so that each
 * pattern is shown to catch them before the harness runs it on a backend.
 *
 * Reductions add the P contributions in group-rank order (one order of
 * the many spec/numerics.md allows): the checks accept any order within
 * the bound; the simulator is one correct implementation among them.
 */
#ifndef CSREF_PSIM_H
#define CSREF_PSIM_H

#include <stddef.h>
#include <stdint.h>
#include "csref/pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the simulated backend gets wrong (spec/patterns.md section 7). */
typedef enum cs_psim_fault {
  CS_PSIM_OK = 0,   /* nothing: a correct implementation */
  CS_PSIM_WORLD,    /* 7.1: every call goes to the whole world */
  CS_PSIM_REVERSE,  /* 7.2: gathered and exchanged blocks land at P-1-q;
                       reducescatter gives rank r block P-1-r */
  CS_PSIM_PERTURB   /* one reduced element of every reducing call is off by
                       a few units in the last place beyond its bound
                       (tests that the bound is checked) */
} cs_psim_fault_t;

/* One logged call of one rank. */
typedef struct cs_psim_rec {
  int world_rank;
  int seq;           /* index among this rank's calls */
  cs_coll_t coll;
  cs_dtype_t dtype;
  cs_op_t op;
  cs_pphase_t phase;
  int step;
  size_t count;
  size_t send_elems, recv_elems;
  int64_t bytes;     /* (send + recv elements) * dtype size */
} cs_psim_rec_t;

/* What one simulated case gives. */
typedef struct cs_psim_out {
  int world;
  cs_pcheck_t *chk;     /* [world]: each rank's verdict */
  cs_psim_rec_t *log;   /* every call of every rank, in (rank, seq) order
                           within each run of the port */
  size_t nlog;
  int64_t *bytes;       /* [world]: the sum of each rank's logged bytes */
} cs_psim_out_t;

/*
 * Run variant v of pattern pat with dtype d and seed on grid (every rank
 * of it) with fault f. *out receives the verdicts and the log; the caller
 * frees it with cs_psim_free. CS_OK when the pattern ran (whatever its
 * verdicts); CS_ERR_INVALID for bad arguments, CS_ERR_NOMEM.
 */
cs_status_t cs_psim_run(const cs_pattern_t *pat, int v, cs_dtype_t d,
                        uint64_t seed, const cs_grid_t *grid,
                        cs_psim_fault_t f, cs_psim_out_t *out);

void cs_psim_free(cs_psim_out_t *out);

/* The number of ranks of *o whose verdict failed. */
int cs_psim_nfailed(const cs_psim_out_t *o);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_PSIM_H */
