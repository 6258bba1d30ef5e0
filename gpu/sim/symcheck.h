/*
 * symcheck.h - the symbolic checker of libcsgpu's schedules
 * (csgpu/sched.h).
 *
 * csg_symcheck() runs one plan, every channel of it, on every rank, step by
 * step in lockstep, at element granularity, on tokens instead of values:
 * every element slot (rank, buffer, index) holds either nothing
 * (uninitialised) or a token that says what the slot holds:
 *   - reductions: the element index it belongs to, the set of ranks whose
 *     contribution it holds, the set of those whose `pre` was applied, and
 *     whether `post` was applied;
 *   - data movement: the (origin rank, origin index) of the value.
 * The send buffers start with input tokens, everything else uninitialised.
 * In-place calls alias SEND and RECV by NCCL's pointer rules
 * (spec/collectives.md §3.2): allreduce, alltoall(v), sendrecv, and the
 * root of broadcast and reduce: send == recv; allgather, and the root of
 * gather: send == recv + r*n; reducescatter, and the root of scatter:
 * recv == send + r*n. TMP has as many elements as the rank's SEND.
 *
 * It proves, or reports the first violation of (with the plan, the rank,
 * the step, the slice, the op and the element):
 *   ops      an op writes only its own rank's RECV or TMP, inside the
 *            buffer; reads inside the buffers, never an uninitialised slot;
 *            a fold combines tokens of one element index with disjoint rank
 *            sets, each contribution pre'd exactly once by its own rank's
 *            pre before it is folded; post once, on a complete value only;
 *            data movement never folds, pre's or post's;
 *   hazards  within one step of a channel, no slot is written by one access
 *            (rank, slice, op, element) and read or written by another --
 *            across ranks, and also between the ops and slices of one rank,
 *            which a kernel may run in parallel; across channels, no slot is
 *            touched by two channels when one of them writes it;
 *   peers    csg_peer() is symmetric, without self or repeats, and every two
 *            ranks that touch a common slot that one of them writes are
 *            peers (which makes the neighbour-only synchronisation of the
 *            kernels equivalent to this lockstep run);
 *   result   every rank's RECV holds the collective's result
 *            (spec/collectives.md §3.1), and nothing outside the receive
 *            range of SEND and RECV was written: the alltoallv gaps are
 *            checked; anything else (the root's other blocks of an
 *            in-place scatter, say) no op can reach, since ops write RECV
 *            and TMP only, inside their ranges.
 *
 * Plain C11, host only. The checker holds 64 bytes per element slot of
 * every rank's SEND, RECV and TMP (calloc'ed; pages no op touches stay
 * unmapped): meant for the small counts of proofs, not production sizes.
 */
#ifndef CSGPU_SYMCHECK_H
#define CSGPU_SYMCHECK_H

#include <stddef.h>
#include "csgpu/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return values: 0 proved; one of these otherwise (msg says why). */
#define CSG_SYM_VIOLATION (-1) /* the schedule breaks a property above */
#define CSG_SYM_EINVAL (-2)    /* an argument or the plan is out of range */
#define CSG_SYM_ENOMEM (-3)    /* no memory for the slots */

/*
 * Where the checker takes the schedule from, so that a test can run a
 * mutated one. A NULL member (or a NULL csg_sched_src_t) means sched.h's
 * own function: csg_base_steps, csg_nops, csg_get_op, csg_npeers,
 * csg_peer. ctx is passed through. Base step s of slice k runs at step
 * s + k (the wavefront of sched.h); with sched.h's own base_steps the
 * checker also checks csg_nsteps and csg_slice_step against it.
 */
typedef struct csg_sched_src {
	int (*base_steps)(const csg_plan_t *p, void *ctx);
	int (*nops)(const csg_plan_t *p, int r, int s, void *ctx);
	csg_op_t (*get_op)(const csg_plan_t *p, int r, int s, int k, int i,
			   void *ctx);
	int (*npeers)(const csg_plan_t *p, int r, void *ctx);
	int (*peer)(const csg_plan_t *p, int r, int i, void *ctx);
	void *ctx;
} csg_sched_src_t;

/*
 * Options of csg_symcheck_ex.
 *   src       the schedule (NULL: sched.h's).
 *   a2av_gap  alltoallv: each rank's send and receive buffers end this
 *             many elements after their last block (cs_a2av_layout's
 *             gap); the buffer lengths are otherwise the ends of the
 *             blocks of p->v.
 */
typedef struct csg_symcheck_opts {
	const csg_sched_src_t *src;
	size_t a2av_gap;
} csg_symcheck_opts_t;

/*
 * Check plan p, all its channels (p->chan is ignored; channels 0 ..
 * p->nchan - 1 are run one after the other, which is equivalent to any
 * interleaving once the cross-channel check holds). o may be NULL
 * (sched.h's schedule, gap 0). On any return but 0, msg (when len > 0)
 * holds one NUL-terminated line saying what and where. The plan is read,
 * never changed; nothing is kept after the call. Limits (else
 * CSG_SYM_EINVAL): 1 <= P <= CSG_MAX_RANKS, nslices <= 4096, nchan <=
 * 32767, at most 64 ops per rank and step, buffers of fewer than 2^32
 * elements.
 */
int csg_symcheck_ex(const csg_plan_t *p, const csg_symcheck_opts_t *o,
		    char *msg, size_t len);

/* csg_symcheck_ex(p, NULL, msg, len). */
int csg_symcheck(const csg_plan_t *p, char *msg, size_t len);

/* One line naming the plan, e.g. "allreduce/ring P=4 n=7 root=0
 * out-of-place nchan=2 nslices=3"; snprintf's return. */
int csg_plan_format(const csg_plan_t *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_SYMCHECK_H */
