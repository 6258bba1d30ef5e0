/*
 * backend_nccl.c - the `nccl` and `nccl-local` backends: NVIDIA's NCCL
 * behind the plugin ABI's struct, on CUDA device memory (backend_nccl.h).
 *
 * allreduce, allgather, reducescatter, broadcast and reduce are NCCL's own
 * calls, with NCCL's in-place rules, which are the ABI's. sendrecv, gather,
 * scatter, alltoall and alltoallv are built from ncclSend/ncclRecv in one
 * group. In place, gather and scatter leave the root's own block where it
 * is; sendrecv, alltoall and alltoallv would receive into the buffer they
 * are still sending from, so they first copy what they send into a scratch
 * buffer of the communicator (on the call's stream) and send from there.
 *
 * Status codes: CS_NCCL_ERR_* (backend_nccl.h) and NB_E* below are ours;
 * NCCL's ncclResult_t and CUDA's cudaError_t are returned shifted by
 * NB_NCCL and NB_CUDA. error_string() gives the base text of any code and,
 * for the most recent failure, what failed and NCCL's own last message.
 *
 * Devices: counting them, selecting one and the text of a CUDA error come
 * from libcsgpu's device layer (csgpu/device.h), as for the rest of the
 * harness; what is NCCL's own (GPU identity for the one-GPU-per-rank rule,
 * streams and scratch of a communicator) stays here.
 *
 * Threads: one, as the ABI says; the detail buffer and the group depth are
 * plain statics.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#ifndef CS_HAVE_NCCL
#define CS_HAVE_NCCL 1 /* this file is the implementation, not the stubs */
#endif
#include "backend_nccl.h"
#ifndef CS_HAVE_CUDA
#error "backend_nccl.c needs libcsgpu's device layer: link the target csgpu"
#endif
#include "csgpu/device.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 13, 0)
#error "the nccl backend needs NCCL 2.13 or newer (ncclGetLastError)"
#endif
/* float8 types came with NCCL 2.24, ncclCommSplit with NCCL 2.18. */
#define NB_HAVE_FP8 (NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0))
#define NB_HAVE_SPLIT (NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0))

#define NB_FMT(a, b) __attribute__((format(printf, a, b)))

/* ---- status codes and the last failure ----------------------------------- */

enum {
	NB_EINVAL = 3,   /* a bad argument, or a call the model forbids */
	NB_ENOMEM = 4,   /* host memory */
	NB_EBOOT = 5,    /* the harness's bootstrap channel failed */
	NB_EPEER = 6,    /* another rank could not start */
	NB_NCCL = 1000,  /* + ncclResult_t */
	NB_CUDA = 100000 /* + cudaError_t */
};

/* The most recent failure in full, and its status. */
static char nb_detail[1024];
static int nb_detail_err;

/* Depth of group_start/group_end (nccl-local). */
static int nb_group_depth;

static const char *nb_base(int err)
{
	if (err >= NB_CUDA)
		return cudaGetErrorString((cudaError_t)(err - NB_CUDA));
	if (err >= NB_NCCL)
		return ncclGetErrorString((ncclResult_t)(err - NB_NCCL));
	switch (err) {
	case 0:
		return "success";
	case CS_NCCL_ERR_NODEV:
		return "no CUDA device";
	case CS_NCCL_ERR_FEWDEV:
		return "fewer CUDA devices than ranks";
	case NB_EINVAL:
		return "invalid argument";
	case NB_ENOMEM:
		return "out of memory";
	case NB_EBOOT:
		return "the bootstrap channel failed";
	case NB_EPEER:
		return "another rank could not start";
	default:
		return "unknown status of the nccl backend";
	}
}

/* Record err with what failed ("<base>: <what>") and return err. */
static int NB_FMT(2, 3) nb_fail(int err, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(nb_detail, sizeof nb_detail, "%s: %s", nb_base(err), what);
	nb_detail_err = err;
	return err;
}

/* 0 for ncclSuccess, else the shifted status, recorded with NCCL's own
 * last message. */
static int nb_nccl(ncclResult_t r, const char *call, ncclComm_t nc)
{
	const char *last;

	if (r == ncclSuccess)
		return 0;
	last = ncclGetLastError(nc);
	if (!last || !*last)
		return nb_fail(NB_NCCL + (int)r, "%s failed", call);
	return nb_fail(NB_NCCL + (int)r, "%s failed: %s", call, last);
}

