/*
 * pattern.c - what every pattern shares (csref/pattern.h): the sizes of a
 * call, the checker, the input generator, the default grid and a rank's
 * place on it. The registry itself is registry.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/golden.h"
#include "csref/pattern.h"
#include "csref/pkern.h"

const char *cs_pphase_name(cs_pphase_t ph)
{
	switch (ph) {
	case CS_PHASE_FWD: return "fwd";
	case CS_PHASE_BWD: return "bwd";
	case CS_PHASE_OPT: return "opt";
	case CS_NUM_PHASES: break;
	}
	return "?";
}

static int sum_counts(const size_t *c, int P, size_t *out)
{
	size_t s = 0;
	for (int q = 0; q < P; q++)
		if (__builtin_add_overflow(s, c[q], &s))
			return 0;
	*out = s;
	return 1;
}

cs_status_t cs_pcall_elems(const cs_pcall_t *c, int P, size_t *send_elems,
			   size_t *recv_elems)
{
	size_t n = c->count, pn;
	if (P < 1)
		return cs_error(CS_ERR_INVALID, "a group of %d ranks", P);
	if (__builtin_mul_overflow(n, (size_t)P, &pn))
		return cs_error(CS_ERR_OVERFLOW, "%d * %zu elements overflow",
				P, n);
	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_SENDRECV:
		*send_elems = n;
		*recv_elems = n;
		return CS_OK;
	case CS_COLL_ALLGATHER:
		*send_elems = n;
		*recv_elems = pn;
		return CS_OK;
	case CS_COLL_REDUCESCATTER:
		*send_elems = pn;
		*recv_elems = n;
		return CS_OK;
	case CS_COLL_ALLTOALL:
		*send_elems = pn;
		*recv_elems = pn;
		return CS_OK;
	case CS_COLL_ALLTOALLV:
		if (!c->sendcounts || !c->recvcounts || !c->sdispls ||
		    !c->rdispls)
			return cs_error(CS_ERR_INVALID,
					"alltoallv without its counts");
		if (!sum_counts(c->sendcounts, P, send_elems) ||
		    !sum_counts(c->recvcounts, P, recv_elems))
			return cs_error(CS_ERR_OVERFLOW,
					"alltoallv counts overflow");
		return CS_OK;
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_NUM_COLLS:
		break;
	}
	return cs_error(CS_ERR_INVALID, "a pattern does not call %s",
			cs_coll_name(c->coll));
}

/* ---- the checker ------------------------------------------------------ */

void cs_pchk_init(cs_pcheck_t *k)
{
	memset(k, 0, sizeof *k);
}

void cs_pchk_fail(cs_pcheck_t *k, const char *check, const char *fmt, ...)
{
	va_list ap;
	if (k->failed)
		return;
	k->failed = 1;
	snprintf(k->check, sizeof k->check, "%s", check);
	va_start(ap, fmt);
	vsnprintf(k->reason, sizeof k->reason, fmt, ap);
	va_end(ap);
}

/* Append one line to k->detail while it fits (a line that does not fit
 * is left out whole). */
static void detail_line(cs_pcheck_t *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void detail_line(cs_pcheck_t *k, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	size_t used = strlen(k->detail);
	va_start(ap, fmt);
	int len = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len + 2 > sizeof k->detail - used)
		return;
	snprintf(k->detail + used, sizeof k->detail - used, "%s\n", line);
}

#define CHK_DETAIL_MAX 4

int cs_pchk_bits(cs_pcheck_t *k, const char *what, cs_dtype_t d,
		 const void *got, const void *want, size_t n)
{
	size_t bad = 0, first = 0;
	int had = k->failed;
	for (size_t j = 0; j < n; j++) {
		uint64_t g = cs_load(d, got, j), w = cs_load(d, want, j);
		if (g == w)
			continue;
		if (bad == 0)
			first = j;
		if (bad < CHK_DETAIL_MAX && !had)
			detail_line(k, "%s[%zu]: got 0x%llx (%.9g), expected "
				    "0x%llx (%.9g)", what, j,
				    (unsigned long long)g, cs_to_f64(d, g),
				    (unsigned long long)w, cs_to_f64(d, w));
		bad++;
	}
	k->elems += n;
	if (bad)
		cs_pchk_fail(k, "value", "%s: %zu of %zu elements differ from "
			     "the serial run, the first at %zu", what, bad, n,
			     first);
	return bad == 0;
}

