/*
 * functor.h - the reduction functors of libcsgpu: what one kernel thread
 * applies to one element, for every catalog dtype and op.
 *
 * Two layers, both over ref/include/csref/arith.h so that the GPU computes
 * exactly (bit for bit) what the reference computes:
 *
 *   - plain C (usable from C, C++ and CUDA, host and device): cs_gpu_step,
 *     cs_gpu_pre, cs_gpu_post on raw bit patterns held in a uint64_t;
 *   - C++ only (host C++ and CUDA): the template cs_gpu_functor<D, O>, whose
 *     element type is the catalog's storage width of D and whose methods
 *     call the C layer with D and O as compile-time constants, so that the
 *     compiler folds every dtype and op switch away inside a kernel.
 *
 * A reducing collective applies, per element and per contribution:
 *   pre  once to each rank's input (PREMULSUM: times the rank's scalar;
 *        float AVG: times 1/P rounded to the dtype; otherwise identity),
 *   step pairwise, in any order (AVG and PREMULSUM combine with SUM),
 *   post once to the fully reduced value (integer AVG: divide by P).
 * This is the element-level form of csref/reduce.h's prepare/reduce/finish.
 */
#ifndef CSGPU_FUNCTOR_H
#define CSGPU_FUNCTOR_H

#include <stdint.h>
#include "cs_catalog.h"
#include "csref/arith.h"

/* Qualifiers of a functor method: host and device under nvcc. */
#ifdef __CUDACC__
#define CSGPU_HD __host__ __device__ inline
#else
#define CSGPU_HD inline
#endif

/*
 * a STEP b for one element of dtype d, where STEP is the pairwise op that
 * catalog op `op` combines with (cs_step_op): the arithmetic of one ring or
 * tree step. a and b are bit patterns of d; the result is one too.
 */
CS_HD uint64_t cs_gpu_step(cs_dtype_t d, cs_op_t op, uint64_t a, uint64_t b)
{
	return cs_step(d, cs_step_op(op), a, b);
}

/*
 * The contribution one rank's input element x makes to a reduction with op
 * `op` over nranks ranks. scalar is the rank's PREMULSUM scalar (bits of d;
 * ignored for other ops). Matches cs_op_prepare element for element.
 */
CS_HD uint64_t cs_gpu_pre(cs_dtype_t d, cs_op_t op, int nranks,
			  uint64_t scalar, uint64_t x)
{
	if (op == CS_OP_PREMULSUM)
		return cs_op_premul(d, x, scalar);
	if (op == CS_OP_AVG && cs_is_float(d))
		return cs_op_premul(d, x, cs_avg_scalar(d, nranks));
	return x;
}

/*
 * The final value of a fully reduced element x of a reduction with op `op`
 * over nranks ranks (integer AVG: the wrapped sum divided by P, truncated;
 * every other case: x). Matches cs_op_finish element for element.
 */
CS_HD uint64_t cs_gpu_post(cs_dtype_t d, cs_op_t op, int nranks, uint64_t x)
{
	if (op == CS_OP_AVG && !cs_is_float(d))
		return cs_op_postdiv(d, x, nranks);
	return x;
}

#ifdef __cplusplus

/* Unsigned integer type of BYTES bytes: the storage of one element. */
template <int BYTES> struct cs_gpu_uint;
template <> struct cs_gpu_uint<1> { typedef uint8_t type; };
template <> struct cs_gpu_uint<2> { typedef uint16_t type; };
template <> struct cs_gpu_uint<4> { typedef uint32_t type; };
template <> struct cs_gpu_uint<8> { typedef uint64_t type; };

/* Per-dtype storage, generated from the catalog's `bytes` column. */
template <cs_dtype_t D> struct cs_gpu_dtype;
#define CSGPU_DTYPE_TRAITS_(ID, name, bytes, ...)                      \
	template <> struct cs_gpu_dtype<CS_DTYPE_##ID> {               \
		typedef cs_gpu_uint<bytes>::type bits_t;               \
		enum { size = bytes };                                 \
	};
CS_DTYPE_LIST(CSGPU_DTYPE_TRAITS_)
#undef CSGPU_DTYPE_TRAITS_

/*
 * The reduction functor of dtype D and op O. It is built from the op's
 * argument - the number of ranks (AVG) and this rank's scalar (PREMULSUM,
 * bits of D) - and holds nothing else. Elements are the raw storage of D.
 *   f(a, b)  one step, cs_gpu_step
 *   f.pre(x) this rank's contribution of its input x, cs_gpu_pre
 *   f.post(x) the final value of a fully reduced x, cs_gpu_post
 */
template <cs_dtype_t D, cs_op_t O> struct cs_gpu_functor {
	typedef typename cs_gpu_dtype<D>::bits_t elem_t;

	int nranks;
	uint64_t scalar;

	CSGPU_HD explicit cs_gpu_functor(int nranks_ = 1, uint64_t scalar_ = 0)
		: nranks(nranks_), scalar(scalar_)
	{
	}

	CSGPU_HD elem_t operator()(elem_t a, elem_t b) const
	{
		return (elem_t)cs_gpu_step(D, O, a, b);
	}

	CSGPU_HD elem_t pre(elem_t x) const
	{
		return (elem_t)cs_gpu_pre(D, O, nranks, scalar, x);
	}

	CSGPU_HD elem_t post(elem_t x) const
	{
		return (elem_t)cs_gpu_post(D, O, nranks, x);
	}
};

#endif /* __cplusplus */
#endif /* CSGPU_FUNCTOR_H */