/* Record err with the device layer's message (cs_last_error(), which
 * names what failed) as its whole detail, and return err. */
static int nb_adopt(int err)
{
	snprintf(nb_detail, sizeof nb_detail, "%s", cs_last_error());
	nb_detail_err = err;
	return err;
}

/* 0 for cudaSuccess, else the shifted status, recorded with the device
 * layer's text of the error (which also clears CUDA's last error). */
static int nb_cuda(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return 0;
	(void)cs_gpu_error(e, call);
	return nb_adopt(NB_CUDA + (int)e);
}

/* Make dev current: 0, CS_NCCL_ERR_NODEV without a device, NB_EINVAL for a
 * device this process does not have. */
static int nb_set_device(int dev)
{
	cs_status_t st = cs_dev_set(dev);

	if (st == CS_OK)
		return 0;
	return nb_adopt(st == CS_ERR_UNSUPPORTED ? CS_NCCL_ERR_NODEV
			: NB_EINVAL);
}

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
static int nb_type(cs_dtype_t d, ncclDataType_t *nt)
{
	*nt = ncclInt8;
	if ((unsigned)d >= CS_NUM_DTYPES)
		return nb_fail(NB_EINVAL, "unknown dtype %d", (int)d);
	if (nb_types[d] == NB_NO_TYPE)
		return nb_fail(NB_EINVAL, "this NCCL (%d.%d.%d) has no %s",
			       NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH,
			       nb_type_names[d]);
	*nt = (ncclDataType_t)nb_types[d];
	return 0;
}

/* ---- devices, options and the bootstrap ---------------------------------- */

/* Devices this process sees (cached once found); CS_NCCL_ERR_NODEV, with
 * the device layer's "no CUDA device (...)", when none, or when CUDA
 * cannot even count them (no driver). */
static int nb_devices(int *n)
{
	static int found;

	*n = found;
	if (found > 0)
		return 0;
	if (cs_dev_find(n) != CS_OK)
		return nb_adopt(CS_NCCL_ERR_NODEV);
	found = *n;
	return 0;
}

/* This process's rank on its node, from the launcher, else `rank`. */
static int nb_local_rank(int rank)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK",
					    "MPI_LOCALRANKID", "SLURM_LOCALID" };
	const char *s;
	char *end;
	long v;
	size_t i;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		s = getenv(vars[i]);
		if (!s || !*s)
			continue;
		v = strtol(s, &end, 10);
		if (*end == '\0' && v >= 0 && v <= INT_MAX)
			return (int)v;
	}
	return rank;
}

static int nb_options(const char *options)
{
	if (!options || !*options)
		return 0;
	return nb_fail(NB_EINVAL, "the nccl backends take no --backend-opt "
		       "(got '%s'); tune NCCL with its NCCL_* environment "
		       "variables", options);
}

static int nb_check_boot(const cs_bootstrap_t *b)
{
	if (!b || b->struct_size < sizeof *b || !b->allgather ||
	    !b->broadcast || b->nranks < 1 || b->rank < 0 ||
	    b->rank >= b->nranks)
		return nb_fail(NB_EINVAL, "missing or malformed bootstrap");
	return 0;
}

/* What each rank tells the others before NCCL starts. */
struct nb_ready {
	int status;              /* 0, or why this rank cannot take part */
	unsigned char uuid[16];  /* its GPU */
};

static int nb_uuid(int dev, unsigned char uuid[16])
{
	struct cudaDeviceProp prop;
	int rc = nb_cuda(cudaGetDeviceProperties(&prop, dev),
			 "cudaGetDeviceProperties");

	if (!rc)
		memcpy(uuid, prop.uuid.bytes, 16);
	return rc;
}

/* CS_NCCL_ERR_FEWDEV when two ranks of all[0..n) would share one GPU
 * (NCCL refuses that), else 0. */
static int nb_shared_gpu(const struct nb_ready *all, int n)
{
	int a, b;

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			if (!memcmp(all[a].uuid, all[b].uuid, 16))
				return nb_fail(CS_NCCL_ERR_FEWDEV, "ranks %d and %d "
					       "would share one GPU, and NCCL "
					       "needs one GPU per rank: launch "
					       "at most as many ranks per node "
					       "as it has GPUs", a, b);
	return 0;
}

