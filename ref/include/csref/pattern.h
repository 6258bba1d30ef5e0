/*
 * pattern.h - how a parallelism pattern (spec/patterns.md) runs: its
 * registry entry, the context it runs in, the port through which it makes
 * its collective calls, and the checker it reports to.
 *
 * A pattern's distributed form is written once, as a function of a
 * cs_pctx_t, for every process model at once: the context holds the ranks
 * this process drives (nlocal of them: 1 under mpiexec, the whole world
 * for a backend that drives every rank, or the in-memory simulator of
 * csref/psim.h), and the pattern does each piece of local work for every
 * local rank, queues each local rank's next collective call on the port
 * (cs_pport_call), and then makes the queued calls (cs_pport_run):
 *
 *     for (i = 0; i < x->nlocal; i++) {
 *             compute local rank i's contribution into st[i].send;
 *             cs_pport_call(x->port, i, &call for st[i]);
 *     }
 *     if (cs_pport_run(x->port) != CS_OK)
 *             return CS_OK;            (the port has set the verdicts)
 *     for (i = 0; i < x->nlocal; i++)
 *             use st[i].recv, check it against the serial mirror;
 *
 * Every call goes to the group of the pattern's axis (spec section 2.4):
 * the ranks that differ from the caller only in that axis's coordinate. A
 * port is implemented by the harness over the backend ABI
 * (conformance/worker/patport.c) and by the simulator over plain memory
 * (ref/patterns/psim.c); a pattern sees only this interface.
 *
 * The serial mirror (spec section 4.1): every rank recomputes its whole
 * instance serially, from the same generated inputs, with the same local
 * functions (csref/pkern.h), and checks what it received against that with
 * the cs_pchk_* functions below. Ranks never exchange anything to check.
 */
#ifndef CSREF_PATTERN_H
#define CSREF_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"
#include "csref/grid.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest group a pattern runs on (a pattern's axis size). */
#define CS_PAT_MAX_GROUP 1024

/* ---- calls ---------------------------------------------------------- */

/* Phase of a call (spec section 3.2's `phase`). */
typedef enum cs_pphase {
  CS_PHASE_FWD = 0,
  CS_PHASE_BWD,
  CS_PHASE_OPT,
  CS_NUM_PHASES
} cs_pphase_t;

/* "fwd", "bwd", "opt"; "?" out of range. */
const char *cs_pphase_name(cs_pphase_t ph);

/*
 * One collective call of one rank, out of place, on the pattern's group
 * of P ranks. Sizes follow the backend ABI (collspec/backend.h):
 *   allreduce      count elements in, count out
 *   allgather      count in, P * count out
 *   reducescatter  P * count in, count out
 *   alltoall       P * count in, P * count out
 *   alltoallv      counts and displacements, P entries each, in elements
 *   sendrecv       count to group rank r+1, count from r-1 (mod P)
 * op is read for allreduce and reducescatter only.
 */
typedef struct cs_pcall {
  cs_coll_t coll;
  cs_dtype_t dtype;
  cs_op_t op;
  size_t count;
  const void *send; /* read before cs_pport_call returns */
  void *recv;       /* written by cs_pport_run, nothing outside its range */
  const size_t *sendcounts, *sdispls, *recvcounts, *rdispls; /* alltoallv:
                       read before cs_pport_call returns */
  cs_pphase_t phase;
  int step;         /* training step, from 0 */
} cs_pcall_t;

/* Send and receive elements of call c in a group of P (spec section 3.1;
 * alltoallv: the sums of its counts). CS_ERR_INVALID for a collective a
 * pattern may not call, CS_ERR_OVERFLOW. */
cs_status_t cs_pcall_elems(const cs_pcall_t *c, int P, size_t *send_elems,
                           size_t *recv_elems);

/* ---- the checker ---------------------------------------------------- */

/* One local rank's verdict so far. */
typedef struct cs_pcheck {
  int failed;        /* 1 once any check failed (the first one is kept) */
  int skipped;       /* 1: the case does not apply; reason says why */
  char check[32];    /* the failing check: "value", "identity", "guard",
                        "sendbuf", "error", ... */
  char reason[256];  /* one line */
  char detail[2048]; /* the first wrong elements, one per line */
  char info[128];    /* what the pattern reports (MoE's imbalance) */
  size_t elems;      /* elements checked */
} cs_pcheck_t;

/* An empty verdict (a pass with nothing checked). */
void cs_pchk_init(cs_pcheck_t *k);

/* Record a failure of check `check` with a one-line reason (printf
 * format). Only the first failure of a rank is kept. */