int cs_pchk_reduced(cs_pcheck_t *k, const char *what, cs_dtype_t d,
		    cs_op_t op, int P, const void *const *x, const void *got,
		    size_t n)
{
	uint64_t xs[CS_PAT_MAX_GROUP];
	size_t bad = 0, first = 0;
	int had = k->failed;
	if (P < 1 || P > CS_PAT_MAX_GROUP) {
		cs_pchk_fail(k, "value", "%s: a group of %d ranks (at most "
			     "%d)", what, P, CS_PAT_MAX_GROUP);
		return 0;
	}
	for (size_t j = 0; j < n; j++) {
		cs_golden_t g;
		cs_cmp_elem_t e;
		for (int q = 0; q < P; q++)
			xs[q] = cs_load(d, x[q], j);
		cs_golden_reduce(d, op, P, xs, NULL, 0, &g);
		uint64_t r = cs_load(d, got, j);
		if (cs_compare_elem(d, &g, r, &e) != CS_CMP_WRONG)
			continue;
		if (bad == 0)
			first = j;
		if (bad < CHK_DETAIL_MAX && !had)
			detail_line(k, "%s[%zu]: got %.9g, exact %.9g, bound "
				    "%.3g, error %.3g", what, j,
				    cs_to_f64(d, r), g.s_hi + g.s_lo, g.bound,
				    e.err);
		bad++;
	}
	k->elems += n;
	if (bad)
		cs_pchk_fail(k, "value", "%s: %zu of %zu reduced elements "
			     "outside their bound (%s over %d ranks), the "
			     "first at %zu", what, bad, n, cs_op_name(op), P,
			     first);
	return bad == 0;
}

/* ---- inputs ----------------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (; s && *s; s++)
		h = cs_mix64(h ^ (unsigned char)*s);
	return h;
}

void cs_pat_fill(const cs_pctx_t *x, int inst, int tensor, int q, void *buf,
		 size_t n)
{
	uint64_t key = cs_mix64(x->seed ^ name_hash(x->pat->name));
	key = cs_mix64(key ^ ((uint64_t)x->dtype << 48) ^
		       ((uint64_t)(unsigned)inst << 24) ^
		       ((uint64_t)(unsigned)tensor << 12) ^ (uint64_t)(unsigned)q);
	int is_float = cs_dtype_is_float(x->dtype);
	for (size_t j = 0; j < n; j++) {
		uint64_t h = cs_mix64(key + (j + 1) * 0xd1b54a32d192ed03ull);
		if (!is_float) {
			cs_pk_set(x->dtype, buf, j, (double)(int)(h % 7) - 3);
			continue;
		}
		/* The sum of four uniforms on [-1/2, 1/2), scaled to variance
		 * 1: normal-like, |v| < 3.5, never special. */
		double s = 0;
		for (int t = 0; t < 4; t++) {
			s += (double)((h >> (16 * t)) & 0xffff) / 65536.0 - 0.5;
		}
		cs_pk_set(x->dtype, buf, j, s * sqrt(3.0));
	}
}

/* ---- the grid --------------------------------------------------------- */

cs_status_t cs_pattern_default_grid(const cs_pattern_t *pat, int N,
				    cs_grid_t *out)
{
	if (!pat || !out || N < 1)
		return cs_error(CS_ERR_INVALID,
				"cs_pattern_default_grid: bad arguments");
	int a = (N <= 2 || N % 2) ? N : N / 2;
	cs_grid_axis_t second =
	    pat->axis == CS_AXIS_DP ? CS_AXIS_TP : CS_AXIS_DP;
	/* Megatron's layout, slowest first (spec section 2.2). */
	static const cs_grid_axis_t order[] = {CS_AXIS_PP, CS_AXIS_DP,
					       CS_AXIS_EP, CS_AXIS_CP,
					       CS_AXIS_TP, CS_AXIS_SP};
	cs_grid_t g;
	memset(&g, 0, sizeof g);
	g.world = N;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		int size = order[i] == pat->axis ? a
			   : order[i] == second  ? N / a
						 : 1;
		if (size > 1 || (order[i] == pat->axis && N == 1)) {
			g.axis[g.ndims] = order[i];
			g.size[g.ndims++] = size;
		}
	}
	*out = g;
	return CS_OK;
}

cs_status_t cs_pattern_rank(const cs_pattern_t *pat, const cs_grid_t *grid,
			    int g, cs_prank_t *out)
{
	int color, key;
	cs_status_t st = cs_grid_split(grid, pat->axis, g, &color, &key);
	if (st != CS_OK)
		return st;
	out->world_rank = g;
	out->P = cs_grid_axis_size(grid, pat->axis);
	out->r = key;
	out->inst = color;
	return CS_OK;
}
