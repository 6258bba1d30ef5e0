/*
 * worker_start.c - the worker's set-up and tear-down (worker.h): the checks
 * that need the world size, the suite's cases, the reports, the backend and
 * its communicators (the world's at start, each variant's on first use),
 * device streams, and the scratch every case uses. Every step that can
 * fail on some ranks only is agreed on by all (cs_worker_agree), so that
 * the ranks never go different ways.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csgpu/device.h"
#include "worker/worker.h"
#include "backends/registry.h"
#include "report/report.h"
#include "worker/validate.h"
#include "worker/precheck.h"
#include "base/memest.h"
#include "suite/suite.h"

int cs_worker_agree(cs_worker_t *w, int ok, const char *msg)
{
	cs_rgroup_t *g = w->g;
	int i, first;

	/* the largest of world - (failing world rank) names the lowest */
	for (i = 0; i < w->n; i++)
		w->flag[i] = ok ? 0 : g->world - (g->first + i);
	first = g->world - g->ops->max(g, w->flag);
	if (!ok && msg && first == g->first)
		fprintf(stderr, "collspec run: %s\n", msg);
	return first == g->world;
}

/*
 * Device-memory backends: `why` is NULL when this process has the devices
 * it needs, else the reason. When any rank has one, every case is SKIP,
 * with the reason of the lowest such rank. Collective; returns 1 then.
 */
static int no_device(cs_worker_t *w, const char *why)
{
	cs_rgroup_t *g = w->g;
	int i, first;

	for (i = 0; i < w->n; i++) {
		w->flag[i] = why ? g->world - (g->first + i) : 0;
		w->ptr[i] = w->nodev;
	}
	first = g->world - g->ops->max(g, w->flag);
	if (first == g->world)
		return 0;
	if (why)
		snprintf(w->nodev, sizeof w->nodev, "%s", why);
	g->ops->bcast(g, CS_COMM_WORLD, w->ptr, sizeof w->nodev, first);
	return 1;
}

/* ---- communicators ------------------------------------------------------------ */

static void free_var(cs_worker_t *w, struct cs_wvar *var);

static int var_alloc(struct cs_wvar *var, int n)
{
	var->comm = calloc((size_t)n, sizeof *var->comm);
	var->rank = calloc((size_t)n, sizeof *var->rank);
	var->size = calloc((size_t)n, sizeof *var->size);
	return var->comm && var->rank && var->size;
}

/* The harness's side of slot v (a variant, or a pattern axis: rgroup.h)
 * into var: its groups (rgroup's split) from each local rank's color and
 * key. 1 when every rank has them. */
static int var_groups(cs_worker_t *w, struct cs_wvar *var, cs_commvar_t v,
		      const int *key, const int *color)
{
	int ok = var_alloc(var, w->n);

	ok = ok && w->g->ops->split(w->g, v, color, key, var->rank,
				    var->size) == CS_OK;
	return cs_worker_agree(w, ok, cs_last_error());
}

static void var_skip(struct cs_wvar *var, const char *why)
{
	var->ready = -1;
	snprintf(var->why, sizeof var->why, "%s", why);
}

/* The backend's side of variant v (not the world): one comm_split per
 * local rank, between group_start and group_end when it drives them all. */
static void var_split(cs_worker_t *w, struct cs_wvar *var, cs_commvar_t v,
		      const int *key, const int *color)
{
	const cs_backend_t *b = w->b;
	struct cs_wvar *world = &w->var[CS_COMM_WORLD];
	int i, rc = 0, end;

	if (w->g->grouped)
		rc = b->group_start();
	for (i = 0; i < w->n && !rc; i++)
		rc = b->comm_split(world->comm[i], color[i], key[i],
				   w->g->ops->boot(w->g, v, i), &var->comm[i]);
	if (w->g->grouped && (end = b->group_end()) != 0 && !rc)
		rc = end;
	snprintf(var->why, sizeof var->why, "backend comm_split failed: %s",
		 rc ? b->error_string(world->comm[0], rc) : "");
	if (cs_worker_agree(w, rc == 0, var->why))
		return;
	if (!rc)
		snprintf(var->why, sizeof var->why, "backend comm_split "
			 "failed on another rank");
	var->ready = -1;
	for (i = 0; i < w->n; i++)
		if (var->comm[i] && b->comm_free)
			b->comm_free(var->comm[i]);
	memset(var->comm, 0, (size_t)w->n * sizeof *var->comm);
}

