/*
 * precheck.c - before a case's buffers exist: how a communicator variant
 * splits the world (color and key per rank, as MPI_Comm_split takes them),
 * and whether the backend takes the case (a collective it implements, and
 * its supports() query, asked with the count backend.h defines).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collspec/backend.h"
#include "csref/a2av.h"
#include "base/names.h"
#include "worker/precheck.h"
#include "suite/suite.h"

void cs_commvar_split(cs_commvar_t v, int r, int W, int *color, int *key)
{
	*color = 0;
	*key = r;
	if (v == CS_COMM_REVERSED)
		*key = W - 1 - r;
	else if (v == CS_COMM_HALVES)
		*color = r < W / 2 ? 0 : 1;
	else if (v == CS_COMM_ODDEVEN)
		*color = r % 2;
}

/* The function pointer a collective needs, as a flag. */
static int implements(const cs_backend_t *b, cs_coll_t c)
{
	const void *fn[CS_NUM_COLLS] = {
		[CS_COLL_ALLREDUCE] = (const void *)(uintptr_t)b->allreduce,
		[CS_COLL_ALLGATHER] = (const void *)(uintptr_t)b->allgather,
		[CS_COLL_REDUCESCATTER] = (const void *)(uintptr_t)b->reducescatter,
		[CS_COLL_ALLTOALL] = (const void *)(uintptr_t)b->alltoall,
		[CS_COLL_ALLTOALLV] = (const void *)(uintptr_t)b->alltoallv,
		[CS_COLL_BROADCAST] = (const void *)(uintptr_t)b->broadcast,
		[CS_COLL_REDUCE] = (const void *)(uintptr_t)b->reduce,
		[CS_COLL_GATHER] = (const void *)(uintptr_t)b->gather,
		[CS_COLL_SCATTER] = (const void *)(uintptr_t)b->scatter,
		[CS_COLL_SENDRECV] = (const void *)(uintptr_t)b->sendrecv,
	};

	return (unsigned)c < CS_NUM_COLLS && fn[c] != NULL;
}

/* The query's count (backend.h): the call's count; for alltoallv the
 * largest count of one pair in the case's matrix at nranks (the case's
 * count is only the matrix's scale). SIZE_MAX when the matrix cannot be
 * made (out of memory): a backend's limit is then refused, not passed. */
static size_t query_count(const cs_hcase_t *hc, int nranks)
{
	size_t P = (size_t)nranks, i, most = 0, *m;

	if (hc->c.coll != CS_COLL_ALLTOALLV)
		return hc->c.count;
	if (P == 0 || P > ((size_t)-1 / sizeof *m) / P ||
	    !(m = malloc(P * P * sizeof *m)))
		return (size_t)-1;
	cs_a2av_matrix(hc->a2av_pattern, nranks, hc->c.count, hc->c.seed, m);
	for (i = 0; i < P * P; i++)
		if (m[i] > most)
			most = m[i];
	free(m);
	return most;
}

int cs_backend_takes(const cs_backend_t *b, cs_bcomm_t comm,
		     const cs_hcase_t *hc, int nranks, char *reason, size_t n)
{
	cs_backend_query_t q;

	if (!implements(b, hc->c.coll)) {
		snprintf(reason, n, "backend '%s' does not implement %s", b->name,
			 cs_coll_name(hc->c.coll));
		return 1;
	}
	if (!b->supports)
		return 0;
	memset(&q, 0, sizeof q);
	q.struct_size = sizeof q;
	q.coll = hc->c.coll;
	q.dtype = hc->c.dtype;
	q.op = hc->c.op;
	q.count = query_count(hc, nranks);
	q.nranks = nranks;
	q.root = cs_coll_rooted(hc->c.coll) ? hc->c.root % nranks : 0;
	q.inplace = hc->inplace;
	reason[0] = '\0';
	if (b->supports(comm, &q, reason, n))
		return 0;
	if (!reason[0])
		snprintf(reason, n, "backend '%s' does not support this case",
			 b->name);
	return 1;
}
