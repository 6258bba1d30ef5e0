/*
 * sched_classic.h - the classic CPU algorithms of the cost model
 * (ref/cost, docs/model.md) as schedules in sched.h's form: per rank,
 * base step, slice and op, one csg_op_t (pull model: a rank writes only
 * its own RECV and TMP and reads any rank's buffers). No kernel runs
 * them; they exist so that the symbolic checker proves them
 * (gpu/sim/symcheck_classic.c) and `collspec explain COLL --algo NAME
 * --steps` draws them beside the gpu/ algorithms.
 *
 * The algorithms, by the cost model's names (`collspec model`):
 *   rd        recursive doubling. allreduce: log2 P steps, step s
 *             exchanges the whole vector with rank r XOR 2^s and both
 *             keep the sum (the partials alternate between TMP and RECV
 *             so that no slot is read and written in one step).
 *             allgather: step s pulls the 2^s blocks the partner r XOR
 *             2^s holds (step 0 also copies the rank's own block).
 *   rhd       recursive halving. reducescatter: step s (partner r XOR
 *             P/2^(s+1)) keeps the half of the blocks it is still
 *             reducing that holds its own block and adds the partner's
 *             partials of that half (in TMP; the last step into RECV).
 *             allreduce (Rabenseifner's): the same halving on the P
 *             chunks of the vector (in RECV), then an allgather by
 *             recursive doubling of the chunks. "rabenseifner" is the
 *             explain command's other name for rhd allreduce.
 *   binomial  binomial tree, rooted at root, whole message each step;
 *             v = r - root (mod P), L = ceil(log2 P); the parent of v
 *             is v with its lowest set bit cleared. reduce: step s (s <
 *             L) every v that is a multiple of 2^(s+1) with v + 2^s < P
 *             adds the partial of v + 2^s to its own (in TMP; the root's
 *             last step into RECV, with post). broadcast, the same tree
 *             the other way: step 0 the root copies SEND to RECV, step
 *             j = 1..L the ranks whose lowest set bit is 2^(L-j) pull
 *             from their parent (largest distance first).
 *
 * P not a power of two: rd and rhd REFUSE it (csg_cl_plan_init returns
 * CSG_CL_ENOTPOW2), as the cost model does (its rd and rhd formulas are
 * defined for powers of two only); the fold of the extra ranks that MPI
 * libraries add is not modelled here. binomial takes every P.
 * In place: refused (CSG_CL_EINPLACE); these schedules are out of place.
 * P == 1: sched.h's single local op.
 *
 * Channels and slices work as in sched.h: every chunk or block is cut
 * into the channel's part, then into slices, and an op moves one slice of
 * one chunk (so a step of rd allgather or rhd has one op per block).
 */
#ifndef CSGPU_SCHED_CLASSIC_H
#define CSGPU_SCHED_CLASSIC_H

#include "csgpu/sched.h"

#define CSG_CLASSIC_LIST(X)                                                \
	X(RD, "rd", "recursive doubling: allreduce, allgather")            \
	X(RHD, "rhd", "recursive halving: reducescatter; allreduce as "    \
		      "Rabenseifner's halving then doubling")              \
	X(BINOMIAL, "binomial", "binomial tree broadcast and reduce")

typedef enum csg_classic {
#define CSG_CL_ENUM_(ID, ...) CSG_CL_##ID,
	CSG_CLASSIC_LIST(CSG_CL_ENUM_)
#undef CSG_CL_ENUM_
	CSG_NUM_CLASSIC
} csg_classic_t;

/* Returns of csg_cl_plan_init besides 0. */
#define CSG_CL_EINVAL (-1)   /* unsupported pair or argument out of range */
#define CSG_CL_ENOTPOW2 (-2) /* rd, rhd: P is not a power of two */
#define CSG_CL_EINPLACE (-3) /* in place asked for */

/* 1 when classic algorithm a implements coll. */
CS_HD int csg_cl_supports(csg_classic_t a, cs_coll_t c)
{
	switch (a) {
	case CSG_CL_RD:
		return c == CS_COLL_ALLREDUCE || c == CS_COLL_ALLGATHER;
	case CSG_CL_RHD:
		return c == CS_COLL_ALLREDUCE || c == CS_COLL_REDUCESCATTER;
	case CSG_CL_BINOMIAL:
		return c == CS_COLL_BROADCAST || c == CS_COLL_REDUCE;
	case CSG_NUM_CLASSIC:
	default:
		break;
	}
	return 0;
}

