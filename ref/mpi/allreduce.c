/*
 * allreduce.c - allreduce as a reduce-scatter over even blocks followed by
 * an allgather of the reduced blocks.
 *
 *   step 1: split the count elements into P blocks as evenly as possible
 *           (the first count % P blocks one element longer); rank q owns
 *           block q and folds it, in rank order, into its recvbuf (fold.c)
 *   step 2: every owner sends its reduced block to every other rank
 *
 * Each element is reduced once, by its owner, and every other rank gets a
 * copy of the owner's bits: the result is bitwise identical on all ranks.
 */
#include <stdlib.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_allreduce";

/* Block q is [lo[q], lo[q] + n[q]). */
static void split_even(size_t count, int P, size_t *lo, size_t *n)
{
	size_t base = count / (size_t)P, extra = count % (size_t)P, at = 0;
	int q;

	for (q = 0; q < P; q++) {
		n[q] = base + ((size_t)q < extra);
		lo[q] = at;
		at += n[q];
	}
}

/* step 2: send our block to every rank, receive every other block. */
static cs_status_t share_blocks(void *recvbuf, const size_t *lo,
				const size_t *n, size_t es, int me, int P,
				MPI_Comm comm)
{
	cs_p2p_t b;
	int q;

	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++) {
		if (q == me)
			continue;
		cs_p2p_irecv(&b, cs_mr_at(recvbuf, lo[q], es), n[q] * es, q,
			     CS_TAG_ALLREDUCE);
		cs_p2p_isend(&b, cs_mr_at(recvbuf, lo[me], es), n[me] * es, q,
			     CS_TAG_ALLREDUCE);
	}
	return cs_p2p_wait(&b);
}

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t count, cs_dtype_t d, cs_op_t op,
			      MPI_Comm comm, int *me, int *P)
{
	cs_status_t st;
	size_t bytes;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_check_op(fn, op)) != CS_OK ||
	    (st = cs_mr_bytes(fn, count, 1, d, &bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "sendbuf", sendbuf, bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "recvbuf", recvbuf, bytes)) != CS_OK)
		return st;
	if (sendbuf != recvbuf && cs_mr_overlap(sendbuf, bytes, recvbuf, bytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf and recvbuf overlap "
				"but are not equal (in place needs sendbuf == "
				"recvbuf)", fn);
	return CS_OK;
}

cs_status_t cs_mpiref_allreduce(const void *sendbuf, void *recvbuf,
				size_t count, cs_dtype_t d, cs_op_t op,
				uint64_t scalar, MPI_Comm comm)
{
	size_t es = cs_dtype_size(d), *lo;
	cs_status_t st;
	int me, P;

	st = check_args(sendbuf, recvbuf, count, d, op, comm, &me, &P);
	if (st != CS_OK || count == 0)
		return st;
	lo = malloc(2 * (size_t)P * sizeof *lo);
	if (!lo)
		return cs_error(CS_ERR_NOMEM, "%s: no memory for %d blocks", fn, P);
	/* step 1: reduce-scatter; our block lands at its place in recvbuf */
	split_even(count, P, lo, lo + P);
	st = cs_mr_fold_blocks(sendbuf, cs_mr_at(recvbuf, lo[me], es), lo,
			       lo + P, d, op, scalar, comm);
	/* step 2: allgather of the reduced blocks */
	if (st == CS_OK)
		st = share_blocks(recvbuf, lo, lo + P, es, me, P, comm);
	free(lo);
	return st;
}
