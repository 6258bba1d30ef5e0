/*
 * bench_run.c - the worker of `collspec bench` (bench.h): one world size,
 * one backend, every message size of the command line as one case of the
 * driver protocol (driver.h: a "start" line, then the final result).
 *
 * One message size, in order:
 *   1. buffers on every local rank, laid out and filled by exec.c, once;
 *   2. WARMUP untimed calls, then the timed ones: per iteration every
 *      rank waits at the harness's barrier, then times its own call up
 *      to the end of its synchronize;
 *   3. with -c 1 the last iteration is `collspec run`'s case itself
 *      (cs_worker_case: fresh buffers, the call timed the same way, every
 *      check of the harness, the ranks' verdicts merged): its verdict is
 *      the size's result and its wrong elements are #wrong; with -c 0 all
 *      ITERS iterations are step 2's and the result is PASS;
 *   4. every rank's times to the leader, the statistics (bench_out.c),
 *      one record appended to the --bench-out file.
 * A crash or hang in any step is the driver's FAIL of this size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "csref/cost.h"
#include "backends/registry.h"
#include "worker/precheck.h"
#include "report/results_file.h"
#include "worker/rgroup.h"
#include "worker/worker.h"

/* State of one message size on this process. */
struct bsize {
	const cs_bench_opts_t *o;
	cs_worker_t *w;
	const cs_hcase_t *hc;
	int timed;   /* iterations of the loop (step 2) */
	double *t;   /* per local rank: its times, t[i * iters + k] */
	double *all; /* the leader: t of every rank, world rank major */
};

/* 0 when every local rank's buffers are ready for the loop; else the
 * ranks agree that the loop is not run (cs_worker_case says why). */
static int setup_all(struct bsize *s, const struct cs_wvar *var)
{
	cs_worker_t *w = s->w;
	char reason[256];
	int i, any;

	for (i = 0; i < w->n; i++) {
		cs_exec_t *e = &w->e[i];
		w->flag[i] = 1;
		if (w->nodev[0] || var->ready < 0 ||
		    cs_backend_takes(w->b, var->comm[i], s->hc, var->size[i],
				     reason, sizeof reason) ||
		    cs_exec_setup(e, s->hc, var->size[i], var->rank[i]) != CS_OK)
			continue;
		if (w->stream &&
		    cs_exec_to_device(e, w->dev[i], w->stream[i]) != CS_OK) {
			cs_exec_free(e);
			continue;
		}
		w->flag[i] = 0;
		cs_exec_set_call(e, 0, 1);
		cs_exec_fill(e);
		if (cs_exec_put(e) != CS_OK)
			w->flag[i] = 2;
	}
	any = w->g->ops->max(w->g, w->flag);
	if (any)
		for (i = 0; i < w->n; i++)
			if (w->flag[i] != 1)
				cs_exec_free(&w->e[i]);
	return any;
}

/* One iteration on every local rank (the harness's barrier first), each
 * rank's time into dt[i] when dt is not NULL. 1 when a call failed. */
static int iterate(struct bsize *s, const struct cs_wvar *var, double *dt,
		   int stride)
{
	cs_worker_t *w = s->w;
	const cs_backend_t *b = w->b;
	double t0;
	int i, bad = 0;

	for (i = 0; i < w->n; i++)
		w->flag[i] = 0;
	w->g->ops->max(w->g, w->flag); /* the barrier */
	t0 = w->g->ops->now(w->g);
	if (w->g->grouped)
		bad |= b->group_start() != 0;
	for (i = 0; i < w->n; i++)
		bad |= cs_exec_call(&w->e[i], b, var->comm[i]) != 0;
	if (w->g->grouped)
		bad |= b->group_end() != 0;
	for (i = 0; i < w->n; i++) {
		bad |= b->synchronize(var->comm[i], w->e[i].stream) != 0;
		if (dt)
			dt[(size_t)i * (size_t)stride] = w->g->ops->now(w->g) - t0;
	}
	return bad;
}

/* Steps 1 and 2; 1 when the loop could not run (its buffers, a call). */
static int time_loop(struct bsize *s)
{
	cs_worker_t *w = s->w;
	const struct cs_wvar *var = cs_worker_var(w, CS_COMM_WORLD);
	int k, i, bad = 0;

	if (setup_all(s, var))
		return 1;
	for (k = 0; k < s->o->warmup && !bad; k++)
		bad = iterate(s, var, NULL, 0);
	for (k = 0; k < s->timed && !bad; k++)
		bad = iterate(s, var, s->t + k, s->o->iters);
	for (i = 0; i < w->n; i++) {
		cs_exec_free(&w->e[i]);
		w->flag[i] = bad;
	}
	return w->g->ops->max(w->g, w->flag);
}

/* Without the check: a PASS result of every rank, merged. */
static void pass_result(cs_worker_t *w, const cs_hcase_t *hc,
			cs_result_t *res)
{
	int i;

	for (i = 0; i < w->n; i++)
		cs_local_init(&w->l[i], w->g->first + i, w->g->first + i);
	w->g->ops->gather(w->g, w->l, sizeof *w->l, w->all);
	if (cs_rgroup_leads(w->g))
		cs_result_merge(w->o, w->backend_name, hc, w->all, w->g->world,
				res);
}

