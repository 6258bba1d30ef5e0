/*
 * backend_nccl_impl.h - what the files of the nccl backends share among
 * themselves; the harness sees only backend_nccl.h.
 *
 * The files, in the order one call flows through them:
 *   backend_nccl.c       the two backend structs: which function is which
 *                        member of `nccl` and of `nccl-local`;
 *   backend_nccl_status.c status codes and their text (error_string),
 *                        devices;
 *   backend_nccl_group.c group_start, group_end and the rule that
 *                        nccl-local's calls sit in a group;
 *   backend_nccl_comm.c  the bootstrap (readiness and the unique id),
 *                        communicators (init, init_all, comm_split,
 *                        comm_free);
 *   backend_nccl_coll.c  the catalog in NCCL's terms (dtype and op maps),
 *                        supports, the rules every call checks first, the
 *                        five collectives NCCL has always had, synchronize;
 *   backend_nccl_p2p.c   the five NCCL had not before 2.28, built from
 *                        grouped ncclSend/ncclRecv (sendrecv, gather,
 *                        scatter, alltoall, alltoallv) and the in-place
 *                        staging they need; gather, scatter and alltoall
 *                        call NCCL's own where the library has them
 *                        (cs_nccl_native_colls).
 *
 * Status codes: every function below that returns int returns 0 or a
 * status of the nccl backends, already recorded (cs_nccl_fail) so that
 * error_string can say what failed (supports answers as the ABI says:
 * non-zero when the case runs): CS_NCCL_ERR_* (backend_nccl.h) and
 * NB_E* below are ours; NCCL's ncclResult_t and CUDA's cudaError_t come
 * shifted by NB_NCCL and NB_CUDA. These are the plugin ABI's statuses
 * (collspec/backend.h), not cs_status_t: the harness reads them as it
 * reads any plugin's.
 *
 * Threads: one, as the ABI says; the last failure and the group depth are
 * plain statics.
 */
#ifndef CS_BACKEND_NCCL_IMPL_H
#define CS_BACKEND_NCCL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#ifndef CS_HAVE_NCCL
#define CS_HAVE_NCCL 1 /* these files are the implementation, not the stubs */
#endif
#include "backends/nccl/backend_nccl.h"
#ifndef CS_HAVE_CUDA
#error "the nccl backends need libcsgpu's device layer: link the target csgpu"
#endif

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 13, 0)
#error "the nccl backend needs NCCL 2.13 or newer (ncclGetLastError)"
#endif
/* float8 types came with NCCL 2.24, ncclCommSplit with NCCL 2.18. */
#define NB_HAVE_FP8 (NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0))
#define NB_HAVE_SPLIT (NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0))
/* ncclAlltoAll, ncclGather and ncclScatter came with NCCL 2.28; the build
 * also found the three symbols in the library (cmake/FindNCCLLocal.cmake
 * defines CS_NCCL_NATIVE_COLLS). */
#if defined(CS_NCCL_NATIVE_COLLS) && \
	NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define NB_HAVE_NATIVE_COLLS 1
#else
#define NB_HAVE_NATIVE_COLLS 0
#endif

#define NB_FMT(a, b) __attribute__((format(printf, a, b)))

/* Our status codes beside CS_NCCL_ERR_NODEV and CS_NCCL_ERR_FEWDEV (the
 * ABI's device statuses, negative). */
enum {
	NB_EINVAL = 3,   /* a bad argument, or a call the model forbids */
	NB_ENOMEM = 4,   /* host memory */
	NB_EBOOT = 5,    /* the harness's bootstrap channel failed */
	NB_EPEER = 6,    /* another rank could not start */
	NB_NCCL = 1000,  /* + ncclResult_t */
	NB_CUDA = 100000 /* + cudaError_t */
};

/* One rank's communicator: what a cs_bcomm_t of these backends points to. */
struct nb_comm {
	ncclComm_t nc;
	int dev;          /* the CUDA device of this rank */
	int rank, nranks; /* nranks 0: not known yet (a split in its group) */
	int cc_major;     /* compute capability of dev, for float8 */
	int local;        /* nccl-local: calls go between group_start/end */
	cudaStream_t own; /* the stream of calls given no stream */
	void *scratch;    /* staging of in-place p2p collectives */
	size_t cap;       /* bytes of scratch */
	void *retired;    /* a smaller scratch, freed at the next synchronize */
};

/* ---- status, the last failure and devices (backend_nccl_status.c) -------- */

#define CS_NCCL_DETAIL_MAX 1024 /* bytes of the last failure's text */

/* The text of status err alone, without what failed. */
const char *cs_nccl_status_text(int err);

/* Copy the last failure's text into keep[0..CS_NCCL_DETAIL_MAX), and put
 * it back as the text of status err (returned): a failure's message kept
 * across the clean-up calls that follow it. */
void cs_nccl_detail_save(char *keep);
int cs_nccl_detail_restore(const char *keep, int err);

/* Record err with what failed ("<base text>: <what>") as the detail
 * error_string gives for err; returns err. */
int NB_FMT(2, 3) cs_nccl_fail(int err, const char *fmt, ...);

