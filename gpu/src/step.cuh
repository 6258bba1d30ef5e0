/*
 * step.cuh - the block-level executor of libcsgpu's collectives: one thread
 * block is one (rank, channel) lane and runs that lane's part of a plan
 * (csgpu/sched.h) step by step.
 *
 * Per step t of csg_nsteps(plan):
 *   1. wait until every peer csg_peer(plan, r, i) of this channel has
 *      finished step t - 1 (its counter, read with acquire loads at
 *      system scope, reaches base + t);
 *   2. run every op of every slice active at t (csg_slice_step, csg_nops,
 *      csg_get_op) over its elements with all threads of the block:
 *      dst[j] = post(fold pre_i(src_i[j])), element for element what
 *      csgpu/exec.h's csg_apply computes, folded in the same order;
 *   3. publish: barrier, a system-scope fence and a release store of
 *      base + t + 1 into the lane's counter.
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
 * any count work.
 *
 * Each .cu file that includes this header gets one copy of the schedule
 * lookups (csg_lane_op and friends, not inlined) and instantiates
 * csg_lane_main with an element policy: csg_copy_elems<ES> for copy
 * collectives, csg_arith<D, O> (native.cuh) for reductions.
 */
#ifndef CSGPU_STEP_CUH
#define CSGPU_STEP_CUH

#include <stdint.h>
#include "csgpu/exec.h"
#include "csgpu/functor.h"
#include "csgpu/sched.h"
#include "kernels.h"
#include "native.cuh"

/* ---- counters --------------------------------------------------------------- */

static __device__ __forceinline__ uint64_t csg_ld_acquire(const uint64_t *p)
{
	uint64_t v;

	asm volatile("ld.acquire.sys.global.u64 %0, [%1];"
		     : "=l"(v)
		     : "l"(p)
		     : "memory");
	return v;
}

