/*
 * p_moe.c - expert parallelism (spec/patterns.md section 5.9, `moe`): each
 * ep rank routes its tau tokens to the top-k of E = e P experts (e on each
 * rank), drops what exceeds each (source, expert) capacity C, dispatches
 * the kept rows to the experts' ranks, runs the experts there and combines
 * the returned rows with the gate weights. Forward only.
 *
 * Mode a2av: an int64 alltoall of the kept counts, then dispatch and
 * combine by alltoallv. Mode pad: every (source, expert) block padded to C
 * rows, dispatch and combine by alltoall. Every rank recomputes its whole
 * instance's routing and expert outputs (the router is local and
 * mirrored) and checks bitwise the counts, the dispatch rows and the
 * combine rows it receives, and its tokens' outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/moe_routing.h"
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"
#include "moe.h"

extern const cs_pattern_t cs_pattern_moe;

enum { TAU = CS_MOE_TAU, H = CS_MOE_H, FE = CS_MOE_FE, EPR = CS_MOE_EPR,
       K = CS_MOE_K };

/* ---- variants: mode x drop x c_f x zeta ------------------------------ */

static const char *const variants[] = {
    "a2av-pos-cf1-z0",   "a2av-pos-cf1-z1",   "a2av-pos-cf1-z4",
    "a2av-pos-cf1.25-z0", "a2av-pos-cf1.25-z1", "a2av-pos-cf1.25-z4",
    "a2av-prob-cf1-z0",  "a2av-prob-cf1-z1",  "a2av-prob-cf1-z4",
    "a2av-prob-cf1.25-z0", "a2av-prob-cf1.25-z1", "a2av-prob-cf1.25-z4",
    "pad-pos-cf1-z0",    "pad-pos-cf1-z1",    "pad-pos-cf1-z4",
    "pad-pos-cf1.25-z0", "pad-pos-cf1.25-z1", "pad-pos-cf1.25-z4",
    "pad-prob-cf1-z0",   "pad-prob-cf1-z1",   "pad-prob-cf1-z4",
    "pad-prob-cf1.25-z0", "pad-prob-cf1.25-z1", "pad-prob-cf1.25-z4",
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

/* Variant v in the order of variants[]: zeta fastest, then c_f, drop,
 * mode. */
static cs_moe_cfg_t cfg_of(int v)
{
	static const double zetas[] = {0, 1, 4};
	cs_moe_cfg_t c = {.pad = v / 12,
		   .rule = (v / 6) % 2 ? CS_MOE_DROP_PROB
				       : CS_MOE_DROP_POSITION,
		   .cf_num = (v / 3) % 2 ? 5 : 1,
		   .cf_den = (v / 3) % 2 ? 4 : 1,
		   .zeta = zetas[v % 3]};
	return c;
}

/* ---- the distributed run --------------------------------------------- */

/* Carve `bytes` at *off of base (base NULL: only count). */
static void *take(char *base, size_t *off, size_t bytes)
{
	void *r = base ? base + *off : NULL;
	*off += (bytes + 15) & ~(size_t)15;
	return r;
}

/* One local rank: its instance's mirror and its call buffers. */
typedef struct rank {
	cs_moe_inst_t in;
	int r;
	int64_t *csend, *crecv;  /* [P e] kept counts (a2av) */
	char *dsend, *drecv;     /* [P e C H] dispatch */
	char *bsend, *brecv;     /* [P e C H] combine (back) */
	char *want;              /* [P e C H] expected rows */
	char *ys, *out;          /* [TAU K H], [TAU H] */
	size_t *dc, *bc;         /* dispatch, combine: sendcounts, sdispls,
				    recvcounts, rdispls [P] each */
	char *arena, *buf;
} rank_t;

static cs_status_t rank_make(const cs_pctx_t *x, int i, rank_t *rk)
{
	size_t w = cs_dtype_size(x->dtype), o = 0;
	int P = x->rank[i].P;
	memset(rk, 0, sizeof *rk);
	rk->r = x->rank[i].r;
	cs_moe_cfg_t cf = cfg_of(x->variant);
	cs_status_t st = cs_moe_inst_make(x, &cf, x->rank[i].inst, P, 1,
					  &rk->in, &rk->arena);
	if (st != CS_OK)
		return st;
	size_t rows = (size_t)P * EPR * (size_t)rk->in.C * H * w + 16;
	for (int pass = 0; pass < 2; pass++) {
		char *b = rk->buf;
		o = 0;
		rk->csend = take(b, &o, (size_t)P * EPR * sizeof(int64_t));
		rk->crecv = take(b, &o, (size_t)P * EPR * sizeof(int64_t));
		rk->dsend = take(b, &o, rows), rk->drecv = take(b, &o, rows);
		rk->bsend = take(b, &o, rows), rk->brecv = take(b, &o, rows);
		rk->want = take(b, &o, rows);
		rk->ys = take(b, &o, (size_t)TAU * K * H * w);
		rk->out = take(b, &o, (size_t)TAU * H * w);
		rk->dc = take(b, &o, 4 * (size_t)P * sizeof(size_t));
		rk->bc = take(b, &o, 4 * (size_t)P * sizeof(size_t));
		if (pass == 0 && !(rk->buf = calloc(1, o)))
			return cs_error(CS_ERR_NOMEM, "moe: rank buffers");
	}
	return CS_OK;
}

/* The slot of rank s whose expert i keeps it at place p. */
static size_t slot_of(const cs_moe_inst_t *in, int s, int i, int p)
{
	size_t a0 = (size_t)s * TAU * K;
	for (size_t a = a0; a < a0 + TAU * K; a++)
		if (in->expert[a] == i && in->pos[a] == p)
			return a;
	return a0; /* not reached: kept counts come from pos */
}

/* A received kept count as a row count: within [0, C]. */
static size_t clamp_count(int64_t c, int64_t C)
{
	return (size_t)(c < 0 ? 0 : c > C ? C : c);
}

/* Rows of block (source s, local expert le of the receiver) in the call:
 * C when padded, else the kept count. */
static size_t block_rows(const rank_t *rk, int pad, int64_t kept)
{
	return pad ? (size_t)rk->in.C : clamp_count(kept, rk->in.C);
}

/* The expected rows of a call in the spec's layout, built from the
 * mirror: for each peer q in order, for each of the dispatching side's
 * local experts in order, the kept rows in drop order, then (pad) zeros
 * to C. dispatch: rank r receives rank q's tokens; combine: rank r
 * receives its own tokens' expert outputs from q. */
static void want_rows(cs_dtype_t d, const rank_t *rk, int pad, int combine)
{
	const cs_moe_inst_t *in = &rk->in;
	size_t w = cs_dtype_size(d), hw = (size_t)H * w, o = 0;
	memset(rk->want, 0, (size_t)in->P * EPR * (size_t)in->C * hw);
	for (int q = 0; q < in->P; q++)
		for (int le = 0; le < EPR; le++) {
			int src = combine ? rk->r : q;
			int i = (combine ? q : rk->r) * EPR + le;
			int64_t n = in->kept[(size_t)src * in->E + i];
			for (int p = 0; p < n; p++) {
				size_t a = slot_of(in, src, i, p);
				size_t t = a % (TAU * K) / K;
				const char *row = combine
				    ? in->ys + a * hw
				    : in->x + ((size_t)src * TAU + t) * hw;
				memcpy(rk->want + (o + (size_t)p) * hw, row,
				       hw);
			}
			o += pad ? (size_t)in->C : (size_t)n;
		}
}

/* Counts and displacements of the dispatch (elements): what rank r sends
 * each peer from its own routing, what it receives from the counts it
 * received (a2av) or C per expert (pad). */
static void dispatch_counts(rank_t *rk, int pad)
{
	size_t P = (size_t)rk->in.P, so = 0, ro = 0;
	size_t *sc = rk->dc, *sd = sc + P, *rc = sd + P, *rd = rc + P;
	for (size_t q = 0; q < P; q++) {
		size_t out = 0, in = 0;
		for (int le = 0; le < EPR; le++) {
			out += block_rows(rk, pad, rk->in.kept[(size_t)rk->r *
					  rk->in.E + q * EPR + le]);
			in += block_rows(rk, pad, rk->crecv[q * EPR + le]);
		}
		sc[q] = out * H, sd[q] = so, so += sc[q];
		rc[q] = in * H, rd[q] = ro, ro += rc[q];
	}
	/* the combine is the dispatch reversed */
	memcpy(rk->bc, rc, 2 * P * sizeof(size_t));
	memcpy(rk->bc + 2 * P, sc, 2 * P * sizeof(size_t));
}

/* Row of rank r's slot a in its dispatch send buffer (and combine receive
 * buffer): the peer's displacement, earlier experts' blocks, its place. */
static size_t slot_row(const rank_t *rk, int pad, size_t a)
{
	const cs_moe_inst_t *in = &rk->in;
	int i = in->expert[a], q = i / EPR;
	size_t row = rk->dc[(size_t)in->P + (size_t)q] / H;
	for (int le = 0; le < i % EPR; le++)
		row += block_rows(rk, pad, in->kept[(size_t)rk->r * in->E +
						   (size_t)q * EPR + le]);
	return row + (size_t)in->pos[a];
}

/* Rank r's kept token rows into the dispatch send buffer. */
static void pack(cs_dtype_t d, rank_t *rk, int pad)
{
	const cs_moe_inst_t *in = &rk->in;
	size_t hw = (size_t)H * cs_dtype_size(d), a0 = (size_t)rk->r * TAU * K;
	for (size_t a = a0; a < a0 + TAU * K; a++)
		if (in->pos[a] >= 0)
			memcpy(rk->dsend + slot_row(rk, pad, a) * hw,
			       in->x + (a / K) * hw, hw);
}

/* The experts of rank r on the rows it received, block by block, into
 * the combine send buffer at the same places. */
static void run_experts(cs_dtype_t d, rank_t *rk, int pad)
{
	const cs_moe_inst_t *in = &rk->in;
	size_t w = cs_dtype_size(d), hw = (size_t)H * w,
	       hf = (size_t)H * FE * w, row = 0;
	for (int q = 0; q < in->P; q++)
		for (int le = 0; le < EPR; le++) {
			size_t n = block_rows(rk, pad,
					      rk->crecv[(size_t)q * EPR + le]);
			size_t i = (size_t)rk->r * EPR + (size_t)le;
			cs_moe_expert(d, rk->drecv + row * hw, n, H, FE,
				      in->w1 + i * hf, in->w2 + i * hf,
				      in->hid, rk->bsend + row * hw);
			row += n;
		}
}

/* Rank r's kept slots' expert outputs from the combine receive buffer,
 * then its tokens' outputs. */
static void unpack(cs_dtype_t d, rank_t *rk, int pad)
{
	const cs_moe_inst_t *in = &rk->in;
	size_t hw = (size_t)H * cs_dtype_size(d), a0 = (size_t)rk->r * TAU * K;
	for (size_t a = a0; a < a0 + TAU * K; a++)
		if (in->pos[a] >= 0)
			memcpy(rk->ys + (a - a0) * hw,
			       rk->brecv + slot_row(rk, pad, a) * hw, hw);
	cs_moe_combine(d, rk->ys, in->gate + a0 * cs_dtype_size(d),
		       in->pos + a0, TAU, K, H, rk->out);
}

/* One call of the pattern: alltoall of `count` per peer when counts is
 * NULL, else alltoallv with counts[4P]. */
static cs_status_t queue(const cs_pctx_t *x, int i, cs_dtype_t d,
			 const void *send, void *recv, size_t count,
			 const size_t *counts)
{
	size_t P = (size_t)x->rank[i].P;
	cs_pcall_t c = {.coll = counts ? CS_COLL_ALLTOALLV : CS_COLL_ALLTOALL,
			.dtype = d, .count = count, .send = send, .recv = recv,
			.phase = CS_PHASE_FWD};
	if (counts) {
		c.sendcounts = counts, c.sdispls = counts + P;
		c.recvcounts = counts + 2 * P, c.rdispls = counts + 3 * P;
	}
	return cs_pport_call(x->port, i, &c);
}

/* The numbers of section 5.9's Reported paragraph, into chk->info. */
static void report(const rank_t *rk, int pad, cs_pcheck_t *k)
{
	const cs_moe_inst_t *in = &rk->in;
	int64_t kept = 0, nmax = 0;
	char ins[64];
	size_t used = 0;
	/* in_d of every rank d of the instance, while it fits (then "...") */
	for (int d = 0; d < in->P; d++) {
		int64_t in_d = 0;
		for (int q = 0; q < in->P; q++)
			in_d += cs_moe_m(in, q, d);
		if (used + 24 >= sizeof ins) {
			snprintf(ins + used, sizeof ins - used, ",...");
			break;
		}
		used += (size_t)snprintf(ins + used, sizeof ins - used, "%s%lld",
					 d ? "," : "", (long long)in_d);
	}
	for (int i = 0; i < in->E; i++) {
		int64_t n = 0;
		for (int s = 0; s < in->P; s++) {
			n += in->routed[(size_t)s * in->E + (size_t)i];
			kept += in->kept[(size_t)s * in->E + (size_t)i];
		}
		nmax = n > nmax ? n : nmax;
	}
	double all = (double)K * TAU * in->P;
	int len = snprintf(k->info, sizeof k->info, "in=%s imb=%.2f "
			   "drop=%.3f", ins,
			   (double)nmax / (all / in->E),
			   1 - (double)kept / all);
	if (pad && len > 0 && (size_t)len < sizeof k->info)
		snprintf(k->info + len, sizeof k->info - (size_t)len,
			 " pad=%.3f", 1 - (double)kept /
			 ((double)in->P * in->P * EPR * (double)in->C));
}

/* a2av's first call: rank r's kept count per (peer, peer's expert). */
static cs_status_t counts_call(const cs_pctx_t *x, int i, rank_t *rk)
{
	const cs_moe_inst_t *in = &rk->in;
	for (size_t j = 0; j < (size_t)in->E; j++)
		rk->csend[j] = in->kept[(size_t)rk->r * in->E + j];
	return queue(x, i, CS_DTYPE_INT64, rk->csend, rk->crecv, EPR, NULL);
}

/* The counts rank r received: kept[q][r e + le] from each peer q. */
static void counts_check(rank_t *rk, cs_pcheck_t *k)
{
	const cs_moe_inst_t *in = &rk->in;
	int64_t *want = (int64_t *)(void *)rk->want;
	for (int q = 0; q < in->P; q++)
		for (int le = 0; le < EPR; le++)
			want[q * EPR + le] = in->kept[(size_t)q * in->E +
						      (size_t)rk->r * EPR + le];
	cs_pchk_bits(k, "kept counts received", CS_DTYPE_INT64, rk->crecv,
		     want, (size_t)in->P * EPR);
}

/* Elements rank r receives in the dispatch (combine: sends back), or
 * (combine) receives in the combine, by the mirror's routing. */
static size_t call_elems(const rank_t *rk, int pad, int combine)
{
	size_t rows = 0;
	for (int q = 0; q < rk->in.P; q++)
		rows += pad ? (size_t)EPR * (size_t)rk->in.C
			    : (size_t)(combine ? cs_moe_m(&rk->in, rk->r, q)
					       : cs_moe_m(&rk->in, q, rk->r));
	return rows * H;
}

static cs_status_t run(const cs_pctx_t *x)
{
	int L = x->nlocal, pad = cfg_of(x->variant).pad;
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d);
	cs_status_t st = CS_OK;
	rank_t *rk = calloc((size_t)L, sizeof *rk);
	if (!rk)
		return cs_error(CS_ERR_NOMEM, "moe: ranks");
	for (int i = 0; i < L && st == CS_OK; i++)
		st = rank_make(x, i, &rk[i]);
	if (st != CS_OK || L == 0)
		goto out_free;
	size_t blk = (size_t)EPR * (size_t)rk[0].in.C * H; /* pad, per peer */
	if (!pad) {
		for (int i = 0; i < L && st == CS_OK; i++)
			st = counts_call(x, i, &rk[i]);
		if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
			goto out_free;
		for (int i = 0; i < L; i++)
			counts_check(&rk[i], &x->chk[i]);
	}
	/* dispatch */
	for (int i = 0; i < L && st == CS_OK; i++) {
		dispatch_counts(&rk[i], pad);
		pack(d, &rk[i], pad);
		st = queue(x, i, d, rk[i].dsend, rk[i].drecv, pad ? blk : 0,
			   pad ? NULL : rk[i].dc);
	}
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto out_free;
	for (int i = 0; i < L; i++) {
		want_rows(d, &rk[i], pad, 0);
		cs_pchk_bits(&x->chk[i], "dispatch rows received", d,
			     rk[i].drecv, rk[i].want,
			     call_elems(&rk[i], pad, 0));
		run_experts(d, &rk[i], pad);
	}
	/* combine */
	for (int i = 0; i < L && st == CS_OK; i++)
		st = queue(x, i, d, rk[i].bsend, rk[i].brecv, pad ? blk : 0,
			   pad ? NULL : rk[i].bc);
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto out_free;
	for (int i = 0; i < L; i++) {
		want_rows(d, &rk[i], pad, 1);
		cs_pchk_bits(&x->chk[i], "combine rows received", d,
			     rk[i].brecv, rk[i].want,
			     call_elems(&rk[i], pad, 1));
		unpack(d, &rk[i], pad);
		cs_pchk_bits(&x->chk[i], "token outputs", d, rk[i].out,
			     rk[i].in.out + (size_t)rk[i].r * TAU * H * w,
			     (size_t)TAU * H);
		report(&rk[i], pad, &x->chk[i]);
	}
out_free:
	for (int i = 0; i < L; i++) {
		free(rk[i].arena);
		free(rk[i].buf);
	}
	free(rk);
	return st;
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16};

