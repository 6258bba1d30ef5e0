/*
 * sched.h - the schedules of libcsgpu's collectives: for every algorithm,
 * which rank reads which chunk of which rank's buffer, and reduces or
 * copies it into which of its own slots, at each step.
 *
 * Plain C (C11, C++ and CUDA, host and device): the CUDA kernels
 * (gpu/src/), the CPU executor behind the `gpu-sim` backend and the
 * symbolic checker all call these same functions, so what is proved on
 * the CPU is what the GPU runs. Everything here is a pure function of the
 * plan (P, count, root, in place or not, channel, slices) and of (rank,
 * step, slice, op index); nothing allocates, nothing talks to a device.
 *
 * The execution model (docs/gpu.md):
 *   - Every rank owns three buffers, named by csg_buf_t: its SEND and RECV
 *     buffers (the collective's arguments, which alias when the call is in
 *     place, by NCCL's rules) and a scratch buffer TMP of as many elements
 *     as SEND (the runtime allocates it).
 *   - A rank only ever WRITES its own RECV and TMP, and READS any rank's
 *     buffers (direct loads from peer memory: the "pull" model).
 *   - One op writes dst[j] = post(fold(pre_0(src_0[j]), pre_1(src_1[j]),
 *     ...)) for j < n, the fold left to right with the reduction's pairwise
 *     step (csgpu/functor.h). A copy is an op with one source and neither
 *     pre nor post.
 *   - The data of one channel is independent of every other channel's;
 *     channels are the kernel's parallel lanes (one or more thread blocks
 *     per rank and channel). Within a channel, every chunk is cut into
 *     slices, and the schedule is pipelined over slices as a wavefront:
 *     at step t, slice k runs base step t - k. So a plan has
 *     csg_nsteps() = base steps + slices - 1 steps.
 *   - Steps are synchronised per channel by neighbours only: before step
 *     t, a rank waits until every rank of csg_peer() has finished step
 *     t - 1. The symbolic checker proves, for every schedule, that this is
 *     equivalent to executing the steps in lockstep: every slot two ranks
 *     share is shared between peers, and no slot is written by one rank
 *     and read or written by another in the same step.
 *
 * Element indices and counts are size_t; all arithmetic avoids overflow
 * for any count whose buffers fit in memory.
 */
#ifndef CSGPU_SCHED_H
#define CSGPU_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include "cs_catalog.h"
#include "csref/arith.h" /* CS_HD */

/* The algorithms, as `--backend-opt algo=NAME` names them. */
#define CSG_ALGO_LIST(X)                                                   \
	X(AUTO, "auto", "per collective: the algorithm csg_auto_algo picks")  \
	X(RING, "ring", "ring allreduce, reducescatter, allgather; "          \
			"pipelined chain broadcast and reduce")               \
	X(TREE, "tree", "double binary tree allreduce; binary tree "          \
			"broadcast and reduce")                               \
	X(DIRECT, "direct", "alltoall(v), gather, scatter, sendrecv: every "  \
			    "block pulled in one step")                       \
	X(PAIRWISE, "pairwise", "alltoall(v): step s pulls from rank r - s")

typedef enum csg_algo {
#define CSG_ALGO_ENUM_(ID, ...) CSG_ALGO_##ID,
	CSG_ALGO_LIST(CSG_ALGO_ENUM_)
#undef CSG_ALGO_ENUM_
	CSG_NUM_ALGOS
} csg_algo_t;

/* The three buffers of a rank. */
typedef enum csg_buf {
	CSG_SEND = 0,
	CSG_RECV = 1,
	CSG_TMP = 2
} csg_buf_t;

/* At most this many sources per op (a tree node: itself, two children). */
#define CSG_MAX_SRC 3

/* Ranks a plan may have: the symbolic checker's bitsets are 64 bits. */
#define CSG_MAX_RANKS 64

/* Channels a call may have: the runtime keeps this many step counters per
 * rank (gpu/src/kernels.h), so the backends refuse more at option
 * parsing. */
#define CSG_MAX_CHAN 32

/* One element range of one rank's buffer. */
typedef struct csg_ref {
	int rank;      /* whose buffer */
	int buf;       /* csg_buf_t */
	size_t off;    /* first element */
} csg_ref_t;

/*
 * One op of one rank in one step: for j < n,
 *   dst[j] = post(fold_i pre_i(src_i[j]))
 * where pre_i is the reduction's pre with rank pre[i]'s scalar when
 * pre[i] >= 0 (identity when -1), fold is the pairwise step left to right,
 * post the reduction's post when post != 0.
 */
typedef struct csg_op {
	int nsrc;                  /* 1..CSG_MAX_SRC; 0: no op (n == 0) */
	int post;
	size_t n;
	csg_ref_t dst;
	csg_ref_t src[CSG_MAX_SRC];
	int pre[CSG_MAX_SRC];
} csg_op_t;

/* The alltoallv matrix, in elements: q sends cnt[q*P + r] elements to r,
 * from sdis[q*P + r] of its send buffer, into r's recv buffer at
 * rdis[r*P + q]. */
