/*
 * step.cuh - the block-level executor of libcsgpu's collectives: one thread
 * block is one (rank, channel) lane and runs that lane's part of a plan
 * (csgpu/sched.h) step by step.
 *
 * Per step t of csg_nsteps(plan):
 *   1. wait until every peer csg_peer(plan, r, i) of this channel has
 *      finished step t - 1 (its counter, read with acquire loads, reaches
 *      base + t);
 *   2. resolve the ops of every slice active at t (csg_slice_step,
 *      csg_nops, csg_get_op) into the block's shared op table, one thread
 *      per op (the schedule's divisions run once per op and step, not in
 *      the element loop), then run them all with all threads of the block:
 *      dst[j] = post(fold pre_i(src_i[j])), element for element what
 *      csgpu/exec.h's csg_apply computes, folded in the same order. There
 *      is no barrier between the ops of a step: the symbolic checker
 *      proves that no slot one of them writes is read or written by
 *      another op or slice of the same rank and step (docs/gpu.md,
 *      section 5, "Hazards"). A table holds CSG_LANE_OPS ops; a step with
 *      more runs them in tables one after the other (a barrier between
 *      tables only guards the table's reuse);
 *   3. publish: a barrier, then a release store of base + t + 1 into the
 *      lane's counter by thread 0. The release is cumulative (PTX memory
 *      model): the barrier orders every thread's stores of the step before
 *      it, so a peer that reads the count with an acquire load sees them;
 *      no separate fence is issued.
 * Counters are released and acquired at GPU scope when every rank of the
 * world is on one device, at system scope otherwise (kernels.h, sys), and
 * each lane's counter sits on its own 128-byte line.
 * A wait polls the world's abort flag (host-mapped) and gives up after the
 * call's timeout, recording which lane waited for whom; the block then
 * returns, and so does every other lane at its next wait (no trap: the
 * context stays usable for the next call).
 * Before step 0 the lane waits until every lane of every rank has finished
 * the previous call (counters reach the call's bases): buffers are reused
 * and the peers of one call are not those of the next.
 *
 * Data moves by loads from any rank's buffer (peer pointers from the
 * launch's table) and stores into this rank's own RECV and TMP. Loads
 * bypass L1 (ld.global.cg), so nothing read before a wait is served stale
 * after it. The body of an op uses 16-byte vectors when the destination
 * and every source have the same address modulo 16, with a scalar head
 * and tail; otherwise a scalar loop, so any element-aligned pointer and
 * any count work. In the vector body each thread keeps CSG_UNROLL vectors
 * of every source in flight: it issues all their loads, then folds, then
 * stores (the same fold per element, so the same bits).
 *
 * Each .cu file that includes this header gets one copy of the schedule
 * lookups (csg_lane_op and friends, not inlined) and instantiates
 * csg_lane_main with an element policy: csg_copy_elems<ES> for copy
 * collectives (lane_copy.cu), csg_arith<D, O> (native.cuh) for
 * reductions (lane_reduce.cuh, one file per part of the dtypes). Each
 * kernel is compiled once and serves every algorithm (lane_kernels.h).
 */
#ifndef CSGPU_STEP_CUH
#define CSGPU_STEP_CUH

#include <stdint.h>
#include "csgpu/exec.h"
#include "csgpu/functor.h"
#include "csgpu/sched.h"
#include "kernels.h"
#include "lane_kernels.h"
#include "native.cuh"

/* ---- counters --------------------------------------------------------------- */

/* Acquire load of a counter: system scope when sys, else GPU scope. */
static __device__ __forceinline__ uint64_t csg_ld_acquire(const uint64_t *p,
							  int sys)
{
	uint64_t v;

	if (sys)
		asm volatile("ld.acquire.sys.global.u64 %0, [%1];"
			     : "=l"(v)
			     : "l"(p)
			     : "memory");
	else
		asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
			     : "=l"(v)
			     : "l"(p)
			     : "memory");
	return v;
}

/* Release store of a counter: system scope when sys, else GPU scope. */
static __device__ __forceinline__ void csg_st_release(uint64_t *p, uint64_t v,
						      int sys)
{
	if (sys)
		asm volatile("st.release.sys.global.u64 [%0], %1;"
			     :
			     : "l"(p), "l"(v)
			     : "memory");
	else
		asm volatile("st.release.gpu.global.u64 [%0], %1;"
			     :
			     : "l"(p), "l"(v)
			     : "memory");
}

