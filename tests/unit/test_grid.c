/*
 * test_grid.c - the process grid (ref/grid.c, csref/grid.h): hand-written
 * layouts and groups of small grids, the properties every grid must have
 * (checked by enumeration on many grids and every axis mask), and every
 * parser error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csref/grid.h"

#define DP CS_AXIS_BIT(CS_AXIS_DP)
#define TP CS_AXIS_BIT(CS_AXIS_TP)
#define PP CS_AXIS_BIT(CS_AXIS_PP)
#define SP CS_AXIS_BIT(CS_AXIS_SP)
#define CP CS_AXIS_BIT(CS_AXIS_CP)
#define EP CS_AXIS_BIT(CS_AXIS_EP)

static cs_grid_t parse_ok(const char *spec, int world)
{
	cs_grid_t g;
	cs_status_t st = cs_grid_parse(spec, world, &g);

	if (st != CS_OK)
		fail_msg("%s on %d ranks: %s", spec, world, cs_last_error());
	return g;
}

/* ---- hand-written layouts ------------------------------------------- */

/* pp2,dp2,tp2: the last axis listed (tp) varies fastest, the first (pp)
 * slowest, as in Megatron's tp-dp-pp order; written out rank by rank. */
static void test_layout_pp_dp_tp(void **state)
{
	static const int want[8][3] = { /* pp, dp, tp */
		{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1},
		{1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1},
	};
	cs_grid_t g = parse_ok("pp2,dp2,tp2", 8);
	int c[CS_NUM_AXES], r, back;

	(void)state;
	for (r = 0; r < 8; r++) {
		assert_int_equal(cs_grid_coords(&g, r, c), CS_OK);
		assert_int_equal(c[CS_AXIS_PP], want[r][0]);
		assert_int_equal(c[CS_AXIS_DP], want[r][1]);
		assert_int_equal(c[CS_AXIS_TP], want[r][2]);
		assert_true(!c[CS_AXIS_SP] && !c[CS_AXIS_CP] && !c[CS_AXIS_EP]);
		assert_int_equal(cs_grid_rank(&g, c, &back), CS_OK);
		assert_int_equal(back, r);
	}
}

/* ep4,dp2: dp fastest; and dp3,tp2 (an odd axis). */
static void test_layout_other(void **state)
{
	static const int ep4dp2[8][2] = { /* ep, dp */
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1},
	};
	static const int dp3tp2[6][2] = { /* dp, tp */
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1},
	};
	cs_grid_t g = parse_ok("ep4,dp2", 8), h = parse_ok("dp3,tp2", 6);
	int c[CS_NUM_AXES], r;

	(void)state;
	for (r = 0; r < 8; r++) {
		assert_int_equal(cs_grid_coords(&g, r, c), CS_OK);
		assert_int_equal(c[CS_AXIS_EP], ep4dp2[r][0]);
		assert_int_equal(c[CS_AXIS_DP], ep4dp2[r][1]);
		assert_int_equal(c[CS_AXIS_TP], 0);
	}
	for (r = 0; r < 6; r++) {
		assert_int_equal(cs_grid_coords(&h, r, c), CS_OK);
		assert_int_equal(c[CS_AXIS_DP], dp3tp2[r][0]);
		assert_int_equal(c[CS_AXIS_TP], dp3tp2[r][1]);
	}
}

/* The group of each rank of a grid over a mask, written by hand: grp[r]
 * lists r's group in group order (so colour = grp[r][0], the lowest rank,
 * and key = r's index in it). */
struct group_case {
	const char *spec;
	int world;
	unsigned mask;
	int n;
	int grp[8][4];
};

