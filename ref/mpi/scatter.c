/*
 * scatter.c - scatter: the root sends block q of its input to rank q and
 * copies block root to its own recvbuf.
 *
 * In place at the root comes in two forms. recvbuf == sendbuf + root*count
 * (MPI_IN_PLACE's layout): block root is already where it belongs.
 * recvbuf == sendbuf: block root must land on block 0, which rank 0 still
 * needs, so the copy waits until every block has been sent.
 */
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_scatter";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t recvcount, cs_dtype_t d, int root,
			      MPI_Comm comm, int *me, int *P)
{
	size_t sbytes, rbytes;
	cs_status_t st;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_root(fn, root, *P)) != CS_OK ||
	    (st = cs_mr_bytes(fn, recvcount, (size_t)*P, d, &sbytes)) != CS_OK)
		return st;
	rbytes = recvcount * cs_dtype_size(d);
	if ((st = cs_mr_check_buf(fn, "recvbuf", recvbuf, rbytes)) != CS_OK)
		return st;
	if (*me != root)
		return CS_OK; /* sendbuf is not significant here */
	if ((st = cs_mr_check_buf(fn, "sendbuf", sendbuf, sbytes)) != CS_OK)
		return st;
	if (recvbuf != sendbuf &&
	    recvbuf != cs_mr_at(sendbuf, (size_t)root, rbytes) &&
	    cs_mr_overlap(sendbuf, sbytes, recvbuf, rbytes))
		return cs_error(CS_ERR_INVALID, "%s: recvbuf overlaps sendbuf at "
				"the root but is neither sendbuf nor its block "
				"%d", fn, root);
	return CS_OK;
}

cs_status_t cs_mpiref_scatter(const void *sendbuf, void *recvbuf,
			      size_t recvcount, cs_dtype_t d, int root,
			      MPI_Comm comm)
{
	size_t bytes = recvcount * cs_dtype_size(d);
	const unsigned char *mine;
	cs_status_t st;
	cs_p2p_t b;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, recvcount, d, root, comm, &me, &P);
	if (st != CS_OK || recvcount == 0)
		return st;
	if (me != root)
		return cs_p2p_recv(comm, recvbuf, bytes, root, CS_TAG_SCATTER);
	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++)
		if (q != root)
			cs_p2p_isend(&b, cs_mr_at(sendbuf, (size_t)q, bytes),
				     bytes, q, CS_TAG_SCATTER);
	st = cs_p2p_wait(&b);
	/* only now may block 0 be overwritten (in place, recvbuf == sendbuf) */
	mine = cs_mr_at(sendbuf, (size_t)root, bytes);
	if (st == CS_OK && (const void *)mine != recvbuf)
		memcpy(recvbuf, mine, bytes);
	return st;
}