/* ceil(log2 P) for P >= 1. */
CS_HD int csg_cl_log2(int P)
{
	int L = 0;

	while ((1L << L) < P)
		L++;
	return L;
}

/*
 * Fill p for classic algorithm a (its fields as csg_plan_init's; n the
 * count argument). p->algo is set to CSG_ALGO_RING, the gpu/ algorithm
 * that serves the same collectives (every pair above has one), so that
 * checkers validating p->algo accept the plan; the classic algorithm is
 * the argument a of every function below. Returns 0 or CSG_CL_E*.
 */
CS_HD int csg_cl_plan_init(csg_plan_t *p, cs_coll_t coll, csg_classic_t a,
			   int P, int root, int inplace, size_t n, int nchan,
			   int nslices)
{
	csg_vmat_t v = {0, 0, 0};

	if ((unsigned)a >= CSG_NUM_CLASSIC || !csg_cl_supports(a, coll))
		return CSG_CL_EINVAL;
	if (inplace)
		return CSG_CL_EINPLACE;
	if (P >= 1 && P <= CSG_MAX_RANKS && a != CSG_CL_BINOMIAL &&
	    (P & (P - 1)) != 0)
		return CSG_CL_ENOTPOW2;
	if (csg_plan_init(p, coll, CSG_ALGO_RING, P, root, 0, n, 1, nchan,
			  nslices, v))
		return CSG_CL_EINVAL;
	return 0;
}

/* v of rank r in the binomial tree, and its rank. */
CS_HD int csg_cl_v(const csg_plan_t *p, int r)
{
	return csg_mod(r - p->root, p->P);
}

CS_HD int csg_cl_rank(const csg_plan_t *p, int v)
{
	return csg_mod(v + p->root, p->P);
}

/* Base steps of plan p under a (one slice; the wavefront of sched.h adds
 * nslices - 1): rd log2 P, rhd log2 P (reducescatter) or 2 log2 P
 * (allreduce), binomial ceil(log2 P) (+1 for broadcast's root copy). */
CS_HD int csg_cl_base_steps(csg_classic_t a, const csg_plan_t *p)
{
	int L = csg_cl_log2(p->P);

	if (p->P == 1)
		return 1;
	switch (a) {
	case CSG_CL_RD:
	case CSG_CL_RHD:
		return p->coll == CS_COLL_ALLREDUCE && a == CSG_CL_RHD ? 2 * L
								      : L;
	case CSG_CL_BINOMIAL:
		return p->coll == CS_COLL_BROADCAST ? L + 1 : L;
	case CSG_NUM_CLASSIC:
	default:
		break;
	}
	return 0;
}

/* The binomial reduce child of v at step s, or -1 when v takes none. */
CS_HD int csg_cl_bin_child(const csg_plan_t *p, int v, int s)
{
	long m = 1L << s;

	return v % (2 * m) == 0 && v + m < p->P ? (int)(v + m) : -1;
}

/* Ops of rank r at base step s (0 when it idles), as csg_nops. */
CS_HD int csg_cl_nops(csg_classic_t a, const csg_plan_t *p, int r, int s)
{
	int L = csg_cl_log2(p->P), v;

	if (s < 0 || s >= csg_cl_base_steps(a, p))
		return 0;
	if (p->P == 1)
		return 1;
	switch (a) {
	case CSG_CL_RD:
		if (p->coll == CS_COLL_ALLREDUCE)
			return 1;
		return s == 0 ? 2 : 1 << s; /* allgather: blocks pulled */
	case CSG_CL_RHD:
		if (s < L)
			return p->P >> (s + 1); /* blocks (chunks) kept */
		return 1 << (s - L);           /* chunks pulled */
	case CSG_CL_BINOMIAL:
		v = csg_cl_v(p, r);
		if (p->coll == CS_COLL_BROADCAST)
			return s == 0 ? v == 0
				      : v != 0 && (v & -v) == 1 << (L - s);
		return csg_cl_bin_child(p, v, s) >= 0;
	case CSG_NUM_CLASSIC:
	default:
		break;
	}
	return 0;
}

/* Slice k of part c of the channel's run cut in P parts (Rabenseifner's
 * chunks, the ring's chunks of sched.h). */
CS_HD size_t csg_cl_chunk(const csg_plan_t *p, int c, int k, size_t *slo)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo);
	size_t clo = lo + csg_part_lo(n, (size_t)p->P, (size_t)c);

	return csg_slice(p, clo, csg_part_len(n, (size_t)p->P, (size_t)c), k,
			 slo);
}

