/*
 * check.c - one rank's buffers for a case and the checks it makes alone:
 * guard bytes, send buffer untouched, regions that must stay unwritten,
 * and the value of every received element against the oracle.
 *
 * Layout of a buffer: [guard | misalignment pad | elements | guard]. The
 * guard and pad bytes hold a known pattern; elements that the collective
 * must not write hold a canary that is a function of the element's
 * position; the send range holds the rank's generated input.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collspec.h"
#include "csgpu/device.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/oracle.h"

/* Elements per oracle/compare block: bounds the golden buffer's size. */
#define CHECK_BLOCK ((size_t)1 << 16)
/* Wrong elements listed in a FAIL's detail. */
#define DETAIL_ELEMS 4

/* ---- verdict bookkeeping ------------------------------------------------- */

static const char *const check_order[] = {
	"error", "guard", "sendbuf", "untouched", "value", "identity",
	"nanrule", "ovfrule", "sign", "bias", "precision", "oracle", "harness",
	"determinism", "skip",
};

int cs_check_prio(const char *check)
{
	size_t i;

	for (i = 0; i < sizeof check_order / sizeof check_order[0]; i++)
		if (strcmp(check_order[i], check) == 0)
			return (int)i;
	return (int)i;
}

void cs_local_init(cs_local_t *l, int world_rank, int comm_rank)
{
	memset(l, 0, sizeof *l);
	l->verdict = CS_V_PASS;
	l->prio = cs_check_prio("");
	l->rank = world_rank;
	l->comm_rank = comm_rank;
	cs_stats_init(&l->stats);
}

/* Copy src into dst[n]; a string that does not fit ends with " [...]" so
 * that the cut shows (a backend's error string may be any length). */
static void copy_marked(char *dst, size_t n, const char *src)
{
	static const char mark[] = " [...]";

	if ((size_t)snprintf(dst, n, "%s", src) < n || n < sizeof mark)
		return;
	memcpy(dst + n - sizeof mark, mark, sizeof mark);
}

void cs_local_set(cs_local_t *l, cs_verdict_t v, const char *check,
		  const char *reason, const char *detail)
{
	int prio = cs_check_prio(check);

	if ((int)v < l->verdict || ((int)v == l->verdict && prio >= l->prio))
		return;
	l->verdict = (int)v;
	l->prio = prio;
	snprintf(l->check, sizeof l->check, "%s", check);
	copy_marked(l->reason, sizeof l->reason, reason ? reason : "");
	copy_marked(l->detail, sizeof l->detail, detail ? detail : "");
}

/* "rank 3", "rank 3 (comm rank 1)", "the root (comm rank 0), in the share
 * checked by rank 2", and after the first call of a case with ", call 2 of
 * 3 (fresh inputs)" added. */
static void rank_name(const cs_exec_t *e, const cs_local_t *l, char *buf,
		      size_t n)
{
	char who[96], call[64] = "";

	if (e->result_of != e->rank)
		snprintf(who, sizeof who, "the root (comm rank %d), in the share "
			 "checked by rank %d", e->result_of, l->rank);
	else if (l->rank != l->comm_rank)
		snprintf(who, sizeof who, "rank %d (comm rank %d)", l->rank,
			 l->comm_rank);
	else
		snprintf(who, sizeof who, "rank %d", l->rank);
	if (e->call > 0)
		snprintf(call, sizeof call, ", call %d of %d (%s)", e->call + 1,
			 e->ncalls, cs_exec_call_fresh(e->call)
			 ? "fresh inputs" : "the inputs of call 1");
	snprintf(buf, n, "%s%s", who, call);
}

/* ---- patterns ------------------------------------------------------------ */

static unsigned char guard_byte(size_t k, int after)
{
	return (unsigned char)(0xa5u ^ (unsigned)(k * 0x3bu) ^ (after ? 0x5au : 0));
}

/* Canary bits of element position p of a buffer of dtype d. */
static uint64_t canary_bits(cs_dtype_t d, size_t p)
{
	return cs_mix64(0x63616e617279ull ^ p) & cs_bits_mask(d);
}

/* The receive buffer's contents before the call, as the oracle needs them
 * for elements the collective must not write. One exec is checked at a
 * time, so a file-scope pointer carries it into the callback. */
static const cs_exec_t *prior_exec;

