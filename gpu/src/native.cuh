/*
 * native.cuh - the per-element arithmetic of libcsgpu's kernels, with D and
 * O compile-time constants: CUDA's own half, bfloat16 and fp8 instructions
 * where they give exactly the bits of csref/arith.h, the shared functors
 * (csgpu/functor.h) everywhere else.
 *
 * Why the native paths are bit-identical (tests/gpu/test_gpu_native.cu
 * checks every one of them against cs_gpu_step on a device, exhaustively):
 *   - float16, bfloat16 SUM and PROD: arith.h computes x OP y in double and
 *     rounds once to nearest even. The product of two such values is exact
 *     in double and the sum is rounded twice harmlessly (53 >= 2p + 2), so
 *     that is the correctly rounded IEEE result, which add.rn/mul.rn in the
 *     type also give (subnormals are kept: no .ftz on 16-bit arithmetic).
 *     The _rn intrinsics are used so that the compiler never contracts a
 *     multiply and an add into one fma. Only a NaN result differs: arith.h
 *     returns the canonical quiet NaN (positive, top mantissa bit), which
 *     csg_nan16 substitutes.
 *   - float8 SUM and PROD: both operands are decoded exactly (fp8 to half
 *     to float), the product is exact in float, the sum rounded harmlessly
 *     (24 >= 2 * 4 + 2; in the subnormal range the sum is exact); then the
 *     float is rounded to fp8 by the hardware conversion (nearest even,
 *     satfinite), except where arith.h's non-saturating rounding differs:
 *     a NaN result (canonical NaN) and a magnitude that rounds beyond the
 *     largest finite value (e4m3: NaN with the sign, beyond 464; e5m2:
 *     infinity with the sign, from 61440 = 57344 + half an ulp, a tie that
 *     rounds to the odd maximum's successor).
 *   - float32 SUM (and the SUM steps of AVG and PREMULSUM): the
 *     hardware's round-to-nearest add, no flush to zero (csgpu/fadd.h:
 *     the argument, and the CPU test of the same function).
 *   - everything else (MAX, MIN, integers, float32 PROD, float64): the
 *     shared functors, which compile to the same instructions on host and
 *     device.
 * PREMULSUM and float AVG pre-multiply with the type's PROD (arith.h's
 * cs_op_premul; float64 multiplies without the NaN canonicalisation).
 */
#ifndef CSGPU_NATIVE_CUH
#define CSGPU_NATIVE_CUH

#include <stdint.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include "cs_catalog.h"
#include "csgpu/fadd.h"
#include "csgpu/functor.h"
#include "csgpu/sched.h" /* CSG_MAX_SRC */

/* ---- NaN results of the 16-bit formats ---------------------------------- */

/* r, or the canonical quiet NaN `canon` when r is a NaN (magnitude above
 * the infinity pattern `inf`). */
static __device__ __forceinline__ uint16_t csg_nan16(uint16_t r, uint16_t inf,
						     uint16_t canon)
{
	return (r & 0x7fffu) > inf ? canon : r;
}

/* Both 16-bit lanes of w through csg_nan16. */
static __device__ __forceinline__ uint32_t csg_nan16x2(uint32_t w,
						       uint16_t inf,
						       uint16_t canon)
{
	return (uint32_t)csg_nan16((uint16_t)w, inf, canon) |
	       (uint32_t)csg_nan16((uint16_t)(w >> 16), inf, canon) << 16;
}

/* ---- the step of dtype D with pairwise op S (SUM, PROD, MAX, MIN) ------- */

/*
 * csg_native<D, S>::step(a, b): one step on bit patterns, as
 * cs_step(D, S, a, b). packed: 1 when step2 handles two 16-bit lanes of a
 * 32-bit word at once (lane i of the result is step of lane i).
 */
template <cs_dtype_t D, cs_op_t S> struct csg_native {
	typedef typename cs_gpu_dtype<D>::bits_t elem_t;
	enum { packed = 0 };

	static __device__ __forceinline__ elem_t step(elem_t a, elem_t b)
	{
		return (elem_t)cs_step(D, S, a, b);
	}

	static __device__ __forceinline__ uint32_t step2(uint32_t a, uint32_t b)
	{
		return a; /* never called: packed == 0 */
	}
};

