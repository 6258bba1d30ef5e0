/*
 * reduce_kernels.cu - the elementwise reduction kernel, instantiated for
 * every catalog dtype x op, and its host entry point (see csgpu/reduce.h).
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include "csgpu/device.h"
#include "csgpu/functor.h"
#include "csgpu/reduce.h"
#include "csref/catalog.h"

enum {
	CSGPU_REDUCE_THREADS = 256,   /* threads per block */
	CSGPU_REDUCE_MAX_BLOCKS = 4096 /* beyond this, threads loop */
};

/* inout[i] = f(inout[i], in[i]) for i < n, one element per thread and
 * grid-stride loop. */
template <cs_dtype_t D, cs_op_t O>
static __global__ void
cs_gpu_reduce_kernel(typename cs_gpu_functor<D, O>::elem_t *inout,
		     const typename cs_gpu_functor<D, O>::elem_t *in, size_t n)
{
	const cs_gpu_functor<D, O> f;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		inout[i] = f(inout[i], in[i]);
}

template <cs_dtype_t D, cs_op_t O>
static cudaError_t cs_gpu_reduce_launch(void *inout, const void *in,
					size_t n, cudaStream_t stream)
{
	typedef typename cs_gpu_functor<D, O>::elem_t elem_t;
	size_t blocks = (n + CSGPU_REDUCE_THREADS - 1) / CSGPU_REDUCE_THREADS;

	if (blocks > CSGPU_REDUCE_MAX_BLOCKS)
		blocks = CSGPU_REDUCE_MAX_BLOCKS;
	cs_gpu_reduce_kernel<D, O>
		<<<(unsigned)blocks, CSGPU_REDUCE_THREADS, 0, stream>>>(
			(elem_t *)inout, (const elem_t *)in, n);
	return cudaGetLastError();
}

/* One case per catalog op: the instantiations of dtype D. */
template <cs_dtype_t D>
static cudaError_t cs_gpu_reduce_dtype(cs_op_t op, void *inout,
				       const void *in, size_t n,
				       cudaStream_t stream)
{
	switch (op) {
#define CSGPU_OP_CASE_(ID, ...)                                         \
	case CS_OP_##ID:                                                \
		return cs_gpu_reduce_launch<D, CS_OP_##ID>(inout, in, n, \
							   stream);
	CS_OP_LIST(CSGPU_OP_CASE_)
#undef CSGPU_OP_CASE_
	case CS_NUM_OPS: /* CS_OP_NONE, no reduction */
	default:
		return cudaErrorInvalidValue;
	}
}

/* One case per catalog dtype. */
static cudaError_t cs_gpu_reduce_any(cs_dtype_t d, cs_op_t op, void *inout,
				     const void *in, size_t n,
				     cudaStream_t stream)
{
	switch (d) {
#define CSGPU_DTYPE_CASE_(ID, ...)                                        \
	case CS_DTYPE_##ID:                                               \
		return cs_gpu_reduce_dtype<CS_DTYPE_##ID>(op, inout, in, n, \
							  stream);
	CS_DTYPE_LIST(CSGPU_DTYPE_CASE_)
#undef CSGPU_DTYPE_CASE_
	case CS_NUM_DTYPES: /* not a dtype */
	default:
		return cudaErrorInvalidValue;
	}
}

cs_status_t cs_gpu_reduce_bufs(cs_dtype_t d, cs_op_t op, void *d_inout,
			       const void *d_in, size_t n,
			       cudaStream_t stream)
{
	size_t size;

	if ((unsigned)d >= CS_NUM_DTYPES)
		return cs_error(CS_ERR_INVALID,
				"cs_gpu_reduce_bufs: dtype %d is not in the catalog",
				(int)d);
	if ((unsigned)op >= CS_NUM_OPS)
		return cs_error(CS_ERR_INVALID,
				"cs_gpu_reduce_bufs: op %d is not a reduction op",
				(int)op);
	if (n == 0)
		return CS_OK;
	if (!d_inout || !d_in)
		return cs_error(CS_ERR_INVALID,
				"cs_gpu_reduce_bufs: NULL buffer with n = %zu", n);
	size = (size_t)cs_size_of(d);
	if ((uintptr_t)d_inout % size || (uintptr_t)d_in % size)
		return cs_error(CS_ERR_INVALID,
				"cs_gpu_reduce_bufs: buffers not aligned to the "
				"%zu-byte elements of %s", size,
				cs_dtype_name(d));
	return cs_gpu_error(cs_gpu_reduce_any(d, op, d_inout, d_in, n, stream),
			    "reduce kernel launch");
}
