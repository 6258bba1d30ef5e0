/*
 * backend_nccl.h - the `nccl` backends: NVIDIA's NCCL behind the plugin
 * ABI's struct (collspec/backend.h), on CUDA device memory.
 *
 * The struct declares one process model, so NCCL comes as two backends:
 *   nccl        one rank per process (MPI-launched); the communicator is
 *               made by ncclCommInitRank from a unique id that rank 0 sends
 *               through the harness's bootstrap channel;
 *   nccl-local  every rank in this process, rank i on local GPU i, made by
 *               ncclCommInitAll; each collective is one call per rank
 *               between group_start and group_end.
 *
 * Built only when CUDA and NCCL are found (CS_HAVE_NCCL); otherwise every
 * function below is a stub saying "not built" (NULL / -1). The
 * implementation is backend_nccl*.c; backend_nccl_impl.h says which file
 * holds what.
 */
#ifndef CS_BACKEND_NCCL_H
#define CS_BACKEND_NCCL_H

#include <stddef.h>
#include "collspec/backend.h"

/*
 * Status codes of the nccl backends that a harness may want to act on
 * (every other non-zero code is explained by error_string); they are the
 * backend ABI's device statuses (collspec/backend.h), so the harness reads
 * them as it reads any plugin's:
 *   CS_NCCL_ERR_NODEV   this process sees no CUDA device (or no usable
 *                       driver), on this rank or on another one: the run
 *                       should be reported as SKIP "no CUDA device";
 *   CS_NCCL_ERR_FEWDEV  nccl-local was asked for more ranks than this
 *                       process has GPUs (the message names both numbers).
 */
#define CS_NCCL_ERR_NODEV CS_BACKEND_ERR_NODEV
#define CS_NCCL_ERR_FEWDEV CS_BACKEND_ERR_FEWDEV

/* What cs_backend_nccl_op() answers for premulsum: no fixed ncclRedOp_t,
 * one is made per call by ncclRedOpCreatePreMulSum with the rank's scalar. */
#define CS_NCCL_OP_PREMULSUM (-2)

#ifdef CS_HAVE_NCCL

/* The one-rank-per-process backend ("nccl"). Never NULL. */
const cs_backend_t *cs_backend_nccl(void);

/* The all-ranks-in-one-process backend ("nccl-local"). Never NULL. */
const cs_backend_t *cs_backend_nccl_local(void);

/*
 * The ncclDataType_t (as an int) that catalog dtype d is handed to NCCL
 * as, or -1 when this NCCL has no such type (float8 before NCCL 2.24) or d
 * is out of range. Exported for the map's unit test; no CUDA call.
 */
int cs_backend_nccl_dtype(cs_dtype_t d);

/*
 * The built-in ncclRedOp_t (as an int) for catalog op `op`,
 * CS_NCCL_OP_PREMULSUM for premulsum, or -1 when op is out of range.
 * Exported for the map's unit test; no CUDA call.
 */
int cs_backend_nccl_op(cs_op_t op);

#else /* built without CUDA or without NCCL */

static inline const cs_backend_t *cs_backend_nccl(void)
{
	return NULL;
}

static inline const cs_backend_t *cs_backend_nccl_local(void)
{
	return NULL;
}

static inline int cs_backend_nccl_dtype(cs_dtype_t d)
{
	(void)d;
	return -1;
}

static inline int cs_backend_nccl_op(cs_op_t op)
{
	(void)op;
	return -1;
}

#endif /* CS_HAVE_NCCL */
#endif /* CS_BACKEND_NCCL_H */
