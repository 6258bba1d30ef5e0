/*
 * worker.c - one case, top to bottom, on every rank the worker drives
 * (worker.h has the stages): buffers, the backend's calls, each rank's
 * checks, the checks across ranks, the merged verdict, the report.
 *
 * What a rank does alone loops over the local ranks (one under mpiexec,
 * all of them in process); what needs the other ranks goes through the
 * group's ops (rgroup.h), so the two process models run the same code.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "worker/patcase.h"
#include "worker/worker.h"
#include "check/check.h"
#include "check/dcheck.h"
#include "check/identity.h"
#include "worker/precheck.h"
#include "report/results_file.h"
#include "worker/fault.h"
#include "base/memest.h"

/* ---- buffers ------------------------------------------------------------------ */

/* reduce, gather with ranks in processes: every rank checks a share of
 * the root's result (check_root_share). */
static int shares_root(const cs_worker_t *w, const cs_exec_t *e)
{
	return (e->c.coll == CS_COLL_REDUCE || e->c.coll == CS_COLL_GATHER) &&
	       w->n == 1;
}

/* The root's receive range, bytes (at least 1: a buffer to malloc). */
static size_t root_bytes(const cs_exec_t *e)
{
	size_t n = cs_case_recv_count(&e->c, e->c.root) *
		   cs_dtype_size(e->c.dtype);

	return n ? n : 1;
}

/* 1 when the case's ranks fit in the machine's free memory (all of the
 * world's ranks on this machine: an upper estimate), else 0 with the
 * reason. The ranks may read different free memory: they agree on the
 * skip (cs_worker_case). */
static int fits(const cs_worker_t *w, const cs_hcase_t *hc, char *reason,
		size_t n)
{
	int W = w->g->world;
	double need = cs_hcase_mem_need(hc, W, w->o->repeat);

	if (w->mem_avail <= 0 || need * W <= 0.9 * w->mem_avail)
		return 1;
	snprintf(reason, n, "needs about %.1f GiB of memory at %d ranks (%.1f "
		 "GiB per rank), more than 90%% of the %.*f %s this machine "
		 "had free", need * W / 1073741824.0, W, need / 1073741824.0,
		 w->mem_avail < 1073741824.0 ? 0 : 1,
		 w->mem_avail / (w->mem_avail < 1073741824.0 ? 1048576.0
							     : 1073741824.0),
		 w->mem_avail < 1073741824.0 ? "MiB" : "GiB");
	return 0;
}

/* 0 when local rank i can run the case, 1 (skip) or 2 (harness failure)
 * with the reason; on 0 its exec is set up (and on its device). */
static int prepare(cs_worker_t *w, const struct cs_wvar *var, int i,
		   const cs_hcase_t *hc, char *reason, size_t n)
{
	cs_exec_t *e = &w->e[i];
	int wr = w->g->first + i;

	if (w->nodev[0] || var->ready < 0) {
		snprintf(reason, n, "%s", w->nodev[0] ? w->nodev : var->why);
		return 1;
	}
	if (cs_backend_takes(w->b, var->comm[i], hc, var->size[i], reason, n))
		return 1;
	if (!fits(w, hc, reason, n))
		return 1;
	if (cs_exec_setup_at(e, hc, var->size[i], var->rank[i], wr) != CS_OK) {
		snprintf(reason, n, "rank %d: %s", wr, cs_last_error());
		return 2;
	}
	e->dcheck = cs_dcheck_where(w->backend_name, w->o->backend_opt);
	if (w->stream && cs_exec_to_device(e, w->dev[i], w->stream[i]) != CS_OK) {
		snprintf(reason, n, "rank %d: %s", wr, cs_last_error());
		cs_exec_free(e);
		return 2;
	}
	if (shares_root(w, e) && e->rank != e->c.root &&
	    !(w->share = malloc(root_bytes(e)))) {
		snprintf(reason, n, "rank %d: out of memory for the root's "
			 "result", wr);
		cs_exec_free(e);
		return 2;
	}
	return 0;
}

/* Copy every local rank's buffers to the device (put) or back; FAIL
 * "harness" for a rank whose copy fails, marked in failed[]. 1 when any
 * failed. No-op for host buffers. */
static int move_all(const cs_worker_t *w, int put, int *failed)
{
	char reason[256];
	int i, any = 0;

	for (i = 0; i < w->n; i++) {
		cs_exec_t *e = &w->e[i];
		if ((put ? cs_exec_put(e) : cs_exec_get(e)) == CS_OK)
			continue;
		snprintf(reason, sizeof reason, "rank %d: %s", w->g->first + i,
			 cs_last_error());
		cs_local_set(&w->l[i], CS_V_FAIL, "harness", reason, NULL);
		failed[i] = any = 1;
	}
	return any;
}

