/*
 * explain_steps_run.c - the run behind `collspec explain COLL --algo NAME
 * --steps`: the plan executed on tokens in lockstep, like the symbolic
 * checker, every op taken from the schedule (explain_steps_impl.h). Every
 * slot of every rank's RECV and TMP holds nothing yet, the contributions
 * of a reduction ("r0+r1+r2", runs of four or more ranks as "r0-r7"), or
 * for data movement the input element it carries ("r1[3]": rank 1's send
 * element 3). After each step: the ops of every rank, then the state. At
 * the end: how many elements each rank sent (elements other ranks read
 * from its buffers; the model is pull) and received, the busiest rank's
 * counts over the cost model's n, and the cost model's b(P) beside them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_steps_impl.h"

/* Check that op o stays inside the buffers (the checker proves the
 * schedules; this guards the drawing against a stale build). */
static int op_fits(const struct cs_st_run *w, const csg_op_t *o)
{
	int m;

	if (o->dst.rank < 0 || o->dst.rank >= w->P || o->dst.off + o->n > w->cap)
		return 0;
	for (m = 0; m < o->nsrc; m++)
		if (o->src[m].rank < 0 || o->src[m].rank >= w->P ||
		    o->src[m].buf < 0 || o->src[m].buf > 2 ||
		    o->src[m].off + o->n > w->cap)
			return 0;
	return 1;
}

/* Element j of op o's result. */
static struct cs_st_tok op_elem(struct cs_st_run *w, const csg_op_t *o,
				size_t j)
{
	struct cs_st_tok res, *x;
	int m;

	memset(&res, 0, sizeof res);
	for (m = 0; m < o->nsrc; m++) {
		x = cs_st_slot(w, o->src[m].rank, o->src[m].buf, o->src[m].off + j);
		if (!x->set)
			continue; /* the checker proves this never happens */
		if (!res.set) {
			res = *x;
		} else {
			res.mask |= x->mask;
		}
	}
	res.written = 1;
	return res;
}

struct pend {
	int r, b;
	size_t i;
	struct cs_st_tok t;
};

/* Gather the writes of step t (lockstep: every read before any write). */
static cs_status_t step_writes(struct cs_st_run *w, int t, struct pend **out,
			       size_t *nout)
{
	struct pend *pd = NULL, *np;
	size_t n = 0, capn = 0, j;
	csg_op_t o;
	int r, i, m;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < cs_st_nops(&w->s, r, t); i++) {
			o = cs_st_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			if (!op_fits(w, &o)) {
				free(pd);
				return cs_error(CS_ERR_INTERNAL, "rank %d step "
						"%d op %d leaves the buffers",
						r, t, i);
			}
			for (m = 0; m < o.nsrc; m++)
				if (o.src[m].rank != r) {
					w->sent[o.src[m].rank] += o.n;
					w->sent[w->P + r] += o.n;
				}
			if (n + o.n > capn) {
				capn = 2 * (n + o.n);
				if (!(np = realloc(pd, capn * sizeof *pd))) {
					free(pd);
					return cs_error(CS_ERR_NOMEM, "out of "
							"memory");
				}
				pd = np;
			}
			for (j = 0; j < o.n; j++) {
				pd[n].r = r;
				pd[n].b = o.dst.buf;
				pd[n].i = o.dst.off + j;
				pd[n++].t = op_elem(w, &o, j);
			}
		}
	*out = pd;
	*nout = n;
	return CS_OK;
}

/* Print the ops of step t. */
static void print_ops(struct cs_st_run *w, int t)
{
	char txt[512];
	csg_op_t o;
	int r, i;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < cs_st_nops(&w->s, r, t); i++) {
			o = cs_st_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			cs_st_op_text(&o, txt, sizeof txt);
			printf("  r%d: %s\n", r, txt);
		}
}

/* Print the state after a step: every rank's recv (and tmp). */
static void print_state(struct cs_st_run *w)
{
	char txt[96];
	size_t i;
	int r, b;

	printf("  state:\n");
	for (r = 0; r < w->P; r++)
		for (b = CSG_RECV; b <= CSG_TMP; b++) {
			size_t n = b == CSG_RECV ? w->nrecv[r] : w->ntmp[r];

			if (b == CSG_TMP && !w->use_tmp)
				continue;
			printf("    r%-2d %-4s", r, cs_st_bufname[b]);
			if (!n)
				printf(" (none on this rank)");
			for (i = 0; i < n; i++) {
				if (b == CSG_RECV && w->gap &&
				    w->gap[(size_t)r * w->cap + i])
					snprintf(txt, sizeof txt, "_");
				else
					cs_st_tok_text(w, cs_st_slot(w, r, b, i), txt,
						 sizeof txt);
				printf(" %-*s", w->cw, txt);
			}
			printf("\n");
		}
}