/* Slot v's communicators into var from key[i], color[i] per local rank
 * (`what` names the groups in a skip reason). Collective. */
static void slot_make(cs_worker_t *w, struct cs_wvar *var, cs_commvar_t v,
		      const int *key, const int *color, const char *what)
{
	var->ready = 1;
	var->slot = v;
	if (!var_groups(w, var, v, key, color))
		var_skip(var, "the harness could not form the groups");
	else if (w->nodev[0]) /* the backend did not start: nothing to split */
		var_skip(var, w->nodev);
	else if (!w->b->comm_split) {
		var_skip(var, "");
		snprintf(var->why, sizeof var->why, "backend '%s' has no "
			 "comm_split: %s needs it", w->b->name, what);
	} else
		var_split(w, var, v, key, color);
}

struct cs_wvar *cs_worker_var(cs_worker_t *w, cs_commvar_t v)
{
	struct cs_wvar *var = &w->var[v];
	char what[96];
	int *key, i;

	if (var->ready)
		return var;
	key = calloc(2 * (size_t)w->n, sizeof *key);
	if (!cs_worker_agree(w, key != NULL, "out of memory")) {
		var_skip(var, "the harness could not form the groups");
		free(key);
		return var;
	}
	for (i = 0; i < w->n; i++)
		cs_commvar_split(v, w->g->first + i, w->g->world,
				 &key[w->n + i], &key[i]);
	snprintf(what, sizeof what, "communicator variant '%s'",
		 cs_commvar_name(v));
	slot_make(w, var, v, key, key + w->n, what);
	free(key);
	return var;
}

/* var as the world's communicators (a group that is the whole world). */
static struct cs_wvar *borrow_world(cs_worker_t *w, struct cs_wvar *var)
{
	const struct cs_wvar *world = &w->var[CS_COMM_WORLD];

	*var = *world;
	var->borrowed = 1;
	var->slot = CS_COMM_WORLD;
	return var;
}

struct cs_wvar *cs_worker_axis(cs_worker_t *w, const cs_grid_t *grid,
			       cs_grid_axis_t a)
{
	struct cs_wvar *var = &w->axis[a];
	char what[96], text[CS_GRID_SPEC_MAX + 1];
	int *key, i, ok;

	if (cs_grid_format(grid, text, sizeof text) != CS_OK)
		text[0] = '\0';
	if (var->ready) {
		if (strcmp(w->axis_grid[a], text) == 0)
			return var;
		/* another grid's groups on this axis: made again */
		free_var(w, var);
		memset(var, 0, sizeof *var);
	}
	snprintf(w->axis_grid[a], sizeof w->axis_grid[a], "%s", text);
	if (cs_grid_axis_size(grid, a) == w->g->world)
		return borrow_world(w, var);
	key = calloc(2 * (size_t)w->n, sizeof *key);
	ok = key != NULL;
	for (i = 0; ok && i < w->n; i++)
		ok = cs_grid_split(grid, a, w->g->first + i, &key[w->n + i],
				   &key[i]) == CS_OK;
	if (!cs_worker_agree(w, ok, "the grid's groups: out of memory")) {
		var_skip(var, "the harness could not form the groups");
		free(key);
		return var;
	}
	snprintf(what, sizeof what, "the %s groups of grid %s",
		 cs_grid_axis_name(a), text);
	slot_make(w, var, CS_RG_AXIS_SLOT(a), key, key + w->n, what);
	free(key);
	return var;
}

/* ---- the backend ------------------------------------------------------------------ */

/* The backend's world communicators: init on this process's rank, or
 * init_all for every rank. 1 when the run can go on. */
