/*
 * mpiref.h - the MPI reference: every collective of the catalog, written
 * with MPI point-to-point messages only (MPI_Isend/MPI_Irecv/MPI_Waitall,
 * MPI_BYTE) and the reduction arithmetic of csref/reduce.h. No MPI
 * collective and no MPI reduction is used, so the reference does not trust
 * the library it may be compared with.
 *
 * Shapes follow NCCL (csref/case.h, spec/collectives.md). Counts are in
 * elements of dtype d and may exceed INT_MAX; messages above INT_MAX bytes
 * are split into pieces. P is the size of comm, r the caller's rank in it.
 *
 * Common contract of every function below:
 *  - it is collective over comm: every rank calls it with the same count,
 *    dtype, op and root (alltoallv: matching per-pair counts);
 *  - it returns CS_OK, or a negative cs_status_t with a message for
 *    cs_last_error(). Argument errors are found before any message is sent;
 *    a call that fails on some ranks only leaves the others waiting, as an
 *    erroneous MPI program would;
 *  - comm's error handler is left as it is. With MPI_ERRORS_RETURN, a
 *    failed MPI call gives an error (CS_ERR_IO for a message) whose text
 *    names the call and quotes the library's MPI_Error_string; with MPI's
 *    default, MPI_ERRORS_ARE_FATAL, MPI aborts the job inside the call;
 *  - count 0 is legal and touches no buffer (the pointers may be NULL);
 *  - nothing is written outside the receive range, and an out-of-place send
 *    buffer is never modified; buffers only need element alignment;
 *  - a send and a receive range that overlap, other than in the in-place
 *    pattern the function names, are rejected with CS_ERR_INVALID;
 *  - reductions combine the ranks' contributions in rank order, as the left
 *    fold prep(x_0) STEP prep(x_1) STEP ... STEP prep(x_{P-1}) followed by
 *    cs_op_finish (csref/reduce.h), one rank computing each element; every
 *    rank that receives a reduced element receives the same bits;
 *  - messages use tags CS_MPIREF_TAG_FIRST..CS_MPIREF_TAG_LAST of comm: the
 *    caller must have no message with those tags pending on comm;
 *  - data travels as MPI_BYTE: all ranks must share one byte order.
 * `scalar` is the calling rank's PREMULSUM scalar (bits of d); it is ignored
 * for the other ops.
 */
#ifndef CSREF_MPIREF_H
#define CSREF_MPIREF_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "csref/catalog.h"
#include "csref/status.h"

#define CS_MPIREF_TAG_FIRST 0x4301
#define CS_MPIREF_TAG_LAST 0x430f

