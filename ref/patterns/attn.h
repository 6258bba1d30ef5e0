/*
 * attn.h - causal softmax attention for the Ulysses and ring patterns
 * (spec/patterns.md sections 5.7 and 5.8), by csref/pkern.h's rule: every
 * output element is one fixed sequential loop in the accumulation type,
 * rounded to the dtype once, so that a rank and the serial mirror given the
 * same bits compute the same bits.
 *
 * Tensors are [rows, A, D] row-major in dtype d (element (i, h, l) at
 * (i A + h) D + l): rows are sequence positions, A heads of D elements.
 * The scale is sigma = 1/sqrt(D). Row i attends to key j when j <= i
 * (causal); a non-diagonal block of the ring attends to every key.
 *
 * Accumulation type (the "acc" below): float32 for float16, bfloat16 and
 * float32; float64 for float64. Other dtypes are refused. Every product,
 * sum, difference and quotient is rounded to acc (computed in double and
 * rounded to float for float32, which gives float arithmetic's result:
 * double has more than 2 p + 2 bits for p = 24); exp, log and log1p are
 * the C library's expf, logf, log1pf for float32 and exp, log, log1p for
 * float64. The bits therefore depend on the C library, the same in both
 * runs of one process. Intermediate values handed between functions
 * (block outputs, log-sum-exp, the ring's running state) are doubles that
 * hold acc values.
 *
 * Accuracy of the ring's blockwise merge against exact causal attention
 * (tested in tests/unit/test_pat_attn.c, derived in spec section 5.8):
 * for a query row with N visible keys in nb blocks, score magnitudes
 * |s_j| <= M, acc unit roundoff u and a C library whose exp, log, log1p
 * err by at most 2 ulp (relative ue = 4u, an assumption), the computed
 * output before its rounding to d is sum_j w_j v_j with
 * |log(w_j / pi_j)| <= Omega, pi_j the exact softmax weights, where
 *   E      = gamma_{D+2} sigma max_j sum_l |q_l k_jl|     (score error)
 *   eta_b  = ue (ln N + 1) + u (M + ln N + 1)             (a block's lse)
 *   Phi_b  = 2 u M + 2 ue + 2 u (N + 1)                   (inside a block)
 *   Phi_m  = u (2 M + 2 ln N + 1) + 2 ue + 4 u            (per merge)
 *   eta_m  = u (3 M + 3 ln N + 2) + 3 ue                  (a merge's lse)
 *   Omega  = 2 E + 2 eta_b + 2 Phi_b + (nb - 1) (Phi_m + eta_m)
 * so |o_l - o*_l| <= (e^Omega - 1) sum_j pi_j |v_jl| + u_d e^Omega
 * max_j |v_jl|, u_d the unit roundoff of d (the final rounding).
 */
#ifndef CS_PATTERNS_ATTN_H
#define CS_PATTERNS_ATTN_H

#include <stddef.h>
#include "csref/catalog.h"
#include "csref/status.h"

/* The largest head dimension (the kernels keep D accumulators). */
#define CS_ATTN_MAX_D 64

/*
 * One block of attention: queries Q [nq, A, D] against keys K and values
 * V [nk, A, D], all of dtype d. diag != 0: Q and K are the same positions
 * (nq == nk) and row i sees keys 0..i; diag == 0: every row sees every
 * key. Per row i and head h, with scores s_j = sigma (q . k_j) (the dot
 * product summed over l ascending), m = max_j s_j, p_j = exp(s_j - m),
 * Z = sum_j p_j (j ascending):
 *   o[(i A + h) D + l] = (sum_j p_j v_jl) / Z    (acc, not rounded to d)
 *   lse[i A + h]       = m + log Z
 * CS_ERR_INVALID for an integer dtype, D > CS_ATTN_MAX_D, or diag with
 * nq != nk.
 */
