/*
 * allgather.c - allgather: every rank sends its input to every other rank
 * and receives every other rank's input straight into its block.
 *
 *   step 1: our own input goes to block r of recvbuf (nothing to do in
 *           place, where it is already there)
 *   step 2: send our input to every other rank, receive block q from q
 */
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_allgather";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t sendcount, cs_dtype_t d, MPI_Comm comm,
			      int *me, int *P)
{
	size_t sbytes, rbytes;
	cs_status_t st;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_bytes(fn, sendcount, (size_t)*P, d, &rbytes)) != CS_OK)
		return st;
	sbytes = sendcount * cs_dtype_size(d);
	if ((st = cs_mr_check_buf(fn, "sendbuf", sendbuf, sbytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "recvbuf", recvbuf, rbytes)) != CS_OK)
		return st;
	if (sendbuf != cs_mr_at(recvbuf, (size_t)*me * sendcount,
				cs_dtype_size(d)) &&
	    cs_mr_overlap(sendbuf, sbytes, recvbuf, rbytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf overlaps recvbuf but "
				"is not its block %d (in place needs sendbuf == "
				"recvbuf + rank*sendcount)", fn, *me);
	return CS_OK;
}

cs_status_t cs_mpiref_allgather(const void *sendbuf, void *recvbuf,
				size_t sendcount, cs_dtype_t d, MPI_Comm comm)
{
	size_t bytes = sendcount * cs_dtype_size(d);
	unsigned char *mine;
	cs_status_t st;
	cs_p2p_t b;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, sendcount, d, comm, &me, &P);
	if (st != CS_OK || sendcount == 0)
		return st;
	/* step 1: our own block */
	mine = cs_mr_at(recvbuf, (size_t)me, bytes);
	if (mine != sendbuf)
		memcpy(mine, sendbuf, bytes);
	/* step 2: everyone's block to everyone */
	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++) {
		if (q == me)
			continue;
		cs_p2p_irecv(&b, cs_mr_at(recvbuf, (size_t)q, bytes), bytes, q,
			     CS_TAG_ALLGATHER);
		cs_p2p_isend(&b, sendbuf, bytes, q, CS_TAG_ALLGATHER);
	}
	return cs_p2p_wait(&b);
}
