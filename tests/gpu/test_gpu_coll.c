/*
 * test_gpu_coll.c - libcsgpu's collectives (csgpu/coll.h) on a CUDA device
 * against a CPU execution of the same plan, bit for bit.
 *
 * For every collective x algorithm, P = 1..8 ranks (virtual ranks when the
 * machine has fewer GPUs), in and out of place, 16-byte aligned and
 * misaligned by one element, counts 0, 1, 7, P+1 and a large odd one, with
 * a few dtypes and ops (all 12 dtypes x 6 ops for ring allreduce at the
 * small counts); then every residue of the send and the receive buffer
 * mod 16 (each pair, for each element size) on the ring reductions and
 * copies, and the packed two-lane half/bfloat16 paths (every op, aligned
 * and one element off) at a count that fills several vectors per lane;
 * a call whose lane stalls (csg_world_stall_next) is aborted and the next
 * one passes; with two or more GPUs, a second world of the process works
 * (peer access already enabled). Random input bits are uploaded, csg_run
 * runs the call,
 * and every rank's whole buffer block (send and recv, guards around them)
 * must equal what the CPU executor of the gpu-sim backend (csg_sim_run,
 * csgpu/sim.h) leaves in a mirror of the same block, running the plan that
 * csg_run launched (csg_plan_of) in lockstep with csg_apply (csgpu/exec.h)
 * on every element; where the kernels use native arithmetic,
 * test_gpu_native proves it equal to csg_apply's.
 * One world per P serves all its calls, so the step counters run across
 * calls. Without a device: prints "SKIP: no CUDA device" and exits 77.
 *
 * Size knobs (environment): CS_GPU_COLL_BIG, the large count (default
 * 1000003; e.g. 65537 for a short run); CS_GPU_COLL_MAXP, the largest P
 * (default 8).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cuda_runtime_api.h>
#include "csgpu/coll.h"
#include "csgpu/device.h"
#include "csgpu/exec.h"
#include "csgpu/sched.h"
#include "csgpu/sim.h"
#include "csref/arith.h"
#include "csref/catalog.h"

#define MAXP 8
#define GUARD 40   /* bytes of guard before, between and after the buffers */
#define LEAD 64    /* where a block's first buffer starts, before its residue */

/* The size knobs (main reads them). */
static size_t big_count = 1000003;
static int max_p = MAXP;
#define BIG big_count

#define CUDA_OK(call)                                                      \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess)                                     \
			fail_msg("%s: %s", #call, cudaGetErrorString(e_)); \
	} while (0)

/* One call of the test. */
struct tcase {
	cs_coll_t coll;
	csg_algo_t algo;
	cs_dtype_t d;
	cs_op_t op;
	int P, root, inplace, mis, nchan, nslices;
	int sres, rres; /* with mis < 0: the send and recv addresses mod 16 */
	int stall;      /* >= 0: that rank's lanes stall; the call must abort */
	size_t n;
};

/* One rank's block: [guard][send][guard][recv][guard] (out of place) or
 * [guard][region][guard] (in place), on the device and mirrored on the
 * host; send and recv point into it (offsets from the block's start). */
