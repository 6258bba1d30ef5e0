/*
 * runtime.cu - libcsgpu's host side of the collectives (csgpu/coll.h): the
 * world of P ranks over the visible devices, its step counters and scratch
 * buffers, and csg_run, which plans a call and launches one cooperative
 * grid per device (every (rank, channel) lane of that device's ranks).
 *
 * Ordering of one call: each device's launch stream waits for an event
 * recorded on every rank's stream (the inputs are ready everywhere, since
 * any rank may read any other's buffers), then runs the kernel; every
 * rank's stream then waits for every device's kernel (any rank's buffers
 * may be read by any kernel). The kernels also wait on the step counters
 * of the previous call before touching a buffer (step.cuh).
 *
 * A call that cannot finish (a lane waited past the timeout, or a launch
 * failed after other devices' grids started) is aborted through the
 * world's host-mapped abort record: every lane returns, the context stays
 * usable, and csg_world_check reports it and sets every counter back to
 * the world's bases, so the next call starts clean.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "csgpu/coll.h"
#include "csgpu/device.h"
#include "csgpu/lanes.h"
#include "csgpu/sched.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "kernels.h"
#include "lane_kernels.h"
#include "peer.h"

struct csg_world {
	int P;
	int ndev;                           /* devices used: min(seen, P) */
	int sms;                            /* SMs of the smallest device */
	int dev_sms[CSG_MAX_RANKS];         /* SMs of each used device */
	uint64_t *flag[CSG_MAX_RANKS];      /* CSG_MAX_CHAN counters each,
					       one per 128-byte line */
	void *tmp[CSG_MAX_RANKS];           /* scratch of each rank */
	size_t tmp_bytes[CSG_MAX_RANKS];
	uint64_t base[CSG_MAX_CHAN];        /* counters after the last call */
	cudaStream_t stream[CSG_MAX_RANKS]; /* per device: launches */
	cudaEvent_t ev_rank[CSG_MAX_RANKS]; /* per rank: inputs ready */
	cudaEvent_t ev_dev[CSG_MAX_RANKS];  /* per device: kernel done */
	size_t *vmat[CSG_MAX_RANKS];        /* per device: alltoallv matrix */
	size_t vmat_bytes[CSG_MAX_RANKS];
	csg_abort_t *abort;                 /* host-mapped (kernels.h) */
	uint64_t timeout_ns;                /* a lane's longest wait */
	int stall;                          /* test hook: csg_world_stall_next */
	csg_kargs_t args;                   /* of the call being launched */
};

/* A lane's longest wait by default: far beyond any step of a sane call. */
#define CSG_DEFAULT_TIMEOUT_NS (30ull * 1000 * 1000 * 1000)

/* A launch's arguments travel as one kernel parameter. */
static_assert(sizeof(csg_kargs_t) <= 4096, "csg_kargs_t exceeds 4 KiB");

/* The device of rank r. */
static int csg_dev(const csg_world_t *w, int r)
{
	return cs_dev_of_rank(r, w->ndev);
}

/* ---- the world ------------------------------------------------------------------ */

/* Every pair of used devices reaches the other's memory. */
static cs_status_t csg_enable_peers(csg_world_t *w)
{
	int d, e, ok;
	cudaError_t err;

	for (d = 0; d < w->ndev; d++) {
		for (e = 0; e < w->ndev; e++) {
			if (d == e)
				continue;
			err = cudaDeviceCanAccessPeer(&ok, d, e);
			if (err != cudaSuccess)
				return cs_gpu_error(err, "cudaDeviceCanAccessPeer");
			if (!ok)
				return cs_error(CS_ERR_UNSUPPORTED,
						"csg_world_create: device %d cannot "
						"access device %d's memory (no peer "
						"access)", d, e);
			if ((err = cudaSetDevice(d)) != cudaSuccess)
				return cs_gpu_error(err, "cudaSetDevice");
			err = csg_peer_outcome(cudaDeviceEnablePeerAccess(e, 0),
					       cudaGetLastError);
			if (err != cudaSuccess)
				return cs_gpu_error(err, "cudaDeviceEnablePeerAccess");
		}
	}
	return CS_OK;
}