static __device__ __forceinline__ uint64_t csg_now_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* The world's abort flag is set (a volatile load of host-mapped memory). */
static __device__ __forceinline__ bool csg_aborted(const csg_kargs_t *a)
{
	return a->abort->flag != 0;
}

/* Give up the call: fill the abort record (the first lane to claim it)
 * and set the flag every lane polls. */
static __device__ __noinline__ void csg_give_up(const csg_kargs_t *a, int r,
						int chan, int whom,
						uint64_t want, uint64_t got,
						uint64_t waited)
{
	csg_abort_t *x = a->abort;

	if (atomicCAS_system(&x->claim, 0u, 1u) == 0u) {
		x->rank = r;
		x->chan = chan;
		x->whom = whom;
		x->want = want;
		x->got = got;
		x->waited_ns = waited;
		__threadfence_system();
	}
	x->flag = 1;
	__threadfence_system();
}

/* Spin until *p >= want (acquire, scope a->sys): true; false when the call
 * was aborted meanwhile, or when the wait outlasted a->timeout_ns, which
 * aborts it (the record names this lane and whom it waited for). */
static __device__ __noinline__ bool csg_wait_ge(const csg_kargs_t *a,
						const uint64_t *p,
						uint64_t want, int r, int chan,
						int whom)
{
	uint64_t t0 = 0, now;
	unsigned spins = 0;

	while (csg_ld_acquire(p, a->sys) < want) {
		if (++spins < 64)
			continue;
		__nanosleep(64);
		if ((spins & 255) != 0)
			continue;
		if (csg_aborted(a))
			return false;
		now = csg_now_ns();
		if (t0 == 0) {
			t0 = now;
		} else if (now - t0 > a->timeout_ns) {
			csg_give_up(a, r, chan, whom, want,
				    csg_ld_acquire(p, a->sys),
				    now - t0);
			return false;
		}
	}
	return true;
}

/* ---- the schedule, one out-of-line copy per file ---------------------------- */

static __device__ __noinline__ csg_op_t csg_lane_op(const csg_plan_t *p, int r,
						    int s, int k, int i)
{
	return csg_get_op(p, r, s, k, i);
}

static __device__ __noinline__ int csg_lane_nops(const csg_plan_t *p, int r,
						 int s)
{
	return csg_nops(p, r, s);
}

/* This thread's peer to wait for (thread i: peer i), or -1. */
static __device__ __noinline__ int csg_lane_peer(const csg_plan_t *p, int r)
{
	int i = (int)threadIdx.x;

	return i < csg_npeers(p, r) ? csg_peer(p, r, i) : -1;
}

/* ---- element policies --------------------------------------------------------- */

/* Copies of ES-byte elements: an op is one source, no pre, no post. */
template <int ES> struct csg_copy_elems {
	typedef typename cs_gpu_uint<ES>::type elem_t;
	static const bool has_pre = false;
	static const bool has_post = false;
	static const bool pre_packed = false;
	static const bool step_packed = false;
	static const int max_src = 1; /* copies have one source */

	static __device__ __forceinline__ elem_t step(elem_t a, elem_t b)
	{
		return a; /* never called: nsrc == 1 */
	}
	static __device__ __forceinline__ elem_t pre(elem_t x, elem_t s)
	{
		return x;
	}
	static __device__ __forceinline__ uint32_t step2(uint32_t a, uint32_t b)
	{
		return a;
	}
	static __device__ __forceinline__ uint32_t pre2(uint32_t w, uint32_t s)
	{
		return w;
	}
	static __device__ __forceinline__ elem_t post(elem_t x, int P)
	{
		return x;
	}
	static __device__ __forceinline__ elem_t scalar(const uint64_t *scal,
							int P, int r)
	{
		return 0;
	}
};

/* ---- one op ----------------------------------------------------------------------- */

/* 16-byte vectors of every source that each thread keeps in flight in the
 * vector body of an op (all loaded before the first is folded). */
#define CSG_UNROLL 4

/* Ops of one step a lane resolves at a time: its shared op table. */
#define CSG_LANE_OPS 64

/* An op resolved for element type T: pointers, per-source pre scalars, and
 * its length (0: nothing to do). An entry of the lane's op table. */
template <class A> struct csg_opv {
	typedef typename A::elem_t elem_t;
	elem_t *dst;
	const elem_t *src[CSG_MAX_SRC];
	elem_t sc[CSG_MAX_SRC];   /* pre scalar of source i */
	bool pre[CSG_MAX_SRC];    /* source i gets its pre */
	int nsrc;
	bool post;
	int P;
	size_t n;
};

