/*
 * selfcheck.c - `collspec selfcheck`: the oracle against an independent
 * evaluation. For every dtype x op x data mode and a few rank counts, each
 * element is reduced with cs_step in several orders (left fold, right fold,
 * pairwise tree, rotated start); every order must conform to the oracle's
 * golden value: bit-identical where the golden value is exact, within the
 * bound otherwise. Data movement is checked against the generators.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/case.h"
#include "csref/compare.h"
#include "check/check.h"
#include "base/commands.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/oracle.h"

#define SC_COUNT 97
#define SC_ORDERS 4
#define SC_MAXP 8
#define SC_MAX_REPORT 10

static const char selfcheck_usage[] =
"usage: collspec selfcheck [-v]\n"
"\n"
"Check the oracle on built-in cases: every dtype x op x data mode at\n"
"1, 2, 3, 5 and 8 ranks, each element also reduced step by step in four\n"
"orders (left fold, right fold, pairwise tree, rotated start). Exact\n"
"golden values must be matched bit for bit, the others within the bound.\n"
"exit status: 0 all agree, 1 a disagreement, 2 usage error\n";

static const int sc_ranks[] = {1, 2, 3, 5, 8};

struct sc_stats {
	size_t combos, elems, bad;
	int verbose;
};

/* A rank's prepared contribution (premultiplied for PREMULSUM and float
 * AVG). */
static uint64_t prep(const cs_case_t *c, int q, uint64_t x)
{
	if (c->op == CS_OP_PREMULSUM)
		return cs_op_premul(c->dtype, x, cs_gen_scalar(c, q));
	if (c->op == CS_OP_AVG && cs_is_float(c->dtype))
		return cs_op_premul(c->dtype, x, cs_avg_scalar(c->dtype, c->nranks));
	return x;
}

/* Reduce v[lo..hi) as a balanced tree. */
static uint64_t tree(const cs_case_t *c, const uint64_t *v, int lo, int hi)
{
	int mid;

	if (hi - lo == 1)
		return v[lo];
	mid = lo + (hi - lo) / 2;
	return cs_step(c->dtype, cs_step_op(c->op), tree(c, v, lo, mid),
		       tree(c, v, mid, hi));
}

/* Element i reduced in order `order`. */
static uint64_t evaluate(const cs_case_t *c, size_t i, int order)
{
	uint64_t v[SC_MAXP], acc;
	cs_op_t step = cs_step_op(c->op);
	int P = c->nranks, q, k;

	for (q = 0; q < P; q++)
		v[q] = prep(c, q, cs_gen_input(c, q, i));
	if (order == 2) {
		acc = tree(c, v, 0, P);
	} else {
		int start = order == 3 ? (int)(i % (size_t)P) : 0;
		acc = order == 1 ? v[P - 1] : v[start];
		for (k = 1; k < P; k++) {
			q = order == 1 ? P - 1 - k : (start + k) % P;
			acc = cs_step(c->dtype, step, acc, v[q]);
		}
	}
	if (c->op == CS_OP_AVG && !cs_is_float(c->dtype))
		acc = cs_op_postdiv(c->dtype, acc, P);
	return acc;
}

static void report_bad(struct sc_stats *st, const cs_case_t *c, size_t i,
		       int order, const cs_golden_t *g, uint64_t got)
{
	char name[160], ev[64], gv[64];

	if (st->bad++ >= SC_MAX_REPORT)
		return;
	cs_case_format(c, name, sizeof name);
	cs_format_value(c->dtype, g->bits, ev, sizeof ev);
	cs_format_value(c->dtype, got, gv, sizeof gv);
	printf("  DISAGREE %s index %zu order %d: oracle %s (bound %.3g, flags "
	       "0x%x), step evaluation %s\n", name, i, order, ev, g->bound,
	       g->flags, gv);
}

