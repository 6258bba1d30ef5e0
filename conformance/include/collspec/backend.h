/*
 * collspec/backend.h - the backend ABI of collspec: how the harness calls a
 * collective implementation.
 *
 * A backend is a versioned C struct of function pointers shaped like
 * NCCL's API (send and receive pointers, count, dtype, op, root, stream).
 * The built-in backends (`ref`, `mpi`, `gpu-sim`; `gpu` when built with
 * CUDA, `nccl` and `nccl-local` with CUDA and NCCL: `collspec list` says
 * which a binary has) are instances of this struct, and a plugin is a
 * shared object that exports one function returning one:
 *
 *     const cs_backend_t *collspec_backend(uint32_t harness_abi_version);
 *
 * loaded with `collspec run --backend plugin:PATH`. The harness refuses a
 * backend whose abi_version or struct_size differs from its own, naming both
 * versions; a plugin may also return NULL when it cannot serve the
 * harness's version. The entry point may be called more than once, before
 * MPI or anything else is started: it only returns the struct.
 *
 * Dtypes, ops and collectives are those of cs_catalog.h (installed next to
 * this header). Their enumerator VALUES are part of this ABI: a plugin
 * receives cs_coll_t, cs_dtype_t, cs_op_t (and CS_KIND_*) as the numbers
 * of the catalog it was compiled against, which are those of any harness
 * of the same CS_BACKEND_ABI_VERSION. The catalog only grows at the end of
 * its lists (tests/unit/test_catalog_abi.c pins every value); a plugin
 * should refuse, in supports(), an enumerator at or above the CS_NUM_*
 * it was built with. The CS_NUM_* counts are not ABI, nor therefore is the
 * "no op" value (CS_NUM_OPS) of a collective that does not reduce: read
 * `op` only for the collectives that reduce.
 *
 * Shapes and in-place rules follow NCCL (spec/collectives.md):
 *   allreduce, broadcast, reduce, sendrecv, alltoall(v): in place when
 *       sendbuff == recvbuff;
 *   allgather, gather: in place when sendbuff == recvbuff + rank*count;
 *   reducescatter, scatter: in place when recvbuff == sendbuff + rank*count.
 * (For gather and scatter the rule is the root's, with rank = root.) In
 * place, alltoall and alltoallv give the result as if every send block (at
 * the send displacements) were read before any receive block (at the
 * receive displacements) is written; the two layouts need not be the same.
 * Reducescatter in place may overwrite the send buffer's other blocks.
 * For rooted collectives a buffer that is significant at the root only
 * (broadcast and scatter sendbuff, reduce and gather recvbuff) is neither
 * read nor written elsewhere. count == 0 is legal and writes nothing.
 * Out of place, the send buffer must not be modified; nothing may be
 * written outside the receive range; buffers are only element-aligned.
 *
 * Status: every function returns 0 on success, any other value on failure;
 * error_string() turns that value into a message.
 *
 * Threads: the harness calls a backend from one thread.
 *
 * Output: write diagnostics to stderr. Whatever a backend writes to
 * stdout is sent to the harness's stderr, away from its report.
 */
#ifndef COLLSPEC_BACKEND_H
#define COLLSPEC_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "cs_catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bumped on any change of the structs below or of the statuses the harness
 * reads. Version 2 added cs_backend_t's `flags` (at the end) and the
 * statuses CS_BACKEND_ERR_NODEV and CS_BACKEND_ERR_FEWDEV. The harness
 * calls a plugin's entry point with its own version; when that returns
 * NULL it asks again with version 1 only to say clearly that the plugin
 * was built for version 1 and must be rebuilt: a version 1 struct is
 * refused, never guessed at.
 */
#define CS_BACKEND_ABI_VERSION 2u

/*
 * Statuses that mean something to the harness (ABI version 2). init and
 * init_all may return them instead of an ordinary failure; every case of
 * that world is then SKIP, not an error:
 *   CS_BACKEND_ERR_NODEV   no usable device at all: reason "no CUDA
 *                          device";
 *   CS_BACKEND_ERR_FEWDEV  fewer devices than this world needs: the reason
 *                          is error_string(NULL, CS_BACKEND_ERR_FEWDEV),
 *                          which should say how many are needed and seen.
 * Any other non-zero status is a failure. They are negative, so that they
 * meet no status a backend numbers from 1.
 */
#define CS_BACKEND_ERR_NODEV (-20001)
#define CS_BACKEND_ERR_FEWDEV (-20002)

/*
 * cs_backend_t.flags (ABI version 2):
 *   CS_BACKEND_F_OWN_DEVICES  a CS_MEM_CUDA backend that counts and places
 *       its devices itself: the harness does not skip a world for want of
 *       devices before calling init / init_all, and relies on the statuses
 *       above instead (the buffers still go where the CS_MEM_CUDA
 *       paragraph says).
 */
