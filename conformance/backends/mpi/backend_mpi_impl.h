/*
 * backend_mpi_impl.h - private to the `mpi` backend (backend_mpi.c: the
 * table and communicators; backend_mpi_types.c: types, ops and errors;
 * backend_mpi_coll.c: the collectives). Callers use cs_backend_mpi()
 * (backend_mpi.h).
 */
#ifndef CS_BACKEND_MPI_IMPL_H
#define CS_BACKEND_MPI_IMPL_H

#include <stddef.h>
#include <mpi.h>
#include "collspec/backend.h"

#define MPIB_TAG 0x4353

/* The backend's communicator behind a cs_bcomm_t. */
struct mpib_comm {
	MPI_Comm comm;
	int rank, size;
};

/* Create the user types and ops (once per process: counted) and set
 * each dtype's MPI type from the backend options ("" or ctypes=0|1|2);
 * 0 or an MPI error code. */
int cs_mpib_setup(const char *options);
/* Free what cs_mpib_setup created (the ABI's finalize); 0. */
int cs_mpib_teardown(void);
/* error_string's text for status err: the recorded message of the last
 * failure when err is its code, else MPI_Error_string's. */
const char *cs_mpib_error_text(int err);
/* Record msg for error_string and return code (an MPI error code). */
int cs_mpib_fail(int code, const char *msg);
/* rc, the status of MPI call `call`, unchanged; when it is an error, the
 * message for error_string names the call and gives the MPI library's own
 * text for rc (MPI_Error_string), on one line. */
int cs_mpib_check(int rc, const char *call);
/* The MPI type dtype d travels as in this run (set by init: native,
 * C-named with ctypes=N, or the user byte type). */
MPI_Datatype cs_mpib_type(cs_dtype_t d);
/* The MPI op of one reduction step of op on dtype d (a user op for the
 * dtypes MPI lacks); MPI_OP_NULL for CS_OP_NONE. */
MPI_Op cs_mpib_op(cs_dtype_t d, cs_op_t op);

/* The collectives (backend_mpi_coll.c), as the plugin ABI's fields of the
 * same names (collspec/backend.h) state them: 0 or an MPI error code, with
 * the failed call named for error_string. */
int cs_mpib_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t c,
		      void *stream);
int cs_mpib_reducescatter(const void *s, void *r, size_t count,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t c, void *stream);
int cs_mpib_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		   void *stream);
int cs_mpib_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_bcomm_t c, void *stream);
int cs_mpib_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream);
int cs_mpib_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		      void *r, const size_t *rc, const size_t *rd,
		      cs_dtype_t d, cs_bcomm_t c, void *stream);
int cs_mpib_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t c, void *stream);
int cs_mpib_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t c, void *stream);
int cs_mpib_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		    int root, cs_bcomm_t c, void *stream);
int cs_mpib_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream);

#endif /* CS_BACKEND_MPI_IMPL_H */
