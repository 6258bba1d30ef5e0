/*
 * backend_nccl_comm.c - the communicators of the nccl backends: the
 * bootstrap (every rank's readiness, then rank 0's unique id), init
 * (nccl), init_all (nccl-local), comm_split and comm_free. Status codes,
 * the last failure and devices are backend_nccl_status.c's.
 *
 * What a communicator holds, the status codes and the other files:
 * backend_nccl_impl.h.
 *
 * Devices: counting them, selecting one and the text of a CUDA error come
 * from libcsgpu's device layer (csgpu/device.h), as for the rest of the
 * harness; what is NCCL's own (GPU identity for the one-GPU-per-rank rule,
 * streams and scratch of a communicator) stays here.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backends/nccl/backend_nccl_impl.h"
#include "csgpu/device.h"

/* ---- options and the bootstrap ------------------------------------------- */

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

bool cs_nccl_p2p_forced;

/* --backend-opt: comma-separated items, p2p=0|1 the only one
 * (cs_nccl_p2p_forced); anything else is refused, quoted. */
static int nb_options(const char *options)
{
	const char *s = options ? options : "", *comma;
	size_t n;

	cs_nccl_p2p_forced = false;
	for (; *s; s += n + (comma != NULL)) {
		comma = strchr(s, ',');
		n = comma ? (size_t)(comma - s) : strlen(s);
		if (n == 5 && !strncmp(s, "p2p=0", 5))
			cs_nccl_p2p_forced = false;
		else if (n == 5 && !strncmp(s, "p2p=1", 5))
			cs_nccl_p2p_forced = true;
		else if (n)
			return cs_nccl_fail(NB_EINVAL, "bad backend option "
					    "'%.*s' (valid: p2p=0|1); tune "
					    "NCCL with its NCCL_* environment "
					    "variables", (int)(n > 200 ? 200 : n),
					    s);
	}
	return 0;
}

