/*
 * oracle.c - expected output of any rank, computed without communication
 * from the generators (spec/collectives.md gives each formula).
 */
#include <stdlib.h>
#include "csref/oracle.h"
#include "csref/gen.h"
#include "csref/arith.h"

/* Per-call context: the case and, for alltoallv, every rank's layout. */
struct octx {
	const cs_case_t *c;
	int rank;
	uint64_t (*canary)(size_t);
	size_t *sdispl;      /* P*P: sdispl[q*P + d], sender q's block for d */
	size_t *rcount, *rdispl; /* P: this rank's receive layout */
};

/* Golden value of a reducing collective at input index i. */
static void expect_reduced(const struct octx *o, size_t i, uint64_t *xs,
			   uint64_t *alpha, cs_golden_t *g)
{
	const cs_case_t *c = o->c;

	cs_gen_column(c, i, xs, c->op == CS_OP_PREMULSUM ? alpha : NULL);
	cs_golden_reduce(c->dtype, c->op, c->nranks, xs, alpha,
			 c->mode == CS_MODE_EXACT, g);
}

/* alltoallv: element j of this rank's receive buffer. */
static void expect_a2av(const struct octx *o, size_t j, cs_golden_t *g)
{
	const cs_case_t *c = o->c;
	size_t P = (size_t)c->nranks, q;

	for (q = 0; q < P; q++) {
		size_t start = o->rdispl[q];
		if (j >= start && j < start + o->rcount[q]) {
			size_t src = o->sdispl[q * P + (size_t)o->rank] + (j - start);
			cs_golden_moved(c->dtype, cs_gen_input(c, (int)q, src), g);
			return;
		}
	}
	cs_golden_moved(c->dtype, o->canary ? o->canary(j) & cs_bits_mask(c->dtype) : 0, g);
	g->flags |= CS_G_UNTOUCHED;
}

/* Which rank's which input lands at element j of a data-movement output. */
static void source_of(const cs_case_t *c, int rank, size_t j, int *q, size_t *i)
{
	size_t n = c->count ? c->count : 1;
	int P = c->nranks;

	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		*q = (int)(j / n);
		*i = j % n;
		break;
	case CS_COLL_ALLTOALL:
		*q = (int)(j / n);
		*i = (size_t)rank * n + j % n;
		break;
	case CS_COLL_SCATTER:
		*q = c->root;
		*i = (size_t)rank * n + j;
		break;
	case CS_COLL_BROADCAST:
		*q = c->root;
		*i = j;
		break;
	case CS_COLL_SENDRECV:
		*q = (rank + P - 1) % P;
		*i = j;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_REDUCE:
	case CS_COLL_ALLTOALLV:
	case CS_NUM_COLLS:
		/* not moved element by element (expect_one handles these):
		 * the rank's own element */
		*q = rank;
		*i = j;
		break;
	}
}

static void expect_one(const struct octx *o, size_t j, uint64_t *xs,
		       uint64_t *alpha, cs_golden_t *g)
{
	const cs_case_t *c = o->c;
	size_t i;
	int q;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		expect_reduced(o, j, xs, alpha, g);
		return;
	case CS_COLL_REDUCESCATTER:
		expect_reduced(o, (size_t)o->rank * c->count + j, xs, alpha, g);
		return;
	case CS_COLL_ALLTOALLV:
		expect_a2av(o, j, g);
		return;
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_BROADCAST:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective: cases are validated first */
		source_of(c, o->rank, j, &q, &i);
		cs_golden_moved(c->dtype, cs_gen_input(c, q, i), g);
	}
}

/* Build the alltoallv layouts the oracle needs. */
static cs_status_t a2av_prepare(struct octx *o)
{
	size_t P = (size_t)o->c->nranks, q;
	size_t *tmp = malloc(sizeof(size_t) * P * 2);

	o->sdispl = malloc(sizeof(size_t) * P * P);
	o->rcount = malloc(sizeof(size_t) * P);
	o->rdispl = malloc(sizeof(size_t) * P);
	if (!tmp || !o->sdispl || !o->rcount || !o->rdispl) {
		free(tmp);
		return cs_error(CS_ERR_NOMEM, "oracle: no memory for %zu ranks", P);
	}
	for (q = 0; q < P; q++)
		cs_a2av_layout(o->c, (int)q, tmp, o->sdispl + q * P, tmp + P,
			       tmp + P);
	cs_a2av_layout(o->c, o->rank, tmp, tmp + P, o->rcount, o->rdispl);
	free(tmp);
	return CS_OK;
}

static cs_status_t fill_range(const struct octx *o, size_t lo, size_t n,
			      cs_golden_t *out)
{
	size_t P = (size_t)o->c->nranks;
	int failed = 0;

#pragma omp parallel if (n > 4096) reduction(| : failed)
	{
		uint64_t *xs = malloc(sizeof(uint64_t) * P * 2);
		long long k;

		if (!xs)
			failed = 1;
#pragma omp for schedule(static)
		for (k = 0; k < (long long)n; k++)
			if (xs)
				expect_one(o, lo + (size_t)k, xs, xs + P, &out[k]);
		free(xs);
	}
	return failed ? cs_error(CS_ERR_NOMEM, "oracle: out of memory") : CS_OK;
}

cs_status_t cs_oracle_expect(const cs_case_t *c, int rank, size_t lo,
			     size_t n, uint64_t (*canary)(size_t index),
			     cs_golden_t *out)
{
	struct octx o = {c, rank, canary, NULL, NULL, NULL};
	cs_status_t st;

	if (rank < 0 || rank >= c->nranks)
		return cs_error(CS_ERR_INVALID, "oracle: rank %d out of range for %d ranks",
				rank, c->nranks);
	if (lo > cs_case_recv_count(c, rank) || n > cs_case_recv_count(c, rank) - lo)
		return cs_error(CS_ERR_INVALID, "oracle: elements [%zu, %zu) beyond "
				"rank %d's %zu", lo, lo + n, rank,
				cs_case_recv_count(c, rank));
	if (c->coll == CS_COLL_ALLTOALLV && (st = a2av_prepare(&o)) != CS_OK)
		goto out_free_layout;
	st = fill_range(&o, lo, n, out);
out_free_layout:
	free(o.sdispl);
	free(o.rcount);
	free(o.rdispl);
	return st;
}
