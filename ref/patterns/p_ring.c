/*
 * p_ring.c - context-parallel ring attention (spec/patterns.md section
 * 5.8, `ring`): causal attention over S = 2Pc positions in 2P chunks of c,
 * rank r holding chunks r and 2P-1-r of Q, K, V (causal load balancing).
 * The K, V shards travel the ring (to r+1, from r-1) in P-1 sendrecvs of
 * one buffer; at each step a rank attends its query chunks to the chunks
 * it holds and merges the blocks by log-sum-exp (attn.h). Forward only.
 *
 * c = 2, A = 2, D = 4. Checks, bitwise: every K, V buffer a rank receives
 * (it must be rank (r - i) mod P's at step i), and its output against the
 * serial mirror, which runs the same steps on the same chunks cut from the
 * full tensors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attn.h"
#include "csref/pattern.h"
#include "csref/patterns.h"

enum { C = 2, A = 2, D = 4 };   /* chunk length, heads, head dimension */
enum { T_Q, T_K, T_V };         /* input tensors, full [2PC, A, D] */
enum { CHUNK = C * A * D };     /* elements of one chunk of one tensor */

/* One local rank: its instance's tensors and mirror, and its ring. */
typedef struct rrank {
	int P, r;
	void *full[3];   /* Q, K, V [2PC, A, D] */
	void *qs, *kv;   /* per rank q: Q [2C, A, D] at q 2 CHUNK; K then V
			    [4C, A, D] at q 4 CHUNK (its two chunks each) */
	void *want;      /* per rank q: the mirror's output [2C, A, D] */
	void *held[2];   /* the K, V buffer held and the one arriving */
	void *o;         /* this rank's output [2C, A, D] */
	double *mem;     /* ring state (attn.h) */
	cs_attn_ring_t ring;
	char *arena;
} rrank_t;

/* Rank q's two chunks of tensor t into dst [2C, A, D]. */
static void pack_chunks(size_t w, int P, int q, const void *full, void *dst)
{
	int ch[2];
	(void)cs_pat_ring_chunks(P, q, ch);
	for (int k = 0; k < 2; k++)
		memcpy((char *)dst + (size_t)k * CHUNK * w,
		       (const char *)full + (size_t)ch[k] * CHUNK * w,
		       CHUNK * w);
}

/* Every rank's Q and K, V shards, as each rank holds them. */
static void pack_all(size_t w, rrank_t *u)
{
	for (int q = 0; q < u->P; q++) {
		char *kv = (char *)u->kv + (size_t)q * 4 * CHUNK * w;
		pack_chunks(w, u->P, q, u->full[T_Q],
			    (char *)u->qs + (size_t)q * 2 * CHUNK * w);
		pack_chunks(w, u->P, q, u->full[T_K], kv);
		pack_chunks(w, u->P, q, u->full[T_V], kv + 2 * CHUNK * w);
	}
}

/* Step i of rank q's ring with the K, V shard kv it holds. */
static void ring_step(rrank_t *u, int q, int i, const void *Q,
		      const void *kv)
{
	int src, kch[2];
	(void)cs_pat_ring_source(u->P, q, i, &src);
	(void)cs_pat_ring_chunks(u->P, src, kch);
	cs_attn_ring_step(&u->ring, Q, kch, kv);
}

/* Set up the ring state of rank q. */
static void ring_start(cs_dtype_t d, rrank_t *u, int q)
{
	int qch[2];
	(void)cs_pat_ring_chunks(u->P, q, qch);
	(void)cs_attn_ring_init(&u->ring, d, C, A, D, qch, u->mem);
}

/* The serial mirror: every rank q's steps on the shards of its sources,
 * output into want. */
static void mirror(cs_dtype_t d, rrank_t *u)
{
	size_t w = cs_dtype_size(d);
	for (int q = 0; q < u->P; q++) {
		const char *Q = (const char *)u->qs + (size_t)q * 2 * CHUNK * w;
		ring_start(d, u, q);
		for (int i = 0; i < u->P; i++) {
			int src;
			(void)cs_pat_ring_source(u->P, q, i, &src);
			ring_step(u, q, i, Q,
				  (const char *)u->kv +
				      (size_t)src * 4 * CHUNK * w);
		}
		char *out = (char *)u->want + (size_t)q * 2 * CHUNK * w;
		cs_attn_ring_finish(&u->ring, out);
	}
}

/* Set up local rank i: inputs, shards, mirror, its own ring. 0: no
 * memory. */