/* Slice k of the channel's part of a block of n: offset in the block. */
CS_HD size_t csg_cl_inblock(const csg_plan_t *p, int k, size_t *slo)
{
	size_t lo, n = csg_chan_part(p, p->n, &lo);

	return csg_slice(p, lo, n, k, slo);
}

/* rd allreduce: the buffer step s writes (the last one RECV). */
CS_HD int csg_cl_rd_buf(int L, int s)
{
	return (L - 1 - s) % 2 == 0 ? CSG_RECV : CSG_TMP;
}

CS_HD csg_op_t csg_cl_rd_ar(const csg_plan_t *p, int r, int s, int k)
{
	int L = csg_cl_log2(p->P), q = r ^ (1 << s), lo = r < q ? r : q;
	int hi = r < q ? q : r, x, from = s ? csg_cl_rd_buf(L, s - 1) : CSG_SEND;
	size_t slo, sn = csg_cl_inblock(p, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, csg_cl_rd_buf(L, s), slo), sn);

	for (x = 0; x < 2; x++)
		csg_op_src(&o, csg_ref(x ? hi : lo, from, slo),
			   s ? -1 : (x ? hi : lo));
	o.post = s == L - 1;
	return o;
}

/* rd allgather: step 0 op 0 the own block, op 1 the partner's (both from
 * SEND); step s op i: block i of the partner's aligned 2^s blocks. */
CS_HD csg_op_t csg_cl_rd_ag(const csg_plan_t *p, int r, int s, int k, int i)
{
	int m = 1 << s, q = r ^ m, c;
	size_t slo, sn = csg_cl_inblock(p, k, &slo);
	csg_op_t o;

	if (s == 0) {
		c = i == 0 ? r : q;
		o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)c * p->n + slo), sn);
		csg_op_src(&o, csg_ref(c, CSG_SEND, slo), -1);
		return o;
	}
	c = q / m * m + i;
	o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)c * p->n + slo), sn);
	csg_op_src(&o, csg_ref(q, CSG_RECV, (size_t)c * p->n + slo), -1);
	return o;
}

/*
 * rhd halving step s < L, op i: block (reducescatter) or chunk
 * (allreduce) c = i-th of the aligned P/2^(s+1) that hold r's own;
 * dst = val(lo) + val(hi), val(x) = pre(SEND[x]) at step 0, else x's
 * partial (TMP for reducescatter, RECV for allreduce).
 */
CS_HD csg_op_t csg_cl_rhd_half(const csg_plan_t *p, int r, int s, int k,
			       int i)
{
	int L = csg_cl_log2(p->P), m = p->P >> (s + 1), q = r ^ m, x, w;
	int c = r / m * m + i, rs = p->coll == CS_COLL_REDUCESCATTER;
	int lo = r < q ? r : q, hi = r < q ? q : r;
	size_t off, sn, slo, doff;
	csg_op_t o;

	if (rs) {
		sn = csg_cl_inblock(p, k, &slo);
		off = (size_t)c * p->n + slo;
		doff = s == L - 1 ? slo : off;
		o = csg_op_to(csg_ref(r, s == L - 1 ? CSG_RECV : CSG_TMP, doff),
			      sn);
	} else {
		sn = csg_cl_chunk(p, c, k, &slo);
		off = slo;
		o = csg_op_to(csg_ref(r, CSG_RECV, off), sn);
	}
	for (x = 0; x < 2; x++) {
		w = x ? hi : lo;
		if (s == 0)
			csg_op_src(&o, csg_ref(w, CSG_SEND, off), w);
		else
			csg_op_src(&o, csg_ref(w, rs ? CSG_TMP : CSG_RECV, off),
				   -1);
	}
	o.post = s == L - 1;
	return o;
}

/* rhd allreduce doubling step L + t, op i: chunk i of the partner's
 * aligned 2^t chunks, from its RECV. */
CS_HD csg_op_t csg_cl_rhd_double(const csg_plan_t *p, int r, int t, int k,
				 int i)
{
	int m = 1 << t, q = r ^ m, c = q / m * m + i;
	size_t slo, sn = csg_cl_chunk(p, c, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);

	csg_op_src(&o, csg_ref(q, CSG_RECV, slo), -1);
	return o;
}

