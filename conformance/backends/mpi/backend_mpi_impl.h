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
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* the MPIX_ persistent collectives (pcollreq) */
#endif
#include "collspec/backend.h"

/* The persistent collectives: MPI 4's MPI_<Coll>_init, else Open MPI's
 * MPIX_<Coll>_init (its pcollreq extension), else none: a stub that
 * fails (the backend's supports() skips such cases first). */
#if MPI_VERSION >= 4
#define CS_MPIB_PINIT(x) MPI_##x##_init
#define CS_MPIB_PINIT_PREFIX "MPI_"
#define CS_MPIB_HAVE_PERSISTENT 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define CS_MPIB_PINIT(x) MPIX_##x##_init
#define CS_MPIB_PINIT_PREFIX "MPIX_"
#define CS_MPIB_HAVE_PERSISTENT 1
#else
static inline int cs_mpib_no_persistent(const void *first, ...)
{
	(void)first;
	return MPI_ERR_OTHER;
}
#define CS_MPIB_PINIT(x) cs_mpib_no_persistent
#define CS_MPIB_PINIT_PREFIX "MPI_"
#define CS_MPIB_HAVE_PERSISTENT 0
#endif

#define MPIB_TAG 0x4353

/* The backend's communicator behind a cs_bcomm_t. */
struct mpib_comm {
	MPI_Comm comm;
	int rank, size;
};

/* How the collectives are called (--backend-opt api=). */
enum cs_mpib_api {
	CS_MPIB_BLOCKING = 0, /* MPI_<Coll> */
	CS_MPIB_NONBLOCKING,  /* MPI_I<coll>, then MPI_Wait */
	CS_MPIB_PERSISTENT    /* MPI_<Coll>_init, then start and wait twice */
};

/* The backend options, as parsed. */
struct cs_mpib_opts {
	int ctypes;           /* 0, 1 or 2 */
	enum cs_mpib_api api;
};

/* Parse the option string s ("" or a comma list of ctypes=0|1|2 and
 * api=blocking|nonblocking|persistent, each at most once) into *o; 0, or
 * -1 with a message naming the bad item and the valid ones in err (n
 * bytes). No MPI call. */
int cs_mpib_parse_opts(const char *s, struct cs_mpib_opts *o, char *err,
		       size_t n);
/* The api in use (set by init), its name, and the setter init uses. */
enum cs_mpib_api cs_mpib_api(void);
const char *cs_mpib_api_name(enum cs_mpib_api api);
void cs_mpib_set_api(enum cs_mpib_api api);

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

/* One collective call, whatever the api (backend_mpi_api.c): the
 * arguments of MPI's blocking form (those a collective lacks unused), and
 * the bytes the call writes at this rank (an in-place input too), which a
 * persistent call's second start finds again as the first found them. */
enum cs_mpib_kind {
	CS_MPIB_ALLREDUCE, CS_MPIB_REDUCE_SCATTER_BLOCK, CS_MPIB_REDUCE,
	CS_MPIB_ALLGATHER, CS_MPIB_ALLTOALL, CS_MPIB_ALLTOALLV, CS_MPIB_BCAST,
	CS_MPIB_GATHER, CS_MPIB_SCATTER
};
struct cs_mpib_call {
	enum cs_mpib_kind kind;
	const void *s;
	int sn;
	MPI_Datatype st;
	void *r;
	int rn;
	MPI_Datatype rt;
	MPI_Op op;
	int root;
	const int *sc, *sd, *rc, *rd; /* alltoallv */
	MPI_Comm comm;
	void *region;
	size_t region_bytes;
};
/* Make call c as the api in use says (cs_mpib_api): 0 or an MPI error
 * code, with the failed call named for error_string. */
int cs_mpib_call(const struct cs_mpib_call *c);

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
