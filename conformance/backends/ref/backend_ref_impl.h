/*
 * backend_ref_impl.h - private to the `ref` backend (backend_ref.c: the
 * table and communicators; backend_ref_coll.c: the collectives and their
 * errors).
 * Callers use cs_backend_ref() (backend_ref.h).
 */
#ifndef CS_BACKEND_REF_IMPL_H
#define CS_BACKEND_REF_IMPL_H

#include <stddef.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "csref/status.h"

/* A ref communicator: an MPI communicator of its own. */
struct ref_comm {
	MPI_Comm comm;
};

#define RC(c) (((struct ref_comm *)(c))->comm)

/* st as the backend's status; when it is an error, its message
 * (cs_last_error() now) is recorded for error_string. */
int cs_refb_status(cs_status_t st);

/* The member error_string: the recorded message, else err's text. */
const char *cs_refb_error_string(cs_bcomm_t c, int err);

/* The collectives, as the plugin ABI's members of the same names
 * (collspec/backend.h) state them. */
int cs_refb_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t c,
		      void *stream);
int cs_refb_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_bcomm_t c, void *stream);
int cs_refb_reducescatter(const void *s, void *r, size_t count,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t c, void *stream);
int cs_refb_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream);
int cs_refb_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		      void *r, const size_t *rc, const size_t *rd,
		      cs_dtype_t d, cs_bcomm_t c, void *stream);
int cs_refb_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t c, void *stream);
int cs_refb_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		   void *stream);
int cs_refb_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t c, void *stream);
int cs_refb_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		    int root, cs_bcomm_t c, void *stream);
int cs_refb_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream);

#endif /* CS_BACKEND_REF_IMPL_H */
