/*
 * backend_gloo_impl.h - private to the `gloo` backend (backend_gloo.cc:
 * the table, options, communicators, errors; backend_gloo_coll.cc: the
 * collectives). C++ only; every function the two files share is extern
 * "C". Callers use cs_backend_gloo() (backend_gloo.h).
 */
#ifndef CS_BACKEND_GLOO_IMPL_H
#define CS_BACKEND_GLOO_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <memory>
#include <string>
#include <gloo/context.h>
#include "collspec/backend.h"

/* The status of every failure; error_string gives its message. */
#define CS_GLB_ERR 1

/* How allreduce is computed (--backend-opt algo=NAME). */
enum cs_glb_algo {
	CS_GLB_FUNCTION = 0,     /* gloo::allreduce, its default (ring) */
	CS_GLB_FUNCTION_BCUBE,   /* gloo::allreduce with Algorithm::BCUBE */
	CS_GLB_RING,             /* gloo::AllreduceRing<T> */
	CS_GLB_RING_CHUNKED,     /* gloo::AllreduceRingChunked<T> */
	CS_GLB_HALVING_DOUBLING, /* gloo::AllreduceHalvingDoubling<T> */
	CS_GLB_BCUBE,            /* gloo::AllreduceBcube<T> */
	CS_GLB_NUM_ALGOS
};

/* The backend's communicator behind a cs_bcomm_t. */
struct cs_glb_comm {
	std::shared_ptr<gloo::Context> ctx;
	int rank, size;
	std::string name; /* its keys' prefix in the file store ("w", "w.0.1") */
	unsigned splits;  /* comm_split calls made on it (names the sub-groups) */
	uint64_t p2p;     /* sendrecv calls made on it (each one's slot) */
};

#ifdef __cplusplus
extern "C" {
#endif

/* Record "what: msg" for error_string; returns CS_GLB_ERR. */
int cs_glb_fail(const char *what, const char *msg);
/* The allreduce algorithm of this run (enum cs_glb_algo). */
int cs_glb_algo(void);
/* 1 when allgather is served by gloo::allgatherv (allgather=allgatherv). */
int cs_glb_use_allgatherv(void);
/* Set the run's options (backend_gloo_state.cc holds them). */
void cs_glb_set_state(int algo, int use_allgatherv);
/* error_string's text for err: the last failure's message. */
const char *cs_glb_error_text(int err);

/* The collectives (backend_gloo_coll.cc), as the plugin ABI's fields of
 * the same names (collspec/backend.h) state them: 0, or CS_GLB_ERR with
 * Gloo's exception text for error_string. The backend's supports() has
 * refused every case they do not handle (dtype, op, in place). */
int cs_glb_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_op_t op, const void *scalar, cs_bcomm_t c,
		     void *stream);
int cs_glb_reducescatter(const void *s, void *r, size_t count,
			 cs_dtype_t d, cs_op_t op, const void *scalar,
			 cs_bcomm_t c, void *stream);
int cs_glb_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		  cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		  void *stream);
int cs_glb_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream);
int cs_glb_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		    cs_bcomm_t c, void *stream);
int cs_glb_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		     void *r, const size_t *rc, const size_t *rd,
		     cs_dtype_t d, cs_bcomm_t c, void *stream);
int cs_glb_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		     int root, cs_bcomm_t c, void *stream);
int cs_glb_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		  int root, cs_bcomm_t c, void *stream);
int cs_glb_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t c, void *stream);
int cs_glb_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		    cs_bcomm_t c, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* CS_BACKEND_GLOO_IMPL_H */
