/*
 * inproc.c - the in-process worker: for a backend whose process model is
 * CS_PROC_ALL_IN_PROCESS, this one process drives every rank of one world
 * size P, with no MPI.
 *
 *   init_all(P) makes the P world communicators; a communicator variant is
 *   one comm_split per rank between group_start and group_end (sub is
 *   NULL: there is no channel per rank in one process).
 *   Each case gets P sets of buffers laid out as the MPI worker lays out
 *   one rank's (for a device-memory backend, rank i's on CUDA device
 *   i mod n, n the devices this process sees: cs_dev_of_rank),
 *   one call per rank between group_start and group_end, a synchronize per
 *   rank, then each rank's own checks and the cross-rank identity (the
 *   ranks' keyed fingerprints compared, as between processes); each of
 *   the case's calls (--repeat) is checked so, then the P verdicts are
 *   merged.
 *
 * `collspec run --ranks A-B` with such a backend runs this worker once per
 * world size under the driver (driver.h, no launcher), so a hang or crash
 * in a case is a FAIL of that case and the sweep resumes after it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collspec.h"
#include "csgpu/device.h"

/* One communicator variant, per world rank. */
struct ipvar {
	int ready;        /* 0 not built, 1 usable, -1 cases are skipped */
	cs_bcomm_t *comm; /* the rank's communicator */
	int *color;       /* which group of the variant the rank is in */
	int *rank, *size; /* its rank in that group, the group's size */
	char why[256];    /* ready == -1: the skip reason */
};

struct ipw {
	const cs_run_opts_t *o;
	const cs_backend_t *b;
	int P;
	int init_called;
	struct ipvar vc[CS_NUM_COMMVARS];
	char nodev[256];    /* non-empty: every case is SKIP with this reason */
	int ndev;           /* device memory: the devices this process sees */
	void **stream;      /* device memory: rank i's stream, on its device */
	cs_exec_t *e;       /* per rank, for the case running */
	cs_local_t *l;
	cs_khash_t *fp;     /* 2P: the ranks' fingerprints, then one group's */
	int *bad;           /* per rank: its call failed */
	cs_report_t *rep;
	FILE *results;
	char backend_name[64];
};

/* The CUDA device of rank r's buffers and stream: r mod ndev, so that
 * ranks share the devices when there are fewer than ranks. (nccl-local,
 * which finds its own, has refused to start with fewer devices than ranks:
 * for it this is device r, where its rank r is.) */