static void check_reduction(struct sc_stats *st, const cs_case_t *c)
{
	cs_golden_t g[SC_COUNT];
	cs_cmp_elem_t ce;
	size_t i;
	int order;

	if (cs_oracle_expect(c, 0, 0, SC_COUNT, NULL, g) != CS_OK) {
		printf("  oracle error: %s\n", cs_last_error());
		st->bad++;
		return;
	}
	for (i = 0; i < SC_COUNT; i++) {
		for (order = 0; order < SC_ORDERS; order++) {
			uint64_t r = evaluate(c, i, order);
			cs_cmp_class_t cls = cs_compare_elem(c->dtype, &g[i], r, &ce);
			int exact = c->mode == CS_MODE_EXACT &&
				    (g[i].flags & CS_G_EXACT);
			if (cls == CS_CMP_WRONG || (exact && cls != CS_CMP_EXACT))
				report_bad(st, c, i, order, &g[i], r);
		}
	}
	st->elems += SC_COUNT;
	st->combos++;
}

/* allgather at P=3: block q of the output is rank q's input, bit for bit. */
static void check_movement(struct sc_stats *st, cs_dtype_t d)
{
	cs_case_t c;
	cs_golden_t g[3 * SC_COUNT];
	size_t i;

	memset(&c, 0, sizeof c);
	c.coll = CS_COLL_ALLGATHER;
	c.dtype = d;
	c.op = CS_OP_NONE;
	c.mode = CS_MODE_RANDOM;
	c.nranks = 3;
	c.count = SC_COUNT;
	c.seed = 7;
	if (cs_oracle_expect(&c, 1, 0, 3 * SC_COUNT, NULL, g) != CS_OK) {
		printf("  oracle error: %s\n", cs_last_error());
		st->bad++;
		return;
	}
	for (i = 0; i < 3 * SC_COUNT; i++) {
		uint64_t x = cs_gen_input(&c, (int)(i / SC_COUNT), i % SC_COUNT);
		if (g[i].bits != x)
			report_bad(st, &c, i, 0, &g[i], x);
	}
	st->elems += 3 * SC_COUNT;
	st->combos++;
}

int cs_cmd_selfcheck(int argc, char **argv)
{
	struct sc_stats st = {0, 0, 0, 0};
	cs_case_t c;
	int d, op, m, k;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			fputs(selfcheck_usage, stdout);
			return 0;
		}
		if (strcmp(argv[k], "-v")) {
			fprintf(stderr, "collspec selfcheck: unexpected argument "
				"'%s'\n", argv[k]);
			return 2;
		}
		st.verbose = 1;
	}
	memset(&c, 0, sizeof c);
	c.coll = CS_COLL_ALLREDUCE;
	c.count = SC_COUNT;
	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (op = 0; op < CS_NUM_OPS; op++)
			for (m = 0; m < CS_NUM_MODES; m++)
				for (k = 0; k < (int)(sizeof sc_ranks / sizeof *sc_ranks); k++) {
					c.dtype = (cs_dtype_t)d;
					c.op = (cs_op_t)op;
					c.mode = (cs_mode_t)m;
					c.nranks = sc_ranks[k];
					c.seed = 1000u + (unsigned)k;
					check_reduction(&st, &c);
				}
	for (d = 0; d < CS_NUM_DTYPES; d++)
		check_movement(&st, (cs_dtype_t)d);
	printf("selfcheck: %zu cases (%d dtypes x %d ops x %d modes x %zu rank "
	       "counts, plus allgather per dtype), %zu elements, %d orders each: "
	       "%s\n", st.combos, CS_NUM_DTYPES, CS_NUM_OPS, CS_NUM_MODES,
	       sizeof sc_ranks / sizeof *sc_ranks, st.elems, SC_ORDERS,
	       st.bad ? "DISAGREEMENTS" : "oracle and step evaluation agree");
	if (st.bad)
		printf("selfcheck: %zu disagreements\n", st.bad);
	return st.bad ? 1 : 0;
}