struct rank_mem {
	size_t bytes, send_off, recv_off;
	unsigned char *dev, *host, *init;
	unsigned char *tmp; /* the CPU executor's TMP */
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- shapes ---------------------------------------------------------------- */

/* The alltoallv matrix of n: q sends (q + 2r + n) % (n + 2) elements to r,
 * blocks packed with one element of gap. */
static void make_vmat(int P, size_t n, size_t *cnt, size_t *sdis, size_t *rdis)
{
	int q, r;
	size_t off;

	for (q = 0; q < P; q++)
		for (r = 0; r < P; r++)
			cnt[q * P + r] = ((size_t)q + 2 * (size_t)r + n) % (n + 2);
	for (q = 0; q < P; q++)
		for (off = 0, r = 0; r < P; r++) {
			sdis[q * P + r] = off;
			off += cnt[q * P + r] + 1;
		}
	for (r = 0; r < P; r++)
		for (off = 0, q = 0; q < P; q++) {
			rdis[r * P + q] = off;
			off += cnt[q * P + r] + 1;
		}
}

/* Elements of rank r's send and recv buffers. */
static void extents(const struct tcase *t, const size_t *cnt,
		    const size_t *sdis, const size_t *rdis, int r, size_t *s,
		    size_t *rv)
{
	size_t n = t->n, P = (size_t)t->P, m = 0, e;
	int q;

	switch (t->coll) {
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_SCATTER:
		*s = P * n;
		*rv = n;
		return;
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		*s = n;
		*rv = P * n;
		return;
	case CS_COLL_ALLTOALL:
		*s = *rv = P * n;
		return;
	case CS_COLL_ALLTOALLV:
		for (q = 0; q < t->P; q++) {
			e = sdis[r * t->P + q] + cnt[r * t->P + q];
			m = e > m ? e : m;
		}
		*s = m;
		for (m = 0, q = 0; q < t->P; q++) {
			e = rdis[r * t->P + q] + cnt[q * t->P + r];
			m = e > m ? e : m;
		}
		*rv = m;
		return;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		*s = *rv = n;
	}
}

/* The send and recv byte offsets mod 16 of case t (blocks start at a
 * 256-byte cudaMalloc address, so these are the addresses' residues):
 * aligned, one element off, or the case's own pair. */
static void residues(const struct tcase *t, size_t es, size_t *sr, size_t *rr)
{
	if (t->mis < 0) {
		*sr = (size_t)t->sres;
		*rr = (size_t)t->rres;
		return;
	}
	*sr = *rr = t->mis ? es : 0;
}

/* Lay out rank r's block and fill it with random bits (host init). */
static void layout(const struct tcase *t, const size_t *v[3], int r,
		   struct rank_mem *m)
{
	size_t es = (size_t)cs_size_of(t->d), s, rv, big, lo, i, sr, rr;

	extents(t, v[0], v[1], v[2], r, &s, &rv);
	residues(t, es, &sr, &rr);
	lo = LEAD + sr;
	if (!t->inplace) {
		m->send_off = lo;
		m->recv_off = (lo + s * es + GUARD + 15) / 16 * 16 + rr;
		m->bytes = m->recv_off + rv * es + GUARD;
	} else {
		big = s > rv ? s : rv;
		m->send_off = m->recv_off = lo;
		if (t->coll == CS_COLL_ALLGATHER || t->coll == CS_COLL_GATHER)
			m->send_off = lo + (size_t)r * t->n * es;
		if (t->coll == CS_COLL_REDUCESCATTER || t->coll == CS_COLL_SCATTER)
			m->recv_off = lo + (size_t)r * t->n * es;
		m->bytes = lo + big * es + GUARD;
	}
	m->init = malloc(m->bytes);
	m->host = malloc(m->bytes);
	m->tmp = calloc(s ? s : 1, es);
	assert_true(m->init && m->host && m->tmp);
	for (i = 0; i < m->bytes; i++)
		m->init[i] = (unsigned char)rng();
	memcpy(m->host, m->init, m->bytes);
}

/* ---- one case ----------------------------------------------------------------------- */

static const char *algo_name(csg_algo_t a)
{
	static const char *names[] = {
#define ALGO_NAME_(ID, name, ...) name,
		CSG_ALGO_LIST(ALGO_NAME_)
#undef ALGO_NAME_
	};
	return names[a];
}

/* Fail at the first byte of rank r's block that differs. */
static void compare(const struct tcase *t, int r, const struct rank_mem *m,
		    const unsigned char *got)
{
	size_t i;

	for (i = 0; i < m->bytes; i++) {
		if (got[i] == m->host[i])
			continue;
		fail_msg("%s algo %s %s %s P=%d n=%zu root=%d %s nchan=%d "
			 "nslices=%d: rank %d, byte %zu of its block (send at "
			 "%zu = %zu mod 16, recv at %zu = %zu mod 16): device "
			 "0x%02x, CPU 0x%02x, before 0x%02x",
			 cs_coll_name(t->coll), algo_name(t->algo),
			 cs_dtype_name(t->d), cs_op_name(t->op), t->P, t->n,
			 t->root, t->inplace ? "in place" : "out of place",
			 t->nchan, t->nslices, r, i, m->send_off,
			 m->send_off % 16, m->recv_off, m->recv_off % 16,
			 got[i], m->host[i], m->init[i]);
	}
}

/* Free rank r's block, device and host. */
static void free_mem(csg_world_t *w, int r, struct rank_mem *m)
{
	cs_dev_free(csg_world_device(w, r), m->dev);
	free(m->init);
	free(m->host);
	free(m->tmp);
}

/* A stalled call: the world reports the abort, naming a lane that waited
 * for a peer, and its next check is clean. */
static void expect_abort(csg_world_t *w, const struct tcase *t,
			 struct rank_mem *mem)
{
	int r;

