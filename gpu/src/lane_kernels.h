/*
 * lane_kernels.h - libcsgpu's lane kernels (csg_lane_main, step.cuh) and
 * how the runtime (runtime.cu) finds the one for a call. Internal to libcsgpu
 * (C++/CUDA; kernels.h, which C tests include too, has the launch's
 * arguments).
 */
#ifndef CSGPU_LANE_KERNELS_H
#define CSGPU_LANE_KERNELS_H

#include "cs_catalog.h"

/*
 * The kernel of one call: a __global__ function taking one csg_kargs_t,
 * or NULL when there is none for (coll, dtype, op).
 *   csg_ring_kernel ... csg_direct_kernel (ring.cu, tree.cu, alltoall.cu,
 *     direct.cu): for the plan's algorithm; NULL when the algorithm does
 *     not offer coll. Reducing collectives get csg_lane_reduce_kernel's,
 *     the others csg_lane_copy_kernel's: one kernel serves every
 *     algorithm (the step loop reads the algorithm from the plan).
 *   csg_lane_reduce_kernel (lane_copy.cu): the kernel of (dtype, op),
 *     from csg_lane_reduce_part<dtype % CSG_REDUCE_PARTS>
 *     (lane_reduce.cuh, one file per part).
 *   csg_lane_copy_kernel (lane_copy.cu): the kernel of the dtype's
 *     element size.
 * CSG_REDUCE_PARTS comes from gpu/CMakeLists.txt (as many parts as it
 * compiles files of lane_reduce.cuh).
 */
const void *csg_ring_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op);
const void *csg_tree_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op);
const void *csg_alltoall_kernel(cs_coll_t coll, cs_dtype_t dtype);
const void *csg_direct_kernel(cs_coll_t coll, cs_dtype_t dtype);
const void *csg_lane_reduce_kernel(cs_dtype_t dtype, cs_op_t op);
const void *csg_lane_copy_kernel(cs_dtype_t dtype);
template <int K>
const void *csg_lane_reduce_part(cs_dtype_t dtype, cs_op_t op);

#endif /* CSGPU_LANE_KERNELS_H */
