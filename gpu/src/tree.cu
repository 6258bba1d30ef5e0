/*
 * tree.cu - the tree family: double binary tree allreduce, binary tree
 * broadcast and reduce (csgpu/sched.h, algo tree).
 *
 * The trees are heaps over virtual indices (root 0, children 2v+1 and
 * 2v+2); tree 0 maps rank r to v = r - root, tree 1 (the mirror) to
 * v = P-1-r, so that tree 0's leaves are tree 1's inner nodes. H is the
 * heap's height.
 *   allreduce: the channel's run is cut in two halves, half i goes up
 *     tree i - at step s the nodes of height s add their input and their
 *     children's partials (RECV; post at the root) - then down it: at step
 *     H + d the nodes of depth d copy their parent's RECV.
 *   broadcast: step 0 the root copies SEND to RECV; step d the nodes of
 *     depth d pull their parent's RECV (the root's SEND at depth 1).
 *   reduce: up tree 0, partials in TMP, the root's result (post applied)
 *     in its RECV.
 * A rank waits only for its parents and children in both trees. Which
 * slot, which peer and reduce or copy come from csg_get_op (run by the
 * lane kernels of lane_kernels.h, shared with the other algorithms); this
 * file says which collectives the tree offers and hands out their kernel.
 */
#include <stddef.h>
#include "csgpu/sched.h"
#include "lane_kernels.h"

const void *csg_tree_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op)
{
	if ((unsigned)coll >= CS_NUM_COLLS ||
	    !csg_algo_supports(CSG_ALGO_TREE, coll))
		return NULL;
	if (csg_reduces(coll))
		return csg_lane_reduce_kernel(dtype, op);
	return csg_lane_copy_kernel(dtype);
}
