/*
 * p_tp_mlp.c - tensor parallelism over an MLP block, column-parallel then
 * row-parallel (spec/patterns.md section 5.5, `tp_mlp`): Megatron's f and
 * g operators, one allreduce forward and one backward.
 *
 * Z = ReLU(X W1) W2 with X [B, H] replicated on the tp group, W1 [H, F]
 * split along dim 1 and W2 [F, H] along dim 0, rank r holding the index
 * range [r F/P, (r+1) F/P) of F in both, F = 2P. The loss is sum(C . Z).
 *
 * This file is the model the other patterns follow: inputs generated per
 * instance, every local computation a csref/pkern.h function, each rank's
 * results checked against the serial mirror of its whole instance.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"

enum { B = 4, H = 4, FPER = 2 }; /* F = FPER * P */
enum { T_X, T_W1, T_W2, T_C };   /* input tensors */

/* Rank q's share: W1 columns and W2 rows of its F range, the forward
 * partial Zq, and the backward partial dXq (and the local gradients). */
typedef struct share {
	void *w1, *w2;  /* [H, FPER], [FPER, H] */
	void *g;        /* G = ReLU(X W1q) [B, FPER] */
	void *z, *dh, *dx, *dw1, *dw2; /* [B,H] [B,FPER] [B,H] [H,FPER]
					  [FPER,H] */
} share_t;

/* The tensors of one instance: the full inputs, then per group rank its
 * share computed serially (the mirror). */
typedef struct inst {
	void *x, *w1, *w2, *c;
	share_t *sh; /* [P] */
	int P;
	char *arena;
} inst_t;

static void *take(char **p, size_t bytes)
{
	void *r = *p;
	*p += (bytes + 15) & ~(size_t)15;
	return r;
}

/* Rank q's local work, forward and backward (the function both runs use). */
static void local_work(cs_dtype_t d, const inst_t *in, int q, share_t *s)
{
	size_t F = (size_t)FPER * (size_t)in->P;
	size_t lo = (size_t)q * FPER;
	for (size_t h = 0; h < H; h++)
		for (size_t j = 0; j < FPER; j++) {
			cs_pk_set(d, s->w1, h * FPER + j,
				  cs_pk_get(d, in->w1, h * F + lo + j));
			cs_pk_set(d, s->w2, j * H + h,
				  cs_pk_get(d, in->w2, (lo + j) * H + h));
		}
	cs_pk_matmul(d, B, FPER, H, in->x, 0, s->w1, 0, s->g);
	cs_pk_relu(d, s->g, (size_t)B * FPER);
	cs_pk_matmul(d, B, H, FPER, s->g, 0, s->w2, 0, s->z);
	/* dH = (C W2q^T) . [G > 0]; dXq = dH W1q^T */
	cs_pk_matmul(d, B, FPER, H, in->c, 0, s->w2, 1, s->dh);
	cs_pk_relu_bwd(d, s->dh, s->g, (size_t)B * FPER);
	cs_pk_matmul(d, B, H, FPER, s->dh, 0, s->w1, 1, s->dx);
	/* dW1q = X^T dH, dW2q = G^T C */
	cs_pk_matmul(d, H, FPER, B, in->x, 1, s->dh, 0, s->dw1);
	cs_pk_matmul(d, FPER, H, B, s->g, 1, in->c, 0, s->dw2);
}

