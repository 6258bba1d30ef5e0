/*
 * patcase.c - one case of the `patterns` suite (patcase.h): the grid, the
 * pattern's groups, the pattern's run through the port, every rank's
 * verdict merged, the volume totals and the communication log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "worker/patcase.h"
#include "suite/patsuite.h"
#include "check/verdict.h"

/* The case's grid: --grid, else the pattern's default (spec 2.5). */
static int case_grid(const cs_worker_t *w, const cs_pattern_t *pat,
		     cs_grid_t *g)
{
	if (w->o->grid)
		return cs_grid_parse(w->o->grid, w->g->world, g) == CS_OK;
	return cs_pattern_default_grid(pat, w->g->world, g) == CS_OK;
}

/* Local rank i's verdict from its pattern checker. */
static void to_local(cs_local_t *l, const cs_pcheck_t *k, double seconds)
{
	if (k->skipped)
		cs_local_set(l, CS_V_SKIP, "skip", k->reason, NULL);
	else if (k->failed)
		cs_local_set(l, CS_V_FAIL, k->check, k->reason, k->detail);
	l->elems = k->elems;
	l->seconds = seconds;
}

/* ---- the log: gathered to the leader ------------------------------------ */

/* Every rank's records into *all (the leader: world * per entries, rank
 * order), per = the most any rank made. Collective. 1 when gathered. */
static int gather_log(cs_worker_t *w, cs_patport_t *port, cs_patrec_t **all,
		      size_t *per)
{
	size_t n, most;
	int lead = cs_rgroup_leads(w->g), ok;
	cs_patrec_t *mine;

	for (int i = 0; i < w->n; i++) {
		cs_patport_log(port, i, &n);
		w->flag[i] = (int)n;
	}
	most = (size_t)w->g->ops->max(w->g, w->flag);
	mine = calloc((size_t)w->n * most + 1, sizeof *mine);
	*all = lead ? calloc((size_t)w->g->world * most + 1, sizeof **all)
		    : NULL;
	ok = cs_worker_agree(w, mine && (!lead || *all),
			     "out of memory for the communication log");
	if (!ok) {
		free(mine);
		free(*all);
		*all = NULL;
		return 0;
	}
	for (int i = 0; i < w->n; i++) {
		const cs_patrec_t *r = cs_patport_log(port, i, &n);
		for (size_t k = 0; k < most; k++)
			if (k < n)
				mine[(size_t)i * most + k] = r[k];
			else
				mine[(size_t)i * most + k].rank = -1;
	}
	w->g->ops->gather(w->g, mine, most * sizeof *mine, *all);
	free(mine);
	*per = most;
	return 1;
}

/* spec 3.2's totals per (group, collective): calls and bytes over all
 * ranks, the largest rank's bytes, into res->volume. */
static void volume_totals(const cs_pattern_t *pat, const cs_patrec_t *all,
			  int W, size_t per, cs_result_t *res)
{
	size_t used = 0;
	res->volume[0] = '\0';
	for (int c = 0; c < CS_NUM_COLLS; c++) {
		long long calls = 0, bytes = 0, most = 0;
		for (int g = 0; g < W; g++) {
			long long mine = 0;
			for (size_t k = 0; k < per; k++) {
				const cs_patrec_t *r = &all[(size_t)g * per + k];
				if (r->rank < 0 || r->coll != c)
					continue;
				calls++;
				mine += r->bytes;
			}
			bytes += mine;
			most = mine > most ? mine : most;
		}
		if (!calls || used >= sizeof res->volume)
			continue;
		used += (size_t)snprintf(res->volume + used,
					 sizeof res->volume - used,
					 "%s%s %s %lld %lld %lld",
					 used ? "; " : "",
					 cs_grid_axis_name(pat->axis),
					 cs_coll_name((cs_coll_t)c), calls,
					 bytes, most);
	}
}

/* The --comm-log lines of the case, ordered by (world rank, seq). */
static void write_log(cs_worker_t *w, const cs_hcase_t *hc,
		      const cs_pattern_t *pat, const cs_grid_t *grid,
		      const char *gtext, const cs_patrec_t *all, size_t per)
{
	FILE *f = w->comm_log;
	int W = w->g->world, ranks[CS_PAT_MAX_GROUP], n = 0;

	for (int g = 0; g < W; g++) {
		if (cs_grid_group(grid, CS_AXIS_BIT(pat->axis), g, ranks,
				  CS_PAT_MAX_GROUP, &n) != CS_OK)
			n = 0;
		for (size_t k = 0; k < per; k++) {
			const cs_patrec_t *r = &all[(size_t)g * per + k];
			if (r->rank < 0)
				continue;
			fprintf(f, "{\"pattern\":\"%s\",\"variant\":\"%s\","
				"\"case\":%zu,\"grid\":\"%s\",\"dtype\":\"%s\","
				"\"rank\":%d,\"step\":%d,\"phase\":\"%s\","
				"\"seq\":%d,\"group\":\"%s\",\"group_ranks\":[",
				pat->name, cs_hcase_variant(hc), hc->index,
				gtext, cs_dtype_name((cs_dtype_t)r->dtype),
				r->rank, r->step,
				cs_pphase_name((cs_pphase_t)r->phase), r->seq,
				cs_grid_axis_name(pat->axis));
			for (int j = 0; j < n; j++)
				fprintf(f, "%s%d", j ? "," : "", ranks[j]);
			fprintf(f, "],\"coll\":\"%s\",\"op\":\"%s\",\"count\":"
				"%lld,\"send_count\":%lld,\"recv_count\":%lld,"
				"\"bytes\":%lld}\n",
				cs_coll_name((cs_coll_t)r->coll),
				cs_op_name((cs_op_t)r->op),
				(long long)r->count, (long long)r->send_elems,
				(long long)r->recv_elems, (long long)r->bytes);
		}
	}
	fflush(f);
}