cs_status_t cs_attn_block(cs_dtype_t d, size_t nq, size_t nk, size_t A,
			  size_t D, const void *Q, const void *K,
			  const void *V, int diag, double *o, double *lse);

/*
 * The log-sum-exp merge of spec 5.8 over n (row, head) pairs: for each,
 *   l' = max(l, lb) + log1p(exp(-|l - lb|)),
 *   o' = exp(l - l') o + exp(lb - l') ob     (each of the D elements),
 * in acc, into o and l. Start from o = 0, l = -infinity: the first merge
 * then copies (ob, lb) exactly.
 */
void cs_attn_merge(cs_dtype_t d, size_t n, size_t D, double *o, double *l,
		   const double *ob, const double *lb);

/* out[i] = acc[i] rounded to d, for i < n. */
void cs_attn_store(cs_dtype_t d, size_t n, const double *acc, void *out);

/*
 * Causal attention forward on [S, A, D]: cs_attn_block with diag over the
 * whole sequence, O (dtype d) its output rounded to d, lse [S, A] kept
 * for the backward.
 */
cs_status_t cs_attn_fwd(cs_dtype_t d, size_t S, size_t A, size_t D,
			const void *Q, const void *K, const void *V, void *O,
			double *lse);

/*
 * Causal attention backward on [S, A, D], given the forward's O and lse
 * and the output gradient dO: with p_ij = exp(s_ij - lse_i),
 * delta_i = sum_l dO_il O_il, ds_ij = p_ij ((dO_i . v_j) - delta_i),
 *   dQ_il = sigma sum_{j <= i} ds_ij k_jl   (j ascending)
 *   dK_jl = sigma sum_{i >= j} ds_ij q_il   (i ascending)
 *   dV_jl = sum_{i >= j} p_ij dO_il         (i ascending)
 * each rounded to d once. Errors as cs_attn_block.
 */
cs_status_t cs_attn_bwd(cs_dtype_t d, size_t S, size_t A, size_t D,
			const void *Q, const void *K, const void *V,
			const void *O, const void *dO, const double *lse,
			void *dQ, void *dK, void *dV);

/* ---- ring attention (spec 5.8) -------------------------------------- */

/* One rank's ring state: its two query chunks and running (o, l). */
typedef struct cs_attn_ring {
	cs_dtype_t d;
	size_t c, A, D;    /* chunk length, heads, head dimension */
	int qchunk[2];     /* its query chunks, in the order of Q's rows */
	double *o, *l;     /* [2c, A, D], [2c, A]: the running pair */
	double *ob, *lb;   /* [c, A, D], [c, A]: one block's output */
} cs_attn_ring_t;

/* Doubles the caller provides for one ring state (o, l, ob, lb). */
size_t cs_attn_ring_doubles(size_t c, size_t A, size_t D);

/* Set up st over the caller's mem[cs_attn_ring_doubles(c, A, D)]: o = 0,
 * l = -infinity. CS_ERR_INVALID as cs_attn_block. */
cs_status_t cs_attn_ring_init(cs_attn_ring_t *st, cs_dtype_t d, size_t c,
			      size_t A, size_t D, const int qchunk[2],
			      double *mem);

/*
 * One step of the ring: Q [2c, A, D] holds the rank's query chunks
 * st->qchunk[0], [1] (in that order), KV the held keys then values, each
 * [2c, A, D], of chunks kchunk[0], kchunk[1]. For each query chunk a and
 * then each key chunk b, in that order: skip b > a, the diagonal block
 * when b == a, the whole block when b < a; merge each block into a's rows.
 */
void cs_attn_ring_step(cs_attn_ring_t *st, const void *Q,
		       const int kchunk[2], const void *KV);

/* The rank's output O [2c, A, D] (dtype d): the running o rounded. */
void cs_attn_ring_finish(const cs_attn_ring_t *st, void *O);

#endif /* CS_PATTERNS_ATTN_H */
