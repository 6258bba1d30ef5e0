/*
 * symcheck_classic.c - the classic algorithms of csgpu/sched_classic.h
 * handed to the symbolic checker through its schedule source (the hook
 * test_symcheck uses for mutants), so that they are proved exactly as
 * the gpu/ schedules are.
 */
#include "symcheck_classic.h"

static int cl_base_steps(const csg_plan_t *p, void *ctx)
{
	return csg_cl_base_steps(*(const csg_classic_t *)ctx, p);
}

static int cl_nops(const csg_plan_t *p, int r, int s, void *ctx)
{
	return csg_cl_nops(*(const csg_classic_t *)ctx, p, r, s);
}

static csg_op_t cl_get_op(const csg_plan_t *p, int r, int s, int k, int i,
			  void *ctx)
{
	return csg_cl_get_op(*(const csg_classic_t *)ctx, p, r, s, k, i);
}

static int cl_npeers(const csg_plan_t *p, int r, void *ctx)
{
	return csg_cl_npeers(*(const csg_classic_t *)ctx, p, r);
}

static int cl_peer(const csg_plan_t *p, int r, int i, void *ctx)
{
	return csg_cl_peer(*(const csg_classic_t *)ctx, p, r, i);
}

csg_sched_src_t csg_classic_src(const csg_classic_t *a)
{
	csg_sched_src_t s;

	s.base_steps = cl_base_steps;
	s.nops = cl_nops;
	s.get_op = cl_get_op;
	s.npeers = cl_npeers;
	s.peer = cl_peer;
	s.ctx = (void *)(uintptr_t)a;
	return s;
}

int csg_symcheck_classic(csg_classic_t a, const csg_plan_t *p, char *msg,
			 size_t len)
{
	csg_sched_src_t src = csg_classic_src(&a);
	csg_symcheck_opts_t o;

	o.src = &src;
	o.a2av_gap = 0;
	return csg_symcheck_ex(p, &o, msg, len);
}

const char *csg_classic_name(csg_classic_t a)
{
	static const char *const names[] = {
#define CSG_CL_NAME_(ID, name, ...) name,
		CSG_CLASSIC_LIST(CSG_CL_NAME_)
#undef CSG_CL_NAME_
	};

	return (unsigned)a < CSG_NUM_CLASSIC ? names[a] : NULL;
}
