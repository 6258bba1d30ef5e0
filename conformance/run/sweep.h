/*
 * sweep.h - `collspec run --ranks A-B` outside a launcher (sweep.c).
 */
#ifndef CS_SWEEP_H
#define CS_SWEEP_H

#include "run/run_args.h"

/*
 * Run o's sweep: one worker set per world size in o->sizes, launched and
 * supervised by the driver (a backend that drives every rank gets one
 * launcher-less worker per size), every result to the reports o names.
 * Returns `collspec run`'s exit status: 0 nothing failed, 1 failures, 2 the
 * sweep could not run (the reason on stderr and, once the reports are
 * open, in them).
 */
int cs_run_sweep(const cs_run_opts_t *o);

#endif /* CS_SWEEP_H */