/* ---- the backend's call --------------------------------------------------------- */

static void call_failed(const cs_worker_t *w, int i, const char *what, int rc,
			cs_bcomm_t comm, int *failed)
{
	const cs_exec_t *e = &w->e[i];
	char reason[256];

	snprintf(reason, sizeof reason, "rank %d: %s%scall %d of %d returned "
		 "error %d: %s", w->g->first + i, what, *what ? " of " : "",
		 e->call + 1, e->ncalls, rc, w->b->error_string(comm, rc));
	cs_local_set(&w->l[i], CS_V_FAIL, "error", reason, NULL);
	failed[i] = 1;
}

/*
 * The collective on every local rank and the wait for it: the ranks' calls
 * between one group_start and group_end when the backend drives them all,
 * then each rank's synchronize. FAIL "error" for a rank whose part failed,
 * marked in failed[].
 */
static void call_all(const cs_worker_t *w, const struct cs_wvar *var,
		     int *failed)
{
	const cs_backend_t *b = w->b;
	int i, rc;

	if (w->g->grouped && (rc = b->group_start()) != 0) {
		for (i = 0; i < w->n; i++)
			call_failed(w, i, "group_start", rc, NULL, failed);
		return;
	}
	for (i = 0; i < w->n; i++)
		if ((rc = cs_exec_call(&w->e[i], b, var->comm[i])) != 0)
			call_failed(w, i, "", rc, var->comm[i], failed);
	if (w->g->grouped && (rc = b->group_end()) != 0)
		for (i = 0; i < w->n; i++)
			call_failed(w, i, "group_end", rc, NULL, failed);
	for (i = 0; i < w->n; i++)
		if (!failed[i] &&
		    (rc = b->synchronize(var->comm[i], w->e[i].stream)) != 0)
			call_failed(w, i, "synchronize", rc, var->comm[i],
				    failed);
}

/* ---- checks across ranks -------------------------------------------------------- */

/*
 * Rank i's two fingerprints of what call k received, under key: fp[0] of
 * its values (check/identity.h), fp[1] of its bytes. Out of memory for the
 * canonical copy: FAIL "harness" on the rank, and its bytes stand for its
 * values.
 */
static void fingerprint_call(cs_worker_t *w, int i, int k,
			     const cs_khash_t *key, cs_khash_t *fp)
{
	const void *bytes, *vals;
	void *copy;
	size_t n;

	if (!(bytes = cs_exec_kept(&w->e[i], k, &n)))
		return;
	cs_khash(key, bytes, n, &fp[1]);
	if (!(vals = cs_identity_values(&w->e[i], k, bytes, n, &copy))) {
		cs_local_set(&w->l[i], CS_V_FAIL, "harness", "out of memory "
			     "for the identity check's copy of the received "
			     "values", NULL);
		vals = bytes;
	}
	if (vals == bytes)
		fp[0] = fp[1];
	else
		cs_khash(key, vals, n, &fp[0]);
	free(copy);
}

/*
 * Cross-rank identity of what each of the case's first `made` calls
 * received, checked once after the last call: every rank fingerprints
 * the values and the bytes it kept of each call (cs_exec_kept) under a key
 * that its group's rank 0 draws then, after every rank's calls returned
 * (khash.c), and both fingerprints are compared call by call within each
 * group: values (FAIL identity), then bytes (bitidentity: FAIL for a
 * backend that promises bit identity, else WARN).
 */
