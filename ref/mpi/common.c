/* common.c - argument checks, MPI errors and tuning of the MPI reference. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include "internal.h"

static size_t chunk_bytes = CS_MPIREF_CHUNK_DEFAULT;
static size_t piece_bytes = CS_MPIREF_PIECE_MAX;

cs_status_t cs_mpiref_set_tuning(size_t chunk, size_t piece)
{
	if (piece > CS_MPIREF_PIECE_MAX)
		return cs_error(CS_ERR_INVALID, "mpiref: piece size %zu bytes is "
				"above the maximum %zu", piece,
				CS_MPIREF_PIECE_MAX);
	chunk_bytes = chunk ? chunk : CS_MPIREF_CHUNK_DEFAULT;
	piece_bytes = piece ? piece : CS_MPIREF_PIECE_MAX;
	return CS_OK;
}

size_t cs_mr_chunk_elems(size_t esize)
{
	return chunk_bytes >= esize ? chunk_bytes / esize : 1;
}

size_t cs_mr_piece_bytes(void)
{
	return piece_bytes;
}

cs_status_t cs_mr_mpi_error(cs_status_t st, int rc, const char *fmt, ...)
{
	char call[256], text[MPI_MAX_ERROR_STRING];
	int len = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(call, sizeof call, fmt, ap);
	va_end(ap);
	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof text, "(no text from MPI_Error_string)");
	return cs_error(st, "mpiref: %s failed: %s (MPI error %d)", call, text,
			rc);
}

cs_status_t cs_mr_comm(const char *fn, MPI_Comm comm, int *rank, int *size)
{
	int inter = 0, rc;

	if (comm == MPI_COMM_NULL)
		return cs_error(CS_ERR_INVALID, "%s: communicator is MPI_COMM_NULL",
				fn);
	if ((rc = MPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS)
		return cs_mr_mpi_error(CS_ERR_INVALID, rc, "%s: "
				       "MPI_Comm_test_inter", fn);
	if (inter)
		return cs_error(CS_ERR_INVALID, "%s: intercommunicators are not "
				"supported", fn);
	if ((rc = MPI_Comm_rank(comm, rank)) != MPI_SUCCESS ||
	    (rc = MPI_Comm_size(comm, size)) != MPI_SUCCESS)
		return cs_mr_mpi_error(CS_ERR_INVALID, rc, "%s: querying the "
				       "communicator", fn);
	return CS_OK;
}

cs_status_t cs_mr_check_dtype(const char *fn, cs_dtype_t d)
{
	if ((unsigned)d >= CS_NUM_DTYPES)
		return cs_error(CS_ERR_INVALID, "%s: dtype %d is not in the catalog",
				fn, (int)d);
	return CS_OK;
}

cs_status_t cs_mr_check_op(const char *fn, cs_op_t op)
{
	if ((unsigned)op >= CS_NUM_OPS)
		return cs_error(CS_ERR_INVALID, "%s: op %d is not a reduction op "
				"(sum prod max min avg premulsum)", fn, (int)op);
	return CS_OK;
}

cs_status_t cs_mr_check_root(const char *fn, int root, int size)
{
	if (root < 0 || root >= size)
		return cs_error(CS_ERR_INVALID, "%s: root %d out of range for %d "
				"ranks", fn, root, size);
	return CS_OK;
}

cs_status_t cs_mr_bytes(const char *fn, size_t count, size_t factor,
			cs_dtype_t d, size_t *bytes)
{
	size_t es = cs_dtype_size(d);

	if (factor && count > SIZE_MAX / factor / es)
		return cs_error(CS_ERR_OVERFLOW, "%s: %zu x %zu elements of %zu "
				"bytes overflow a buffer size", fn, count,
				factor, es);
	*bytes = count * factor * es;
	return CS_OK;
}

cs_status_t cs_mr_check_buf(const char *fn, const char *what,
			    const void *buf, size_t bytes)
{
	if (!buf && bytes > 0)
		return cs_error(CS_ERR_INVALID, "%s: %s is NULL but holds %zu "
				"bytes", fn, what, bytes);
	return CS_OK;
}

int cs_mr_overlap(const void *a, size_t an, const void *b, size_t bn)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	if (an == 0 || bn == 0)
		return 0;
	return x < y + bn && y < x + an;
}