/* Reset the tokens: send inputs, everything else empty. */
static void reset(struct cs_st_run *w)
{
	size_t i, ns;
	int r;

	memset(w->t, 0, (size_t)w->P * 3 * w->cap * sizeof *w->t);
	memset(w->sent, 0, 2 * (size_t)w->P * sizeof *w->sent);
	for (r = 0; r < w->P; r++) {
		ns = cs_case_send_count(w->c, r);
		for (i = 0; i < ns && i < w->cap; i++) {
			struct cs_st_tok *x = cs_st_slot(w, r, CSG_SEND, i);

			x->set = 1;
			x->mask = (uint64_t)1 << r;
			x->orank = (int16_t)r;
			x->oidx = (uint32_t)i;
		}
	}
}

/* Run every step; out: 0 measure only, 1 print and draw. */
static cs_status_t run_all(struct cs_st_run *w, int out)
{
	int T = cs_st_steps(&w->s), t, r, b;
	struct pend *pd = NULL;
	size_t n = 0, j, i, opw = 0;
	char txt[96];
	cs_status_t st;

	reset(w);
	if (out && w->svg)
		cs_st_svg_step(w, -1, 0);
	for (t = 0; t < T; t++) {
		if ((st = step_writes(w, t, &pd, &n)) != CS_OK)
			return st;
		for (r = 0; r < w->P; r++)
			for (b = CSG_RECV; b <= CSG_TMP; b++)
				for (i = 0; i < w->cap; i++)
					cs_st_slot(w, r, b, i)->written = 0;
		for (j = 0; j < n; j++) {
			*cs_st_slot(w, pd[j].r, pd[j].b, pd[j].i) = pd[j].t;
			if (pd[j].b == CSG_TMP)
				w->use_tmp = 1;
			cs_st_tok_text(w, &pd[j].t, txt, sizeof txt);
			if ((int)strlen(txt) > w->cw)
				w->cw = (int)strlen(txt);
		}
		free(pd);
		if (!out)
			continue;
		printf("\nstep %d: %s\n", t, cs_st_step_kind(w, t));
		print_ops(w, t);
		print_state(w);
		if (w->svg)
			cs_st_svg_step(w, t, cs_st_count_ops(w, t, &opw));
	}
	return CS_OK;
}

/* The cost model's n of the call, in elements: count, or count * P for
 * the collectives whose n is the whole vector (csref/cost.h). */
static size_t model_elems(const cs_case_t *c)
{
	if (c->coll == CS_COLL_ALLGATHER || c->coll == CS_COLL_REDUCESCATTER ||
	    c->coll == CS_COLL_ALLTOALL)
		return c->count * (size_t)c->nranks;
	return c->count;
}

/* Per rank the elements of a[0..P-1], and the busiest rank's count
 * over the cost model's n. */
static void print_counts(const struct cs_st_run *w, const size_t *a,
			 const char *what, const char *busiest)
{
	size_t most = 0, n = model_elems(w->c);
	int r;

	printf("\nelements each rank %s, over all steps:\n ", what);
	for (r = 0; r < w->P; r++) {
		printf(" r%d %zu", r, a[r]);
		if (a[r] > most)
			most = a[r];
	}
	printf("\n%s: %zu elements", busiest, most);
	if (n && w->c->coll != CS_COLL_ALLTOALLV)
		printf(" = %.4g n (n = %zu elements, the cost model's n)",
		       (double)most / (double)n, n);
	printf("\n");
}

static void print_sent(struct cs_st_run *w)
{
	cs_cost_coef_t cf;

	print_counts(w, w->sent, "sent (read from its buffers by other ranks)",
		     "busiest rank");
	print_counts(w, w->sent + w->P, "received (read from other ranks' "
		     "buffers)", "busiest receiver");
	if (cs_cost_coef(w->c->coll, w->s.a->cost, w->P, &cf) == CS_OK)
		printf("cost model (collspec model): b(P) = %.4g for %s %s at "
		       "P=%d\n", cf.b, cs_coll_name(w->c->coll),
		       cs_algo_name(w->s.a->cost), w->P);
	else
		printf("cost model (collspec model): no b(P) for %s %s\n",
		       cs_coll_name(w->c->coll), cs_algo_name(w->s.a->cost));
}

