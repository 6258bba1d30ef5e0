/*
 * internal.h - what the files of the MPI reference share: the byte
 * transport (p2p.c), argument checks and tuning (common.c), and the
 * block-owner fold that every reducing collective is built on (fold.c).
 * Not installed; nothing here is part of the public API.
 */
#ifndef CSREF_MPI_INTERNAL_H
#define CSREF_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "csref/mpiref.h"

/* One tag per kind of message, so that two kinds never match each other. */
enum {
	CS_TAG_SCALAR = CS_MPIREF_TAG_FIRST, /* PREMULSUM scalars */
	CS_TAG_FOLD,        /* contributions sent to a block owner */
	CS_TAG_ALLREDUCE,   /* reduced blocks sent to every rank */
	CS_TAG_ALLGATHER,
	CS_TAG_ALLTOALL,
	CS_TAG_ALLTOALLV,
	CS_TAG_BROADCAST,
	CS_TAG_GATHER,
	CS_TAG_SCATTER,
	CS_TAG_SENDRECV,
};

/* ---- p2p.c: byte messages of any size ------------------------------------ */

/*
 * A batch of nonblocking messages on one communicator. A message of any
 * byte count is posted as consecutive pieces of at most piece_bytes (one
 * MPI request each, same tag); the receiver posts the same byte count, so
 * the pieces match in order. A 0-byte message posts nothing. Posting never
 * fails loudly: the first failure is kept in `st` and later posts are
 * skipped; cs_p2p_wait reports it.
 */
typedef struct cs_p2p {
	MPI_Comm comm;
	MPI_Request *req;
	int *want;     /* per request: bytes a receive expects, -1 for a send */
	MPI_Status *stat; /* per request: its status, filled by cs_p2p_wait */
	size_t n, cap;
	cs_status_t st;
} cs_p2p_t;

void cs_p2p_begin(cs_p2p_t *b, MPI_Comm comm);
void cs_p2p_isend(cs_p2p_t *b, const void *buf, size_t bytes, int peer,
		  int tag);
void cs_p2p_irecv(cs_p2p_t *b, void *buf, size_t bytes, int peer, int tag);
/* Wait for every posted piece, check that each receive got the byte count
 * it expected, and release the batch (it may then be begun again). */
cs_status_t cs_p2p_wait(cs_p2p_t *b);

/* Blocking forms, each one batch. */
cs_status_t cs_p2p_send(MPI_Comm comm, const void *buf, size_t bytes,
			int peer, int tag);
cs_status_t cs_p2p_recv(MPI_Comm comm, void *buf, size_t bytes, int peer,
			int tag);
cs_status_t cs_p2p_sendrecv(MPI_Comm comm, const void *sbuf, size_t sbytes,
			    int dst, void *rbuf, size_t rbytes, int src,
			    int tag);

/* ---- common.c: arguments and tuning -------------------------------------- */

/* The caller's rank and the size of comm; CS_ERR_INVALID for
 * MPI_COMM_NULL or an intercommunicator. `fn` names the caller in messages. */
cs_status_t cs_mr_comm(const char *fn, MPI_Comm comm, int *rank, int *size);

/*
 * st, with a message naming the MPI call that returned rc (fmt and its
 * arguments: the call and what it was doing) and giving the MPI library's
 * own text for rc (MPI_Error_string). An MPI call returns an error only
 * when the communicator's error handler is MPI_ERRORS_RETURN: under the
 * default, MPI_ERRORS_ARE_FATAL, the job aborts inside the call.
 */
cs_status_t cs_mr_mpi_error(cs_status_t st, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* CS_ERR_INVALID unless d (and op, for cs_mr_check_op) is in the catalog. */
cs_status_t cs_mr_check_dtype(const char *fn, cs_dtype_t d);
cs_status_t cs_mr_check_op(const char *fn, cs_op_t op);
cs_status_t cs_mr_check_root(const char *fn, int root, int size);

/* *bytes = count * factor * size of d, or CS_ERR_OVERFLOW. */
cs_status_t cs_mr_bytes(const char *fn, size_t count, size_t factor,
			cs_dtype_t d, size_t *bytes);

/* CS_ERR_INVALID when buf is NULL but bytes > 0. */
cs_status_t cs_mr_check_buf(const char *fn, const char *what,
			    const void *buf, size_t bytes);

/* 1 when byte ranges [a, a+an) and [b, b+bn) share a byte. */
int cs_mr_overlap(const void *a, size_t an, const void *b, size_t bn);

/* Pipeline unit in elements of a dtype of esize bytes (at least 1), and the
 * largest single message in bytes. */
size_t cs_mr_chunk_elems(size_t esize);
size_t cs_mr_piece_bytes(void);

/* p + i elements of esize bytes, as a byte pointer. */
static inline unsigned char *cs_mr_at(const void *p, size_t i, size_t esize)
{
	return (unsigned char *)p + i * esize;
}

/* ---- fold.c: the block-owner reduction ----------------------------------- */

/*
 * Every reducing collective is one call of this. Element range
 * [lo[q], lo[q] + n[q]) of the inputs (block q) is owned by rank q: every
 * rank sends its sendbuf elements of block q to q, and q folds the P
 * contributions in rank order and writes the finished result to
 * dst[0..n[q]). lo and n hold P entries and are the same on every rank.
 * dst may equal sendbuf + lo[r] (in place); it is unused when n[r] == 0.
 * On return every message of the call is complete.
 */
cs_status_t cs_mr_fold_blocks(const void *sendbuf, void *dst,
			      const size_t *lo, const size_t *n, cs_dtype_t d,
			      cs_op_t op, uint64_t scalar, MPI_Comm comm);

#endif /* CSREF_MPI_INTERNAL_H */
