/*
 * alltoall.cu - direct and pairwise alltoall and alltoallv (csgpu/sched.h,
 * algo direct and pairwise).
 *
 * Every rank pulls the block each rank q holds for it (q's SEND at q's
 * offset for r; alltoallv: the matrix's sdis/cnt, written at rdis):
 *   direct:   all P blocks in one step (op q: the block of rank q);
 *   pairwise: step s pulls the block of rank r - s only (step 0: its own).
 * In place (SEND is RECV), step 0 first stages every block r sends into
 * its TMP at the same offset, and the pulls read TMP: a rank overwrites
 * its buffer only after every peer has staged its own. Copies only: the
 * copy kernel of the element size (lane_kernels.h, shared with the other
 * algorithms).
 */
#include <stddef.h>
#include "lane_kernels.h"

const void *csg_alltoall_kernel(cs_coll_t coll, cs_dtype_t dtype)
{
	if (coll != CS_COLL_ALLTOALL && coll != CS_COLL_ALLTOALLV)
		return NULL;
	return csg_lane_copy_kernel(dtype);
}