/* float16: add.rn.f16 / mul.rn.f16, canonical NaN 0x7e00. */
#define CSG_NATIVE_F16_(S, FN, FN2)                                         \
	template <> struct csg_native<CS_DTYPE_FLOAT16, S> {                \
		typedef uint16_t elem_t;                                    \
		enum { packed = 1 };                                        \
		static __device__ __forceinline__ elem_t step(elem_t a,     \
							      elem_t b)     \
		{                                                           \
			__half_raw x, y, r;                                 \
			x.x = a;                                            \
			y.x = b;                                            \
			r = FN(__half(x), __half(y));                       \
			return csg_nan16(r.x, 0x7c00u, 0x7e00u);            \
		}                                                           \
		static __device__ __forceinline__ uint32_t step2(uint32_t a, \
								uint32_t b) \
		{                                                           \
			__half2 x, y, r;                                    \
			uint32_t w;                                         \
			memcpy(&x, &a, 4);                                  \
			memcpy(&y, &b, 4);                                  \
			r = FN2(x, y);                                      \
			memcpy(&w, &r, 4);                                  \
			return csg_nan16x2(w, 0x7c00u, 0x7e00u);            \
		}                                                           \
	};
CSG_NATIVE_F16_(CS_OP_SUM, __hadd_rn, __hadd2_rn)
CSG_NATIVE_F16_(CS_OP_PROD, __hmul_rn, __hmul2_rn)
#undef CSG_NATIVE_F16_

/* bfloat16: add.rn.bf16 / mul.rn.bf16, canonical NaN 0x7fc0. */
#define CSG_NATIVE_BF16_(S, FN, FN2)                                        \
	template <> struct csg_native<CS_DTYPE_BFLOAT16, S> {               \
		typedef uint16_t elem_t;                                    \
		enum { packed = 1 };                                        \
		static __device__ __forceinline__ elem_t step(elem_t a,     \
							      elem_t b)     \
		{                                                           \
			__nv_bfloat16_raw x, y, r;                          \
			x.x = a;                                            \
			y.x = b;                                            \
			r = FN(__nv_bfloat16(x), __nv_bfloat16(y));         \
			return csg_nan16(r.x, 0x7f80u, 0x7fc0u);            \
		}                                                           \
		static __device__ __forceinline__ uint32_t step2(uint32_t a, \
								uint32_t b) \
		{                                                           \
			__nv_bfloat162 x, y, r;                             \
			uint32_t w;                                         \
			memcpy(&x, &a, 4);                                  \
			memcpy(&y, &b, 4);                                  \
			r = FN2(x, y);                                      \
			memcpy(&w, &r, 4);                                  \
			return csg_nan16x2(w, 0x7f80u, 0x7fc0u);            \
		}                                                           \
	};
CSG_NATIVE_BF16_(CS_OP_SUM, __hadd_rn, __hadd2_rn)
CSG_NATIVE_BF16_(CS_OP_PROD, __hmul_rn, __hmul2_rn)
#undef CSG_NATIVE_BF16_

/* float32 SUM: the hardware's add (csgpu/fadd.h says why the bits are
 * cs_step's). */
template <> struct csg_native<CS_DTYPE_FLOAT32, CS_OP_SUM> {
	typedef uint32_t elem_t;
	enum { packed = 0 };

	static __device__ __forceinline__ elem_t step(elem_t a, elem_t b)
	{
		return csg_f32_add(a, b);
	}

	static __device__ __forceinline__ uint32_t step2(uint32_t a, uint32_t b)
	{
		return a; /* never called: packed == 0 */
	}
};

/* ---- float8 -------------------------------------------------------------- */

/* The fp8 format of D, its largest magnitude that still rounds to a finite
 * value (e4m3: 464 rounds to 448, anything above overflows; e5m2: below
 * 61440), its overflow pattern and its canonical NaN (csref/arith.h). */
template <cs_dtype_t D> struct csg_fp8;
template <> struct csg_fp8<CS_DTYPE_FLOAT8_E4M3> {
	static __device__ __forceinline__ __nv_fp8_interpretation_t fmt()
	{
		return __NV_E4M3;
	}
	static __device__ __forceinline__ bool overflows(float a)
	{
		return a > 464.0f;
	}
	enum { ovf = 0x7f, nan = 0x7f };
};
template <> struct csg_fp8<CS_DTYPE_FLOAT8_E5M2> {
	static __device__ __forceinline__ __nv_fp8_interpretation_t fmt()
	{
		return __NV_E5M2;
	}
	static __device__ __forceinline__ bool overflows(float a)
	{
		return a >= 61440.0f;
	}
	enum { ovf = 0x7c, nan = 0x7e };
};

/* The exact float value of fp8 bits b. */
template <cs_dtype_t D>
static __device__ __forceinline__ float csg_fp8_to_float(uint8_t b)
{
	return __half2float(__half(
		__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b,
					csg_fp8<D>::fmt())));
}

