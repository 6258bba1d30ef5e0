/*
 * train_sim.c - the two simulations of the training calculator
 * (csref/train.h): bucketed gradient reduction against the backward
 * compute (docs/model.md 4.3), and the MoE router's load at a skew
 * (4.4), modelled from spec/patterns.md 5.9's definition.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "csref/train.h"

/* Time the layer whose gradients hold element e (0-based, in the order
 * backward produces them) is done: the stage's Ls layers run in reverse,
 * each bwd/Ls long, each producing per_layer elements; the embedding's
 * elements (after all layers) are done when backward ends. */
static double ready_at(double e, double per_layer, double Ls, double bwd)
{
	double j = floor(e / per_layer);

	if (j >= Ls)
		return bwd;
	return (j + 1) * bwd / Ls;
}

cs_status_t cs_train_overlap(const cs_train_cfg_t *c, double bucket_mb,
			     const cs_cost_params_t *m, cs_train_overlap_t *o)
{
	double dense, expert, w, cap, Ls, per_layer, bwd, e0, end = 0;
	int P;
	cs_coll_t coll;
	cs_status_t st;

	if (!m || !o)
		return cs_error(CS_ERR_INVALID, "cs_train_overlap: no output");
	if ((st = cs_train_check(c)) != CS_OK)
		return st;
	if (!(bucket_mb > 0 && bucket_mb <= 1 << 20))
		return cs_error(CS_ERR_INVALID, "--bucket-mb %g out of range "
				"(above 0, at most 2^20)", bucket_mb);
	P = c->dp * c->cp;
	if (P < 2 || c->zero == 3)
		return cs_error(CS_ERR_UNDEFINED, "no bucketed gradient "
				"reduction to overlap (dp x cp %d, zero %d)",
				P, c->zero);
	cs_train_params(c, &dense, &expert);
	w = (double)cs_dtype_size(c->dtype);
	cap = fmax(1, floor(bucket_mb * 1048576.0 / w));
	Ls = (double)(c->layers / c->pp);
	per_layer = (dense - (double)c->hidden * c->vocab / c->tp) / Ls;
	bwd = c->bwd_ms * 1e-3;
	coll = cs_train_rs(c) ? CS_COLL_REDUCESCATTER : CS_COLL_ALLREDUCE;
	o->buckets = ceil(dense / cap);
	if (o->buckets > CS_TRAIN_MAX_BUCKETS)
		return cs_error(CS_ERR_INVALID, "--bucket-mb %g makes %.0f "
				"buckets, more than %d: use larger buckets",
				bucket_mb, o->buckets, CS_TRAIN_MAX_BUCKETS);
	o->comm_s = 0;
	o->first_s = -1;
	/* bucket [e0, e0 + size) starts when its last element is ready and
	 * the previous bucket is done: one communication stream */
	for (e0 = 0; e0 < dense; e0 += cap) {
		double size = fmin(cap, dense - e0), t, start;

		if ((st = cs_cost_time(coll, cs_cost_default_algo(coll), P,
				       size * w, m, &t)) != CS_OK)
			return st;
		start = fmax(ready_at(e0 + size - 1, per_layer, Ls, bwd), end);
		if (o->first_s < 0)
			o->first_s = start;
		end = start + t;
		o->comm_s += t;
	}
	o->end_s = end;
	o->exposed_s = fmax(0, end - bwd);
	return CS_OK;
}

/* ---- the MoE router's load ------------------------------------------ */

/* splitmix64: a fixed, portable stream (the same numbers everywhere). */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A standard normal by Box-Muller from two uniforms in (0, 1). */
static double normal(uint64_t *s)
{
	double u1 = ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Top-k of logit[0..E) into load[] (ties to the lower index): softmax is
 * increasing, so the top-k probabilities are the top-k logits. */
static void route_one(const double *logit, long E, long k, int *taken,
		      long *load)
{
	long j, i, best;

	for (i = 0; i < E; i++)
		taken[i] = 0;
	for (j = 0; j < k; j++) {
		best = -1;
		for (i = 0; i < E; i++)
			if (!taken[i] && (best < 0 || logit[i] > logit[best]))
				best = i;
		taken[best] = 1;
		load[best]++;
	}
}

/* From the per-expert loads: imbalance, dropped share and the busiest
 * ep rank's share, C = ceil(c_f k T / E) per expert. */
static void summarise(const cs_train_cfg_t *c, const long *load, long T,
		      cs_train_moe_t *r)
{
	long E = c->experts, per = E / c->ep, i, q;
	double mean = (double)c->topk * T / E, C = ceil(c->capacity * mean);
	double maxl = 0, over = 0, maxr = 0;

	r->busiest = 0;
	for (i = 0; i < E; i++) {
		if (load[i] > load[r->busiest])
			r->busiest = i;
		maxl = fmax(maxl, (double)load[i]);
		over += fmax(0, load[i] - C);
	}
	for (q = 0; q < c->ep; q++) {
		double s = 0;

		for (i = q * per; i < (q + 1) * per; i++)
			s += (double)load[i];
		maxr = fmax(maxr, s);
	}
	r->tokens = T;
	r->imbalance = maxl / mean;
	r->dropped = over / ((double)c->topk * T);
	r->rank_skew = maxr / (mean * per);
}

cs_status_t cs_train_moe(const cs_train_cfg_t *c, cs_train_moe_t *r)
{
	long E, T, t, i;
	double *logit;
	long *load;
	int *taken;
	uint64_t seed = 1;
	cs_status_t st;

	if (!r)
		return cs_error(CS_ERR_INVALID, "cs_train_moe: no output");
	if ((st = cs_train_check(c)) != CS_OK)
		return st;
	if (!c->experts)
		return cs_error(CS_ERR_UNDEFINED, "no experts (--experts 0)");
	E = c->experts;
	/* one micro-batch's tokens over the ep group, at most 2^16, and at
	 * most 2^28 / (k E) so that the top-k scans stay under 2^28 steps */
	T = (long)fmin(fmin(65536.0, (double)c->mbs * (double)(c->seq / c->cp) *
				     c->ep), fmax(1, floor(268435456.0 /
						 ((double)c->topk * E))));
	logit = malloc((size_t)E * sizeof *logit);
	load = calloc((size_t)E, sizeof *load);
	taken = malloc((size_t)E * sizeof *taken);
	if (!logit || !load || !taken) {
		st = cs_error(CS_ERR_NOMEM, "MoE router: out of memory");
		goto out_free;
	}
	/* logit_i = g_i - zeta i, g_i standard normal (spec 5.9's router
	 * with x W_g replaced by unit-variance noise) */
	for (t = 0; t < T; t++) {
		for (i = 0; i < E; i++)
			logit[i] = normal(&seed) - c->skew * (double)i;
		route_one(logit, E, c->topk, taken, load);
	}
	summarise(c, load, T, r);
out_free:
	free(logit);
	free(load);
	free(taken);
	return st;
}
