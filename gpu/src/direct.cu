/*
 * direct.cu - gather, scatter and sendrecv as direct copies
 * (csgpu/sched.h, algo direct), one step each:
 *   gather:   the root pulls block q from every rank q's SEND (op q);
 *   scatter:  every rank pulls its block r from the root's SEND;
 *   sendrecv: rank r pulls rank r-1's SEND (in place: staged in r-1's TMP
 *             at a first step, before r overwrites its own buffer).
 * Copies only: the copy kernel of the element size (lane_kernels.h,
 * shared with the other algorithms).
 */
#include <stddef.h>
#include "lane_kernels.h"

const void *csg_direct_kernel(cs_coll_t coll, cs_dtype_t dtype)
{
	if (coll != CS_COLL_GATHER && coll != CS_COLL_SCATTER &&
	    coll != CS_COLL_SENDRECV)
		return NULL;
	return csg_lane_copy_kernel(dtype);
}
