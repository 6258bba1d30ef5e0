/*
 * exec.c - the CPU executor of libcsgpu's schedules (see csgpu/sim.h).
 */
#include <stdint.h>
#include <string.h>
#include "csgpu/sim.h"

/* The default op source. */
static csg_op_t plain_op(const csg_plan_t *p, int r, int s, int k, int i,
			 void *ctx)
{
	(void)ctx;
	return csg_get_op(p, r, s, k, i);
}

/* 1 when ref names a buffer of b that holds [off, off + n). */
static int ref_ok(const csg_plan_t *p, const csg_sim_bufs_t *b,
		  const csg_ref_t *x, size_t n)
{
	size_t len;

	if (x->rank < 0 || x->rank >= p->P || x->buf < CSG_SEND ||
	    x->buf > CSG_TMP || !b->buf[x->rank][x->buf])
		return 0;
	len = b->len[x->rank][x->buf];
	return x->off <= len && n <= len - x->off;
}

static cs_status_t check_op(const csg_plan_t *p, const csg_sim_bufs_t *b,
			    const csg_op_t *o, int r, int t, int i)
{
	int j;

	if (o->nsrc < 1 || o->nsrc > CSG_MAX_SRC)
		return cs_error(CS_ERR_INVALID, "schedule: step %d, rank %d, "
				"op %d has %d sources", t, r, i, o->nsrc);
	if (o->dst.rank != r || o->dst.buf == CSG_SEND ||
	    !ref_ok(p, b, &o->dst, o->n))
		return cs_error(CS_ERR_INVALID, "schedule: step %d, rank %d, "
				"op %d writes [%zu, +%zu) of rank %d's buffer "
				"%d: not its own RECV or TMP, or out of range",
				t, r, i, o->dst.off, o->n, o->dst.rank,
				o->dst.buf);
	for (j = 0; j < o->nsrc; j++)
		if (!ref_ok(p, b, &o->src[j], o->n) || o->pre[j] >= p->P)
			return cs_error(CS_ERR_INVALID, "schedule: step %d, "
					"rank %d, op %d reads [%zu, +%zu) of "
					"rank %d's buffer %d: out of range", t,
					r, i, o->src[j].off, o->n,
					o->src[j].rank, o->src[j].buf);
	return CS_OK;
}

/* dst[j] = csg_apply(sources[j]) for j < o->n. */
static void run_op(const csg_red_t *red, const csg_sim_bufs_t *b,
		   const csg_op_t *o)
{
	void *dst = b->buf[o->dst.rank][o->dst.buf];
	const void *src[CSG_MAX_SRC];
	long long j, n = (long long)o->n;
	int i;

	for (i = 0; i < o->nsrc; i++)
		src[i] = b->buf[o->src[i].rank][o->src[i].buf];
#pragma omp parallel for if (n > 65536) private(i)
	for (j = 0; j < n; j++) {
		uint64_t x[CSG_MAX_SRC] = { 0 };

		for (i = 0; i < o->nsrc; i++)
			x[i] = cs_load(red->dtype, src[i],
				       o->src[i].off + (size_t)j);
		cs_store(red->dtype, dst, o->dst.off + (size_t)j,
			 csg_apply(red, o, x));
	}
}

cs_status_t csg_sim_run(const csg_plan_t *plan, const csg_red_t *red,
			const csg_sim_bufs_t *b, csg_get_op_fn get_op,
			void *ctx)
{
	csg_plan_t p;
	cs_status_t st;
	int t, ch, k, r, i, s, T;
	csg_op_t o;

	if (!plan || !red || !b)
		return cs_error(CS_ERR_INVALID, "csg_sim_run: NULL argument");
	if (!get_op)
		get_op = plain_op;
	p = *plan;
	T = csg_nsteps(&p);
	for (t = 0; t < T; t++)
		for (ch = 0; ch < p.nchan; ch++)
			for (p.chan = ch, k = 0; k < p.nslices; k++) {
				if ((s = csg_slice_step(&p, t, k)) < 0)
					continue;
				for (r = 0; r < p.P; r++)
					for (i = 0; i < csg_nops(&p, r, s); i++) {
						o = get_op(&p, r, s, k, i, ctx);
						if (o.n == 0)
							continue;
						if ((st = check_op(&p, b, &o, r, t,
								   i)) != CS_OK)
							return st;
						run_op(red, b, &o);
					}
			}
	return CS_OK;
}