cs_status_t cs_moe_routing(int v, cs_dtype_t d, uint64_t seed,
			   const cs_grid_t *grid, int inst,
			   cs_moe_routing_t *o)
{
	if (!o || !grid || v < 0 || v >= NVARIANTS ||
	    (d != dtypes[0] && d != dtypes[1]))
		return cs_error(CS_ERR_INVALID, "moe routing: variant %d, "
				"dtype %s: not the pattern's", v,
				cs_dtype_name(d));
	cs_moe_cfg_t cf = cfg_of(v);
	cs_pctx_t x = {.pat = &cs_pattern_moe, .variant = v, .dtype = d,
		       .seed = seed, .grid = grid};
	int P = cs_grid_axis_size(grid, CS_AXIS_EP);
	cs_moe_inst_t in;
	char *arena;
	cs_status_t st = cs_moe_inst_make(&x, &cf, inst, P, 0, &in, &arena);
	if (st != CS_OK)
		return st;
	size_t slots = (size_t)P * TAU * K, pe = (size_t)P * in.E;
	memset(o, 0, sizeof *o);
	o->arena = calloc(1, slots * 2 * sizeof(int) +
			  (2 * pe + (size_t)P * P) * sizeof(int64_t));
	if (!o->arena) {
		free(arena);
		return cs_error(CS_ERR_NOMEM, "moe routing");
	}
	o->routed = (int64_t *)o->arena;
	o->kept = o->routed + pe;
	o->m = o->kept + pe;
	o->expert = (int *)(o->m + (size_t)P * P);
	o->pos = o->expert + slots;
	o->P = P, o->E = in.E, o->e = EPR, o->tau = TAU, o->k = K;
	o->C = in.C, o->pad = cf.pad;
	memcpy(o->expert, in.expert, slots * sizeof(int));
	memcpy(o->pos, in.pos, slots * sizeof(int));
	memcpy(o->routed, in.routed, pe * sizeof(int64_t));
	memcpy(o->kept, in.kept, pe * sizeof(int64_t));
	for (int s = 0; s < P; s++)
		for (int q = 0; q < P; q++)
			o->m[(size_t)s * P + q] = cs_moe_m(&in, s, q);
	free(arena);
	return CS_OK;
}