static void check_identity(cs_worker_t *w, cs_commvar_t v, int made)
{
	const struct cs_wvar *var = &w->var[v];
	size_t K = (size_t)made, W = (size_t)w->g->world, L = (size_t)w->n;
	size_t k, q, i;
	cs_khash_t *key = w->fp, *mine, *all, *col;
	int strict = (w->b->flags & CS_BACKEND_F_BIT_IDENTICAL) != 0;

	/* (cs_worker_start sized w->fp for the case's most calls: two
	 * fingerprints per rank and call) */
	mine = key + L;
	all = mine + 2 * L * K;
	col = all + 2 * L * W * K;
	memset(mine, 0, 2 * L * K * sizeof *mine);
	for (i = 0; i < L; i++) {
		w->ptr[i] = &key[i];
		if (var->rank[i] == 0 && cs_khash_key(&key[i]) != CS_OK)
			key[i].h[0] = 0; /* no key: a key is never 0 */
	}
	w->g->ops->bcast(w->g, v, w->ptr, sizeof *key, 0);
	for (i = 0; i < L; i++)
		for (k = 0; k < K; k++)
			fingerprint_call(w, (int)i, (int)k, &key[i],
					 &mine[2 * (i * K + k)]);
	w->g->ops->allgather(w->g, v, mine, 2 * K * sizeof *mine, all);
	for (i = 0; i < L; i++) {
		const cs_khash_t *from = all + 2 * i * W * K;
		for (k = 0; k < K && key[i].h[0]; k++) {
			for (q = 0; q < (size_t)var->size[i]; q++) {
				col[q] = from[2 * (q * K + k)];
				col[W + q] = from[2 * (q * K + k) + 1];
			}
			cs_identity_verdict(col, col + W, var->size[i], (int)k,
					    w->e[i].ncalls, strict, &w->l[i]);
		}
		if (!key[i].h[0])
			cs_local_set(&w->l[i], CS_V_FAIL, "harness", "the "
				     "identity check could not draw its key "
				     "(no random bytes)", NULL);
	}
}

/*
 * reduce, gather, ranks in processes: the root sends what it received to
 * every rank of its group, and each checks its share of it against the
 * oracle (the root alone would take P times as long while the others
 * wait). Nothing to check when the root's call failed, or when its bytes
 * are call 1's on the same inputs (same[], failed[]). The copy is made by
 * the harness, after the call, into the buffer prepare() allocated.
 */
static void check_root_share(cs_worker_t *w, cs_commvar_t v)
{
	const cs_exec_t *e = &w->e[0];
	int root = e->c.root, skip;
	size_t n = cs_case_recv_count(&e->c, root) * cs_dtype_size(e->c.dtype);
	void *buf = e->rank == root ? cs_exec_recvp(e) : w->share;

	/* (a rank per process: its one local rank) */
	skip = e->rank == root && (w->failed[0] || w->same[0]);
	w->ptr[0] = &skip;
	w->g->ops->bcast(w->g, v, w->ptr, sizeof skip, root);
	if (skip)
		return;
	w->ptr[0] = buf;
	w->g->ops->bcast(w->g, v, w->ptr, n, root);
	cs_exec_check_root_share(&w->e[0], buf, &w->l[0]);
}

/* ---- the calls of one case -------------------------------------------------------- */

/*
 * Call k of the case's n on every rank, checked in full by each rank:
 * inputs, the call, every check of cs_exec_check_call; what it received is
 * kept for the identity check after the last call. No synchronisation
 * beyond the backend's own, except on the first call (all inputs in place
 * before the timing starts) and for device memory (inputs in place on
 * every rank, or no call). Returns 1 when the case cannot go on.
 */
static int one_call(cs_worker_t *w, cs_commvar_t v, int k, int n)
{
	const struct cs_wvar *var = &w->var[v];
	int *same = w->same, *failed = w->failed;
	double t0;
	int i;

	memset(failed, 0, (size_t)w->n * sizeof *failed);
	for (i = 0; i < w->n; i++) {
		cs_exec_set_call(&w->e[i], k, n);
		cs_exec_fill(&w->e[i]);
	}
	move_all(w, 1, failed);
	if ((k == 0 || w->stream) && w->g->ops->max(w->g, failed))
		return 1;
	t0 = w->g->ops->now(w->g);
	call_all(w, var, failed);
	for (i = 0; k == 0 && i < w->n; i++)
		w->l[i].seconds = w->g->ops->now(w->g) - t0;
	move_all(w, 0, failed);
	for (i = 0; i < w->n; i++) {
		double tc = w->g->ops->now(w->g);

		same[i] = failed[i] ? 0 : cs_exec_check_call(&w->e[i], &w->l[i]);
		if (k == 0)
			w->l[i].check_seconds = w->g->ops->now(w->g) - tc;
	}
	if (w->e[0].share_root)
		check_root_share(w, v);
	for (i = 0; i < w->n && cs_coll_same_everywhere(w->e[i].c.coll); i++)
		cs_exec_keep(&w->e[i], &w->l[i]);
	return 0;
}

/* The case's calls (--repeat N: 2N - 1 of them), all made whatever the
 * earlier ones gave, then the identity of every call across ranks. */