/* Streams, events and the SM count of each used device. */
static cs_status_t csg_world_devices(csg_world_t *w)
{
	int d, r, coop, sms;
	cudaError_t err;

	w->sms = 0;
	for (d = 0; d < w->ndev; d++) {
		if ((err = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
						  d)) != cudaSuccess ||
		    (err = cudaDeviceGetAttribute(&sms,
						  cudaDevAttrMultiProcessorCount,
						  d)) != cudaSuccess)
			return cs_gpu_error(err, "cudaDeviceGetAttribute");
		if (!coop)
			return cs_error(CS_ERR_UNSUPPORTED,
					"csg_world_create: device %d has no "
					"cooperative launch", d);
		w->sms = w->sms == 0 || sms < w->sms ? sms : w->sms;
		w->dev_sms[d] = sms;
		if ((err = cudaSetDevice(d)) != cudaSuccess ||
		    (err = cudaStreamCreate(&w->stream[d])) != cudaSuccess ||
		    (err = cudaEventCreateWithFlags(&w->ev_dev[d],
						    cudaEventDisableTiming)) !=
			    cudaSuccess)
			return cs_gpu_error(err, "stream or event creation");
	}
	for (r = 0; r < w->P; r++) {
		if ((err = cudaSetDevice(csg_dev(w, r))) != cudaSuccess ||
		    (err = cudaEventCreateWithFlags(&w->ev_rank[r],
						    cudaEventDisableTiming)) !=
			    cudaSuccess)
			return cs_gpu_error(err, "event creation");
	}
	return CS_OK;
}

/* Every rank's counters set to the world's bases (channel c's on its own
 * line, kernels.h), done before returning (explicitly synchronised: the
 * kernels of any device read them). */
static cs_status_t csg_set_counters(csg_world_t *w)
{
	uint64_t lines[CSG_CTR_BYTES / sizeof(uint64_t)] = {0};
	cudaError_t err;
	int r, c;

	for (c = 0; c < CSG_MAX_CHAN; c++)
		lines[csg_ctr_index(c)] = w->base[c];
	for (r = 0; r < w->P; r++)
		if ((err = cudaSetDevice(csg_dev(w, r))) != cudaSuccess ||
		    (err = cudaMemcpy(w->flag[r], lines, sizeof(lines),
				      cudaMemcpyHostToDevice)) != cudaSuccess ||
		    (err = cudaDeviceSynchronize()) != cudaSuccess)
			return cs_gpu_error(err, "counter initialisation");
	return CS_OK;
}

/* Each rank's counters on its device, zeroed (the bases are 0), and the
 * abort record in host-mapped memory that every device reaches. */
static cs_status_t csg_world_flags(csg_world_t *w)
{
	cs_status_t st;
	cudaError_t err;
	void *dp;
	int r;

	for (r = 0; r < w->P; r++) {
		st = cs_dev_alloc(csg_dev(w, r), CSG_CTR_BYTES,
				  (void **)&w->flag[r]);
		if (st != CS_OK)
			return st;
	}
	if ((err = cudaHostAlloc((void **)&w->abort, sizeof(*w->abort),
				 cudaHostAllocMapped | cudaHostAllocPortable)) !=
		    cudaSuccess ||
	    (err = cudaHostGetDevicePointer(&dp, w->abort, 0)) != cudaSuccess)
		return cs_gpu_error(err, "abort record allocation");
	if (dp != (void *)w->abort)
		return cs_error(CS_ERR_UNSUPPORTED,
				"csg_world_create: host-mapped memory has a "
				"different device address (no unified "
				"addressing)");
	memset(w->abort, 0, sizeof(*w->abort));
	w->timeout_ns = CSG_DEFAULT_TIMEOUT_NS;
	w->stall = -1;
	return csg_set_counters(w);
}

cs_status_t csg_world_create(int P, csg_world_t **out)
{
	csg_world_t *w;
	cs_status_t st;
	int n, cur;

	if (!out)
		return cs_error(CS_ERR_INVALID, "csg_world_create: out is NULL");
	*out = NULL;
	if (P < 1 || P > CSG_MAX_RANKS)
		return cs_error(CS_ERR_INVALID,
				"csg_world_create: P = %d is not in 1..%d", P,
				CSG_MAX_RANKS);
	if ((st = cs_dev_find(&n)) != CS_OK)
		return st;
	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	w = (csg_world_t *)calloc(1, sizeof(*w));
	if (!w)
		return cs_error(CS_ERR_NOMEM, "csg_world_create: out of memory");
	w->P = P;
	w->ndev = n < P ? n : P;
	if ((st = csg_enable_peers(w)) != CS_OK ||
	    (st = csg_world_devices(w)) != CS_OK ||
	    (st = csg_world_flags(w)) != CS_OK) {
		csg_world_destroy(w);
		cudaSetDevice(cur);
		return st;
	}
	cudaSetDevice(cur);
	*out = w;
	return CS_OK;
}

