/*
 * direct.cu - gather, scatter and sendrecv as direct copies
 * (csgpu/sched.h, algo direct), one step each:
 *   gather:   the root pulls block q from every rank q's SEND (op q);
 *   scatter:  every rank pulls its block r from the root's SEND;
 *   sendrecv: rank r pulls rank r-1's SEND (in place: staged in r-1's TMP
 *             at a first step, before r overwrites its own buffer).
 * Copies only: one kernel per element size.
 */
#include "step.cuh"

template <int ES>
static __global__ void __launch_bounds__(CSG_THREADS)
csg_direct_copy(const __grid_constant__ csg_kargs_t a)
{
	csg_lane_main<csg_copy_elems<ES> >(&a);
}

struct csg_direct_kernels {
	template <int ES> static const void *copy()
	{
		return (const void *)csg_direct_copy<ES>;
	}
};

const void *csg_direct_kernel(cs_coll_t coll, cs_dtype_t dtype)
{
	if (coll != CS_COLL_GATHER && coll != CS_COLL_SCATTER &&
	    coll != CS_COLL_SENDRECV)
		return NULL;
	return csg_pick_copy<csg_direct_kernels>(dtype);
}