static int init_world(cs_worker_t *w)
{
	const cs_backend_t *b = w->b;
	struct cs_wvar *world = &w->var[CS_COMM_WORLD];
	int rc;

	if (w->g->grouped)
		rc = b->init_all(w->n, w->o->backend_opt, world->comm);
	else
		rc = b->init(w->g->ops->boot(w->g, CS_COMM_WORLD, 0),
			     w->o->backend_opt, &world->comm[0]);
	w->init_called = 1;
	if (rc) {
		/* the message, whole, in cs_last_error() (the backend's
		 * string may be long) */
		char ranks[32] = "";
		if (w->g->grouped)
			snprintf(ranks, sizeof ranks, " %d ranks", w->n);
		cs_error(CS_ERR_UNSUPPORTED, "backend '%s' failed to initialise"
			 "%s: %s", b->name, ranks, b->error_string(NULL, rc));
		memset(world->comm, 0, (size_t)w->n * sizeof *world->comm);
	}
	/* "no device" and "too few devices" travel through the ABI
	 * (backend.h): every case is SKIP, for any backend */
	if (no_device(w, rc ? cs_backend_init_skip(b, rc) : NULL))
		return 1;
	return cs_worker_agree(w, rc == 0, cs_last_error());
}

/* Device memory: each local rank's device (the one init left current for
 * a rank per process; rank i's is i mod n when the backend drives them
 * all, cs_dev_of_rank) and the harness's stream on it. */
static int start_devices(cs_worker_t *w)
{
	int i, ndev = cs_dev_count(), ok;

	w->dev = calloc((size_t)w->n, sizeof *w->dev);
	w->stream = calloc((size_t)w->n, sizeof *w->stream);
	ok = w->dev && w->stream;
	if (!ok)
		cs_error(CS_ERR_NOMEM, "out of memory");
	for (i = 0; ok && i < w->n; i++) {
		if (w->g->grouped)
			w->dev[i] = cs_dev_of_rank(w->g->first + i, ndev);
		else
			ok = cs_dev_current(&w->dev[i]) == CS_OK;
		ok = ok && cs_dev_stream_create(w->dev[i], &w->stream[i]) ==
				   CS_OK;
	}
	return cs_worker_agree(w, ok, cs_last_error());
}

/* Load the backend and make its world communicators; 1 when the run can
 * go on (possibly with every case skipped for want of a device). */
static int start_backend(cs_worker_t *w)
{
	int cuda, *key;

	if (!w->b && !cs_worker_agree(w, cs_backend_load(w->o->backend, &w->b) ==
					       CS_OK, cs_last_error()))
		return 0;
	snprintf(w->backend_name, sizeof w->backend_name, "%s", w->b->name);
	key = calloc(2 * (size_t)w->n, sizeof *key);
	if (!cs_worker_agree(w, key != NULL, "out of memory")) {
		free(key);
		return 0;
	}
	for (int i = 0; i < w->n; i++)
		cs_commvar_split(CS_COMM_WORLD, w->g->first + i, w->g->world,
				 &key[w->n + i], &key[i]);
	if (!var_groups(w, &w->var[CS_COMM_WORLD], CS_COMM_WORLD, key,
			key + w->n)) {
		free(key);
		return 0;
	}
	free(key);
	w->var[CS_COMM_WORLD].ready = 1;
	w->var[CS_COMM_WORLD].slot = CS_COMM_WORLD;
	cuda = w->b->mem_kind == CS_MEM_CUDA;
	if (cuda && !cs_backend_finds_devices(w->b) &&
	    no_device(w, cs_dev_count() == 0 ? CS_NODEV_SKIP : NULL))
		return 1;
	if (!init_world(w))
		return 0;
	return w->nodev[0] || !cuda || start_devices(w);
}

/* ---- outputs, scratch, the cases ------------------------------------------------ */

/* The leader's outputs: the report (not in results mode) and results file. */
static int open_outputs(cs_worker_t *w)
{
	const cs_run_opts_t *o = w->o;
	cs_report_opts_t ro;
	int ok = 1;

	if (!cs_rgroup_leads(w->g))
		return cs_worker_agree(w, 1, "");
	/* (a worker the driver started reports through the results file
	 * only: the driver prints the table) */
	if (!o->results || o->json || o->junit) {
		cs_run_report_opts(o, &ro);
		ok = cs_report_open(&ro, &w->rep) == CS_OK;
	}
	if (ok && o->results && !(w->results = fopen(o->results, "a")))
		ok = cs_error(CS_ERR_IO, "cannot write the results file '%s': %s",
			      o->results, strerror(errno)) == CS_OK;
	/* the communication log: appended to under the driver, which
	 * emptied it before the first world size */
	if (ok && o->comm_log &&
	    !(w->comm_log = fopen(o->comm_log, o->results ? "a" : "w")))
		ok = cs_error(CS_ERR_IO, "cannot write the communication log "
			      "'%s': %s", o->comm_log, strerror(errno)) == CS_OK;
	return cs_worker_agree(w, ok, cs_last_error());
}