void csg_world_destroy(csg_world_t *w)
{
	int d, r, cur;

	if (!w)
		return;
	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	(void)csg_world_sync(w);
	for (r = 0; r < w->P; r++) {
		cs_dev_free(csg_dev(w, r), w->flag[r]);
		cs_dev_free(csg_dev(w, r), w->tmp[r]);
		if (w->ev_rank[r])
			cudaEventDestroy(w->ev_rank[r]);
	}
	for (d = 0; d < w->ndev; d++) {
		cs_dev_free(d, w->vmat[d]);
		cudaSetDevice(d);
		if (w->stream[d])
			cudaStreamDestroy(w->stream[d]);
		if (w->ev_dev[d])
			cudaEventDestroy(w->ev_dev[d]);
	}
	if (w->abort)
		cudaFreeHost(w->abort);
	cudaGetLastError();
	cudaSetDevice(cur);
	free(w);
}

int csg_world_size(const csg_world_t *w)
{
	return w ? w->P : 0;
}

int csg_world_device(const csg_world_t *w, int r)
{
	if (!w || r < 0 || r >= w->P)
		return -1;
	return csg_dev(w, r);
}

/* Wait for every used device (the current device is left changed). */
static cs_status_t csg_sync_devices(csg_world_t *w)
{
	cs_status_t st = CS_OK, s;
	int d;

	for (d = 0; d < w->ndev; d++) {
		s = cs_gpu_error(cudaSetDevice(d), "cudaSetDevice");
		if (s == CS_OK)
			s = cs_gpu_error(cudaDeviceSynchronize(),
					 "collective kernel");
		if (st == CS_OK)
			st = s;
	}
	return st;
}

/* After an aborted call: wait for every lane to have returned, set the
 * counters back to the bases, clear the record; the message says what the
 * record held (x, copied before it is cleared). */
static cs_status_t csg_recover(csg_world_t *w)
{
	csg_abort_t x;
	cs_status_t st;

	st = csg_sync_devices(w);
	x = *w->abort;
	if (st == CS_OK)
		st = csg_set_counters(w);
	if (st != CS_OK)
		return st;
	memset(w->abort, 0, sizeof(*w->abort));
	if (!x.claim)
		return cs_error(CS_ERR_INTERNAL,
				"csgpu: call aborted after a failed launch; "
				"counters set back, the next call starts clean");
	return cs_error(CS_ERR_INTERNAL,
			"csgpu: call aborted: rank %d channel %d waited %.3f s "
			"for rank %d's counter to reach %llu (it was %llu); "
			"counters set back, the next call starts clean",
			x.rank, x.chan, (double)x.waited_ns * 1e-9, x.whom,
			x.want, x.got);
}

cs_status_t csg_world_check(csg_world_t *w)
{
	cs_status_t st;
	int cur;

	if (!w)
		return cs_error(CS_ERR_INVALID, "csg_world_check: world is NULL");
	if (!w->abort->flag)
		return CS_OK;
	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	st = csg_recover(w);
	cudaSetDevice(cur);
	return st;
}

cs_status_t csg_world_sync(csg_world_t *w)
{
	cs_status_t st;
	int cur;

	if (!w)
		return cs_error(CS_ERR_INVALID, "csg_world_sync: world is NULL");
	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	st = csg_sync_devices(w);
	cudaSetDevice(cur);
	if (st != CS_OK)
		return st;
	return csg_world_check(w);
}

cs_status_t csg_world_set_timeout(csg_world_t *w, double seconds)
{
	if (!w || !(seconds > 0) || seconds > 3600)
		return cs_error(CS_ERR_INVALID,
				"csg_world_set_timeout: %g s is not in (0, "
				"3600]%s", seconds, w ? "" : " (world is NULL)");
	w->timeout_ns = (uint64_t)(seconds * 1e9);
	return CS_OK;
}

