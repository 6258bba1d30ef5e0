/*
 * exec.c - one rank's buffers for a case (cs_exec_t, exec.h): their layout
 * for the collective and the in-place convention, allocation with guards
 * and misalignment, device copies, the inputs of each call (the case's own
 * or fresh ones), and the backend call on them.
 *
 * Layout of a buffer: [guard | misalignment pad | elements | guard], in a
 * span of whole pages between two inaccessible ones (exec.h, guardpage.h),
 * so that an access beyond the guard bytes faults. The
 * guard and pad bytes hold a known pattern; elements that the collective
 * must not write hold a canary that is a function of the element's
 * position; the send range holds the rank's generated input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/a2av.h"
#include "csref/case.h"
#include "check/exec.h"
#include "check/guardpage.h"
#include "suite/suite.h"
#include "csgpu/device.h"
#include "csref/arith.h"
#include "csref/gen.h"

/* Elements above which filling runs on OpenMP threads. */
#define CHECK_BLOCK ((size_t)1 << 16)

/* ---- patterns ------------------------------------------------------------ */

unsigned char cs_exec_guard_byte(size_t k, int after)
{
	return (unsigned char)(0xa5u ^ (unsigned)(k * 0x3bu) ^ (after ? 0x5au : 0));
}

uint64_t cs_exec_canary_bits(cs_dtype_t d, size_t p)
{
	return cs_mix64(0x63616e617279ull ^ p) & cs_bits_mask(d);
}

/* ---- layout and allocation ----------------------------------------------- */

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Element counts of the buffers and where the send and receive ranges sit
 * (see collspec/backend.h for the in-place conventions). */
static void layout(cs_exec_t *e, size_t L[2])
{
	const cs_case_t *c = &e->c;
	int root = c->root == e->rank;
	size_t all = (size_t)c->nranks * c->count;

	e->send_n = cs_case_send_count(c, e->rank);
	e->recv_n = cs_case_recv_count(c, e->rank);
	e->so = e->ro = 0;
	L[0] = e->send_n;
	L[1] = e->recv_n;
	if (!e->inplace) {
		/* receive buffers that are significant at the root only still
		 * exist elsewhere, and must stay unwritten */
		if (c->coll == CS_COLL_REDUCE && !root)
			L[1] = c->count;
		if (c->coll == CS_COLL_GATHER && !root)
			L[1] = all;
		return;
	}
	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		L[0] = all;
		e->so = (size_t)e->rank * c->count;
		break;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_SCATTER:
		L[0] = all;
		e->ro = (size_t)e->rank * c->count;
		e->send_free = c->coll == CS_COLL_REDUCESCATTER;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		L[0] = max_sz(e->send_n, e->recv_n);
		break;
	}
	L[1] = 0;
}

/* Place a buffer of n element bytes in a span of whole pages: tight at
 * the end or at the start (exec.h), element 0 misalignment m bytes past a
 * 64-byte boundary. */
static void gbuf_place(cs_gbuf_t *b, size_t n, size_t m, int end)
{
	size_t pg = cs_gpage_size(), G = CS_GUARD_BYTES;

	b->bytes = (G + m + n + G + 63 + pg - 1) / pg * pg;
	b->tight_end = end;
	if (end) { /* the tail's length keeps element 0 on its boundary */
		b->post = G + (64 - (n + m) % 64) % 64;
		b->pre = b->bytes - b->post - n;
	} else {
		b->pre = G + m;
		b->post = b->bytes - b->pre - n;
	}
}

static cs_status_t gbuf_alloc(cs_gbuf_t *b, size_t elems, size_t esize,
			      int misalign, int end)
{
	size_t m = (size_t)misalign * esize;

	memset(b, 0, sizeof *b);
	if (elems > ((size_t)-1 - 2 * (CS_GUARD_BYTES + m) - 65536) / esize)
		return cs_error(CS_ERR_OVERFLOW, "buffer of %zu elements of %zu "
				"bytes overflows", elems, esize);
	gbuf_place(b, elems * esize, m, end);
	b->alloc = cs_gpage_map(b->bytes);
	if (!b->alloc)
		return cs_error(CS_ERR_NOMEM, "cannot allocate %zu bytes for a "
				"buffer of %zu elements", b->bytes, elems);
	b->data = b->alloc + b->pre;
	b->elems = elems;
	return CS_OK;
}

