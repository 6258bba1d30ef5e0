/*
 * p_ulysses.c - Ulysses sequence parallelism (spec/patterns.md section
 * 5.7, `ulysses`): causal attention whose Q, K, V arrive sharded along the
 * sequence ([S/P, A, D] per rank) and are exchanged by all-to-all into a
 * head shard ([S, A_r, D]), attention on whole sequences, and the reverse
 * exchange of the output; the backward does the same with dO and with
 * dQ, dK, dV.
 *
 * S = 2P, D = 2, A in {P+1, max(1, P-1), 2P} (the variants), heads split
 * balanced (a rank may have none). alltoallv with cs_pat_ulysses_counts,
 * or alltoall when P divides A. Every received tensor and every local
 * output is checked bitwise against the serial mirror, which runs the same
 * attention functions (attn.h) on every rank's head shard cut directly
 * from the full tensors.
 */
#include <stdlib.h>
#include <string.h>
#include "attn.h"
#include "csref/pattern.h"
#include "csref/patterns.h"

enum { SPER = 2, D = 2 };           /* S = SPER * P */
enum { T_Q, T_K, T_V, T_DO };       /* input tensors, full [S, A, D] */
enum { Y_O, Y_DQ, Y_DK, Y_DV };     /* outputs, full [S, A, D] */

/* The heads of variant v on a group of P. */
static int heads_of(int v, int P)
{
	if (v == 0)
		return P + 1;
	if (v == 1)
		return P > 1 ? P - 1 : 1;
	return 2 * P;
}

/* One local rank: its instance's full tensors and mirror, and the
 * buffers of its own calls. */
typedef struct urank {
	int P, r, A, S, rows;  /* rows = S / P */
	int64_t *ah, *oh;      /* [P]: heads and first head of each rank */
	void *x[4], *y[4];     /* full inputs and mirror outputs [S, A, D] */
	void *hx[4], *hy[4];   /* one rank's head shard [S, A_q, D] */
	double *lse;           /* [S, max A_q] */
	void *in[4], *out[4];  /* received [S, A_r, D]; local outputs */
	double *lse_r;
	void *back[4];         /* head-to-sequence receive [S/P, A, D] */
	void *send, *want, *flat; /* scratch [S, A, D] */
	size_t *cnt[2][4];     /* [to_heads][sc, sd, rc, rd], P each */
	char *arena;
} urank_t;

/* The next 16-byte aligned piece of bytes at *off in base (NULL when
 * only measuring). */
static void *take(char *base, size_t *off, size_t bytes)
{
	void *r = base ? base + *off : NULL;
	*off += (bytes + 15) & ~(size_t)15;
	return r;
}

/* dst [rows, nh, D] = heads [h0, h0 + nh) of src [rows, A, D]. */
static void pack_heads(size_t w, const void *src, size_t rows, size_t A,
		       size_t h0, size_t nh, void *dst)
{
	for (size_t i = 0; i < rows; i++)
		memcpy((char *)dst + i * nh * D * w,
		       (const char *)src + (i * A + h0) * D * w, nh * D * w);
}

/* Heads [h0, h0 + nh) of dst [rows, A, D] = src [rows, nh, D]. */
static void unpack_heads(size_t w, const void *src, size_t rows, size_t A,
			 size_t h0, size_t nh, void *dst)
{
	for (size_t i = 0; i < rows; i++)
		memcpy((char *)dst + (i * A + h0) * D * w,
		       (const char *)src + i * nh * D * w, nh * D * w);
}

/* The serial mirror: every rank q's attention, forward and backward, on
 * its head shard, unpacked into the full outputs y. */
