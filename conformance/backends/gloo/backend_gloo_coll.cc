/*
 * backend_gloo_coll.cc - the `gloo` backend's collectives (backend_gloo.cc
 * holds the table, options and communicators): reductions through Gloo's
 * own element functions (gloo::sum, product, max, min of gloo/math.h, and
 * the ReductionFunction<T> built on them), then data movement. Every Gloo
 * exception becomes a status with its text (error_string).
 *
 * In place where Gloo offers it: allreduce, reduce and allgather leave
 * out Gloo's input buffer, broadcast's root passes the same buffer, and
 * reduce_scatter and the allreduce algorithm classes always work on their
 * buffer in place (reduce_scatter then moves its block). Gather, scatter,
 * alltoall(v) and sendrecv have no in-place form in Gloo; supports() skips
 * those cases.
 */
#include <stdint.h>
#include <string.h>
#include <exception>
#include <memory>
#include <vector>
#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_bcube.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/reduce_scatter.h>
#include <gloo/scatter.h>
#include <gloo/types.h>
#include "collspec/backend.h"
#include "csref/catalog.h"
#include "backends/gloo/backend_gloo_impl.h"

/* The slot of sendrecv's messages: a prefix of its own above those of
 * Gloo's collectives (gloo/types.h, Slot::build), the call's number
 * below. */
#define GLB_P2P_SLOT (UINT64_C(0x43) << 56)

/* f(), with any exception turned into a status that names `what`. */
template <typename F> static int guarded(const char *what, F f)
{
	try {
		f();
		return 0;
	} catch (const std::exception &e) {
		return cs_glb_fail(what, e.what());
	} catch (...) {
		return cs_glb_fail(what, "an exception that is not a "
			    "std::exception");
	}
}

/* fn(T *) with T the C++ type Gloo is given for dtype d (a null pointer of
 * that type, to choose the template); supports() has refused the rest. */
template <typename F> static int typed(cs_dtype_t d, F fn)
{
	switch (d) {
	case CS_DTYPE_INT8: return fn((int8_t *)nullptr);
	case CS_DTYPE_UINT8: return fn((uint8_t *)nullptr);
	case CS_DTYPE_INT32: return fn((int32_t *)nullptr);
	case CS_DTYPE_UINT32: return fn((uint32_t *)nullptr);
	case CS_DTYPE_INT64: return fn((int64_t *)nullptr);
	case CS_DTYPE_UINT64: return fn((uint64_t *)nullptr);
	case CS_DTYPE_FLOAT16: return fn((gloo::float16 *)nullptr);
	case CS_DTYPE_FLOAT32: return fn((float *)nullptr);
	case CS_DTYPE_FLOAT64: return fn((double *)nullptr);
	default:
		return cs_glb_fail("gloo backend", "this dtype has no Gloo type");
	}
}

typedef void (*glb_fn)(void *, const void *, const void *, size_t);

/* Gloo's element function of op on T (gloo/math.h), NULL for the ops
 * Gloo lacks. */
template <typename T> static glb_fn func_of(cs_op_t op)
{
	switch (op) {
	case CS_OP_SUM: return &gloo::sum<T>;
	case CS_OP_PROD: return &gloo::product<T>;
	case CS_OP_MAX: return &gloo::max<T>;
	case CS_OP_MIN: return &gloo::min<T>;
	default: return nullptr;
	}
}

/* The same as the algorithm classes take it (gloo/algorithm.h). */
template <typename T>
static const gloo::ReductionFunction<T> *rfn_of(cs_op_t op)
{
	switch (op) {
	case CS_OP_SUM: return gloo::ReductionFunction<T>::sum;
	case CS_OP_PROD: return gloo::ReductionFunction<T>::product;
	case CS_OP_MAX: return gloo::ReductionFunction<T>::max;
	case CS_OP_MIN: return gloo::ReductionFunction<T>::min;
	default: return nullptr;
	}
}

static struct cs_glb_comm *GC(cs_bcomm_t c)
{
	return static_cast<struct cs_glb_comm *>(c);
}

/* A const buffer as Gloo's setters take it (they do not write inputs). */
template <typename T> static T *in_ptr(const void *p)
{
	return static_cast<T *>(const_cast<void *>(p));
}

/* ---- reductions ------------------------------------------------------------ */

