/*
 * mlp.h - the small MLP of spec/patterns.md section 5.1 on a flat
 * parameter vector, shared by the dp, zero1/2/3 and fsdp patterns: its
 * forward, its backward giving the flat gradient (whole, or per FSDP unit),
 * and the SGD and Adam updates of a shard (section 5.2).
 *
 *   Y = ReLU(X W1 + b1) W2 + b2,   loss sum(C . Y),
 *   X [B, H], W1 [H, F], b1 [F], W2 [F, H], b2 [H].
 *
 * The flat vector holds W1, b1, W2, b2 in that order (cs_mlp_off). Every
 * function follows csref/pkern.h's rule (one fixed loop per output element
 * in the accumulation type, one rounding), so the distributed run and the
 * serial mirror compute the same bits from the same bits.
 */
#ifndef CS_PATTERNS_MLP_H
#define CS_PATTERNS_MLP_H

#include <stddef.h>
#include "csref/catalog.h"

/* The model's sizes. */
typedef struct cs_mlp {
	size_t B, H, F;
} cs_mlp_t;

/* The parameter tensors, in parameter order. */
enum { CS_MLP_W1, CS_MLP_B1, CS_MLP_W2, CS_MLP_B2, CS_MLP_NT };

/* Elements of tensor t, and its offset in the flat vector. */
size_t cs_mlp_numel_of(const cs_mlp_t *m, int t);
size_t cs_mlp_off(const cs_mlp_t *m, int t);

/* N = 2HF + F + H, the flat vector's length. */
size_t cs_mlp_numel(const cs_mlp_t *m);

/* The flat vector g (parameter order) rewritten into r in reverse tensor
 * order, b2, W2, b1, W1, each tensor's elements in their own order: DP's
 * gradient as backward produces it, which its buckets cut (section 5.1). */
void cs_mlp_reverse(cs_dtype_t d, const cs_mlp_t *m, const void *g, void *r);

/* Elements of the scratch the functions below take: room for A = ReLU(X W1
 * + b1) and dA, B F each. */
size_t cs_mlp_work_numel(const cs_mlp_t *m);

/* Forward from flat parameters p: A [B, F] = ReLU(X W1 + b1) (kept for the
 * backward) and, when Y is not NULL, Y [B, H] = A W2 + b2. */
void cs_mlp_forward(cs_dtype_t d, const cs_mlp_t *m, const void *p,
		    const void *X, void *A, void *Y);

/* Backward of the output layer (FSDP's unit 1), loss gradient C [B, H]:
 * into the flat gradient g, dW2 = A^T C and db2 = colsum(C); into dA
 * [B, F], (C W2^T) . [A > 0], the gradient entering the first layer. W2
 * is read from p. */
void cs_mlp_backward_out(cs_dtype_t d, const cs_mlp_t *m, const void *p,
			 const void *A, const void *C, void *dA, void *g);

/* Backward of the first layer (FSDP's unit 0): dW1 = X^T dA and
 * db1 = colsum(dA) into the flat gradient g. */
void cs_mlp_backward_in(cs_dtype_t d, const cs_mlp_t *m, const void *X,
			const void *dA, void *g);

/* The whole flat gradient g [N] of the loss at p for one batch (X, C):
 * forward, then both backwards. work holds cs_mlp_work_numel elements. */
void cs_mlp_grad(cs_dtype_t d, const cs_mlp_t *m, const void *p,
		 const void *X, const void *C, void *work, void *g);

/* The SGD learning rate of spec section 5.2: 2^-4 for floats, 1 for
 * integers. */
double cs_mlp_lr(cs_dtype_t d);

/* SGD on n elements: out[i] = RN(w[i] - RN(lr g[i])) (integers: wrapped
 * w - g). Evaluated in double and rounded to d: exact for lr g, and one
 * correct rounding for the difference (a double rounding of a sum of two
 * values of p <= 24 bits through 53 bits is innocuous, 53 >= 2p + 1). */
void cs_mlp_sgd(cs_dtype_t d, size_t n, const void *w, const void *g,
		void *out);

/* Adam, one step from zero state (float32 only), spec section 5.2, in
 * float32 with each operation rounded: m = (1-b1) g, v = ((1-b2) g) g,
 * mh = m / (1-b1), vh = v / (1-b2), out = w - lr (mh / (sqrt(vh) + eps)),
 * b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 2^-4. */
void cs_mlp_adam(cs_dtype_t d, size_t n, const void *w, const void *g,
		 void *out);

#endif /* CS_PATTERNS_MLP_H */
