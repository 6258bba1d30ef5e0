/*
 * backend_ref.c - the `ref` backend: this project's MPI reference
 * (ref/mpi, csref/mpiref.h) behind the plugin ABI's struct.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends.h"
#include "csref/arith.h"
#include "csref/mpiref.h"

/* A ref communicator: an MPI communicator of its own. */
struct ref_comm {
	MPI_Comm comm;
};

#define RC(c) (((struct ref_comm *)(c))->comm)

/* The message of the last failure: cs_last_error() at the time. */
static char ref_err[1024];

static int ref_status(cs_status_t st)
{
	if (st != CS_OK)
		snprintf(ref_err, sizeof ref_err, "%s: %s", cs_status_string(st),
			 cs_last_error());
	return st;
}

static uint64_t scalar_bits(cs_dtype_t d, const void *scalar)
{
	return scalar ? cs_load(d, scalar, 0) : 0;
}

/*
 * Wrap comm, a communicator of the backend's own. MPI errors on it come
 * back as return codes (the reference turns them into a status whose
 * message quotes the MPI library), so that a failed call is reported as
 * `error` with that message, not as an abort of the job.
 */
static int ref_wrap(MPI_Comm comm, cs_bcomm_t *out)
{
	struct ref_comm *rc = malloc(sizeof *rc);
	int err;

	if (!rc) {
		MPI_Comm_free(&comm);
		return ref_status(cs_error(CS_ERR_NOMEM, "ref: out of memory"));
	}
	err = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	if (err != MPI_SUCCESS) {
		free(rc);
		MPI_Comm_free(&comm);
		return ref_status(cs_error(CS_ERR_INTERNAL, "ref: "
					   "MPI_Comm_set_errhandler failed "
					   "(MPI error %d)", err));
	}
	rc->comm = comm;
	*out = rc;
	return 0;
}

static int ref_init(const cs_bootstrap_t *world, const char *options,
		    cs_bcomm_t *out)
{
	MPI_Comm comm;

	if (!world->mpi_comm)
		return ref_status(cs_error(CS_ERR_UNSUPPORTED, "the ref backend "
					   "needs an MPI bootstrap channel"));
	if (MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm, &comm))
		return ref_status(cs_error(CS_ERR_INTERNAL, "MPI_Comm_dup failed"));
	return ref_wrap(comm, out);
}

static int ref_split(cs_bcomm_t c, int color, int key,
		     const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;

	if (MPI_Comm_split(RC(c), color, key, &comm))
		return ref_status(cs_error(CS_ERR_INTERNAL, "MPI_Comm_split failed"));
	return ref_wrap(comm, out);
}

static int ref_free(cs_bcomm_t c)
{
	MPI_Comm_free(&RC(c));
	free(c);
	return 0;
}

static int ref_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t c,
			 void *stream)
{
	return ref_status(cs_mpiref_allreduce(s, r, count, d, op,
					      scalar_bits(d, scalar), RC(c)));
}

static int ref_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_allgather(s, r, count, d, RC(c)));
}

static int ref_reducescatter(const void *s, void *r, size_t count,
			     cs_dtype_t d, cs_op_t op, const void *scalar,
			     cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_reducescatter(s, r, count, d, op,
						  scalar_bits(d, scalar), RC(c)));
}

static int ref_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_alltoall(s, r, count, d, RC(c)));
}

static int ref_alltoallv(const void *s, const size_t *sc, const size_t *sd,
			 void *r, const size_t *rc, const size_t *rd,
			 cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_alltoallv(s, sc, sd, r, rc, rd, d, RC(c)));
}

static int ref_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			 int root, cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_broadcast(s, r, count, d, root, RC(c)));
}

static int ref_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		      void *stream)
{
	return ref_status(cs_mpiref_reduce(s, r, count, d, op,
					   scalar_bits(d, scalar), root, RC(c)));
}

static int ref_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_gather(s, r, count, d, root, RC(c)));
}

static int ref_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		       int root, cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_scatter(s, r, count, d, root, RC(c)));
}

static int ref_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t c, void *stream)
{
	return ref_status(cs_mpiref_sendrecv(s, r, count, d, RC(c)));
}

static int ref_sync(cs_bcomm_t c, void *stream)
{
	return 0; /* every call is complete when it returns */
}

static const char *ref_error_string(cs_bcomm_t c, int err)
{
	return ref_err[0] ? ref_err : cs_status_string(err);
}

static const cs_backend_t ref_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "ref",
	.description = "this project's MPI reference (point-to-point only, "
		       "golden arithmetic)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = ref_init,
	.comm_split = ref_split,
	.comm_free = ref_free,
	.allreduce = ref_allreduce,
	.allgather = ref_allgather,
	.reducescatter = ref_reducescatter,
	.alltoall = ref_alltoall,
	.alltoallv = ref_alltoallv,
	.broadcast = ref_broadcast,
	.reduce = ref_reduce,
	.gather = ref_gather,
	.scatter = ref_scatter,
	.sendrecv = ref_sendrecv,
	.synchronize = ref_sync,
	.error_string = ref_error_string,
};

const cs_backend_t *cs_backend_ref(void)
{
	return &ref_backend;
}
