/*
 * harness.h - internal interfaces of the collspec harness, shared by the
 * suite builder, the worker (the process that runs cases under MPI), the
 * driver (the process that launches and supervises workers) and reporters.
 * An umbrella being retired: each module now has its own header, included
 * below, and new code includes those instead.
 *
 * Data flow:
 *   suite   cs_suite_build() turns a suite name and filters into a list of
 *           cs_hcase_t for one world size;
 *   worker  runs each case on its backend, checks it and produces one
 *           cs_result_t per case (rank 0 holds the merged result); for a
 *           backend that drives every rank from one process, the
 *           in-process worker (inproc.c) does the same with no MPI;
 *   driver  (collspec run --ranks A-B) launches workers with mpiexec per
 *           world size (the in-process worker without a launcher),
 *           reads their results as JSON Lines from a file,
 *           turns a crash or hang into a FAIL result for the case running
 *           then, and resumes with the next case;
 *   report  writes results as a table, JSON Lines and JUnit XML.
 */
#ifndef CS_HARNESS_H
#define CS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "csref/a2av.h"  /* the alltoallv count matrices */
#include "csref/case.h"
#include "names.h"       /* communicator variants, verdicts, their names */
#include "suite.h"       /* harness cases, filters, the suites */
#include "result.h"      /* one case's outcome */
#include "json.h"        /* a result as one JSON line */

#endif /* CS_HARNESS_H */
