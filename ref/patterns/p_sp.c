/*
 * p_sp.c - Megatron sequence parallelism (spec/patterns.md section 5.6,
 * `sp`): the MLP block of section 5.5 with activations sequence-major,
 * [S, B, H], sharded along the sequence outside the block. Each allreduce
 * of tp_mlp becomes an allgather before the block and a reducescatter
 * after it, forward and backward.
 *
 * Z = ReLU(X W1) W2 with W1 [H, F] split along dim 1, W2 [F, H] along
 * dim 0 (rank r holds the range [r F/P, (r+1) F/P) of F in both, F = 2P)
 * and X [S, B, H], S = 2P, B = 1, of which rank r holds the rows
 * [r S/P, (r+1) S/P). The loss is sum(C . Z): dZ = C, sharded like X.
 * Calls, in order: allgather X (fwd), reducescatter of the partials
 * Zr = ReLU(X W1r) W2r (fwd), allgather dZ (bwd), reducescatter of the
 * partials dXr = ((dZ W2r^T) . [Gr > 0]) W1r^T (bwd). A rank computes its
 * partials and its weight gradients from what it received, so a gather
 * that delivers the wrong rows shows in everything after it.
 *
 * Inputs (cs_pat_fill's tensor numbers, part of this file's contract:
 * test_pat_tp regenerates them): 0 X [S, B, H], 1 W1 [H, F], 2 W2 [F, H],
 * 3 C [S, B, H], all generated whole (q = 0); rank r's shard of X and C
 * is its rows.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"

enum { SPER = 2, B = 1, H = 4, FPER = 2 }; /* S = SPER P, F = FPER P */
enum { T_X, T_W1, T_W2, T_C };             /* input tensors */

/* Rank q's weights and what it computes: partials over all S B rows. */
typedef struct share {
	void *w1, *w2;      /* W1q [H, FPER], W2q [FPER, H] */
	void *g, *z;        /* Gq = ReLU(X W1q) [SB, FPER], Zq [SB, H] */
	void *dh, *dx;      /* dHq [SB, FPER], the partial dXq [SB, H] */
	void *dw1, *dw2;    /* X^T dHq [H, FPER], Gq^T dZ [FPER, H] */
} share_t;

/* One instance: the full inputs and every group rank's share (the serial
 * run), then what each local rank receives. */
typedef struct inst {
	void *x, *w1, *w2, *c; /* [SB, H], [H, F], [F, H], [SB, H] */
	share_t *sh;           /* [P] */
	share_t mine;          /* the local rank's own, from received data */
	void *xg, *zs, *dzg, *dxs; /* received: X [SB, H], Z rows [SB/P, H],
				      dZ [SB, H], dX rows [SB/P, H] */
	int P;
	char *arena;
} inst_t;

static void *take(char **p, size_t bytes)
{
	void *r = *p;
	*p += (bytes + 15) & ~(size_t)15;
	return r;
}

/* Rank q's slices of W1 (columns) and W2 (rows), bit copies. */
static void weights(size_t w, const inst_t *in, int q, share_t *s)
{
	size_t F = (size_t)FPER * (size_t)in->P, lo = (size_t)q * FPER;
	for (size_t h = 0; h < H; h++)
		memcpy((char *)s->w1 + h * FPER * w,
		       (const char *)in->w1 + (h * F + lo) * w, FPER * w);
	memcpy(s->w2, (const char *)in->w2 + lo * H * w, (size_t)FPER * H * w);
}

/* Forward of one rank from the whole X [rows, H]: Gq, then the partial
 * Zq (both runs call it). */
static void forward(cs_dtype_t d, size_t rows, const void *x, share_t *s)
{
	cs_pk_matmul(d, rows, FPER, H, x, 0, s->w1, 0, s->g);
	cs_pk_relu(d, s->g, rows * FPER);
	cs_pk_matmul(d, rows, H, FPER, s->g, 0, s->w2, 0, s->z);
}

/* Backward of one rank from the whole X and dZ [rows, H]: dHq, the
 * partial dXq and the weight gradients (both runs call it). */