/* The allreduce algorithm classes: in place on buf, n elements. */
template <typename T>
static void allreduce_class(T *buf, size_t n, cs_op_t op,
			    struct cs_glb_comm *c)
{
	const std::vector<T *> ptrs{buf};
	const gloo::ReductionFunction<T> *fn = rfn_of<T>(op);
	const int cnt = (int)n; /* supports() refused n above INT_MAX */
	std::unique_ptr<gloo::Algorithm> a;

	switch (cs_glb_algo()) {
	case CS_GLB_RING_CHUNKED:
		a.reset(new gloo::AllreduceRingChunked<T>(c->ctx, ptrs, cnt, fn));
		break;
	case CS_GLB_HALVING_DOUBLING:
		a.reset(new gloo::AllreduceHalvingDoubling<T>(c->ctx, ptrs, cnt,
							      fn));
		break;
	case CS_GLB_BCUBE:
		a.reset(new gloo::AllreduceBcube<T>(c->ctx, ptrs, cnt, fn));
		break;
	default:
		a.reset(new gloo::AllreduceRing<T>(c->ctx, ptrs, cnt, fn));
		break;
	}
	a->run();
}

/* gloo::allreduce; in place when s == r (no input given). */
template <typename T>
static void allreduce_function(const void *s, void *r, size_t n, cs_op_t op,
			       struct cs_glb_comm *c)
{
	gloo::AllreduceOptions o(c->ctx);

	if (s != r)
		o.setInput(in_ptr<T>(s), n);
	o.setOutput(static_cast<T *>(r), n);
	o.setReduceFunction(func_of<T>(op));
	if (cs_glb_algo() == CS_GLB_FUNCTION_BCUBE)
		o.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
	gloo::allreduce(o);
}

extern "C" int cs_glb_allreduce(const void *s, void *r, size_t count,
				cs_dtype_t d, cs_op_t op, const void *scalar,
				cs_bcomm_t c, void *stream)
{
	return typed(d, [&](auto *tag) {
		using T = typename std::remove_pointer<decltype(tag)>::type;
		int algo = cs_glb_algo();

		if (algo == CS_GLB_FUNCTION || algo == CS_GLB_FUNCTION_BCUBE)
			return guarded("gloo::allreduce", [&] {
				allreduce_function<T>(s, r, count, op, GC(c));
			});
		if (s != r && count)
			memcpy(r, s, count * sizeof(T));
		return guarded("gloo allreduce algorithm", [&] {
			allreduce_class<T>(static_cast<T *>(r), count, op, GC(c));
		});
	});
}

/*
 * gloo::ReduceScatterHalvingDoubling over the whole P*count buffer, in
 * place: it leaves this rank's block of the result at the start of the
 * buffer (gloo/reduce_scatter.h, the distribution phase). In place that
 * block is then moved to offset rank*count, where the ABI's convention
 * wants it; out of place the call works on a copy of the input, and the
 * block is copied out.
 */
template <typename T>
static void reducescatter_t(const void *s, void *r, size_t count, cs_op_t op,
			    struct cs_glb_comm *c)
{
	const size_t all = count * (size_t)c->size;
	const bool inplace = r == in_ptr<T>(s) + (size_t)c->rank * count;
	std::vector<T> copy;
	T *buf = in_ptr<T>(s);

	if (!inplace) {
		copy.assign(buf, buf + all);
		buf = copy.data();
	}
	gloo::ReduceScatterHalvingDoubling<T> a(c->ctx, {buf}, (int)all,
		std::vector<int>((size_t)c->size, (int)count), rfn_of<T>(op));
	a.run();
	if (count && static_cast<void *>(buf) != r)
		memmove(r, buf, count * sizeof(T));
}

extern "C" int cs_glb_reducescatter(const void *s, void *r, size_t count,
				    cs_dtype_t d, cs_op_t op,
				    const void *scalar, cs_bcomm_t c,
				    void *stream)
{
	return typed(d, [&](auto *tag) {
		using T = typename std::remove_pointer<decltype(tag)>::type;

		return guarded("gloo::ReduceScatterHalvingDoubling", [&] {
			reducescatter_t<T>(s, r, count, op, GC(c));
		});
	});
}

/*
 * gloo::reduce. Gloo's ring reduce needs an output buffer on every rank
 * (it holds partial results there): a scratch one off the root, whose
 * receive buffer the ABI says is not to be touched. In place at the root:
 * no input given.
 */