/* binomial broadcast: the root's copy at step 0, the pulls after. */
CS_HD csg_op_t csg_cl_bin_bc(const csg_plan_t *p, int r, int s, int k)
{
	int v = csg_cl_v(p, r), u;
	size_t slo, sn = csg_cl_inblock(p, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);

	if (s == 0) {
		csg_op_src(&o, csg_ref(r, CSG_SEND, slo), -1);
		return o;
	}
	u = v & (v - 1); /* the parent */
	csg_op_src(&o, csg_ref(csg_cl_rank(p, u), u == 0 ? CSG_SEND : CSG_RECV,
			       slo), -1);
	return o;
}

/* binomial reduce at step s: v adds child c's partial (c's SEND with pre
 * when c is a leaf, else c's TMP) to its own (its SEND with pre at its
 * first step, else its TMP); the root's last step writes RECV, post. */
CS_HD csg_op_t csg_cl_bin_rd(const csg_plan_t *p, int r, int s, int k)
{
	int v = csg_cl_v(p, r), c = csg_cl_bin_child(p, v, s), cr;
	int L = csg_cl_log2(p->P), last = v == 0 && s == L - 1;
	size_t slo, sn = csg_cl_inblock(p, k, &slo);
	csg_op_t o = csg_op_to(csg_ref(r, last ? CSG_RECV : CSG_TMP, slo), sn);

	if (s == 0)
		csg_op_src(&o, csg_ref(r, CSG_SEND, slo), r);
	else
		csg_op_src(&o, csg_ref(r, CSG_TMP, slo), -1);
	cr = csg_cl_rank(p, c);
	if (csg_cl_bin_child(p, c, 0) < 0)
		csg_op_src(&o, csg_ref(cr, CSG_SEND, slo), cr); /* a leaf */
	else
		csg_op_src(&o, csg_ref(cr, CSG_TMP, slo), -1);
	o.post = last;
	return o;
}

/* Op i (< csg_cl_nops) of rank r at base step s, slice k, as
 * csg_get_op. */
CS_HD csg_op_t csg_cl_get_op(csg_classic_t a, const csg_plan_t *p, int r,
			     int s, int k, int i)
{
	int L = csg_cl_log2(p->P);

	if (p->P == 1)
		return csg_op_single_(p, k);
	switch (a) {
	case CSG_CL_RD:
		return p->coll == CS_COLL_ALLREDUCE ? csg_cl_rd_ar(p, r, s, k)
						    : csg_cl_rd_ag(p, r, s, k, i);
	case CSG_CL_RHD:
		return s < L ? csg_cl_rhd_half(p, r, s, k, i)
			     : csg_cl_rhd_double(p, r, s - L, k, i);
	case CSG_CL_BINOMIAL:
		return p->coll == CS_COLL_BROADCAST ? csg_cl_bin_bc(p, r, s, k)
						    : csg_cl_bin_rd(p, r, s, k);
	case CSG_NUM_CLASSIC:
	default:
		break;
	}
	return csg_op_none();
}

/*
 * Peers: rd and rhd, every r XOR 2^j (j < log2 P), in order of j;
 * binomial, the parent (v minus its lowest set bit) then the children
 * v + 2^j (2^j below v's lowest set bit, any j for the root, v + 2^j <
 * P), in order of j.
 */
CS_HD int csg_cl_bin_nbr_(const csg_plan_t *p, int r, int idx)
{
	int v = csg_cl_v(p, r), L = csg_cl_log2(p->P), j, n = 0;

	if (v != 0 && n++ == idx)
		return csg_cl_rank(p, v & (v - 1));
	for (j = 0; j < L; j++) {
		if (v != 0 && (1 << j) >= (v & -v))
			break;
		if (v + (1 << j) < p->P && n++ == idx)
			return csg_cl_rank(p, v + (1 << j));
	}
	return idx < 0 ? n : -1;
}

CS_HD int csg_cl_npeers(csg_classic_t a, const csg_plan_t *p, int r)
{
	if (p->P == 1)
		return 0;
	if (a == CSG_CL_BINOMIAL)
		return csg_cl_bin_nbr_(p, r, -1);
	return csg_cl_log2(p->P);
}

CS_HD int csg_cl_peer(csg_classic_t a, const csg_plan_t *p, int r, int i)
{
	if (a == CSG_CL_BINOMIAL)
		return csg_cl_bin_nbr_(p, r, i);
	return r ^ (1 << i);
}

#endif /* CSGPU_SCHED_CLASSIC_H */