/* A float rounded to fp8 as arith.h's cs_fmt_encode(sat = 0) rounds it,
 * given that x is not a NaN result of the operation. */
template <cs_dtype_t D>
static __device__ __forceinline__ uint8_t csg_float_to_fp8(float x)
{
	uint8_t sign = signbit(x) ? 0x80 : 0;

	if (isnan(x))
		return (uint8_t)csg_fp8<D>::nan;
	if (csg_fp8<D>::overflows(fabsf(x)))
		return (uint8_t)(sign | csg_fp8<D>::ovf);
	return (uint8_t)__nv_cvt_float_to_fp8(x, __NV_SATFINITE,
					      csg_fp8<D>::fmt());
}

#define CSG_NATIVE_FP8_(D, S, FN)                                           \
	template <> struct csg_native<D, S> {                               \
		typedef uint8_t elem_t;                                     \
		enum { packed = 0 };                                        \
		static __device__ __forceinline__ elem_t step(elem_t a,     \
							      elem_t b)     \
		{                                                           \
			return csg_float_to_fp8<D>(FN(csg_fp8_to_float<D>(a), \
						      csg_fp8_to_float<D>(b))); \
		}                                                           \
		static __device__ __forceinline__ uint32_t step2(uint32_t a, \
								uint32_t b) \
		{                                                           \
			return a;                                           \
		}                                                           \
	};
CSG_NATIVE_FP8_(CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM, __fadd_rn)
CSG_NATIVE_FP8_(CS_DTYPE_FLOAT8_E4M3, CS_OP_PROD, __fmul_rn)
CSG_NATIVE_FP8_(CS_DTYPE_FLOAT8_E5M2, CS_OP_SUM, __fadd_rn)
CSG_NATIVE_FP8_(CS_DTYPE_FLOAT8_E5M2, CS_OP_PROD, __fmul_rn)
#undef CSG_NATIVE_FP8_

/* ---- the reduction of a collective: pre, step, post ----------------------- */

/*
 * csg_arith<D, O>: what an op of a reducing collective with dtype D and op
 * O applies (csgpu/exec.h's csg_apply, element for element):
 *   pre(x, s)  x times the scalar s (PREMULSUM: the rank's; float AVG:
 *              1/P rounded), when has_pre; identity otherwise;
 *   step(a, b) the pairwise step (AVG and PREMULSUM: SUM);
 *   post(x, P) integer AVG's division, when has_post.
 */
template <cs_dtype_t D, cs_op_t O> struct csg_arith {
	typedef typename cs_gpu_dtype<D>::bits_t elem_t;
	static const cs_op_t S =
		(O == CS_OP_AVG || O == CS_OP_PREMULSUM) ? CS_OP_SUM : O;
	static const bool is_float = D >= CS_DTYPE_FLOAT16;
	static const bool has_pre =
		O == CS_OP_PREMULSUM || (O == CS_OP_AVG && is_float);
	static const bool has_post = O == CS_OP_AVG && !is_float;
	typedef csg_native<D, S> native;
	typedef csg_native<D, CS_OP_PROD> mul;
	/* step2 / pre2 work on two 16-bit lanes of a word at once */
	static const bool step_packed = sizeof(elem_t) == 2 && native::packed;
	static const bool pre_packed = sizeof(elem_t) == 2 && mul::packed;
	static const int max_src = CSG_MAX_SRC;

	static __device__ __forceinline__ elem_t step(elem_t a, elem_t b)
	{
		return native::step(a, b);
	}

	static __device__ __forceinline__ uint32_t step2(uint32_t a, uint32_t b)
	{
		return native::step2(a, b);
	}

	/* both lanes of w times the scalar pair ss */
	static __device__ __forceinline__ uint32_t pre2(uint32_t w, uint32_t ss)
	{
		return mul::step2(w, ss);
	}

	static __device__ __forceinline__ elem_t pre(elem_t x, elem_t s)
	{
		if (D == CS_DTYPE_FLOAT64)
			return (elem_t)cs_op_premul(D, x, s);
		return csg_native<D, CS_OP_PROD>::step(x, s);
	}

	static __device__ __forceinline__ elem_t post(elem_t x, int P)
	{
		return (elem_t)cs_op_postdiv(D, x, P);
	}

	/* The scalar rank r's inputs are pre-multiplied with. */
	static __device__ __forceinline__ elem_t scalar(const uint64_t *scal,
							int P, int r)
	{
		if (O == CS_OP_PREMULSUM)
			return (elem_t)scal[r];
		return (elem_t)cs_avg_scalar(D, P);
	}
};

#endif /* CSGPU_NATIVE_CUH */