template <typename T>
static void reduce_t(const void *s, void *r, size_t count, cs_op_t op,
		     int root, struct cs_glb_comm *c)
{
	gloo::ReduceOptions o(c->ctx);
	std::vector<T> scratch;
	T *out = static_cast<T *>(r);

	if (c->rank != root) {
		scratch.resize(count);
		out = scratch.data();
	}
	if (c->rank != root || s != r)
		o.setInput(in_ptr<T>(s), count);
	o.setOutput(out, count);
	o.setRoot(root);
	o.setReduceFunction(func_of<T>(op));
	gloo::reduce(o);
}

extern "C" int cs_glb_reduce(const void *s, void *r, size_t count,
			     cs_dtype_t d, cs_op_t op, const void *scalar,
			     int root, cs_bcomm_t c, void *stream)
{
	return typed(d, [&](auto *tag) {
		using T = typename std::remove_pointer<decltype(tag)>::type;

		return guarded("gloo::reduce", [&] {
			reduce_t<T>(s, r, count, op, root, GC(c));
		});
	});
}

/* ---- data movement (as bytes: Gloo reads only the element size) ------------ */

static size_t bytes_of(size_t count, cs_dtype_t d)
{
	return count * cs_dtype_size(d);
}

/* gloo::allgather, or gloo::allgatherv with P equal counts; in place
 * (s == r + rank*count) without an input. */
extern "C" int cs_glb_allgather(const void *s, void *r, size_t count,
				cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t b = bytes_of(count, d), P = (size_t)m->size;
	uint8_t *out = static_cast<uint8_t *>(r);
	const bool inplace = s == out + (size_t)m->rank * b;

	if (cs_glb_use_allgatherv())
		return guarded("gloo::allgatherv", [&] {
			gloo::AllgathervOptions o(m->ctx);

			if (!inplace)
				o.setInput(in_ptr<uint8_t>(s), b);
			o.setOutput(out, std::vector<size_t>(P, b));
			gloo::allgatherv(o);
		});
	return guarded("gloo::allgather", [&] {
		gloo::AllgatherOptions o(m->ctx);

		if (!inplace)
			o.setInput(in_ptr<uint8_t>(s), b);
		o.setOutput(out, P * b);
		gloo::allgather(o);
	});
}

extern "C" int cs_glb_alltoall(const void *s, void *r, size_t count,
			       cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t all = bytes_of(count, d) * (size_t)m->size;

	return guarded("gloo::alltoall", [&] {
		gloo::AlltoallOptions o(m->ctx);

		o.setInput(in_ptr<uint8_t>(s), all);
		o.setOutput(static_cast<uint8_t *>(r), all);
		gloo::alltoall(o);
	});
}

/* Are the P blocks of a layout packed in rank order (each displacement
 * the sum of the counts before it), as gloo::alltoallv takes them? */
static bool packed(const size_t *cnt, const size_t *disp, int P)
{
	size_t at = 0;

	for (int i = 0; i < P; at += cnt[i], i++)
		if (disp[i] != at)
			return false;
	return true;
}

/* Copy the P blocks between a layout (cnt, disp) and its packed form;
 * to_packed says which way. es: the element size. */
static void repack(uint8_t *pk, uint8_t *lay, const size_t *cnt,
		   const size_t *disp, int P, size_t es, bool to_packed)
{
	size_t at = 0;

	for (int i = 0; i < P; at += cnt[i] * es, i++)
		if (cnt[i] && to_packed)
			memcpy(pk + at, lay + disp[i] * es, cnt[i] * es);
		else if (cnt[i])
			memcpy(lay + disp[i] * es, pk + at, cnt[i] * es);
}

static size_t total(const size_t *cnt, int P)
{
	size_t n = 0;

	for (int i = 0; i < P; i++)
		n += cnt[i];
	return n;
}

/*
 * gloo::alltoallv takes counts only: block i of each side starts where
 * block i-1 ends. A layout with other displacements is packed into (send)
 * or unpacked from (receive) a contiguous copy around the call.
 */
