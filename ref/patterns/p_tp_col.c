/*
 * p_tp_col.c - tensor parallelism, a column-parallel linear layer with its
 * output gathered (spec/patterns.md section 5.4, `tp_col`): Megatron's
 * gather_output, one allgather forward and one allreduce backward.
 *
 * Y = X W with X [B, H] replicated on the tp group and W [H, F] split
 * along dim 1, rank r holding the columns [r F/P, (r+1) F/P), F = 2P. The
 * allgather concatenates the blocks Yr [B, F/P] along dim 0 ([P, B, F/P]);
 * the full output is their local transpose into dim 1,
 * Y[i][q F/P + j] = block_q[i][j]. That transpose is what this pattern
 * checks: the gathered Y must equal, bit for bit, the serial X W computed
 * without any split (each element is the same length-H loop either way).
 * The loss is sum(C . Y): dY = C, and the replicated input's gradient
 * dX = sum_q Cq Wq^T is an allreduce of the partials.
 *
 * Inputs (cs_pat_fill's tensor numbers, part of this file's contract:
 * test_pat_tp regenerates them): 0 X [B, H], 1 W [H, F], 2 C [B, F], all
 * replicated (q = 0).
 */
#include <stdlib.h>
#include <string.h>
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"

enum { B = 4, H = 4, FPER = 2 }; /* F = FPER * P */
enum { T_X, T_W, T_C };          /* input tensors */

/* Rank q's share: its columns of W and C, and what it computes from them. */
typedef struct share {
	void *w, *dy;  /* Wq [H, FPER], dYq = Cq [B, FPER] */
	void *y;       /* Yq = X Wq [B, FPER] */
	void *dx;      /* the partial dXq = dYq Wq^T [B, H] */
} share_t;

/* One instance: the full inputs, the serial Y, every group rank's share. */
typedef struct inst {
	void *x, *w, *c; /* [B, H], [H, F], [B, F] */
	void *y;         /* serial Y = X W [B, F], unsplit */
	share_t *sh;     /* [P] */
	int P;
	char *arena;
} inst_t;

static void *take(char **p, size_t bytes)
{
	void *r = *p;
	*p += (bytes + 15) & ~(size_t)15;
	return r;
}

/* dst [rows, n] = columns [lo, lo + n) of src [rows, cols] (a bit copy). */
static void cols_slice(size_t w, const void *src, size_t rows, size_t cols,
		       size_t lo, size_t n, void *dst)
{
	for (size_t i = 0; i < rows; i++)
		memcpy((char *)dst + i * n * w,
		       (const char *)src + (i * cols + lo) * w, n * w);
}

/* Y [B, P*FPER] from the gathered blocks [P, B, FPER]: block q's row i
 * becomes columns [q FPER, (q+1) FPER) of Y's row i. */
static void blocks_to_cols(size_t w, int P, const void *blocks, void *y)
{
	size_t F = (size_t)FPER * (size_t)P;
	for (int q = 0; q < P; q++)
		for (size_t i = 0; i < B; i++)
			memcpy((char *)y + (i * F + (size_t)q * FPER) * w,
			       (const char *)blocks +
				   (((size_t)q * B + i) * FPER) * w,
			       FPER * w);
}

/* Rank q's local work, forward and backward (both runs call it). The
 * weight gradient dWq = X^T dYq uses no received value: no backend can
 * make it wrong, so it is not computed (spec section 5.4). */
static void local_work(cs_dtype_t d, const inst_t *in, int q, share_t *s)
{
	size_t w = cs_dtype_size(d), F = (size_t)FPER * (size_t)in->P;
	cols_slice(w, in->w, H, F, (size_t)q * FPER, FPER, s->w);
	cols_slice(w, in->c, B, F, (size_t)q * FPER, FPER, s->dy);
	cs_pk_matmul(d, B, FPER, H, in->x, 0, s->w, 0, s->y);
	cs_pk_matmul(d, B, H, FPER, s->dy, 0, s->w, 1, s->dx);
}

/* Build instance `inst` of P ranks: its inputs, the serial Y and every
 * rank's share. 0 when out of memory. */