typedef struct csg_vmat {
	const size_t *cnt;
	const size_t *sdis;
	const size_t *rdis;
} csg_vmat_t;

/*
 * One collective call over P ranks, as one channel sees it.
 *   n: the count argument of the call (allreduce, broadcast, reduce:
 *      elements; allgather, gather: sendcount; reducescatter, scatter:
 *      recvcount; alltoall: per pair; sendrecv: elements; alltoallv:
 *      unused, see v).
 *   root: rooted collectives only, 0 <= root < P.
 *   inplace: 1 when the call uses the in-place convention.
 *   nchan, chan: this plan is channel chan of nchan (>= 1).
 *   nslices: slices per chunk (>= 1).
 */
typedef struct csg_plan {
	cs_coll_t coll;
	csg_algo_t algo;
	int P;
	int root;
	int inplace;
	int nchan;
	int chan;
	int nslices;
	size_t n;
	csg_vmat_t v;
} csg_plan_t;

/* ---- the catalog's columns, host and device ---------------------------- */

/* 1 if coll takes a root / reduces (the catalog's columns). */
CS_HD int csg_rooted(cs_coll_t c)
{
	switch (c) {
#define CSG_ROOTED_(ID, name, rooted, reduces, ...)                        \
	case CS_COLL_##ID:                                                 \
		return rooted;
		CS_COLL_LIST(CSG_ROOTED_)
#undef CSG_ROOTED_
	case CS_NUM_COLLS:
		break;
	}
	return 0;
}

CS_HD int csg_reduces(cs_coll_t c)
{
	switch (c) {
#define CSG_REDUCES_(ID, name, rooted, reduces, ...)                       \
	case CS_COLL_##ID:                                                 \
		return reduces;
		CS_COLL_LIST(CSG_REDUCES_)
#undef CSG_REDUCES_
	case CS_NUM_COLLS:
		break;
	}
	return 0;
}

/* ---- arithmetic of ranges ----------------------------------------------- */

/* (a + b) mod P for a, b in (-P, P), P >= 1. */
CS_HD int csg_mod(int a, int P)
{
	a %= P;
	return a < 0 ? a + P : a;
}

/*
 * Part i of n elements cut into `parts` near-equal parts (the first n %
 * parts parts one element longer): its first element. csg_part_lo(n,
 * parts, parts) == n, and part i is [lo(i), lo(i+1)). Parts may be empty
 * (n < parts) and n may be 0.
 */
CS_HD size_t csg_part_lo(size_t n, size_t parts, size_t i)
{
	size_t base = n / parts, rem = n % parts;

	return i * base + (i < rem ? i : rem);
}

CS_HD size_t csg_part_len(size_t n, size_t parts, size_t i)
{
	return csg_part_lo(n, parts, i + 1) - csg_part_lo(n, parts, i);
}

/* ---- trees ----------------------------------------------------------------- */

/*
 * The binary trees: a heap over virtual indices v = 0..P-1 (root 0,
 * children 2v+1 and 2v+2 when < P). A tree of the double binary tree, or
 * of a rooted collective, maps ranks to v:
 *   tree 0: v = r - root (mod P);
 *   tree 1: v = P - 1 - r (the mirror: at root 0 no rank is inner in both;
 *           for even P tree 0's leaves, the upper half of the heap, are
 *           tree 1's inner nodes and the other way round; for odd P rank
 *           (P-1)/2 is a leaf of both; test_gpu_trees).
 */
CS_HD int csg_tree_v(int P, int root, int tree, int r)
{
	return tree == 0 ? csg_mod(r - root, P) : P - 1 - r;
}

CS_HD int csg_tree_rank(int P, int root, int tree, int v)
{
	return tree == 0 ? csg_mod(v + root, P) : P - 1 - v;
}

/* Parent of v (-1 for the root); child c (0 or 1) of v, -1 when none. */
CS_HD int csg_heap_parent(int v)
{
	return v == 0 ? -1 : (v - 1) / 2;
}

CS_HD int csg_heap_child(int P, int v, int c)
{
	long w = 2L * v + 1 + c;

	return w < P ? (int)w : -1;
}

/* Depth of v (root 0) and height (longest way down to a leaf). */
CS_HD int csg_heap_depth(int v)
{
	int d = 0;

	while (v > 0) {
		v = (v - 1) / 2;
		d++;
	}
	return d;
}

CS_HD int csg_heap_height(int P, int v)
{
	int h = 0;
	long w = v;

	/* the leftmost descendant is the deepest */
	while (2 * w + 1 < P) {
		w = 2 * w + 1;
		h++;
	}
	return h;
}

/* ---- which algorithm runs which collective ---------------------------- */