cs_status_t csg_world_stall_next(csg_world_t *w, int rank)
{
	if (!w || rank < -1 || rank >= w->P)
		return cs_error(CS_ERR_INVALID,
				"csg_world_stall_next: rank %d is not in -1..%d",
				rank, w ? w->P - 1 : -1);
	w->stall = rank;
	return CS_OK;
}

/* ---- one call --------------------------------------------------------------------- */

/* Elements of rank r's send extent (the size of its TMP). */
static size_t csg_send_elems(const csg_call_t *c, int P, int r)
{
	size_t m = 0, e;
	int q;

	switch (c->coll) {
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_SCATTER:
		return c->n * (size_t)P;
	case CS_COLL_ALLTOALLV:
		for (q = 0; q < P; q++) {
			e = c->sdis[(size_t)r * P + q] + c->cnt[(size_t)r * P + q];
			m = e > m ? e : m;
		}
		return m;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLGATHER:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return c->n;
	}
}

/* The largest send extent of any rank, in elements. */
static size_t csg_max_send_elems(const csg_call_t *c, int P)
{
	size_t m = 0, e;
	int r;

	for (r = 0; r < P; r++) {
		e = csg_send_elems(c, P, r);
		m = e > m ? e : m;
	}
	return m;
}

/* Grow every rank's TMP to its send extent (waits for the world's work
 * first when a buffer must be replaced: kernels may still read it). */
static cs_status_t csg_grow_tmp(csg_world_t *w, const csg_call_t *c,
				size_t esize)
{
	cs_status_t st;
	size_t need;
	int r, synced = 0;

	for (r = 0; r < w->P; r++) {
		need = csg_send_elems(c, w->P, r) * esize;
		if (need <= w->tmp_bytes[r])
			continue;
		if (!synced && (st = csg_world_sync(w)) != CS_OK)
			return st;
		synced = 1;
		cs_dev_free(csg_dev(w, r), w->tmp[r]);
		w->tmp[r] = NULL;
		w->tmp_bytes[r] = 0;
		if ((st = cs_dev_alloc(csg_dev(w, r), need, &w->tmp[r])) != CS_OK)
			return st;
		w->tmp_bytes[r] = need;
	}
	return CS_OK;
}

/* Copy the alltoallv matrix (cnt, sdis, rdis) to every used device,
 * queued on the device's launch stream; point plan->v at device d's copy
 * in v[d]. */
static cs_status_t csg_put_vmat(csg_world_t *w, const csg_call_t *c,
				csg_vmat_t *v)
{
	size_t pp = (size_t)w->P * w->P, bytes = 3 * pp * sizeof(size_t);
	cs_status_t st;
	cudaError_t err;
	int d;

	for (d = 0; d < w->ndev; d++) {
		if (bytes > w->vmat_bytes[d]) {
			if ((st = csg_world_sync(w)) != CS_OK)
				return st;
			cs_dev_free(d, w->vmat[d]);
			w->vmat[d] = NULL;
			w->vmat_bytes[d] = 0;
			st = cs_dev_alloc(d, bytes, (void **)&w->vmat[d]);
			if (st != CS_OK)
				return st;
			w->vmat_bytes[d] = bytes;
		}
		if ((err = cudaSetDevice(d)) != cudaSuccess ||
		    (err = cudaMemcpyAsync(w->vmat[d], c->cnt, pp * sizeof(size_t),
					   cudaMemcpyHostToDevice,
					   w->stream[d])) != cudaSuccess ||
		    (err = cudaMemcpyAsync(w->vmat[d] + pp, c->sdis,
					   pp * sizeof(size_t),
					   cudaMemcpyHostToDevice,
					   w->stream[d])) != cudaSuccess ||
		    (err = cudaMemcpyAsync(w->vmat[d] + 2 * pp, c->rdis,
					   pp * sizeof(size_t),
					   cudaMemcpyHostToDevice,
					   w->stream[d])) != cudaSuccess)
			return cs_gpu_error(err, "alltoallv matrix copy");
		v[d].cnt = w->vmat[d];
		v[d].sdis = w->vmat[d] + pp;
		v[d].rdis = w->vmat[d] + 2 * pp;
	}
	return CS_OK;
}

