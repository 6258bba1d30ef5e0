/*
 * ring.cu - the ring family: ring allreduce, reducescatter and allgather,
 * and the pipelined chain broadcast and reduce (csgpu/sched.h, algo ring).
 *
 * Rank r's neighbours are r - 1 (whom it pulls from) and r + 1 (who pulls
 * from it); every chunk is cut into slices that follow each other through
 * the ring one step apart (the wavefront).
 *   allreduce, P ranks, chunk c of the channel's run:
 *     steps 0..P-2 (reduce-scatter): r pulls chunk r-1-s of r-1 (its
 *       SEND at step 0, its RECV afterwards) and adds its own SEND; at
 *       step P-2 chunk r+1 is complete (post applied);
 *     steps P-1..2P-3 (all-gather): r copies chunk r-t of r-1's RECV.
 *   reducescatter: steps 0..P-2 add block r-2-s along the ring, partials
 *     in TMP, the last (block r) into RECV.
 *   allgather: step 0 copies the own block and pulls r-1's SEND; step t
 *     pulls block r-1-t from r-1's RECV.
 *   broadcast (chain root, root+1, ...): at step s the rank s after the
 *     root pulls from its predecessor.
 *   reduce (chain): at step s the rank P-2-s after the root adds its
 *     input to its successor's partial (TMP; RECV with post at the root).
 * Which slot, which peer and reduce or copy come from csg_get_op (run
 * by the lane kernels of lane_kernels.h, shared with the other
 * algorithms); this file says which collectives the ring offers and hands
 * out their kernel.
 */
#include <stddef.h>
#include "csgpu/sched.h"
#include "lane_kernels.h"

const void *csg_ring_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op)
{
	if ((unsigned)coll >= CS_NUM_COLLS ||
	    !csg_algo_supports(CSG_ALGO_RING, coll))
		return NULL;
	if (csg_reduces(coll))
		return csg_lane_reduce_kernel(dtype, op);
	return csg_lane_copy_kernel(dtype);
}