#define CS_BACKEND_F_OWN_DEVICES 0x1u
/*
 *   CS_BACKEND_F_BIT_IDENTICAL  every rank that receives the same result
 *       (allreduce, allgather, broadcast) receives the same bits, NaN
 *       payloads and zero signs included, as when one rank's result is
 *       copied to every rank (NCCL's ring and tree). Without it the
 *       harness requires identity of values only (NaN equals NaN, +0
 *       equals -0 where the op allows either: spec/numerics.md section
 *       5.1) and reports differing bits as WARN bitidentity; with it
 *       differing bits are FAIL bitidentity.
 */
#define CS_BACKEND_F_BIT_IDENTICAL 0x2u

/* Name of the function a plugin exports. */
#define CS_BACKEND_SYMBOL "collspec_backend"

/*
 * Where the buffers handed to the backend live. For CS_MEM_CUDA the
 * harness allocates them (guard bytes included) after init / init_all:
 * one rank per process, on the device that init left current; all ranks
 * in one process, rank i's on device i mod n, n the number of devices this
 * process sees. It copies the inputs in, hands the backend a cudaStream_t
 * of its own on that device, and copies the results out after
 * synchronize. Without a device (or in a collspec built without CUDA)
 * every case is SKIP "no CUDA device" and the backend's init is not
 * called.
 */
typedef enum cs_mem_kind {
	CS_MEM_HOST = 0, /* ordinary host memory */
	CS_MEM_CUDA = 1  /* CUDA device memory (see above for which device) */
} cs_mem_kind_t;

/* How ranks map to processes. */
typedef enum cs_proc_model {
	CS_PROC_RANK_PER_PROCESS = 0, /* one rank per process (MPI-launched) */
	CS_PROC_ALL_IN_PROCESS = 1    /* one process drives every rank */
} cs_proc_model_t;

/*
 * The harness's own channel between the ranks of one communicator, given
 * to the backend so that it can exchange bootstrap data (addresses, unique
 * ids) without an MPI of its own. Every function is collective over the
 * group: all of its ranks call it, in the same order, with the same sizes.
 * The struct and what it points to stay valid until the communicator it
 * was given with is freed.
 */