	if (csg_world_sync(w) != CS_ERR_INTERNAL)
		fail_msg("P=%d: the call with rank %d stalled was not aborted",
			 t->P, t->stall);
	if (!strstr(cs_last_error(), "waited"))
		fail_msg("the abort does not say who waited: %s",
			 cs_last_error());
	assert_int_equal(csg_world_check(w), CS_OK);
	for (r = 0; r < t->P; r++)
		free_mem(w, r, &mem[r]);
}

static void run_case(csg_world_t *w, const struct tcase *t)
{
	struct rank_mem mem[MAXP];
	size_t cnt[MAXP * MAXP], sdis[MAXP * MAXP], rdis[MAXP * MAXP];
	const size_t *v[3] = {cnt, sdis, rdis};
	static csg_sim_bufs_t hb;
	size_t slen, rlen;
	csg_call_t call;
	csg_plan_t plan;
	csg_red_t red;
	unsigned char *got;
	int r, dev;

	make_vmat(t->P, t->n, cnt, sdis, rdis);
	memset(&call, 0, sizeof(call));
	memset(&red, 0, sizeof(red));
	call.coll = t->coll;
	call.dtype = red.dtype = t->d;
	call.op = red.op = t->op;
	red.P = t->P;
	call.algo = t->algo;
	call.n = t->n;
	call.root = t->root;
	call.inplace = t->inplace;
	call.nchan = t->nchan;
	call.nslices = t->nslices;
	call.cnt = cnt;
	call.sdis = sdis;
	call.rdis = rdis;
	for (r = 0; r < t->P; r++) {
		layout(t, v, r, &mem[r]);
		dev = csg_world_device(w, r);
		assert_int_equal(cs_dev_alloc(dev, mem[r].bytes,
					      (void **)&mem[r].dev), CS_OK);
		assert_int_equal(cs_dev_put(dev, mem[r].dev, mem[r].init,
					    mem[r].bytes), CS_OK);
		call.send[r] = mem[r].dev + mem[r].send_off;
		call.recv[r] = mem[r].dev + mem[r].recv_off;
		call.scalar[r] = red.scalar[r] = rng() & cs_bits_mask(t->d);
		extents(t, v[0], v[1], v[2], r, &slen, &rlen);
		hb.buf[r][CSG_SEND] = mem[r].host + mem[r].send_off;
		hb.buf[r][CSG_RECV] = mem[r].host + mem[r].recv_off;
		hb.buf[r][CSG_TMP] = mem[r].tmp;
		hb.len[r][CSG_SEND] = hb.len[r][CSG_TMP] = slen;
		hb.len[r][CSG_RECV] = rlen;
	}
	if (t->stall >= 0)
		assert_int_equal(csg_world_stall_next(w, t->stall), CS_OK);
	if (csg_run(w, &call, NULL) != CS_OK)
		fail_msg("csg_run %s algo %s P=%d n=%zu: %s",
			 cs_coll_name(t->coll), algo_name(t->algo), t->P, t->n,
			 cs_last_error());
	if (t->stall >= 0) {
		expect_abort(w, t, mem);
		return;
	}
	assert_int_equal(csg_world_sync(w), CS_OK);

	/* the same plan on the CPU (csgpu/sim.h, gpu-sim's executor): the
	 * plan csg_run launched, channels and slices included (they decide
	 * which rank completes which element, hence the order of the fold) */
	assert_int_equal(csg_plan_of(w, &call, &plan), CS_OK);
	if (csg_sim_run(&plan, &red, &hb, NULL, NULL) != CS_OK)
		fail_msg("csg_sim_run: %s", cs_last_error());
	for (r = 0; r < t->P; r++) {
		dev = csg_world_device(w, r);
		got = malloc(mem[r].bytes);
		assert_non_null(got);
		assert_int_equal(cs_dev_get(dev, got, mem[r].dev, mem[r].bytes),
				 CS_OK);
		compare(t, r, &mem[r], got);
		free(got);
		free_mem(w, r, &mem[r]);
	}
}

/* ---- the matrix of cases ------------------------------------------------------------- */

/* A collective, one of its algorithms, and the (dtype, op)s it runs with. */
struct combo {
	cs_coll_t coll;
	csg_algo_t algo;
};

static const struct combo combos[] = {
	{CS_COLL_ALLREDUCE, CSG_ALGO_RING},     {CS_COLL_ALLREDUCE, CSG_ALGO_TREE},
	{CS_COLL_ALLREDUCE, CSG_ALGO_AUTO},     {CS_COLL_REDUCESCATTER, CSG_ALGO_RING},
	{CS_COLL_ALLGATHER, CSG_ALGO_RING},     {CS_COLL_BROADCAST, CSG_ALGO_RING},
	{CS_COLL_BROADCAST, CSG_ALGO_TREE},     {CS_COLL_REDUCE, CSG_ALGO_RING},
	{CS_COLL_REDUCE, CSG_ALGO_TREE},        {CS_COLL_ALLTOALL, CSG_ALGO_DIRECT},
	{CS_COLL_ALLTOALL, CSG_ALGO_PAIRWISE},  {CS_COLL_ALLTOALLV, CSG_ALGO_DIRECT},
	{CS_COLL_ALLTOALLV, CSG_ALGO_PAIRWISE}, {CS_COLL_GATHER, CSG_ALGO_DIRECT},
	{CS_COLL_SCATTER, CSG_ALGO_DIRECT},     {CS_COLL_SENDRECV, CSG_ALGO_DIRECT},
};

/* A few (dtype, op)s: every element size, native and shared arithmetic,
 * pre (PREMULSUM, float AVG) and post (integer AVG). */
static const struct {
	cs_dtype_t d;
	cs_op_t op;
} few[] = {
	{CS_DTYPE_FLOAT32, CS_OP_SUM},      {CS_DTYPE_BFLOAT16, CS_OP_SUM},
	{CS_DTYPE_FLOAT16, CS_OP_PREMULSUM}, {CS_DTYPE_INT32, CS_OP_AVG},
	{CS_DTYPE_FLOAT8_E4M3, CS_OP_PROD}, {CS_DTYPE_FLOAT64, CS_OP_MAX},
	{CS_DTYPE_UINT8, CS_OP_MIN},        {CS_DTYPE_BFLOAT16, CS_OP_AVG},
};
#define NFEW (sizeof(few) / sizeof(few[0]))

/* The counts of P ranks: 0, 1, 7, P+1 and the large one (per block for
 * the collectives whose buffers are P blocks: BIG / P, odd). */
static size_t count_of(cs_coll_t c, int P, int i)
{
	switch (i) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 7;
	case 3:
		return (size_t)P + 1;
	default:
		if (c == CS_COLL_ALLREDUCE || c == CS_COLL_BROADCAST ||
		    c == CS_COLL_REDUCE || c == CS_COLL_SENDRECV)
			return BIG;
		return (BIG / (size_t)P) | 1;
	}
}

