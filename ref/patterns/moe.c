/*
 * moe.c - the MoE model's local work (spec/patterns.md section 5.9):
 * router, top-k, capacity dropping, expert, combine, and the instance
 * every rank of the pattern recomputes. Contracts in moe.h.
 *
 * Arithmetic outside cs_pk_matmul is done in double and rounded to the
 * accumulation type after every operation (acc()), which for float32
 * accumulation is exactly float arithmetic for + - * / and a fixed,
 * correctly rounded exp: the same bits in every run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "csref/patterns.h"
#include "csref/pkern.h"
#include "moe.h"

/* v rounded to the accumulation type of d (float64 for float64, float32
 * for the other floats). */
static double acc(cs_dtype_t d, double v)
{
	return d == CS_DTYPE_FLOAT64 ? v : (double)(float)v;
}

/* Softmax of one token's E logits (dtype d) into prob (dtype d). */
static void softmax_row(cs_dtype_t d, const void *logits, size_t row,
			size_t E, double zeta, void *prob)
{
	double mx = -INFINITY, sum = 0;
	for (size_t i = 0; i < E; i++) {
		double l = acc(d, cs_pk_get(d, logits, row * E + i) -
				      acc(d, zeta * (double)i));
		mx = l > mx ? l : mx;
	}
	for (size_t i = 0; i < E; i++) {
		double l = acc(d, cs_pk_get(d, logits, row * E + i) -
				      acc(d, zeta * (double)i));
		sum = acc(d, sum + acc(d, exp(acc(d, l - mx))));
	}
	for (size_t i = 0; i < E; i++) {
		double l = acc(d, cs_pk_get(d, logits, row * E + i) -
				      acc(d, zeta * (double)i));
		cs_pk_set(d, prob, row * E + i,
			  acc(d, acc(d, exp(acc(d, l - mx))) / sum));
	}
}

void cs_moe_route(cs_dtype_t d, const void *x, const void *wg, size_t tau,
		  size_t H, size_t E, double zeta, size_t k, void *logits,
		  void *prob, int *expert, void *gate)
{
	cs_pk_matmul(d, tau, E, H, x, 0, wg, 0, logits);
	for (size_t t = 0; t < tau; t++)
		softmax_row(d, logits, t, E, zeta, prob);
	cs_moe_topk(d, prob, tau, E, k, expert, gate);
}

void cs_moe_topk(cs_dtype_t d, const void *prob, size_t tau, size_t E,
		 size_t k, int *expert, void *gate)
{
	for (size_t t = 0; t < tau; t++)
		for (size_t j = 0; j < k; j++) {
			int best = -1;
			double bv = 0;
			for (size_t i = 0; i < E; i++) {
				int taken = 0;
				for (size_t q = 0; q < j; q++)
					taken |= expert[t * k + q] == (int)i;
				double v = cs_pk_get(d, prob, t * E + i);
				/* strictly greater: a tie keeps the lower i */
				if (!taken && (best < 0 || v > bv))
					best = (int)i, bv = v;
			}
			expert[t * k + j] = best;
			cs_pk_set(d, gate, t * k + j, bv);
		}
}

/* Does assignment a come before b (flat slot indices t k + j) under the
 * rule? Position: (j, t) ascending; probability: gate descending, then
 * (t, j) ascending, which is the flat index. */
static int before(cs_dtype_t d, const void *gate, size_t k, cs_moe_drop_t rule,
		  size_t a, size_t b)
{
	if (rule == CS_MOE_DROP_POSITION) {
		size_t ja = a % k, jb = b % k;
		return ja != jb ? ja < jb : a / k < b / k;
	}
	double ga = cs_pk_get(d, gate, a), gb = cs_pk_get(d, gate, b);
	return ga != gb ? ga > gb : a < b;
}

void cs_moe_drop(cs_dtype_t d, const int *expert, const void *gate,
		 size_t tau, size_t k, size_t E, int64_t C, cs_moe_drop_t rule,
		 int *pos, int64_t *kept, int64_t *routed)
{
	size_t n = tau * k;
	for (size_t i = 0; i < E; i++) {
		kept[i] = 0;
		if (routed)
			routed[i] = 0;
	}
	/* an assignment's place in its expert's order is the number of the
	 * expert's other assignments that come before it */
	for (size_t a = 0; a < n; a++) {
		int64_t place = 0;
		for (size_t b = 0; b < n; b++)
			if (b != a && expert[b] == expert[a] &&
			    before(d, gate, k, rule, b, a))
				place++;
		pos[a] = place < C ? (int)place : -1;
		if (routed)
			routed[expert[a]]++;
		if (place < C)
			kept[expert[a]]++;
	}
}

void cs_moe_expert(cs_dtype_t d, const void *x, size_t n, size_t H,
		   size_t F, const void *w1, const void *w2, void *hid,
		   void *y)
{
	cs_pk_matmul(d, n, F, H, x, 0, w1, 0, hid);
	cs_pk_relu(d, hid, n * F);
	cs_pk_matmul(d, n, H, F, hid, 0, w2, 0, y);
}

void cs_moe_combine(cs_dtype_t d, const void *y, const void *gate,
		    const int *pos, size_t tau, size_t k, size_t H, void *out)
{
	for (size_t t = 0; t < tau; t++)
		for (size_t h = 0; h < H; h++) {
			double s = 0;
			for (size_t j = 0; j < k; j++) {
				size_t a = t * k + j;
				if (pos[a] < 0)
					continue;
				double g = cs_pk_get(d, gate, a),
				       v = cs_pk_get(d, y, a * H + h);
				s = acc(d, s + acc(d, g * v));
			}
			cs_pk_set(d, out, t * H + h, s);
		}
}

