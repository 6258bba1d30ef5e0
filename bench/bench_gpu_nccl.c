/*
 * bench_gpu_nccl.c - NCCL's allreduce across the local GPUs, one rank per
 * device, as bench_gpu's yardstick for busbw (bench_gpu.h). Built only
 * with NCCL (CS_HAVE_NCCL); the project finds it in
 * cmake/FindNCCLLocal.cmake, and conformance/backend_nccl*.c are the
 * harness's full use of it.
 */
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "bench_gpu.h"

struct gb_nccl {
	int ndev;
	ncclComm_t *comm; /* comm[i]: rank i, on device i */
};

/* An NCCL result as a status naming the call. */
static cs_status_t gb_nccl_status(ncclResult_t r, const char *what)
{
	if (r == ncclSuccess)
		return CS_OK;
	return cs_error(CS_ERR_UNSUPPORTED, "%s failed: %s", what,
			ncclGetErrorString(r));
}

/* The NCCL type of a catalog dtype; -1 where bench_gpu does not compare
 * (the fp8 types, which only newer NCCLs have). */
static int gb_nccl_type(cs_dtype_t d)
{
	switch (d) {
	case CS_DTYPE_INT8:
		return ncclInt8;
	case CS_DTYPE_UINT8:
		return ncclUint8;
	case CS_DTYPE_INT32:
		return ncclInt32;
	case CS_DTYPE_UINT32:
		return ncclUint32;
	case CS_DTYPE_INT64:
		return ncclInt64;
	case CS_DTYPE_UINT64:
		return ncclUint64;
	case CS_DTYPE_FLOAT16:
		return ncclFloat16;
	case CS_DTYPE_BFLOAT16:
		return ncclBfloat16;
	case CS_DTYPE_FLOAT32:
		return ncclFloat32;
	case CS_DTYPE_FLOAT64:
		return ncclFloat64;
	case CS_DTYPE_FLOAT8_E4M3:
	case CS_DTYPE_FLOAT8_E5M2:
	case CS_NUM_DTYPES: /* not a dtype */
	default:
		return -1;
	}
}

cs_status_t gb_nccl_open(int ndev, gb_nccl_t **out)
{
	gb_nccl_t *g;
	int *devs, i;
	cs_status_t st;

	if (!out || ndev < 1)
		return cs_error(CS_ERR_INVALID, "gb_nccl_open: %d devices",
				ndev);
	*out = NULL;
	g = calloc(1, sizeof *g);
	devs = malloc((size_t)ndev * sizeof *devs);
	if (!g || !devs) {
		st = cs_error(CS_ERR_NOMEM, "gb_nccl_open: out of memory");
		goto out_free_g;
	}
	g->comm = calloc((size_t)ndev, sizeof *g->comm);
	if (!g->comm) {
		st = cs_error(CS_ERR_NOMEM, "gb_nccl_open: out of memory");
		goto out_free_g;
	}
	for (i = 0; i < ndev; i++)
		devs[i] = i;
	st = gb_nccl_status(ncclCommInitAll(g->comm, ndev, devs),
			    "ncclCommInitAll");
	if (st != CS_OK)
		goto out_free_g;
	g->ndev = ndev;
	*out = g;
	free(devs);
	return CS_OK;
out_free_g:
	if (g)
		free(g->comm);
	free(g);
	free(devs);
	return st;
}

cs_status_t gb_nccl_allreduce(gb_nccl_t *g, cs_dtype_t dtype, size_t count,
			      const void *const *send, void *const *recv,
			      void *const *stream)
{
	int t = gb_nccl_type(dtype), i;
	cs_status_t st = CS_OK;

	if (!g || !send || !recv || !stream)
		return cs_error(CS_ERR_INVALID, "gb_nccl_allreduce: NULL");
	if (t < 0)
		return cs_error(CS_ERR_UNSUPPORTED, "no NCCL type for %d",
				(int)dtype);
	if ((st = gb_nccl_status(ncclGroupStart(), "ncclGroupStart")) != CS_OK)
		return st;
	for (i = 0; i < g->ndev && st == CS_OK; i++)
		st = gb_nccl_status(ncclAllReduce(send[i], recv[i], count,
						  (ncclDataType_t)t, ncclSum,
						  g->comm[i],
						  (cudaStream_t)stream[i]),
				    "ncclAllReduce");
	/* the group is closed whatever happened inside it */
	if (st == CS_OK)
		return gb_nccl_status(ncclGroupEnd(), "ncclGroupEnd");
	(void)ncclGroupEnd();
	return st;
}

void gb_nccl_close(gb_nccl_t *g)
{
	int i;

	if (!g)
		return;
	for (i = 0; i < g->ndev; i++)
		ncclCommDestroy(g->comm[i]);
	free(g->comm);
	free(g);
}