/* Every combination for P ranks in one world. */
static void run_all_for(int P)
{
	csg_world_t *w;
	struct tcase t;
	size_t ci, fi;
	int ip, mis, i, d, op;

	assert_int_equal(csg_world_create(P, &w), CS_OK);
	for (ci = 0; ci < sizeof(combos) / sizeof(combos[0]); ci++)
		for (i = 0; i < 5; i++)
			for (ip = 0; ip < 2; ip++)
				for (mis = 0; mis < 2; mis++)
					for (fi = 0; fi < NFEW; fi++) {
						memset(&t, 0, sizeof(t));
						t.stall = -1;
						t.coll = combos[ci].coll;
						t.algo = combos[ci].algo;
						t.P = P;
						t.n = count_of(t.coll, P, i);
						t.inplace = ip;
						t.mis = mis;
						t.root = P - 1 - (int)(fi % (size_t)P);
						t.d = few[fi].d;
						t.op = few[fi].op;
						/* explicit lanes at P+1: empty channels
						 * and slices; chosen ones otherwise */
						t.nchan = i == 3 ? 3 : 0;
						t.nslices = i == 3 ? 2 : 0;
						/* the large count: one dtype, aligned
						 * and misaligned, out of place */
						if (i == 4 && (fi > 1 || ip))
							continue;
						if (!csg_reduces(t.coll) && fi > 3 && i != 4)
							continue;
						run_case(w, &t);
					}
	/* ring allreduce: every dtype x op at the small counts */
	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (op = 0; op < CS_NUM_OPS; op++)
			for (i = 2; i < 4; i++) {
				memset(&t, 0, sizeof(t));
				t.stall = -1;
				t.coll = CS_COLL_ALLREDUCE;
				t.algo = CSG_ALGO_RING;
				t.P = P;
				t.d = (cs_dtype_t)d;
				t.op = (cs_op_t)op;
				t.n = count_of(t.coll, P, i) * 37;
				t.mis = i == 3;
				run_case(w, &t);
			}
	csg_world_destroy(w);
}