/* ---- one instance's routing and mirror ------------------------------- */

enum { TAU = CS_MOE_TAU, H = CS_MOE_H, FE = CS_MOE_FE, EPR = CS_MOE_EPR,
       K = CS_MOE_K };

/* Carve `bytes` at *off of base (base NULL: only count). */
static void *take(char *base, size_t *off, size_t bytes)
{
	void *r = base ? base + *off : NULL;
	*off += (bytes + 15) & ~(size_t)15;
	return r;
}

/* Lay out an instance's arrays in base; returns the bytes they need. */
static size_t inst_lay(cs_moe_inst_t *in, char *base, size_t w)
{
	size_t o = 0, P = (size_t)in->P, E = (size_t)in->E;
	size_t C = (size_t)in->C;
	in->x = take(base, &o, P * TAU * H * w);
	in->wg = take(base, &o, (size_t)H * E * w);
	in->w1 = take(base, &o, E * H * FE * w);
	in->w2 = take(base, &o, E * FE * H * w);
	in->logits = take(base, &o, TAU * E * w);
	in->prob = take(base, &o, TAU * E * w);
	in->gate = take(base, &o, P * TAU * K * w);
	in->expert = take(base, &o, P * TAU * K * sizeof(int));
	in->pos = take(base, &o, P * TAU * K * sizeof(int));
	in->kept = take(base, &o, P * E * sizeof(int64_t));
	in->routed = take(base, &o, P * E * sizeof(int64_t));
	in->ys = take(base, &o, P * TAU * K * H * w);
	in->out = take(base, &o, P * TAU * H * w);
	in->hid = take(base, &o, (C + 1) * FE * w);
	return o;
}

/* The routing of every rank of instance inst: tokens, router, drop. */
static void inst_route(const cs_pctx_t *x, const cs_moe_cfg_t *cf, int inst,
		       cs_moe_inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), E = (size_t)in->E;
	cs_pat_fill(x, inst, CS_MOE_T_WG, 0, in->wg, (size_t)H * E);
	for (int s = 0; s < in->P; s++) {
		size_t a = (size_t)s * TAU * K;
		cs_pat_fill(x, inst, CS_MOE_T_X, s,
			    in->x + (size_t)s * TAU * H * w, (size_t)TAU * H);
		cs_moe_route(d, in->x + (size_t)s * TAU * H * w, in->wg, TAU,
			     H, E, cf->zeta, K, in->logits, in->prob,
			     in->expert + a, in->gate + a * w);
		cs_moe_drop(d, in->expert + a, in->gate + a * w, TAU, K, E,
			    in->C, cf->rule, in->pos + a,
			    in->kept + (size_t)s * E,
			    in->routed + (size_t)s * E);
	}
}

/* The mirror's expert outputs, one kept slot at a time, and outputs. */
static void inst_experts(const cs_pctx_t *x, int inst, cs_moe_inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), hf = (size_t)H * FE * w;
	for (int i = 0; i < in->E; i++) {
		cs_pat_fill(x, inst, CS_MOE_T_W1, i, in->w1 + (size_t)i * hf,
			    H * FE);
		cs_pat_fill(x, inst, CS_MOE_T_W2, i, in->w2 + (size_t)i * hf,
			    FE * H);
	}
	for (size_t a = 0; a < (size_t)in->P * TAU * K; a++) {
		size_t s = a / (TAU * K), t = (a / K) % TAU;
		size_t i = (size_t)in->expert[a];
		if (in->pos[a] < 0)
			continue;
		cs_moe_expert(d, in->x + (s * TAU + t) * H * w, 1, H, FE,
			      in->w1 + i * hf, in->w2 + i * hf, in->hid,
			      in->ys + a * H * w);
	}
	for (int s = 0; s < in->P; s++)
		cs_moe_combine(d, in->ys + (size_t)s * TAU * K * H * w,
			       in->gate + (size_t)s * TAU * K * w,
			       in->pos + (size_t)s * TAU * K, TAU, K, H,
			       in->out + (size_t)s * TAU * H * w);
}

/* Kept assignments of rank s's tokens to rank dst's experts: m[s][dst]. */
int64_t cs_moe_m(const cs_moe_inst_t *in, int s, int dst)
{
	int64_t m = 0;
	for (int le = 0; le < EPR; le++)
		m += in->kept[(size_t)s * in->E + (size_t)dst * EPR + le];
	return m;
}

cs_status_t cs_moe_capacity(const cs_moe_cfg_t *cf, int P, int64_t *C)
{
	return cs_pat_moe_capacity(cf->cf_num, cf->cf_den, K, TAU,
				   (int64_t)EPR * P, C);
}

/* An instance's arrays in one allocation, routed and mirrored (experts
 * too when `experts`); *arena to free. */
cs_status_t cs_moe_inst_make(const cs_pctx_t *x, const cs_moe_cfg_t *cf,
			     int inst, int P, int experts, cs_moe_inst_t *in,
			     char **arena)
{
	size_t w = cs_dtype_size(x->dtype);
	memset(in, 0, sizeof *in);
	in->P = P, in->E = EPR * P;
	cs_status_t st = cs_moe_capacity(cf, P, &in->C);
	if (st != CS_OK)
		return st;
	*arena = calloc(1, inst_lay(in, NULL, w));
	if (!*arena)
		return cs_error(CS_ERR_NOMEM, "moe: instance");
	inst_lay(in, *arena, w);
	inst_route(x, cf, inst, in);
	if (experts)
		inst_experts(x, inst, in);
	return CS_OK;
}