/* Build instance `inst` of P ranks: its inputs and every rank's share. */
static int inst_make(const cs_pctx_t *x, int inst, int P, inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), F = (size_t)FPER * (size_t)P;
	size_t per = 0;
	size_t bh = (size_t)B * H * w, bf = (size_t)B * FPER * w,
	       hf = (size_t)H * FPER * w;
	per = 2 * hf + bf + bh + bf + bh + 2 * hf + 16 * 8;
	size_t total = 2 * bh + 2 * (size_t)H * F * w + (size_t)P * per +
		       (size_t)P * sizeof(share_t) + 64 * 8;
	memset(in, 0, sizeof *in);
	in->arena = calloc(1, total);
	if (!in->arena)
		return 0;
	char *p = in->arena;
	in->P = P;
	in->sh = take(&p, (size_t)P * sizeof(share_t));
	in->x = take(&p, bh);
	in->c = take(&p, bh);
	in->w1 = take(&p, (size_t)H * F * w);
	in->w2 = take(&p, (size_t)H * F * w);
	cs_pat_fill(x, inst, T_X, 0, in->x, (size_t)B * H);
	cs_pat_fill(x, inst, T_C, 0, in->c, (size_t)B * H);
	cs_pat_fill(x, inst, T_W1, 0, in->w1, (size_t)H * F);
	cs_pat_fill(x, inst, T_W2, 0, in->w2, (size_t)H * F);
	for (int q = 0; q < P; q++) {
		share_t *s = &in->sh[q];
		s->w1 = take(&p, hf);
		s->w2 = take(&p, hf);
		s->g = take(&p, bf);
		s->z = take(&p, bh);
		s->dh = take(&p, bf);
		s->dx = take(&p, bh);
		s->dw1 = take(&p, hf);
		s->dw2 = take(&p, hf);
		local_work(d, in, q, s);
	}
	return 1;
}

static cs_status_t run(const cs_pctx_t *x)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), n = (size_t)B * H;
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	inst_t *in = calloc((size_t)L, sizeof *in);
	char *out = calloc((size_t)L, 2 * n * w + 16);
	if (!in || !out) {
		free(in);
		free(out);
		return cs_error(CS_ERR_NOMEM, "tp_mlp: buffers");
	}
	for (int i = 0; i < L; i++)
		if (!inst_make(x, x->rank[i].inst, x->rank[i].P, &in[i])) {
			st = cs_error(CS_ERR_NOMEM, "tp_mlp: instance");
			goto done;
		}
	/* Forward, g: Z = allreduce sum of the partials Zr. */
	for (int i = 0; i < L && st == CS_OK; i++) {
		cs_pcall_t c = {.coll = CS_COLL_ALLREDUCE, .dtype = d,
				.op = CS_OP_SUM, .count = n,
				.send = in[i].sh[x->rank[i].r].z,
				.recv = out + (size_t)i * 2 * n * w,
				.phase = CS_PHASE_FWD};
		st = cs_pport_call(x->port, i, &c);
	}
	/* Backward, f's backward: dX = allreduce sum of the partials dXr. */
	for (int i = 0; i < L && st == CS_OK; i++) {
		cs_pcall_t c = {.coll = CS_COLL_ALLREDUCE, .dtype = d,
				.op = CS_OP_SUM, .count = n,
				.send = in[i].sh[x->rank[i].r].dx,
				.recv = out + ((size_t)i * 2 + 1) * n * w,
				.phase = CS_PHASE_BWD};
		st = cs_pport_call(x->port, i, &c);
	}
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto done;
	for (int i = 0; i < L; i++) {
		const void *zs[CS_PAT_MAX_GROUP], *dxs[CS_PAT_MAX_GROUP];
		int P = x->rank[i].P;
		for (int q = 0; q < P; q++) {
			zs[q] = in[i].sh[q].z;
			dxs[q] = in[i].sh[q].dx;
		}
		cs_pchk_reduced(&x->chk[i], "Z (forward allreduce)", d,
				CS_OP_SUM, P, zs, out + (size_t)i * 2 * n * w,
				n);
		cs_pchk_reduced(&x->chk[i], "dX (backward allreduce)", d,
				CS_OP_SUM, P, dxs,
				out + ((size_t)i * 2 + 1) * n * w, n);
	}
done:
	for (int i = 0; i < L; i++)
		free(in[i].arena);
	free(in);
	free(out);
	return st;
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	(void)pat;
	(void)v;
	(void)seed;
	(void)grid;
	(void)g;
	return cs_pat_bytes_tp_mlp(B, H, (int)cs_dtype_size(d), bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_INT32};
static const char *const variants[] = {"mlp"};

const cs_pattern_t cs_pattern_tp_mlp = {
	.name = "tp_mlp",
	.desc = "tensor parallel MLP block: column then row parallel, one "
		"allreduce each way",
	.axis = CS_AXIS_TP,
	.dtypes = dtypes,
	.ndtypes = 3,
	.variants = variants,
	.nvariants = 1,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