#define P_TEST(P)                                              \
	static void test_p##P(void **state)                    \
	{                                                      \
		(void)state;                                   \
		if (P > max_p)                                 \
			skip();                                \
		run_all_for(P);                                \
	}
P_TEST(1)
P_TEST(2)
P_TEST(3)
P_TEST(4)
P_TEST(5)
P_TEST(6)
P_TEST(7)
P_TEST(8)

/* A ring case of P ranks on dtype d, op op, count n, residues sr and rr. */
static struct tcase ring_case(cs_coll_t coll, int P, cs_dtype_t d, cs_op_t op,
			      size_t n, int sr, int rr)
{
	struct tcase t;

	memset(&t, 0, sizeof(t));
	t.coll = coll;
	t.algo = CSG_ALGO_RING;
	t.P = P;
	t.d = d;
	t.op = op;
	t.n = n;
	t.mis = -1;
	t.sres = sr;
	t.rres = rr;
	t.stall = -1;
	t.nchan = 2;
	t.nslices = 2;
	return t;
}

/* Every pair of send and recv residues mod 16 for each element size, on
 * the ring's two-source reductions (allreduce, reducescatter) and its
 * copies (allgather): equal residues take the 16-byte path with a head,
 * unequal ones the scalar path. P = 3, a count of some vectors per lane. */
static void test_residues(void **state)
{
	static const cs_dtype_t ds[] = {CS_DTYPE_INT8, CS_DTYPE_BFLOAT16,
					CS_DTYPE_FLOAT32, CS_DTYPE_FLOAT64};
	static const cs_coll_t cs[] = {CS_COLL_ALLREDUCE,
				       CS_COLL_REDUCESCATTER,
				       CS_COLL_ALLGATHER};
	struct tcase t;
	csg_world_t *w;
	int P = max_p < 3 ? max_p : 3, es, sr, rr;
	size_t di, ci;

	(void)state;
	assert_int_equal(csg_world_create(P, &w), CS_OK);
	for (di = 0; di < sizeof(ds) / sizeof(ds[0]); di++) {
		es = cs_size_of(ds[di]);
		for (sr = 0; sr < 16; sr += es)
			for (rr = 0; rr < 16; rr += es)
				for (ci = 0; ci < sizeof(cs) / sizeof(cs[0]);
				     ci++) {
					t = ring_case(cs[ci], P, ds[di],
						      CS_OP_SUM, 1021, sr, rr);
					run_case(w, &t);
				}
	}
	csg_world_destroy(w);
}

/* The packed two-lane paths of float16 and bfloat16 (step2, pre2): every
 * op, ring allreduce aligned and one element off (a scalar head, then
 * vectors), P = 2..max_p. */
