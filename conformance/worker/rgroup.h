/*
 * rgroup.h - the ranks one worker drives, and the few exchanges the worker
 * makes between them.
 *
 * A worker (worker.c) runs the cases of one world size. Which ranks it
 * drives, and how it reaches the others, is all this interface says:
 *
 *   rank per process (rgroup_mpi.c): launched by mpiexec, the process is
 *     one world rank (nlocal = 1); exchanges are MPI point-to-point
 *     messages on the harness's own communicators;
 *   all in one process (rgroup_inproc.c): for a backend that drives every
 *     rank itself, the process holds all P ranks (nlocal = P); exchanges
 *     are copies in memory.
 *
 * Everything a worker needs to know about the other ranks goes through
 * ops: whether any rank failed (max), the ranks' verdicts to world rank 0
 * (gather), the identity fingerprints within a communicator's group
 * (allgather), a root's result or a reason (bcast). A unit test replaces
 * ops with mocks (tests/conformance/test_worker.c) to play the other ranks.
 *
 * Arrays "per local rank" have nlocal entries: entry i is world rank
 * first + i. Every op is collective: every rank of the world calls it, in
 * the same order, with the same n, v and root.
 */
#ifndef CS_RGROUP_H
#define CS_RGROUP_H

#include <stddef.h>
#include <string.h>
#include "collspec/backend.h"
#include "base/names.h"
#include "csref/status.h"

typedef struct cs_rgroup cs_rgroup_t;

/*
 * Group slots: the `v` of the ops below. Slots 0 .. CS_NUM_COMMVARS-1 are
 * the communicator variants (names.h); slot CS_RG_AXIS_SLOT(a) holds the
 * groups of the pattern suite's grid axis a (csref/grid.h, at most
 * CS_RG_AXES axes), passed to the ops as (cs_commvar_t) of that number.
 */
#define CS_RG_AXES 6
#define CS_RG_SLOTS (CS_NUM_COMMVARS + CS_RG_AXES)
#define CS_RG_AXIS_SLOT(a) ((cs_commvar_t)(CS_NUM_COMMVARS + (int)(a)))

typedef struct cs_rgroup_ops {
	/*
	 * Form communicator variant v's groups on the harness's side, as
	 * MPI_Comm_split(color, key) would (cs_commvar_split gives both per
	 * world rank). Per local rank, into rank[] and size[]: its rank in its
	 * group and the group's size. Exchanges within v's groups (allgather,
	 * bcast) may be made after this only. Called once per variant, WORLD
	 * first. CS_ERR_* with a message when this process could not form them
	 * (then every rank gets an error: the caller agrees with max).
	 */
	cs_status_t (*split)(cs_rgroup_t *g, cs_commvar_t v, const int *color,
			     const int *key, int *rank, int *size);

	/* The bootstrap a per-process backend's init/comm_split gets for
	 * local rank i in variant v's group (valid until free), or NULL when
	 * the backend drives every rank (it gets none). */
	const cs_bootstrap_t *(*boot)(cs_rgroup_t *g, cs_commvar_t v, int i);

	/* The largest of v[0..nlocal) over every rank of the world, on every
	 * rank. Also the worker's barrier. */
	int (*max)(cs_rgroup_t *g, const int *v);

	/* n bytes per local rank (mine[i * n]) from every rank into
	 * all[world_rank * n] where world rank 0 is driven; all is not
	 * written elsewhere (and may be NULL there). */
	void (*gather)(cs_rgroup_t *g, const void *mine, size_t n, void *all);

	/* Within each group of variant v: n bytes per local rank
	 * (mine[i * n]); local rank i receives its group's, in group rank
	 * order, at out[i * world * n + group_rank * n]. */
	void (*allgather)(cs_rgroup_t *g, cs_commvar_t v, const void *mine,
			  size_t n, void *out);

	/* Within each group of variant v: n bytes from the group's rank root
	 * into every member's buf[i] (local rank i's buffer; the root's own
	 * is read). */
	void (*bcast)(cs_rgroup_t *g, cs_commvar_t v, void *const *buf,
		      size_t n, int root);

	/* Seconds on a monotonic clock. */
	double (*now)(cs_rgroup_t *g);

	/* Free what the group made (its communicators, bootstraps). */
	void (*free)(cs_rgroup_t *g);
} cs_rgroup_ops_t;

struct cs_rgroup {
	const cs_rgroup_ops_t *ops;
	int world;  /* ranks in the world */
	int nlocal; /* ranks this process drives */
	int first;  /* world rank of local rank 0 */
	int grouped; /* calls of the local ranks go between group_start and
			group_end (the backend drives every rank) */
	void *impl;  /* the implementation's state */
};

#ifdef CS_HAVE_MPI
/*
 * The rank-per-process group: MPI_Init, then this process is world rank
 * MPI_COMM_WORLD's rank. Sets OpenMP's threads per rank (the node's cores
 * shared among its ranks) unless OMP_NUM_THREADS is set. CS_ERR_UNSUPPORTED when
 * MPI does not start. cs_rgroup_mpi_free finalises MPI.
 */
cs_status_t cs_rgroup_mpi(cs_rgroup_t *g);
#else
/* Built without MPI (cmake -DCS_MPI=OFF): no rank-per-process group. g is
 * left empty and the error (CS_ERR_UNSUPPORTED) says so and what runs
 * instead. */
static inline cs_status_t cs_rgroup_mpi(cs_rgroup_t *g)
{
	memset(g, 0, sizeof *g);
	return cs_error(CS_ERR_UNSUPPORTED, "this collspec was built without "
			"MPI (cmake -DCS_MPI=OFF): a rank per process (a "
			"backend such as mpi, ref or nccl, or a run under "
			"mpiexec) needs a build with MPI; backends that drive "
			"every rank from one process (gpu, gpu-sim, nccl-local) "
			"run with --ranks");
}
#endif /* CS_HAVE_MPI */

/* The all-in-one-process group of P ranks (no MPI). CS_ERR_NOMEM. */
cs_status_t cs_rgroup_inproc(cs_rgroup_t *g, int P);

/* ops->free (MPI_Finalize for the MPI group), then g is empty. */
static inline void cs_rgroup_free(cs_rgroup_t *g)
{
	if (g->ops && g->ops->free)
		g->ops->free(g);
	g->ops = NULL;
	g->impl = NULL;
}

/* 1 when world rank 0 is driven by this process. */
static inline int cs_rgroup_leads(const cs_rgroup_t *g)
{
	return g->first == 0;
}

#endif /* CS_RGROUP_H */