static void execute(cs_worker_t *w, cs_commvar_t v)
{
	int k, i, n = 2 * w->o->repeat - 1;

	for (i = 0; i < w->n; i++)
		w->e[i].share_root = shares_root(w, &w->e[i]);
	for (k = 0; k < n; k++)
		if (one_call(w, v, k, n))
			break;
	if (k > 0 && cs_coll_same_everywhere(w->e[0].c.coll))
		check_identity(w, v, k);
}

/* ---- one case ---------------------------------------------------------------------- */

/* Every rank's verdict to the leader, merged there into res. */
static void merge(cs_worker_t *w, const cs_hcase_t *hc, cs_result_t *res)
{
	w->g->ops->gather(w->g, w->l, sizeof *w->l, w->all);
	if (cs_rgroup_leads(w->g))
		cs_result_merge(w->o, w->backend_name, hc, w->all,
				w->g->world, res);
}

void cs_worker_case(cs_worker_t *w, const cs_hcase_t *hc, cs_result_t *res)
{
	const struct cs_wvar *var;
	char reason[256];
	int i, all, rss;

	if (hc->pattern) { /* a parallelism pattern: patcase.c */
		cs_patcase_run(w, hc, res);
		return;
	}
	var = cs_worker_var(w, hc->comm);
	rss = w->rss && cs_peak_rss_reset() == 0;
	for (i = 0; i < w->n; i++) {
		cs_local_init(&w->l[i], w->g->first + i,
			      var->ready > 0 ? var->rank[i] : i);
		reason[0] = '\0';
		w->flag[i] = prepare(w, var, i, hc, reason, sizeof reason);
		if (w->flag[i])
			cs_local_set(&w->l[i], w->flag[i] == 1 ? CS_V_SKIP
							       : CS_V_FAIL,
				     w->flag[i] == 1 ? "skip" : "harness",
				     reason, NULL);
	}
	all = w->g->ops->max(w->g, w->flag);
	if (all == 0)
		execute(w, hc->comm);
	/* the process's peak over the case, shared by its local ranks */
	for (i = 0; rss && all == 0 && i < w->n; i++)
		w->l[i].peak_rss = cs_peak_rss() / (uint64_t)w->n;
	/* (a rank that could run it stays PASS: the others' verdicts say
	 * why the case did not run) */
	for (i = 0; i < w->n; i++)
		if (w->flag[i] == 0)
			cs_exec_free(&w->e[i]);
	free(w->share);
	w->share = NULL;
	merge(w, hc, res);
}

static void run_cases(cs_worker_t *w, const cs_hcase_t *cases, size_t n)
{
	int lead = cs_rgroup_leads(w->g);
	cs_result_t *res = w->res;
	size_t i;

	for (i = 0; i < n; i++) {
		if (cases[i].index < w->o->first)
			continue;
		if (lead && w->rep)
			cs_report_start(w->rep, &cases[i]);
		if (lead)
			cs_results_start(w->results, &cases[i], w->backend_name);
		cs_fault_case(w->o, w->backend_name, &cases[i], w->g->world);
		cs_worker_case(w, &cases[i], res);
		if (!lead)
			continue;
		cs_results_line(w->results, res);
		if (w->rep)
			cs_report_add(w->rep, res);
	}
}

static size_t count_from(const cs_hcase_t *cases, size_t n, size_t first)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += cases[i].index >= first;
	return k;
}

int cs_worker_run(const cs_run_opts_t *o, cs_rgroup_t *g,
		  const cs_backend_t *b)
{
	cs_worker_t w;
	cs_hcase_t *cases = NULL;
	size_t n = 0;
	int code = 2, i;

	memset(&w, 0, sizeof w);
	w.o = o;
	w.g = g;
	w.b = b;
	w.n = g->nlocal;
	if (cs_worker_start(&w, &cases, &n)) {
		cs_fault_install(o->results);
		if (w.rep)
			cs_report_set_total(w.rep, count_from(cases, n, o->first));
		run_cases(&w, cases, n);
		code = w.rep ? cs_report_close(w.rep) : 0;
		w.rep = NULL;
	}
	if (w.rep)
		cs_report_abort(w.rep, "the run could not start");
	if (w.results)
		fclose(w.results);
	if (w.comm_log)
		fclose(w.comm_log);
	/* the leader's exit status, on every rank (the others have 0 or,
	 * when the run could not start, the same 2) */
	for (i = 0; w.flag && i < w.n; i++)
		w.flag[i] = code;
	if (w.flag)
		code = g->ops->max(g, w.flag);
	cs_fault_uninstall();
	cs_worker_stop(&w);
	free(cases);
	return code;
}