static void mirror(cs_dtype_t d, urank_t *u)
{
	size_t w = cs_dtype_size(d), S = (size_t)u->S, A = (size_t)u->A;
	for (int q = 0; q < u->P; q++) {
		size_t h0 = (size_t)u->oh[q], nh = (size_t)u->ah[q];
		for (int k = 0; k < 4; k++)
			pack_heads(w, u->x[k], S, A, h0, nh, u->hx[k]);
		(void)cs_attn_fwd(d, S, nh, D, u->hx[T_Q], u->hx[T_K],
				  u->hx[T_V], u->hy[Y_O], u->lse);
		(void)cs_attn_bwd(d, S, nh, D, u->hx[T_Q], u->hx[T_K],
				  u->hx[T_V], u->hy[Y_O], u->hx[T_DO], u->lse,
				  u->hy[Y_DQ], u->hy[Y_DK], u->hy[Y_DV]);
		for (int k = 0; k < 4; k++)
			unpack_heads(w, u->hy[k], S, A, h0, nh, u->y[k]);
	}
}

/* Rank r's counts and displacements for both directions, from the
 * spec's matrices (cs_pat_ulysses_counts into mu[P * P]). */
static void counts(urank_t *u, int64_t *mu)
{
	int P = u->P, r = u->r;
	for (int th = 0; th < 2; th++) {
		size_t **c = u->cnt[th], so = 0, ro = 0;
		(void)cs_pat_ulysses_counts(u->S, u->A, D, P, th, mu);
		for (int q = 0; q < P; q++) {
			c[0][q] = (size_t)mu[r * P + q];
			c[1][q] = so;
			so += c[0][q];
			c[2][q] = (size_t)mu[q * P + r];
			c[3][q] = ro;
			ro += c[2][q];
		}
	}
}

/* Lay out rank u's buffers in its arena (sizes only when base is NULL)
 * and return the bytes used. */
static size_t layout(urank_t *u, size_t w, char *base)
{
	size_t off = 0;
	size_t full = (size_t)u->S * u->A * D * w;
	size_t amax = (size_t)(u->A + u->P - 1) / (size_t)u->P;
	size_t shard = (size_t)u->S * amax * D * w;
	size_t P = (size_t)u->P;
	u->ah = take(base, &off, P * sizeof(int64_t));
	u->oh = take(base, &off, P * sizeof(int64_t));
	for (int k = 0; k < 4; k++) {
		u->x[k] = take(base, &off, full);
		u->y[k] = take(base, &off, full);
		u->hx[k] = take(base, &off, shard + w);
		u->hy[k] = take(base, &off, shard + w);
		u->in[k] = take(base, &off, shard + w);
		u->out[k] = take(base, &off, shard + w);
		u->back[k] = take(base, &off, full / P);
		u->cnt[0][k] = take(base, &off, P * sizeof(size_t));
		u->cnt[1][k] = take(base, &off, P * sizeof(size_t));
	}
	u->lse = take(base, &off, (size_t)u->S * amax * sizeof(double) + 8);
	u->lse_r = take(base, &off, (size_t)u->S * amax * sizeof(double) + 8);
	u->send = take(base, &off, full);
	u->want = take(base, &off, full);
	u->flat = take(base, &off, full);
	return off;
}

/* Set up local rank i: inputs, head split, mirror, counts. 0: no memory. */
static int urank_make(const cs_pctx_t *x, int i, urank_t *u)
{
	const cs_prank_t *rk = &x->rank[i];
	size_t w = cs_dtype_size(x->dtype);
	memset(u, 0, sizeof *u);
	u->P = rk->P;
	u->r = rk->r;
	u->A = heads_of(x->variant, rk->P);
	u->S = SPER * rk->P;
	u->rows = SPER;
	u->arena = calloc(1, layout(u, w, NULL) + 64);
	int64_t *mu = malloc((size_t)u->P * u->P * sizeof *mu);
	if (!u->arena || !mu) {
		free(mu);
		return 0;
	}
	(void)layout(u, w, u->arena);
	for (int q = 0; q < u->P; q++)
		(void)cs_pat_balanced(u->A, u->P, q, &u->ah[q], &u->oh[q]);
	for (int k = 0; k < 4; k++)
		cs_pat_fill(x, rk->inst, k, 0, u->x[k],
			    (size_t)u->S * u->A * D);
	mirror(x->dtype, u);
	counts(u, mu);
	free(mu);
	return 1;
}

