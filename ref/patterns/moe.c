/*
 * moe.c - the MoE model's local work (spec/patterns.md section 5.9):
 * router, top-k, capacity dropping, expert, combine. Contracts in moe.h.
 *
 * Arithmetic outside cs_pk_matmul is done in double and rounded to the
 * accumulation type after every operation (acc()), which for float32
 * accumulation is exactly float arithmetic for + - * / and a fixed,
 * correctly rounded exp: the same bits in every run.
 */
#include <math.h>
#include <string.h>
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
				double p = acc(d, cs_pk_get(d, gate, a) *
						      cs_pk_get(d, y, a * H + h));
				s = acc(d, s + p);
			}
			cs_pk_set(d, out, t * H + h, s);
		}
}
