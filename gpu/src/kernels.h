/*
 * kernels.h - what libcsgpu's runtime (runtime.cu) hands to the kernels of
 * gpu/src/ and how it finds them. Internal to libcsgpu (C++/CUDA).
 *
 * One cooperative launch per device runs every (rank, channel) lane of the
 * ranks on that device: block b is lane (rank[b / nchan], b % nchan). The
 * kernels execute csgpu/sched.h's plan step by step (step.cuh).
 */
#ifndef CSGPU_KERNELS_H
#define CSGPU_KERNELS_H

#include <stdint.h>
#include "cs_catalog.h"
#include "csgpu/exec.h"
#include "csgpu/sched.h"

/* At most this many channels (lanes per rank); each rank has this many
 * step counters. */
#define CSG_MAX_CHAN 32

/* Threads per block (one block per lane). */
#define CSG_THREADS 512

/*
 * The arguments of one launch (passed by value, under the 4 KiB kernel
 * parameter limit).
 *   plan:  the call's plan, channel 0 (each block sets its own chan);
 *          plan.v points at a device copy of the alltoallv matrix.
 *   red:   the reduction (reducing collectives).
 *   buf:   every rank's SEND, RECV and TMP base pointers (csg_buf_t),
 *          directly dereferenceable from this device (peer access).
 *   flag:  every rank's CSG_MAX_CHAN step counters (device memory of the
 *          rank's device).
 *   base:  each channel's counter value at the start of this call: every
 *          lane of channel c finished every earlier call when all ranks'
 *          counters of every channel c' reach base[c']; this call's step t
 *          is finished when the lane's counter reaches base[c] + t + 1.
 *   nrank, rank: the ranks of this launch (on this device).
 */
typedef struct csg_kargs {
	csg_plan_t plan;
	csg_red_t red;
	void *buf[CSG_MAX_RANKS][3];
	uint64_t *flag[CSG_MAX_RANKS];
	uint64_t base[CSG_MAX_CHAN];
	int nrank;
	signed char rank[CSG_MAX_RANKS];
} csg_kargs_t;

/*
 * The kernel of each file for one call: a __global__ function taking one
 * csg_kargs_t, or NULL when the file has none for (coll, dtype, op).
 * Reducing collectives get the instantiation of (dtype, op), the others
 * the copy kernel of the dtype's element size.
 */
const void *csg_ring_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op);
const void *csg_tree_kernel(cs_coll_t coll, cs_dtype_t dtype, cs_op_t op);
const void *csg_alltoall_kernel(cs_coll_t coll, cs_dtype_t dtype);
const void *csg_direct_kernel(cs_coll_t coll, cs_dtype_t dtype);

#endif /* CSGPU_KERNELS_H */