/* Cells shown and alltoallv's gap cells. */
static cs_status_t shape(struct cs_st_run *w)
{
	size_t P = (size_t)w->P, ns, nr, *a, k;
	int r, q;

	w->cap = 1;
	w->nrecv = calloc(2 * (P + 1), sizeof *w->nrecv);
	if (!w->nrecv)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	w->ntmp = w->nrecv + P + 1;
	for (r = 0; r < w->P; r++) {
		ns = cs_case_send_count(w->c, r);
		nr = cs_case_recv_count(w->c, r);
		w->nrecv[r] = nr;
		w->ntmp[r] = ns;
		if (nr > w->nrecv[P])
			w->nrecv[P] = nr;
		if (ns > w->ntmp[P])
			w->ntmp[P] = ns;
		if (ns + 1 > w->cap)
			w->cap = ns + 1;
		if (nr + 1 > w->cap)
			w->cap = nr + 1;
	}
	if (w->c->coll != CS_COLL_ALLTOALLV)
		return CS_OK;
	if (!(w->gap = calloc(P * w->cap, 1)) ||
	    !(a = calloc(4 * P, sizeof *a)))
		return cs_error(CS_ERR_NOMEM, "out of memory");
	for (r = 0; r < w->P; r++) {
		cs_a2av_layout(w->c, r, a, a + P, a + 2 * P, a + 3 * P);
		for (q = 0; q < w->P; q++)
			for (k = 0; k < w->c->a2av_gap; k++)
				w->gap[(size_t)r * w->cap + a[3 * P + q] +
				       a[2 * P + q] + k] = 1;
	}
	free(a);
	return CS_OK;
}

static void free_run(struct cs_st_run *w)
{
	free(w->nrecv);
	free(w->gap);
	free(w->t);
	free(w->sent);
}

cs_status_t cs_st_draw(const cs_case_t *c, const struct cs_st_sched *s,
		       const char *svg)
{
	const struct cs_st_algo *a = s->a;
	struct cs_st_run w;
	cs_status_t st;
	int T;

	memset(&w, 0, sizeof w);
	w.c = c;
	w.P = c->nranks;
	w.reduces = cs_coll_reduces(c->coll);
	w.cw = 5;
	w.s = *s;
	if ((st = shape(&w)) != CS_OK)
		goto out_free;
	w.t = calloc((size_t)w.P * 3 * w.cap, sizeof *w.t);
	w.sent = calloc(2 * (size_t)w.P, sizeof *w.sent);
	if (!w.t || !w.sent) {
		st = cs_error(CS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	if ((st = run_all(&w, 0)) != CS_OK)
		goto out_free;
	T = cs_st_steps(&w.s);
	printf("%s by %s at P=%d, count %zu: %d steps, each op taken from "
	       "%s\n", cs_coll_name(c->coll), a->name, w.P, c->count, T,
	       a->classic
	       ? "csg_cl_get_op (gpu/include/csgpu/sched_classic.h)"
	       : "csg_get_op (gpu/include/csgpu/sched.h), as the kernels "
		 "and gpu-sim run it");
	if (cs_coll_rooted(c->coll))
		printf("root %d\n", c->root);
	if (c->coll == CS_COLL_ALLTOALLV)
		cs_st_print_a2av(c, s->pattern);
	printf("op: DST <- SRC + SRC: the rank writes its own DST from the "
	       "sources (any rank's), \"+\" the reduction; pre/post: the "
	       "op's pre (premulsum's scale) and post (avg's division)\n"
	       "cells: r0+r1 = the reduction of ranks 0 and 1 (r0-r7: ranks 0 "
	       "to 7), r1[3] = rank 1's send element 3, . = not written, "
	       "_ = a gap (never written)\n");
	if (svg) {
		if (!(w.svg = fopen(svg, "w"))) {
			st = cs_error(CS_ERR_IO, "--svg %s: cannot write", svg);
			goto out_free;
		}
		cs_st_svg_open(&w, T);
		w.y = 48;
	}
	st = run_all(&w, 1);
	print_sent(&w);
	if (w.svg) {
		fputs("</svg>\n", w.svg);
		if (fclose(w.svg) != 0 && st == CS_OK)
			st = cs_error(CS_ERR_IO, "--svg %s: write failed", svg);
	}
out_free:
	free_run(&w);
	return st;
}