/*
 * Collective over boot's group: every rank learns every rank's readiness
 * and GPU. Returns 0 when all are ready on distinct GPUs, else this rank's
 * own status or, when only others failed, theirs.
 */
static int nb_agree(const cs_bootstrap_t *boot, const struct nb_ready *me)
{
	struct nb_ready *all = calloc((size_t)boot->nranks, sizeof *all);
	int q, rc = 0;

	if (!all)
		return nb_fail(NB_ENOMEM, "bootstrap: out of memory");
	if (boot->allgather(boot->ctx, me, all, sizeof *me)) {
		free(all);
		return nb_fail(NB_EBOOT, "allgather of the ranks' readiness");
	}
	for (q = 0; q < boot->nranks && !rc && !me->status; q++)
		if (all[q].status)
			rc = nb_fail(all[q].status == CS_NCCL_ERR_NODEV ?
				     CS_NCCL_ERR_NODEV : NB_EPEER,
				     "rank %d of %d cannot start: %s", q,
				     boot->nranks, nb_base(all[q].status));
	if (!rc && !me->status)
		rc = nb_shared_gpu(all, boot->nranks);
	free(all);
	return me->status ? me->status : rc;
}

/*
 * Make an NCCL communicator of boot's group on device dev; collective over
 * the group. All ranks first agree that all are ready (st: 0 or why this
 * one is not) on distinct GPUs, so that one rank without a GPU fails every
 * rank instead of leaving them waiting in ncclCommInitRank; then rank 0's
 * unique id goes out through the channel.
 */
static int nb_initrank(const cs_bootstrap_t *boot, int dev, int st,
		       ncclComm_t *nc)
{
	struct nb_ready me;
	ncclUniqueId id;
	int rc;

	memset(&me, 0, sizeof me);
	memset(&id, 0, sizeof id);
	if (!st)
		st = nb_set_device(dev);
	if (!st)
		st = nb_uuid(dev, me.uuid);
	if (!st && boot->rank == 0)
		st = nb_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", NULL);
	me.status = st;
	if ((rc = nb_agree(boot, &me)) != 0)
		return rc;
	if (boot->broadcast(boot->ctx, &id, sizeof id, 0))
		return nb_fail(NB_EBOOT, "broadcast of the NCCL unique id");
	return nb_nccl(ncclCommInitRank(nc, boot->nranks, id, boot->rank),
		       "ncclCommInitRank", NULL);
}

/* ---- communicators ------------------------------------------------------- */

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

/* Learn c's rank and size from NCCL, once its initialisation is done. */
static int nb_shape(struct nb_comm *c)
{
	int rc;

	if (c->nranks > 0)
		return 0;
	rc = nb_nccl(ncclCommCount(c->nc, &c->nranks), "ncclCommCount", c->nc);
	if (!rc)
		rc = nb_nccl(ncclCommUserRank(c->nc, &c->rank),
			     "ncclCommUserRank", c->nc);
	if (rc)
		c->nranks = 0;
	return rc;
}

/* Release everything c holds; the first failure is returned (and
 * recorded), the rest is still released. */
static int nb_release(struct nb_comm *c)
{
	int rc = nb_set_device(c->dev), r;

	if (c->own) {
		r = nb_cuda(cudaStreamSynchronize(c->own), "cudaStreamSynchronize");
		rc = rc ? rc : r;
		r = nb_cuda(cudaStreamDestroy(c->own), "cudaStreamDestroy");
		rc = rc ? rc : r;
	}
	if (c->nc) {
		r = nb_nccl(ncclCommDestroy(c->nc), "ncclCommDestroy", NULL);
		rc = rc ? rc : r;
	}
	r = nb_cuda(cudaFree(c->scratch), "cudaFree");
	rc = rc ? rc : r;
	r = nb_cuda(cudaFree(c->retired), "cudaFree");
	rc = rc ? rc : r;
	free(c);
	return rc;
}

/* Release c after a failure with status err, keeping err's message. */
static int nb_unwind(struct nb_comm *c, int err)
{
	char keep[sizeof nb_detail];

	memcpy(keep, nb_detail, sizeof keep);
	(void)nb_release(c);
	memcpy(nb_detail, keep, sizeof keep);
	nb_detail_err = err;
	return err;
}