/* The kernel that runs plan p's algorithm for the call. */
static const void *csg_kernel_of(const csg_plan_t *p, const csg_call_t *c)
{
	switch (p->algo) {
	case CSG_ALGO_RING:
		return csg_ring_kernel(c->coll, c->dtype, c->op);
	case CSG_ALGO_TREE:
		return csg_tree_kernel(c->coll, c->dtype, c->op);
	case CSG_ALGO_DIRECT:
	case CSG_ALGO_PAIRWISE:
		if (c->coll == CS_COLL_ALLTOALL || c->coll == CS_COLL_ALLTOALLV)
			return csg_alltoall_kernel(c->coll, c->dtype);
		return csg_direct_kernel(c->coll, c->dtype);
	case CSG_ALGO_AUTO: /* resolved before a plan is made */
	case CSG_NUM_ALGOS: /* not an algorithm */
	default:
		return NULL;
	}
}

/* The stream of rank r for this call. */
static cudaStream_t csg_rank_stream(const csg_world_t *w, int r,
				    void *const *stream)
{
	if (stream && stream[r])
		return (cudaStream_t)stream[r];
	return w->stream[csg_dev(w, r)];
}

/* Every device's launch stream waits for every rank's stream. */
static cs_status_t csg_chain_before(csg_world_t *w, void *const *stream)
{
	cudaError_t err;
	int r, d;

	for (r = 0; r < w->P; r++)
		if ((err = cudaSetDevice(csg_dev(w, r))) != cudaSuccess ||
		    (err = cudaEventRecord(w->ev_rank[r],
					   csg_rank_stream(w, r, stream))) !=
			    cudaSuccess)
			return cs_gpu_error(err, "cudaEventRecord");
	for (d = 0; d < w->ndev; d++)
		for (r = 0; r < w->P; r++)
			if ((err = cudaStreamWaitEvent(w->stream[d], w->ev_rank[r],
						       0)) != cudaSuccess)
				return cs_gpu_error(err, "cudaStreamWaitEvent");
	return CS_OK;
}

/* Every rank's stream waits for every device's kernel. */
static cs_status_t csg_chain_after(csg_world_t *w, void *const *stream)
{
	cudaError_t err;
	int r, d;

	for (d = 0; d < w->ndev; d++)
		if ((err = cudaSetDevice(d)) != cudaSuccess ||
		    (err = cudaEventRecord(w->ev_dev[d], w->stream[d])) !=
			    cudaSuccess)
			return cs_gpu_error(err, "cudaEventRecord");
	for (r = 0; r < w->P; r++)
		for (d = 0; d < w->ndev; d++)
			if ((err = cudaStreamWaitEvent(csg_rank_stream(w, r, stream),
						       w->ev_dev[d], 0)) !=
			    cudaSuccess)
				return cs_gpu_error(err, "cudaStreamWaitEvent");
	return CS_OK;
}

/* The arguments every launch of the call shares. */
static void csg_fill_args(const csg_world_t *w, const csg_call_t *c,
			  const csg_plan_t *p, csg_kargs_t *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	a->plan = *p;
	a->red.dtype = c->dtype;
	a->red.op = c->op;
	a->red.P = w->P;
	for (r = 0; r < w->P; r++) {
		a->red.scalar[r] = c->scalar[r];
		a->buf[r][CSG_SEND] = (void *)c->send[r];
		a->buf[r][CSG_RECV] = c->recv[r];
		a->buf[r][CSG_TMP] = w->tmp[r];
		a->flag[r] = w->flag[r];
	}
	memcpy(a->base, w->base, sizeof(a->base));
	a->abort = w->abort;
	a->timeout_ns = w->timeout_ns;
	a->stall = w->stall;
	a->sys = w->ndev > 1;
}

/* One cooperative launch per device: its ranks x nchan lanes. When a
 * launch fails, the grids already started are told to return (the abort
 * flag); the caller recovers the world. */
