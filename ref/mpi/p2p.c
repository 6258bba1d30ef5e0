/*
 * p2p.c - byte messages of any size over MPI point-to-point.
 *
 * MPI counts are int, so a message above INT_MAX bytes cannot be one MPI
 * call. Every message here is cut into pieces of at most piece_bytes
 * (1 GiB by default) and each piece is one MPI_Isend or MPI_Irecv of
 * MPI_BYTE with the message's tag. Both ends cut the same byte count the
 * same way, and MPI delivers messages between two ranks with one tag in
 * the order they were posted, so piece k always lands in piece k.
 */
#include <stdlib.h>
#include "internal.h"

void cs_p2p_begin(cs_p2p_t *b, MPI_Comm comm)
{
	b->comm = comm;
	b->req = NULL;
	b->want = NULL;
	b->stat = NULL;
	b->n = 0;
	b->cap = 0;
	b->st = CS_OK;
}

/* Room for one more request; records CS_ERR_NOMEM on failure. */
static int grow(cs_p2p_t *b)
{
	size_t cap = b->cap ? 2 * b->cap : 8;
	MPI_Request *req;
	MPI_Status *stat;
	int *want;

	if (b->n < b->cap)
		return 1;
	req = realloc(b->req, cap * sizeof *req);
	if (req)
		b->req = req;
	want = realloc(b->want, cap * sizeof *want);
	if (want)
		b->want = want;
	stat = realloc(b->stat, cap * sizeof *stat);
	if (stat)
		b->stat = stat;
	if (!req || !want || !stat) {
		b->st = cs_error(CS_ERR_NOMEM, "mpiref: no memory for %zu "
				 "message requests", cap);
		return 0;
	}
	b->cap = cap;
	return 1;
}

/* Post one message as pieces; `recv` selects MPI_Irecv. */
static void post(cs_p2p_t *b, void *buf, size_t bytes, int peer, int tag,
		 int recv)
{
	size_t piece = cs_mr_piece_bytes(), off;

	for (off = 0; off < bytes && b->st == CS_OK; off += piece) {
		int len = (int)(bytes - off < piece ? bytes - off : piece);
		unsigned char *p = (unsigned char *)buf + off;
		int rc;

		if (!grow(b))
			return;
		if (recv)
			rc = MPI_Irecv(p, len, MPI_BYTE, peer, tag, b->comm,
				       &b->req[b->n]);
		else
			rc = MPI_Isend(p, len, MPI_BYTE, peer, tag, b->comm,
				       &b->req[b->n]);
		if (rc != MPI_SUCCESS) {
			b->st = cs_mr_mpi_error(CS_ERR_IO, rc, "MPI_%s of %d "
						"bytes with rank %d",
						recv ? "Irecv" : "Isend", len,
						peer);
			return;
		}
		b->want[b->n++] = recv ? len : -1;
	}
}

void cs_p2p_isend(cs_p2p_t *b, const void *buf, size_t bytes, int peer,
		  int tag)
{
	/* MPI_Isend takes a const buffer; post() is shared with receives. */
	post(b, (void *)(uintptr_t)buf, bytes, peer, tag, 0);
}

void cs_p2p_irecv(cs_p2p_t *b, void *buf, size_t bytes, int peer, int tag)
{
	post(b, buf, bytes, peer, tag, 1);
}

/* First receive whose byte count differs from what it expected. */
static cs_status_t check_sizes(const cs_p2p_t *b)
{
	const MPI_Status *stat = b->stat;
	size_t i;

	for (i = 0; i < b->n; i++) {
		int got;

		if (b->want[i] < 0)
			continue;
		MPI_Get_count(&stat[i], MPI_BYTE, &got);
		if (got != b->want[i])
			return cs_error(CS_ERR_INVALID, "mpiref: rank %d sent a "
					"piece of %d bytes where %d were expected "
					"(counts differ between ranks)",
					stat[i].MPI_SOURCE, got, b->want[i]);
	}
	return CS_OK;
}

/* The error of a failed MPI_Waitall: the first failed request's own
 * error when MPI says the statuses hold them (MPI_ERR_IN_STATUS). */
static cs_status_t waitall_error(const cs_p2p_t *b, int rc)
{
	const MPI_Status *stat = b->stat;
	int cls = MPI_ERR_OTHER;
	size_t i;

	MPI_Error_class(rc, &cls);
	for (i = 0; cls == MPI_ERR_IN_STATUS && i < b->n; i++) {
		int e = stat[i].MPI_ERROR;

		if (e == MPI_SUCCESS || e == MPI_ERR_PENDING)
			continue;
		if (b->want[i] < 0)
			return cs_mr_mpi_error(CS_ERR_IO, e, "MPI_Waitall (a "
					       "send)");
		return cs_mr_mpi_error(CS_ERR_IO, e, "MPI_Waitall (a receive "
				       "of %d bytes from rank %d)", b->want[i],
				       stat[i].MPI_SOURCE);
	}
	return cs_mr_mpi_error(CS_ERR_IO, rc, "MPI_Waitall of %zu requests",
			       b->n);
}

/*
 * MPI_Waitall whose errors come back as its return value. An error of a
 * communication belongs to its communicator's handler, MPI_ERRORS_RETURN
 * on ours, but MPICH 4.0 raises MPI_Wait's and MPI_Waitall's errors on
 * MPI_COMM_WORLD's handler, which aborts by default
 * (docs/findings/mpich-4.0-wait-errhandler.md). So MPI_COMM_WORLD returns
 * errors for the duration of the call and then gets its handler back
 * (the reference makes no MPI call from other threads meanwhile).
 */
static int waitall_returning(cs_p2p_t *b)
{
	MPI_Errhandler old;
	int rc;

	if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &old) != MPI_SUCCESS)
		return MPI_Waitall((int)b->n, b->req, b->stat);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Waitall((int)b->n, b->req, b->stat);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, old);
	MPI_Errhandler_free(&old);
	return rc;
}

cs_status_t cs_p2p_wait(cs_p2p_t *b)
{
	cs_status_t st = b->st;
	int rc;

	if (b->n > 0) {
		rc = waitall_returning(b);
		/* after a failed post, its message is the one kept */
		if (st == CS_OK && rc != MPI_SUCCESS)
			st = waitall_error(b, rc);
		else if (st == CS_OK)
			st = check_sizes(b);
	}
	free(b->req);
	free(b->want);
	free(b->stat);
	cs_p2p_begin(b, b->comm);
	return st;
}

cs_status_t cs_p2p_send(MPI_Comm comm, const void *buf, size_t bytes,
			int peer, int tag)
{
	cs_p2p_t b;

	cs_p2p_begin(&b, comm);
	cs_p2p_isend(&b, buf, bytes, peer, tag);
	return cs_p2p_wait(&b);
}

cs_status_t cs_p2p_recv(MPI_Comm comm, void *buf, size_t bytes, int peer,
			int tag)
{
	cs_p2p_t b;

	cs_p2p_begin(&b, comm);
	cs_p2p_irecv(&b, buf, bytes, peer, tag);
	return cs_p2p_wait(&b);
}

cs_status_t cs_p2p_sendrecv(MPI_Comm comm, const void *sbuf, size_t sbytes,
			    int dst, void *rbuf, size_t rbytes, int src,
			    int tag)
{
	cs_p2p_t b;

	cs_p2p_begin(&b, comm);
	cs_p2p_irecv(&b, rbuf, rbytes, src, tag);
	cs_p2p_isend(&b, sbuf, sbytes, dst, tag);
	return cs_p2p_wait(&b);
}