/* Wrap NCCL communicator nc (on device dev) with its stream; on failure
 * nc is destroyed. */
static int nb_wrap(ncclComm_t nc, int dev, int local, cs_bcomm_t *out)
{
	struct nb_comm *c = calloc(1, sizeof *c);
	int rc;

	if (!c) {
		(void)ncclCommDestroy(nc);
		return nb_fail(NB_ENOMEM, "communicator: out of memory");
	}
	c->nc = nc;
	c->dev = dev;
	c->local = local;
	rc = nb_set_device(dev);
	if (!rc)
		rc = nb_cuda(cudaStreamCreateWithFlags(&c->own,
						       cudaStreamNonBlocking),
			     "cudaStreamCreateWithFlags");
	if (!rc)
		rc = nb_cuda(cudaDeviceGetAttribute(&c->cc_major,
				cudaDevAttrComputeCapabilityMajor, dev),
			     "cudaDeviceGetAttribute");
	/* a split made inside a group is initialised at its group_end */
	if (!rc && !(local && nb_group_depth > 0))
		rc = nb_shape(c);
	if (rc)
		return nb_unwind(c, rc);
	*out = c;
	return 0;
}

/*
 * nccl-local: each rank's call must sit between group_start and group_end,
 * or the first one would wait forever for ranks this thread has not yet
 * called for. A one-rank communicator needs no group.
 */
static int nb_grouped(const struct nb_comm *c, const char *what)
{
	if (!c->local || nb_group_depth > 0 || c->nranks == 1)
		return 0;
	return nb_fail(NB_EINVAL, "nccl-local: %s must be called between "
		       "group_start and group_end, once per rank", what);
}

static int nb_init(const cs_bootstrap_t *world, const char *options,
		   cs_bcomm_t *out)
{
	ncclComm_t nc = NULL;
	int ndev = 0, dev = 0, st, rc;

	if ((rc = nb_check_boot(world)) != 0)
		return rc;
	if (!out)
		return nb_fail(NB_EINVAL, "init: NULL communicator pointer");
	st = nb_options(options);
	if (!st)
		st = nb_devices(&ndev);
	if (!st)
		dev = nb_local_rank(world->rank) % ndev;
	if ((rc = nb_initrank(world, dev, st, &nc)) != 0)
		return rc;
	return nb_wrap(nc, dev, 0, out);
}

#if NB_HAVE_SPLIT
/* ncclCommSplit: collective over c's ranks; needs no channel. */
static int nb_split_nccl(struct nb_comm *c, int color, int key,
			 const cs_bootstrap_t *sub, ncclComm_t *nc)
{
	(void)sub;
	return nb_nccl(ncclCommSplit(c->nc, color, key, nc, NULL),
		       "ncclCommSplit", c->nc);
}
#else
/* Before ncclCommSplit: a new communicator through the sub-group's
 * bootstrap, on the parent's device. */
static int nb_split_nccl(struct nb_comm *c, int color, int key,
			 const cs_bootstrap_t *sub, ncclComm_t *nc)
{
	int rc;

	(void)color;
	(void)key;
	if (c->local)
		return nb_fail(NB_EINVAL, "nccl-local: comm_split needs "
			       "ncclCommSplit (NCCL 2.18 or newer)");
	if ((rc = nb_check_boot(sub)) != 0)
		return rc;
	return nb_initrank(sub, c->dev, 0, nc);
}
#endif

static int nb_comm_split(cs_bcomm_t comm, int color, int key,
			 const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	struct nb_comm *c = comm;
	ncclComm_t nc = NULL;
	int rc;

	if (!c || !out)
		return nb_fail(NB_EINVAL, "comm_split: NULL communicator");
	if (color < 0)
		return nb_fail(NB_EINVAL, "comm_split: negative color %d", color);
	if ((rc = nb_grouped(c, "comm_split")) != 0 ||
	    (rc = nb_set_device(c->dev)) != 0 ||
	    (rc = nb_split_nccl(c, color, key, sub, &nc)) != 0)
		return rc;
	return nb_wrap(nc, c->dev, c->local, out);
}

static int nb_comm_free(cs_bcomm_t comm)
{
	if (!comm)
		return nb_fail(NB_EINVAL, "comm_free: NULL communicator");
	return nb_release(comm);
}

/* Wrap each of n fresh NCCL communicators; on a failure, free what was
 * made and destroy the rest. */
