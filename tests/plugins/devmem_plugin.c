/*
 * devmem_plugin.c - a device-memory plugin (CS_MEM_CUDA, one rank per
 * process) for the harness's GPU tests: the harness's device buffers,
 * guards, copies and stream, end to end.
 *
 * allreduce, allgather and broadcast stage through host memory: the input
 * is copied from the device, every rank's input goes round the bootstrap
 * channel, the result (csref's arithmetic, ranks folded in rank order) is
 * copied back to the device on the harness's stream. init makes device
 * (local rank mod device count) current, as a real backend would; the
 * harness allocates the buffers on that device after init.
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "collspec/backend.h"
#include "csref/arith.h"
#include "csref/reduce.h"

#define DM_ECUDA 1
#define DM_ENOMEM 2
#define DM_EBOOT 3

static const char *dm_cuda_msg = "";

struct dm_comm {
	const cs_bootstrap_t *boot;
};

static int dm_cuda(cudaError_t e)
{
	if (e == cudaSuccess)
		return 0;
	dm_cuda_msg = cudaGetErrorString(e);
	return DM_ECUDA;
}

static int dm_wrap(const cs_bootstrap_t *boot, cs_bcomm_t *out)
{
	struct dm_comm *c = malloc(sizeof *c);

	if (!c)
		return DM_ENOMEM;
	c->boot = boot;
	*out = c;
	return 0;
}

static int dm_init(const cs_bootstrap_t *world, const char *options,
		   cs_bcomm_t *out)
{
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	int n = 0, rc;

	(void)options;
	if ((rc = dm_cuda(cudaGetDeviceCount(&n))) != 0)
		return rc;
	if ((rc = dm_cuda(cudaSetDevice((lr ? atoi(lr) : world->rank) % n))))
		return rc;
	return dm_wrap(world, out);
}

static int dm_split(cs_bcomm_t comm, int color, int key,
		    const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	(void)comm, (void)color, (void)key;
	return dm_wrap(sub, out);
}

static int dm_free(cs_bcomm_t comm)
{
	free(comm);
	return 0;
}

/* Every rank's `bytes` of device input, gathered on the host. */
static unsigned char *dm_gather(const cs_bootstrap_t *b, const void *dev,
				size_t bytes, int *rc)
{
	unsigned char *mine = malloc(bytes + 1);
	unsigned char *all = malloc(bytes * (size_t)b->nranks + 1);

	*rc = mine && all ? 0 : DM_ENOMEM;
	if (!*rc)
		*rc = dm_cuda(cudaMemcpy(mine, dev, bytes,
					 cudaMemcpyDeviceToHost));
	if (!*rc && b->allgather(b->ctx, mine, all, bytes))
		*rc = DM_EBOOT;
	free(mine);
	if (*rc) {
		free(all);
		return NULL;
	}
	return all;
}

static int dm_put(void *dev, const void *host, size_t bytes, void *stream)
{
	return dm_cuda(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice,
				       (cudaStream_t)stream));
}

static int dm_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t comm,
			void *stream)
{
	const cs_bootstrap_t *b = ((struct dm_comm *)comm)->boot;
	size_t es = cs_dtype_size(d), bytes = count * es;
	uint64_t *sc = malloc((size_t)b->nranks * sizeof *sc), mine;
	unsigned char *all, *out = malloc(bytes + 1), *tmp = malloc(bytes + 1);
	int q, rc = sc && out && tmp ? 0 : DM_ENOMEM;

	mine = scalar ? cs_load(d, scalar, 0) : 0;
	if (!rc && b->allgather(b->ctx, &mine, sc, sizeof mine))
		rc = DM_EBOOT;
	all = rc ? NULL : dm_gather(b, s, bytes, &rc);
	for (q = 0; !rc && q < b->nranks; q++) {
		cs_op_prepare(d, op, b->nranks, sc[q], q ? tmp : out,
			      all + (size_t)q * bytes, count);
		if (q)
			cs_reduce_bufs(d, op, out, tmp, count);
	}
	if (!rc) {
		cs_op_finish(d, op, b->nranks, out, count);
		rc = dm_put(r, out, bytes, stream);
		rc = rc ? rc : dm_cuda(cudaStreamSynchronize(stream));
	}
	free(all);
	free(sc);
	free(out);
	free(tmp);
	return rc;
}

static int dm_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t comm, void *stream)
{
	const cs_bootstrap_t *b = ((struct dm_comm *)comm)->boot;
	size_t bytes = count * cs_dtype_size(d);
	unsigned char *all;
	int rc;

	all = dm_gather(b, s, bytes, &rc);
	if (!rc)
		rc = dm_put(r, all, bytes * (size_t)b->nranks, stream);
	if (!rc)
		rc = dm_cuda(cudaStreamSynchronize(stream));
	free(all);
	return rc;
}

static int dm_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			int root, cs_bcomm_t comm, void *stream)
{
	const cs_bootstrap_t *b = ((struct dm_comm *)comm)->boot;
	size_t bytes = count * cs_dtype_size(d);
	unsigned char *buf = malloc(bytes + 1);
	int rc = buf ? 0 : DM_ENOMEM;

	if (!rc && b->rank == root)
		rc = dm_cuda(cudaMemcpy(buf, s, bytes, cudaMemcpyDeviceToHost));
	if (!rc && b->broadcast(b->ctx, buf, bytes, root))
		rc = DM_EBOOT;
	if (!rc)
		rc = dm_put(r, buf, bytes, stream);
	if (!rc)
		rc = dm_cuda(cudaStreamSynchronize(stream));
	free(buf);
	return rc;
}

static int dm_sync(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	return dm_cuda(cudaStreamSynchronize((cudaStream_t)stream));
}

static const char *dm_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	if (err == DM_ECUDA)
		return dm_cuda_msg;
	return err == DM_ENOMEM ? "out of memory" : "bootstrap failed";
}

static const cs_backend_t devmem_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "devmem",
	.description = "device memory staged through the host (tests only)",
	.mem_kind = CS_MEM_CUDA,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = dm_init,
	.comm_split = dm_split,
	.comm_free = dm_free,
	.allreduce = dm_allreduce,
	.allgather = dm_allgather,
	.broadcast = dm_broadcast,
	.synchronize = dm_sync,
	.error_string = dm_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &devmem_backend;
}
