/*
 * verdict.c - one rank's verdict for a case (cs_local_t: the worst check
 * it saw, ordered by severity, then by the check's priority), the identity
 * verdict across a group, and the merge of every rank's verdict into the
 * case's result (cs_result_t), with the re-run line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/compare.h"
#include "csref/stats.h"
#include "base/check_registry.h"
#include "check/exec.h"
#include "check/khash.h"
#include "base/names.h"
#include "base/repro.h"
#include "base/result.h"
#include "base/mpialg.h"
#include "base/options.h"
#include "suite/suite.h"
#include "csref/grid.h"
#include "check/verdict.h"

/* ---- one rank's verdict ----------------------------------------------------- */

/* (the order is the check registry's: base/check_registry.c) */
int cs_check_prio(const char *check)
{
	return cs_check_priority(check);
}

void cs_local_init(cs_local_t *l, int world_rank, int comm_rank)
{
	memset(l, 0, sizeof *l);
	l->verdict = CS_V_PASS;
	l->prio = cs_check_prio("");
	l->rank = world_rank;
	l->comm_rank = comm_rank;
	cs_stats_init(&l->stats);
}

/* Copy src into dst[n]; a string that does not fit ends with " [...]" so
 * that the cut shows (a backend's error string may be any length). */
static void copy_marked(char *dst, size_t n, const char *src)
{
	static const char mark[] = " [...]";

	if ((size_t)snprintf(dst, n, "%s", src) < n || n < sizeof mark)
		return;
	memcpy(dst + n - sizeof mark, mark, sizeof mark);
}

void cs_local_set(cs_local_t *l, cs_verdict_t v, const char *check,
		  const char *reason, const char *detail)
{
	int prio = cs_check_prio(check);

	if ((int)v < l->verdict || ((int)v == l->verdict && prio >= l->prio))
		return;
	l->verdict = (int)v;
	l->prio = prio;
	snprintf(l->check, sizeof l->check, "%s", check);
	copy_marked(l->reason, sizeof l->reason, reason ? reason : "");
	copy_marked(l->detail, sizeof l->detail, detail ? detail : "");
}


/* ---- across ranks ------------------------------------------------------------- */

int cs_coll_same_everywhere(cs_coll_t c)
{
	return c == CS_COLL_ALLREDUCE || c == CS_COLL_ALLGATHER ||
	       c == CS_COLL_BROADCAST;
}

/* The first comm rank whose fingerprint differs from comm rank 0's, or
 * -1. */
static int first_other(const cs_khash_t *fp, int n)
{
	int q;

	for (q = 1; q < n; q++)
		if (memcmp(&fp[q], &fp[0], sizeof fp[0]) != 0)
			return q;
	return -1;
}

void cs_identity_verdict(const cs_khash_t *val, const cs_khash_t *raw, int n,
			 int k, int ncalls, int strict, cs_local_t *l)
{
	char reason[256], detail[1024], call[64] = "";
	const cs_khash_t *fp = val;
	size_t used = 0;
	int q, bad = first_other(val, n), bits = 0;

	if (bad < 0 && (bad = first_other(raw, n)) >= 0) {
		bits = 1;
		fp = raw;
	}
	if (bad < 0 || l->comm_rank != bad)
		return;
	if (ncalls > 1)
		snprintf(call, sizeof call, " in call %d of %d (%s)", k + 1,
			 ncalls, cs_exec_call_fresh(k) ? "fresh inputs"
			 : k ? "the inputs of call 1" : "the case's inputs");
	snprintf(reason, sizeof reason, bits ? "ranks 0 and %d of the "
		 "communicator received the same values in different bits "
		 "(NaN payloads or zero signs)%s" : "ranks 0 and %d of the "
		 "communicator received different values%s", bad, call);
	for (q = 0; q < n && used < sizeof detail; q++)
		used += (size_t)snprintf(detail + used, sizeof detail - used,
					 "comm rank %d: fingerprint of the "
					 "received %s %016llx%016llx\n", q,
					 bits ? "bytes" : "values",
					 (unsigned long long)fp[q].h[0],
					 (unsigned long long)fp[q].h[1]);
	cs_local_set(l, bits && !strict ? CS_V_WARN : CS_V_FAIL,
		     bits ? "bitidentity" : "identity", reason, detail);
}

/* ---- merging the ranks' verdicts ------------------------------------------ */

/* Is a a better representative of the case than b? Worst verdict first,
 * then the earliest check, then one that says why, then the lowest rank. */
static int better(const cs_local_t *a, const cs_local_t *b)
{
	if (a->verdict != b->verdict)
		return a->verdict > b->verdict;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	if (!a->reason[0] != !b->reason[0])
		return a->reason[0] != 0;
	return a->rank < b->rank;
}

/* Implementation-defined behaviour observed over all ranks: reported as
 * INFO; both NaN rules, or both overflow rules (Inf/NaN and saturation),
 * within one case fail it (spec/numerics.md 3.3 and 4.9). */
