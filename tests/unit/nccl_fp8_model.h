/*
 * nccl_fp8_model.h - what NCCL's device code computes for one float8
 * reduction step, emulated on the host for the tests.
 *
 * Read from NCCL's src/device/reduce_kernel.h (sm_90 specialisations) and
 * src/enqueue.cc (the AVG scalar), and from cuda_fp8.hpp (the conversion):
 *   - a step widens both float8 operands to half (exact), applies __hadd,
 *     __hmul, __hmax or __hmin in half (round to nearest even, overflow to
 *     infinity), and narrows with __NV_SATFINITE: round to nearest even,
 *     anything beyond the largest finite value, infinities included, becomes
 *     that value with its sign, NaN stays NaN;
 *   - PREMULSUM's pre-op is the same step with x and the float8 scalar
 *     (FuncPreMulSum); one rank applies only the pre-op (ncclLaunchOneRank)
 *     and copies for every other op;
 *   - AVG is PREMULSUM with c = __nv_cvt_float_to_fp8(float(1.0 / P),
 *     __NV_SATFINITE).
 * Written from those definitions without ref/include/csref/arith.h, so
 * that the golden semantics are checked against an independent model.
 */
#ifndef NCCL_FP8_MODEL_H
#define NCCL_FP8_MODEL_H

#include <stdint.h>
#include "cs_catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Value of a float8 bit pattern (d: FLOAT8_E4M3 or FLOAT8_E5M2): exact,
 * NaN for NaN patterns, +-Inf for E5M2's infinities. */
double ncclm_value(cs_dtype_t d, uint8_t b);

/* A double rounded to binary16 (nearest even, overflow to +-Inf). */
double ncclm_half(double z);

/* __nv_cvt_*_to_fp8(z, __NV_SATFINITE): the float8 bits of z. */
uint8_t ncclm_satfinite(cs_dtype_t d, double z);

/* One step a OP b (op SUM, PROD, MAX or MIN): __hadd, __hmul, __hmax or
 * __hmin on the widened operands, narrowed with __NV_SATFINITE. */
uint8_t ncclm_step(cs_dtype_t d, cs_op_t op, uint8_t a, uint8_t b);

/* PREMULSUM's pre-op: x times the float8 scalar s, as one step. */
uint8_t ncclm_premul(cs_dtype_t d, uint8_t x, uint8_t s);

/* The AVG scalar NCCL computes for P ranks. */
uint8_t ncclm_avg_scalar(cs_dtype_t d, int P);

#ifdef __cplusplus
}
#endif
#endif /* NCCL_FP8_MODEL_H */
