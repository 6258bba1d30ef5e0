/*
 * backend_ref.c - the `ref` backend: this project's MPI reference
 * (ref/mpi, csref/mpiref.h) behind the plugin ABI's struct: the table,
 * communicators; the collectives and the text of a failure are
 * backend_ref_coll.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/ref/backend_ref.h"
#include "backends/ref/backend_ref_impl.h"

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
		return cs_refb_status(cs_error(CS_ERR_NOMEM, "ref: out of memory"));
	}
	err = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	if (err != MPI_SUCCESS) {
		free(rc);
		MPI_Comm_free(&comm);
		return cs_refb_status(cs_error(CS_ERR_INTERNAL, "ref: "
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
		return cs_refb_status(cs_error(CS_ERR_UNSUPPORTED, "the ref backend "
					   "needs an MPI bootstrap channel"));
	if (MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm, &comm))
		return cs_refb_status(cs_error(CS_ERR_INTERNAL, "MPI_Comm_dup failed"));
	return ref_wrap(comm, out);
}

static int ref_split(cs_bcomm_t c, int color, int key,
		     const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;

	if (MPI_Comm_split(RC(c), color, key, &comm))
		return cs_refb_status(cs_error(CS_ERR_INTERNAL, "MPI_Comm_split failed"));
	return ref_wrap(comm, out);
}

static int ref_free(cs_bcomm_t c)
{
	MPI_Comm_free(&RC(c));
	free(c);
	return 0;
}

static int ref_sync(cs_bcomm_t c, void *stream)
{
	return 0; /* every call is complete when it returns */
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
	.allreduce = cs_refb_allreduce,
	.allgather = cs_refb_allgather,
	.reducescatter = cs_refb_reducescatter,
	.alltoall = cs_refb_alltoall,
	.alltoallv = cs_refb_alltoallv,
	.broadcast = cs_refb_broadcast,
	.reduce = cs_refb_reduce,
	.gather = cs_refb_gather,
	.scatter = cs_refb_scatter,
	.sendrecv = cs_refb_sendrecv,
	.synchronize = ref_sync,
	.error_string = cs_refb_error_string,
};

const cs_backend_t *cs_backend_ref(void)
{
	return &ref_backend;
}
