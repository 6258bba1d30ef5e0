/*
 * backend_mpi_api.c - one collective call of the `mpi` backend in the api
 * --backend-opt api= names (backend_mpi_impl.h, cs_mpib_call):
 *   blocking     MPI_<Coll>;
 *   nonblocking  MPI_I<coll>, then MPI_Wait;
 *   persistent   MPI_<Coll>_init (MPIX_<Coll>_init in Open MPI 4), then
 *                MPI_Start and MPI_Wait twice on the same request, then
 *                MPI_Request_free. Before the second start the bytes the
 *                call writes at this rank (the receive range, which holds
 *                the input when in place) are put back as they were before
 *                the first, so the second start computes from what the
 *                first did, and what the harness checks is the second's
 *                result: a second start that did nothing leaves the
 *                first's input or the untouched receive range, not a
 *                result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "backends/mpi/backend_mpi_impl.h"

/* The MPI name of c's blocking form, after "MPI_" (or "MPI_I"). */
static const char *coll_name(enum cs_mpib_kind k)
{
	static const char *const names[] = {
		[CS_MPIB_ALLREDUCE] = "Allreduce",
		[CS_MPIB_REDUCE_SCATTER_BLOCK] = "Reduce_scatter_block",
		[CS_MPIB_REDUCE] = "Reduce", [CS_MPIB_ALLGATHER] = "Allgather",
		[CS_MPIB_ALLTOALL] = "Alltoall", [CS_MPIB_ALLTOALLV] = "Alltoallv",
		[CS_MPIB_BCAST] = "Bcast", [CS_MPIB_GATHER] = "Gather",
		[CS_MPIB_SCATTER] = "Scatter",
	};
	return names[k];
}

static int blocking(const struct cs_mpib_call *c)
{
	switch (c->kind) {
	case CS_MPIB_ALLREDUCE:
		return MPI_Allreduce(c->s, c->r, c->rn, c->rt, c->op, c->comm);
	case CS_MPIB_REDUCE_SCATTER_BLOCK:
		return MPI_Reduce_scatter_block(c->s, c->r, c->rn, c->rt, c->op,
						c->comm);
	case CS_MPIB_REDUCE:
		return MPI_Reduce(c->s, c->r, c->rn, c->rt, c->op, c->root,
				  c->comm);
	case CS_MPIB_ALLGATHER:
		return MPI_Allgather(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				     c->comm);
	case CS_MPIB_ALLTOALL:
		return MPI_Alltoall(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				    c->comm);
	case CS_MPIB_ALLTOALLV:
		return MPI_Alltoallv(c->s, c->sc, c->sd, c->st, c->r, c->rc,
				     c->rd, c->rt, c->comm);
	case CS_MPIB_BCAST:
		return MPI_Bcast(c->r, c->rn, c->rt, c->root, c->comm);
	case CS_MPIB_GATHER:
		return MPI_Gather(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				  c->root, c->comm);
	case CS_MPIB_SCATTER:
		return MPI_Scatter(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				   c->root, c->comm);
	}
	return MPI_ERR_OTHER;
}

static int nonblocking(const struct cs_mpib_call *c, MPI_Request *q)
{
	switch (c->kind) {
	case CS_MPIB_ALLREDUCE:
		return MPI_Iallreduce(c->s, c->r, c->rn, c->rt, c->op, c->comm,
				      q);
	case CS_MPIB_REDUCE_SCATTER_BLOCK:
		return MPI_Ireduce_scatter_block(c->s, c->r, c->rn, c->rt,
						 c->op, c->comm, q);
	case CS_MPIB_REDUCE:
		return MPI_Ireduce(c->s, c->r, c->rn, c->rt, c->op, c->root,
				   c->comm, q);
	case CS_MPIB_ALLGATHER:
		return MPI_Iallgather(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				      c->comm, q);
	case CS_MPIB_ALLTOALL:
		return MPI_Ialltoall(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				     c->comm, q);
	case CS_MPIB_ALLTOALLV:
		return MPI_Ialltoallv(c->s, c->sc, c->sd, c->st, c->r, c->rc,
				      c->rd, c->rt, c->comm, q);
	case CS_MPIB_BCAST:
		return MPI_Ibcast(c->r, c->rn, c->rt, c->root, c->comm, q);
	case CS_MPIB_GATHER:
		return MPI_Igather(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				   c->root, c->comm, q);
	case CS_MPIB_SCATTER:
		return MPI_Iscatter(c->s, c->sn, c->st, c->r, c->rn, c->rt,
				    c->root, c->comm, q);
	}
	return MPI_ERR_OTHER;
}

