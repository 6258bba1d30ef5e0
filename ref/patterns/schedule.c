/*
 * schedule.c - who holds what when: the ring's chunk layout and step
 * sources (spec/patterns.md section 5.8), and the pp pattern's 1F1B
 * timetable (section 5.10): each stage's order of forwards and backwards
 * and the tick at which each op runs under the section's clock rule.
 * Contracts in csref/patterns.h.
 */
#include <stdbool.h>
#include "csref/patterns.h"
#include "checked.h"

cs_status_t cs_pat_ring_chunks(int P, int r, int chunk[2])
{
	if (!chunk)
		return cs_error(CS_ERR_INVALID, "cs_pat_ring_chunks: NULL "
				"output");
	if (!pat_rank_ok(P, r))
		return CS_ERR_INVALID;
	chunk[0] = r;
	chunk[1] = 2 * P - 1 - r;
	return CS_OK;
}

cs_status_t cs_pat_ring_source(int P, int r, int i, int *src)
{
	if (!src)
		return cs_error(CS_ERR_INVALID, "cs_pat_ring_source: NULL "
				"output");
	if (!pat_rank_ok(P, r))
		return CS_ERR_INVALID;
	if (i < 0 || i >= P)
		return cs_error(CS_ERR_INVALID, "ring step %d of %d", i, P);
	*src = ((r - i) % P + P) % P;
	return CS_OK;
}

/* 1 <= P, M <= CS_PAT_PP_MAX. */
static bool sched_args_ok(int P, int M)
{
	if (P < 1 || P > CS_PAT_PP_MAX || M < 1 || M > CS_PAT_PP_MAX) {
		cs_error(CS_ERR_INVALID, "1F1B with %d stages and %d "
			 "micro-batches: both must be 1..%d", P, M,
			 CS_PAT_PP_MAX);
		return false;
	}
	return true;
}

cs_status_t cs_pat_1f1b_op(int P, int M, int s, int i, int *backward,
			   int *mb)
{
	if (!backward || !mb)
		return cs_error(CS_ERR_INVALID, "cs_pat_1f1b_op: NULL output");
	if (!sched_args_ok(P, M) || !pat_rank_ok(P, s))
		return CS_ERR_INVALID;
	if (i < 0 || i >= 2 * M)
		return cs_error(CS_ERR_INVALID, "op %d of a stage with %d "
				"ops", i, 2 * M);
	int warm = P - 1 - s < M ? P - 1 - s : M;
	int steady = 2 * (M - warm); /* F_{warm+k}, B_k alternating */
	if (i < warm) {
		*backward = 0, *mb = i;
	} else if (i < warm + steady) {
		int k = (i - warm) / 2;
		*backward = (i - warm) % 2;
		*mb = *backward ? k : warm + k;
	} else {
		*backward = 1, *mb = i - warm - steady + (M - warm);
	}
	return CS_OK;
}

/* Index of op (backward, mb) of stage s in the tick table. */
static int slot(int M, int s, int backward, int mb)
{
	return s * 2 * M + backward * M + mb;
}

/* The tick of op i of stage s, or -1 when an op it waits for has no tick
 * yet. */
static int tick_if_ready(int P, int M, int s, int i, const int *tick)
{
	int bwd, mb, t = 0;
	(void)cs_pat_1f1b_op(P, M, s, i, &bwd, &mb); /* arguments valid */
	if (i > 0) {
		int pb, pm;
		(void)cs_pat_1f1b_op(P, M, s, i - 1, &pb, &pm);
		if (tick[slot(M, s, pb, pm)] < 0)
			return -1;
		t = tick[slot(M, s, pb, pm)] + 1;
	}
	int dep = -1; /* F_mb on s-1, B_mb on s+1 */
	if (!bwd && s > 0)
		dep = slot(M, s - 1, 0, mb);
	if (bwd && s < P - 1)
		dep = slot(M, s + 1, 1, mb);
	if (dep >= 0) {
		if (tick[dep] < 0)
			return -1;
		if (tick[dep] + 1 > t)
			t = tick[dep] + 1;
	}
	return t;
}

/* Places stage s's ops from *next on while their waits are met; returns
 * how many it placed and raises *last to the latest tick. */
static int place_ready(int P, int M, int s, int *next, int *tick, int *last)
{
	int placed = 0, t, bwd, mb;
	while (*next < 2 * M &&
	       (t = tick_if_ready(P, M, s, *next, tick)) >= 0) {
		(void)cs_pat_1f1b_op(P, M, s, *next, &bwd, &mb);
		tick[slot(M, s, bwd, mb)] = t;
		*last = t > *last ? t : *last;
		(*next)++, placed++;
	}
	return placed;
}

cs_status_t cs_pat_1f1b_ticks(int P, int M, int *tick, int *nticks)
{
	if (!tick || !nticks)
		return cs_error(CS_ERR_INVALID, "cs_pat_1f1b_ticks: NULL "
				"output");
	if (!sched_args_ok(P, M))
		return CS_ERR_INVALID;
	int n = P * 2 * M, done = 0, last = -1;
	for (int k = 0; k < n; k++)
		tick[k] = -1;
	int next[CS_PAT_PP_MAX] = {0}; /* each stage's next op to place */
	while (done < n) {
		int placed = 0;
		for (int s = 0; s < P; s++)
			placed += place_ready(P, M, s, &next[s], tick, &last);
		if (placed == 0) /* the order of 5.10 never deadlocks */
			return cs_error(CS_ERR_INTERNAL, "1F1B timetable "
					"deadlocked at P = %d, M = %d", P, M);
		done += placed;
	}
	*nticks = last + 1;
	return CS_OK;
}