static void backward(cs_dtype_t d, size_t rows, const void *x,
		     const void *dz, share_t *s)
{
	cs_pk_matmul(d, rows, FPER, H, dz, 0, s->w2, 1, s->dh);
	cs_pk_relu_bwd(d, s->dh, s->g, rows * FPER);
	cs_pk_matmul(d, rows, H, FPER, s->dh, 0, s->w1, 1, s->dx);
	cs_pk_matmul(d, H, FPER, rows, x, 1, s->dh, 0, s->dw1);
	cs_pk_matmul(d, FPER, H, rows, s->g, 1, dz, 0, s->dw2);
}

/* Carve one share's buffers (weights included when `own_w`). */
static void share_take(char **p, size_t w, size_t rows, int own_w,
		       share_t *s)
{
	size_t hp = (size_t)H * FPER * w;
	if (own_w) {
		s->w1 = take(p, hp);
		s->w2 = take(p, hp);
	}
	s->g = take(p, rows * FPER * w);
	s->z = take(p, rows * H * w);
	s->dh = take(p, rows * FPER * w);
	s->dx = take(p, rows * H * w);
	s->dw1 = take(p, hp);
	s->dw2 = take(p, hp);
}

/* Build instance `inst` of P ranks for group rank r: inputs, the serial
 * run of every rank, and room for what rank r receives and computes. 0
 * when out of memory. */
static int inst_make(const cs_pctx_t *x, int inst, int P, int r, inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), F = (size_t)FPER * (size_t)P;
	size_t rows = (size_t)SPER * (size_t)P * B, rh = rows * H * w;
	size_t share = 2 * (size_t)H * FPER * w +
		       2 * rows * ((size_t)FPER + H) * w +
		       2 * (size_t)H * FPER * w + 8 * 16;
	size_t total = 2 * rh + 2 * (size_t)H * F * w +
		       (size_t)(P + 1) * share + (size_t)P * sizeof(share_t) +
		       4 * rh + 16 * 16;
	memset(in, 0, sizeof *in);
	in->arena = calloc(1, total);
	if (!in->arena)
		return 0;
	char *p = in->arena;
	in->P = P;
	in->sh = take(&p, (size_t)P * sizeof(share_t));
	in->x = take(&p, rh);
	in->c = take(&p, rh);
	in->w1 = take(&p, (size_t)H * F * w);
	in->w2 = take(&p, (size_t)H * F * w);
	cs_pat_fill(x, inst, T_X, 0, in->x, rows * H);
	cs_pat_fill(x, inst, T_W1, 0, in->w1, (size_t)H * F);
	cs_pat_fill(x, inst, T_W2, 0, in->w2, (size_t)H * F);
	cs_pat_fill(x, inst, T_C, 0, in->c, rows * H);
	for (int q = 0; q < P; q++) {
		share_t *s = &in->sh[q];
		share_take(&p, w, rows, 1, s);
		weights(w, in, q, s);
		forward(d, rows, in->x, s);
		backward(d, rows, in->x, in->c, s);
	}
	share_take(&p, w, rows, 0, &in->mine);
	in->mine.w1 = in->sh[r].w1;
	in->mine.w2 = in->sh[r].w2;
	in->xg = take(&p, rh);
	in->zs = take(&p, rh / (size_t)P);
	in->dzg = take(&p, rh);
	in->dxs = take(&p, rh / (size_t)P);
	return 1;
}

/* Queue one call of local rank i; count is per block (S/P B H). */
static cs_status_t call(const cs_pctx_t *x, int i, cs_coll_t coll,
			const void *send, void *recv, cs_pphase_t ph)
{
	cs_pcall_t c = {.coll = coll, .dtype = x->dtype, .op = CS_OP_SUM,
			.count = (size_t)SPER * B * H, .send = send,
			.recv = recv, .phase = ph};
	return cs_pport_call(x->port, i, &c);
}

/* Rank r's rows of a [SB, H] tensor. */
static const void *rows_of(const cs_pctx_t *x, const void *t, int r)
{
	size_t w = cs_dtype_size(x->dtype);
	return (const char *)t + (size_t)r * SPER * B * H * w;
}