static int persistent_init(const struct cs_mpib_call *c, MPI_Request *q)
{
	MPI_Info i = MPI_INFO_NULL;

	switch (c->kind) {
	case CS_MPIB_ALLREDUCE:
		return CS_MPIB_PINIT(Allreduce)(c->s, c->r, c->rn, c->rt, c->op,
						c->comm, i, q);
	case CS_MPIB_REDUCE_SCATTER_BLOCK:
		return CS_MPIB_PINIT(Reduce_scatter_block)(c->s, c->r, c->rn,
							   c->rt, c->op,
							   c->comm, i, q);
	case CS_MPIB_REDUCE:
		return CS_MPIB_PINIT(Reduce)(c->s, c->r, c->rn, c->rt, c->op,
					     c->root, c->comm, i, q);
	case CS_MPIB_ALLGATHER:
		return CS_MPIB_PINIT(Allgather)(c->s, c->sn, c->st, c->r, c->rn,
						c->rt, c->comm, i, q);
	case CS_MPIB_ALLTOALL:
		return CS_MPIB_PINIT(Alltoall)(c->s, c->sn, c->st, c->r, c->rn,
					       c->rt, c->comm, i, q);
	case CS_MPIB_ALLTOALLV:
		return CS_MPIB_PINIT(Alltoallv)(c->s, c->sc, c->sd, c->st, c->r,
						c->rc, c->rd, c->rt, c->comm, i,
						q);
	case CS_MPIB_BCAST:
		return CS_MPIB_PINIT(Bcast)(c->r, c->rn, c->rt, c->root,
					    c->comm, i, q);
	case CS_MPIB_GATHER:
		return CS_MPIB_PINIT(Gather)(c->s, c->sn, c->st, c->r, c->rn,
					     c->rt, c->root, c->comm, i, q);
	case CS_MPIB_SCATTER:
		return CS_MPIB_PINIT(Scatter)(c->s, c->sn, c->st, c->r, c->rn,
					      c->rt, c->root, c->comm, i, q);
	}
	return MPI_ERR_OTHER;
}

/* MPI_Start then MPI_Wait on q, the start's ordinal in which ("first",
 * "second") for the message; 0 or the MPI error code. */
static int start_wait(MPI_Request *q, const char *init, const char *which)
{
	char what[192]; /* "MPI_Wait (...)" and an init call's name */
	int rc;

	snprintf(what, sizeof what, "MPI_Start (the %s start of %s's "
		 "request)", which, init);
	rc = cs_mpib_check(MPI_Start(q), what);
	if (rc)
		return rc;
	snprintf(what, sizeof what, "MPI_Wait (the %s start of %s's "
		 "request)", which, init);
	return cs_mpib_check(MPI_Wait(q, MPI_STATUS_IGNORE), what);
}

static int persistent(const struct cs_mpib_call *c)
{
	MPI_Request q = MPI_REQUEST_NULL;
	char init[64];
	void *before = NULL;
	int rc;

	snprintf(init, sizeof init, CS_MPIB_PINIT_PREFIX "%s_init",
		 coll_name(c->kind));
	if (c->region_bytes && !(before = malloc(c->region_bytes)))
		return cs_mpib_fail(MPI_ERR_NO_MEM, "mpi backend: out of "
				    "memory for a persistent call");
	if (before)
		memcpy(before, c->region, c->region_bytes);
	rc = cs_mpib_check(persistent_init(c, &q), init);
	if (!rc)
		rc = start_wait(&q, init, "first");
	if (!rc && before) /* the second start sees what the first saw */
		memcpy(c->region, before, c->region_bytes);
	if (!rc)
		rc = start_wait(&q, init, "second");
	if (q != MPI_REQUEST_NULL)
		MPI_Request_free(&q);
	free(before);
	return rc;
}

int cs_mpib_call(const struct cs_mpib_call *c)
{
	MPI_Request q = MPI_REQUEST_NULL;
	char name[64];
	int rc;

	switch (cs_mpib_api()) {
	case CS_MPIB_NONBLOCKING:
		snprintf(name, sizeof name, "MPI_I%c%s",
			 coll_name(c->kind)[0] - 'A' + 'a',
			 coll_name(c->kind) + 1);
		rc = cs_mpib_check(nonblocking(c, &q), name);
		if (rc)
			return rc;
		snprintf(name + strlen(name), sizeof name - strlen(name),
			 "'s MPI_Wait");
		return cs_mpib_check(MPI_Wait(&q, MPI_STATUS_IGNORE), name);
	case CS_MPIB_PERSISTENT:
		return persistent(c);
	case CS_MPIB_BLOCKING:
		break;
	}
	snprintf(name, sizeof name, "MPI_%s", coll_name(c->kind));
	return cs_mpib_check(blocking(c), name);
}
