/*
 * dcheck.h - the value check where the data is (dcheck.c; the design in
 * docs/harness.md, "Checking where the data is"): for the cases
 * csref/dcheck.h covers, the received elements are compared with the
 * generator by the same per-thread function the device runs, and only a
 * range with something wrong goes to the host oracle, whose FAIL reads as
 * it always has.
 */
#ifndef CS_CHECK_DCHECK_H
#define CS_CHECK_DCHECK_H

#include <stddef.h>
#include "check/exec.h"
#include "check/verdict.h"

/* Where the value check runs (cs_exec_t.dcheck). */
enum cs_dcheck_where {
	CS_DCHECK_OFF = 0,  /* the host oracle only */
	CS_DCHECK_GRID = 1, /* the CPU grid executor on the host buffer
			       (gpu-sim) */
	CS_DCHECK_DEV = 2   /* the CUDA kernel on the device copy (gpu) */
};

/*
 * Where backend `name` run with --backend-opt `opts` checks values, from
 * the table of built-in backends (backends/registry.h, cs_backend_dcheck):
 * gpu-sim CS_DCHECK_GRID unless opts holds the item dcheck=0; gpu
 * CS_DCHECK_DEV only when opts holds dcheck=1 (not yet run on a device);
 * every other backend CS_DCHECK_OFF. (The backend's option parser
 * rejects any other value of dcheck.)
 */
int cs_dcheck_where(const char *name, const char *opts);

/*
 * Elements [lo, end) of the receive range of comm rank `of` (got: its
 * element 0 in host memory, for CS_DCHECK_GRID) checked where e->dcheck
 * says. 1 when the check covers the case and found every element right:
 * the elements are then counted in l (and the statistics' tally of
 * elements seen, as the host check would), and the range is done. 0 when
 * the host must check the range: a case not covered, something wrong, or
 * no memory for the grid's results; l is then untouched.
 */
int cs_exec_dcheck_pass(const cs_exec_t *e, int of, const unsigned char *got,
			size_t lo, size_t end, cs_local_t *l);

#endif /* CS_CHECK_DCHECK_H */
