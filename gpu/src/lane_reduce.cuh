/*
 * lane_reduce.cuh - the reducing lane kernels: csg_lane_main (step.cuh)
 * with csg_arith<D, O> (native.cuh), one kernel per catalog dtype x op,
 * shared by every algorithm that reduces (ring and tree: the algorithm is
 * a run-time field of the plan, csgpu/sched.h).
 *
 * The kernels are cut into CSG_REDUCE_PARTS parts by dtype: part K holds
 * the dtypes whose catalog index is K mod CSG_REDUCE_PARTS, so a dtype
 * added to the catalog lands in a part without a change here. gpu/
 * CMakeLists.txt compiles this header once per part (src/lane_reduce_K.cu,
 * two lines that define CSG_REDUCE_PART to K and include this header), so that a build with
 * many cores compiles the parts side by side; each part file instantiates
 * csg_lane_reduce_part<K> (lane_kernels.h), and csg_lane_reduce_kernel finds
 * a dtype's part.
 */
#ifndef CSGPU_LANE_REDUCE_CUH
#define CSGPU_LANE_REDUCE_CUH

#include "step.cuh"

#ifndef CSG_REDUCE_PARTS
#error "CSG_REDUCE_PARTS: defined by gpu/CMakeLists.txt for libcsgpu"
#endif

template <cs_dtype_t D, cs_op_t O>
static __global__ void __launch_bounds__(CSG_THREADS)
csg_lane_reduce(const __grid_constant__ csg_kargs_t a)
{
	csg_lane_main<csg_arith<D, O> >(&a);
}

/* The kernel of (D, O) when part K holds D, else NULL (not instantiated). */
template <int K, cs_dtype_t D, cs_op_t O,
	  bool MINE = (int)D % CSG_REDUCE_PARTS == K>
struct csg_part_kernel {
	static const void *get()
	{
		return NULL;
	}
};

template <int K, cs_dtype_t D, cs_op_t O>
struct csg_part_kernel<K, D, O, true> {
	static const void *get()
	{
		return (const void *)csg_lane_reduce<D, O>;
	}
};

/* Part K's kernels, for csg_pick_reduce (step.cuh). */
template <int K> struct csg_part_kernels {
	template <cs_dtype_t D, cs_op_t O> static const void *reduce()
	{
		return csg_part_kernel<K, D, O>::get();
	}
};

template <int K>
const void *csg_lane_reduce_part(cs_dtype_t dtype, cs_op_t op)
{
	return csg_pick_reduce<csg_part_kernels<K> >(dtype, op);
}

#ifdef CSG_REDUCE_PART
template const void *csg_lane_reduce_part<CSG_REDUCE_PART>(cs_dtype_t dtype,
							      cs_op_t op);
#endif

#endif /* CSGPU_LANE_REDUCE_CUH */