/* ---- the case ----------------------------------------------------------- */

/* The pattern on every local rank; the verdicts into w->l. */
static void run_pattern(cs_worker_t *w, const cs_hcase_t *hc,
			const cs_pattern_t *pat, const cs_grid_t *grid,
			const struct cs_wvar *var, cs_patport_t **portp,
			char *info, size_t ninfo)
{
	cs_prank_t *rk = calloc((size_t)w->n, sizeof *rk);
	cs_pcheck_t *chk = calloc((size_t)w->n, sizeof *chk);
	cs_patport_t *port = NULL;
	int ok = rk && chk;
	double t0, t1;

	for (int i = 0; ok && i < w->n; i++) {
		cs_pchk_init(&chk[i]);
		ok = cs_pattern_rank(pat, grid, w->g->first + i, &rk[i]) ==
			     CS_OK &&
		     rk[i].P == var->size[i] && rk[i].r == var->rank[i];
	}
	ok = ok && (port = cs_patport_new(w, var, rk, chk)) != NULL;
	if (!cs_worker_agree(w, ok, "a pattern case could not start: out "
			     "of memory or groups that disagree with the grid")) {
		for (int i = 0; i < w->n; i++)
			cs_local_set(&w->l[i], CS_V_FAIL, "harness", "the "
				     "pattern case could not start", NULL);
		goto done;
	}
	cs_pctx_t x = {.pat = pat, .variant = hc->pvariant,
		       .dtype = hc->c.dtype, .seed = hc->c.seed, .grid = grid,
		       .nlocal = w->n, .rank = rk, .port = cs_patport_port(port),
		       .chk = chk};
	t0 = w->g->ops->now(w->g);
	cs_status_t st = pat->run(&x);
	t1 = w->g->ops->now(w->g);
	for (int i = 0; i < w->n; i++) {
		if (st != CS_OK)
			cs_pchk_fail(&chk[i], "harness", "pattern %s could not "
				     "run: %s", pat->name, cs_last_error());
		to_local(&w->l[i], &chk[i], t1 - t0);
		if (!chk[i].skipped)
			cs_patport_bits_verdict(port, i, &w->l[i]);
	}
	snprintf(info, ninfo, "%s", chk[0].info);
	*portp = port;
	port = NULL;
done:
	cs_patport_free(port);
	free(rk);
	free(chk);
}

void cs_patcase_run(cs_worker_t *w, const cs_hcase_t *hc, cs_result_t *res)
{
	const cs_pattern_t *pat = cs_hcase_pattern(hc);
	char gtext[CS_GRID_SPEC_MAX + 1] = "", info[128] = "";
	cs_patport_t *port = NULL;
	cs_patrec_t *all = NULL;
	size_t per = 0;
	cs_grid_t grid;
	int ok = pat && case_grid(w, pat, &grid) &&
		 cs_grid_format(&grid, gtext, sizeof gtext) == CS_OK;

	for (int i = 0; i < w->n; i++)
		cs_local_init(&w->l[i], w->g->first + i, 0);
	if (!cs_worker_agree(w, ok, "pattern case: no grid")) {
		for (int i = 0; i < w->n; i++)
			cs_local_set(&w->l[i], CS_V_FAIL, "harness",
				     "the case's grid could not be made", NULL);
	} else {
		const struct cs_wvar *var = cs_worker_axis(w, &grid, pat->axis);
		if (var->ready < 0)
			for (int i = 0; i < w->n; i++)
				cs_local_set(&w->l[i], CS_V_SKIP, "skip",
					     var->why, NULL);
		else
			run_pattern(w, hc, pat, &grid, var, &port, info,
				    sizeof info);
	}
	/* (collective: every rank has a port, or none has) */
	if (port && gather_log(w, port, &all, &per) && all && w->comm_log)
		write_log(w, hc, pat, &grid, gtext, all, per);
	w->g->ops->gather(w->g, w->l, sizeof *w->l, w->all);
	if (cs_rgroup_leads(w->g)) {
		cs_result_merge(w->o, w->backend_name, hc, w->all, w->g->world,
				res);
		snprintf(res->grid, sizeof res->grid, "%s", gtext);
		res->volume[0] = '\0';
		if (all)
			volume_totals(pat, all, w->g->world, per, res);
		if (info[0])
			snprintf(res->info, sizeof res->info, "%s", info);
	}
	free(all);
	cs_patport_free(port);
}
