/*
 * reducescatter.c - reduce-scatter: rank q owns block q (elements
 * q*recvcount .. (q+1)*recvcount of the inputs) and folds the P
 * contributions to it in rank order (fold.c). No further step: each block
 * has exactly one receiver, its owner.
 */
#include <stdlib.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_reducescatter";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t recvcount, cs_dtype_t d, cs_op_t op,
			      MPI_Comm comm, int *me, int *P)
{
	size_t rbytes, sbytes;
	cs_status_t st;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_op(fn, op)) != CS_OK ||
	    (st = cs_mr_bytes(fn, recvcount, (size_t)*P, d, &sbytes)) != CS_OK)
		return st;
	rbytes = recvcount * cs_dtype_size(d);
	if ((st = cs_mr_check_buf(fn, "sendbuf", sendbuf, sbytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "recvbuf", recvbuf, rbytes)) != CS_OK)
		return st;
	if (recvbuf != cs_mr_at(sendbuf, (size_t)*me * recvcount,
				cs_dtype_size(d)) &&
	    cs_mr_overlap(sendbuf, sbytes, recvbuf, rbytes))
		return cs_error(CS_ERR_INVALID, "%s: recvbuf overlaps sendbuf "
				"but is not its block %d (in place needs "
				"recvbuf == sendbuf + rank*recvcount)", fn, *me);
	return CS_OK;
}

cs_status_t cs_mpiref_reducescatter(const void *sendbuf, void *recvbuf,
				    size_t recvcount, cs_dtype_t d, cs_op_t op,
				    uint64_t scalar, MPI_Comm comm)
{
	cs_status_t st;
	size_t *lo;
	int me, P, q;

	st = check_args(sendbuf, recvbuf, recvcount, d, op, comm, &me, &P);
	if (st != CS_OK || recvcount == 0)
		return st;
	lo = malloc(2 * (size_t)P * sizeof *lo);
	if (!lo)
		return cs_error(CS_ERR_NOMEM, "%s: no memory for %d blocks", fn, P);
	for (q = 0; q < P; q++) {
		lo[q] = (size_t)q * recvcount;
		lo[P + q] = recvcount;
	}
	st = cs_mr_fold_blocks(sendbuf, recvbuf, lo, lo + P, d, op, scalar,
			       comm);
	free(lo);
	return st;
}
