/*
 * zero.h - the engine the sharded data-parallel patterns share
 * (spec/patterns.md sections 5.2 and 5.3): zero1, zero2, zero3 (p_zero.c)
 * and fsdp (p_fsdp.c) differ only in which kind they pass.
 */
#ifndef CS_PATTERNS_ZERO_H
#define CS_PATTERNS_ZERO_H

#include <stddef.h>
#include "csref/pattern.h"

typedef enum cs_zero_kind {
	CS_ZERO_1,    /* allreduce avg, update the owned block, allgather (zero1
		       * ar-*; zero1 rs-* runs CS_ZERO_2's calls) */
	CS_ZERO_2,    /* reducescatter avg, update, allgather */
	CS_ZERO_3,    /* allgather fwd and bwd, reducescatter avg, update */
	CS_ZERO_FSDP  /* zero3 per unit: (W1, b1), (W2, b2) */
} cs_zero_kind_t;

/* The model's sizes (section 5.1's defaults). */
enum { CS_ZERO_H = 2, CS_ZERO_F = 3 };

/* One training step of kind `kind` on every local rank of x, checked
 * (checks (a)-(d) of section 5.2); a pattern's run(). */
cs_status_t cs_zero_run(const cs_pctx_t *x, cs_zero_kind_t kind);

/* Variants "sgd" and "adam" (zero2, zero3, fsdp); zero1's four (spec
 * section 5.2): "ar-sgd", "ar-adam" average the gradient by allreduce,
 * "rs-sgd", "rs-adam" by reducescatter (the ZeRO paper's and the
 * Ultra-Scale Playbook's ZeRO-1, zero2's calls). In both lists variant v
 * runs Adam when v % 2 == 1, SGD otherwise; adam runs float32 only (a
 * pattern's accepts()). */
enum { CS_ZERO_NVARIANTS = 2, CS_ZERO1_NVARIANTS = 4, CS_ZERO_NDTYPES = 3 };
extern const char *const cs_zero_variants[CS_ZERO_NVARIANTS];
extern const char *const cs_zero1_variants[CS_ZERO1_NVARIANTS];
extern const cs_dtype_t cs_zero_dtypes[CS_ZERO_NDTYPES];
int cs_zero_accepts(int v, cs_dtype_t d, char *why, size_t len);

#endif /* CS_PATTERNS_ZERO_H */
