/*
 * rgroup_mpi.c - the rank-per-process group (rgroup.h): this process is one
 * world rank under mpiexec, and the worker's exchanges between ranks (the
 * identity fingerprints and their key, the root's result for the shared
 * check, the per-case agreement and the merge of verdicts) are MPI
 * point-to-point messages on the harness's own communicators.
 *
 * Why not MPI's collectives: the MPI library is often the implementation
 * under test, and a user may force one of its collective algorithms (Open
 * MPI's coll_tuned_*_algorithm variables, MPICH's CVARs) to validate it. A
 * forced algorithm that fails or aborts must fail the backend's call (a
 * verdict "error" with the library's message), not the harness's own
 * bookkeeping. Point-to-point messages, with MPI_ERRORS_ARE_FATAL left as
 * is on the harness's communicators, are what every MPI gets right first;
 * a failure there is an environment error (the job ends), not a verdict.
 *
 * Broadcasts go down a binomial tree (log2 P rounds, so a root's result of
 * many bytes does not leave the root P - 1 times); gathers come up linearly
 * to the root (their messages are small: fingerprints, flags, verdicts).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include <omp.h>
#include "backends/registry.h"
#include "base/names.h"
#include "backends/mpiboot.h"
#include "worker/mpiwait.h"
#include "worker/rgroup.h"

/* The harness's side of each communicator variant. */
struct mpig {
	MPI_Comm comm[CS_RG_SLOTS];      /* MPI_COMM_NULL until split */
	cs_mpiboot_t *boot[CS_RG_SLOTS]; /* the backend's bootstrap */
};

#define HX_TAG 0x4358 /* "CX": no other traffic uses these communicators */

/* Contract in mpiwait.h. A wait that does not keep a core busy: the rank
 * waited for may be checking its share against the oracle on this core. */
void cs_mpi_wait(MPI_Request *r)
{
	int done = 0, spins = 0;
	useconds_t us = 10;

	for (;;) {
		MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		if (++spins < 64)
			continue;
		usleep(us);
		us = us < 250 ? 2 * us : 500;
	}
}

/* Send or receive n bytes in pieces that fit an int count. */
static void hx_send(const void *buf, size_t n, int to, MPI_Comm comm)
{
	const size_t piece = (size_t)1 << 30;
	size_t at = 0, m;

	do { /* one message at least, also for 0 bytes */
		m = n - at < piece ? n - at : piece;
		MPI_Request r;
		MPI_Isend((const unsigned char *)buf + at, (int)m, MPI_BYTE, to,
			  HX_TAG, comm, &r);
		cs_mpi_wait(&r);
		at += m;
	} while (at < n);
}

static void hx_recv(void *buf, size_t n, int from, MPI_Comm comm)
{
	const size_t piece = (size_t)1 << 30;
	size_t at = 0, m;

	do {
		m = n - at < piece ? n - at : piece;
		MPI_Request r;
		MPI_Irecv((unsigned char *)buf + at, (int)m, MPI_BYTE, from,
			  HX_TAG, comm, &r);
		cs_mpi_wait(&r);
		at += m;
	} while (at < n);
}

static void hx_bcast(void *buf, size_t n, int root, MPI_Comm comm)
{
	int P, me, vr, mask;

	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);
	vr = (me - root + P) % P; /* rank relative to the root */
	/* receive from the parent: the rank that differs in the lowest set
	 * bit of vr */
	for (mask = 1; mask < P; mask <<= 1)
		if (vr & mask) {
			hx_recv(buf, n, (vr - mask + root) % P, comm);
			break;
		}
	/* send to the children: vr + each lower power of two */
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < P)
			hx_send(buf, n, (vr + mask + root) % P, comm);
}

static void hx_gather(const void *send, size_t n, void *recv, int root,
		  MPI_Comm comm)
{
	int P, me, q;

	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);
	if (me != root) {
		hx_send(send, n, root, comm);
		return;
	}
	for (q = 0; q < P; q++)
		if (q == me)
			memcpy((unsigned char *)recv + (size_t)q * n, send, n);
		else
			hx_recv((unsigned char *)recv + (size_t)q * n, n, q,
				comm);
}


/* ---- the group's ops --------------------------------------------------------- */

static struct mpig *mpig_of(cs_rgroup_t *g)
{
	return g->impl;
}

