/*
 * pp.h - the pp pattern's model (spec/patterns.md section 5.10), private
 * to ref/patterns/ and its tests: the sizes, and the plain serial chain
 * (every stage on one rank, whole batch at once) that every rank of the
 * pattern checks its 1F1B results against.
 */
#ifndef CS_PATTERNS_PP_H
#define CS_PATTERNS_PP_H

#include "csref/pattern.h"

/* Micro-batches M, micro-batch rows b, hidden H (section 5.10). */
enum { CS_PP_M = 4, CS_PP_B = 2, CS_PP_H = 4 };
/* Input tensors as cs_pat_fill numbers them: X [M b, H] (q = 0), W_s
 * [H, H] (q = s), C [M b, H] (q = 0). */
enum { CS_PP_T_X, CS_PP_T_W, CS_PP_T_C };

/*
 * The serial chain of instance inst of P stages, dtype x->dtype: act[s]
 * (s = 0..P) is stage s's input [M b, H] (act[0] = X, act[s+1] = ReLU(
 * act[s] W_s)), grad[s] the loss gradient with respect to act[s]
 * (grad[P] = C), dw[s] [H, H] stage s's weight gradient. The caller's
 * buffers hold (P+1) M b H, (P+1) M b H and P H H elements. CS_OK, or
 * CS_ERR_NOMEM (scratch).
 */
cs_status_t cs_pp_chain(const cs_pctx_t *x, int inst, int P, void *act,
			void *grad, void *dw);

#endif /* CS_PATTERNS_PP_H */
