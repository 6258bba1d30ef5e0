/*
 * backend_mpi.c - the `mpi` backend: the MPI library's own collectives
 * (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Bcast, MPI_Reduce, MPI_Gather, MPI_Scatter,
 * MPI_Sendrecv) behind the plugin ABI's struct.
 *
 * Native MPI datatypes and ops are used where MPI has them; float16,
 * bfloat16 and the fp8 types are contiguous byte types reduced by
 * user-defined ops, bit-commutative (mpi_userops.h). AVG and PREMULSUM are
 * emulated the way NCCL computes them: PREMULSUM and float AVG
 * pre-multiply a copy of the input (cs_op_prepare) and sum; integer AVG
 * sums and then divides (cs_op_finish). In-place calls use MPI_IN_PLACE.
 * Counts above INT_MAX need MPI-4 large-count calls, which an MPI-3
 * library lacks: such cases are skipped with that reason.
 *
 * Datatypes: by default each dtype travels as the catalog's mpi column
 * says (spec/cs_catalog.h: MPI_INT8_T ... MPI_UINT64_T, MPI_FLOAT,
 * MPI_DOUBLE). `--backend-opt ctypes=N` (N = 1 or 2) uses instead the
 * C-named predefined type of the same size and kind, so that an MPI's
 * handling of MPI_INT, MPI_UNSIGNED_LONG, ... is tested too: the N-th of
 * signed char, short, int, long, long long (unsigned likewise; float,
 * double) whose size is the dtype's, or the last such where there are
 * fewer. On LP64, ctypes=1 gives MPI_SIGNED_CHAR, MPI_INT, MPI_LONG (and
 * the unsigned ones), ctypes=2 MPI_LONG_LONG for the 64-bit dtypes.
 *
 * Calls: `--backend-opt api=blocking|nonblocking|persistent` (with
 * ctypes=, comma separated) makes each collective MPI_<Coll>, MPI_I<coll>
 * and a wait, or a persistent request started twice
 * (backend_mpi_api.c); sendrecv is skipped under the last two.
 *
 * Errors: the backend's communicators return MPI errors
 * (MPI_ERRORS_RETURN); every function returns the ABI's status (0, or an
 * MPI error code) and error_string names the failed MPI call and quotes
 * MPI_Error_string.
 *
 * This file holds the backend's table and communicators; its types, ops
 * and errors are in backend_mpi_types.c, the collectives in
 * backend_mpi_coll.c, and backend_mpi_impl.h is what they share.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/mpi/backend_mpi_impl.h"
#include "backends/mpi/backend_mpi.h"

#define MC(c) ((struct mpib_comm *)(c))

/* ---- communicators --------------------------------------------------------- */

static int wrap(MPI_Comm comm, cs_bcomm_t *out)
{
	struct mpib_comm *c = malloc(sizeof *c);

	if (!c) {
		MPI_Comm_free(&comm);
		return cs_mpib_fail(MPI_ERR_NO_MEM, "mpi backend: out of "
				    "memory");
	}
	c->comm = comm;
	MPI_Comm_rank(comm, &c->rank);
	MPI_Comm_size(comm, &c->size);
	*out = c;
	return 0;
}

/* MPI errors on the backend's communicators come back as return codes
 * (reported as `error` with the library's message), not as an abort. */
static int errors_return(MPI_Comm comm)
{
	int rc = cs_mpib_check(MPI_Comm_set_errhandler(comm,
							MPI_ERRORS_RETURN),
			       "MPI_Comm_set_errhandler");

	if (rc)
		MPI_Comm_free(&comm);
	return rc;
}

static int mpib_init(const cs_bootstrap_t *world, const char *options,
		     cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc;

	if (!world->mpi_comm)
		return cs_mpib_fail(MPI_ERR_COMM, "the mpi backend needs an "
				    "MPI bootstrap channel");
	if ((rc = cs_mpib_setup(options)) != MPI_SUCCESS)
		return rc;
	rc = cs_mpib_check(MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm,
					 &comm), "MPI_Comm_dup");
	if (rc || (rc = errors_return(comm)))
		return rc;
	return wrap(comm, out);
}

static int mpib_split(cs_bcomm_t c, int color, int key,
		      const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc = cs_mpib_check(MPI_Comm_split(MC(c)->comm, color, key, &comm),
			       "MPI_Comm_split");

	if (rc || (rc = errors_return(comm)))
		return rc;
	return wrap(comm, out);
}

static int mpib_free(cs_bcomm_t c)
{
	MPI_Comm_free(&MC(c)->comm);
	free(c);
	return 0;
}

static int mpib_supports(cs_bcomm_t c, const cs_backend_query_t *q,
			 char *reason, size_t len)
{
	size_t most = q->count;

	if (cs_mpib_api() != CS_MPIB_BLOCKING && q->coll == CS_COLL_SENDRECV) {
		snprintf(reason, len, "sendrecv is point to point: api=%s "
			 "applies to the collectives",
			 cs_mpib_api_name(cs_mpib_api()));
		return 0;
	}
	if (cs_mpib_api() == CS_MPIB_PERSISTENT && !CS_MPIB_HAVE_PERSISTENT) {
		snprintf(reason, len, "api=persistent: this MPI (version %d.%d) "
			 "has neither MPI-4's MPI_<Coll>_init nor Open MPI's "
			 "MPIX_<Coll>_init", MPI_VERSION, MPI_SUBVERSION);
		return 0;
	}
	if (q->coll == CS_COLL_ALLTOALLV) /* displacements span P blocks */
		most = q->count > (size_t)INT_MAX / 4 ? (size_t)INT_MAX + 1
						     : 4 * q->count * (size_t)q->nranks;
	if (most <= INT_MAX)
		return 1;
	snprintf(reason, len, "count above INT_MAX: this MPI (version %d.%d) "
		 "has no large-count (_c) calls", MPI_VERSION, MPI_SUBVERSION);
	return 0;
}

static int mpib_sync(cs_bcomm_t c, void *stream)
{
	return 0; /* blocking calls */
}

static const char *mpib_error_string(cs_bcomm_t c, int err)
{
	return cs_mpib_error_text(err);
}

static const cs_backend_t mpi_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "mpi",
	.description = "the MPI library's own collectives (user-defined "
		       "types and ops where MPI has none)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = mpib_init,
	.comm_split = mpib_split,
	.comm_free = mpib_free,
	.finalize = cs_mpib_teardown,
	.supports = mpib_supports,
	.allreduce = cs_mpib_allreduce,
	.allgather = cs_mpib_allgather,
	.reducescatter = cs_mpib_reducescatter,
	.alltoall = cs_mpib_alltoall,
	.alltoallv = cs_mpib_alltoallv,
	.broadcast = cs_mpib_broadcast,
	.reduce = cs_mpib_reduce,
	.gather = cs_mpib_gather,
	.scatter = cs_mpib_scatter,
	.sendrecv = cs_mpib_sendrecv,
	.synchronize = mpib_sync,
	.error_string = mpib_error_string,
};

const cs_backend_t *cs_backend_mpi(void)
{
	return &mpi_backend;
}
