/*
 * suite.c - the suites (suite.h): the registry, and a suite's case list.
 *
 * A case list is made in three steps: the factor space of harness cases
 * for the world size and the filters (factors.c: each factor's levels and
 * which combinations are admissible), rows of levels chosen from it
 * (cover.c, which knows nothing of collectives), and each row as a case.
 * `full` takes every admissible row (cs_cover_all). `quick` takes a
 * covering array of strength 2 with every (collective, dtype, op) triple
 * (cs_cover_pairs), over a space cut to a cost budget and seeded with the
 * world size: every process computes the same list, and different world
 * sizes cover differently.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite/cover.h"
#include "suite/factors.h"
#include "suite/patsuite.h"
#include "suite/scalesuite.h"
#include "suite/suite.h"

/* ---- the registry -------------------------------------------------------- */

static const cs_suite_info_t suites[] = {
	{"quick", "every pair of factor values at least once (the default)",
	 "covering array of strength 2 plus every (collective, dtype, op) "
	 "triple, large counts under a cost budget", CS_SUITE_COVER, 0, 2,
	 120.0},
	{"full", "every case the factors allow: the exhaustive sweep",
	 "cartesian product of the factors, less what the collective does "
	 "not take", CS_SUITE_PRODUCT, 0, 2, 120.0},
	{"patterns", "the parallelism patterns of training on a process grid "
	 "(spec/patterns.md)",
	 "every pattern, variant and dtype of spec/patterns.md section 6, on "
	 "--grid or the default grid", CS_SUITE_PATTERNS, 0, 2, 120.0},
	{"scale", "counts at the sizes of training: buffers past 2^31 bytes "
	 "and 2^31 elements, shards past 4 GiB",
	 "every collective at three counts (bytes, elements, shard), odd "
	 "and not a multiple of the world size; a case the machine's free "
	 "memory cannot hold is skipped", CS_SUITE_SCALE, 1, 1, 3600.0},
};

#define NSUITES (sizeof suites / sizeof suites[0])

const cs_suite_info_t *cs_suite_at(size_t i)
{
	return i < NSUITES ? &suites[i] : NULL;
}

const cs_suite_info_t *cs_suite_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NSUITES; i++)
		if (strcmp(suites[i].name, name) == 0)
			return &suites[i];
	return NULL;
}

cs_status_t cs_suite_check_name(const char *name)
{
	char list[256];
	size_t i, used = 0;

	if (cs_suite_find(name))
		return CS_OK;
	list[0] = '\0';
	for (i = 0; i < NSUITES && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
					 i ? " " : "", suites[i].name);
	return cs_error(CS_ERR_INVALID, "unknown suite '%s'; valid suites: %s",
			name ? name : "(null)", list);
}

/* ---- the case list ------------------------------------------------------ */

/* The rows suite kind k takes from space sp. */
static cs_status_t build_rows(const cs_cover_space_t *sp, cs_suite_kind_t k,
			      int **rows, size_t *n)
{
	switch (k) {
	case CS_SUITE_COVER:
		return cs_cover_pairs(sp, rows, n);
	case CS_SUITE_PRODUCT:
	case CS_SUITE_PATTERNS:
	case CS_SUITE_SCALE:
		break;
	}
	return cs_cover_all(sp, rows, n);
}

/* The cases of rows[0..nrows) of nf levels each, indexed in that order. */
static cs_status_t emit_cases(const cs_factors_t *s, const int *rows,
			      size_t nrows, int nf, cs_hcase_t **out, size_t *n)
{
	size_t i;

	*out = NULL;
	*n = 0;
	if (!nrows)
		return CS_OK;
	*out = malloc(nrows * sizeof **out);
	if (!*out)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory for %zu "
				"cases", nrows);
	for (i = 0; i < nrows; i++)
		cs_factors_case(s, &rows[i * (size_t)nf], i, &(*out)[i]);
	*n = nrows;
	return CS_OK;
}

/* Contract in suite.h. */
cs_status_t cs_suite_build(const char *name, int world, const cs_filter_t *f,
			   cs_hcase_t **out, size_t *n)
{
	const cs_suite_info_t *si;
	cs_cover_space_t sp;
	cs_factors_t *s;
	cs_filter_t none;
	cs_status_t st;
	int *rows = NULL;
	size_t nrows = 0;

	if (!name || !out || !n)
		return cs_error(CS_ERR_INVALID, "cs_suite_build: NULL argument");
	if ((st = cs_suite_check_name(name)) != CS_OK)
		return st;
	if (!f) {
		cs_filter_init(&none);
		f = &none;
	}
	si = cs_suite_find(name);
	if (si->kind == CS_SUITE_PATTERNS)
		return cs_patsuite_build(world, f, out, n);
	if (si->kind == CS_SUITE_SCALE)
		return cs_scalesuite_build(world, f, out, n);
	if ((st = cs_factors_new(si->kind, world, f, &s)) != CS_OK)
		return st;
	cs_factors_cover_space(s, &sp);
	st = build_rows(&sp, si->kind, &rows, &nrows);
	if (st == CS_OK && f->ncounts)
		st = cs_factors_check_counts(s, rows, nrows);
	if (st == CS_OK)
		st = emit_cases(s, rows, nrows, sp.nf, out, n);
	free(rows);
	cs_factors_free(s);
	return st;
}