/* 1 when algo implements coll (AUTO implements every collective). */
CS_HD int csg_algo_supports(csg_algo_t a, cs_coll_t c)
{
	switch (a) {
	case CSG_ALGO_AUTO:
		return 1;
	case CSG_ALGO_RING:
		return c == CS_COLL_ALLREDUCE || c == CS_COLL_REDUCESCATTER ||
		       c == CS_COLL_ALLGATHER || c == CS_COLL_BROADCAST ||
		       c == CS_COLL_REDUCE;
	case CSG_ALGO_TREE:
		return c == CS_COLL_ALLREDUCE || c == CS_COLL_BROADCAST ||
		       c == CS_COLL_REDUCE;
	case CSG_ALGO_DIRECT:
		return c == CS_COLL_ALLTOALL || c == CS_COLL_ALLTOALLV ||
		       c == CS_COLL_GATHER || c == CS_COLL_SCATTER ||
		       c == CS_COLL_SENDRECV;
	case CSG_ALGO_PAIRWISE:
		return c == CS_COLL_ALLTOALL || c == CS_COLL_ALLTOALLV;
	case CSG_NUM_ALGOS:
		break;
	}
	return 0;
}

/*
 * What AUTO runs: the tree for allreduce, broadcast and reduce up to
 * CSG_AUTO_TREE_BYTES per rank (fewer steps of latency), the ring above;
 * ring for reducescatter and allgather; pairwise for alltoall(v); direct
 * for the rest.
 */
#define CSG_AUTO_TREE_BYTES ((size_t)64 << 10)

CS_HD csg_algo_t csg_auto_algo(cs_coll_t c, size_t bytes)
{
	switch (c) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
		return bytes <= CSG_AUTO_TREE_BYTES ? CSG_ALGO_TREE
						    : CSG_ALGO_RING;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLGATHER:
		return CSG_ALGO_RING;
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
		return CSG_ALGO_PAIRWISE;
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return CSG_ALGO_DIRECT;
	}
}

/* 1 for the collectives whose in-place form stages SEND in TMP first
 * (pulling from a peer's buffer that its owner overwrites in place). */
CS_HD int csg_stages(const csg_plan_t *p)
{
	return p->inplace && p->P > 1 &&
	       (p->coll == CS_COLL_ALLTOALL || p->coll == CS_COLL_ALLTOALLV ||
		p->coll == CS_COLL_SENDRECV);
}

/* ---- the channel's share of the data ---------------------------------- */

/* The channel's part of a run of n elements: [*lo, *lo + return). */
CS_HD size_t csg_chan_part(const csg_plan_t *p, size_t n, size_t *lo)
{
	*lo = csg_part_lo(n, (size_t)p->nchan, (size_t)p->chan);
	return csg_part_len(n, (size_t)p->nchan, (size_t)p->chan);
}

/* Slice k of the run [lo, lo + n): its first element and length. */
CS_HD size_t csg_slice(const csg_plan_t *p, size_t lo, size_t n, int k,
		       size_t *slo)
{
	*slo = lo + csg_part_lo(n, (size_t)p->nslices, (size_t)k);
	return csg_part_len(n, (size_t)p->nslices, (size_t)k);
}

/* ---- steps ------------------------------------------------------------------- */

/* Steps of the heap tree over P (reduce up: height + 1; down: depth). */
CS_HD int csg_tree_h(int P)
{
	return csg_heap_height(P, 0);
}

/* Base steps: those of one slice. */
CS_HD int csg_base_steps(const csg_plan_t *p)
{
	int P = p->P, H = csg_tree_h(P);

	if (P == 1)
		return 1; /* one local copy (with pre and post) */
	switch (p->coll) {
	case CS_COLL_ALLREDUCE:
		if (p->algo == CSG_ALGO_TREE)
			return 2 * H + 1;
		return 2 * (P - 1);
	case CS_COLL_REDUCESCATTER:
		return P - 1;
	case CS_COLL_ALLGATHER:
		return P - 1;
	case CS_COLL_BROADCAST:
		return p->algo == CSG_ALGO_TREE ? H + 1 : P;
	case CS_COLL_REDUCE:
		return p->algo == CSG_ALGO_TREE ? H + 1 : P - 1;
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
		return csg_stages(p) +
		       (p->algo == CSG_ALGO_PAIRWISE ? P : 1);
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
		return 1;
	case CS_COLL_SENDRECV:
		return csg_stages(p) + 1;
	case CS_NUM_COLLS: /* not a collective */
	default:
		return 0;
	}
}

/* Steps of the plan: the wavefront of its slices. */
CS_HD int csg_nsteps(const csg_plan_t *p)
{
	return csg_base_steps(p) + p->nslices - 1;
}

/* The base step slice k runs at step t, or -1 when it is idle then. */
CS_HD int csg_slice_step(const csg_plan_t *p, int t, int k)
{
	int s = t - k;

	return s >= 0 && s < csg_base_steps(p) ? s : -1;
}

/* ---- peers: whom a rank waits for ------------------------------------- */

/*
 * Number of peers of rank r, and peer i of them. Before each step, r
 * waits until each peer has finished the previous step (in its channel).
 * The peers are the ranks r shares a slot with (it reads theirs, or they
 * read its); listed without r and without repeats.
 */
