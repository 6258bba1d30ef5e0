/*
 * moe.h - the MoE model's local work (spec/patterns.md section 5.9),
 * private to ref/patterns/ and its tests: the router (softmax over skewed
 * logits, top-k with ties to the lower index), capacity dropping by
 * position or by probability, the expert MLP and the gated combine.
 *
 * Every function follows csref/pkern.h's rule (one fixed loop per output
 * element in the accumulation type, one rounding to the dtype), so the
 * distributed run and the serial mirror compute the same bits. Gate
 * weights and probabilities are stored in the pattern's dtype, a float
 * dtype (the router's exp is not defined on integers).
 */
#ifndef CS_PATTERNS_MOE_H
#define CS_PATTERNS_MOE_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"
#include "csref/pattern.h"

/*
 * Router for tau tokens x [tau, H] with W_g [H, E]: logit_i = (x W_g)_i -
 * zeta i, probabilities by softmax (in the accumulation type, rounded to d
 * once), then cs_moe_topk. logits is the caller's scratch [tau, E] of d;
 * prob [tau, E] of d receives the probabilities.
 */
void cs_moe_route(cs_dtype_t d, const void *x, const void *wg, size_t tau,
		  size_t H, size_t E, double zeta, size_t k, void *logits,
		  void *prob, int *expert, void *gate);

/* Top-k of prob [tau, E] (dtype d) per token: slot j of token t gets
 * expert[t k + j], the j-th largest probability, ties to the lower expert
 * index, and gate[t k + j] (dtype d) that probability. k <= E. */
void cs_moe_topk(cs_dtype_t d, const void *prob, size_t tau, size_t E,
		 size_t k, int *expert, void *gate);

/* The drop rules of section 5.9. */
typedef enum cs_moe_drop {
	CS_MOE_DROP_POSITION = 0, /* (slot j, token t) ascending */
	CS_MOE_DROP_PROB          /* gate descending, then (t, j) */
} cs_moe_drop_t;

/*
 * Capacity dropping of one source rank's tau k assignments (expert[],
 * gate[] as cs_moe_topk gives them) to E experts, C per expert: the
 * assignments of each expert are ordered by rule and the first C kept.
 * pos[t k + j] gets the slot's place among its expert's kept rows
 * (0..C-1), or -1 when it is dropped; kept[i] (E entries) how many expert
 * i keeps, routed[i] (E entries, may be NULL) how many chose it.
 */
void cs_moe_drop(cs_dtype_t d, const int *expert, const void *gate,
		 size_t tau, size_t k, size_t E, int64_t C, cs_moe_drop_t rule,
		 int *pos, int64_t *kept, int64_t *routed);

/* One expert on n rows x [n, H]: y = ReLU(x W1) W2, W1 [H, F], W2 [F, H];
 * hid is the caller's scratch [n, F]. Rows are independent: a row's
 * output does not depend on which other rows come with it. */
void cs_moe_expert(cs_dtype_t d, const void *x, size_t n, size_t H,
		   size_t F, const void *w1, const void *w2, void *hid,
		   void *y);

/* Output of tau tokens: out[t] = sum over the kept slots j ascending
 * (pos[t k + j] >= 0) of gate[t k + j] y[t k + j] (y [tau k, H], the
 * expert output of each slot; dropped slots' rows are not read), one loop
 * per element in the accumulation type, one rounding; a token with no
 * kept slot gets 0. */
void cs_moe_combine(cs_dtype_t d, const void *y, const void *gate,
		    const int *pos, size_t tau, size_t k, size_t H, void *out);

/* ---- the pattern's instance (used by p_moe.c and its tests) ---------- */

/* Section 5.9's defaults: tau tokens per rank, hidden H, expert width
 * F_e, e experts per rank, top-k. */
enum { CS_MOE_TAU = 8, CS_MOE_H = 4, CS_MOE_FE = 4, CS_MOE_EPR = 2,
       CS_MOE_K = 2 };
/* Input tensors as cs_pat_fill numbers them: tokens [tau, H] (q = the
 * rank), W_g [H, E] (q = 0), W1 [H, F_e] and W2 [F_e, H] (q = expert). */
enum { CS_MOE_T_X, CS_MOE_T_WG, CS_MOE_T_W1, CS_MOE_T_W2 };

/* One variant of the pattern. */
typedef struct cs_moe_cfg {
	int pad;               /* mode pad, else a2av */
	cs_moe_drop_t rule;
	int64_t cf_num, cf_den; /* c_f exactly */
	double zeta;           /* router skew */
} cs_moe_cfg_t;

/* Everything of one instance of P ranks, as every rank recomputes it. */
typedef struct cs_moe_inst {
	int P, E;
	int64_t C;
	char *x;        /* [P][tau H] each rank's tokens */
	char *wg;       /* [H, E] */
	char *w1, *w2;  /* [E][H F_e], [E][F_e H] */
	char *logits, *prob; /* scratch [tau, E] */
	char *gate;     /* [P][tau k] */
	int *expert, *pos;       /* [P][tau k] */
	int64_t *kept, *routed;  /* [P][E] */
	char *ys;       /* [P][tau k H] each kept slot's expert output */
	char *out;      /* [P][tau H] each token's output */
	char *hid;      /* scratch [C + 1, F_e] */
} cs_moe_inst_t;

/* C = ceil(c_f k tau / E) for E = e P (cs_pat_moe_capacity). */
cs_status_t cs_moe_capacity(const cs_moe_cfg_t *cf, int P, int64_t *C);

/*
 * Instance inst of P ranks under variant cf, dtype x->dtype, inputs from
 * cs_pat_fill(x, ...): every rank's routing and drop (and, when experts,
 * every kept slot's expert output, one row at a time, and every token's
 * output), in one allocation *arena that the caller frees. CS_OK,
 * CS_ERR_NOMEM, or cs_moe_capacity's error.
 */
cs_status_t cs_moe_inst_make(const cs_pctx_t *x, const cs_moe_cfg_t *cf,
			     int inst, int P, int experts, cs_moe_inst_t *in,
			     char **arena);

/* m[s][dst]: the kept assignments of rank s's tokens to rank dst's
 * experts. */
int64_t cs_moe_m(const cs_moe_inst_t *in, int s, int dst);

#endif /* CS_PATTERNS_MOE_H */
