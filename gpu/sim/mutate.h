/*
 * mutate.h - schedule bugs on purpose: mutants of csgpu/sched.h's ops, to
 * show that the symbolic checker (symcheck.h) and the gpu-sim suite catch
 * each.
 *
 * A mutant is a number `which`, 0 .. CSG_NUM_MUTANTS - 1; 0 is the
 * schedule as it is. csg_mutant_op replaces csg_get_op (same arguments,
 * plus which) and carries every mutant on its own (a skipped step is a
 * step of no-ops), so an executor that takes a get_op hook needs nothing
 * else; csg_mutant_nops replaces csg_nops for those that also hook the
 * op count (skip-step then has no ops at all). Everything else of the
 * schedule (steps, wavefront, peers) is sched.h's. Every mutant touches
 * every op, or one base step that every plan of two or more ranks runs,
 * so each one changes what realistic cases compute.
 *
 * Build-time selection, for an executor (the gpu-sim backend compiled as
 * a plugin with -DCSG_MUTANT=N): call csg_exec_op (or pass
 * csg_exec_get_op, csgpu/sim.h's csg_get_op_fn shape, as the hook) and
 * csg_exec_nops, which are csg_get_op and csg_nops when CSG_MUTANT is 0
 * or undefined.
 *
 * Plain C, host and device (CS_HD), like sched.h; header only.
 */
#ifndef CSGPU_MUTATE_H
#define CSGPU_MUTATE_H

#include "csgpu/sched.h"

/* X(ID, name, what it does) */
#define CSG_MUTANT_LIST(X)                                                  \
	X(NONE, "none", "the schedule as it is")                             \
	X(WRONG_PEER, "wrong-peer", "every source on another rank is read "  \
		"from the next rank instead (never the reader itself "       \
		"when P > 2)")                                               \
	X(SRC_SHIFT_SLICE, "src-shift-slice", "every op's first source "    \
		"starts one op length (one slice) further on")               \
	X(SRC_SHIFT_ONE, "src-shift-one", "every op's first source starts " \
		"one element earlier (one later at offset 0)")               \
	X(SKIP_STEP, "skip-step", "base step csg_base_steps / 2 runs no "   \
		"op")                                                        \
	X(MISSING_SLICE, "missing-slice", "at base step csg_base_steps / 2 " \
		"the last slice runs no op")                                 \
	X(DROP_PRE, "drop-pre", "every op's first source loses its pre "    \
		"(reductions)")                                              \
	X(POST_TWICE, "post-twice", "every op applies post (reductions): "  \
		"twice on copies of the final value, and on partials")       \
	X(WRITE_NEXT, "write-next-chunk", "every op writes one op length "  \
		"(one slice) further on")

enum csg_mutant {
#define CSG_MUTANT_ENUM_(ID, ...) CSG_MUTANT_##ID,
	CSG_MUTANT_LIST(CSG_MUTANT_ENUM_)
#undef CSG_MUTANT_ENUM_
	CSG_NUM_MUTANTS /* including NONE */
};

/* "wrong-peer", ...; NULL when which is out of range. */
static inline const char *csg_mutant_name(int which)
{
	static const char *const names[] = {
#define CSG_MUTANT_NAME_(ID, name, ...) name,
		CSG_MUTANT_LIST(CSG_MUTANT_NAME_)
#undef CSG_MUTANT_NAME_
	};

	return which >= 0 && which < CSG_NUM_MUTANTS ? names[which] : 0;
}

/* 1 when mutant which can change a plan of collective c (the pre and
 * post mutants need a reduction). */
CS_HD int csg_mutant_applies(int which, cs_coll_t c)
{
	if (which == CSG_MUTANT_DROP_PRE || which == CSG_MUTANT_POST_TWICE)
		return csg_reduces(c);
	return which > 0 && which < CSG_NUM_MUTANTS;
}

/* The base step the step mutants hit. */
CS_HD int csg_mutant_step_(const csg_plan_t *p)
{
	return csg_base_steps(p) / 2;
}

/* csg_nops, mutated. */
CS_HD int csg_mutant_nops(int which, const csg_plan_t *p, int r, int s)
{
	if (which == CSG_MUTANT_SKIP_STEP && s == csg_mutant_step_(p))
		return 0;
	return csg_nops(p, r, s);
}

/* Source m of o reads another rank: the next rank, but not r itself
 * when there is a third. */
CS_HD void csg_mutant_peer_(const csg_plan_t *p, csg_op_t *o, int r)
{
	int m, q;

	for (m = 0; m < o->nsrc; m++) {
		if (o->src[m].rank == r)
			continue;
		q = csg_mod(o->src[m].rank + 1, p->P);
		if (q == r && p->P > 2)
			q = csg_mod(q + 1, p->P);
		o->src[m].rank = q;
	}
}

/* csg_get_op, mutated. */
CS_HD csg_op_t csg_mutant_op(int which, const csg_plan_t *p, int r, int s,
			     int k, int i)
{
	csg_op_t o = csg_get_op(p, r, s, k, i);

	if (!o.nsrc)
		return o;
	switch (which) {
	case CSG_MUTANT_SKIP_STEP:
		if (s == csg_mutant_step_(p))
			return csg_op_none();
		break;
	case CSG_MUTANT_WRONG_PEER:
		csg_mutant_peer_(p, &o, r);
		break;
	case CSG_MUTANT_SRC_SHIFT_SLICE:
		o.src[0].off += o.n;
		break;
	case CSG_MUTANT_SRC_SHIFT_ONE:
		o.src[0].off = o.src[0].off ? o.src[0].off - 1 : 1;
		break;
	case CSG_MUTANT_MISSING_SLICE:
		if (s == csg_mutant_step_(p) && k == p->nslices - 1)
			return csg_op_none();
		break;
	case CSG_MUTANT_DROP_PRE:
		o.pre[0] = -1;
		break;
	case CSG_MUTANT_POST_TWICE:
		o.post = csg_reduces(p->coll);
		break;
	case CSG_MUTANT_WRITE_NEXT:
		o.dst.off += o.n;
		break;
	default:
		break;
	}
	return o;
}

/* What an executor calls: the mutant CSG_MUTANT chosen at build time. */
#ifndef CSG_MUTANT
#define CSG_MUTANT 0
#endif

CS_HD int csg_exec_nops(const csg_plan_t *p, int r, int s)
{
	return CSG_MUTANT ? csg_mutant_nops(CSG_MUTANT, p, r, s)
			  : csg_nops(p, r, s);
}

CS_HD csg_op_t csg_exec_op(const csg_plan_t *p, int r, int s, int k, int i)
{
	return CSG_MUTANT ? csg_mutant_op(CSG_MUTANT, p, r, s, k, i)
			  : csg_get_op(p, r, s, k, i);
}

/* csg_exec_op as a get_op hook (ctx unused). */
CS_HD csg_op_t csg_exec_get_op(const csg_plan_t *p, int r, int s, int k,
			       int i, void *ctx)
{
	(void)ctx;
	return csg_exec_op(p, r, s, k, i);
}

#endif /* CSGPU_MUTATE_H */