CS_HD int csg_npeers(const csg_plan_t *p, int r);
CS_HD int csg_peer(const csg_plan_t *p, int r, int i);

/* The tree neighbours of r (parent, two children) in tree `tree`. */
CS_HD int csg_tree_nbr_(const csg_plan_t *p, int tree, int r, int i)
{
	int v = csg_tree_v(p->P, p->root, tree, r), w;

	w = i == 0 ? csg_heap_parent(v) : csg_heap_child(p->P, v, i - 1);
	return w < 0 ? -1 : csg_tree_rank(p->P, p->root, tree, w);
}

/* The candidate neighbours of r before deduplication: up to 6. */
CS_HD int csg_nbr_cand_(const csg_plan_t *p, int r, int i)
{
	int P = p->P;

	if (P == 1)
		return -1;
	switch (p->coll) {
	case CS_COLL_ALLREDUCE:
		if (p->algo == CSG_ALGO_TREE)
			return csg_tree_nbr_(p, i / 3, r, i % 3);
		/* the ring (the marker below is the form GCC's
		 * -Wimplicit-fallthrough accepts; "fall through: ..." is not) */
		/* fall through */
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLGATHER:
	case CS_COLL_SENDRECV:
		return i == 0 ? csg_mod(r - 1, P) : i == 1 ? csg_mod(r + 1, P)
							 : -1;
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
		if (p->algo == CSG_ALGO_TREE)
			return i < 3 ? csg_tree_nbr_(p, 0, r, i) : -1;
		/* the chain root, root+1, ..., root-1 */
		if (i == 0)
			return csg_mod(r - p->root, P) > 0 ? csg_mod(r - 1, P)
							   : -1;
		if (i == 1)
			return csg_mod(r - p->root, P) < P - 1
				       ? csg_mod(r + 1, P)
				       : -1;
		return -1;
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return -1;
	}
}

CS_HD int csg_all_peers_(const csg_plan_t *p)
{
	return p->coll == CS_COLL_ALLTOALL || p->coll == CS_COLL_ALLTOALLV ||
	       p->coll == CS_COLL_GATHER || p->coll == CS_COLL_SCATTER;
}

CS_HD int csg_npeers(const csg_plan_t *p, int r)
{
	int i, j, n = 0, c, dup;

	if (csg_all_peers_(p))
		return p->P - 1;
	for (i = 0; i < 6; i++) {
		if ((c = csg_nbr_cand_(p, r, i)) < 0 || c == r)
			continue;
		for (dup = 0, j = 0; j < i; j++)
			dup |= csg_nbr_cand_(p, r, j) == c;
		n += !dup;
	}
	return n;
}

CS_HD int csg_peer(const csg_plan_t *p, int r, int idx)
{
	int i, j, n = 0, c, dup;

	if (csg_all_peers_(p))
		return idx < r ? idx : idx + 1;
	for (i = 0; i < 6; i++) {
		if ((c = csg_nbr_cand_(p, r, i)) < 0 || c == r)
			continue;
		for (dup = 0, j = 0; j < i; j++)
			dup |= csg_nbr_cand_(p, r, j) == c;
		if (!dup && n++ == idx)
			return c;
	}
	return -1;
}

/* ---- ops --------------------------------------------------------------------- */

CS_HD csg_ref_t csg_ref(int rank, int buf, size_t off)
{
	csg_ref_t x;

	x.rank = rank;
	x.buf = buf;
	x.off = off;
	return x;
}

/* An op with no source yet, writing n elements at dst. */
CS_HD csg_op_t csg_op_to(csg_ref_t dst, size_t n)
{
	csg_op_t o;
	int i;

	o.nsrc = 0;
	o.post = 0;
	o.n = n;
	o.dst = dst;
	for (i = 0; i < CSG_MAX_SRC; i++) {
		o.src[i] = csg_ref(0, CSG_SEND, 0);
		o.pre[i] = -1;
	}
	return o;
}

/* Add a source (pre: the rank whose pre applies, or -1). */
CS_HD void csg_op_src(csg_op_t *o, csg_ref_t src, int pre)
{
	o->src[o->nsrc] = src;
	o->pre[o->nsrc] = pre;
	o->nsrc++;
}

/* The no-op. */
CS_HD csg_op_t csg_op_none(void)
{
	return csg_op_to(csg_ref(0, CSG_RECV, 0), 0);
}

/* Number of ops of rank r at base step s (the same for every slice). */
CS_HD int csg_nops(const csg_plan_t *p, int r, int s);

/* Op i (< csg_nops) of rank r at base step s, slice k. */
CS_HD csg_op_t csg_get_op(const csg_plan_t *p, int r, int s, int k, int i);

/* -- P == 1: one local op: RECV = post(pre(SEND)) over everything the
 *    rank receives (a reduction) or copies. */