/* Check local rank i's results against its instance's serial run. */
static void check(const cs_pctx_t *x, int i, const inst_t *in)
{
	cs_dtype_t d = x->dtype;
	cs_pcheck_t *k = &x->chk[i];
	int P = in->P, r = x->rank[i].r;
	size_t rows = (size_t)SPER * (size_t)P * B, n = (size_t)SPER * B * H;
	const void *zs[CS_PAT_MAX_GROUP], *dxs[CS_PAT_MAX_GROUP];
	for (int q = 0; q < P; q++) {
		zs[q] = rows_of(x, in->sh[q].z, r);
		dxs[q] = rows_of(x, in->sh[q].dx, r);
	}
	cs_pchk_bits(k, "X (forward allgather along the sequence)", d, in->xg,
		     in->x, rows * H);
	cs_pchk_reduced(k, "Z rows (forward reducescatter)", d, CS_OP_SUM, P,
			zs, in->zs, n);
	cs_pchk_bits(k, "dZ (backward allgather along the sequence)", d,
		     in->dzg, in->c, rows * H);
	cs_pchk_reduced(k, "dX rows (backward reducescatter)", d, CS_OP_SUM,
			P, dxs, in->dxs, n);
	cs_pchk_bits(k, "dW1 (from the gathered X)", d, in->mine.dw1,
		     in->sh[r].dw1, (size_t)H * FPER);
	cs_pchk_bits(k, "dW2 (from the gathered dZ)", d, in->mine.dw2,
		     in->sh[r].dw2, (size_t)H * FPER);
}

/* The three rounds of calls; each rank's local work between them uses
 * only what it received. CS_OK when every run succeeded. */
static cs_status_t rounds(const cs_pctx_t *x, inst_t *in)
{
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	for (int i = 0; i < L && st == CS_OK; i++)
		st = call(x, i, CS_COLL_ALLGATHER, rows_of(x, in[i].x,
			  x->rank[i].r), in[i].xg, CS_PHASE_FWD);
	if (st != CS_OK || (st = cs_pport_run(x->port)) != CS_OK)
		return st;
	for (int i = 0; i < L && st == CS_OK; i++) {
		size_t rows = (size_t)SPER * (size_t)in[i].P * B;
		forward(x->dtype, rows, in[i].xg, &in[i].mine);
		st = call(x, i, CS_COLL_REDUCESCATTER, in[i].mine.z, in[i].zs,
			  CS_PHASE_FWD);
		if (st == CS_OK)
			st = call(x, i, CS_COLL_ALLGATHER, rows_of(x, in[i].c,
				  x->rank[i].r), in[i].dzg, CS_PHASE_BWD);
	}
	if (st != CS_OK || (st = cs_pport_run(x->port)) != CS_OK)
		return st;
	for (int i = 0; i < L && st == CS_OK; i++) {
		size_t rows = (size_t)SPER * (size_t)in[i].P * B;
		backward(x->dtype, rows, in[i].xg, in[i].dzg, &in[i].mine);
		st = call(x, i, CS_COLL_REDUCESCATTER, in[i].mine.dx,
			  in[i].dxs, CS_PHASE_BWD);
	}
	if (st != CS_OK)
		return st;
	return cs_pport_run(x->port);
}

static cs_status_t run(const cs_pctx_t *x)
{
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	inst_t *in = calloc((size_t)L, sizeof *in);
	if (!in)
		return cs_error(CS_ERR_NOMEM, "sp: buffers");
	for (int i = 0; i < L; i++)
		if (!inst_make(x, x->rank[i].inst, x->rank[i].P, x->rank[i].r,
			       &in[i])) {
			st = cs_error(CS_ERR_NOMEM, "sp: instance");
			goto done;
		}
	/* A failed run has set the verdicts: return without checking. */
	if (rounds(x, in) != CS_OK)
		goto done;
	for (int i = 0; i < L; i++)
		check(x, i, &in[i]);
done:
	for (int i = 0; i < L; i++)
		free(in[i].arena);
	free(in);
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
	return cs_pat_bytes_sp((int64_t)SPER * P, B, H, P,
			       (int)cs_dtype_size(d), bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_INT32};
static const char *const variants[] = {"sp"};

const cs_pattern_t cs_pattern_sp = {
	.name = "sp",
	.desc = "Megatron sequence parallel MLP block: allgather along the "
		"sequence before, reducescatter after, both ways",
	.axis = CS_AXIS_TP,
	.dtypes = dtypes,
	.ndtypes = 3,
	.variants = variants,
	.nvariants = 1,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