static int inst_make(const cs_pctx_t *x, int inst, int P, inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), F = (size_t)FPER * (size_t)P;
	size_t bh = (size_t)B * H * w, bf = (size_t)B * F * w,
	       hf = (size_t)H * F * w, bp = (size_t)B * FPER * w,
	       hp = (size_t)H * FPER * w;
	size_t per = hp + 2 * bp + bh + 4 * 16;
	size_t total = bh + hf + 2 * bf + (size_t)P * per +
		       (size_t)P * sizeof(share_t) + 8 * 16;
	memset(in, 0, sizeof *in);
	in->arena = calloc(1, total);
	if (!in->arena)
		return 0;
	char *p = in->arena;
	in->P = P;
	in->sh = take(&p, (size_t)P * sizeof(share_t));
	in->x = take(&p, bh);
	in->w = take(&p, hf);
	in->c = take(&p, bf);
	in->y = take(&p, bf);
	cs_pat_fill(x, inst, T_X, 0, in->x, (size_t)B * H);
	cs_pat_fill(x, inst, T_W, 0, in->w, (size_t)H * F);
	cs_pat_fill(x, inst, T_C, 0, in->c, (size_t)B * F);
	cs_pk_matmul(d, B, F, H, in->x, 0, in->w, 0, in->y);
	for (int q = 0; q < P; q++) {
		share_t *s = &in->sh[q];
		s->w = take(&p, hp);
		s->dy = take(&p, bp);
		s->y = take(&p, bp);
		s->dx = take(&p, bh);
		local_work(d, in, q, s);
	}
	return 1;
}

/* What one local rank receives: the gathered blocks, its Y rebuilt from
 * them, and the reduced dX. */
typedef struct got {
	void *blocks, *y, *dx;
} got_t;

/* Queue local rank i's two calls: allgather Yr (fwd), allreduce dXr
 * (bwd). Both send what the rank computed itself: its share. */
static cs_status_t queue(const cs_pctx_t *x, int i, const inst_t *in,
			 const got_t *g)
{
	const share_t *s = &in->sh[x->rank[i].r];
	cs_pcall_t ag = {.coll = CS_COLL_ALLGATHER, .dtype = x->dtype,
			 .op = CS_OP_SUM, .count = (size_t)B * FPER,
			 .send = s->y, .recv = g->blocks,
			 .phase = CS_PHASE_FWD};
	cs_pcall_t ar = {.coll = CS_COLL_ALLREDUCE, .dtype = x->dtype,
			 .op = CS_OP_SUM, .count = (size_t)B * H,
			 .send = s->dx, .recv = g->dx, .phase = CS_PHASE_BWD};
	cs_status_t st = cs_pport_call(x->port, i, &ag);
	return st == CS_OK ? cs_pport_call(x->port, i, &ar) : st;
}

/* Check local rank i's results against its instance's serial run. */
static void check(const cs_pctx_t *x, int i, const inst_t *in,
		  const got_t *g)
{
	cs_dtype_t d = x->dtype;
	int P = in->P;
	size_t F = (size_t)FPER * (size_t)P;
	const void *dxs[CS_PAT_MAX_GROUP];
	blocks_to_cols(cs_dtype_size(d), P, g->blocks, g->y);
	cs_pchk_bits(&x->chk[i], "Y (allgather, blocks into dim 1)", d, g->y,
		     in->y, (size_t)B * F);
	for (int q = 0; q < P; q++)
		dxs[q] = in->sh[q].dx;
	cs_pchk_reduced(&x->chk[i], "dX (backward allreduce)", d, CS_OP_SUM,
			P, dxs, g->dx, (size_t)B * H);
}

static cs_status_t run(const cs_pctx_t *x)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d);
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	inst_t *in = calloc((size_t)L, sizeof *in);
	got_t *g = calloc((size_t)L, sizeof *g);
	if (!in || !g) {
		free(in);
		free(g);
		return cs_error(CS_ERR_NOMEM, "tp_col: buffers");
	}
	for (int i = 0; i < L; i++) {
		size_t n = (size_t)B * FPER * (size_t)x->rank[i].P;
		g[i].blocks = calloc(1, 2 * n * w + (size_t)B * H * w);
		if (!g[i].blocks ||
		    !inst_make(x, x->rank[i].inst, x->rank[i].P, &in[i])) {
			st = cs_error(CS_ERR_NOMEM, "tp_col: instance");
			goto done;
		}
		g[i].y = (char *)g[i].blocks + n * w;
		g[i].dx = (char *)g[i].y + n * w;
	}
	for (int i = 0; i < L && st == CS_OK; i++)
		st = queue(x, i, &in[i], &g[i]);
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto done;
	for (int i = 0; i < L; i++)
		check(x, i, &in[i], &g[i]);
done:
	for (int i = 0; i < L; i++) {
		free(in[i].arena);
		free(g[i].blocks);
	}
	free(in);
	free(g);
	return st;
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	(void)v;
	(void)seed;
	(void)g;
	int P = cs_grid_axis_size(grid, pat->axis);
	return cs_pat_bytes_tp_col(B, H, (int64_t)FPER * P, P,
				   (int)cs_dtype_size(d), bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_INT32};
static const char *const variants[] = {"col"};

const cs_pattern_t cs_pattern_tp_col = {
	.name = "tp_col",
	.desc = "tensor parallel column linear: allgather of the output "
		"blocks into dim 1, allreduce of the input gradient",
	.axis = CS_AXIS_TP,
	.dtypes = dtypes,
	.ndtypes = 3,
	.variants = variants,
	.nvariants = 1,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
