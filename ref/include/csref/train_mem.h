/*
 * train_mem.h - memory per rank of a training step (issue 21, `collspec
 * model --train --memory`, docs/model.md section 4.8): the model states
 * (parameters, gradients, optimizer states) of one rank under ZeRO 0..3
 * and FSDP, and the activations one rank keeps for the backward. Pure
 * arithmetic on csref/train.h's configuration; every figure in bytes.
 *
 * Assumptions (docs/model.md 4.8 states them for readers):
 *  - mixed-precision Adam: parameters and gradients in the configuration's
 *    dtype (w bytes each: 2 for bfloat16), optimizer states K = 12 bytes
 *    per parameter (an fp32 master copy, Adam's m and v);
 *  - the parameters are cs_train_params' (first pipeline stage, already
 *    divided by tp and pp); dense ones shard over the dp group, expert
 *    ones over the expert-data-parallel group of dp / ep ranks;
 *  - ZeRO-1 shards the optimizer states, ZeRO-2 also the gradients,
 *    ZeRO-3 also the parameters; FSDP (full shard) keeps ZeRO-3's states
 *    and both gather one layer's parameters at a time (the "gathered"
 *    figure, transient, not in the total);
 *  - activations without recomputation, Korthikanti et al. 2022 (16-bit
 *    activations, 1-byte dropout masks), per layer and micro-batch with
 *    s = seq / cp, b = micro-batch, h = hidden, F = ffn, a = heads, t = tp:
 *      no sp:  10 s b h + (8 s b h + 4 s b F + 5 a s^2 b) / t
 *      sp:     (18 s b h + 4 s b F + 5 a s^2 b) / t
 *    (F = 4h gives the paper's s b h (10 + 24/t + 5 a s / (h t))), times
 *    the first stage's layers / pp, times the micro-batches 1F1B keeps in
 *    flight there, min(pp, micro-batches); embedding and loss activations
 *    are left out. The expert MLP of an MoE layer is counted as one dense
 *    MLP of width F per token and chosen expert (top-k of them).
 */
#ifndef CSREF_TRAIN_MEM_H
#define CSREF_TRAIN_MEM_H

#include "csref/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Optimizer bytes per parameter: fp32 master, Adam m and v. */
#define CS_TRAIN_MEM_K 12

/* The sharding schemes of the memory table: ZeRO stages 0..3, FSDP. */
#define CS_TRAIN_MEM_FSDP 4
#define CS_TRAIN_MEM_NSCHEMES 5

/* Memory per rank, bytes. */
typedef struct cs_train_mem {
	double params, grads, optim; /* model states */
	double acts;                 /* activations kept for the backward */
	double gathered;             /* ZeRO-3 / FSDP: one layer's full
					parameters, transient; 0 otherwise */
	double total;                /* params + grads + optim + acts */
} cs_train_mem_t;

/* "zero0".."zero3", "fsdp"; NULL for another value. */
const char *cs_train_mem_scheme_name(int scheme);

/*
 * Model states of psi parameters on one rank of a group of nd ranks that
 * shards them under scheme (0..3 ZeRO, CS_TRAIN_MEM_FSDP), w bytes per
 * parameter and per gradient, CS_TRAIN_MEM_K per optimizer state: adds to
 * m->params, m->grads, m->optim. CS_ERR_INVALID for psi < 0, nd < 1, w < 1
 * or an unknown scheme.
 */
cs_status_t cs_train_mem_states(double psi, int nd, int w, int scheme,
				cs_train_mem_t *m);

/* Activation bytes one rank keeps (the formula above) for cfg (checked
 * by the caller with cs_train_check). */
double cs_train_mem_acts(const cs_train_cfg_t *cfg);

/*
 * Memory per rank of cfg under scheme (cfg->zero is ignored): model
 * states of the dense and expert parameters, activations, the gathered
 * layer, the total. CS_ERR_INVALID for a cfg cs_train_check refuses or an
 * unknown scheme.
 */
cs_status_t cs_train_mem(const cs_train_cfg_t *cfg, int scheme,
			 cs_train_mem_t *m);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_TRAIN_MEM_H */
