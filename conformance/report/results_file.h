/*
 * results_file.h - the worker's side of the driver protocol
 * (results_file.c).
 */
#ifndef CS_RESULTS_FILE_H
#define CS_RESULTS_FILE_H

#include <stdio.h>
#include "base/result.h"
#include "suite/suite.h"

/* The driver protocol (driver.h): one JSON line, flushed. f may be NULL. */
void cs_results_line(FILE *f, const cs_result_t *r);

/* The "start" line of case hc (check "start"). */
void cs_results_start(FILE *f, const cs_hcase_t *hc, const char *backend);

#endif /* CS_RESULTS_FILE_H */