static const struct group_case group_cases[] = {
	{"pp2,dp2,tp2", 8, TP, 2, {{0, 1}, {0, 1}, {2, 3}, {2, 3},
				   {4, 5}, {4, 5}, {6, 7}, {6, 7}}},
	{"pp2,dp2,tp2", 8, DP, 2, {{0, 2}, {1, 3}, {0, 2}, {1, 3},
				   {4, 6}, {5, 7}, {4, 6}, {5, 7}}},
	{"pp2,dp2,tp2", 8, PP, 2, {{0, 4}, {1, 5}, {2, 6}, {3, 7},
				   {0, 4}, {1, 5}, {2, 6}, {3, 7}}},
	{"pp2,dp2,tp2", 8, DP | TP, 4, {{0, 1, 2, 3}, {0, 1, 2, 3},
					{0, 1, 2, 3}, {0, 1, 2, 3},
					{4, 5, 6, 7}, {4, 5, 6, 7},
					{4, 5, 6, 7}, {4, 5, 6, 7}}},
	{"pp2,dp2,tp2", 8, EP, 1, {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},
	{"pp2,dp2,tp2", 8, 0, 1, {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},
	/* the spelling: pp fastest, dp slowest */
	{"dp2,tp2,pp2", 8, TP, 2, {{0, 2}, {1, 3}, {0, 2}, {1, 3},
				   {4, 6}, {5, 7}, {4, 6}, {5, 7}}},
	{"dp2,tp2,pp2", 8, PP, 2, {{0, 1}, {0, 1}, {2, 3}, {2, 3},
				   {4, 5}, {4, 5}, {6, 7}, {6, 7}}},
	{"dp2,tp2,pp2", 8, DP, 2, {{0, 4}, {1, 5}, {2, 6}, {3, 7},
				   {0, 4}, {1, 5}, {2, 6}, {3, 7}}},
	{"ep4,dp2", 8, EP, 4, {{0, 2, 4, 6}, {1, 3, 5, 7}, {0, 2, 4, 6},
			       {1, 3, 5, 7}, {0, 2, 4, 6}, {1, 3, 5, 7},
			       {0, 2, 4, 6}, {1, 3, 5, 7}}},
	{"ep4,dp2", 8, DP, 2, {{0, 1}, {0, 1}, {2, 3}, {2, 3},
			       {4, 5}, {4, 5}, {6, 7}, {6, 7}}},
	/* ZeRO over dp x cp, the masked axes not adjacent in the layout */
	{"cp2,tp2,dp2", 8, CP | DP, 4, {{0, 1, 4, 5}, {0, 1, 4, 5},
					{2, 3, 6, 7}, {2, 3, 6, 7},
					{0, 1, 4, 5}, {0, 1, 4, 5},
					{2, 3, 6, 7}, {2, 3, 6, 7}}},
	{"dp3,tp2", 6, DP, 3, {{0, 2, 4}, {1, 3, 5}, {0, 2, 4},
			       {1, 3, 5}, {0, 2, 4}, {1, 3, 5}}},
	{"dp3,tp2", 6, TP, 2, {{0, 1}, {0, 1}, {2, 3}, {2, 3},
			       {4, 5}, {4, 5}}},
};

static void test_groups_by_hand(void **state)
{
	size_t i;
	int r, k, color, key, n, ranks[8];

	(void)state;
	for (i = 0; i < sizeof group_cases / sizeof group_cases[0]; i++) {
		const struct group_case *t = &group_cases[i];
		cs_grid_t g = parse_ok(t->spec, t->world);

		assert_int_equal(cs_grid_group_size(&g, t->mask), t->n);
		for (r = 0; r < t->world; r++) {
			assert_int_equal(cs_grid_group(&g, t->mask, r, ranks,
						       8, &n), CS_OK);
			assert_int_equal(n, t->n);
			for (k = 0; k < n; k++)
				assert_int_equal(ranks[k], t->grp[r][k]);
			assert_int_equal(cs_grid_split_mask(&g, t->mask, r,
							    &color, &key),
					 CS_OK);
			assert_int_equal(color, t->grp[r][0]);
			assert_int_equal(t->grp[r][key], r);
		}
	}
}

/* cs_grid_split is the one-axis mask. */
static void test_split_one_axis(void **state)
{
	cs_grid_t g = parse_ok("pp2,dp2,tp2", 8);
	int color, key;

	(void)state;
	assert_int_equal(cs_grid_split(&g, CS_AXIS_DP, 6, &color, &key), CS_OK);
	assert_int_equal(color, 4); /* group {4, 6} */
	assert_int_equal(key, 1);
	assert_int_equal(cs_grid_split(&g, CS_AXIS_PP, 3, &color, &key), CS_OK);
	assert_int_equal(color, 3); /* group {3, 7} */
	assert_int_equal(key, 0);
	assert_int_not_equal(cs_grid_split(&g, CS_NUM_AXES, 0, &color, &key),
			     CS_OK);
}

/* ---- properties, by enumeration -------------------------------------- */

static const struct {
	const char *spec;
	int world;
} prop_grids[] = {
	{"dp1", 1}, {"dp8", 8}, {"pp2,dp2,tp2", 8}, {"dp2,tp2,pp2", 8},
	{"ep4,dp2", 8}, {"dp3,tp2", 6}, {"tp2,dp3", 6}, {"cp2,tp2,dp2", 8},
	{"sp3,ep2,cp2,tp1,dp2,pp1", 24}, {"pp3,ep1,dp2,sp2,cp2,tp3", 72},
	{"tp5,ep3", 15},
};

/* Every coordinate box point has a rank, and rank -> coordinates ->
 * rank is the identity: a bijection. */
static void check_bijection(const cs_grid_t *g)
{
	int c[CS_NUM_AXES], d[CS_NUM_AXES], r, back, a, seen[72] = {0};
	int box = 1, k;

	for (r = 0; r < g->world; r++) {
		assert_int_equal(cs_grid_coords(g, r, c), CS_OK);
		for (a = 0; a < CS_NUM_AXES; a++)
			assert_in_range(c[a], 0,
				cs_grid_axis_size(g, (cs_grid_axis_t)a) - 1);
		assert_int_equal(cs_grid_rank(g, c, &back), CS_OK);
		assert_int_equal(back, r);
	}
	for (a = 0; a < CS_NUM_AXES; a++)
		box *= cs_grid_axis_size(g, (cs_grid_axis_t)a);
	assert_int_equal(box, g->world);
	for (k = 0; k < box; k++) { /* k's mixed-radix digits, axis order */
		int rest = k;

		for (a = 0; a < CS_NUM_AXES; a++) {
			int s = cs_grid_axis_size(g, (cs_grid_axis_t)a);

			c[a] = rest % s;
			rest /= s;
		}
		assert_int_equal(cs_grid_rank(g, c, &r), CS_OK);
		assert_in_range(r, 0, g->world - 1);
		assert_int_equal(seen[r]++, 0);
		assert_int_equal(cs_grid_coords(g, r, d), CS_OK);
		assert_memory_equal(c, d, sizeof c);
	}
}

/* One rank's group over mask: members share every coordinate off the
 * mask, are distinct, ascend, hold r at its key, and agree on the colour
 * and on their keys' order. */
static void check_group(const cs_grid_t *g, unsigned mask, int r,
			int *owner)
{
	int ranks[72], n, k, a, color, key, cm, km;
	int cr[CS_NUM_AXES], cx[CS_NUM_AXES], want = 1;

	for (a = 0; a < CS_NUM_AXES; a++)
		if (mask & CS_AXIS_BIT(a))
			want *= cs_grid_axis_size(g, (cs_grid_axis_t)a);
	assert_int_equal(cs_grid_group(g, mask, r, ranks, 72, &n), CS_OK);
	assert_int_equal(n, want);
	assert_int_equal(cs_grid_split_mask(g, mask, r, &color, &key), CS_OK);
	assert_int_equal(ranks[key], r);
	assert_int_equal(color, ranks[0]);
	cs_grid_coords(g, r, cr);
	for (k = 0; k < n; k++) {
		assert_true(k == 0 || ranks[k] > ranks[k - 1]);
		cs_grid_coords(g, ranks[k], cx);
		for (a = 0; a < CS_NUM_AXES; a++)
			if (!(mask & CS_AXIS_BIT(a)))
				assert_int_equal(cx[a], cr[a]);
		assert_int_equal(cs_grid_split_mask(g, mask, ranks[k], &cm,
						    &km), CS_OK);
		assert_int_equal(cm, color);
		assert_int_equal(km, k);
		/* one group per rank: owner[] records the colour that
		 * claimed it, so two groups cannot share a member */
		assert_true(owner[ranks[k]] == -1 || owner[ranks[k]] == color);
		owner[ranks[k]] = color;
	}
}

static void test_properties(void **state)
{
	size_t i;
	unsigned mask;
	int r, owner[72];

	(void)state;
	for (i = 0; i < sizeof prop_grids / sizeof prop_grids[0]; i++) {
		cs_grid_t g = parse_ok(prop_grids[i].spec, prop_grids[i].world);

		check_bijection(&g);
		for (mask = 0; mask <= CS_AXIS_ALL; mask++) {
			for (r = 0; r < g.world; r++)
				owner[r] = -1;
			for (r = 0; r < g.world; r++)
				check_group(&g, mask, r, owner);
			for (r = 0; r < g.world; r++) /* a partition */
				assert_int_not_equal(owner[r], -1);
		}
	}
}

/* Colours: two ranks get the same colour exactly when they are in the same
 * group (check_group shows that members agree; this shows that different
 * groups differ), on every mask of a grid of four listed axes. */
static void test_colours_distinct(void **state)
{
	cs_grid_t g = parse_ok("sp3,ep2,cp2,tp1,dp2,pp1", 24);
	unsigned mask;
	int r, q, color[24], key, first[24], ranks[24], n;

	(void)state;
	for (mask = 0; mask <= CS_AXIS_ALL; mask++) {
		for (r = 0; r < 24; r++) {
			assert_int_equal(cs_grid_split_mask(&g, mask, r,
							    &color[r], &key),
					 CS_OK);
			assert_int_equal(cs_grid_group(&g, mask, r, ranks, 24,
						       &n), CS_OK);
			first[r] = ranks[0];
			for (q = 0; q < r; q++)
				assert_int_equal(color[q] == color[r],
						 first[q] == first[r]);
		}
	}
}

static void test_format_and_sizes(void **state)
{
	static const char *const names[CS_NUM_AXES] = {"dp", "tp", "pp",
						       "sp", "cp", "ep"};
	cs_grid_t g = parse_ok("ep4,dp2", 8);
	char buf[8];
	int a;

	(void)state;
	assert_int_equal(cs_grid_format(&g, buf, sizeof buf), CS_OK);
	assert_string_equal(buf, "ep4,dp2");
	assert_int_not_equal(cs_grid_format(&g, buf, 7), CS_OK);
	assert_string_equal(buf, "");
	assert_int_equal(cs_grid_axis_size(&g, CS_AXIS_EP), 4);
	assert_int_equal(cs_grid_axis_size(&g, CS_AXIS_DP), 2);
	assert_int_equal(cs_grid_axis_size(&g, CS_AXIS_TP), 1);
	assert_int_equal(cs_grid_axis_size(&g, CS_NUM_AXES), 0);
	for (a = 0; a < CS_NUM_AXES; a++)
		assert_string_equal(cs_grid_axis_name((cs_grid_axis_t)a),
				    names[a]);
	assert_null(cs_grid_axis_name(CS_NUM_AXES));
	assert_int_equal(cs_grid_group_size(&g, EP | DP), 8);
	assert_int_equal(cs_grid_group_size(&g, 1u << CS_NUM_AXES), 0);
}

/* Out-of-range ranks, coordinates, masks and a short group list. */
static void test_bad_arguments(void **state)
{
	cs_grid_t g = parse_ok("pp2,dp2,tp2", 8);
	int c[CS_NUM_AXES] = {0}, r, color, key, ranks[4], n = 0;

	(void)state;
	assert_int_not_equal(cs_grid_coords(&g, 8, c), CS_OK);
	assert_int_not_equal(cs_grid_coords(&g, -1, c), CS_OK);
	c[CS_AXIS_EP] = 1; /* ep is not listed: its only coordinate is 0 */
	assert_int_not_equal(cs_grid_rank(&g, c, &r), CS_OK);
	c[CS_AXIS_EP] = 0, c[CS_AXIS_TP] = 2;
	assert_int_not_equal(cs_grid_rank(&g, c, &r), CS_OK);
	c[CS_AXIS_TP] = -1;
	assert_int_not_equal(cs_grid_rank(&g, c, &r), CS_OK);
	assert_int_not_equal(cs_grid_split_mask(&g, 1u << CS_NUM_AXES, 0,
						&color, &key), CS_OK);
	assert_int_not_equal(cs_grid_split_mask(&g, TP, 8, &color, &key),
			     CS_OK);
	assert_int_not_equal(cs_grid_group(&g, DP | TP, 0, ranks, 3, &n),
			     CS_OK);
	assert_int_equal(n, 4); /* the size it needs */
	assert_int_equal(cs_grid_group(&g, DP | TP, 0, ranks, 4, &n), CS_OK);
	assert_int_not_equal(cs_grid_group(&g, TP, -1, ranks, 4, &n), CS_OK);
}

/* ---- the parser -------------------------------------------------------- */

static const struct {
	const char *spec;
	int world;
	const char *msg; /* a part of the message that names the problem */
} parse_errors[] = {
	{NULL, 8, "empty"},
	{"", 8, "empty"},
	{"dp2,,tp4", 8, "empty item"},
	{",dp8", 8, "empty item"},
	{"dp8,", 8, "empty item"},
	{"xp8", 8, "unknown axis in 'xp8'"},
	{"DP8", 8, "unknown axis"},
	{"8", 8, "unknown axis"},
	{" dp8", 8, "unknown axis"},
	{"dpp8", 8, "unknown axis"},
	{"dp2,tp2,dp2", 8, "axis dp is listed twice"},
	{"dp", 8, "no size"},
	{"dp2,tp", 8, "no size"},
	{"dp0", 8, "from 1 to"},
	{"dp00", 8, "from 1 to"},
	{"dp2,tp0,pp4", 8, "from 1 to"},
	{"dp99999999999999999999", 8, "from 1 to"},
	{"dp65537", 65537, "from 1 to"},
	{"dp-8", 8, "'-8' is not a number"},
	{"dp+8", 8, "not a number"},
	{"dp 8", 8, "not a number"},
	{"dp8 ", 8, "not a number"},
	{"dp2x,tp4", 8, "'2x' is not a number"},
	{"dp0x8", 8, "not a number"},
	{"dp2,tp2", 8, "dp2,tp2 is 4 ranks, the world has 8"},
	{"dp4,tp4", 8, "dp4,tp4 is 16 ranks, the world has 8"},
	{"dp8", 1, "dp8 is 8 ranks, the world has 1"},
	{"dp65536,tp65536,pp65536", 8, "more than 2147483647 ranks"},
	{"dp1,tp1,pp1,sp1,cp1,ep1,dp8", 8, "more items than the 6 axes"},
	{"dp8", 0, "world of 1 or more"},
	{"dp8", -3, "world of 1 or more"},
};

static void test_parse_errors(void **state)
{
	cs_grid_t g, untouched;
	size_t i;

	(void)state;
	memset(&untouched, 0xab, sizeof untouched);
	for (i = 0; i < sizeof parse_errors / sizeof parse_errors[0]; i++) {
		const char *spec = parse_errors[i].spec;
		const char *shown = spec ? spec : "(null)";

		g = untouched;
		if (cs_grid_parse(spec, parse_errors[i].world, &g) !=
		    CS_ERR_INVALID)
			fail_msg("'%s' on %d ranks: accepted or wrong status",
				 shown, parse_errors[i].world);
		if (!strstr(cs_last_error(), parse_errors[i].msg))
			fail_msg("'%s': message '%s' lacks '%s'", shown,
				 cs_last_error(), parse_errors[i].msg);
		assert_memory_equal(&g, &untouched, sizeof g);
	}
	assert_int_not_equal(cs_grid_parse("dp8", 8, NULL), CS_OK);
}

/* Accepted forms, and the length bound at exactly CS_GRID_SPEC_MAX. */
static void test_parse_ok(void **state)
{
	char spec[CS_GRID_SPEC_MAX + 2];
	cs_grid_t g;

	(void)state;
	g = parse_ok("pp2,dp2,tp2", 8);
	assert_int_equal(g.ndims, 3);
	assert_int_equal(g.world, 8);
	assert_int_equal(g.axis[0], CS_AXIS_PP);
	assert_int_equal(g.axis[1], CS_AXIS_DP);
	assert_int_equal(g.axis[2], CS_AXIS_TP);
	assert_int_equal(g.size[0], 2);
	g = parse_ok("tp1,dp8", 8); /* a listed size 1 is kept */
	assert_int_equal(g.ndims, 2);
	assert_int_equal(g.size[0], 1);
	g = parse_ok("sp2,cp2,ep2,dp1,tp1,pp1", 8);
	assert_int_equal(g.ndims, 6);
	g = parse_ok("dp65536", 65536);
	assert_int_equal(g.size[0], 65536);
	memset(spec, '0', sizeof spec);
	memcpy(spec, "dp", 2);
	spec[CS_GRID_SPEC_MAX - 1] = '8';
	spec[CS_GRID_SPEC_MAX] = '\0';
	g = parse_ok(spec, 8); /* 64 bytes: dp000...08 */
	assert_int_equal(g.size[0], 8);
	spec[CS_GRID_SPEC_MAX - 1] = '0';
	spec[CS_GRID_SPEC_MAX] = '8';
	spec[CS_GRID_SPEC_MAX + 1] = '\0';
	assert_int_equal(cs_grid_parse(spec, 8, &g), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "65 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_pp_dp_tp),
		cmocka_unit_test(test_layout_other),
		cmocka_unit_test(test_groups_by_hand),
		cmocka_unit_test(test_split_one_axis),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_colours_distinct),
		cmocka_unit_test(test_format_and_sizes),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
