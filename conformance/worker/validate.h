/*
 * validate.h - a run's options checked before any case (validate.c).
 */
#ifndef CS_VALIDATE_H
#define CS_VALIDATE_H

#include "base/options.h"

/* Checks that need no MPI: suite name, backend name, count sizes for the
 * largest world size P, and no two of --json, --junit, --results naming
 * the same file. 1 when o is fine; else 0, the message printed. */
int cs_run_opts_ok(const cs_run_opts_t *o, int P);

#endif /* CS_VALIDATE_H */