/* 16 bytes of elements. */
template <typename T> union csg_vec {
	uint4 v;
	uint32_t w[4];
	T e[16 / sizeof(T)];
};

/* Element j of op x: post(fold pre_i(src_i[j])). */
template <class A>
static __device__ __forceinline__ void csg_elem(const csg_opv<A> &x, size_t j)
{
	typedef typename A::elem_t T;
	T acc = 0;

#pragma unroll
	for (int i = 0; i < CSG_MAX_SRC; i++) {
		if (i < x.nsrc) {
			T v = __ldcg(x.src[i] + j);

			if (A::has_pre && x.pre[i])
				v = A::pre(v, x.sc[i]);
			acc = i == 0 ? v : A::step(acc, v);
		}
	}
	if (A::has_post && x.post)
		acc = A::post(acc, x.P);
	x.dst[j] = acc;
}

/* Lane by lane of a vector: pre of source i, in place. */
template <class A>
static __device__ __forceinline__ void csg_vec_pre(csg_vec<typename A::elem_t> &v,
						   typename A::elem_t s)
{
	typedef typename A::elem_t T;

	if (A::pre_packed) {
		uint32_t ss = (uint32_t)s | (uint32_t)s << 16;

#pragma unroll
		for (int w = 0; w < 4; w++)
			v.w[w] = A::pre2(v.w[w], ss);
	} else {
#pragma unroll
		for (int l = 0; l < (int)(16 / sizeof(T)); l++)
			v.e[l] = A::pre(v.e[l], s);
	}
}

/* acc = acc STEP v, lane by lane (two lanes per word where packed). */
template <class A>
static __device__ __forceinline__ void csg_vec_step(csg_vec<typename A::elem_t> &acc,
						    const csg_vec<typename A::elem_t> &v)
{
	typedef typename A::elem_t T;

	if (A::step_packed) {
#pragma unroll
		for (int w = 0; w < 4; w++)
			acc.w[w] = A::step2(acc.w[w], v.w[w]);
	} else {
#pragma unroll
		for (int l = 0; l < (int)(16 / sizeof(T)); l++)
			acc.e[l] = A::step(acc.e[l], v.e[l]);
	}
}

/*
 * Vectors q + u * stride, u < U (16 bytes each, at element offset
 * 16 / sizeof(T) times that from base), of op x with NS sources, where
 * dst + base and every src + base are 16-byte aligned: the NS x U loads
 * first, then each vector's fold (pre of source 0, then STEP pre of
 * source i for i = 1.., then post: csg_apply's order), then the U stores.
 */
template <class A, int NS, int U>
static __device__ __forceinline__ void csg_vec_group(const csg_opv<A> &x,
						     size_t base, size_t q,
						     size_t stride)
{
	typedef typename A::elem_t T;
	csg_vec<T> v[NS][U];

#pragma unroll
	for (int i = 0; i < NS; i++)
#pragma unroll
		for (int u = 0; u < U; u++)
			v[i][u].v = __ldcg((const uint4 *)(x.src[i] + base) + q +
					   u * stride);
#pragma unroll
	for (int u = 0; u < U; u++) {
#pragma unroll
		for (int i = 0; i < NS; i++) {
			if (A::has_pre && x.pre[i])
				csg_vec_pre<A>(v[i][u], x.sc[i]);
			if (i > 0)
				csg_vec_step<A>(v[0][u], v[i][u]);
		}
		if (A::has_post && x.post) {
#pragma unroll
			for (int l = 0; l < (int)(16 / sizeof(T)); l++)
				v[0][u].e[l] = A::post(v[0][u].e[l], x.P);
		}
	}
#pragma unroll
	for (int u = 0; u < U; u++)
		((uint4 *)(x.dst + base))[q + u * stride] = v[0][u].v;
}

/* The nv vectors of op x from base with the block's threads, NS sources:
 * CSG_UNROLL per thread at a time, the rest one at a time. */
template <class A, int NS>
static __device__ void csg_vec_body(const csg_opv<A> &x, size_t base,
				    size_t nv)
{
	const size_t nt = blockDim.x;
	size_t q = threadIdx.x;

	for (; q + (CSG_UNROLL - 1) * nt < nv; q += CSG_UNROLL * nt)
		csg_vec_group<A, NS, CSG_UNROLL>(x, base, q, nt);
	for (; q < nv; q += nt)
		csg_vec_group<A, NS, 1>(x, base, q, nt);
}