CS_HD csg_op_t csg_op_single_(const csg_plan_t *p, int k)
{
	size_t lo, n, slo, sn;
	csg_op_t o;
	int red = csg_reduces(p->coll);

	n = p->coll == CS_COLL_ALLTOALLV ? p->v.cnt[0] : p->n;
	n = csg_chan_part(p, n, &lo);
	sn = csg_slice(p, lo, n, k, &slo);
	if (p->coll == CS_COLL_ALLTOALLV) {
		o = csg_op_to(csg_ref(0, CSG_RECV, p->v.rdis[0] + slo), sn);
		csg_op_src(&o, csg_ref(0, CSG_SEND, p->v.sdis[0] + slo), -1);
		return o;
	}
	if (p->inplace && !red)
		return csg_op_none(); /* the data is where it belongs */
	o = csg_op_to(csg_ref(0, CSG_RECV, slo), sn);
	csg_op_src(&o, csg_ref(0, CSG_SEND, slo), red ? 0 : -1);
	o.post = red;
	return o;
}

/* -- ring allreduce: chunk c of the channel's run, slice k. */
CS_HD size_t csg_ring_chunk_(const csg_plan_t *p, int c, int k, size_t *slo)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo);
	size_t clo = lo + csg_part_lo(n, (size_t)p->P, (size_t)c);
	size_t cn = csg_part_len(n, (size_t)p->P, (size_t)c);

	return csg_slice(p, clo, cn, k, slo);
}

/*
 * Ring allreduce, rank r, base step s:
 *   reduce-scatter, s = 0..P-2: chunk c = r-1-s; RECV[r][c] =
 *     (s == 0 ? pre(SEND[r-1][c]) : RECV[r-1][c]) + pre(SEND[r][c]),
 *     with post at s = P-2 (c = r+1, now complete);
 *   all-gather, s = P-1+t, t = 0..P-2: chunk c = r-t; RECV[r][c] =
 *     RECV[r-1][c] (complete since r-1's step P-2+t).
 */
CS_HD csg_op_t csg_op_ring_ar_(const csg_plan_t *p, int r, int s, int k)
{
	int P = p->P, prev = csg_mod(r - 1, P), c;
	size_t lo, n;
	csg_op_t o;

	if (s < P - 1) {
		c = csg_mod(r - 1 - s, P);
		n = csg_ring_chunk_(p, c, k, &lo);
		o = csg_op_to(csg_ref(r, CSG_RECV, lo), n);
		if (s == 0)
			csg_op_src(&o, csg_ref(prev, CSG_SEND, lo), prev);
		else
			csg_op_src(&o, csg_ref(prev, CSG_RECV, lo), -1);
		csg_op_src(&o, csg_ref(r, CSG_SEND, lo), r);
		o.post = s == P - 2;
		return o;
	}
	c = csg_mod(r - (s - (P - 1)), P);
	n = csg_ring_chunk_(p, c, k, &lo);
	o = csg_op_to(csg_ref(r, CSG_RECV, lo), n);
	csg_op_src(&o, csg_ref(prev, CSG_RECV, lo), -1);
	return o;
}

/*
 * Ring reducescatter, rank r, base step s = 0..P-2: block c = r-2-s
 * (ending with c = r at s = P-2); the partial goes to TMP[r][block c],
 * the last one (post applied) to RECV[r]:
 *   dst = (s == 0 ? pre(SEND[r-1][c]) : TMP[r-1][c]) + pre(SEND[r][c]).
 * The channel's share of each block is [lo, lo + n) within the block.
 */
CS_HD csg_op_t csg_op_ring_rs_(const csg_plan_t *p, int r, int s, int k)
{
	int P = p->P, prev = csg_mod(r - 1, P), c = csg_mod(r - 2 - s, P);
	size_t lo, n, slo, sn, blk = (size_t)c * p->n;
	csg_op_t o;

	n = csg_chan_part(p, p->n, &lo);
	sn = csg_slice(p, lo, n, k, &slo);
	if (s == P - 2)
		o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);
	else
		o = csg_op_to(csg_ref(r, CSG_TMP, blk + slo), sn);
	if (s == 0)
		csg_op_src(&o, csg_ref(prev, CSG_SEND, blk + slo), prev);
	else
		csg_op_src(&o, csg_ref(prev, CSG_TMP, blk + slo), -1);
	csg_op_src(&o, csg_ref(r, CSG_SEND, blk + slo), r);
	o.post = s == P - 2;
	return o;
}

/*
 * Ring allgather, rank r: base step 0 copies its own block and pulls
 * r-1's from its send buffer (op 0 and 1); step t = 1..P-2 pulls block
 * c = r-1-t from RECV[r-1] (which r-1 got at step t-1).
 */
