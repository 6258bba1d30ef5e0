/*
 * p_pp.c - pipeline parallelism in 1F1B order (spec/patterns.md section
 * 5.10, `pp`): P stages, stage s holding W_s [H, H] and computing
 * y = ReLU(x W_s), M micro-batches of b rows, a linear loss sum(C . y) on
 * the last stage.
 *
 * The ABI has no addressed send/receive, so each tick of the timetable
 * (cs_pat_1f1b_ticks) ends with one alltoallv on the pp group: a stage
 * that finished a forward sends its activation to s+1, one that finished a
 * backward sends its input gradient to s-1, every other count is 0 (idle
 * ticks still make the call). P = 1 makes no call.
 *
 * Every rank checks what it receives, its stage's outputs, input gradient
 * and weight gradient bitwise against cs_pp_chain: the whole batch through
 * every stage in order on one rank, a different path through the same
 * stage functions, so that a one-stage pipeline is checked too.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"
#include "pp.h"

enum { M = CS_PP_M, BR = CS_PP_B, H = CS_PP_H, ROWS = M * BR };

/* ---- the stage's local work (both runs) ------------------------------ */

/* y = ReLU(x W) over `rows` rows. */
static void stage_fwd(cs_dtype_t d, const void *W, const void *x,
		      size_t rows, void *y)
{
	cs_pk_matmul(d, rows, H, H, x, 0, W, 0, y);
	cs_pk_relu(d, y, rows * H);
}

/* From the output gradient g: dpre = g . [y > 0], dx = dpre W^T. */
static void stage_bwd(cs_dtype_t d, const void *W, const void *g,
		      const void *y, size_t rows, void *dpre, void *dx)
{
	memcpy(dpre, g, rows * H * cs_dtype_size(d));
	cs_pk_relu_bwd(d, dpre, y, rows * H);
	cs_pk_matmul(d, rows, H, H, dpre, 0, W, 1, dx);
}

/* dW = x^T dpre over all M b rows: the micro-batches accumulated in
 * ascending j in one loop per element, rounded once (section 4.1). */
static void stage_dw(cs_dtype_t d, const void *x, const void *dpre, void *dw)
{
	cs_pk_matmul(d, H, H, ROWS, x, 1, dpre, 0, dw);
}

cs_status_t cs_pp_chain(const cs_pctx_t *x, int inst, int P, void *act,
			void *grad, void *dw)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), n = (size_t)ROWS * H * w,
	       hh = (size_t)H * H * w;
	char *W = malloc(hh + n), *dpre = W + hh;
	char *a = act, *g = grad, *gw = dw;
	if (!W)
		return cs_error(CS_ERR_NOMEM, "pp: chain scratch");
	cs_pat_fill(x, inst, CS_PP_T_X, 0, a, (size_t)ROWS * H);
	for (int s = 0; s < P; s++) {
		cs_pat_fill(x, inst, CS_PP_T_W, s, W, (size_t)H * H);
		stage_fwd(d, W, a + (size_t)s * n, ROWS,
			  a + (size_t)(s + 1) * n);
	}
	cs_pat_fill(x, inst, CS_PP_T_C, 0, g + (size_t)P * n, (size_t)ROWS * H);
	for (int s = P - 1; s >= 0; s--) {
		cs_pat_fill(x, inst, CS_PP_T_W, s, W, (size_t)H * H);
		stage_bwd(d, W, g + (size_t)(s + 1) * n,
			  a + (size_t)(s + 1) * n, ROWS, dpre,
			  g + (size_t)s * n);
		stage_dw(d, a + (size_t)s * n, dpre, gw + (size_t)s * hh);
	}
	free(W);
	return CS_OK;
}

/* ---- one stage of the distributed run -------------------------------- */

typedef struct stage {
	int s, P;
	char *W, *dw;      /* [H, H] */
	char *xin, *y, *gin, *dpre, *dx; /* [M b, H] */
	char *recv;        /* [2 b H]: from s-1, then from s+1 */
	size_t *cnt;       /* sendcounts, sdispls, recvcounts, rdispls [P] */
	char *act, *grad, *cdw; /* the chain of its instance */
	char *arena;
} stage_t;

static void *take(char **p, size_t bytes)
{
	void *r = *p;
	*p += (bytes + 15) & ~(size_t)15;
	return r;
}

