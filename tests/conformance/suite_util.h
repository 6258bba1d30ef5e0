/*
 * suite_util.h - what the suite tests share (suite_util.c): a case checked
 * as the worker would take it, and a suite built or the test failed.
 */
#ifndef CS_TEST_SUITE_UTIL_H
#define CS_TEST_SUITE_UTIL_H

#include <stddef.h>
#include "suite/suite.h"

/* cs_case_validate with the alltoallv matrix the worker would build;
 * fails the running CMocka test otherwise. */
void assert_valid(const cs_hcase_t *h);

/* cs_suite_build, failing the running test on an error. */
void build(const char *name, int P, const cs_filter_t *f, cs_hcase_t **out,
	   size_t *n);

#endif
