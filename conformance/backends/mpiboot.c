/*
 * mpiboot.c - the bootstrap channel over MPI (mpiboot.h): a duplicate of
 * the harness's communicator behind the plugin ABI's cs_bootstrap_t, so
 * that a backend exchanges its setup bytes (the nccl backend's unique id,
 * for one) without knowing MPI. Messages above INT_MAX bytes fail with
 * MPI_ERR_COUNT.
 */
#include <limits.h>
#include <stdlib.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/mpiboot.h"

struct cs_mpiboot {
	MPI_Comm comm;
	cs_bootstrap_t boot;
};

static int boot_allgather(void *ctx, const void *send, void *recv,
			  size_t bytes)
{
	struct cs_mpiboot *b = ctx;

	if (bytes > INT_MAX)
		return MPI_ERR_COUNT;
	return MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes,
			     MPI_BYTE, b->comm);
}

static int boot_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
	struct cs_mpiboot *b = ctx;

	if (bytes > INT_MAX)
		return MPI_ERR_COUNT;
	return MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, b->comm);
}

static int boot_barrier(void *ctx)
{
	struct cs_mpiboot *b = ctx;

	return MPI_Barrier(b->comm);
}

cs_status_t cs_boot_create(const void *mpi_comm, cs_mpiboot_t **out)
{
	struct cs_mpiboot *b = calloc(1, sizeof *b);

	if (!b)
		return cs_error(CS_ERR_NOMEM, "bootstrap: out of memory");
	if (MPI_Comm_dup(*(const MPI_Comm *)mpi_comm, &b->comm) != MPI_SUCCESS) {
		free(b);
		return cs_error(CS_ERR_INTERNAL, "bootstrap: MPI_Comm_dup failed");
	}
	b->boot.struct_size = sizeof b->boot;
	MPI_Comm_rank(b->comm, &b->boot.rank);
	MPI_Comm_size(b->comm, &b->boot.nranks);
	b->boot.ctx = b;
	b->boot.allgather = boot_allgather;
	b->boot.broadcast = boot_broadcast;
	b->boot.barrier = boot_barrier;
	b->boot.mpi_comm = &b->comm;
	*out = b;
	return CS_OK;
}

const cs_bootstrap_t *cs_boot_get(const cs_mpiboot_t *b)
{
	return &b->boot;
}

void cs_boot_free(cs_mpiboot_t *b)
{
	if (!b)
		return;
	MPI_Comm_free(&b->comm);
	free(b);
}