static cs_status_t mpi_split(cs_rgroup_t *g, cs_commvar_t v, const int *color,
			     const int *key, int *rank, int *size)
{
	struct mpig *m = mpig_of(g);

	/* (the world's is a duplicate: MPI_Comm_split may use the library's
	 * allgather, which a user may have broken on purpose) */
	if (v == CS_COMM_WORLD)
		MPI_Comm_dup(MPI_COMM_WORLD, &m->comm[v]);
	else
		MPI_Comm_split(MPI_COMM_WORLD, color[0], key[0], &m->comm[v]);
	MPI_Comm_rank(m->comm[v], rank);
	MPI_Comm_size(m->comm[v], size);
	return cs_boot_create(&m->comm[v], &m->boot[v]);
}

static const cs_bootstrap_t *mpi_boot(cs_rgroup_t *g, cs_commvar_t v, int i)
{
	(void)i;
	return mpig_of(g)->boot[v] ? cs_boot_get(mpig_of(g)->boot[v]) : NULL;
}

static int mpi_max(cs_rgroup_t *g, const int *v)
{
	int q, x, max = v[0];

	/* up to world rank 0 one int at a time, the largest back down */
	if (g->first != 0)
		hx_send(v, sizeof *v, 0, MPI_COMM_WORLD);
	for (q = 1; g->first == 0 && q < g->world; q++) {
		hx_recv(&x, sizeof x, q, MPI_COMM_WORLD);
		max = x > max ? x : max;
	}
	hx_bcast(&max, sizeof max, 0, MPI_COMM_WORLD);
	return max;
}

static void mpi_gather(cs_rgroup_t *g, const void *mine, size_t n, void *all)
{
	(void)g;
	hx_gather(mine, n, all, 0, MPI_COMM_WORLD);
}

static void mpi_allgather(cs_rgroup_t *g, cs_commvar_t v, const void *mine,
			  size_t n, void *out)
{
	MPI_Comm c = mpig_of(g)->comm[v];
	int P;

	MPI_Comm_size(c, &P);
	hx_gather(mine, n, out, 0, c);
	hx_bcast(out, n * (size_t)P, 0, c);
}

static void mpi_bcast(cs_rgroup_t *g, cs_commvar_t v, void *const *buf,
		      size_t n, int root)
{
	hx_bcast(buf[0], n, root, mpig_of(g)->comm[v]);
}

static double mpi_now(cs_rgroup_t *g)
{
	(void)g;
	return MPI_Wtime();
}

static void mpi_free(cs_rgroup_t *g)
{
	struct mpig *m = mpig_of(g);
	int v;

	for (v = CS_RG_SLOTS - 1; m && v >= 0; v--) {
		cs_boot_free(m->boot[v]);
		if (m->comm[v] != MPI_COMM_NULL)
			MPI_Comm_free(&m->comm[v]);
	}
	free(m);
	MPI_Finalize();
}

static const cs_rgroup_ops_t mpi_ops = {
	.split = mpi_split,
	.boot = mpi_boot,
	.max = mpi_max,
	.gather = mpi_gather,
	.allgather = mpi_allgather,
	.bcast = mpi_bcast,
	.now = mpi_now,
	.free = mpi_free,
};

/* OpenMP threads per rank: the node's cores shared among its ranks, unless
 * the user chose with OMP_NUM_THREADS. */
static void set_threads(void)
{
	MPI_Comm node;
	int local = 1, t;

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
			    MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &local);
	MPI_Comm_free(&node);
	if (getenv("OMP_NUM_THREADS"))
		return;
	t = omp_get_num_procs() / local;
	omp_set_num_threads(t < 1 ? 1 : t);
}

cs_status_t cs_rgroup_mpi(cs_rgroup_t *g)
{
	struct mpig *m;
	int v;

	memset(g, 0, sizeof *g);
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return cs_error(CS_ERR_UNSUPPORTED, "MPI_Init failed");
	if (!(m = calloc(1, sizeof *m))) {
		MPI_Finalize();
		return cs_error(CS_ERR_NOMEM, "out of memory");
	}
	for (v = 0; v < CS_RG_SLOTS; v++)
		m->comm[v] = MPI_COMM_NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &g->first);
	MPI_Comm_size(MPI_COMM_WORLD, &g->world);
	g->nlocal = 1;
	g->ops = &mpi_ops;
	g->impl = m;
	set_threads();
	return CS_OK;
}
