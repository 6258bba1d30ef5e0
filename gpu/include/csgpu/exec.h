/*
 * exec.h - what one op of a schedule (csgpu/sched.h) does to one element:
 * the arithmetic shared, element for element, by the CUDA kernels and the
 * CPU executor of the `gpu-sim` backend.
 *
 * Plain C, host and device. An op writes, for every element j < o->n,
 *     dst[j] = post(fold_i pre_i(src_i[j]))
 * and csg_apply() is that formula on bit patterns (csgpu/functor.h over
 * csref/arith.h), with the fold from left to right: the kernels keep the
 * same order, so a kernel and the CPU executor give the same bits.
 */
#ifndef CSGPU_EXEC_H
#define CSGPU_EXEC_H

#include <stdint.h>
#include "cs_catalog.h"
#include "csgpu/functor.h"
#include "csgpu/sched.h"

/*
 * The arguments of the reduction every op of one call shares: dtype, op
 * (ignored by copies), the number of ranks (AVG) and each rank's
 * PREMULSUM scalar as bits of the dtype (scalar[r], r < P; ignored for
 * other ops).
 */
typedef struct csg_red {
	cs_dtype_t dtype;
	cs_op_t op;
	int P;
	uint64_t scalar[CSG_MAX_RANKS];
} csg_red_t;

/* Source i's value x after its pre (identity when o->pre[i] < 0). */
CS_HD uint64_t csg_pre(const csg_red_t *red, const csg_op_t *o, int i,
		       uint64_t x)
{
	if (o->pre[i] < 0)
		return x;
	return cs_gpu_pre(red->dtype, red->op, red->P, red->scalar[o->pre[i]],
			  x);
}

/* One element of op o: x[i] is source i's element (bits of the dtype). */
CS_HD uint64_t csg_apply(const csg_red_t *red, const csg_op_t *o,
			 const uint64_t *x)
{
	uint64_t acc = csg_pre(red, o, 0, x[0]);
	int i;

	for (i = 1; i < o->nsrc; i++)
		acc = cs_gpu_step(red->dtype, red->op, acc,
				  csg_pre(red, o, i, x[i]));
	return o->post ? cs_gpu_post(red->dtype, red->op, red->P, acc) : acc;
}

#endif /* CSGPU_EXEC_H */
