/*
 * lane_copy.cu - the copying lane kernels: csg_lane_main (step.cuh) with
 * csg_copy_elems<ES>, one kernel per element size of the catalog's dtypes
 * (1, 2, 4 and 8 bytes), shared by every collective that only moves data
 * (ring allgather, ring and tree broadcast, gather, scatter, sendrecv,
 * alltoall and alltoallv, whatever the algorithm: it is a run-time field
 * of the plan, csgpu/sched.h).
 */
#include "step.cuh"

#ifndef CSG_REDUCE_PARTS
#error "CSG_REDUCE_PARTS: defined by gpu/CMakeLists.txt for libcsgpu"
#endif

template <int ES>
static __global__ void __launch_bounds__(CSG_THREADS)
csg_lane_copy(const __grid_constant__ csg_kargs_t a)
{
	csg_lane_main<csg_copy_elems<ES> >(&a);
}

struct csg_copy_kernels {
	template <int ES> static const void *copy()
	{
		return (const void *)csg_lane_copy<ES>;
	}
};

const void *csg_lane_copy_kernel(cs_dtype_t dtype)
{
	return csg_pick_copy<csg_copy_kernels>(dtype);
}

/* The reducing kernel of (dtype, op) from the part that holds dtype
 * (lane_reduce.cuh, compiled in its own files: only the declaration of
 * csg_lane_reduce_part is seen here, so nothing is instantiated twice). */
template <int K> struct csg_parts_from {
	static const void *pick(cs_dtype_t dtype, cs_op_t op)
	{
		if ((int)dtype % CSG_REDUCE_PARTS == K)
			return csg_lane_reduce_part<K>(dtype, op);
		return csg_parts_from<K + 1>::pick(dtype, op);
	}
};

template <> struct csg_parts_from<CSG_REDUCE_PARTS> {
	static const void *pick(cs_dtype_t dtype, cs_op_t op)
	{
		return NULL;
	}
};

const void *csg_lane_reduce_kernel(cs_dtype_t dtype, cs_op_t op)
{
	if ((unsigned)dtype >= CS_NUM_DTYPES)
		return NULL;
	return csg_parts_from<0>::pick(dtype, op);
}
