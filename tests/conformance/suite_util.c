/* suite_util.c - what the suite tests share (suite_util.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "csref/case.h"
#include "suite_util.h"

void assert_valid(const cs_hcase_t *h)
{
	size_t P = (size_t)h->c.nranks, *M = malloc(P * P * sizeof *M);
	cs_case_t c = h->c;

	assert_non_null(M);
	assert_null(c.a2av_counts);
	cs_a2av_matrix(h->a2av_pattern, (int)P, c.count, c.seed, M);
	if (c.coll == CS_COLL_ALLTOALLV)
		c.a2av_counts = M;
	else
		assert_int_equal(c.a2av_gap, 0);
	if (cs_case_validate(&c) != CS_OK)
		fail_msg("invalid case %zu: %s", h->index, cs_last_error());
	free(M);
}

void build(const char *name, int P, const cs_filter_t *f, cs_hcase_t **out,
	   size_t *n)
{
	cs_status_t st = cs_suite_build(name, P, f, out, n);

	if (st != CS_OK)
		fail_msg("cs_suite_build(%s, %d): %s", name, P, cs_last_error());
}