CS_HD csg_op_t csg_op_ring_ag_(const csg_plan_t *p, int r, int s, int k,
			       int i)
{
	int P = p->P, prev = csg_mod(r - 1, P), c;
	size_t lo, n, slo, sn;
	csg_op_t o;

	n = csg_chan_part(p, p->n, &lo);
	sn = csg_slice(p, lo, n, k, &slo);
	if (s == 0) {
		if (i == 0 && p->inplace)
			return csg_op_none(); /* own block: in place already */
		c = i == 0 ? r : prev;
		o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)c * p->n + slo), sn);
		csg_op_src(&o, csg_ref(c, CSG_SEND, slo), -1);
		return o;
	}
	c = csg_mod(r - 1 - s, P);
	o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)c * p->n + slo), sn);
	csg_op_src(&o, csg_ref(prev, CSG_RECV, (size_t)c * p->n + slo), -1);
	return o;
}

/* The channel's run of a broadcast or reduce, slice k. */
CS_HD size_t csg_whole_slice_(const csg_plan_t *p, int k, size_t *slo)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo);

	return csg_slice(p, lo, n, k, slo);
}

/*
 * Chain broadcast (algo ring): v = r - root; base step 0: the root
 * copies SEND to RECV; step s >= 1: v == s pulls RECV[v-1] (v == 1 pulls
 * the root's SEND).
 */
CS_HD csg_op_t csg_op_chain_bc_(const csg_plan_t *p, int r, int s, int k)
{
	int v = csg_mod(r - p->root, p->P), prev = csg_mod(r - 1, p->P);
	size_t slo, sn = csg_whole_slice_(p, k, &slo);
	csg_op_t o;

	if (s != v || (v == 0 && p->inplace))
		return csg_op_none();
	o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);
	if (v == 0)
		csg_op_src(&o, csg_ref(r, CSG_SEND, slo), -1);
	else if (v == 1)
		csg_op_src(&o, csg_ref(prev, CSG_SEND, slo), -1);
	else
		csg_op_src(&o, csg_ref(prev, CSG_RECV, slo), -1);
	return o;
}

/*
 * Chain reduce (algo ring): v = r - root; base step s = 0..P-2: v ==
 * P-2-s adds its input to v+1's partial (v+1 == P-1: v+1's input), into
 * TMP, or into RECV with post at the root (v == 0).
 */
CS_HD csg_op_t csg_op_chain_rd_(const csg_plan_t *p, int r, int s, int k)
{
	int P = p->P, v = csg_mod(r - p->root, P), next = csg_mod(r + 1, P);
	size_t slo, sn = csg_whole_slice_(p, k, &slo);
	csg_op_t o;

	if (v != P - 2 - s)
		return csg_op_none();
	o = csg_op_to(csg_ref(r, v == 0 ? CSG_RECV : CSG_TMP, slo), sn);
	if (v + 1 == P - 1)
		csg_op_src(&o, csg_ref(next, CSG_SEND, slo), next);
	else
		csg_op_src(&o, csg_ref(next, CSG_TMP, slo), -1);
	csg_op_src(&o, csg_ref(r, CSG_SEND, slo), r);
	o.post = v == 0;
	return o;
}

/*
 * Tree reduction into `acc` (RECV for allreduce, TMP for reduce; RECV at
 * the root): in tree `tree`, the node of height s adds its input and its
 * children's partials; the root applies post. Run [lo, lo + n) of the
 * buffers.
 */
CS_HD csg_op_t csg_op_tree_up_(const csg_plan_t *p, int tree, int r, int s,
			       int acc, size_t lo, size_t n)
{
	int P = p->P, v = csg_tree_v(P, p->root, tree, r), c, w;
	csg_op_t o;

	if (csg_heap_height(P, v) != s)
		return csg_op_none();
	o = csg_op_to(csg_ref(r, v == 0 ? CSG_RECV : acc, lo), n);
	csg_op_src(&o, csg_ref(r, CSG_SEND, lo), r);
	for (c = 0; c < 2; c++)
		if ((w = csg_heap_child(P, v, c)) >= 0)
			csg_op_src(&o, csg_ref(csg_tree_rank(P, p->root, tree, w),
					       acc, lo), -1);
	o.post = v == 0;
	return o;
}

/* Tree broadcast down `tree`: the node of depth d pulls its parent's RECV
 * (the root's `from` buffer when the parent is the root) at down-step d. */
CS_HD csg_op_t csg_op_tree_down_(const csg_plan_t *p, int tree, int r, int d,
				 int from, size_t lo, size_t n)
{
	int P = p->P, v = csg_tree_v(P, p->root, tree, r), u;
	csg_op_t o;

	if (v == 0 || csg_heap_depth(v) != d)
		return csg_op_none();
	u = csg_heap_parent(v);
	o = csg_op_to(csg_ref(r, CSG_RECV, lo), n);
	csg_op_src(&o, csg_ref(csg_tree_rank(P, p->root, tree, u),
			       u == 0 ? from : CSG_RECV, lo), -1);
	return o;
}

/*
 * Double binary tree allreduce: the channel's run is cut in two halves,
 * half i reduced up tree i (base steps 0..H, the node of height s acts at
 * step s) then broadcast down it (the node of depth d at step H + d).
 * Ops: op i works on half i.
 */