/* Which side of buffer bi is tight against its page: a function of the
 * case (its key, count, in-place and misalignment, all on its re-run
 * line), the world rank and the buffer, so that the cases of a suite
 * have both, from two ranks on every case has both, and a re-run the
 * same. */
static int tight_end(const cs_exec_t *e, int bi)
{
	uint64_t h = cs_case_key(&e->c) ^ e->c.count * 0x9e3779b97f4a7c15ull;

	h = cs_mix64(h ^ (uint64_t)(e->inplace * 2 + e->misalign));
	return (int)((h ^ (uint64_t)(unsigned)e->world_rank ^
		      (uint64_t)(unsigned)bi) & 1u);
}

/* The buffer's name in messages (check.c's words). */
static const char *gbuf_name(const cs_exec_t *e, int bi)
{
	if (e->nbuf == 1)
		return "in-place buffer";
	return bi == 0 ? "send buffer" : "receive buffer";
}

/* The alltoallv matrix for this communicator and this rank's layout. */
static cs_status_t setup_a2av(cs_exec_t *e, const cs_hcase_t *hc)
{
	size_t P = (size_t)e->c.nranks;

	if (P > ((size_t)-1 / sizeof(size_t)) / (P + 4))
		return cs_error(CS_ERR_OVERFLOW, "alltoallv matrix for %zu ranks",
				P);
	e->a2av = malloc((P * P + 4 * P) * sizeof(size_t));
	if (!e->a2av)
		return cs_error(CS_ERR_NOMEM, "alltoallv matrix for %zu ranks", P);
	cs_a2av_matrix(hc->a2av_pattern, e->c.nranks, e->c.count, e->c.seed,
		       e->a2av);
	e->c.a2av_counts = e->a2av;
	e->sc = e->a2av + P * P;
	e->sd = e->sc + P;
	e->rc = e->sd + P;
	e->rd = e->rc + P;
	return CS_OK;
}

cs_status_t cs_exec_setup(cs_exec_t *e, const cs_hcase_t *hc, int P, int rank)
{
	return cs_exec_setup_at(e, hc, P, rank, rank);
}

cs_status_t cs_exec_setup_at(cs_exec_t *e, const cs_hcase_t *hc, int P,
			     int rank, int world_rank)
{
	size_t L[2], es = cs_dtype_size(hc->c.dtype);
	cs_status_t st;
	int i;

	memset(e, 0, sizeof *e);
	e->c = hc->c;
	e->c.nranks = P;
	e->c.root = cs_coll_rooted(hc->c.coll) ? hc->c.root % P : 0;
	e->c.a2av_counts = NULL;
	e->rank = rank;
	e->world_rank = world_rank;
	e->inplace = hc->inplace;
	e->misalign = hc->misalign;
	if (e->c.coll == CS_COLL_ALLTOALLV && (st = setup_a2av(e, hc)) != CS_OK)
		return st;
	if ((st = cs_case_validate(&e->c)) != CS_OK)
		goto out_free;
	if (e->a2av)
		cs_a2av_layout(&e->c, rank, e->sc, e->sd, e->rc, e->rd);
	layout(e, L);
	e->nbuf = e->inplace ? 1 : 2;
	for (i = 0; i < e->nbuf; i++) {
		cs_gbuf_t *b = &e->buf[i];

		st = gbuf_alloc(b, L[i], es, e->misalign, tight_end(e, i));
		if (st != CS_OK)
			goto out_free;
		cs_gpage_label(b->alloc, b->bytes, b->data, L[i] * es, L[i],
			       world_rank, rank, gbuf_name(e, i));
	}
	cs_store(e->c.dtype, e->scalar, 0, cs_gen_scalar(&e->c, rank));
	e->seed0 = e->c.seed;
	e->ncalls = 1;
	e->result_of = rank;
	return CS_OK;
out_free:
	cs_exec_free(e);
	return st;
}

static void free_device(cs_exec_t *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		cs_dev_free(e->device, e->buf[i].dev);
		e->buf[i].dev = NULL;
	}
	e->stream = NULL;
}

