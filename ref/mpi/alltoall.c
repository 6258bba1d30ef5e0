/*
 * alltoall.c - alltoall as P pairwise exchanges.
 *
 *   step k = 0 .. P-1: exchange with peer p = (k - r) mod P. The pairing is
 *   symmetric (p's peer at step k is r), so every step is a set of disjoint
 *   pairs: we send our block p to p and receive p's block r into our block
 *   p, chunk by chunk. The self step (p == r) is a local copy.
 *
 * Block p is both the only block we send to p and the only block p's data
 * lands in, so in place (sendbuf == recvbuf) each outgoing chunk only has
 * to be copied aside just before the incoming chunk overwrites it.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_alltoall";

/* Send sblk to peer and receive peer's block into rblk (bytes each), one
 * exchange per chunk; tmp != NULL (in place) keeps each outgoing chunk. */
static cs_status_t exchange_block(const unsigned char *sblk,
				  unsigned char *rblk, size_t bytes,
				  size_t chunk, unsigned char *tmp, int peer,
				  MPI_Comm comm)
{
	cs_status_t st = CS_OK;
	size_t off;

	for (off = 0; off < bytes && st == CS_OK; off += chunk) {
		size_t m = bytes - off < chunk ? bytes - off : chunk;
		const void *out = sblk + off;

		if (tmp) /* in place: keep the outgoing chunk */
			out = memcpy(tmp, out, m);
		st = cs_p2p_sendrecv(comm, out, m, peer, rblk + off, m, peer,
				     CS_TAG_ALLTOALL);
	}
	return st;
}

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t count, cs_dtype_t d, MPI_Comm comm,
			      int *me, int *P)
{
	cs_status_t st;
	size_t bytes;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
	    (st = cs_mr_bytes(fn, count, (size_t)*P, d, &bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "sendbuf", sendbuf, bytes)) != CS_OK ||
	    (st = cs_mr_check_buf(fn, "recvbuf", recvbuf, bytes)) != CS_OK)
		return st;
	if (sendbuf != recvbuf && cs_mr_overlap(sendbuf, bytes, recvbuf, bytes))
		return cs_error(CS_ERR_INVALID, "%s: sendbuf and recvbuf overlap "
				"but are not equal (in place needs sendbuf == "
				"recvbuf)", fn);
	return CS_OK;
}

cs_status_t cs_mpiref_alltoall(const void *sendbuf, void *recvbuf,
			       size_t count, cs_dtype_t d, MPI_Comm comm)
{
	size_t es = cs_dtype_size(d), bytes = count * es;
	size_t chunk = cs_mr_chunk_elems(es) * es;
	unsigned char *tmp = NULL;
	cs_status_t st;
	int me, P, k;

	st = check_args(sendbuf, recvbuf, count, d, comm, &me, &P);
	if (st != CS_OK || count == 0)
		return st;
	if (sendbuf == recvbuf && P > 1 &&
	    !(tmp = malloc(bytes < chunk ? bytes : chunk)))
		return cs_error(CS_ERR_NOMEM, "%s: no memory for a chunk", fn);
	for (k = 0; k < P && st == CS_OK; k++) {
		int p = ((k - me) % P + P) % P;
		const unsigned char *sblk = cs_mr_at(sendbuf, (size_t)p, bytes);
		unsigned char *rblk = cs_mr_at(recvbuf, (size_t)p, bytes);

		if (p != me)
			st = exchange_block(sblk, rblk, bytes, chunk, tmp, p, comm);
		else if (sblk != rblk)
			memcpy(rblk, sblk, bytes);
	}
	free(tmp);
	return st;
}