typedef struct cs_bootstrap {
	uint32_t struct_size; /* sizeof(cs_bootstrap_t) */
	int rank;             /* this process's rank in the group */
	int nranks;           /* size of the group */
	void *ctx;            /* the harness's, passed back to the calls */
	/* recv[q*bytes .. (q+1)*bytes) receives rank q's send[0..bytes) */
	int (*allgather)(void *ctx, const void *send, void *recv, size_t bytes);
	/* every rank's buf[0..bytes) receives the root's */
	int (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
	int (*barrier)(void *ctx);
	/*
	 * Pointer to the MPI_Comm of this group when the harness's channel is
	 * MPI (as in `collspec run`), NULL otherwise. A backend that is itself
	 * built on MPI may use (not free) it; a plugin that needs no MPI
	 * ignores it.
	 */
	const void *mpi_comm;
} cs_bootstrap_t;

/* One case, as the support query sees it. */
typedef struct cs_backend_query {
	uint32_t struct_size; /* sizeof(cs_backend_query_t) */
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;      /* CS_NUM_OPS ("none") for collectives that don't reduce */
	size_t count;    /* the call's count (alltoallv: the largest pair count) */
	int nranks;      /* size of the communicator */
	int root;        /* rooted collectives only */
	int inplace;     /* 1 when the call uses the in-place convention */
} cs_backend_query_t;

/* A backend communicator: opaque to the harness. */
typedef void *cs_bcomm_t;

typedef struct cs_backend {
	uint32_t abi_version;   /* CS_BACKEND_ABI_VERSION */
	uint32_t struct_size;   /* sizeof(cs_backend_t) */
	const char *name;       /* short name shown in reports ("ref") */
	const char *description;/* one line */
	cs_mem_kind_t mem_kind;
	cs_proc_model_t proc_model;

	/*
	 * Create the communicator of all ranks (the world). `options` is the
	 * user's --backend-opt string ("" when none). Called once per process
	 * (CS_PROC_RANK_PER_PROCESS). Required.
	 */
	int (*init)(const cs_bootstrap_t *world, const char *options,
		    cs_bcomm_t *comm);
	/*
	 * CS_PROC_ALL_IN_PROCESS only: create nranks communicators, one per
	 * rank, driven from this process (comms[i] is rank i's). NULL for the
	 * other model. Called once per process: `collspec run --ranks A-B`
	 * runs one process per world size.
	 */
	int (*init_all)(int nranks, const char *options, cs_bcomm_t *comms);
	/*
	 * Optional: split comm like MPI_Comm_split(color, key). `sub` is the
	 * bootstrap of the new group (the harness has already split its own
	 * channel the same way). When NULL, cases on sub-communicators are
	 * skipped. CS_PROC_ALL_IN_PROCESS: one call per rank of comm, all
	 * between one group_start and group_end (as ncclCommSplit in a
	 * group); sub is NULL; *newcomm is used only after group_end.
	 */
	int (*comm_split)(cs_bcomm_t comm, int color, int key,
			  const cs_bootstrap_t *sub, cs_bcomm_t *newcomm);
	/* Free a communicator made by init, init_all or comm_split. */
	int (*comm_free)(cs_bcomm_t comm);
	/* Release everything; no call follows. May be NULL. */
	int (*finalize)(void);

	/*
	 * Optional: 1 when the backend implements this case, 0 when not, with
	 * a one-line reason written to reason[0..len) (the case is then
	 * reported as SKIP with that reason). NULL: every case whose
	 * collective has a non-NULL function below is supported.
	 */
	int (*supports)(cs_bcomm_t comm, const cs_backend_query_t *q,
			char *reason, size_t len);

	/*
	 * The collectives (NULL: not implemented, cases are skipped). `scalar`
	 * points to this rank's PREMULSUM scalar, one element of dtype, in
	 * host memory; ignored for other ops. `stream`
	 * is a cudaStream_t for CS_MEM_CUDA backends, NULL for host ones; the
	 * call may return before the work is done, synchronize() waits for it.
	 */
	int (*allreduce)(const void *sendbuff, void *recvbuff, size_t count,
			 cs_dtype_t dtype, cs_op_t op, const void *scalar,
			 cs_bcomm_t comm, void *stream);
	int (*allgather)(const void *sendbuff, void *recvbuff, size_t sendcount,
			 cs_dtype_t dtype, cs_bcomm_t comm, void *stream);
	int (*reducescatter)(const void *sendbuff, void *recvbuff,
			     size_t recvcount, cs_dtype_t dtype, cs_op_t op,
			     const void *scalar, cs_bcomm_t comm, void *stream);
	int (*alltoall)(const void *sendbuff, void *recvbuff, size_t count,
			cs_dtype_t dtype, cs_bcomm_t comm, void *stream);
	/* counts and displacements in elements, one entry per rank */
	int (*alltoallv)(const void *sendbuff, const size_t *sendcounts,
			 const size_t *sdispls, void *recvbuff,
			 const size_t *recvcounts, const size_t *rdispls,
			 cs_dtype_t dtype, cs_bcomm_t comm, void *stream);
	int (*broadcast)(const void *sendbuff, void *recvbuff, size_t count,
			 cs_dtype_t dtype, int root, cs_bcomm_t comm,
			 void *stream);
	int (*reduce)(const void *sendbuff, void *recvbuff, size_t count,
		      cs_dtype_t dtype, cs_op_t op, const void *scalar, int root,
		      cs_bcomm_t comm, void *stream);
	int (*gather)(const void *sendbuff, void *recvbuff, size_t sendcount,
		      cs_dtype_t dtype, int root, cs_bcomm_t comm, void *stream);
	int (*scatter)(const void *sendbuff, void *recvbuff, size_t recvcount,
		       cs_dtype_t dtype, int root, cs_bcomm_t comm,
		       void *stream);
	/* rank r sends to r+1 and receives from r-1 (mod P) */
	int (*sendrecv)(const void *sendbuff, void *recvbuff, size_t count,
			cs_dtype_t dtype, cs_bcomm_t comm, void *stream);

	/*
	 * CS_PROC_ALL_IN_PROCESS: calls between group_start and group_end
	 * (one per rank) form one collective, as ncclGroupStart/End. NULL for
	 * the other model.
	 */
	int (*group_start)(void);
	int (*group_end)(void);

	/* Wait until every call made on comm and stream is complete. */
	int (*synchronize)(cs_bcomm_t comm, void *stream);
	/* A message for status `err` returned by any function above (may
	 * describe the most recent failure in more detail). comm is NULL
	 * for failures of init, init_all, group_start and group_end. Never
	 * returns NULL. */
	const char *(*error_string)(cs_bcomm_t comm, int err);

	/* CS_BACKEND_F_* bits (ABI version 2); 0 for none. */
	uint32_t flags;
} cs_backend_t;

/* The type of the function a plugin exports under CS_BACKEND_SYMBOL. */
typedef const cs_backend_t *(*cs_backend_entry_fn)(uint32_t harness_abi_version);

#ifdef __cplusplus
}
#endif
#endif /* COLLSPEC_BACKEND_H */
