/*
 * backend_nccl_coll.c - the calls of the nccl backends: the catalog in
 * NCCL's terms, which cases NCCL runs (supports), the group calls and the
 * rules every call checks first, the five collectives NCCL has, and
 * synchronize.
 *
 * allreduce, allgather, reducescatter, broadcast and reduce are NCCL's own
 * calls, with NCCL's in-place rules, which are the ABI's; premulsum is an
 * op made per call from the rank's scalar (ncclRedOpCreatePreMulSum). The
 * five built from send/recv are in backend_nccl_p2p.c; what the files
 * share is in backend_nccl_impl.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "backends/nccl/backend_nccl_impl.h"

/* ---- the catalog in NCCL's terms ----------------------------------------- */

#define NB_NO_TYPE (-1)
#if !NB_HAVE_FP8
/* The catalog's nccl column names float8 enumerators this NCCL lacks. */
#define ncclFloat8e4m3 NB_NO_TYPE
#define ncclFloat8e5m2 NB_NO_TYPE
#endif

#define NB_TYPE_(ID, name, bytes, kind, prec, emin, emax, ebits, fn, nccl,    \
		 ...)                                                           \
	[CS_DTYPE_##ID] = (int)(nccl),
static const int nb_types[CS_NUM_DTYPES] = { CS_DTYPE_LIST(NB_TYPE_) };
#undef NB_TYPE_

#define NB_SIZE_(ID, name, bytes, ...) [CS_DTYPE_##ID] = (bytes),
static const size_t nb_sizes[CS_NUM_DTYPES] = { CS_DTYPE_LIST(NB_SIZE_) };
#undef NB_SIZE_

#define NB_NAME_(ID, name, ...) [CS_DTYPE_##ID] = #name,
static const char *const nb_type_names[CS_NUM_DTYPES] = {
	CS_DTYPE_LIST(NB_NAME_)
};
#undef NB_NAME_

#define NB_REDUCES_(ID, name, rooted, reduces, ...) [CS_COLL_##ID] = (reduces),
static const int nb_reduces[CS_NUM_COLLS] = { CS_COLL_LIST(NB_REDUCES_) };
#undef NB_REDUCES_

_Static_assert(CS_NUM_OPS == 6, "a new op in cs_catalog.h needs its NCCL "
	       "mapping in nb_ops");
static const int nb_ops[CS_NUM_OPS] = {
	[CS_OP_SUM] = ncclSum,
	[CS_OP_PROD] = ncclProd,
	[CS_OP_MAX] = ncclMax,
	[CS_OP_MIN] = ncclMin,
	[CS_OP_AVG] = ncclAvg,
	[CS_OP_PREMULSUM] = CS_NCCL_OP_PREMULSUM,
};

int cs_backend_nccl_dtype(cs_dtype_t d)
{
	if ((unsigned)d >= CS_NUM_DTYPES)
		return -1;
	return nb_types[d];
}

int cs_backend_nccl_op(cs_op_t op)
{
	if ((unsigned)op >= CS_NUM_OPS)
		return -1;
	return nb_ops[op];
}

static int nb_is_fp8(cs_dtype_t d)
{
	return d == CS_DTYPE_FLOAT8_E4M3 || d == CS_DTYPE_FLOAT8_E5M2;
}

/* The NCCL type of d, or a recorded failure. *nt is set on every path:
 * GCC 12 at -O3 cannot see that a failure is non-zero, and would take
 * the callers' nt for possibly uninitialized. */
int cs_nccl_type(cs_dtype_t d, ncclDataType_t *nt)
{
	*nt = ncclInt8;
	if ((unsigned)d >= CS_NUM_DTYPES)
		return cs_nccl_fail(NB_EINVAL, "unknown dtype %d", (int)d);
	if (nb_types[d] == NB_NO_TYPE)
		return cs_nccl_fail(NB_EINVAL, "this NCCL (%d.%d.%d) has no %s",
				    NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH,
				    nb_type_names[d]);
	*nt = (ncclDataType_t)nb_types[d];
	return 0;
}

size_t cs_nccl_type_size(cs_dtype_t d)
{
	return nb_sizes[d];
}

/* ---- which cases run ----------------------------------------------------- */

static int NB_FMT(3, 4) nb_say(char *reason, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (reason && len) {
		va_start(ap, fmt);
		vsnprintf(reason, len, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* The backends' supports: every collective and op of the catalog, every
 * dtype this NCCL has; float8 reductions from compute capability 9.0. */
int cs_nccl_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
		     char *reason, size_t len)
{
	const struct nb_comm *c = comm;
	int ndev;

	if (!q || q->struct_size < sizeof *q)
		return nb_say(reason, len, "malformed support query");
	if (cs_nccl_devices(&ndev))
		return nb_say(reason, len, "no CUDA device");
	if ((unsigned)q->coll >= CS_NUM_COLLS ||
	    (unsigned)q->dtype >= CS_NUM_DTYPES)
		return nb_say(reason, len, "unknown collective or dtype");
	if (nb_types[q->dtype] == NB_NO_TYPE)
		return nb_say(reason, len, "this NCCL has no float8 (NCCL "
			      "%d.%d.%d; float8 came with 2.24)", NCCL_MAJOR,
			      NCCL_MINOR, NCCL_PATCH);
	if (!nb_reduces[q->coll])
		return 1;
	if ((unsigned)q->op >= CS_NUM_OPS)
		return nb_say(reason, len, "unknown op");
	if (nb_is_fp8(q->dtype) && c && c->cc_major < 9)
		return nb_say(reason, len, "NCCL reduces float8 only on "
			      "compute capability 9.0 or newer (device %d is "
			      "%d.x)", c->dev, c->cc_major);
	return 1;
}

/* ---- NCCL's own collectives ---------------------------------------------- */

int cs_nccl_enter(struct nb_comm *c, void *stream, cudaStream_t *st)
{
	int rc;

	*st = (cudaStream_t)stream; /* set on every path, as in cs_nccl_type */
	if (!c)
		return cs_nccl_fail(NB_EINVAL, "NULL communicator");
	if ((rc = cs_nccl_grouped(c, "a collective")) != 0 ||
	    (rc = cs_nccl_set_device(c->dev)) != 0 ||
	    (rc = cs_nccl_shape(c)) != 0)
		return rc;
	*st = stream ? (cudaStream_t)stream : c->own;
	return 0;
}

/* The NCCL type and op of a reducing call. premulsum makes an op from this
 * rank's host scalar, read before the create returns. */
static int nb_red_begin(struct nb_comm *c, cs_dtype_t d, cs_op_t op,
			const void *scalar, ncclDataType_t *nt,
			ncclRedOp_t *no)
{
	unsigned char s[8];
	int rc;

	if ((rc = cs_nccl_type(d, nt)) != 0)
		return rc;
	if ((unsigned)op >= CS_NUM_OPS)
		return cs_nccl_fail(NB_EINVAL, "unknown op %d", (int)op);
	if (op != CS_OP_PREMULSUM) {
		*no = (ncclRedOp_t)nb_ops[op];
		return 0;
	}
	if (!scalar)
		return cs_nccl_fail(NB_EINVAL, "premulsum without a scalar");
	memcpy(s, scalar, nb_sizes[d]);
	return cs_nccl_result(ncclRedOpCreatePreMulSum(no, s, *nt,
					ncclScalarHostImmediate, c->nc),
			      "ncclRedOpCreatePreMulSum", c->nc);
}

/* After the call (status rc): destroy a premulsum op. */
static int nb_red_end(struct nb_comm *c, cs_op_t op, ncclRedOp_t no, int rc)
{
	if (op != CS_OP_PREMULSUM)
		return rc;
	if (rc) {
		(void)ncclRedOpDestroy(no, c->nc);
		return rc;
	}
	return cs_nccl_result(ncclRedOpDestroy(no, c->nc), "ncclRedOpDestroy",
			      c->nc);
}

int cs_nccl_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t comm,
		      void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = cs_nccl_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = cs_nccl_result(ncclAllReduce(s, r, count, nt, no, c->nc, st),
			    "ncclAllReduce", c->nc);
	return nb_red_end(c, op, no, rc);
}

int cs_nccl_reducescatter(const void *s, void *r, size_t recvcount,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = cs_nccl_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = cs_nccl_result(ncclReduceScatter(s, r, recvcount, nt, no, c->nc,
					      st),
			    "ncclReduceScatter", c->nc);
	return nb_red_end(c, op, no, rc);
}

int cs_nccl_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t comm,
		   void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = cs_nccl_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = cs_nccl_result(ncclReduce(s, r, count, nt, no, root, c->nc, st),
			    "ncclReduce", c->nc);
	return nb_red_end(c, op, no, rc);
}

int cs_nccl_allgather(const void *s, void *r, size_t sendcount,
		      cs_dtype_t d, cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	int rc;

	if ((rc = cs_nccl_enter(c, stream, &st)) != 0 ||
	    (rc = cs_nccl_type(d, &nt)) != 0)
		return rc;
	return cs_nccl_result(ncclAllGather(s, r, sendcount, nt, c->nc, st),
			      "ncclAllGather", c->nc);
}

int cs_nccl_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	int rc;

	if ((rc = cs_nccl_enter(c, stream, &st)) != 0 ||
	    (rc = cs_nccl_type(d, &nt)) != 0)
		return rc;
	return cs_nccl_result(ncclBroadcast(s, r, count, nt, root, c->nc, st),
			      "ncclBroadcast", c->nc);
}

/* ---- completion ---------------------------------------------------------- */

/* The backends' synchronize: wait for c's calls on the stream, then ask
 * NCCL for an asynchronous error, then free a retired scratch. */
int cs_nccl_synchronize(cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	ncclResult_t async = ncclSuccess;
	cudaStream_t st;
	int rc;

	if (!c)
		return cs_nccl_fail(NB_EINVAL,
				    "synchronize: NULL communicator");
	st = stream ? (cudaStream_t)stream : c->own;
	if ((rc = cs_nccl_set_device(c->dev)) != 0 ||
	    (rc = cs_nccl_cuda(cudaStreamSynchronize(st),
			       "cudaStreamSynchronize")) != 0 ||
	    (rc = cs_nccl_result(ncclCommGetAsyncError(c->nc, &async),
				 "ncclCommGetAsyncError", c->nc)) != 0)
		return rc;
	if (async != ncclSuccess && async != ncclInProgress)
		return cs_nccl_result(async, "an earlier call on this "
				      "communicator (asynchronous error)",
				      c->nc);
	/* everything before this point is done: the old scratch is free */
	rc = cs_nccl_cuda(cudaFree(c->retired), "cudaFree");
	c->retired = NULL;
	return rc;
}