/* NS, or 1 beyond the policy's sources (never run: keeps copies small). */
template <class A, int NS> struct csg_ns {
	enum { n = NS <= A::max_src ? NS : 1 };
};

/* Run op x over its n elements with the block's threads. */
template <class A>
static __device__ void csg_run_elems(const csg_opv<A> &x)
{
	typedef typename A::elem_t T;
	const size_t V = 16 / sizeof(T), nt = blockDim.x, n = x.n;
	uintptr_t mis = (uintptr_t)x.dst % 16;
	size_t head, nv, j;
	bool same = true;

	for (int i = 0; i < x.nsrc; i++)
		same = same && (uintptr_t)x.src[i] % 16 == mis;
	if (!same) {
		for (j = threadIdx.x; j < n; j += nt)
			csg_elem<A>(x, j);
		return;
	}
	head = mis ? (16 - mis) / sizeof(T) : 0;
	if (head > n)
		head = n;
	nv = (n - head) / V;
	for (j = threadIdx.x; j < head; j += nt)
		csg_elem<A>(x, j);
	if (x.nsrc == 1)
		csg_vec_body<A, 1>(x, head, nv);
	else if (x.nsrc == 2)
		csg_vec_body<A, csg_ns<A, 2>::n>(x, head, nv);
	else
		csg_vec_body<A, csg_ns<A, 3>::n>(x, head, nv);
	for (j = head + nv * V + threadIdx.x; j < n; j += nt)
		csg_elem<A>(x, j);
}

/* Resolve op o into x: its buffers and pre scalars (n = 0: no op). */
template <class A>
static __device__ void csg_resolve(const csg_kargs_t *a, const csg_op_t &o,
				   csg_opv<A> *x)
{
	typedef typename A::elem_t T;

	x->n = o.nsrc == 0 ? 0 : o.n;
	x->dst = (T *)a->buf[o.dst.rank][o.dst.buf] + o.dst.off;
	for (int i = 0; i < CSG_MAX_SRC; i++) {
		x->src[i] = x->dst;
		x->pre[i] = false;
		x->sc[i] = 0;
		if (i >= o.nsrc)
			continue;
		x->src[i] = (const T *)a->buf[o.src[i].rank][o.src[i].buf] +
			    o.src[i].off;
		x->pre[i] = A::has_pre && o.pre[i] >= 0;
		if (x->pre[i])
			x->sc[i] = A::scalar(a->red.scalar, a->red.P, o.pre[i]);
	}
	x->nsrc = o.nsrc;
	x->post = A::has_post && o.post;
	x->P = a->red.P;
}

/* Run the first n ops of the table with the whole block, once every
 * thread has written its entries; no barrier between ops (see the top). */
template <class A>
static __device__ void csg_run_table(const csg_opv<A> *tab, int n)
{
	__syncthreads();
	for (int e = 0; e < n; e++) {
		csg_opv<A> x = tab[e];

		if (x.n > 0)
			csg_run_elems<A>(x);
	}
}

/* ---- the lane ------------------------------------------------------------------------ */

/* Wait until every lane of every rank finished the previous call: true,
 * or false for this thread when the call was aborted. */
static __device__ bool csg_wait_prev_call(const csg_kargs_t *a, int r,
					  int chan)
{
	int P = a->plan.P, j;

	for (j = threadIdx.x; j < P * CSG_MAX_CHAN; j += blockDim.x)
		if (!csg_wait_ge(a, a->flag[j / CSG_MAX_CHAN] +
					    csg_ctr_index(j % CSG_MAX_CHAN),
				 a->base[j % CSG_MAX_CHAN], r, chan,
				 j / CSG_MAX_CHAN))
			return false;
	return true;
}

/*
 * The ops of step t (every slice at a base step now), resolved into the
 * table tab one thread per op and run; a full table is run and emptied
 * on the way. Returns with the last table run, before the step's closing
 * barrier.
 */