static int nb_wrap_all(ncclComm_t *nc, int n, cs_bcomm_t *comms)
{
	int i, j, rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = nb_wrap(nc[i], i, 1, &comms[i]);
	if (!rc)
		return 0;
	for (j = 0; j < i - 1; j++)
		(void)nb_unwind(comms[j], rc);
	for (j = i; j < n; j++)
		(void)ncclCommDestroy(nc[j]);
	return rc;
}

static int nb_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	ncclComm_t *nc = NULL;
	int *devs = NULL, ndev = 0, i, rc;

	if (nranks < 1 || !comms)
		return nb_fail(NB_EINVAL, "init_all: %d ranks, comms %p", nranks,
			       (void *)comms);
	if ((rc = nb_options(options)) != 0 || (rc = nb_devices(&ndev)) != 0)
		return rc;
	if (nranks > ndev)
		return nb_fail(CS_NCCL_ERR_FEWDEV, "%d ranks need %d CUDA "
			       "devices (NCCL needs one GPU per rank), but "
			       "this process sees %d", nranks, nranks, ndev);
	nc = calloc((size_t)nranks, sizeof *nc);
	devs = malloc((size_t)nranks * sizeof *devs);
	if (!nc || !devs) {
		rc = nb_fail(NB_ENOMEM, "init_all: out of memory");
		goto out_free;
	}
	for (i = 0; i < nranks; i++)
		devs[i] = i; /* rank i on device i */
	rc = nb_nccl(ncclCommInitAll(nc, nranks, devs), "ncclCommInitAll",
		     NULL);
	if (!rc)
		rc = nb_wrap_all(nc, nranks, comms);
out_free:
	free(devs);
	free(nc);
	return rc;
}

/* ---- calls --------------------------------------------------------------- */

/* Before every call on c: the model's rules, c's device current, and the
 * stream: the harness's, else c's own. */
static int nb_enter(struct nb_comm *c, void *stream, cudaStream_t *st)
{
	int rc;

	*st = (cudaStream_t)stream; /* set on every path, as in nb_type */
	if (!c)
		return nb_fail(NB_EINVAL, "NULL communicator");
	if ((rc = nb_grouped(c, "a collective")) != 0 ||
	    (rc = nb_set_device(c->dev)) != 0 ||
	    (rc = nb_shape(c)) != 0)
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

	if ((rc = nb_type(d, nt)) != 0)
		return rc;
	if ((unsigned)op >= CS_NUM_OPS)
		return nb_fail(NB_EINVAL, "unknown op %d", (int)op);
	if (op != CS_OP_PREMULSUM) {
		*no = (ncclRedOp_t)nb_ops[op];
		return 0;
	}
	if (!scalar)
		return nb_fail(NB_EINVAL, "premulsum without a scalar");
	memcpy(s, scalar, nb_sizes[d]);
	return nb_nccl(ncclRedOpCreatePreMulSum(no, s, *nt,
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
	return nb_nccl(ncclRedOpDestroy(no, c->nc), "ncclRedOpDestroy", c->nc);
}

static int nb_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t comm,
			void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = nb_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = nb_nccl(ncclAllReduce(s, r, count, nt, no, c->nc, st),
		     "ncclAllReduce", c->nc);
	return nb_red_end(c, op, no, rc);
}

static int nb_reducescatter(const void *s, void *r, size_t recvcount,
			    cs_dtype_t d, cs_op_t op, const void *scalar,
			    cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = nb_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = nb_nccl(ncclReduceScatter(s, r, recvcount, nt, no, c->nc, st),
		     "ncclReduceScatter", c->nc);
	return nb_red_end(c, op, no, rc);
}

static int nb_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_op_t op, const void *scalar, int root, cs_bcomm_t comm,
		     void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	ncclRedOp_t no;
	int rc;

	if ((rc = nb_enter(c, stream, &st)) != 0 ||
	    (rc = nb_red_begin(c, d, op, scalar, &nt, &no)) != 0)
		return rc;
	rc = nb_nccl(ncclReduce(s, r, count, nt, no, root, c->nc, st),
		     "ncclReduce", c->nc);
	return nb_red_end(c, op, no, rc);
}

