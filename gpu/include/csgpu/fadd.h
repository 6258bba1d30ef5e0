/*
 * fadd.h - float32 SUM with the element type's own addition, bit for bit
 * what csref/arith.h's cs_step(CS_DTYPE_FLOAT32, CS_OP_SUM, a, b) gives.
 * Plain C, host and device: the kernels use it for float32 SUM, AVG and
 * PREMULSUM steps (gpu/src/native.cuh), and tests/gpu/test_gpu_fadd.c
 * holds the host compilation of the same function to cs_step on the CPU.
 *
 * Why it is the same: cs_step adds the two values in double and rounds
 * once to float. Both operands have 24-bit significands, and 53 >= 2 * 24
 * + 2, so rounding the double sum to float gives the correctly rounded
 * binary32 sum (the double rounding is innocuous; a sum in the subnormal
 * range is exact, so subnormals come out as they are). That is IEEE
 * binary32 addition with round-to-nearest-even, which the device's
 * __fadd_rn performs (FADD; never contracted into an FMA) as long as the
 * translation unit is not compiled with -ftz=true or --use_fast_math
 * (tests/gpu/sass_check.py checks the SASS for FADD without .FTZ), and
 * which the host's `+` on floats performs under C's default environment
 * (round to nearest, no flush to zero; the CPU test runs every subnormal
 * case, so a host that flushed would fail it). Only a NaN result differs
 * in its bits: cs_step returns the canonical quiet NaN 0x7fc00000, which
 * csg_f32_add substitutes.
 */
#ifndef CSGPU_FADD_H
#define CSGPU_FADD_H

#include <stdint.h>
#include <string.h>
#include "csref/arith.h" /* CS_HD */

/* binary32 x + y rounded to nearest even: CUDA's intrinsic on a device,
 * C's float addition on the host. */
#ifdef __CUDA_ARCH__
#define CSG_FADD_RN_(x, y) __fadd_rn((x), (y))
#else
#define CSG_FADD_RN_(x, y) ((x) + (y))
#endif

/* The canonical quiet NaN of float32 (cs_fmt_nanbits). */
#define CSG_F32_NAN 0x7fc00000u

/* a + b on float32 bit patterns, as cs_step(FLOAT32, SUM, a, b). */
CS_HD uint32_t csg_f32_add(uint32_t a, uint32_t b)
{
	float x, y, r;
	uint32_t v;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	r = CSG_FADD_RN_(x, y);
	memcpy(&v, &r, sizeof(v));
	return (v & 0x7fffffffu) > 0x7f800000u ? CSG_F32_NAN : v;
}

#endif /* CSGPU_FADD_H */
