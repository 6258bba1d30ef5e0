/*
 * ipgroup.h - the group recorder shared by the built-in backends of the
 * all-ranks-in-one-process model (`gpu`, `gpu-sim`): what turns one call
 * per rank between group_start and group_end into one collective of a
 * team (the ranks of one communicator), as NCCL's groups do.
 *
 * Calls are recorded per rank; group_end groups them by team, checks that
 * every rank of a team made the same call (collective, dtype, op, count,
 * root), and hands each team's call, with every rank's arguments, to the
 * backend's executor. comm_split is recorded the same way and makes the
 * new teams at group_end, as MPI_Comm_split orders ranks (by key, then by
 * rank in the parent). A one-rank team may be called outside a group.
 *
 * State lives in a cs_ipg_t, one per backend; not thread-safe (the
 * harness calls a backend from one thread).
 */
#ifndef CS_IPGROUP_H
#define CS_IPGROUP_H

#include <stddef.h>
#include <stdint.h>
#include "collspec/backend.h"
#include "cs_catalog.h"

/* A team: the ranks of one communicator. */
typedef struct cs_ipteam {
	int nranks;
	int refs;          /* communicators pointing at it */
	int *world;        /* world rank of each member */
	void *exec_state;  /* the executor's, freed by its free_state */
} cs_ipteam_t;

/* A communicator: one rank of a team. */
typedef struct cs_ipcomm {
	struct cs_ipg *g;
	cs_ipteam_t *team; /* NULL until the group of its split closes */
	int rank;
} cs_ipcomm_t;

/* One team's call, every rank's arguments by team rank. */
typedef struct cs_ipcall {
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;        /* CS_NUM_OPS for collectives that do not reduce */
	size_t count;
	int root;
	int P;
	cs_ipteam_t *team;
	const void **send; /* [P] */
	void **recv;       /* [P] */
	uint64_t *scalar;  /* [P]: bits of dtype (0 when not given) */
	void **stream;     /* [P] */
	/* alltoallv, [P] each: the rank's own arrays */
	const size_t **sc, **sd, **rc, **rd;
} cs_ipcall_t;

/*
 * What a backend plugs in: run one team's call (0, or a status with a
 * message written to err[0..len)), and free a team's exec_state.
 */
typedef struct cs_ipexec {
	int (*run)(void *ctx, cs_ipcall_t *call, char *err, size_t len);
	void (*free_state)(void *ctx, void *state);
	void *ctx;
} cs_ipexec_t;

/* Status values of the recorder (backends map them into their own). */
enum {
	CS_IPG_EINVAL = 1, /* inconsistent or misplaced calls */
	CS_IPG_ENOMEM = 2
};

typedef struct cs_ipg cs_ipg_t;

/* A recorder with executor x. NULL when out of memory. */
cs_ipg_t *cs_ipg_new(cs_ipexec_t x);
void cs_ipg_free(cs_ipg_t *g);

/* The message of the last failure ("" when none). */
const char *cs_ipg_error(const cs_ipg_t *g);

/* init_all: nranks world communicators into comms[]. 0 or a status. */
int cs_ipg_world(cs_ipg_t *g, int nranks, void **comms);

/* comm_split and comm_free of the backend ABI. */
int cs_ipg_split(cs_ipcomm_t *c, int color, int key, void **out);
int cs_ipg_comm_free(cs_bcomm_t comm); /* a cs_ipcomm_t *, or NULL */

/* group_start / group_end. */
int cs_ipg_start(cs_ipg_t *g);
int cs_ipg_end(cs_ipg_t *g);

/*
 * Record one rank's collective call (run at once for a one-rank team
 * outside a group). a2av: sendcounts, sdispls, recvcounts, rdispls, or
 * NULLs. scalar: host pointer to one element, or NULL.
 */
int cs_ipg_call(cs_ipcomm_t *c, cs_coll_t coll, const void *send, void *recv,
		size_t count, cs_dtype_t d, cs_op_t op, const void *scalar,
		int root, void *stream, const size_t *const a2av[4]);

/*
 * The backend ABI's collectives over a recorder: each records the call of
 * its communicator's rank (a cs_ipcomm_t *) with cs_ipg_call, passing the
 * stream on. A backend puts them in its struct as they are; its
 * error_string reads the recorder's message (cs_ipg_error).
 */
int cs_ipg_allreduce(const void *s, void *r, size_t n, cs_dtype_t d,
		     cs_op_t op, const void *scalar, cs_bcomm_t comm,
		     void *stream);
int cs_ipg_allgather(const void *s, void *r, size_t n, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream);
int cs_ipg_reducescatter(const void *s, void *r, size_t n, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t comm,
			 void *stream);
int cs_ipg_alltoall(const void *s, void *r, size_t n, cs_dtype_t d,
		    cs_bcomm_t comm, void *stream);
int cs_ipg_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		     void *r, const size_t *rc, const size_t *rd, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream);
int cs_ipg_broadcast(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		     cs_bcomm_t comm, void *stream);
int cs_ipg_reduce(const void *s, void *r, size_t n, cs_dtype_t d, cs_op_t op,
		  const void *scalar, int root, cs_bcomm_t comm, void *stream);
int cs_ipg_gather(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		  cs_bcomm_t comm, void *stream);
int cs_ipg_scatter(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		   cs_bcomm_t comm, void *stream);
int cs_ipg_sendrecv(const void *s, void *r, size_t n, cs_dtype_t d,
		    cs_bcomm_t comm, void *stream);

/* 1 when the call's rank (by team rank q) uses NCCL's in-place rule. */
int cs_ipcall_inplace(const cs_ipcall_t *c, int q);

#endif /* CS_IPGROUP_H */