/* Queue local rank i's exchange of one tensor, send to recv:
 * sequence-to-head when to_heads, else head-to-sequence; an alltoall when
 * P divides A (every block the same size), else an alltoallv. */
static cs_status_t queue(const cs_pctx_t *x, int i, const urank_t *u,
			 int to_heads, const void *send, void *recv,
			 cs_pphase_t ph)
{
	cs_pcall_t c = {.coll = CS_COLL_ALLTOALLV, .dtype = x->dtype,
			.send = send, .recv = recv, .phase = ph};
	if (u->A % u->P == 0) {
		c.coll = CS_COLL_ALLTOALL;
		c.count = (size_t)u->rows * (size_t)(u->A / u->P) * D;
	} else {
		size_t *const *k = u->cnt[to_heads];
		c.sendcounts = k[0];
		c.sdispls = k[1];
		c.recvcounts = k[2];
		c.rdispls = k[3];
	}
	return cs_pport_call(x->port, i, &c);
}

/* Queue rank u's sequence-to-head exchange of input tensor t: its rows,
 * block q holding rank q's heads. */
static cs_status_t queue_s2h(const cs_pctx_t *x, int i, urank_t *u, int t,
			     cs_pphase_t ph)
{
	size_t w = cs_dtype_size(x->dtype), rows = (size_t)u->rows;
	const char *mine = (const char *)u->x[t] +
			   (size_t)u->r * rows * u->A * D * w;
	for (int q = 0; q < u->P; q++)
		pack_heads(w, mine, rows, (size_t)u->A, (size_t)u->oh[q],
			   (size_t)u->ah[q],
			   (char *)u->send + u->cnt[1][1][q] * w);
	return queue(x, i, u, 1, u->send, u->in[t], ph);
}

/* Check `got`, rank u's heads over the whole sequence ([S, A_r, D]: a
 * received input or a local output), against those heads of the mirror's
 * full tensor. */
static void check_heads(const cs_pctx_t *x, int i, urank_t *u,
			const char *what, const void *got, const void *full)
{
	size_t w = cs_dtype_size(x->dtype), ar = (size_t)u->ah[u->r];
	pack_heads(w, full, (size_t)u->S, (size_t)u->A, (size_t)u->oh[u->r],
		   ar, u->want);
	cs_pchk_bits(&x->chk[i], what, x->dtype, got, u->want,
		     (size_t)u->S * ar * D);
}

/* Check rank u's head-to-sequence result k: blocks in source order,
 * unpacked into its rows of every head, against the mirror's rows. */
static void check_rows(const cs_pctx_t *x, int i, urank_t *u,
		       const char *what, int k)
{
	size_t w = cs_dtype_size(x->dtype), rows = (size_t)u->rows;
	size_t row_el = (size_t)u->A * D;
	for (int q = 0; q < u->P; q++)
		unpack_heads(w, (const char *)u->back[k] + u->cnt[0][3][q] * w,
			     rows, (size_t)u->A, (size_t)u->oh[q],
			     (size_t)u->ah[q], u->flat);
	cs_pchk_bits(&x->chk[i], what, x->dtype, u->flat,
		     (const char *)u->y[k] + (size_t)u->r * rows * row_el * w,
		     rows * row_el);
}

/* Local rank i's attention forward on its received head shard, checked
 * with its inputs against the mirror. */
static void local_fwd(const cs_pctx_t *x, int i, urank_t *u)
{
	static const char *const name[3] = {"Q after sequence-to-head",
					    "K after sequence-to-head",
					    "V after sequence-to-head"};
	size_t ar = (size_t)u->ah[u->r];
	for (int t = T_Q; t <= T_V; t++)
		check_heads(x, i, u, name[t], u->in[t], u->x[t]);
	(void)cs_attn_fwd(x->dtype, (size_t)u->S, ar, D, u->in[T_Q],
			  u->in[T_K], u->in[T_V], u->out[Y_O], u->lse_r);
	check_heads(x, i, u, "O of the rank's heads", u->out[Y_O],
		    u->y[Y_O]);
}