static int nb_allgather(const void *s, void *r, size_t sendcount,
			cs_dtype_t d, cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	int rc;

	if ((rc = nb_enter(c, stream, &st)) != 0 || (rc = nb_type(d, &nt)) != 0)
		return rc;
	return nb_nccl(ncclAllGather(s, r, sendcount, nt, c->nc, st),
		       "ncclAllGather", c->nc);
}

static int nb_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			int root, cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	cudaStream_t st;
	ncclDataType_t nt;
	int rc;

	if ((rc = nb_enter(c, stream, &st)) != 0 || (rc = nb_type(d, &nt)) != 0)
		return rc;
	return nb_nccl(ncclBroadcast(s, r, count, nt, root, c->nc, st),
		       "ncclBroadcast", c->nc);
}

/* ---- collectives from grouped send/recv ---------------------------------- */

/* One group of sends and receives: nb_p2p_start opens it, nb_send and
 * nb_recv add to it (nothing after a failure), nb_p2p_end closes it. */
struct nb_p2p {
	struct nb_comm *c;
	cudaStream_t st;
	ncclDataType_t nt;
	size_t es; /* bytes per element */
	int rc;    /* first failure */
};

static int nb_p2p_start(struct nb_p2p *p, cs_bcomm_t comm, void *stream,
			cs_dtype_t d)
{
	int rc;

	memset(p, 0, sizeof *p);
	p->c = comm;
	if ((rc = nb_enter(p->c, stream, &p->st)) != 0 ||
	    (rc = nb_type(d, &p->nt)) != 0)
		return rc;
	p->es = nb_sizes[d];
	return nb_nccl(ncclGroupStart(), "ncclGroupStart", p->c->nc);
}

static int nb_p2p_end(struct nb_p2p *p)
{
	ncclResult_t r = ncclGroupEnd();

	if (p->rc)
		return p->rc;
	return nb_nccl(r, "ncclGroupEnd", p->c->nc);
}

/* count elements from element offset off of buf to peer; none: no call
 * (the peer sees the same count and skips its receive too). */
static void nb_send(struct nb_p2p *p, const void *buf, size_t off,
		    size_t count, int peer)
{
	if (p->rc || count == 0)
		return;
	p->rc = nb_nccl(ncclSend((const char *)buf + off * p->es, count, p->nt,
				 peer, p->c->nc, p->st), "ncclSend", p->c->nc);
}

static void nb_recv(struct nb_p2p *p, void *buf, size_t off, size_t count,
		    int peer)
{
	if (p->rc || count == 0)
		return;
	p->rc = nb_nccl(ncclRecv((char *)buf + off * p->es, count, p->nt, peer,
				 p->c->nc, p->st), "ncclRecv", p->c->nc);
}

/* p->rc = a failure when n blocks of count elements overflow size_t. */
static void nb_check_span(struct nb_p2p *p, size_t n, size_t count)
{
	if (!p->rc && n && count > SIZE_MAX / p->es / n)
		p->rc = nb_fail(NB_EINVAL, "%zu blocks of %zu elements overflow",
				n, count);
}

/* Grow c's scratch to bytes. The old one may still be read by calls in
 * flight: it is retired, and freed at the next synchronize. */
static int nb_grow(struct nb_comm *c, size_t bytes)
{
	void *p = NULL;
	int rc;

	if (c->retired) {
		if ((rc = nb_cuda(cudaDeviceSynchronize(),
				  "cudaDeviceSynchronize")) != 0 ||
		    (rc = nb_cuda(cudaFree(c->retired), "cudaFree")) != 0)
			return rc;
		c->retired = NULL;
	}
	if ((rc = nb_cuda(cudaMalloc(&p, bytes), "cudaMalloc (scratch)")) != 0)
		return rc;
	c->retired = c->scratch;
	c->scratch = p;
	c->cap = bytes;
	return 0;
}

/* In place: copy the bytes about to be sent from *src into the scratch,
 * on the call's stream (so before the sends), and send from there. */
static void nb_stage(struct nb_p2p *p, const void **src, size_t bytes)
{
	struct nb_comm *c = p->c;

	if (p->rc || bytes == 0)
		return;
	if (bytes > c->cap && (p->rc = nb_grow(c, bytes)) != 0)
		return;
	p->rc = nb_cuda(cudaMemcpyAsync(c->scratch, *src, bytes,
					cudaMemcpyDeviceToDevice, p->st),
			"cudaMemcpyAsync (in-place staging)");
	if (!p->rc)
		*src = c->scratch;
}