static int rrank_make(const cs_pctx_t *x, int i, rrank_t *u)
{
	size_t w = cs_dtype_size(x->dtype);
	memset(u, 0, sizeof *u);
	u->P = x->rank[i].P;
	u->r = x->rank[i].r;
	size_t P = (size_t)u->P, full = 2 * P * CHUNK * w;
	size_t ndbl = cs_attn_ring_doubles(C, A, D);
	/* Q, K, V, the Q shards, the K, V shards, the mirror's outputs;
	 * the two held buffers and the output; the ring state. */
	u->arena = calloc(1, 7 * full + 10 * CHUNK * w +
				 ndbl * sizeof(double) + 64);
	if (!u->arena)
		return 0;
	char *p = u->arena;
	u->mem = (double *)p;
	p += (ndbl * sizeof(double) + 15) & ~(size_t)15;
	for (int t = 0; t < 3; t++, p += full)
		u->full[t] = p;
	u->qs = p;
	p += full;
	u->kv = p;
	p += 2 * full;
	u->want = p;
	p += full;
	u->held[0] = p;
	u->held[1] = p + 4 * CHUNK * w;
	u->o = p + 8 * CHUNK * w;
	for (int t = 0; t < 3; t++)
		cs_pat_fill(x, x->rank[i].inst, t, 0, u->full[t],
			    2 * P * CHUNK);
	pack_all(w, u);
	mirror(x->dtype, u);
	return 1;
}

/* Queue local rank i's sendrecv of the K, V it holds. */
static cs_status_t queue_pass(const cs_pctx_t *x, int i, rrank_t *u,
			      int cur)
{
	cs_pcall_t c = {.coll = CS_COLL_SENDRECV, .dtype = x->dtype,
			.count = 4 * CHUNK, .send = u->held[cur],
			.recv = u->held[!cur], .phase = CS_PHASE_FWD};
	return cs_pport_call(x->port, i, &c);
}

/* The K, V local rank i holds at step i must be rank (r - step)'s. */
static void check_held(const cs_pctx_t *x, int i, rrank_t *u, int step,
		       int cur)
{
	char what[64];
	int src;
	size_t w = cs_dtype_size(x->dtype);
	(void)cs_pat_ring_source(u->P, u->r, step, &src);
	snprintf(what, sizeof what, "K, V received for step %d", step);
	cs_pchk_bits(&x->chk[i], what, x->dtype, u->held[cur],
		     (const char *)u->kv + (size_t)src * 4 * CHUNK * w,
		     4 * CHUNK);
}

static cs_status_t run(const cs_pctx_t *x)
{
	int L = x->nlocal;
	if (L < 1)
		return CS_OK;
	int P = x->rank[0].P, cur = 0;
	size_t w = cs_dtype_size(x->dtype);
	cs_status_t st = CS_OK;
	rrank_t *u = calloc((size_t)L, sizeof *u);
	if (!u)
		return cs_error(CS_ERR_NOMEM, "ring: ranks");
	for (int i = 0; i < L; i++)
		if (!rrank_make(x, i, &u[i])) {
			st = cs_error(CS_ERR_NOMEM, "ring: rank buffers");
			goto out_free;
		}
	/* Step 0 on the rank's own K, V. */
	for (int i = 0; i < L; i++) {
		memcpy(u[i].held[0],
		       (char *)u[i].kv + (size_t)u[i].r * 4 * CHUNK * w,
		       4 * CHUNK * w);
		ring_start(x->dtype, &u[i], u[i].r);
		ring_step(&u[i], u[i].r, 0,
			  (char *)u[i].qs + (size_t)u[i].r * 2 * CHUNK * w,
			  u[i].held[0]);
	}
	/* Steps 1..P-1: pass the held K, V on, then attend to the new. */
	for (int step = 1; step < P; step++) {
		for (int i = 0; i < L && st == CS_OK; i++)
			st = queue_pass(x, i, &u[i], cur);
		if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
			goto out_free;
		cur = !cur;
		for (int i = 0; i < L; i++) {
			check_held(x, i, &u[i], step, cur);
			ring_step(&u[i], u[i].r, step,
				  (char *)u[i].qs +
				      (size_t)u[i].r * 2 * CHUNK * w,
				  u[i].held[cur]);
		}
	}
	for (int i = 0; i < L; i++) {
		cs_attn_ring_finish(&u[i].ring, u[i].o);
		cs_pchk_bits(&x->chk[i], "O (ring attention)", x->dtype,
			     u[i].o,
			     (char *)u[i].want + (size_t)u[i].r * 2 * CHUNK * w,
			     2 * CHUNK);
	}
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
	(void)v;
	(void)seed;
	(void)g;
	return cs_pat_bytes_ring(C, A, D, cs_grid_axis_size(grid, pat->axis),
				 (int)cs_dtype_size(d), bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16};
static const char *const variants[] = {"causal-lb"};

const cs_pattern_t cs_pattern_ring = {
	.name = "ring",
	.desc = "context-parallel ring attention: K, V passed by sendrecv, "
		"blocks merged by log-sum-exp, causal load-balanced chunks",
	.axis = CS_AXIS_CP,
	.dtypes = dtypes,
	.ndtypes = 2,
	.variants = variants,
	.nvariants = 1,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
