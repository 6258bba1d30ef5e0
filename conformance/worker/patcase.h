/*
 * patcase.h - one case of the `patterns` suite (spec/patterns.md): a
 * parallelism pattern (csref/pattern.h) run on the backend through the
 * pattern port (patport.c), on every rank the worker drives, its verdicts
 * merged like a collective case's, its calls logged.
 *
 *   patcase.c  the case: its grid, the groups of the pattern's axis
 *              (the backend's comm_split), the pattern's run, the verdicts,
 *              the volume totals and the --comm-log lines
 *   patport.c  the port: each call staged in guarded buffers (device
 *              memory for a CUDA backend), made through the backend ABI,
 *              checked (status, guard bytes, send buffer, identical
 *              allreduce results across the group), agreed on by every
 *              rank, and logged
 */
#ifndef CS_PATCASE_H
#define CS_PATCASE_H

#include <stdint.h>
#include "csref/pattern.h"
#include "base/result.h"
#include "suite/suite.h"
#include "worker/worker.h"

/* One logged call of one rank (spec/patterns.md section 3.2), fixed size
 * so that the ranks' logs travel in one gather. */
typedef struct cs_patrec {
	int32_t rank;   /* world rank; -1: an unused slot */
	int32_t seq;
	int32_t coll, dtype, op, phase, step;
	int32_t pad_;
	int64_t count, send_elems, recv_elems, bytes;
} cs_patrec_t;

/* The port over the backend for the local ranks of w, on the pattern's
 * groups var, the ranks rk[] and checkers chk[] of the case. */
typedef struct cs_patport cs_patport_t;

/* A port (freed with cs_patport_free); NULL when out of memory. */
cs_patport_t *cs_patport_new(cs_worker_t *w, const struct cs_wvar *var,
			     const cs_prank_t *rk, cs_pcheck_t *chk);

/* The port's interface for the pattern (csref/pattern.h). */
cs_pport_t *cs_patport_port(cs_patport_t *p);

/* Local rank i's log: *n records. */
const cs_patrec_t *cs_patport_log(const cs_patport_t *p, int i, size_t *n);

/* Local rank i's bit identity over the pattern's allreduces into l: when
 * some call gave it the values of its group rank 0 in other bits,
 * "bitidentity", FAIL for a backend that promises bit identity
 * (CS_BACKEND_F_BIT_IDENTICAL), else WARN. */
void cs_patport_bits_verdict(const cs_patport_t *p, int i, cs_local_t *l);

void cs_patport_free(cs_patport_t *p);

/* Run pattern case hc on every rank w drives; res is written on the
 * leader. Collective. */
void cs_patcase_run(cs_worker_t *w, const cs_hcase_t *hc, cs_result_t *res);

#endif /* CS_PATCASE_H */