static void test_packed_half(void **state)
{
	static const cs_dtype_t ds[] = {CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16};
	struct tcase t;
	csg_world_t *w;
	int P, op, res;
	size_t di;

	(void)state;
	for (P = 2; P <= max_p; P++) {
		assert_int_equal(csg_world_create(P, &w), CS_OK);
		for (di = 0; di < 2; di++)
			for (op = 0; op < CS_NUM_OPS; op++)
				for (res = 0; res < 4; res += 2) {
					t = ring_case(CS_COLL_ALLREDUCE, P,
						      ds[di], (cs_op_t)op,
						      4099, res, res);
					run_case(w, &t);
				}
		csg_world_destroy(w);
	}
}

/* A lane that never publishes: the call is aborted (no trap, no hang),
 * and the next calls on the same world pass. */
static void test_stall_then_clean(void **state)
{
	struct tcase t;
	csg_world_t *w;
	int P = max_p < 4 ? max_p : 4;

	(void)state;
	if (P < 2)
		skip();
	assert_int_equal(csg_world_create(P, &w), CS_OK);
	assert_int_equal(csg_world_set_timeout(w, 0.2), CS_OK);
	t = ring_case(CS_COLL_ALLREDUCE, P, CS_DTYPE_FLOAT32, CS_OP_SUM, 65537,
		      0, 0);
	run_case(w, &t); /* before: the world works */
	t.stall = 1;
	run_case(w, &t); /* aborted */
	t.stall = -1;
	run_case(w, &t); /* after: clean */
	t.coll = CS_COLL_ALLGATHER;
	run_case(w, &t);
	csg_world_destroy(w);
}

/* Two or more GPUs: a second world in the process (its peers already
 * enabled by the first) creates and runs. */
static void test_second_world(void **state)
{
	struct tcase t;
	csg_world_t *w;
	int k;

	(void)state;
	if (cs_gpu_device_count() < 2)
		skip();
	for (k = 0; k < 2; k++) {
		if (csg_world_create(3, &w) != CS_OK)
			fail_msg("world %d of the process: %s", k + 1,
				 cs_last_error());
		t = ring_case(CS_COLL_ALLREDUCE, 3, CS_DTYPE_FLOAT32, CS_OP_SUM,
			      4099, 0, 0);
		run_case(w, &t);
		csg_world_destroy(w);
	}
}

/* Refusals: a plan the schedules do not have, too many channels. */
static void test_refusals(void **state)
{
	csg_world_t *w;
	csg_call_t call;

	(void)state;
	assert_int_equal(csg_world_create(0, &w), CS_ERR_INVALID);
	assert_int_equal(csg_world_create(2, &w), CS_OK);
	memset(&call, 0, sizeof(call));
	call.coll = CS_COLL_ALLGATHER;
	call.algo = CSG_ALGO_TREE; /* tree has no allgather */
	call.dtype = CS_DTYPE_FLOAT32;
	assert_int_equal(csg_run(w, &call, NULL), CS_ERR_INVALID);
	call.algo = CSG_ALGO_RING;
	call.nchan = CSG_MAX_RANKS * 1000;
	assert_int_equal(csg_run(w, &call, NULL), CS_ERR_INVALID);
	csg_world_destroy(w);
}

/* A positive number from the environment variable name, or dflt. */
static size_t env_size(const char *name, size_t dflt, size_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 10);
	if (*end || v < 1 || v > max) {
		fprintf(stderr, "%s=%s: not a number in 1..%zu\n", name, s, max);
		exit(2);
	}
	return (size_t)v;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_stall_then_clean),
		cmocka_unit_test(test_second_world),
		cmocka_unit_test(test_residues),
		cmocka_unit_test(test_packed_half),
		cmocka_unit_test(test_p1), cmocka_unit_test(test_p2),
		cmocka_unit_test(test_p3), cmocka_unit_test(test_p4),
		cmocka_unit_test(test_p5), cmocka_unit_test(test_p6),
		cmocka_unit_test(test_p7), cmocka_unit_test(test_p8),
	};

	big_count = env_size("CS_GPU_COLL_BIG", big_count, 100000000);
	max_p = (int)env_size("CS_GPU_COLL_MAXP", MAXP, MAXP);
	if (cs_gpu_device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