static cs_status_t csg_launch(csg_world_t *w, const void *fn, csg_kargs_t *a,
			      const csg_vmat_t *v)
{
	void *params[1] = {a};
	cudaError_t err;
	int d, r;

	for (d = 0; d < w->ndev; d++) {
		a->nrank = 0;
		for (r = 0; r < w->P; r++)
			if (csg_dev(w, r) == d)
				a->rank[a->nrank++] = (signed char)r;
		if (a->plan.coll == CS_COLL_ALLTOALLV)
			a->plan.v = v[d];
		if ((err = cudaSetDevice(d)) != cudaSuccess)
			return cs_gpu_error(err, "cudaSetDevice");
		err = cudaLaunchCooperativeKernel(
			fn, dim3((unsigned)(a->nrank * a->plan.nchan)),
			dim3(CSG_THREADS), params, 0, w->stream[d]);
		if (err != cudaSuccess) {
			w->abort->flag = 1;
			return cs_gpu_error(err, "collective kernel launch");
		}
	}
	return CS_OK;
}

/* Ranks of the world on device d. */
static int csg_ranks_on(const csg_world_t *w, int d)
{
	int r, n = 0;

	for (r = 0; r < w->P; r++)
		n += csg_dev(w, r) == d;
	return n;
}

/* Every device takes its grid of nchan lanes per rank: the co-resident
 * blocks of fn on each device (per SM, queried on that device, times its
 * SMs) are checked before anything is launched, so that no grid starts
 * and spins while another device's launch is refused. */
static cs_status_t csg_fits(const csg_world_t *w, const void *fn, int nchan)
{
	int d, per_sm, need;
	cudaError_t err;

	for (d = 0; d < w->ndev; d++) {
		per_sm = 0;
		if ((err = cudaSetDevice(d)) != cudaSuccess ||
		    (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			     &per_sm, fn, CSG_THREADS, 0)) != cudaSuccess)
			return cs_gpu_error(err, "occupancy query");
		need = nchan * csg_ranks_on(w, d);
		if (need > per_sm * w->dev_sms[d])
			return cs_error(CS_ERR_INVALID,
					"csg_run: %d channel(s) x %d rank(s) on "
					"device %d = %d blocks, but at most %d "
					"blocks of this kernel are co-resident "
					"there (%d per SM x %d SMs)", nchan,
					csg_ranks_on(w, d), d, need,
					per_sm * w->dev_sms[d], per_sm,
					w->dev_sms[d]);
	}
	return CS_OK;
}

/* Channels and slices of the call: the caller's, or csg_lanes_choose's
 * for the plan's (resolved) algorithm from the occupancy of fn on device 0
 * times the smallest device's SMs; then csg_fits on every device. */
static cs_status_t csg_lanes(const csg_world_t *w, const csg_call_t *c,
			     const csg_plan_t *p, const void *fn, size_t bytes,
			     int *nchan, int *nslices)
{
	int per_sm = 0, rpd = (w->P + w->ndev - 1) / w->ndev;
	csg_lane_dev_t d;
	cudaError_t err;

	if ((err = cudaSetDevice(0)) != cudaSuccess ||
	    (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		     &per_sm, fn, CSG_THREADS, 0)) != cudaSuccess)
		return cs_gpu_error(err, "occupancy query");
	d.sms = w->sms;
	d.blocks_per_sm = per_sm;
	d.ranks_per_dev = rpd;
	csg_lanes_choose(bytes, p->coll, p->algo, d, nchan, nslices);
	if (c->nchan > 0)
		*nchan = c->nchan;
	if (c->nslices > 0)
		*nslices = c->nslices;
	if (*nchan < 1 || *nchan > CSG_MAX_CHAN)
		return cs_error(CS_ERR_INVALID,
				"csg_run: %d channel(s), but 1..%d exist",
				*nchan, CSG_MAX_CHAN);
	return csg_fits(w, fn, *nchan);
}

/* The call's arguments, as far as the plan does not check them. */
static cs_status_t csg_check_call(const csg_world_t *w, const csg_call_t *c)
{
	if (!w || !c)
		return cs_error(CS_ERR_INVALID, "csg_run: world or call is NULL");
	if ((unsigned)c->coll >= CS_NUM_COLLS ||
	    (unsigned)c->dtype >= CS_NUM_DTYPES ||
	    (unsigned)c->algo >= CSG_NUM_ALGOS ||
	    (csg_reduces(c->coll) && (unsigned)c->op >= CS_NUM_OPS))
		return cs_error(CS_ERR_INVALID,
				"csg_run: collective %d, dtype %d, op %d or "
				"algorithm %d is out of range", (int)c->coll,
				(int)c->dtype, (int)c->op, (int)c->algo);
	if (c->nchan < 0 || c->nslices < 0)
		return cs_error(CS_ERR_INVALID,
				"csg_run: nchan %d or nslices %d is negative",
				c->nchan, c->nslices);
	return CS_OK;
}