/* 0 for ncclSuccess, else NB_NCCL + r, recorded with what failed (`call`)
 * and NCCL's own last message for nc (NULL: none). */
int cs_nccl_result(ncclResult_t r, const char *call, ncclComm_t nc);

/* 0 for cudaSuccess, else NB_CUDA + e, recorded with the device layer's
 * text of the error (which also clears CUDA's last error). */
int cs_nccl_cuda(cudaError_t e, const char *call);

/* Make dev current: 0, CS_NCCL_ERR_NODEV without a device, NB_EINVAL for
 * a device this process does not have. */
int cs_nccl_set_device(int dev);

/* The number of CUDA devices this process sees in *n (cached once found):
 * 0, or CS_NCCL_ERR_NODEV when there is none or no driver. */
int cs_nccl_devices(int *n);

/* The backends' error_string: the most recent failure in full when err
 * is its status, else err's text alone. */
const char *cs_nccl_error_string(cs_bcomm_t comm, int err);

/* ---- communicators (backend_nccl_comm.c) --------------------------------- */

/* Learn c's rank and size from NCCL once its initialisation is done
 * (a split made inside a group is done at group_end); 0 or a status. */
int cs_nccl_shape(struct nb_comm *c);

/* The members of the same names of cs_backend_t; their contracts are the
 * ABI's (collspec/backend.h). */
int cs_nccl_init(const cs_bootstrap_t *world, const char *options,
		 cs_bcomm_t *out);
int cs_nccl_init_all(int nranks, const char *options, cs_bcomm_t *comms);
int cs_nccl_comm_split(cs_bcomm_t comm, int color, int key,
		       const cs_bootstrap_t *sub, cs_bcomm_t *out);
int cs_nccl_comm_free(cs_bcomm_t comm);

/* ---- groups (backend_nccl_group.c) -------------------------------------- */

/* The members group_start and group_end (nccl-local): NCCL's group calls,
 * with the depth counted for cs_nccl_grouped. */
int cs_nccl_group_start(void);
int cs_nccl_group_end(void);

/* True while this thread is between group_start and group_end. */
bool cs_nccl_in_group(void);

/* nccl-local: c's calls (`what`, for the message) must sit between
 * group_start and group_end, unless c has one rank. 0, or NB_EINVAL. */
int cs_nccl_grouped(const struct nb_comm *c, const char *what);

/* ---- the rules of a call (backend_nccl_coll.c) --------------------------- */

/* Before every call on c: the model's rules, c's device current, c's
 * shape known, and in *st the stream: the harness's, else c's own.
 * *st is set on every path. 0 or a status. */
int cs_nccl_enter(struct nb_comm *c, void *stream, cudaStream_t *st);

/* The NCCL type of catalog dtype d in *nt (set on every path), or
 * NB_EINVAL when d is unknown or this NCCL lacks it. */
int cs_nccl_type(cs_dtype_t d, ncclDataType_t *nt);

/* Bytes per element of catalog dtype d (d in range). */
size_t cs_nccl_type_size(cs_dtype_t d);

/* ---- collectives: backend members ---------------------------------------- */

/* The members of the same names of cs_backend_t; their contracts are the
 * ABI's (collspec/backend.h). */
/* NCCL's own (backend_nccl_coll.c) */
int cs_nccl_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t comm,
		      void *stream);
int cs_nccl_reducescatter(const void *s, void *r, size_t recvcount,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t comm, void *stream);
int cs_nccl_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t comm,
		   void *stream);
int cs_nccl_allgather(const void *s, void *r, size_t sendcount,
		      cs_dtype_t d, cs_bcomm_t comm, void *stream);
int cs_nccl_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t comm, void *stream);
int cs_nccl_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
		     char *reason, size_t len);
int cs_nccl_synchronize(cs_bcomm_t comm, void *stream);

/* --backend-opt p2p=1 (backend_nccl_comm.c): gather, scatter and alltoall
 * from grouped ncclSend/ncclRecv even where NCCL has its own. */
extern bool cs_nccl_p2p_forced;

/*
 * Whether gather, scatter and alltoall call NCCL's own ncclGather,
 * ncclScatter and ncclAlltoAll: this build has them (NB_HAVE_NATIVE_COLLS),
 * the loaded library says 2.28 or newer (ncclGetVersion) and exports all
 * three (dlsym in the library that holds ncclGetVersion), and p2p=1 was
 * not given. The library is looked at once (backend_nccl_p2p.c).
 */
bool cs_nccl_native_colls(void);

/* from grouped send/recv, or NCCL's own (backend_nccl_p2p.c) */
int cs_nccl_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream);
int cs_nccl_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t comm, void *stream);
int cs_nccl_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		    int root, cs_bcomm_t comm, void *stream);
int cs_nccl_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream);
int cs_nccl_alltoallv(const void *s, const size_t *scount,
		      const size_t *sdispl, void *r, const size_t *rcount,
		      const size_t *rdispl, cs_dtype_t d, cs_bcomm_t comm,
		      void *stream);

#endif /* CS_BACKEND_NCCL_IMPL_H */