/* The leader: the record of this size from s->all and the verdicts. */
static void make_record(struct bsize *s, const cs_result_t *res,
			cs_bench_rec_t *r)
{
	const cs_worker_t *w = s->w;
	const cs_hcase_t *hc = s->hc;
	int P = w->g->world, it = s->o->iters, q, k;
	double *t = malloc((size_t)P * (size_t)it * sizeof *t);

	memset(r, 0, sizeof *r);
	/* (precisions: names longer than the fields are cut, as gcc's
	 * -Wformat-truncation wants said) */
	snprintf(r->series, sizeof r->series, "%.*s",
		 (int)sizeof r->series - 1,
		 s->o->series ? s->o->series : w->backend_name);
	snprintf(r->backend, sizeof r->backend, "%.*s",
		 (int)sizeof r->backend - 1, w->backend_name);
	r->coll = hc->c.coll;
	r->dtype = hc->c.dtype;
	r->op = hc->c.op;
	r->inplace = hc->inplace;
	r->nranks = P;
	r->count = hc->c.count;
	r->bytes = r->count * cs_nccl_size_per_count(r->coll, r->dtype, P);
	r->iters = it;
	r->warmup = s->o->warmup;
	r->checked = s->o->check;
	r->wrong = s->o->check ? 0 : -1;
	r->check_us = s->o->check ? 0 : -1;
	for (q = 0; s->o->check && q < P; q++) {
		r->wrong += (long long)w->all[q].wrong;
		if (w->all[q].check_seconds * 1e6 > r->check_us)
			r->check_us = w->all[q].check_seconds * 1e6;
	}
	/* a FAIL of another check (guards, send buffer, identity, an
	 * error) with no element wrong still counts */
	if (s->o->check && res->verdict == CS_V_FAIL && r->wrong == 0)
		r->wrong = 1;
	if (!t)
		return;
	for (q = 0; q < P; q++) {
		for (k = 0; k < s->timed; k++)
			t[(size_t)k * P + q] = s->all[(size_t)q * it + k];
		if (s->timed < it) /* the checked call is the last one */
			t[(size_t)(it - 1) * P + q] = w->all[q].seconds;
	}
	cs_bench_stats(r, t, it);
	free(t);
}

/* One message size: the loop, the checked call, the record (leader). */
static void bench_size(struct bsize *s, cs_result_t *res, FILE *out)
{
	cs_worker_t *w = s->w;
	int stopped = time_loop(s);
	cs_bench_rec_t rec;
	char line[2048];

	if (s->o->check || stopped)
		cs_worker_case(w, s->hc, res); /* its verdict says why */
	else
		pass_result(w, s->hc, res);
	w->g->ops->gather(w->g, s->t, (size_t)s->o->iters * sizeof *s->t,
			  s->all);
	if (!cs_rgroup_leads(w->g) || stopped || res->verdict == CS_V_SKIP)
		return;
	make_record(s, res, &rec);
	cs_bench_rec_json(&rec, line, sizeof line);
	fprintf(out, "%s\n", line);
	fflush(out);
}

/* Every case from --first on; the leader writes the protocol lines. */
static void bench_cases(cs_worker_t *w, const cs_bench_opts_t *o,
			const cs_hcase_t *cases, size_t n, FILE *out)
{
	int lead = cs_rgroup_leads(w->g);
	size_t W = (size_t)w->g->world, it = (size_t)o->iters, i;
	struct bsize s = {o, w, NULL, o->check ? o->iters - 1 : o->iters,
			  calloc((size_t)w->n * it, sizeof(double)),
			  lead ? calloc(W * it, sizeof(double)) : NULL};
	int ok = s.t && (!lead || s.all);

	if (!cs_worker_agree(w, ok, "out of memory for the times"))
		goto out_free;
	for (i = 0; i < n; i++) {
		if (cases[i].index < o->first)
			continue;
		s.hc = &cases[i];
		if (lead)
			cs_results_start(w->results, &cases[i], w->backend_name);
		bench_size(&s, w->res, out);
		if (lead)
			cs_results_line(w->results, w->res);
	}
out_free:
	free(s.t);
	free(s.all);
}

/* The rank group: every rank here for a backend that drives them all
 * (the driver gives --ranks P), else this process under the launcher. */
static cs_status_t make_group(const cs_bench_opts_t *o, const cs_backend_t **b,
			      cs_rgroup_t *g)
{
	*b = NULL;
	if (cs_backend_load(o->backends[0], b) == CS_OK &&
	    (*b)->proc_model == CS_PROC_ALL_IN_PROCESS)
		return cs_rgroup_inproc(g, o->sizes[0]);
	*b = NULL;
	return cs_rgroup_mpi(g);
}

int cs_bench_worker(const cs_bench_opts_t *o)
{
	cs_run_opts_t *ro = malloc(sizeof *ro);
	const cs_backend_t *b;
	cs_hcase_t *cases = NULL;
	cs_worker_t w;
	cs_rgroup_t g;
	FILE *out = NULL;
	size_t n = 0;
	int code = 2;

	if (!ro || make_group(o, &b, &g) != CS_OK) {
		fprintf(stderr, "collspec bench: %s\n",
			ro ? cs_last_error() : "out of memory");
		free(ro);
		return 2;
	}
	if (cs_bench_run_opts(o, g.world, ro) != CS_OK)
		goto out_group;
	ro->sizes[0] = g.world;
	ro->nsizes = 1;
	memset(&w, 0, sizeof w);
	w.o = ro;
	w.g = &g;
	w.b = b;
	w.n = g.nlocal;
	if (cs_worker_start(&w, &cases, &n)) {
		int ok = !cs_rgroup_leads(&g) || (out = fopen(o->bench_out, "a"));
		if (cs_worker_agree(&w, ok, "cannot append to the --bench-out "
				    "file")) {
			bench_cases(&w, o, cases, n, out);
			code = 0;
		}
	}
	if (out)
		fclose(out);
	if (w.results)
		fclose(w.results);
	cs_worker_stop(&w);
	free(cases);
out_group:
	cs_rgroup_free(&g);
	free(ro);
	return code;
}