/* Local rank i's attention backward, checked likewise. */
static void local_bwd(const cs_pctx_t *x, int i, urank_t *u)
{
	static const char *const name[4] = {NULL, "dQ of the rank's heads",
					    "dK of the rank's heads",
					    "dV of the rank's heads"};
	size_t ar = (size_t)u->ah[u->r];
	check_heads(x, i, u, "dO after sequence-to-head", u->in[T_DO],
		    u->x[T_DO]);
	(void)cs_attn_bwd(x->dtype, (size_t)u->S, ar, D, u->in[T_Q],
			  u->in[T_K], u->in[T_V], u->out[Y_O], u->in[T_DO],
			  u->lse_r, u->out[Y_DQ], u->out[Y_DK], u->out[Y_DV]);
	for (int k = Y_DQ; k <= Y_DV; k++)
		check_heads(x, i, u, name[k], u->out[k], u->y[k]);
}

static cs_status_t run(const cs_pctx_t *x)
{
	static const char *const back[4] = {
	    "O after head-to-sequence", "dQ after head-to-sequence",
	    "dK after head-to-sequence", "dV after head-to-sequence"};
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	urank_t *u = calloc((size_t)L, sizeof *u);
	if (!u)
		return cs_error(CS_ERR_NOMEM, "ulysses: ranks");
	for (int i = 0; i < L; i++)
		if (!urank_make(x, i, &u[i])) {
			st = cs_error(CS_ERR_NOMEM, "ulysses: rank buffers");
			goto out_free;
		}
	/* Forward: Q, K, V sequence-to-head. */
	for (int i = 0; i < L && st == CS_OK; i++)
		for (int t = T_Q; t <= T_V && st == CS_OK; t++)
			st = queue_s2h(x, i, &u[i], t, CS_PHASE_FWD);
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto out_free;
	/* Attention; O head-to-sequence; backward: dO sequence-to-head. */
	for (int i = 0; i < L && st == CS_OK; i++) {
		local_fwd(x, i, &u[i]);
		st = queue(x, i, &u[i], 0, u[i].out[Y_O], u[i].back[Y_O],
			   CS_PHASE_FWD);
		if (st == CS_OK)
			st = queue_s2h(x, i, &u[i], T_DO, CS_PHASE_BWD);
	}
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto out_free;
	/* Attention backward; dQ, dK, dV head-to-sequence. */
	for (int i = 0; i < L && st == CS_OK; i++) {
		check_rows(x, i, &u[i], back[Y_O], Y_O);
		local_bwd(x, i, &u[i]);
		for (int k = Y_DQ; k <= Y_DV && st == CS_OK; k++)
			st = queue(x, i, &u[i], 0, u[i].out[k], u[i].back[k],
				   CS_PHASE_BWD);
	}
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto out_free;
	for (int i = 0; i < L; i++)
		for (int k = Y_DQ; k <= Y_DV; k++)
			check_rows(x, i, &u[i], back[k], k);
out_free:
	for (int i = 0; i < L; i++)
		free(u[i].arena);
	free(u);
	return st;
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	cs_prank_t rk;
	(void)seed;
	cs_status_t st = cs_pattern_rank(pat, grid, g, &rk);
	if (st != CS_OK)
		return st;
	return cs_pat_bytes_ulysses((int64_t)SPER * rk.P, heads_of(v, rk.P),
				    D, rk.P, rk.r, (int)cs_dtype_size(d),
				    bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_FLOAT16};
static const char *const variants[] = {"heads-p+1", "heads-p-1",
				       "heads-2p"};

const cs_pattern_t cs_pattern_ulysses = {
	.name = "ulysses",
	.desc = "Ulysses: all-to-all from sequence to head shards and back, "
		"causal attention forward and backward",
	.axis = CS_AXIS_CP,
	.dtypes = dtypes,
	.ndtypes = 3,
	.variants = variants,
	.nvariants = 3,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