static uint64_t prior_bits(size_t index)
{
	const cs_exec_t *e = prior_exec;
	size_t p = e->ro + index;

	if (e->nbuf == 1 && p >= e->so && p - e->so < e->send_n)
		return cs_gen_input(&e->c, e->rank, p - e->so);
	return canary_bits(e->c.dtype, p);
}

void cs_format_value(cs_dtype_t d, uint64_t bits, char *buf, size_t n)
{
	int hexw = 2 * (int)cs_dtype_size(d);

	if (cs_dtype_is_float(d))
		snprintf(buf, n, "%.9g (0x%0*llx)", cs_to_f64(d, bits), hexw,
			 (unsigned long long)bits);
	else if (cs_dtype_kind(d) == CS_KIND_SINT)
		snprintf(buf, n, "%lld", (long long)cs_int_value(d, bits));
	else
		snprintf(buf, n, "%llu", (unsigned long long)bits);
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

static cs_status_t gbuf_alloc(cs_gbuf_t *b, size_t elems, size_t esize,
			      int misalign)
{
	size_t pre = CS_GUARD_BYTES + (size_t)misalign * esize, bytes;

	memset(b, 0, sizeof *b);
	if (elems > ((size_t)-1 - 2 * pre - 64) / esize)
		return cs_error(CS_ERR_OVERFLOW, "buffer of %zu elements of %zu "
				"bytes overflows", elems, esize);
	bytes = (pre + elems * esize + CS_GUARD_BYTES + 63) & ~(size_t)63;
	b->alloc = aligned_alloc(64, bytes);
	if (!b->alloc)
		return cs_error(CS_ERR_NOMEM, "cannot allocate %zu bytes for a "
				"buffer of %zu elements", bytes, elems);
	b->data = b->alloc + pre;
	b->elems = elems;
	b->pre = pre;
	b->bytes = bytes;
	return CS_OK;
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
	size_t L[2], es = cs_dtype_size(hc->c.dtype);
	cs_status_t st;
	int i;

	memset(e, 0, sizeof *e);
	e->c = hc->c;
	e->c.nranks = P;
	e->c.root = cs_coll_rooted(hc->c.coll) ? hc->c.root % P : 0;
	e->c.a2av_counts = NULL;
	e->rank = rank;
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
	for (i = 0; i < e->nbuf; i++)
		if ((st = gbuf_alloc(&e->buf[i], L[i], es, e->misalign)) != CS_OK)
			goto out_free;
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
	free(e->buf[0].alloc);
	free(e->buf[1].alloc);
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

void cs_exec_set_call(cs_exec_t *e, int k, int n)
{
	e->call = k;
	e->ncalls = n;
	e->c.seed = cs_exec_call_fresh(k)
			    ? cs_mix64(e->seed0 ^ (0x6672657368ull << 8 | (unsigned)k))
			    : e->seed0;
	cs_store(e->c.dtype, e->scalar, 0, cs_gen_scalar(&e->c, e->rank));
}

/* ---- filling -------------------------------------------------------------- */

static void fill_buf(const cs_exec_t *e, const cs_gbuf_t *b)
{
	cs_dtype_t d = e->c.dtype;
	size_t es = cs_dtype_size(d), p;

	for (p = 0; p < b->pre; p++)
		b->alloc[p] = guard_byte(p, 0);
	for (p = 0; p < CS_GUARD_BYTES; p++)
		b->data[b->elems * es + p] = guard_byte(p, 1);
#pragma omp parallel for if (b->elems > CHECK_BLOCK) schedule(static)
	for (p = 0; p < b->elems; p++)
		cs_store(d, b->data, p, canary_bits(d, p));
}

/* The image set of e's current inputs: 0 own, 1 fresh. */
static int img_set(const cs_exec_t *e)
{
	return cs_exec_call_fresh(e->call);
}

/* Element 0 of buffer bi as cs_exec_fill left it, or NULL (no image). */
static const unsigned char *img_data(const cs_exec_t *e, int bi)
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

	if (img_data(e, 0)) {
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

/* ---- checks --------------------------------------------------------------- */

static const char *buf_name(const cs_exec_t *e, int bi)
{
	if (e->nbuf == 1)
		return "in-place buffer";
	return bi == 0 ? "send buffer" : "receive buffer";
}

/* First differing byte of a guard region, or -1. */
static long guard_diff(const unsigned char *p, size_t n, int after)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (p[k] != guard_byte(k, after))
			return (long)k;
	return -1;
}

static void check_guards(const cs_exec_t *e, int bi, cs_local_t *l)
{
	const cs_gbuf_t *b = &e->buf[bi];
	size_t es = cs_dtype_size(e->c.dtype);
	long before = guard_diff(b->alloc, b->pre, 0);
	long after = guard_diff(b->data + b->elems * es, CS_GUARD_BYTES, 1);
	char who[160], reason[256], detail[512];

	if (before < 0 && after < 0)
		return;
	rank_name(e, l, who, sizeof who);
	if (after >= 0) {
		snprintf(reason, sizeof reason, "%s: %s written past its end",
			 who, buf_name(e, bi));
		snprintf(detail, sizeof detail, "%s: %s of %zu elements: byte "
			 "+%ld after element %zu changed from 0x%02x to 0x%02x",
			 who, buf_name(e, bi), b->elems, after, b->elems,
			 guard_byte((size_t)after, 1),
			 b->data[b->elems * es + (size_t)after]);
	} else {
		snprintf(reason, sizeof reason, "%s: %s written before its start",
			 who, buf_name(e, bi));
		snprintf(detail, sizeof detail, "%s: %s: byte -%zu before element "
			 "0 changed from 0x%02x to 0x%02x", who, buf_name(e, bi),
			 b->pre - (size_t)before, guard_byte((size_t)before, 0),
			 b->alloc[before]);
	}
	cs_local_set(l, CS_V_FAIL, "guard", reason, detail);
}

/* First element of [lo, hi) where buffer bi differs from want (elements of
 * the same buffer layout), or hi. */
static size_t first_diff(const cs_exec_t *e, int bi, const unsigned char *want,
			 size_t lo, size_t hi)
{
	cs_dtype_t d = e->c.dtype;
	const unsigned char *got = e->buf[bi].data;
	size_t es = cs_dtype_size(d), p;

	if (memcmp(want + lo * es, got + lo * es, (hi - lo) * es) == 0)
		return hi;
	for (p = lo; cs_load(d, want, p) == cs_load(d, got, p); p++)
		;
	return p;
}

/* Elements [lo, hi) of buffer bi must hold what they held before the call:
 * this rank's input (check "sendbuf") or the canary ("untouched"). */
static void check_unchanged(const cs_exec_t *e, int bi, size_t lo, size_t hi,
			    int input, cs_local_t *l)
{
	cs_dtype_t d = e->c.dtype;
	size_t es = cs_dtype_size(d), p;
	const unsigned char *want = img_data(e, bi);
	char who[160], reason[256], detail[512], ev[64], gv[64];

	if (!want) {
		cs_local_set(l, CS_V_FAIL, "harness", "out of memory for the "
			     "image of the buffers before the call", NULL);
		return;
	}
	l->elems += hi - lo;
	l->bytes += (hi - lo) * es;
	if ((p = first_diff(e, bi, want, lo, hi)) == hi)
		return;
	rank_name(e, l, who, sizeof who);
	cs_format_value(d, cs_load(d, want, p), ev, sizeof ev);
	cs_format_value(d, cs_load(d, e->buf[bi].data, p), gv, sizeof gv);
	if (input) {
		snprintf(reason, sizeof reason, "%s: %s modified (input element "
			 "%zu)", who, buf_name(e, bi), p - e->so);
		snprintf(detail, sizeof detail, "%s: %s input element %zu: "
			 "expected %s (unchanged) got %s", who, buf_name(e, bi),
			 p - e->so, ev, gv);
		cs_local_set(l, CS_V_FAIL, "sendbuf", reason, detail);
		return;
	}
	snprintf(reason, sizeof reason, "%s: %s element %zu written, but the "
		 "collective must not write it on this rank", who,
		 buf_name(e, bi), p);
	snprintf(detail, sizeof detail, "%s: %s element %zu: expected 0x%llx "
		 "(left as it was) got 0x%llx", who, buf_name(e, bi), p,
		 (unsigned long long)cs_load(d, want, p),
		 (unsigned long long)cs_load(d, e->buf[bi].data, p));
	cs_local_set(l, CS_V_FAIL, "untouched", reason, detail);
}

/* The source element of received element `index` in each rank's input,
 * for collectives that reduce (SIZE_MAX otherwise). */
static size_t reduce_source(const cs_exec_t *e, size_t index)
{
	switch (e->c.coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		return index;
	case CS_COLL_REDUCESCATTER:
		return (size_t)e->rank * e->c.count + index;
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return (size_t)-1;
	}
}

/* "; inputs 1 2.5 -3" for small reductions, else "". */
static void format_inputs(const cs_exec_t *e, size_t index, char *buf,
			  size_t n)
{
	size_t src = reduce_source(e, index), used;
	char v[64];
	int q;

	buf[0] = '\0';
	if (src == (size_t)-1 || e->c.nranks > 8)
		return;
	used = (size_t)snprintf(buf, n, "; inputs");
	for (q = 0; q < e->c.nranks && used < n; q++) {
		cs_format_value(e->c.dtype, cs_gen_input(&e->c, q, src), v,
				sizeof v);
		used += (size_t)snprintf(buf + used, n - used, " %s", v);
	}
}

/* One line of a value failure. */
static size_t format_mismatch(const cs_exec_t *e, const cs_local_t *l,
			      const cs_mismatch_t *m, char *buf, size_t n)
{
	cs_dtype_t d = e->c.dtype;
	char who[160], ev[64], gv[64], in[256];

	rank_name(e, l, who, sizeof who);
	cs_format_value(d, m->expected, ev, sizeof ev);
	cs_format_value(d, m->got, gv, sizeof gv);
	if (m->flags & CS_G_UNTOUCHED)
		return (size_t)snprintf(buf, n, "%s index %zu: gap element "
					"written: expected 0x%llx (left as it "
					"was) got %s\n", who, m->index,
					(unsigned long long)m->expected, gv);
	format_inputs(e, m->index, in, sizeof in);
	if (!cs_dtype_is_float(d))
		return (size_t)snprintf(buf, n, "%s index %zu: expected %s got "
					"%s (integers are exact)%s\n", who,
					m->index, ev, gv, in);
	if (m->flags & (CS_G_EXACT | CS_G_MOVED))
		return (size_t)snprintf(buf, n, "%s index %zu: expected %s got "
					"%s, exact result required, err %.3g = "
					"%.3g ulps%s\n", who, m->index, ev, gv,
					m->err, m->ulps, in);
	return (size_t)snprintf(buf, n, "%s index %zu: expected %s (S=%.17g) "
				"bound %.3g got %s, err %.3g = %.3g ulps%s\n",
				who, m->index, ev, m->s, m->bound, gv, m->err,
				m->ulps, in);
}

static void value_fail(const cs_exec_t *e, const cs_cmp_summary_t *s,
		       cs_local_t *l)
{
	char who[160], reason[256], detail[sizeof l->detail];
	size_t used = 0, i;

	detail[0] = '\0';
	for (i = 0; i < s->n_recorded && i < DETAIL_ELEMS; i++)
		if (used < sizeof detail)
			used += format_mismatch(e, l, &s->first[i], detail + used,
						sizeof detail - used);
	rank_name(e, l, who, sizeof who);
	snprintf(reason, sizeof reason, "%s: %zu of %zu received elements "
		 "wrong (first at index %zu)", who, s->n_wrong, s->n,
		 s->n_recorded ? s->first[0].index : 0);
	cs_local_set(l, CS_V_FAIL, "value", reason, detail);
}

/*
 * The part of the receive range this rank verifies against the oracle. For
 * collectives that hand every rank the same result, the ranks split the
 * range and each verifies its share: the cross-rank identity check (every
 * rank's whole range compared with every other's by a fingerprint keyed
 * after the calls: khash.c) then carries every verified element to every rank, so each
 * element is computed by the oracle once, not P times. Elsewhere a rank
 * verifies its whole range.
 */
static void check_slice(const cs_exec_t *e, size_t n, size_t *lo,
			size_t *end)
{
	size_t P = (size_t)e->c.nranks, r = (size_t)e->rank;

	*lo = 0;
	*end = n;
	if (!cs_coll_same_everywhere(e->c.coll) && !e->share_root)
		return;
	if (P < 2)
		return;
	*lo = n / P * r + (r < n % P ? r : n % P);
	*end = *lo + n / P + (r < n % P);
}

/* The oracle's working block, kept for the process's life: allocated
 * anew for every check, its pages would be zeroed by the kernel each time.
 * The checks run one at a time per process (the in-process worker checks
 * its ranks in turn). NULL when out of memory. */
static cs_golden_t *golden_block(void)
{
	static cs_golden_t *block;

	if (!block)
		block = malloc(CHECK_BLOCK * sizeof *block);
	return block;
}

/* Elements [lo, end) of the receive range that comm rank `of` holds (got:
 * its element 0) against the oracle; the verdict goes to l. */
static void check_result(const cs_exec_t *e, int of, const unsigned char *got,
			 size_t lo, size_t end, cs_local_t *l)
{
	cs_dtype_t d = e->c.dtype;
	size_t es = cs_dtype_size(d), n, i, first = lo;
	cs_golden_t *g = golden_block();
	cs_cmp_summary_t s;
	cs_status_t st = CS_OK;
	/* statistics over random-mode inputs (their model), once per set of
	 * inputs: not again for a same-input call whose bits changed */
	int stats = e->c.mode == CS_MODE_RANDOM &&
		    (e->call == 0 || cs_exec_call_fresh(e->call));

	if (!g) {
		cs_local_set(l, CS_V_FAIL, "harness", "out of memory", NULL);
		return;
	}
	cs_cmp_summary_init(&s);
	prior_exec = e;
	for (; lo < end && st == CS_OK; lo += n) {
		n = end - lo < CHECK_BLOCK ? end - lo : CHECK_BLOCK;
		st = cs_oracle_expect(&e->c, of, lo, n, prior_bits, g);
		if (st != CS_OK)
			break;
		cs_compare_range(d, g, got + lo * es, n, lo, &s);
		if (stats)
			cs_stats_add(&l->stats, d, e->c.op, e->c.nranks, g,
				     got + lo * es, n);
	}
	if (st != CS_OK) {
		cs_local_set(l, CS_V_FAIL, "oracle", cs_last_error(), NULL);
		return;
	}
	for (i = 0; i < CS_NUM_OBS; i++)
		l->obs[i] += s.obs[i];
	l->elems += end - first;
	l->bytes += (end - first) * es;
	if (s.n_wrong)
		value_fail(e, &s, l);
}

static void check_recv(const cs_exec_t *e, cs_local_t *l)
{
	size_t lo, end;

	check_slice(e, e->recv_n, &lo, &end);
	check_result(e, e->rank, cs_exec_recvp(e), lo, end, l);
}

void cs_exec_check_root_share(cs_exec_t *e, const void *got, cs_local_t *l)
{
	int root = e->c.root;
	size_t lo, end;

	e->result_of = root;
	check_slice(e, cs_case_recv_count(&e->c, root), &lo, &end);
	check_result(e, root, got, lo, end, l);
	e->result_of = e->rank;
}

enum span_kind { SPAN_RECV, SPAN_INPUT, SPAN_CANARY, SPAN_FREE };

static int in_range(size_t p, size_t lo, size_t n)
{
	return p >= lo && p - lo < n;
}

/* Sorted cut points of buffer bi: 0, its end and every range boundary. */
static int cuts_of(const cs_exec_t *e, int bi, size_t cut[6])
{
	size_t L = e->buf[bi].elems, t;
	int n = 0, i, j;

	cut[n++] = 0;
	cut[n++] = L;
	if (bi == 0)
		cut[n++] = e->so, cut[n++] = e->so + e->send_n;
	if (bi == e->nbuf - 1)
		cut[n++] = e->ro, cut[n++] = e->ro + e->recv_n;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--)
			t = cut[j], cut[j] = cut[j - 1], cut[j - 1] = t;
	return n;
}

static enum span_kind kind_at(const cs_exec_t *e, int bi, size_t p)
{
	if (bi == e->nbuf - 1 && in_range(p, e->ro, e->recv_n))
		return SPAN_RECV;
	if (bi == 0 && in_range(p, e->so, e->send_n))
		return e->send_free ? SPAN_FREE : SPAN_INPUT;
	return SPAN_CANARY;
}

/* Check every element of buffer bi by what it must hold. */
static void check_spans(const cs_exec_t *e, int bi, cs_local_t *l)
{
	size_t cut[6];
	int n = cuts_of(e, bi, cut), i;

	for (i = 0; i + 1 < n; i++) {
		size_t lo = cut[i], hi = cut[i + 1];
		if (lo == hi)
			continue;
		switch (kind_at(e, bi, lo)) {
		case SPAN_RECV:
			break; /* checked once, by check_recv */
		case SPAN_INPUT:
			check_unchanged(e, bi, lo, hi, 1, l);
			break;
		case SPAN_CANARY:
			check_unchanged(e, bi, lo, hi, 0, l);
			break;
		case SPAN_FREE:
		default:
			break;
		}
	}
}

void cs_exec_check_layout(const cs_exec_t *e, cs_local_t *l)
{
	int bi;

	for (bi = 0; bi < e->nbuf; bi++) {
		check_guards(e, bi, l);
		check_spans(e, bi, l);
	}
}

void cs_exec_check_values(const cs_exec_t *e, cs_local_t *l)
{
	if (e->recv_n)
		check_recv(e, l);
}

void cs_exec_check(const cs_exec_t *e, cs_local_t *l)
{
	cs_exec_check_layout(e, l);
	cs_exec_check_values(e, l);
}

/* Call 0's received bytes, kept for the determinism comparison and the
 * identity check. */
static void keep_first(cs_exec_t *e, cs_local_t *l)
{
	size_t n;
	const void *got = cs_exec_recv_bytes(e, &n);

	free(e->first);
	e->first = malloc(n ? n : 1);
	if (!e->first) {
		cs_local_set(l, CS_V_FAIL, "harness", "out of memory for a copy "
			     "of the received buffer", NULL);
		return;
	}
	memcpy(e->first, got, n);
}

void cs_exec_keep(cs_exec_t *e, cs_local_t *l)
{
	size_t n;
	const void *got = cs_exec_recv_bytes(e, &n);

	if (e->call == 0) {
		if (!e->first)
			keep_first(e, l);
		return;
	}
	if (!e->kept) {
		e->kept = calloc((size_t)e->ncalls, sizeof *e->kept);
		if (!e->kept)
			goto out_nomem;
	}
	if (e->first && memcmp(got, e->first, n) == 0)
		return; /* call 0's copy stands for it */
	e->kept[e->call] = malloc(n ? n : 1);
	if (!e->kept[e->call])
		goto out_nomem;
	memcpy(e->kept[e->call], got, n);
	return;
out_nomem:
	cs_local_set(l, CS_V_FAIL, "harness", "out of memory for a copy of "
		     "the received buffer", NULL);
}

const void *cs_exec_kept(const cs_exec_t *e, int k, size_t *n)
{
	*n = e->recv_n * cs_dtype_size(e->c.dtype);
	if (k > 0 && e->kept && e->kept[k])
		return e->kept[k];
	return e->first;
}

/* A later call on call 0's inputs: 1 when it received call 0's bytes. */
static int same_as_first(const cs_exec_t *e, cs_local_t *l)
{
	char who[160], reason[256], detail[512];
	size_t n, i;
	const unsigned char *got = cs_exec_recv_bytes(e, &n);

	if (!e->first || memcmp(got, e->first, n) == 0)
		return e->first != NULL;
	for (i = 0; got[i] == e->first[i]; i++)
		;
	rank_name(e, l, who, sizeof who);
	snprintf(reason, sizeof reason, "%s: the same call on the same inputs "
		 "gave different bits than call 1", who);
	snprintf(detail, sizeof detail, "%s: received byte %zu (element %zu) "
		 "was 0x%02x in call 1, 0x%02x now", who, i,
		 i / cs_dtype_size(e->c.dtype), e->first[i], got[i]);
	cs_local_set(l, CS_V_WARN, "determinism", reason, detail);
	return 0;
}

int cs_exec_check_call(cs_exec_t *e, cs_local_t *l)
{
	int same_inputs = e->call > 0 && !cs_exec_call_fresh(e->call);

	cs_exec_check_layout(e, l);
	if (same_inputs && same_as_first(e, l))
		return 1; /* call 0's value verdict holds for these bytes */
	if (!e->share_root)
		cs_exec_check_values(e, l);
	if (e->call == 0 && e->ncalls > 2)
		keep_first(e, l);
	return 0;
}

const void *cs_exec_recv_bytes(const cs_exec_t *e, size_t *n)
{
	*n = e->recv_n * cs_dtype_size(e->c.dtype);
	return cs_exec_recvp(e);
}