CS_HD csg_op_t csg_op_dbt_ar_(const csg_plan_t *p, int r, int s, int k,
			      int i)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo), hlo, hn, slo, sn;
	int H = csg_tree_h(p->P);

	hlo = lo + csg_part_lo(n, 2, (size_t)i);
	hn = csg_part_len(n, 2, (size_t)i);
	sn = csg_slice(p, hlo, hn, k, &slo);
	if (s <= H)
		return csg_op_tree_up_(p, i, r, s, CSG_RECV, slo, sn);
	return csg_op_tree_down_(p, i, r, s - H, CSG_RECV, slo, sn);
}

/* Tree broadcast: step 0 the root copies SEND to RECV; step d the nodes
 * of depth d pull (depth 1 from the root's SEND). */
CS_HD csg_op_t csg_op_tree_bc_(const csg_plan_t *p, int r, int s, int k)
{
	size_t slo, sn = csg_whole_slice_(p, k, &slo);
	csg_op_t o;

	if (s == 0) {
		if (r != p->root || p->inplace)
			return csg_op_none();
		o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);
		csg_op_src(&o, csg_ref(r, CSG_SEND, slo), -1);
		return o;
	}
	return csg_op_tree_down_(p, 0, r, s, CSG_SEND, slo, sn);
}

/* Tree reduce: up tree 0 (rooted at root), partials in TMP. */
CS_HD csg_op_t csg_op_tree_rd_(const csg_plan_t *p, int r, int s, int k)
{
	size_t slo, sn = csg_whole_slice_(p, k, &slo);

	return csg_op_tree_up_(p, 0, r, s, CSG_TMP, slo, sn);
}

/* -- the all-to-alls, gather, scatter and sendrecv: block moves. */

/* The channel's slice k of the block q sends to r: its length, and the
 * offsets of its first element in q's send and r's recv buffers. */
CS_HD size_t csg_a2a_block_(const csg_plan_t *p, int q, int r, int k,
			    size_t *soff, size_t *roff)
{
	size_t cnt, sd, rd, lo, n, slo, sn;

	if (p->coll == CS_COLL_ALLTOALLV) {
		cnt = p->v.cnt[(size_t)q * p->P + r];
		sd = p->v.sdis[(size_t)q * p->P + r];
		rd = p->v.rdis[(size_t)r * p->P + q];
	} else {
		cnt = p->n;
		sd = (size_t)r * p->n;
		rd = (size_t)q * p->n;
	}
	n = csg_chan_part(p, cnt, &lo);
	sn = csg_slice(p, lo, n, k, &slo);
	*soff = sd + slo;
	*roff = rd + slo;
	return sn;
}

/* The rank r pulls from at a2a step s (after staging). */
CS_HD int csg_a2a_from_(const csg_plan_t *p, int r, int s, int i)
{
	return p->algo == CSG_ALGO_PAIRWISE ? csg_mod(r - s, p->P) : i;
}

/*
 * Alltoall(v), rank r: in place, base step 0 stages each block r sends
 * into TMP[r] at the same offset (op q: the block for q); then direct:
 * one step, op q pulls q's block for r; pairwise: step s pulls the block
 * of q = r - s. Out of place the pulls read SEND, in place TMP.
 */
CS_HD csg_op_t csg_op_a2a_(const csg_plan_t *p, int r, int s, int k, int i)
{
	int st = csg_stages(p), q;
	size_t soff, roff, n;
	csg_op_t o;

	if (st && s == 0) {
		n = csg_a2a_block_(p, r, i, k, &soff, &roff);
		o = csg_op_to(csg_ref(r, CSG_TMP, soff), n);
		csg_op_src(&o, csg_ref(r, CSG_SEND, soff), -1);
		return o;
	}
	q = csg_a2a_from_(p, r, s - st, i);
	n = csg_a2a_block_(p, q, r, k, &soff, &roff);
	o = csg_op_to(csg_ref(r, CSG_RECV, roff), n);
	csg_op_src(&o, csg_ref(q, st ? CSG_TMP : CSG_SEND, soff), -1);
	return o;
}

/* The channel's slice k of a block of n elements: offset within it. */
CS_HD size_t csg_block_slice_(const csg_plan_t *p, int k, size_t *slo)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo);

	return csg_slice(p, lo, n, k, slo);
}

/* Gather: the root pulls block q from q's SEND (op q). */
CS_HD csg_op_t csg_op_gather_(const csg_plan_t *p, int r, int k, int q)
{
	size_t slo, sn = csg_block_slice_(p, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)q * p->n + slo), sn);

	if (q == r && p->inplace)
		return csg_op_none(); /* the root's own block is in place */
	csg_op_src(&o, csg_ref(q, CSG_SEND, slo), -1);
	return o;
}

/* Scatter: every rank pulls its block from the root's SEND. */
CS_HD csg_op_t csg_op_scatter_(const csg_plan_t *p, int r, int k)
{
	size_t slo, sn = csg_block_slice_(p, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);

	if (r == p->root && p->inplace)
		return csg_op_none(); /* the root's own block is in place */
	csg_op_src(&o, csg_ref(p->root, CSG_SEND, (size_t)r * p->n + slo), -1);
	return o;
}