void cs_moe_routing_free(cs_moe_routing_t *r)
{
	if (r) {
		free(r->arena);
		r->arena = NULL;
	}
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	cs_prank_t pr;
	cs_moe_cfg_t cf = cfg_of(v);
	int w = (int)cs_dtype_size(d);
	int64_t C;
	cs_status_t st = cs_pattern_rank(pat, grid, g, &pr);
	if (st == CS_OK)
		st = cs_moe_capacity(&cf, pr.P, &C);
	if (st != CS_OK)
		return st;
	if (cf.pad)
		return cs_pat_bytes_moe_pad(pr.P, EPR, C, H, w, bytes);
	/* a2av: out_r and in_r from the routing, recomputed from the seed */
	cs_moe_routing_t ro;
	if ((st = cs_moe_routing(v, d, seed, grid, pr.inst, &ro)) != CS_OK)
		return st;
	int64_t out_r = 0, in_r = 0;
	for (int q = 0; q < pr.P; q++) {
		out_r += ro.m[(size_t)pr.r * pr.P + q];
		in_r += ro.m[(size_t)q * pr.P + pr.r];
	}
	cs_moe_routing_free(&ro);
	return cs_pat_bytes_moe_a2av(pr.P, EPR, out_r, in_r, H, w, bytes);
}


const cs_pattern_t cs_pattern_moe = {
	.name = "moe",
	.desc = "expert parallelism: top-k routing with capacity dropping, "
		"dispatch and combine by alltoallv or padded alltoall",
	.axis = CS_AXIS_EP,
	.dtypes = dtypes,
	.ndtypes = 2,
	.variants = variants,
	.nvariants = NVARIANTS,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