void cs_pchk_fail(cs_pcheck_t *k, const char *check, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Bitwise: got[0..n) must equal want[0..n) bit for bit (dtype d). `what`
 * names the tensor in the reason ("Y after allgather"). Returns 1 when
 * they are equal. */
int cs_pchk_bits(cs_pcheck_t *k, const char *what, cs_dtype_t d,
                 const void *got, const void *want, size_t n);

/*
 * Reduction bound (spec section 4.2, check 2): got[j] must conform to op
 * over the P values x[q][j], q = 0..P-1 (each x[q] a buffer of n elements
 * of d), as csref/golden.h's cs_golden_reduce states it: bitwise for
 * integers, within the bound of spec/numerics.md for floats. Returns 1
 * when every element conforms.
 */
int cs_pchk_reduced(cs_pcheck_t *k, const char *what, cs_dtype_t d,
                    cs_op_t op, int P, const void *const *x,
                    const void *got, size_t n);

/* ---- the port ------------------------------------------------------- */

typedef struct cs_pport cs_pport_t;

struct cs_pport {
  /* Queue local rank i's next call. The port copies what it must keep
   * (the send data, alltoallv's counts). CS_ERR_INVALID for a malformed
   * call (the pattern's bug, never the backend's). */
  cs_status_t (*call)(cs_pport_t *p, int i, const cs_pcall_t *c);
  /*
   * Make the queued calls, in queue order, and empty the queue. Every
   * local rank must have queued the same number of calls of the same
   * collectives. CS_OK: every receive buffer holds its result. Anything
   * else: some rank's call failed or broke a property the port checks
   * (guard bytes, an unmodified send buffer, identical allreduce results
   * across the group); the port has recorded the failure in the checkers
   * of the ranks concerned, returns the same status on every rank of the
   * world, and the pattern must return without another call.
   */
  cs_status_t (*run)(cs_pport_t *p);
  void *impl;
};

static inline cs_status_t cs_pport_call(cs_pport_t *p, int i,
                                        const cs_pcall_t *c)
{
  return p->call(p, i, c);
}

static inline cs_status_t cs_pport_run(cs_pport_t *p)
{
  return p->run(p);
}

/* ---- the context ---------------------------------------------------- */

/* One local rank as a pattern sees it. */
typedef struct cs_prank {
  int world_rank;
  int P;    /* the size of its group on the pattern's axis */
  int r;    /* its rank in that group */
  int inst; /* its instance (spec section 2.4): the lowest world rank of
               its group, the same on the whole group, distinct between
               groups */
} cs_prank_t;

struct cs_pattern;

typedef struct cs_pctx {
  const struct cs_pattern *pat;
  int variant;             /* index into pat->variants */
  cs_dtype_t dtype;
  uint64_t seed;
  const cs_grid_t *grid;
  int nlocal;              /* local ranks */
  const cs_prank_t *rank;  /* [nlocal] */
  cs_pport_t *port;
  cs_pcheck_t *chk;        /* [nlocal]: local rank i's verdict */
} cs_pctx_t;

/*
 * Fill buf[0..n) with pattern inputs (spec section 4.2: normal-like values
 * of magnitude about 1, no special values; for integer dtypes small
 * integers in [-3, 3]) as a pure function of (x->seed, x->pat, x->dtype,
 * inst, tensor, q): `tensor` numbers the pattern's input tensors, q the
 * group rank whose share it is (or 0 for a replicated tensor). Every rank
 * of an instance computes the same values; other instances get others.
 */
void cs_pat_fill(const cs_pctx_t *x, int inst, int tensor, int q, void *buf,
                 size_t n);

/* ---- the registry --------------------------------------------------- */

typedef struct cs_pattern {
  const char *name;            /* "dp": what --pattern and reports say */
  const char *desc;            /* one line */
  cs_grid_axis_t axis;         /* the axis its calls go over */
  const cs_dtype_t *dtypes;    /* the dtypes it runs (spec section 6) */
  int ndtypes;
  const char *const *variants; /* variant names, e.g. "beta0-avg" */
  int nvariants;
  /* NULL, or 0 (with a reason in why[0..len)) when variant v does not run
   * with dtype d (Adam is float32 only). */
  int (*accepts)(int v, cs_dtype_t d, char *why, size_t len);
  /* Run the pattern on every local rank of x (collective over the world):
   * queue and run its calls, check every result, set x->chk. CS_OK also
   * when a check failed; another status only when the pattern could not
   * run at all (CS_ERR_NOMEM), with a message. */
  cs_status_t (*run)(const cs_pctx_t *x);
  /*
   * The spec's closed-form bytes of world rank g's calls in one step
   * (spec section 5's Bytes paragraphs, through csref/patterns.h) for
   * variant v, dtype d, seed on grid; MoE's a2av mode recomputes its
   * routing from the seed. Used by the volume tests against the calls
   * actually made.
   */
  cs_status_t (*volume)(const struct cs_pattern *pat, int v, cs_dtype_t d,
                        uint64_t seed, const cs_grid_t *grid, int g,
                        int64_t *bytes);
} cs_pattern_t;

/* The i-th pattern of the registry, NULL past the end. */
const cs_pattern_t *cs_pattern_at(size_t i);

/* The pattern named name, or NULL. */
const cs_pattern_t *cs_pattern_find(const char *name);

/* The pattern's index in the registry, -1 when it is not there. */
int cs_pattern_index(const cs_pattern_t *pat);

/*
 * The default grid of pattern pat at world size N >= 1 (spec section
 * 2.5): its axis of size a(N) (N when N <= 2 or N is odd, N / 2 when N is
 * even and >= 4) and a second axis of size N / a(N) (tp for the patterns
 * on dp, dp for every other) when that is not 1, in Megatron's layout
 * pp, dp, ep, cp, tp.
 */
cs_status_t cs_pattern_default_grid(const cs_pattern_t *pat, int N,
                                    cs_grid_t *out);

/* The local rank description of world rank g on pattern pat's axis. */
cs_status_t cs_pattern_rank(const cs_pattern_t *pat, const cs_grid_t *grid,
                            int g, cs_prank_t *out);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_PATTERN_H */
