/*
 * sendrecv.c - sendrecv on a ring: rank r sends its buffer to r+1 and
 * receives r-1's (mod P), chunk by chunk with one MPI exchange per chunk.
 * In place, each outgoing chunk is copied aside before the incoming chunk
 * overwrites it. The chunking is the same in place or not, so ranks that
 * differ in that still exchange matching messages.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_sendrecv";

static cs_status_t check_args(const void *sendbuf, void *recvbuf,
			      size_t count, cs_dtype_t d, MPI_Comm comm,
			      int *me, int *P)
{
	cs_status_t st;
	size_t bytes;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK ||
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

cs_status_t cs_mpiref_sendrecv(const void *sendbuf, void *recvbuf,
			       size_t count, cs_dtype_t d, MPI_Comm comm)
{
	size_t es = cs_dtype_size(d), chunk = cs_mr_chunk_elems(es), off;
	int inplace = sendbuf == recvbuf, me, P;
	unsigned char *tmp = NULL;
	cs_status_t st;

	st = check_args(sendbuf, recvbuf, count, d, comm, &me, &P);
	if (st != CS_OK || count == 0)
		return st;
	if (P == 1) { /* our own successor and predecessor */
		if (!inplace)
			memcpy(recvbuf, sendbuf, count * es);
		return CS_OK;
	}
	if (inplace && !(tmp = malloc((count < chunk ? count : chunk) * es)))
		return cs_error(CS_ERR_NOMEM, "%s: no memory for a chunk", fn);
	for (off = 0; off < count && st == CS_OK; off += chunk) {
		size_t m = count - off < chunk ? count - off : chunk;
		const void *out = cs_mr_at(sendbuf, off, es);

		if (inplace)
			out = memcpy(tmp, out, m * es);
		st = cs_p2p_sendrecv(comm, out, m * es, (me + 1) % P,
				     cs_mr_at(recvbuf, off, es), m * es,
				     (me + P - 1) % P, CS_TAG_SENDRECV);
	}
	free(tmp);
	return st;
}
