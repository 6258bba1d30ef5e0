/*
 * gather.c - gather: every rank sends its input to the root, which
 * receives rank q's input straight into block q of recvbuf.
 *
 * In place at the root comes in two forms. sendbuf == recvbuf + root*count
 * (MPI_IN_PLACE's layout): the root's input is already in its block.
 * sendbuf == recvbuf: the root's input sits in block 0, which rank 0's
 * input will overwrite, so it is moved to block root first.
 */
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_gather";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t sendcount, cs_dtype_t d, int root,
			      MPI_Comm comm, int *me, int *P)
{
	size_t sbytes, rbytes;
	cs_status_t st;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_root(fn, root, *P)) != CS_OK ||
	    (st = cs_mr_bytes(fn, sendcount, (size_t)*P, d, &rbytes)) != CS_OK)
		return st;
	sbytes = sendcount * cs_dtype_size(d);
	if ((st = cs_mr_check_buf(fn, "sendbuf", sendbuf, sbytes)) != CS_OK)
		return st;
	if (*me != root)
		return CS_OK; /* recvbuf is not significant here */
	if ((st = cs_mr_check_buf(fn, "recvbuf", recvbuf, rbytes)) != CS_OK)
		return st;
	if (sendbuf != recvbuf &&
	    sendbuf != cs_mr_at(recvbuf, (size_t)root, sbytes) &&
	    cs_mr_overlap(sendbuf, sbytes, recvbuf, rbytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf overlaps recvbuf at "
				"the root but is neither recvbuf nor its block "
				"%d", fn, root);
	return CS_OK;
}

cs_status_t cs_mpiref_gather(const void *sendbuf, void *recvbuf,
			     size_t sendcount, cs_dtype_t d, int root,
			     MPI_Comm comm)
{
	size_t bytes = sendcount * cs_dtype_size(d);
	unsigned char *mine;
	cs_status_t st;
	cs_p2p_t b;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, sendcount, d, root, comm, &me, &P);
	if (st != CS_OK || sendcount == 0)
		return st;
	if (me != root)
		return cs_p2p_send(comm, sendbuf, bytes, root, CS_TAG_GATHER);
	/* the root's own block first: block 0 may hold it (in place) */
	mine = cs_mr_at(recvbuf, (size_t)root, bytes);
	if (mine != sendbuf)
		memcpy(mine, sendbuf, bytes);
	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++)
		if (q != root)
			cs_p2p_irecv(&b, cs_mr_at(recvbuf, (size_t)q, bytes),
				     bytes, q, CS_TAG_GATHER);
	return cs_p2p_wait(&b);
}