cs_status_t cs_exec_to_device(cs_exec_t *e, int dev, void *stream)
{
	cs_status_t st = CS_OK;
	void *p;
	int i;

	if (!e || e->buf[0].dev)
		return cs_error(CS_ERR_INVALID, "cs_exec_to_device: no buffers, "
				"or already on a device");
	e->device = dev;
	for (i = 0; i < e->nbuf && st == CS_OK; i++)
		if ((st = cs_dev_alloc(dev, e->buf[i].bytes, &p)) == CS_OK)
			e->buf[i].dev = p;
	if (st != CS_OK) {
		free_device(e);
		return st;
	}
	e->stream = stream;
	return CS_OK;
}

cs_status_t cs_exec_put(const cs_exec_t *e)
{
	cs_status_t st = CS_OK;
	int i;

	for (i = 0; i < e->nbuf && st == CS_OK; i++)
		if (e->buf[i].dev)
			st = cs_dev_put(e->device, e->buf[i].dev, e->buf[i].alloc,
					e->buf[i].bytes);
	return st;
}

cs_status_t cs_exec_get(cs_exec_t *e)
{
	cs_status_t st = CS_OK;
	int i;

	for (i = 0; i < e->nbuf && st == CS_OK; i++)
		if (e->buf[i].dev)
			st = cs_dev_get(e->device, e->buf[i].alloc, e->buf[i].dev,
					e->buf[i].bytes);
	return st;
}

void cs_exec_free(cs_exec_t *e)
{
	int i;

	free_device(e);
	cs_gpage_unmap(e->buf[0].alloc, e->buf[0].bytes);
	cs_gpage_unmap(e->buf[1].alloc, e->buf[1].bytes);
	free(e->a2av);
	free(e->first);
	for (i = 0; i < 4; i++)
		free(e->img[i / 2][i % 2]);
	for (i = 0; e->kept && i < e->ncalls; i++)
		free(e->kept[i]);
	free(e->kept);
	memset(e, 0, sizeof *e);
}

void *cs_exec_sendp(const cs_exec_t *e)
{
	return e->buf[0].data + e->so * cs_dtype_size(e->c.dtype);
}

void *cs_exec_recvp(const cs_exec_t *e)
{
	return e->buf[e->nbuf - 1].data + e->ro * cs_dtype_size(e->c.dtype);
}

/* ---- the calls of a case -------------------------------------------------- */

int cs_exec_call_fresh(int k)
{
	return k % 2 == 1;
}

int cs_exec_stats_call(const cs_exec_t *e)
{
	return e->c.mode == CS_MODE_RANDOM &&
	       (e->call == 0 || cs_exec_call_fresh(e->call));
}

/* The seed of call k's inputs. */
static uint64_t call_seed(const cs_exec_t *e, int k)
{
	return cs_exec_call_fresh(k)
		       ? cs_mix64(e->seed0 ^ (0x6672657368ull << 8 | (unsigned)k))
		       : e->seed0;
}

void cs_exec_set_call(cs_exec_t *e, int k, int n)
{
	e->call = k;
	e->ncalls = n;
	e->c.seed = call_seed(e, k);
	cs_store(e->c.dtype, e->scalar, 0, cs_gen_scalar(&e->c, e->rank));
}

void cs_exec_call_case(const cs_exec_t *e, int k, cs_case_t *c)
{
	*c = e->c;
	c->seed = call_seed(e, k);
}

/* ---- filling -------------------------------------------------------------- */

static void fill_buf(const cs_exec_t *e, const cs_gbuf_t *b)
{
	cs_dtype_t d = e->c.dtype;
	size_t es = cs_dtype_size(d), p;

	for (p = 0; p < b->pre; p++)
		b->alloc[p] = cs_exec_guard_byte(p, 0);
	for (p = 0; p < b->post; p++)
		b->data[b->elems * es + p] = cs_exec_guard_byte(p, 1);
#pragma omp parallel for if (b->elems > CHECK_BLOCK) schedule(static)
	for (p = 0; p < b->elems; p++)
		cs_store(d, b->data, p, cs_exec_canary_bits(d, p));
}