static __device__ __forceinline__ void csg_st_release(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.sys.global.u64 [%0], %1;"
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

/* Spin until *p >= want (acquire, system scope): true; false when the call
 * was aborted meanwhile, or when the wait outlasted a->timeout_ns, which
 * aborts it (the record names this lane and whom it waited for). */
static __device__ __noinline__ bool csg_wait_ge(const csg_kargs_t *a,
						const uint64_t *p,
						uint64_t want, int r, int chan,
						int whom)
{
	uint64_t t0 = 0, now;
	unsigned spins = 0;

	while (csg_ld_acquire(p) < want) {
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
			csg_give_up(a, r, chan, whom, want, csg_ld_acquire(p),
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

/* An op's pointers and per-source pre scalars, resolved for element type T. */
template <class A> struct csg_opv {
	typedef typename A::elem_t elem_t;
	elem_t *dst;
	const elem_t *src[CSG_MAX_SRC];
	elem_t sc[CSG_MAX_SRC];   /* pre scalar of source i */
	bool pre[CSG_MAX_SRC];    /* source i gets its pre */
	int nsrc;
	bool post;
	int P;
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

/* Vector q (16 bytes at element offset q * 16 / sizeof(T) from base) of
 * op x, where dst + base and every src + base are 16-byte aligned. */
template <class A>
static __device__ __forceinline__ void csg_vec_at(const csg_opv<A> &x,
						  size_t base, size_t q)
{
	typedef typename A::elem_t T;
	const size_t V = 16 / sizeof(T);
	csg_vec<T> acc, v;

	acc.v = make_uint4(0, 0, 0, 0);
#pragma unroll
	for (int i = 0; i < CSG_MAX_SRC; i++) {
		if (i < x.nsrc) {
			v.v = __ldcg((const uint4 *)(x.src[i] + base) + q);
			if (A::has_pre && x.pre[i])
				csg_vec_pre<A>(v, x.sc[i]);
			if (i == 0)
				acc = v;
			else
				csg_vec_step<A>(acc, v);
		}
	}
	if (A::has_post && x.post) {
#pragma unroll
		for (int l = 0; l < (int)V; l++)
			acc.e[l] = A::post(acc.e[l], x.P);
	}
	((uint4 *)(x.dst + base))[q] = acc.v;
}

/* Run op x over its n elements with the block's threads. */
template <class A>
static __device__ void csg_run_elems(const csg_opv<A> &x, size_t n)
{
	typedef typename A::elem_t T;
	const size_t V = 16 / sizeof(T), nt = blockDim.x;
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
	for (j = threadIdx.x; j < nv; j += nt)
		csg_vec_at<A>(x, head, j);
	for (j = head + nv * V + threadIdx.x; j < n; j += nt)
		csg_elem<A>(x, j);
}

/* Resolve op o's buffers and pre scalars, then run it. */
template <class A>
static __device__ void csg_run_op(const csg_kargs_t *a, const csg_op_t &o)
{
	typedef typename A::elem_t T;
	csg_opv<A> x;

	if (o.n == 0 || o.nsrc == 0)
		return;
	x.dst = (T *)a->buf[o.dst.rank][o.dst.buf] + o.dst.off;
	for (int i = 0; i < CSG_MAX_SRC; i++) {
		x.src[i] = x.dst;
		x.pre[i] = false;
		x.sc[i] = 0;
		if (i >= o.nsrc)
			continue;
		x.src[i] = (const T *)a->buf[o.src[i].rank][o.src[i].buf] +
			   o.src[i].off;
		x.pre[i] = A::has_pre && o.pre[i] >= 0;
		if (x.pre[i])
			x.sc[i] = A::scalar(a->red.scalar, a->red.P, o.pre[i]);
	}
	x.nsrc = o.nsrc;
	x.post = A::has_post && o.post;
	x.P = a->red.P;
	csg_run_elems<A>(x, o.n);
}

/* ---- the lane ------------------------------------------------------------------------ */

/* Wait until every lane of every rank finished the previous call: true,
 * or false for this thread when the call was aborted. */
static __device__ bool csg_wait_prev_call(const csg_kargs_t *a, int r,
					  int chan)
{
	int P = a->plan.P, j;

	for (j = threadIdx.x; j < P * CSG_MAX_CHAN; j += blockDim.x)
		if (!csg_wait_ge(a, a->flag[j / CSG_MAX_CHAN] + j % CSG_MAX_CHAN,
				 a->base[j % CSG_MAX_CHAN], r, chan,
				 j / CSG_MAX_CHAN))
			return false;
	return true;
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
	csg_plan_t p = a->plan;
	int r, peer, t, k, i, T, B;
	uint64_t base, *mine;

	r = a->rank[blockIdx.x / p.nchan];
	p.chan = (int)(blockIdx.x % p.nchan);
	base = a->base[p.chan];
	mine = a->flag[r] + p.chan;
	T = csg_nsteps(&p);
	B = csg_base_steps(&p);
	peer = csg_lane_peer(&p, r);

	if (!__syncthreads_and(csg_wait_prev_call(a, r, p.chan)))
		return;
	for (t = 0; t < T; t++) {
		/* 1. every peer has finished step t - 1 */
		bool ok = true;

		if (t > 0 && peer >= 0)
			ok = csg_wait_ge(a, a->flag[peer] + p.chan, base + t, r,
					 p.chan, peer);
		if (!__syncthreads_and(ok))
			return;
		/* 2. the ops of every slice that is at a base step now */
		for (k = t - B + 1 > 0 ? t - B + 1 : 0; k < p.nslices && k <= t;
		     k++) {
			int s = csg_slice_step(&p, t, k),
			    nops = csg_lane_nops(&p, r, s);

			for (i = 0; i < nops; i++) {
				csg_run_op<A>(a, csg_lane_op(&p, r, s, k, i));
				__syncthreads();
			}
		}
		/* 3. publish step t */
		__syncthreads();
		if (threadIdx.x == 0 && r != a->stall) {
			__threadfence_system();
			csg_st_release(mine, base + t + 1);
		}
	}
}

/* ---- the kernels of a file, by dtype and op ---------------------------------- */

/*
 * F names one file's kernels: F::reduce<D, O>() and F::copy<ES>() return
 * the address of its instantiation for (D, O) and for ES-byte elements.
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