static void apply_profile(const uint64_t *obs, cs_local_t *win, char *info,
			  size_t n)
{
	uint64_t ign = obs[CS_OBS_NAN_IGNORE], prop = obs[CS_OBS_NAN_PROPAGATE];
	uint64_t nf = obs[CS_OBS_OVF_NONFINITE], sat = obs[CS_OBS_OVF_SATURATE];
	char reason[256];
	size_t used = 0;

	info[0] = '\0';
	if (ign || prop)
		used += (size_t)snprintf(info + used, n - used, "nan=%s",
					 ign && prop ? "mixed"
					 : ign ? "ignore" : "propagate");
	if ((nf || sat) && used < n)
		snprintf(info + used, n - used, "%sovf=%s", used ? " " : "",
			 nf && sat ? "mixed" : nf ? "nonfinite" : "saturate");
	if (ign && prop) {
		snprintf(reason, sizeof reason, "max/min ignored a NaN in %llu "
			 "elements and propagated one in %llu: no consistent NaN "
			 "rule", (unsigned long long)ign, (unsigned long long)prop);
		cs_local_set(win, CS_V_FAIL, "nanrule", reason, NULL);
	}
	if (nf && sat) {
		snprintf(reason, sizeof reason, "an overflow gave Inf or NaN in "
			 "%llu elements and saturated in %llu: no consistent "
			 "overflow rule", (unsigned long long)nf,
			 (unsigned long long)sat);
		cs_local_set(win, CS_V_FAIL, "ovfrule", reason, NULL);
	}
	if (info[0] && win->verdict == CS_V_PASS)
		cs_local_set(win, CS_V_INFO, "profile", "implementation-defined "
			     "behaviour observed", NULL);
}

/* The statistical verdicts over every element the ranks checked
 * (spec/numerics.md, "Statistical verdicts"). */
static void apply_stats(const cs_local_t *all, int n, cs_local_t *win)
{
	cs_stats_t s;
	char check[32], reason[256];
	int q, level;

	cs_stats_init(&s);
	for (q = 0; q < n; q++)
		cs_stats_merge(&s, &all[q].stats);
	level = cs_stats_judge(&s, check, sizeof check, reason, sizeof reason);
	if (level == CS_STATS_FAIL)
		cs_local_set(win, CS_V_FAIL, check, reason, NULL);
	else if (level == CS_STATS_WARN)
		cs_local_set(win, CS_V_WARN, check, reason, NULL);
}

/* "failing on N ranks: a b c" after the winner's detail. */
static void list_failing(const cs_local_t *all, int n, int nfail, char *d,
			 size_t cap)
{
	size_t used = strlen(d);
	int q;

	if (nfail < 2 || used >= cap)
		return;
	/* on a line of its own, whether or not the detail ended one */
	used += (size_t)snprintf(d + used, cap - used, "%sfailing on %d ranks:",
				 used && d[used - 1] != '\n' ? "\n" : "", nfail);
	for (q = 0; q < n && used < cap; q++)
		if (all[q].verdict == CS_V_FAIL)
			used += (size_t)snprintf(d + used, cap - used, " %d", q);
}

void cs_result_merge(const cs_run_opts_t *o, const char *backend_name,
		     const cs_hcase_t *hc, const cs_local_t *all, int n,
		     cs_result_t *res)
{
	uint64_t obs[CS_NUM_OBS] = {0};
	cs_local_t win = all[0];
	int q, k, nfail = 0;

	memset(res, 0, sizeof *res);
	res->hc = *hc;
	snprintf(res->backend, sizeof res->backend, "%s", backend_name);
	for (q = 0; q < n; q++) {
		if (better(&all[q], &win))
			win = all[q];
		for (k = 0; k < CS_NUM_OBS; k++)
			obs[k] += all[q].obs[k];
		res->elems_checked += all[q].elems;
		res->bytes_checked += all[q].bytes;
		if (all[q].seconds > res->seconds)
			res->seconds = all[q].seconds;
		if (all[q].peak_rss > res->peak_rss)
			res->peak_rss = all[q].peak_rss;
		nfail += all[q].verdict == CS_V_FAIL;
	}
	apply_profile(obs, &win, res->info, sizeof res->info);
	apply_stats(all, n, &win);
	res->verdict = (cs_verdict_t)win.verdict;
	snprintf(res->check, sizeof res->check, "%s", win.check);
	snprintf(res->reason, sizeof res->reason, "%s", win.reason);
	snprintf(res->detail, sizeof res->detail, "%s", win.detail);
	list_failing(all, n, nfail, res->detail, sizeof res->detail);
	cs_run_repro(o, hc, n, res->repro, sizeof res->repro);
}

int cs_run_repro(const cs_run_opts_t *o, const cs_hcase_t *hc, int world,
		 char *buf, size_t n)
{
	int len = cs_repro_format(hc, world, o->backend, o->backend_opt,
				  o->suite, buf, n);
	int more;
	char extra[CS_GRID_SPEC_MAX + 32 + CS_MPIALG_SPEC_MAX] = "";

	/* a --grid (checked text: lower-case names, digits, commas) and a
	 * --repeat that is not the default */
	if (hc->pattern && o->grid)
		snprintf(extra, sizeof extra, " --grid %s", o->grid);
	else if (!hc->pattern && o->repeat != 2)
		snprintf(extra, sizeof extra, " --repeat %d", o->repeat);
	if (o->mpi_alg) /* (checked text: names, digits, '=', ',', '-') */
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
			 " --mpi-alg %.*s", (int)(sizeof extra / 2), o->mpi_alg);
	if (len <= 0 || !extra[0])
		return len;
	more = snprintf(buf && (size_t)len < n ? buf + len : NULL,
			buf && (size_t)len < n ? n - (size_t)len : 0,
			"%s", extra);
	if (buf && n && (size_t)(len + more) >= n)
		buf[0] = '\0'; /* a cut line would re-run something else */
	return len + more;
}
