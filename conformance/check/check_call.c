/*
 * check_call.c - the checks of each call of a case (--repeat makes 2N - 1
 * calls): which of check.c's checks a call gets, and what each call
 * received, kept until the case ends for the determinism check (a repeat
 * on the case's own inputs must give call 1's bits) and the identity check
 * across ranks (worker.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "check/exec.h"
#include "base/names.h"
#include "check/verdict.h"

/* Call 0's received bytes, kept for the determinism comparison and the
 * identity check. */
static void keep_first(cs_exec_t *e, cs_local_t *l)
{
	size_t n;
	const void *got = cs_exec_recv_bytes(e, &n);

	free(e->first);
	e->first = malloc(n ? n : 1);
	if (!e->first) {
		cs_local_set(l, CS_V_FAIL, "harness", "out of memory for a copy "
			     "of the received buffer", NULL);
		return;
	}
	memcpy(e->first, got, n);
}

void cs_exec_keep(cs_exec_t *e, cs_local_t *l)
{
	size_t n;
	const void *got = cs_exec_recv_bytes(e, &n);

	if (e->call == 0) {
		if (!e->first)
			keep_first(e, l);
		return;
	}
	if (!e->kept) {
		e->kept = calloc((size_t)e->ncalls, sizeof *e->kept);
		if (!e->kept)
			goto out_nomem;
	}
	if (e->first && memcmp(got, e->first, n) == 0)
		return; /* call 0's copy stands for it */
	e->kept[e->call] = malloc(n ? n : 1);
	if (!e->kept[e->call])
		goto out_nomem;
	memcpy(e->kept[e->call], got, n);
	return;
out_nomem:
	cs_local_set(l, CS_V_FAIL, "harness", "out of memory for a copy of "
		     "the received buffer", NULL);
}

const void *cs_exec_kept(const cs_exec_t *e, int k, size_t *n)
{
	*n = e->recv_n * cs_dtype_size(e->c.dtype);
	if (k > 0 && e->kept && e->kept[k])
		return e->kept[k];
	return e->first;
}

/* A later call on call 0's inputs: 1 when it received call 0's bytes. */
static int same_as_first(const cs_exec_t *e, cs_local_t *l)
{
	char who[160], reason[256], detail[512];
	size_t n, i;
	const unsigned char *got = cs_exec_recv_bytes(e, &n);

	if (!e->first || memcmp(got, e->first, n) == 0)
		return e->first != NULL;
	for (i = 0; got[i] == e->first[i]; i++)
		;
	cs_exec_who(e, l, who, sizeof who);
	snprintf(reason, sizeof reason, "%s: the same call on the same inputs "
		 "gave different bits than call 1", who);
	snprintf(detail, sizeof detail, "%s: received byte %zu (element %zu) "
		 "was 0x%02x in call 1, 0x%02x now", who, i,
		 i / cs_dtype_size(e->c.dtype), e->first[i], got[i]);
	cs_local_set(l, CS_V_WARN, "determinism", reason, detail);
	return 0;
}

int cs_exec_check_call(cs_exec_t *e, cs_local_t *l)
{
	int same_inputs = e->call > 0 && !cs_exec_call_fresh(e->call);

	cs_exec_check_layout(e, l);
	if (same_inputs && same_as_first(e, l))
		return 1; /* call 0's value verdict holds for these bytes */
	if (!e->share_root)
		cs_exec_check_values(e, l);
	if (e->call == 0 && e->ncalls > 2)
		keep_first(e, l);
	return 0;
}

const void *cs_exec_recv_bytes(const cs_exec_t *e, size_t *n)
{
	*n = e->recv_n * cs_dtype_size(e->c.dtype);
	return cs_exec_recvp(e);
}