/* Sendrecv: r pulls r-1's SEND (in place: staged in TMP at step 0). */
CS_HD csg_op_t csg_op_sendrecv_(const csg_plan_t *p, int r, int s, int k)
{
	size_t slo, sn = csg_block_slice_(p, k, &slo);
	int st = csg_stages(p);
	csg_op_t o;

	if (st && s == 0) {
		o = csg_op_to(csg_ref(r, CSG_TMP, slo), sn);
		csg_op_src(&o, csg_ref(r, CSG_SEND, slo), -1);
		return o;
	}
	o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);
	csg_op_src(&o, csg_ref(csg_mod(r - 1, p->P), st ? CSG_TMP : CSG_SEND,
			       slo), -1);
	return o;
}

CS_HD int csg_nops(const csg_plan_t *p, int r, int s)
{
	if (s < 0 || s >= csg_base_steps(p))
		return 0;
	if (p->P == 1)
		return 1;
	switch (p->coll) {
	case CS_COLL_ALLREDUCE:
		return p->algo == CSG_ALGO_TREE ? 2 : 1;
	case CS_COLL_ALLGATHER:
		return s == 0 ? 2 : 1;
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
		return (csg_stages(p) && s == 0) || p->algo != CSG_ALGO_PAIRWISE
			       ? p->P
			       : 1;
	case CS_COLL_GATHER:
		return r == p->root ? p->P : 0;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return 1;
	}
}

CS_HD csg_op_t csg_get_op(const csg_plan_t *p, int r, int s, int k, int i)
{
	if (p->P == 1)
		return csg_op_single_(p, k);
	switch (p->coll) {
	case CS_COLL_ALLREDUCE:
		return p->algo == CSG_ALGO_TREE ? csg_op_dbt_ar_(p, r, s, k, i)
						: csg_op_ring_ar_(p, r, s, k);
	case CS_COLL_REDUCESCATTER:
		return csg_op_ring_rs_(p, r, s, k);
	case CS_COLL_ALLGATHER:
		return csg_op_ring_ag_(p, r, s, k, i);
	case CS_COLL_BROADCAST:
		return p->algo == CSG_ALGO_TREE ? csg_op_tree_bc_(p, r, s, k)
						: csg_op_chain_bc_(p, r, s, k);
	case CS_COLL_REDUCE:
		return p->algo == CSG_ALGO_TREE ? csg_op_tree_rd_(p, r, s, k)
						: csg_op_chain_rd_(p, r, s, k);
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
		return csg_op_a2a_(p, r, s, k, i);
	case CS_COLL_GATHER:
		return csg_op_gather_(p, r, k, i);
	case CS_COLL_SCATTER:
		return csg_op_scatter_(p, r, k);
	case CS_COLL_SENDRECV:
		return csg_op_sendrecv_(p, r, s, k);
	case CS_NUM_COLLS: /* not a collective */
	default:
		return csg_op_none();
	}
}

/* ---- the plan ----------------------------------------------------------------- */

/*
 * Fill a plan for one call (channel 0 of nchan; set chan per lane). algo
 * AUTO is resolved with csg_auto_algo (bytes: the count times the element
 * size). An in-place alltoallv gets one channel and one slice: its send
 * and receive blocks of one pair are at different offsets, so every block
 * must be staged before any is written, which only the step order within
 * one channel guarantees (the caller reads p->nchan back). Returns 0, or -1 when algo does not implement coll or an
 * argument is out of range (P outside 1..CSG_MAX_RANKS, root outside
 * 0..P-1, nchan or nslices < 1).
 */
CS_HD int csg_plan_init(csg_plan_t *p, cs_coll_t coll, csg_algo_t algo, int P,
			int root, int inplace, size_t n, size_t esize,
			int nchan, int nslices, csg_vmat_t v)
{
	if (P < 1 || P > CSG_MAX_RANKS || nchan < 1 || nslices < 1 ||
	    (unsigned)algo >= CSG_NUM_ALGOS || !csg_algo_supports(algo, coll))
		return -1;
	if (csg_rooted(coll) && (root < 0 || root >= P))
		return -1;
	if (coll == CS_COLL_ALLTOALLV && (!v.cnt || !v.sdis || !v.rdis))
		return -1;
	if (algo == CSG_ALGO_AUTO)
		algo = csg_auto_algo(coll, n * esize);
	if (coll == CS_COLL_ALLTOALLV && inplace)
		nchan = nslices = 1; /* see below */
	p->coll = coll;
	p->algo = algo;
	p->P = P;
	p->root = csg_rooted(coll) ? root : 0;
	p->inplace = inplace != 0;
	p->nchan = nchan;
	p->chan = 0;
	p->nslices = nslices;
	p->n = n;
	p->v = v;
	return 0;
}

#endif /* CSGPU_SCHED_H */
