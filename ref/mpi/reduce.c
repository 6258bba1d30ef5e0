/*
 * reduce.c - reduce: the root owns the one block, the whole buffer, and
 * folds the P contributions chunk by chunk in rank order (fold.c); every
 * other rank only sends. Non-root receive buffers are never touched.
 */
#include <stdlib.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_reduce";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t count, cs_dtype_t d, cs_op_t op, int root,
			      MPI_Comm comm, int *me, int *P)
{
	cs_status_t st;
	size_t bytes;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_op(fn, op)) != CS_OK ||
	    (st = cs_mr_check_root(fn, root, *P)) != CS_OK ||
	    (st = cs_mr_bytes(fn, count, 1, d, &bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "sendbuf", sendbuf, bytes)) != CS_OK)
		return st;
	if (*me != root)
		return CS_OK; /* recvbuf is not significant here */
	if ((st = cs_mr_check_buf(fn, "recvbuf", recvbuf, bytes)) != CS_OK)
		return st;
	if (sendbuf != recvbuf && cs_mr_overlap(sendbuf, bytes, recvbuf, bytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf and recvbuf overlap "
				"at the root but are not equal (in place needs "
				"sendbuf == recvbuf)", fn);
	return CS_OK;
}

cs_status_t cs_mpiref_reduce(const void *sendbuf, void *recvbuf, size_t count,
			     cs_dtype_t d, cs_op_t op, uint64_t scalar,
			     int root, MPI_Comm comm)
{
	cs_status_t st;
	size_t *lo;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, count, d, op, root, comm, &me, &P);
	if (st != CS_OK || count == 0)
		return st;
	lo = malloc(2 * (size_t)P * sizeof *lo);
	if (!lo)
		return cs_error(CS_ERR_NOMEM, "%s: no memory for %d blocks", fn, P);
	/* block q is empty except the root's, which is everything */
	for (q = 0; q < P; q++) {
		lo[q] = 0;
		lo[P + q] = q == root ? count : 0;
	}
	st = cs_mr_fold_blocks(sendbuf, me == root ? recvbuf : NULL, lo, lo + P,
			       d, op, scalar, comm);
	free(lo);
	return st;
}