#ifdef __cplusplus
extern "C" {
#endif

/*
 * allreduce: every rank's recvbuf[0..count) receives the reduction of all
 * ranks' sendbuf[0..count). In place when sendbuf == recvbuf.
 */
cs_status_t cs_mpiref_allreduce(const void *sendbuf, void *recvbuf,
				size_t count, cs_dtype_t d, cs_op_t op,
				uint64_t scalar, MPI_Comm comm);

/*
 * allgather: recvbuf[q*sendcount .. (q+1)*sendcount) of every rank receives
 * rank q's sendbuf[0..sendcount). In place when
 * sendbuf == recvbuf + r*sendcount elements.
 */
cs_status_t cs_mpiref_allgather(const void *sendbuf, void *recvbuf,
				size_t sendcount, cs_dtype_t d, MPI_Comm comm);

/*
 * reducescatter: rank r's recvbuf[0..recvcount) receives block r (elements
 * r*recvcount .. (r+1)*recvcount) of the reduction of all ranks'
 * sendbuf[0..P*recvcount). In place when
 * recvbuf == sendbuf + r*recvcount elements.
 */
cs_status_t cs_mpiref_reducescatter(const void *sendbuf, void *recvbuf,
				    size_t recvcount, cs_dtype_t d, cs_op_t op,
				    uint64_t scalar, MPI_Comm comm);

/*
 * alltoall: block q of rank r's sendbuf (count elements per peer) becomes
 * block r of rank q's recvbuf; both buffers hold P*count elements. In place
 * when sendbuf == recvbuf: each block is sent before it is overwritten.
 */
cs_status_t cs_mpiref_alltoall(const void *sendbuf, void *recvbuf,
			       size_t count, cs_dtype_t d, MPI_Comm comm);

/*
 * alltoallv: rank r sends sendcounts[q] elements starting at element
 * sdispls[q] of sendbuf to rank q, and receives recvcounts[q] elements from
 * rank q at element rdispls[q] of recvbuf (arrays of P entries; rank q's
 * sendcounts[r] must equal rank r's recvcounts[q]). Only the receive blocks
 * are written, never the gaps between them; receive blocks must not
 * overlap each other (send blocks may). In place when sendbuf == recvbuf:
 * the result is as if all send blocks were read before any receive block
 * was written (the send blocks are copied aside first, which needs
 * sum(sendcounts) elements of temporary memory).
 */
cs_status_t cs_mpiref_alltoallv(const void *sendbuf, const size_t *sendcounts,
				const size_t *sdispls, void *recvbuf,
				const size_t *recvcounts, const size_t *rdispls,
				cs_dtype_t d, MPI_Comm comm);

/*
 * broadcast: every rank's recvbuf[0..count) receives the root's
 * sendbuf[0..count). sendbuf is read at the root only (may be NULL
 * elsewhere). In place when sendbuf == recvbuf at the root.
 */
cs_status_t cs_mpiref_broadcast(const void *sendbuf, void *recvbuf,
				size_t count, cs_dtype_t d, int root,
				MPI_Comm comm);

/*
 * reduce: the root's recvbuf[0..count) receives the reduction of all ranks'
 * sendbuf[0..count). recvbuf is significant at the root only: elsewhere it
 * is neither read nor written (may be NULL). In place when
 * sendbuf == recvbuf at the root.
 */
cs_status_t cs_mpiref_reduce(const void *sendbuf, void *recvbuf, size_t count,
			     cs_dtype_t d, cs_op_t op, uint64_t scalar,
			     int root, MPI_Comm comm);

/*
 * gather: the root's recvbuf[q*sendcount .. (q+1)*sendcount) receives rank
 * q's sendbuf[0..sendcount). recvbuf is significant at the root only
 * (neither read nor written elsewhere; may be NULL). In place at the root
 * when sendbuf == recvbuf (the root's input, at the start of recvbuf, is
 * first moved to block root) or when sendbuf == recvbuf + root*sendcount
 * elements (the input already sits in its block, as with MPI_IN_PLACE).
 */
cs_status_t cs_mpiref_gather(const void *sendbuf, void *recvbuf,
			     size_t sendcount, cs_dtype_t d, int root,
			     MPI_Comm comm);

/*
 * scatter: rank r's recvbuf[0..recvcount) receives block r (elements
 * r*recvcount .. (r+1)*recvcount) of the root's sendbuf[0..P*recvcount).
 * sendbuf is read at the root only (may be NULL elsewhere). In place at
 * the root when sendbuf == recvbuf (block root is copied to the start of
 * the buffer after every other block has been sent; the rest of the buffer
 * is left as it was) or when recvbuf == sendbuf + root*recvcount elements
 * (nothing to copy, as with MPI_IN_PLACE).
 */
cs_status_t cs_mpiref_scatter(const void *sendbuf, void *recvbuf,
			      size_t recvcount, cs_dtype_t d, int root,
			      MPI_Comm comm);

/*
 * sendrecv: rank r sends sendbuf[0..count) to rank (r+1) mod P and
 * receives rank (r-1) mod P's into recvbuf[0..count) (P == 1: a copy). In
 * place when sendbuf == recvbuf.
 */
cs_status_t cs_mpiref_sendrecv(const void *sendbuf, void *recvbuf,
			       size_t count, cs_dtype_t d, MPI_Comm comm);

/*
 * Tuning, for tests that want to exercise the pipelines on small counts.
 * chunk_bytes: the pipeline unit of reductions and of in-place copies
 * (default 1 MiB; at least one element is used). piece_bytes: the largest
 * single MPI message (default and maximum 1 GiB). 0 restores the default.
 * Every rank must use the same values; not thread-safe: set them between
 * calls. Returns CS_ERR_INVALID for a piece size above 1 GiB.
 */
#define CS_MPIREF_CHUNK_DEFAULT ((size_t)1 << 20)
#define CS_MPIREF_PIECE_MAX ((size_t)1 << 30)
cs_status_t cs_mpiref_set_tuning(size_t chunk_bytes, size_t piece_bytes);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_MPIREF_H */