static int nb_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		       cs_bcomm_t comm, void *stream)
{
	struct nb_p2p p;
	int rc, P, me;

	if ((rc = nb_p2p_start(&p, comm, stream, d)) != 0)
		return rc;
	P = p.c->nranks;
	me = p.c->rank;
	if (s == r)
		nb_stage(&p, &s, count * p.es);
	nb_send(&p, s, 0, count, (me + 1) % P);
	nb_recv(&p, r, 0, count, (me + P - 1) % P);
	return nb_p2p_end(&p);
}

static void nb_check_root(struct nb_p2p *p, int root)
{
	if (!p->rc && (root < 0 || root >= p->c->nranks))
		p->rc = nb_fail(NB_EINVAL, "root %d outside a communicator of "
				"%d ranks", root, p->c->nranks);
}

static int nb_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		     int root, cs_bcomm_t comm, void *stream)
{
	struct nb_p2p p;
	int rc, q, me, inplace;

	if ((rc = nb_p2p_start(&p, comm, stream, d)) != 0)
		return rc;
	me = p.c->rank;
	nb_check_root(&p, root);
	nb_check_span(&p, (size_t)p.c->nranks, count);
	/* in place the root's own block is already where it belongs */
	inplace = !p.rc && me == root &&
		  s == (const char *)r + (size_t)root * count * p.es;
	if (me == root)
		for (q = 0; q < p.c->nranks; q++)
			if (q != me || !inplace)
				nb_recv(&p, r, (size_t)q * count, count, q);
	if (!inplace)
		nb_send(&p, s, 0, count, root);
	return nb_p2p_end(&p);
}

static int nb_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t comm, void *stream)
{
	struct nb_p2p p;
	int rc, q, me, inplace;

	if ((rc = nb_p2p_start(&p, comm, stream, d)) != 0)
		return rc;
	me = p.c->rank;
	nb_check_root(&p, root);
	nb_check_span(&p, (size_t)p.c->nranks, count);
	/* in place the root's own block is already where it belongs */
	inplace = !p.rc && me == root &&
		  r == (const char *)s + (size_t)root * count * p.es;
	if (me == root)
		for (q = 0; q < p.c->nranks; q++)
			if (q != me || !inplace)
				nb_send(&p, s, (size_t)q * count, count, q);
	if (!inplace)
		nb_recv(&p, r, 0, count, root);
	return nb_p2p_end(&p);
}

static int nb_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		       cs_bcomm_t comm, void *stream)
{
	struct nb_p2p p;
	size_t P;
	int rc, q;

	if ((rc = nb_p2p_start(&p, comm, stream, d)) != 0)
		return rc;
	P = (size_t)p.c->nranks;
	nb_check_span(&p, P, count);
	if (s == r && !p.rc)
		nb_stage(&p, &s, P * count * p.es);
	for (q = 0; q < p.c->nranks; q++) {
		nb_send(&p, s, (size_t)q * count, count, q);
		nb_recv(&p, r, (size_t)q * count, count, q);
	}
	return nb_p2p_end(&p);
}

/* Elements from the start of the send buffer to the end of its last
 * block; p->rc set on overflow. */
static size_t nb_send_extent(struct nb_p2p *p, const size_t *counts,
			     const size_t *displs)
{
	size_t end = 0;
	int q;

	for (q = 0; q < p->c->nranks && !p->rc; q++) {
		if (counts[q] > SIZE_MAX / p->es ||
		    displs[q] > SIZE_MAX / p->es - counts[q])
			p->rc = nb_fail(NB_EINVAL, "alltoallv: block %d "
					"overflows", q);
		else if (displs[q] + counts[q] > end)
			end = displs[q] + counts[q];
	}
	return end;
}

static int nb_alltoallv(const void *s, const size_t *scount,
			const size_t *sdispl, void *r, const size_t *rcount,
			const size_t *rdispl, cs_dtype_t d, cs_bcomm_t comm,
			void *stream)
{
	struct nb_p2p p;
	size_t ext;
	int rc, q;

	if ((rc = nb_p2p_start(&p, comm, stream, d)) != 0)
		return rc;
	if (!scount || !sdispl || !rcount || !rdispl)
		p.rc = nb_fail(NB_EINVAL, "alltoallv: NULL counts or "
			       "displacements");
	if (s == r && !p.rc) {
		ext = nb_send_extent(&p, scount, sdispl);
		nb_stage(&p, &s, ext * p.es);
	}
	for (q = 0; q < p.c->nranks && !p.rc; q++) {
		nb_send(&p, s, sdispl[q], scount[q], q);
		nb_recv(&p, r, rdispl[q], rcount[q], q);
	}
	return nb_p2p_end(&p);
}