/* Local rank i's stage: buffers, its inputs, and the chain. */
static cs_status_t stage_make(const cs_pctx_t *x, int i, stage_t *st)
{
	cs_dtype_t d = x->dtype;
	int P = x->rank[i].P, s = x->rank[i].r, inst = x->rank[i].inst;
	size_t w = cs_dtype_size(d), n = (size_t)ROWS * H * w,
	       hh = (size_t)H * H * w;
	size_t total = 3 * hh + 5 * n + 2 * (size_t)BR * H * w +
		       4 * (size_t)P * sizeof(size_t) +
		       2 * (size_t)(P + 1) * n + (size_t)P * hh + 16 * 16;
	memset(st, 0, sizeof *st);
	st->arena = calloc(1, total);
	if (!st->arena)
		return cs_error(CS_ERR_NOMEM, "pp: stage buffers");
	char *p = st->arena;
	st->s = s, st->P = P;
	st->W = take(&p, hh), st->dw = take(&p, hh);
	st->xin = take(&p, n), st->y = take(&p, n), st->gin = take(&p, n);
	st->dpre = take(&p, n), st->dx = take(&p, n);
	st->recv = take(&p, 2 * (size_t)BR * H * w);
	st->cnt = take(&p, 4 * (size_t)P * sizeof(size_t));
	st->act = take(&p, (size_t)(P + 1) * n);
	st->grad = take(&p, (size_t)(P + 1) * n);
	st->cdw = take(&p, (size_t)P * hh);
	cs_pat_fill(x, inst, CS_PP_T_W, s, st->W, (size_t)H * H);
	if (s == 0)
		cs_pat_fill(x, inst, CS_PP_T_X, 0, st->xin, (size_t)ROWS * H);
	if (s == P - 1)
		cs_pat_fill(x, inst, CS_PP_T_C, 0, st->gin, (size_t)ROWS * H);
	return cs_pp_chain(x, inst, P, st->act, st->grad, st->cdw);
}

/* The op stage s runs at tick t: 1 with *bwd, *mb set, or 0 (idle). */
static int op_at(const int *tick, int s, int t, int *bwd, int *mb)
{
	for (int k = 0; k < 2 * M; k++)
		if (tick[s * 2 * M + k] == t) {
			*bwd = k >= M;
			*mb = k % M;
			return 1;
		}
	return 0;
}

/* The phase of stage s at tick t: its op's, else its next op's, else
 * bwd (section 5.10). */
static cs_pphase_t phase_at(const int *tick, int s, int t)
{
	int best = -1, bwd = 1;
	for (int k = 0; k < 2 * M; k++) {
		int tk = tick[s * 2 * M + k];
		if (tk >= t && (best < 0 || tk < best))
			best = tk, bwd = k >= M;
	}
	return bwd ? CS_PHASE_BWD : CS_PHASE_FWD;
}

/* Stage st's op at tick t, and the tick's call: what it sends and, from
 * the timetable, what its neighbours send it. */
static void tick_call(cs_dtype_t d, stage_t *st, const int *tick, int t,
		      cs_pcall_t *c)
{
	size_t w = cs_dtype_size(d), bh = (size_t)BR * H, P = (size_t)st->P;
	size_t *sc = st->cnt, *sd = sc + P, *rc = sd + P, *rd = rc + P;
	int s = st->s, bwd, mb;
	memset(st->cnt, 0, 4 * P * sizeof(size_t));
	memset(st->recv, 0, 2 * bh * w);
	*c = (cs_pcall_t){.coll = CS_COLL_ALLTOALLV, .dtype = d,
			  .send = st->y, .recv = st->recv, .sendcounts = sc,
			  .sdispls = sd, .recvcounts = rc, .rdispls = rd,
			  .phase = phase_at(tick, s, t)};
	if (op_at(tick, s, t, &bwd, &mb)) {
		size_t at = (size_t)mb * bh * w;
		if (!bwd) {
			stage_fwd(d, st->W, st->xin + at, BR, st->y + at);
			c->send = st->y + at;
			if (s < st->P - 1)
				sc[s + 1] = bh;
		} else {
			stage_bwd(d, st->W, st->gin + at, st->y + at, BR,
				  st->dpre + at, st->dx + at);
			c->send = st->dx + at;
			if (s > 0)
				sc[s - 1] = bh;
		}
	}
	if (s > 0 && op_at(tick, s - 1, t, &bwd, &mb) && !bwd)
		rc[s - 1] = bh, rd[s - 1] = 0;
	if (s < st->P - 1 && op_at(tick, s + 1, t, &bwd, &mb) && bwd)
		rc[s + 1] = bh, rd[s + 1] = bh;
}

/* Store what stage st received at the end of tick t, checked against the
 * chain: an activation from s-1, a gradient from s+1. */