template <class A>
static __device__ void csg_lane_step(const csg_kargs_t *a,
				     const csg_plan_t *p, int r, int t,
				     csg_opv<A> *tab)
{
	int B = csg_base_steps(p), k, i0, take, filled = 0;

	for (k = t - B + 1 > 0 ? t - B + 1 : 0; k < p->nslices && k <= t;
	     k++) {
		int s = csg_slice_step(p, t, k), nops = csg_lane_nops(p, r, s);

		for (i0 = 0; i0 < nops; i0 += take) {
			take = nops - i0 < CSG_LANE_OPS - filled
				       ? nops - i0
				       : CSG_LANE_OPS - filled;
			if ((int)threadIdx.x < take)
				csg_resolve<A>(a,
					       csg_lane_op(p, r, s, k,
							   i0 + (int)threadIdx.x),
					       &tab[filled + threadIdx.x]);
			filled += take;
			if (filled == CSG_LANE_OPS) {
				csg_run_table<A>(tab, filled);
				__syncthreads(); /* the table is reused */
				filled = 0;
			}
		}
	}
	csg_run_table<A>(tab, filled);
}

/*
 * The lane of block blockIdx.x: rank a->rank[blockIdx.x / nchan], channel
 * blockIdx.x % nchan; the steps of the plan as the top comment says. The
 * whole block returns at the first wait that any of its threads gave up
 * (__syncthreads_and), leaving the counters where they are: the host sets
 * them back after an aborted call.
 */
template <class A> static __device__ void csg_lane_main(const csg_kargs_t *a)
{
	__shared__ csg_opv<A> tab[CSG_LANE_OPS];
	csg_plan_t p = a->plan;
	int r, peer, t, T;
	uint64_t base, *mine;

	r = a->rank[blockIdx.x / p.nchan];
	p.chan = (int)(blockIdx.x % p.nchan);
	base = a->base[p.chan];
	mine = a->flag[r] + csg_ctr_index(p.chan);
	T = csg_nsteps(&p);
	peer = csg_lane_peer(&p, r);

	if (!__syncthreads_and(csg_wait_prev_call(a, r, p.chan)))
		return;
	for (t = 0; t < T; t++) {
		/* 1. every peer has finished step t - 1 */
		bool ok = true;

		if (t > 0 && peer >= 0)
			ok = csg_wait_ge(a, a->flag[peer] + csg_ctr_index(p.chan),
					 base + t, r, p.chan, peer);
		if (!__syncthreads_and(ok))
			return;
		/* 2. the ops of every slice that is at a base step now */
		csg_lane_step<A>(a, &p, r, t, tab);
		/* 3. publish step t: the block's stores, then the count
		 * (release: cumulative over the barrier, no fence) */
		__syncthreads();
		if (threadIdx.x == 0 && r != a->stall)
			csg_st_release(mine, base + t + 1, a->sys);
	}
}

/* ---- the kernels of a file, by dtype and op ---------------------------------- */

/*
 * F names one file's kernels: F::reduce<D, O>() and F::copy<ES>() return
 * the address of its instantiation for (D, O) and for ES-byte elements
 * (or NULL where the file has none: lane_reduce.cuh's parts).
 * csg_pick_reduce and csg_pick_copy turn run-time (dtype, op) into those.
 */
template <class F, cs_dtype_t D> static const void *csg_pick_op(cs_op_t op)
{
	switch (op) {
#define CSG_PICK_OP_(ID, ...)                                               \
	case CS_OP_##ID:                                                    \
		return F::template reduce<D, CS_OP_##ID>();
		CS_OP_LIST(CSG_PICK_OP_)
#undef CSG_PICK_OP_
	case CS_NUM_OPS: /* CS_OP_NONE, no reduction */
	default:
		return NULL;
	}
}

template <class F> static const void *csg_pick_reduce(cs_dtype_t d, cs_op_t op)
{
	switch (d) {
#define CSG_PICK_DTYPE_(ID, ...)                                            \
	case CS_DTYPE_##ID:                                                 \
		return csg_pick_op<F, CS_DTYPE_##ID>(op);
		CS_DTYPE_LIST(CSG_PICK_DTYPE_)
#undef CSG_PICK_DTYPE_
	case CS_NUM_DTYPES: /* not a dtype */
	default:
		return NULL;
	}
}

template <class F> static const void *csg_pick_copy(cs_dtype_t d)
{
	if ((unsigned)d >= CS_NUM_DTYPES)
		return NULL;
	switch (cs_size_of(d)) {
	case 1:
		return F::template copy<1>();
	case 2:
		return F::template copy<2>();
	case 4:
		return F::template copy<4>();
	default:
		return F::template copy<8>();
	}
}

#endif /* CSGPU_STEP_CUH */