static int rank_device(const struct ipw *w, int r)
{
	return cs_dev_of_rank(r, w->ndev);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Print why the run cannot go on; returns 0 (not ok). */
static int say(const char *msg)
{
	fprintf(stderr, "collspec run: %s\n", msg);
	return 0;
}

/* ---- communicator variants ------------------------------------------------- */

/* The per-rank arrays of vc (the world's comm array is made first, by
 * start_backend, for init_all). */
static int var_alloc(struct ipvar *vc, int P)
{
	if (!vc->comm)
		vc->comm = calloc((size_t)P, sizeof *vc->comm);
	vc->color = calloc((size_t)P, sizeof *vc->color);
	vc->rank = calloc((size_t)P, sizeof *vc->rank);
	vc->size = calloc((size_t)P, sizeof *vc->size);
	return vc->comm && vc->color && vc->rank && vc->size;
}

/* Groups of variant v as MPI_Comm_split would make them: ranks of one
 * color, ordered by key (then world rank). */
static void var_shape(struct ipvar *vc, cs_commvar_t v, int P, int *key)
{
	int r, q;

	for (r = 0; r < P; r++)
		cs_commvar_split(v, r, P, &vc->color[r], &key[r]);
	for (r = 0; r < P; r++)
		for (q = 0; q < P; q++) {
			if (vc->color[q] != vc->color[r])
				continue;
			vc->size[r]++;
			vc->rank[r] += key[q] < key[r] || (key[q] == key[r] && q < r);
		}
}

/* The backend's communicators of variant v: one comm_split per rank in one
 * group. Sets ready and, when the variant cannot run, why. */
static void var_split(struct ipw *w, struct ipvar *vc, const int *key)
{
	const cs_backend_t *b = w->b;
	int r, rc, end;

	rc = b->group_start();
	if (rc == 0) {
		for (r = 0; r < w->P && !rc; r++)
			rc = b->comm_split(w->vc[CS_COMM_WORLD].comm[r],
					   vc->color[r], key[r], NULL,
					   &vc->comm[r]);
		end = b->group_end();
		rc = rc ? rc : end;
	}
	if (rc == 0)
		return;
	vc->ready = -1;
	snprintf(vc->why, sizeof vc->why, "backend comm_split failed: %s",
		 b->error_string(NULL, rc));
	for (r = 0; r < w->P; r++)
		if (vc->comm[r] && b->comm_free)
			b->comm_free(vc->comm[r]);
	memset(vc->comm, 0, (size_t)w->P * sizeof *vc->comm);
}

static struct ipvar *get_var(struct ipw *w, cs_commvar_t v)
{
	struct ipvar *vc = &w->vc[v];
	int *key;

	if (vc->ready)
		return vc;
	vc->ready = 1;
	key = calloc((size_t)w->P, sizeof *key);
	if (!key || !var_alloc(vc, w->P)) {
		vc->ready = -1;
		snprintf(vc->why, sizeof vc->why, "out of memory");
		free(key);
		return vc;
	}
	var_shape(vc, v, w->P, key);
	if (w->nodev[0]) {
		vc->ready = -1;
		snprintf(vc->why, sizeof vc->why, "%s", w->nodev);
	} else if (v != CS_COMM_WORLD && !w->b->comm_split) {
		vc->ready = -1;
		snprintf(vc->why, sizeof vc->why, "backend '%s' has no "
			 "comm_split: communicator variant '%s' needs it",
			 w->b->name, cs_commvar_name(v));
	} else if (v != CS_COMM_WORLD) {
		var_split(w, vc, key);
	}
	free(key);
	return vc;
}

/* ---- one case ---------------------------------------------------------------- */

static void rank_fail(struct ipw *w, int r, const char *check, const char *what,
		      int rc, cs_bcomm_t comm)
{
	char reason[256];

	snprintf(reason, sizeof reason, "rank %d: %s returned error %d: %s", r,
		 what, rc, w->b->error_string(comm, rc));
	cs_local_set(&w->l[r], CS_V_FAIL, check, reason, NULL);
	w->bad[r] = 1;
}

/* One collective: every rank's call between group_start and group_end,
 * then every rank's synchronize. Marks the ranks whose part failed (FAIL
 * "error"); returns how many did. */
static int call_all(struct ipw *w, const struct ipvar *vc, const char *which)
{
	const cs_backend_t *b = w->b;
	char what[64];
	int r, rc, n = 0;

	memset(w->bad, 0, (size_t)w->P * sizeof *w->bad);
	snprintf(what, sizeof what, "%s call", which);
	if ((rc = b->group_start()) != 0) {
		for (r = 0; r < w->P; r++)
			rank_fail(w, r, "error", "group_start", rc, NULL);
		return w->P;
	}
	for (r = 0; r < w->P; r++)
		if ((rc = cs_exec_call(&w->e[r], b, vc->comm[r])) != 0)
			rank_fail(w, r, "error", what, rc, vc->comm[r]);
	if ((rc = b->group_end()) != 0)
		for (r = 0; r < w->P; r++)
			rank_fail(w, r, "error", "group_end", rc, NULL);
	for (r = 0; r < w->P; r++) {
		if (!w->bad[r] &&
		    (rc = b->synchronize(vc->comm[r], w->e[r].stream)) != 0)
			rank_fail(w, r, "error", "synchronize", rc, vc->comm[r]);
		n += w->bad[r];
	}
	return n;
}

/* Inputs in (put) or results out of the device copies, every rank; FAIL
 * "harness" for a rank whose copy fails. Returns how many failed. */
static int move_all(struct ipw *w, int put)
{
	char reason[256];
	int r, n = 0;

	for (r = 0; r < w->P; r++) {
		cs_exec_t *e = &w->e[r];
		if ((put ? cs_exec_put(e) : cs_exec_get(e)) == CS_OK)
			continue;
		snprintf(reason, sizeof reason, "rank %d: %s", r, cs_last_error());
		cs_local_set(&w->l[r], CS_V_FAIL, "harness", reason, NULL);
		w->bad[r] = 1;
		n++;
	}
	return n;
}

/* Identity of the received bits within each group of the variant after
 * call k: every rank's keyed fingerprint, as between processes (khash.c),
 * the key drawn after every rank's call returned. */
static void identity_all(struct ipw *w, const struct ipvar *vc, int k)
{
	cs_khash_t key, *fp = w->fp, *col = w->fp + w->P;
	size_t n;
	int r, q;

	if (cs_khash_key(&key) != CS_OK) {
		cs_local_set(&w->l[0], CS_V_FAIL, "harness", cs_last_error(),
			     NULL);
		return;
	}
	for (r = 0; r < w->P; r++) {
		const void *bytes = cs_exec_recv_bytes(&w->e[r], &n);
		cs_khash(&key, bytes, n, &fp[r]);
	}
	for (r = 0; r < w->P; r++) {
		for (q = 0; q < w->P; q++)
			if (vc->color[q] == vc->color[r])
				col[vc->rank[q]] = fp[q];
		cs_identity_verdict(col, vc->size[r], k, w->e[r].ncalls,
				    &w->l[r]);
	}
}

/* Call k of the case's n on every rank, checked in full, the identity
 * across ranks included. Returns 1 when the case cannot go on (inputs not
 * in place). */
static int one_call(struct ipw *w, const struct ipvar *vc, int k, int n)
{
	char which[48];
	double t0;
	int r;

	memset(w->bad, 0, (size_t)w->P * sizeof *w->bad);
	for (r = 0; r < w->P; r++) {
		cs_exec_set_call(&w->e[r], k, n);
		cs_exec_fill(&w->e[r]);
	}
	if (move_all(w, 1))
		return 1;
	snprintf(which, sizeof which, "call %d of %d", k + 1, n);
	t0 = now_s();
	call_all(w, vc, which);
	for (r = 0; k == 0 && r < w->P; r++)
		w->l[r].seconds = now_s() - t0;
	move_all(w, 0);
	for (r = 0; r < w->P; r++)
		if (!w->bad[r])
			cs_exec_check_call(&w->e[r], &w->l[r]);
	if (cs_coll_same_everywhere(w->e[0].c.coll))
		identity_all(w, vc, k);
	return 0;
}

/* The case's calls (--repeat N: 2N - 1 of them), all made whatever the
 * earlier ones gave. */
static void execute(struct ipw *w, const struct ipvar *vc)
{
	int k, n = 2 * w->o->repeat - 1;

	for (k = 0; k < n; k++)
		if (one_call(w, vc, k, n))
			break;
}

/* 0 when every rank can run hc, 1 (skip) or 2 (harness failure) with the
 * reason; on 0 the P execs are set up (and on their devices). */
static int prepare(struct ipw *w, const struct ipvar *vc,
		   const cs_hcase_t *hc, char *reason, size_t n, int *who)
{
	int r, k;

	*who = 0;
	if (w->nodev[0] || vc->ready < 0) {
		snprintf(reason, n, "%s", w->nodev[0] ? w->nodev : vc->why);
		return 1;
	}
	for (r = 0; r < w->P; r++)
		if (cs_backend_takes(w->b, vc->comm[r], hc, vc->size[r], reason,
				     n)) {
			*who = r;
			return 1;
		}
	for (r = 0; r < w->P; r++) {
		cs_status_t st = cs_exec_setup(&w->e[r], hc, vc->size[r],
					       vc->rank[r]);
		if (st == CS_OK && w->stream &&
		    (st = cs_exec_to_device(&w->e[r], rank_device(w, r),
					    w->stream[r])) != CS_OK)
			cs_exec_free(&w->e[r]);
		if (st == CS_OK)
			continue;
		snprintf(reason, n, "rank %d: %s", r, cs_last_error());
		for (k = 0; k < r; k++)
			cs_exec_free(&w->e[k]);
		*who = r;
		return 2;
	}
	return 0;
}

static void run_case(struct ipw *w, const cs_hcase_t *hc, cs_result_t *res)
{
	const struct ipvar *vc = get_var(w, hc->comm);
	char reason[256] = "";
	int r, who, code;

	for (r = 0; r < w->P; r++)
		cs_local_init(&w->l[r], r, vc->ready > 0 ? vc->rank[r] : r);
	code = prepare(w, vc, hc, reason, sizeof reason, &who);
	if (code == 0) {
		execute(w, vc);
		for (r = 0; r < w->P; r++)
			cs_exec_free(&w->e[r]);
	} else {
		cs_local_set(&w->l[who], code == 1 ? CS_V_SKIP : CS_V_FAIL,
			     code == 1 ? "skip" : "harness", reason, NULL);
	}
	cs_result_merge(w->o, w->backend_name, hc, w->l, w->P, res);
}

static void run_cases(struct ipw *w, const cs_hcase_t *cases, size_t n)
{
	cs_result_t *res = malloc(sizeof *res);
	size_t i;

	for (i = 0; i < n && res; i++) {
		if (cases[i].index < w->o->first)
			continue;
		if (w->rep)
			cs_report_start(w->rep, &cases[i]);
		cs_results_start(w->results, &cases[i], w->backend_name);
		run_case(w, &cases[i], res);
		cs_results_line(w->results, res);
		if (w->rep)
			cs_report_add(w->rep, res);
	}
	free(res);
}

/* ---- set-up and tear-down ---------------------------------------------------- */

/* Streams for device memory: rank i's on its device. 0 or a message. */
static int start_streams(struct ipw *w)
{
	int r;

	w->ndev = cs_dev_count();
	w->stream = calloc((size_t)w->P, sizeof *w->stream);
	if (!w->stream)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	for (r = 0; r < w->P; r++)
		if (cs_dev_stream_create(rank_device(w, r), &w->stream[r]) !=
		    CS_OK)
			return -1;
	return 0;
}

/* A device-memory plugin needs a device (ranks share them when there are
 * fewer than ranks): the harness counts them before its init_all. 1 when
 * there is none (w->nodev set). The nccl backends find their own. */
static int no_devices(struct ipw *w)
{
	if (w->b->mem_kind != CS_MEM_CUDA || cs_backend_finds_devices(w->b))
		return 0;
	if (cs_dev_count() == 0)
		snprintf(w->nodev, sizeof w->nodev, "%s", CS_NODEV_SKIP);
	return w->nodev[0] != 0;
}

/* Load the backend and make the world's P communicators. 1 when the run
 * can go on (possibly with every case skipped for want of devices). */
static int start_backend(struct ipw *w)
{
	struct ipvar *world = &w->vc[CS_COMM_WORLD];
	const char *skip;
	char msg[512];
	int rc;

	if (cs_backend_load(w->o->backend, &w->b) != CS_OK)
		return say(cs_last_error());
	snprintf(w->backend_name, sizeof w->backend_name, "%s", w->b->name);
	if (no_devices(w))
		return 1;
	if (!var_alloc(world, w->P))
		return say("out of memory");
	rc = w->b->init_all(w->P, w->o->backend_opt, world->comm);
	w->init_called = 1;
	if (rc && (skip = cs_backend_init_skip(w->b, rc)) != NULL) {
		snprintf(w->nodev, sizeof w->nodev, "%s", skip);
		return 1;
	}
	if (rc) {
		snprintf(msg, sizeof msg, "backend '%s' failed to initialise "
			 "%d ranks: %s", w->b->name, w->P,
			 w->b->error_string(NULL, rc));
		memset(world->comm, 0, (size_t)w->P * sizeof *world->comm);
		return say(msg);
	}
	if (w->b->mem_kind == CS_MEM_CUDA && start_streams(w))
		return say(cs_last_error());
	return 1;
}

static void free_var(struct ipw *w, struct ipvar *vc)
{
	int r;

	for (r = 0; vc->comm && r < w->P; r++)
		if (vc->comm[r] && w->b->comm_free)
			w->b->comm_free(vc->comm[r]);
	free(vc->comm);
	free(vc->color);
	free(vc->rank);
	free(vc->size);
}

static void stop_backend(struct ipw *w)
{
	int v, r;

	for (v = CS_NUM_COMMVARS - 1; v >= 0; v--)
		free_var(w, &w->vc[v]);
	for (r = 0; w->stream && r < w->P; r++)
		cs_dev_stream_destroy(rank_device(w, r), w->stream[r]);
	free(w->stream);
	if (w->init_called && w->b->finalize)
		w->b->finalize();
}

/* The report (unless only the results file is wanted) and results file. */
static int open_outputs(struct ipw *w)
{
	const cs_run_opts_t *o = w->o;
	cs_report_opts_t ro;

	/* (a worker the driver started reports through the results file
	 * only: the driver prints the table) */
	if (!o->results || o->json || o->junit) {
		cs_run_report_opts(o, &ro);
		if (cs_report_open(&ro, &w->rep) != CS_OK)
			return say(cs_last_error());
	}
	if (o->results && !(w->results = fopen(o->results, "a"))) {
		cs_error(CS_ERR_IO, "cannot write the results file '%s': %s",
			 o->results, strerror(errno));
		return say(cs_last_error());
	}
	return 1;
}

static int alloc_scratch(struct ipw *w)
{
	size_t P = (size_t)w->P;

	w->e = calloc(P, sizeof *w->e);
	w->l = calloc(P, sizeof *w->l);
	w->fp = calloc(2 * P, sizeof *w->fp);
	w->bad = calloc(P, sizeof *w->bad);
	return w->e && w->l && w->fp && w->bad;
}

/* Everything before the first case; 1 when the run can go on. */
static int prepare_run(struct ipw *w, cs_hcase_t **cases, size_t *n)
{
	const cs_run_opts_t *o = w->o;

	if (cs_run_validate(o, w->P))
		return 0;
	if (cs_suite_build(o->suite, w->P, &o->f, cases, n) != CS_OK)
		return say(cs_last_error());
	if (*n == 0)
		return say("no case of the suite matches the filters");
	if (!alloc_scratch(w))
		return say("out of memory");
	return open_outputs(w) && start_backend(w);
}

static size_t count_from(const cs_hcase_t *cases, size_t n, size_t first)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += cases[i].index >= first;
	return k;
}

int cs_run_inproc(const cs_run_opts_t *o)
{
	struct ipw w;
	cs_hcase_t *cases = NULL;
	size_t n = 0;
	int code = 2;

	memset(&w, 0, sizeof w);
	w.o = o;
	w.P = o->sizes[0];
	if (prepare_run(&w, &cases, &n)) {
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
	if (w.b)
		stop_backend(&w);
	free(cases);
	free(w.e);
	free(w.l);
	free(w.fp);
	free(w.bad);
	return code;
}