/* ---- support, completion, errors, groups --------------------------------- */

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

static int nb_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
		       char *reason, size_t len)
{
	const struct nb_comm *c = comm;
	int ndev;

	if (!q || q->struct_size < sizeof *q)
		return nb_say(reason, len, "malformed support query");
	if (nb_devices(&ndev))
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

static int nb_synchronize(cs_bcomm_t comm, void *stream)
{
	struct nb_comm *c = comm;
	ncclResult_t async = ncclSuccess;
	int rc;

	if (!c)
		return nb_fail(NB_EINVAL, "synchronize: NULL communicator");
	if ((rc = nb_set_device(c->dev)) != 0 ||
	    (rc = nb_cuda(cudaStreamSynchronize(stream ? (cudaStream_t)stream
						       : c->own),
			  "cudaStreamSynchronize")) != 0 ||
	    (rc = nb_nccl(ncclCommGetAsyncError(c->nc, &async),
			  "ncclCommGetAsyncError", c->nc)) != 0)
		return rc;
	if (async != ncclSuccess && async != ncclInProgress)
		return nb_nccl(async, "an earlier call on this communicator "
			       "(asynchronous error)", c->nc);
	/* everything before this point is done: the old scratch is free */
	rc = nb_cuda(cudaFree(c->retired), "cudaFree");
	c->retired = NULL;
	return rc;
}

static const char *nb_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	if (err != 0 && err == nb_detail_err && nb_detail[0])
		return nb_detail;
	return nb_base(err);
}

static int nb_group_start(void)
{
	int rc = nb_nccl(ncclGroupStart(), "ncclGroupStart", NULL);

	if (!rc)
		nb_group_depth++;
	return rc;
}

static int nb_group_end(void)
{
	if (nb_group_depth == 0)
		return nb_fail(NB_EINVAL, "group_end without group_start");
	nb_group_depth--;
	return nb_nccl(ncclGroupEnd(), "ncclGroupEnd", NULL);
}

/* ---- the two backends ---------------------------------------------------- */

/* What both process models share. */
#define NB_SHARED_MEMBERS                                                      \
	.abi_version = CS_BACKEND_ABI_VERSION,                                 \
	.struct_size = sizeof(cs_backend_t),                                   \
	.flags = CS_BACKEND_F_OWN_DEVICES,                                     \
	.mem_kind = CS_MEM_CUDA,                                               \
	.comm_split = nb_comm_split,                                           \
	.comm_free = nb_comm_free,                                             \
	.supports = nb_supports,                                               \
	.allreduce = nb_allreduce,                                             \
	.allgather = nb_allgather,                                             \
	.reducescatter = nb_reducescatter,                                     \
	.alltoall = nb_alltoall,                                               \
	.alltoallv = nb_alltoallv,                                             \
	.broadcast = nb_broadcast,                                             \
	.reduce = nb_reduce,                                                   \
	.gather = nb_gather,                                                   \
	.scatter = nb_scatter,                                                 \
	.sendrecv = nb_sendrecv,                                               \
	.synchronize = nb_synchronize,                                         \
	.error_string = nb_error_string

static const cs_backend_t nb_backend_rank = {
	NB_SHARED_MEMBERS,
	.name = "nccl",
	.description = "NVIDIA NCCL, one rank (one GPU) per process, on CUDA "
		       "device memory",
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = nb_init,
};

static const cs_backend_t nb_backend_local = {
	NB_SHARED_MEMBERS,
	.name = "nccl-local",
	.description = "NVIDIA NCCL, every rank in this process, one per "
		       "local GPU, on CUDA device memory",
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = nb_init_all,
	.group_start = nb_group_start,
	.group_end = nb_group_end,
};

const cs_backend_t *cs_backend_nccl(void)
{
	return &nb_backend_rank;
}

const cs_backend_t *cs_backend_nccl_local(void)
{
	return &nb_backend_local;
}