/* The image set of e's current inputs: 0 own, 1 fresh. */
static int img_set(const cs_exec_t *e)
{
	return cs_exec_call_fresh(e->call);
}

const unsigned char *cs_exec_image(const cs_exec_t *e, int bi)
{
	int s = img_set(e);

	if (!e->img_ok[s] || e->img_seed[s] != e->c.seed)
		return NULL;
	return e->img[s][bi] + e->buf[bi].pre;
}

/* Keep an image of the buffers just filled, which the layout checks
 * compare with (none when out of memory: they then fail "harness"). */
static void keep_image(cs_exec_t *e)
{
	int s = img_set(e), i;

	e->img_ok[s] = 0;
	for (i = 0; i < e->nbuf; i++) {
		if (!e->img[s][i])
			e->img[s][i] = malloc(e->buf[i].bytes);
		if (!e->img[s][i])
			return;
		memcpy(e->img[s][i], e->buf[i].alloc, e->buf[i].bytes);
	}
	e->img_seed[s] = e->c.seed;
	e->img_ok[s] = 1;
}

void cs_exec_fill(cs_exec_t *e)
{
	int i, s = img_set(e);

	if (cs_exec_image(e, 0)) {
		for (i = 0; i < e->nbuf; i++)
			memcpy(e->buf[i].alloc, e->img[s][i], e->buf[i].bytes);
		return;
	}
	for (i = 0; i < e->nbuf; i++)
		fill_buf(e, &e->buf[i]);
	if (e->send_n)
		cs_gen_fill(&e->c, e->rank, cs_exec_sendp(e), 0, e->send_n);
	keep_image(e);
}

/* ---- the calls ------------------------------------------------------------ */

/* Element off of buffer bi as the backend sees it: in the device copy
 * when there is one, else in host memory. */
static void *call_ptr(const cs_exec_t *e, int bi, size_t off)
{
	const cs_gbuf_t *b = &e->buf[bi];
	unsigned char *base = b->dev ? b->dev : b->alloc;

	return base + b->pre + off * cs_dtype_size(e->c.dtype);
}

/* Reducing and plain collectives, split to keep each switch short. */
static int call_reducing(const cs_exec_t *e, const cs_backend_t *b,
			 cs_bcomm_t comm, const void *s, void *r)
{
	const cs_case_t *c = &e->c;
	void *st = e->stream;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		return b->allreduce(s, r, c->count, c->dtype, c->op, e->scalar,
				    comm, st);
	case CS_COLL_REDUCESCATTER:
		return b->reducescatter(s, r, c->count, c->dtype, c->op,
					e->scalar, comm, st);
	case CS_COLL_REDUCE:
		return b->reduce(s, r, c->count, c->dtype, c->op, e->scalar,
				 c->root, comm, st);
	case CS_COLL_ALLGATHER: /* not reducing: cs_exec_call calls these */
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return -1;
	}
}

int cs_exec_call(const cs_exec_t *e, const cs_backend_t *b, cs_bcomm_t comm)
{
	const cs_case_t *c = &e->c;
	const void *s = call_ptr(e, 0, e->so);
	void *r = call_ptr(e, e->nbuf - 1, e->ro);
	void *st = e->stream;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_REDUCE:
		return call_reducing(e, b, comm, s, r);
	case CS_COLL_ALLGATHER:
		return b->allgather(s, r, c->count, c->dtype, comm, st);
	case CS_COLL_ALLTOALL:
		return b->alltoall(s, r, c->count, c->dtype, comm, st);
	case CS_COLL_ALLTOALLV:
		return b->alltoallv(s, e->sc, e->sd, r, e->rc, e->rd, c->dtype,
				    comm, st);
	case CS_COLL_BROADCAST:
		return b->broadcast(s, r, c->count, c->dtype, c->root, comm, st);
	case CS_COLL_GATHER:
		return b->gather(s, r, c->count, c->dtype, c->root, comm, st);
	case CS_COLL_SCATTER:
		return b->scatter(s, r, c->count, c->dtype, c->root, comm, st);
	case CS_COLL_SENDRECV:
		return b->sendrecv(s, r, c->count, c->dtype, comm, st);
	case CS_NUM_COLLS: /* not a collective */
	default:
		return -1;
	}
}