extern "C" int cs_glb_alltoallv(const void *s, const size_t *sc,
				const size_t *sd, void *r, const size_t *rc,
				const size_t *rd, cs_dtype_t d, cs_bcomm_t c,
				void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const int P = m->size;
	const size_t es = cs_dtype_size(d);
	const bool spk = packed(sc, sd, P), rpk = packed(rc, rd, P);

	return guarded("gloo::alltoallv", [&] {
		std::vector<uint8_t> sbuf, rbuf;
		uint8_t *in = in_ptr<uint8_t>(s) + (spk ? sd[0] * es : 0);
		uint8_t *out = static_cast<uint8_t *>(r) + (rpk ? rd[0] * es : 0);
		std::vector<int64_t> sn(P), rn(P); /* bytes per rank */
		gloo::AlltoallvOptions o(m->ctx);

		for (int i = 0; i < P; i++) {
			sn[i] = (int64_t)(sc[i] * es);
			rn[i] = (int64_t)(rc[i] * es);
		}

		if (!spk) {
			sbuf.resize(total(sc, P) * es + 1);
			repack(sbuf.data(), in_ptr<uint8_t>(s), sc, sd, P, es, true);
			in = sbuf.data();
		}
		if (!rpk) {
			rbuf.resize(total(rc, P) * es + 1);
			out = rbuf.data();
		}
		o.setInput(in, sn);
		o.setOutput(out, rn);
		gloo::alltoallv(o);
		if (!rpk)
			repack(out, static_cast<uint8_t *>(r), rc, rd, P, es, false);
	});
}

/* gloo::broadcast: an output on every rank, an input at the root unless
 * it broadcasts in place (s == r). */
extern "C" int cs_glb_broadcast(const void *s, void *r, size_t count,
				cs_dtype_t d, int root, cs_bcomm_t c,
				void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t b = bytes_of(count, d);

	return guarded("gloo::broadcast", [&] {
		gloo::BroadcastOptions o(m->ctx);

		if (m->rank == root && s != r)
			o.setInput(in_ptr<uint8_t>(s), b);
		o.setOutput(static_cast<uint8_t *>(r), b);
		o.setRoot(root);
		gloo::broadcast(o);
	});
}

extern "C" int cs_glb_gather(const void *s, void *r, size_t count,
			     cs_dtype_t d, int root, cs_bcomm_t c,
			     void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t b = bytes_of(count, d);

	return guarded("gloo::gather", [&] {
		gloo::GatherOptions o(m->ctx);

		o.setInput(in_ptr<uint8_t>(s), b);
		if (m->rank == root)
			o.setOutput(static_cast<uint8_t *>(r), b * (size_t)m->size);
		o.setRoot(root);
		gloo::gather(o);
	});
}

/* gloo::scatter: the root gives one input buffer per rank, block i of
 * its send buffer for rank i. */
extern "C" int cs_glb_scatter(const void *s, void *r, size_t count,
			      cs_dtype_t d, int root, cs_bcomm_t c,
			      void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t b = bytes_of(count, d);

	return guarded("gloo::scatter", [&] {
		gloo::ScatterOptions o(m->ctx);
		std::vector<uint8_t *> blocks;

		for (int i = 0; m->rank == root && i < m->size; i++)
			blocks.push_back(in_ptr<uint8_t>(s) + (size_t)i * b);
		if (m->rank == root)
			o.setInputs(blocks, b);
		o.setOutput(static_cast<uint8_t *>(r), b);
		o.setRoot(root);
		gloo::scatter(o);
	});
}

/*
 * Gloo's unbound buffers: send to rank+1 and receive from rank-1 on one
 * slot per call (the call's number on this communicator, the same on
 * every rank), then wait for both. supports() refuses one rank (Gloo has
 * no pair from a rank to itself).
 */
extern "C" int cs_glb_sendrecv(const void *s, void *r, size_t count,
			       cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	struct cs_glb_comm *m = GC(c);
	const size_t b = bytes_of(count, d);
	const int next = (m->rank + 1) % m->size;
	const int prev = (m->rank + m->size - 1) % m->size;
	const uint64_t slot = GLB_P2P_SLOT | (m->p2p++ & 0xffffffffu);

	return guarded("gloo send/recv", [&] {
		auto out = m->ctx->createUnboundBuffer(const_cast<void *>(s), b);
		auto in = m->ctx->createUnboundBuffer(r, b);

		in->recv(prev, slot);
		out->send(next, slot);
		in->waitRecv(m->ctx->getTimeout());
		out->waitSend(m->ctx->getTimeout());
	});
}