/* Scratch of every case; the flags first (every agreement needs them).
 * Returns 0 when out of memory, on this rank. */
static int alloc_scratch(cs_worker_t *w)
{
	size_t L = (size_t)w->n, W = (size_t)w->g->world;
	size_t K = 2 * (size_t)w->o->repeat - 1;

	w->e = calloc(L, sizeof *w->e);
	w->l = calloc(L, sizeof *w->l);
	w->same = calloc(2 * L, sizeof *w->same);
	w->failed = w->same ? w->same + L : NULL;
	w->ptr = calloc(L, sizeof *w->ptr);
	/* key, then two fingerprints (values, bytes) per rank and call:
	 * this process's, the group's, and one call's column of each */
	w->fp = calloc(L + 2 * L * K + 2 * L * W * K + 2 * W, sizeof *w->fp);
	if (cs_rgroup_leads(w->g)) {
		w->all = L == W ? w->l : calloc(W, sizeof *w->all);
		w->res = malloc(sizeof *w->res);
	}
	return w->e && w->l && w->same && w->ptr && w->fp &&
	       (!cs_rgroup_leads(w->g) || (w->all && w->res));
}

static int size_listed(const cs_run_opts_t *o, int W)
{
	int i;

	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] == W)
			return 1;
	return o->nsizes == 0;
}

int cs_worker_start(cs_worker_t *w, cs_hcase_t **cases, size_t *n)
{
	const cs_run_opts_t *o = w->o;
	int W = w->g->world, ok;
	char msg[256];

	/* a rank with no memory for its flags cannot even agree: it ends
	 * the job (an environment error, before any case) */
	if (!(w->flag = calloc((size_t)w->n, sizeof *w->flag)))
		return 0;
	if (!cs_worker_agree(w, alloc_scratch(w), "out of memory"))
		return 0;
	snprintf(msg, sizeof msg, "launched with %d ranks, but --ranks does not "
		 "list %d", W, W);
	if (!cs_worker_agree(w, size_listed(o, W), msg))
		return 0;
	/* (the leader validates and prints why) */
	ok = !cs_rgroup_leads(w->g) || cs_run_opts_ok(o, W);
	if (!cs_worker_agree(w, ok, NULL))
		return 0;
	w->mem_avail = cs_mem_available();
	w->rss = cs_suite_find(o->suite) && cs_suite_find(o->suite)->big;
	ok = cs_suite_build(o->suite, W, &o->f, cases, n) == CS_OK;
	if (!cs_worker_agree(w, ok, cs_last_error()))
		return 0;
	if (!cs_worker_agree(w, *n > 0, "no case of the suite matches the "
			     "filters"))
		return 0;
	return open_outputs(w) && start_backend(w);
}

/* ---- tear-down ---------------------------------------------------------------------- */

static void free_var(cs_worker_t *w, struct cs_wvar *var)
{
	int i;

	if (var->borrowed)
		return;
	for (i = 0; var->comm && i < w->n; i++)
		if (var->comm[i] && w->b->comm_free)
			w->b->comm_free(var->comm[i]);
	free(var->comm);
	free(var->rank);
	free(var->size);
}

void cs_worker_stop(cs_worker_t *w)
{
	int v, i;

	for (v = CS_RG_AXES - 1; w->b && v >= 0; v--)
		free_var(w, &w->axis[v]);
	for (v = CS_NUM_COMMVARS - 1; w->b && v >= 0; v--)
		free_var(w, &w->var[v]);
	for (i = 0; w->stream && i < w->n; i++)
		if (w->stream[i])
			cs_dev_stream_destroy(w->dev[i], w->stream[i]);
	if (w->init_called && w->b->finalize)
		w->b->finalize();
	free(w->dev);
	free(w->stream);
	if (w->all != w->l)
		free(w->all);
	free(w->e);
	free(w->l);
	free(w->same);
	free(w->ptr);
	free(w->fp);
	free(w->res);
	free(w->flag);
}