static void tick_take(cs_dtype_t d, stage_t *st, const int *tick, int t,
		      cs_pcheck_t *k)
{
	size_t w = cs_dtype_size(d), bh = (size_t)BR * H;
	size_t n = (size_t)ROWS * H * w;
	int s = st->s, bwd, mb;
	if (s > 0 && op_at(tick, s - 1, t, &bwd, &mb) && !bwd) {
		size_t at = (size_t)mb * bh * w;
		memcpy(st->xin + at, st->recv, bh * w);
		cs_pchk_bits(k, "activation received from stage s-1", d,
			     st->xin + at, st->act + (size_t)s * n + at, bh);
	}
	if (s < st->P - 1 && op_at(tick, s + 1, t, &bwd, &mb) && bwd) {
		size_t at = (size_t)mb * bh * w;
		memcpy(st->gin + at, st->recv + bh * w, bh * w);
		cs_pchk_bits(k, "gradient received from stage s+1", d,
			     st->gin + at,
			     st->grad + (size_t)(s + 1) * n + at, bh);
	}
}

/* The stage's weight gradient, then its results against the chain. */
static void stage_check(cs_dtype_t d, stage_t *st, cs_pcheck_t *k)
{
	size_t w = cs_dtype_size(d), n = (size_t)ROWS * H * w;
	size_t s = (size_t)st->s;
	stage_dw(d, st->xin, st->dpre, st->dw);
	cs_pchk_bits(k, "stage outputs y", d, st->y, st->act + (s + 1) * n,
		     (size_t)ROWS * H);
	cs_pchk_bits(k, "stage input gradient dx", d, st->dx,
		     st->grad + s * n, (size_t)ROWS * H);
	cs_pchk_bits(k, "weight gradient dW", d, st->dw,
		     st->cdw + s * (size_t)H * H * w, (size_t)H * H);
}

/* Every tick: each stage's op and call, the calls, what came. */
static cs_status_t run_ticks(const cs_pctx_t *x, stage_t *st,
			     const int *tick, int nt)
{
	int L = x->nlocal, P = st[0].P;
	for (int t = 0; t < nt; t++) {
		for (int i = 0; i < L; i++) {
			cs_pcall_t c;
			cs_status_t qs = CS_OK;
			tick_call(x->dtype, &st[i], tick, t, &c);
			if (P > 1)
				qs = cs_pport_call(x->port, i, &c);
			if (qs != CS_OK)
				return qs;
		}
		if (P == 1)
			continue;
		if (cs_pport_run(x->port) != CS_OK)
			return CS_OK; /* verdicts set by the port */
		for (int i = 0; i < L; i++)
			tick_take(x->dtype, &st[i], tick, t, &x->chk[i]);
	}
	for (int i = 0; i < L; i++)
		stage_check(x->dtype, &st[i], &x->chk[i]);
	return CS_OK;
}

static cs_status_t run(const cs_pctx_t *x)
{
	int L = x->nlocal, P = L > 0 ? x->rank[0].P : 1, nt = 0;
	cs_status_t st = CS_OK;
	if (P < 1 || P > CS_PAT_PP_MAX)
		return cs_error(CS_ERR_INVALID, "pp: %d stages (at most %d)",
				P, CS_PAT_PP_MAX);
	int *tick = malloc((size_t)P * 2 * M * sizeof *tick);
	stage_t *sg = calloc((size_t)L, sizeof *sg);
	if (!tick || !sg) {
		st = cs_error(CS_ERR_NOMEM, "pp: stages");
		goto out_free;
	}
	if ((st = cs_pat_1f1b_ticks(P, M, tick, &nt)) != CS_OK)
		goto out_free;
	for (int i = 0; i < L && st == CS_OK; i++)
		st = stage_make(x, i, &sg[i]);
	if (st == CS_OK)
		st = run_ticks(x, sg, tick, nt);
out_free:
	for (int i = 0; sg && i < L; i++)
		free(sg[i].arena);
	free(sg);
	free(tick);
	return st;
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	cs_prank_t pr;
	(void)v;
	(void)seed;
	cs_status_t st = cs_pattern_rank(pat, grid, g, &pr);
	if (st != CS_OK)
		return st;
	return cs_pat_bytes_pp(M, BR, H, pr.P, pr.r, (int)cs_dtype_size(d),
			       bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_INT32};
static const char *const variants[] = {"1f1b"};

const cs_pattern_t cs_pattern_pp = {
	.name = "pp",
	.desc = "pipeline parallelism, 1F1B: one alltoallv per tick carries "
		"activations forward and gradients back",
	.axis = CS_AXIS_PP,
	.dtypes = dtypes,
	.ndtypes = 3,
	.variants = variants,
	.nvariants = 1,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
