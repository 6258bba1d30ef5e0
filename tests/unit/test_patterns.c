/*
 * test_patterns.c - every registered pattern (csref/pattern.h) on the
 * simulator (csref/psim.h), the same for every pattern:
 *
 *   - a correct implementation passes on every rank, for every variant and
 *     dtype, on the default grid of every world size 1..8 and on the
 *     issue's grids at 8 (dp2,tp2,pp2 and ep4,dp2) and two more;
 *   - each rank's logged bytes (the calls the pattern actually made,
 *     sized by spec section 3.1) equal the pattern's closed form
 *     (spec section 5, csref/patterns.h, tested on its own by test_patvol);
 *   - the faults of spec section 7 are caught wherever the log shows they
 *     can be: a call sent to the world, whenever the grid has two
 *     instances or more; blocks in reversed order, whenever a call that
 *     orders blocks (allgather, reducescatter, alltoall, alltoallv) ran on
 *     a group of 2 or more; a reduced element off by 1 + |v|, whenever a
 *     reducing call ran.
 * Where a fault is caught is read from the log, not from a list kept in
 * step with the patterns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "csref/grid.h"
#include "csref/psim.h"

static const char *const extra_grids[] = {"dp2,tp2,pp2", "ep4,dp2",
					  "tp2,cp2,dp2", "cp2,ep2,pp2"};

/* The grids a pattern runs on: defaults at 1..8, then the extra ones. */
static int grid_at(const cs_pattern_t *pat, int k, cs_grid_t *g)
{
	if (k < 8)
		return cs_pattern_default_grid(pat, k + 1, g) == CS_OK;
	k -= 8;
	if (k >= (int)(sizeof extra_grids / sizeof extra_grids[0]))
		return 0;
	return cs_grid_parse(extra_grids[k], 8, g) == CS_OK;
}

static int accepts(const cs_pattern_t *pat, int v, cs_dtype_t d)
{
	char why[128];
	return !pat->accepts || pat->accepts(v, d, why, sizeof why);
}

/* What the log of a correct run says the faults can reach. */
typedef struct reach {
	int calls, ordered, reducing;
} reach_t;

static reach_t reach_of(const cs_psim_out_t *o, int P)
{
	reach_t r = {0, 0, 0};
	for (size_t i = 0; i < o->nlog; i++) {
		cs_coll_t c = o->log[i].coll;
		r.calls = 1;
		if (P >= 2 && (c == CS_COLL_ALLGATHER ||
			       c == CS_COLL_REDUCESCATTER ||
			       c == CS_COLL_ALLTOALL ||
			       (c == CS_COLL_ALLTOALLV &&
				o->log[i].recv_elems > 0)))
			r.ordered = 1;
		if (c == CS_COLL_ALLREDUCE || c == CS_COLL_REDUCESCATTER)
			r.reducing = 1;
	}
	return r;
}

static void show_failure(const cs_pattern_t *pat, int v, cs_dtype_t d,
			 const char *grid, const cs_psim_out_t *o)
{
	for (int g = 0; g < o->world; g++)
		if (o->chk[g].failed) {
			print_error("%s/%s/%s on %s, rank %d: [%s] %s\n%s",
				    pat->name, pat->variants[v],
				    cs_dtype_name(d), grid, g, o->chk[g].check,
				    o->chk[g].reason, o->chk[g].detail);
			return;
		}
}

static void one_case(const cs_pattern_t *pat, int v, cs_dtype_t d,
		     const cs_grid_t *grid)
{
	char text[CS_GRID_SPEC_MAX + 1];
	cs_psim_out_t o;
	uint64_t seed = 0x5eed;
	assert_int_equal(cs_grid_format(grid, text, sizeof text), CS_OK);
	assert_int_equal(cs_psim_run(pat, v, d, seed, grid, CS_PSIM_OK, &o),
			 CS_OK);
	if (cs_psim_nfailed(&o))
		show_failure(pat, v, d, text, &o);
	assert_int_equal(cs_psim_nfailed(&o), 0);
	/* every rank checked something */
	for (int g = 0; g < o.world; g++)
		assert_true(o.chk[g].elems > 0);
	/* volumes */
	for (int g = 0; g < o.world; g++) {
		int64_t want = -1;
		assert_int_equal(pat->volume(pat, v, d, seed, grid, g, &want),
				 CS_OK);
		if (o.bytes[g] != want)
			print_error("%s/%s/%s on %s rank %d: %lld bytes "
				    "logged, the closed form says %lld\n",
				    pat->name, pat->variants[v],
				    cs_dtype_name(d), text, g,
				    (long long)o.bytes[g], (long long)want);
		assert_int_equal(o.bytes[g], want);
	}
	int P = cs_grid_axis_size(grid, pat->axis);
	int instances = grid->world / P;
	reach_t r = reach_of(&o, P);
	cs_psim_free(&o);

	struct {
		cs_psim_fault_t f;
		int visible;
		const char *name;
	} faults[] = {
	    {CS_PSIM_WORLD, instances >= 2 && r.calls, "world"},
	    {CS_PSIM_REVERSE, r.ordered, "reverse"},
	    {CS_PSIM_PERTURB, r.reducing, "perturb"},
	};
	for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
		assert_int_equal(cs_psim_run(pat, v, d, seed, grid,
					     faults[k].f, &o),
				 CS_OK);
		int nf = cs_psim_nfailed(&o);
		if (faults[k].visible && nf == 0)
			print_error("%s/%s/%s on %s: fault %s not caught\n",
				    pat->name, pat->variants[v],
				    cs_dtype_name(d), text, faults[k].name);
		if (faults[k].visible)
			assert_true(nf > 0);
		cs_psim_free(&o);
	}
}

static void test_every_pattern(void **state)
{
	(void)state;
	size_t npat = 0;
	for (size_t i = 0; cs_pattern_at(i); i++, npat++) {
		const cs_pattern_t *pat = cs_pattern_at(i);
		assert_non_null(pat->run);
		assert_non_null(pat->volume);
		assert_ptr_equal(cs_pattern_find(pat->name), pat);
		for (int v = 0; v < pat->nvariants; v++)
			for (int t = 0; t < pat->ndtypes; t++) {
				cs_dtype_t d = pat->dtypes[t];
				if (!accepts(pat, v, d))
					continue;
				cs_grid_t g;
				for (int k = 0; grid_at(pat, k, &g); k++)
					one_case(pat, v, d, &g);
			}
	}
	assert_true(npat >= 1);
}

/* The default grids of spec section 2.5's table. */
static void test_default_grids(void **state)
{
	(void)state;
	static const int a[] = {1, 2, 3, 2, 5, 3, 7, 4};
	for (size_t i = 0; cs_pattern_at(i); i++) {
		const cs_pattern_t *pat = cs_pattern_at(i);
		for (int N = 1; N <= 8; N++) {
			cs_grid_t g;
			assert_int_equal(cs_pattern_default_grid(pat, N, &g),
					 CS_OK);
			assert_int_equal(g.world, N);
			assert_int_equal(cs_grid_axis_size(&g, pat->axis),
					 a[N - 1]);
			cs_grid_axis_t second = pat->axis == CS_AXIS_DP
						    ? CS_AXIS_TP
						    : CS_AXIS_DP;
			assert_int_equal(cs_grid_axis_size(&g, second),
					 N / a[N - 1]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_grids),
	    cmocka_unit_test(test_every_pattern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
