/*
 * broadcast.c - broadcast: the root sends its input to every other rank;
 * the root's own copy is a local copy (none in place).
 */
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_broadcast";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t count, cs_dtype_t d, int root,
			      MPI_Comm comm, int *me, int *P)
{
	cs_status_t st;
	size_t bytes;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_root(fn, root, *P)) != CS_OK ||
	    (st = cs_mr_bytes(fn, count, 1, d, &bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "recvbuf", recvbuf, bytes)) != CS_OK)
		return st;
	if (*me != root)
		return CS_OK; /* sendbuf is not significant here */
	if ((st = cs_mr_check_buf(fn, "sendbuf", sendbuf, bytes)) != CS_OK)
		return st;
	if (sendbuf != recvbuf && cs_mr_overlap(sendbuf, bytes, recvbuf, bytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf and recvbuf overlap "
				"at the root but are not equal (in place needs "
				"sendbuf == recvbuf)", fn);
	return CS_OK;
}

cs_status_t cs_mpiref_broadcast(const void *sendbuf, void *recvbuf,
				size_t count, cs_dtype_t d, int root,
				MPI_Comm comm)
{
	size_t bytes = count * cs_dtype_size(d);
	cs_status_t st;
	cs_p2p_t b;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, count, d, root, comm, &me, &P);
	if (st != CS_OK || count == 0)
		return st;
	if (me != root)
		return cs_p2p_recv(comm, recvbuf, bytes, root, CS_TAG_BROADCAST);
	if (recvbuf != sendbuf)
		memcpy(recvbuf, sendbuf, bytes);
	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++)
		if (q != root)
			cs_p2p_isend(&b, sendbuf, bytes, q, CS_TAG_BROADCAST);
	return cs_p2p_wait(&b);
}