static int nb_check_boot(const cs_bootstrap_t *b)
{
	if (!b || b->struct_size < sizeof *b || !b->allgather ||
	    !b->broadcast || b->nranks < 1 || b->rank < 0 ||
	    b->rank >= b->nranks)
		return cs_nccl_fail(NB_EINVAL,
				    "missing or malformed bootstrap");
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
	int rc = cs_nccl_cuda(cudaGetDeviceProperties(&prop, dev),
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
				return cs_nccl_fail(CS_NCCL_ERR_FEWDEV,
					"ranks %d and %d would share one GPU, "
					"and NCCL needs one GPU per rank: "
					"launch at most as many ranks per "
					"node as it has GPUs", a, b);
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
		return cs_nccl_fail(NB_ENOMEM, "bootstrap: out of memory");
	if (boot->allgather(boot->ctx, me, all, sizeof *me)) {
		free(all);
		return cs_nccl_fail(NB_EBOOT,
				    "allgather of the ranks' readiness");
	}
	for (q = 0; q < boot->nranks && !rc && !me->status; q++)
		if (all[q].status)
			rc = cs_nccl_fail(all[q].status == CS_NCCL_ERR_NODEV ?
					  CS_NCCL_ERR_NODEV : NB_EPEER,
					  "rank %d of %d cannot start: %s", q,
					  boot->nranks, cs_nccl_status_text(all[q].status));
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
		st = cs_nccl_set_device(dev);
	if (!st)
		st = nb_uuid(dev, me.uuid);
	if (!st && boot->rank == 0)
		st = cs_nccl_result(ncclGetUniqueId(&id), "ncclGetUniqueId",
				    NULL);
	me.status = st;
	if ((rc = nb_agree(boot, &me)) != 0)
		return rc;
	if (boot->broadcast(boot->ctx, &id, sizeof id, 0))
		return cs_nccl_fail(NB_EBOOT,
				    "broadcast of the NCCL unique id");
	return cs_nccl_result(ncclCommInitRank(nc, boot->nranks, id,
					       boot->rank),
			      "ncclCommInitRank", NULL);
}

/* ---- communicators ------------------------------------------------------- */

/* Learn c's rank and size from NCCL, once its initialisation is done. */
int cs_nccl_shape(struct nb_comm *c)
{
	int rc;

	if (c->nranks > 0)
		return 0;
	rc = cs_nccl_result(ncclCommCount(c->nc, &c->nranks), "ncclCommCount",
			    c->nc);
	if (!rc)
		rc = cs_nccl_result(ncclCommUserRank(c->nc, &c->rank),
				    "ncclCommUserRank", c->nc);
	if (rc)
		c->nranks = 0;
	return rc;
}

/* Release everything c holds; the first failure is returned (and
 * recorded), the rest is still released. */
static int nb_release(struct nb_comm *c)
{
	int rc = cs_nccl_set_device(c->dev), r;

	if (c->own) {
		r = cs_nccl_cuda(cudaStreamSynchronize(c->own),
				 "cudaStreamSynchronize");
		rc = rc ? rc : r;
		r = cs_nccl_cuda(cudaStreamDestroy(c->own),
				 "cudaStreamDestroy");
		rc = rc ? rc : r;
	}
	if (c->nc) {
		r = cs_nccl_result(ncclCommDestroy(c->nc), "ncclCommDestroy",
				   NULL);
		rc = rc ? rc : r;
	}
	r = cs_nccl_cuda(cudaFree(c->scratch), "cudaFree");
	rc = rc ? rc : r;
	r = cs_nccl_cuda(cudaFree(c->retired), "cudaFree");
	rc = rc ? rc : r;
	free(c);
	return rc;
}

/* Release c after a failure with status err, keeping err's message. */
static int nb_unwind(struct nb_comm *c, int err)
{
	char keep[CS_NCCL_DETAIL_MAX];

	cs_nccl_detail_save(keep);
	(void)nb_release(c);
	return cs_nccl_detail_restore(keep, err);
}

/* Wrap NCCL communicator nc (on device dev) with its stream; on failure
 * nc is destroyed. */
static int nb_wrap(ncclComm_t nc, int dev, int local, cs_bcomm_t *out)
{
	struct nb_comm *c = calloc(1, sizeof *c);
	int rc;

	if (!c) {
		(void)ncclCommDestroy(nc);
		return cs_nccl_fail(NB_ENOMEM, "communicator: out of memory");
	}
	c->nc = nc;
	c->dev = dev;
	c->local = local;
	rc = cs_nccl_set_device(dev);
	if (!rc)
		rc = cs_nccl_cuda(cudaStreamCreateWithFlags(&c->own,
					cudaStreamNonBlocking),
				  "cudaStreamCreateWithFlags");
	if (!rc)
		rc = cs_nccl_cuda(cudaDeviceGetAttribute(&c->cc_major,
				  cudaDevAttrComputeCapabilityMajor, dev),
			       "cudaDeviceGetAttribute");
	/* a split made inside a group is initialised at its group_end */
	if (!rc && !(local && cs_nccl_in_group()))
		rc = cs_nccl_shape(c);
	if (rc)
		return nb_unwind(c, rc);
	*out = c;
	return 0;
}

int cs_nccl_init(const cs_bootstrap_t *world, const char *options,
		 cs_bcomm_t *out)
{
	ncclComm_t nc = NULL;
	int ndev = 0, dev = 0, st, rc;

	if ((rc = nb_check_boot(world)) != 0)
		return rc;
	if (!out)
		return cs_nccl_fail(NB_EINVAL,
				    "init: NULL communicator pointer");
	st = nb_options(options);
	if (!st)
		st = cs_nccl_devices(&ndev);
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
	return cs_nccl_result(ncclCommSplit(c->nc, color, key, nc, NULL),
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
		return cs_nccl_fail(NB_EINVAL, "nccl-local: comm_split needs "
				    "ncclCommSplit (NCCL 2.18 or newer)");
	if ((rc = nb_check_boot(sub)) != 0)
		return rc;
	return nb_initrank(sub, c->dev, 0, nc);
}
#endif

int cs_nccl_comm_split(cs_bcomm_t comm, int color, int key,
		       const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	struct nb_comm *c = comm;
	ncclComm_t nc = NULL;
	int rc;

	if (!c || !out)
		return cs_nccl_fail(NB_EINVAL, "comm_split: NULL communicator");
	if (color < 0)
		return cs_nccl_fail(NB_EINVAL, "comm_split: negative color %d",
				    color);
	if ((rc = cs_nccl_grouped(c, "comm_split")) != 0 ||
	    (rc = cs_nccl_set_device(c->dev)) != 0 ||
	    (rc = nb_split_nccl(c, color, key, sub, &nc)) != 0)
		return rc;
	return nb_wrap(nc, c->dev, c->local, out);
}

int cs_nccl_comm_free(cs_bcomm_t comm)
{
	if (!comm)
		return cs_nccl_fail(NB_EINVAL, "comm_free: NULL communicator");
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

int cs_nccl_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	ncclComm_t *nc = NULL;
	int *devs = NULL, ndev = 0, i, rc;

	if (nranks < 1 || !comms)
		return cs_nccl_fail(NB_EINVAL, "init_all: %d ranks, comms %p",
				    nranks, (void *)comms);
	if ((rc = nb_options(options)) != 0 ||
	    (rc = cs_nccl_devices(&ndev)) != 0)
		return rc;
	if (nranks > ndev)
		return cs_nccl_fail(CS_NCCL_ERR_FEWDEV, "%d ranks need %d CUDA "
				    "devices (NCCL needs one GPU per rank), "
				    "but this process sees %d", nranks, nranks,
				    ndev);
	nc = calloc((size_t)nranks, sizeof *nc);
	devs = malloc((size_t)nranks * sizeof *devs);
	if (!nc || !devs) {
		rc = cs_nccl_fail(NB_ENOMEM, "init_all: out of memory");
		goto out_free;
	}
	for (i = 0; i < nranks; i++)
		devs[i] = i; /* rank i on device i */
	rc = cs_nccl_result(ncclCommInitAll(nc, nranks, devs),
			    "ncclCommInitAll", NULL);
	if (!rc)
		rc = nb_wrap_all(nc, nranks, comms);
out_free:
	free(devs);
	free(nc);
	return rc;
}
