/*
 * sim.h - the CPU executor of libcsgpu's schedules: runs a plan
 * (csgpu/sched.h) over P ranks' host buffers, step by step, with the same
 * element arithmetic as the kernels (csgpu/exec.h). It is what the
 * `gpu-sim` backend runs, and the CPU side of the kernels' bit-for-bit
 * tests.
 *
 * Plain C; needs no CUDA.
 */
#ifndef CSGPU_SIM_H
#define CSGPU_SIM_H

#include <stddef.h>
#include "csgpu/exec.h"
#include "csgpu/sched.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where an op's i-th op comes from: csg_get_op, or a test's replacement
 * (a schedule with an injected bug). ctx is passed through.
 */
typedef csg_op_t (*csg_get_op_fn)(const csg_plan_t *p, int r, int s, int k,
				  int i, void *ctx);

/* The rank buffers of one call: buf[r][CSG_SEND|CSG_RECV|CSG_TMP] is rank
 * r's buffer (host memory), len[r][b] its length in elements. */
typedef struct csg_sim_bufs {
	void *buf[CSG_MAX_RANKS][3];
	size_t len[CSG_MAX_RANKS][3];
} csg_sim_bufs_t;

/*
 * Run plan p (every channel, p->chan ignored) on the buffers, in lockstep:
 * for each step, each channel, each active slice, each rank in order, its
 * ops in order. Elements are of red->dtype. get_op NULL means csg_get_op.
 * Every op is checked before it runs: its ranks in 0..P-1, its buffers
 * non-NULL, its ranges inside the buffers' lengths, dst in the rank's own
 * RECV or TMP. CS_OK, or CS_ERR_INVALID naming the step, rank and op that
 * broke one of those rules (nothing after it runs).
 */
cs_status_t csg_sim_run(const csg_plan_t *p, const csg_red_t *red,
			const csg_sim_bufs_t *b, csg_get_op_fn get_op,
			void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_SIM_H */