/* Plan the call (AUTO resolved) with nchan channels and nslices slices. */
static cs_status_t csg_plan_call(const csg_world_t *w, const csg_call_t *c,
				 int nchan, int nslices, csg_plan_t *p)
{
	csg_vmat_t v = {c->cnt, c->sdis, c->rdis};

	if (csg_plan_init(p, c->coll, c->algo, w->P, c->root, c->inplace, c->n,
			  (size_t)cs_size_of(c->dtype), nchan, nslices, v) != 0)
		return cs_error(CS_ERR_INVALID,
				"csg_run: no plan for %s with algorithm %d, P = "
				"%d, root %d%s", cs_coll_name(c->coll),
				(int)c->algo, w->P, c->root,
				c->coll == CS_COLL_ALLTOALLV &&
						(!c->cnt || !c->sdis || !c->rdis)
					? " (alltoallv without its matrix)"
					: "");
	return CS_OK;
}

/* The kernel, the bytes per rank and the plan (lanes chosen) of a call. */
static cs_status_t csg_prepare(const csg_world_t *w, const csg_call_t *call,
			       const void **fn, csg_plan_t *p)
{
	size_t esize, bytes;
	cs_status_t st;
	int nchan, nslices;

	if ((st = csg_check_call(w, call)) != CS_OK ||
	    (st = csg_plan_call(w, call, 1, 1, p)) != CS_OK)
		return st;
	esize = (size_t)cs_size_of(call->dtype);
	bytes = call->coll == CS_COLL_ALLTOALLV
			? csg_max_send_elems(call, w->P) * esize
			: call->n * esize;
	if (!(*fn = csg_kernel_of(p, call)))
		return cs_error(CS_ERR_INVALID,
				"csg_run: no kernel for %s, dtype %d, op %d",
				cs_coll_name(call->coll), (int)call->dtype,
				(int)call->op);
	if ((st = csg_lanes(w, call, p, *fn, bytes, &nchan, &nslices)) != CS_OK)
		return st;
	return csg_plan_call(w, call, nchan, nslices, p);
}

cs_status_t csg_plan_of(const csg_world_t *w, const csg_call_t *call,
			csg_plan_t *plan)
{
	const void *fn;
	cs_status_t st;
	int cur;

	if (!plan)
		return cs_error(CS_ERR_INVALID, "csg_plan_of: plan is NULL");
	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	st = csg_prepare(w, call, &fn, plan);
	cudaSetDevice(cur);
	return st;
}

cs_status_t csg_run(csg_world_t *w, const csg_call_t *call,
		    void *const *stream)
{
	csg_vmat_t v[CSG_MAX_RANKS];
	const void *fn;
	cs_status_t st;
	csg_plan_t p;
	int c, cur;

	if (cudaGetDevice(&cur) != cudaSuccess)
		cur = 0;
	if (w && w->abort->flag) { /* an aborted call nobody checked */
		st = csg_recover(w);
		goto out;
	}
	if ((st = csg_prepare(w, call, &fn, &p)) != CS_OK ||
	    (st = csg_grow_tmp(w, call, (size_t)cs_size_of(call->dtype))) !=
		    CS_OK ||
	    (st = csg_chain_before(w, stream)) != CS_OK)
		goto out;
	if (call->coll == CS_COLL_ALLTOALLV &&
	    (st = csg_put_vmat(w, call, v)) != CS_OK)
		goto out;
	csg_fill_args(w, call, &p, &w->args);
	w->stall = -1; /* the hook holds for one call */
	if ((st = csg_launch(w, fn, &w->args, v)) != CS_OK) {
		char why[256];

		snprintf(why, sizeof(why), "%s", cs_last_error());
		(void)csg_recover(w);
		st = cs_error(st, "%s", why);
		goto out;
	}
	for (c = 0; c < p.nchan; c++)
		w->base[c] += (uint64_t)csg_nsteps(&p);
	st = csg_chain_after(w, stream);
out:
	cudaSetDevice(cur);
	return st;
}
