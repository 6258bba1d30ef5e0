/*
 * patport.c - the pattern port over the backend ABI (patcase.h): what a
 * pattern's cs_pport_call and cs_pport_run do in `collspec run`.
 *
 * A queued call keeps a copy of its send data and counts. At run, for
 * each queued call in order: every local rank's buffers are staged with
 * guard bytes on both sides (csref's guard pattern, exec.h) and the
 * receive range filled with canaries, on the device for a CUDA backend;
 * the backend's support query and function pointer are agreed on by the
 * whole world (a case the backend cannot run is SKIP, never a hang); the
 * call is made (between group_start and group_end when the backend drives
 * every rank) and synchronized; then its status, the guard bytes, the
 * unmodified send buffer and, for allreduce, identical results across the
 * group are checked, and every rank agrees whether any check failed, so
 * that all stop at the same call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csgpu/device.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "exec.h"
#include "patcase.h"

typedef struct qcall {
	cs_pcall_t c;
	void *send;     /* the send data's copy */
	size_t *counts; /* alltoallv: sendcounts, sdispls, recvcounts,
			   rdispls (P each) */
	size_t se, re;  /* send and receive elements (spec 3.1: alltoallv's
			   are the sums of its counts) */
	size_t sext, rext; /* the buffers' extents in elements (alltoallv:
			      the largest displacement + count) */
} qcall_t;

/* One rank's staged buffers: [guard | data | guard], host and device. */
typedef struct stage {
	unsigned char *sh, *rh; /* host */
	void *sd, *rd;          /* device (CUDA backends), else NULL */
	size_t sbytes, rbytes;  /* data bytes */
} stage_t;

struct cs_patport {
	cs_pport_t port;
	cs_worker_t *w;
	const struct cs_wvar *var;
	const cs_prank_t *rk;
	cs_pcheck_t *chk;
	int n;
	qcall_t **q;
	int *nq, cap;
	cs_patrec_t **rec;
	size_t *nrec, *reccap;
	stage_t *st;
	int *rc;
	uint64_t *fp; /* identity: n * world fingerprints */
};

/* ---- queueing ----------------------------------------------------------- */

static int grow_queue(cs_patport_t *p)
{
	int cap = p->cap ? 2 * p->cap : 8;
	for (int i = 0; i < p->n; i++) {
		qcall_t *q = realloc(p->q[i], (size_t)cap * sizeof *q);
		if (!q)
			return 0;
		p->q[i] = q;
	}
	p->cap = cap;
	return 1;
}

/* alltoallv: the extents of its buffers, max over q of displacement +
 * count, into q->sext and q->rext. 0 on overflow. */
static int extents(qcall_t *q, int P)
{
	size_t s = 0, r = 0, e;
	for (int k = 0; k < P; k++) {
		if (__builtin_add_overflow(q->counts[P + k], q->counts[k], &e))
			return 0;
		s = e > s ? e : s;
		if (__builtin_add_overflow(q->counts[3 * P + k],
					   q->counts[2 * P + k], &e))
			return 0;
		r = e > r ? e : r;
	}
	q->sext = s;
	q->rext = r;
	return 1;
}

static cs_status_t port_call(cs_pport_t *pp, int i, const cs_pcall_t *c)
{
	cs_patport_t *p = pp->impl;
	int P = p->rk[i].P;
	size_t w = cs_dtype_size(c->dtype), se, re;
	cs_status_t st;

	if (i < 0 || i >= p->n)
		return cs_error(CS_ERR_INVALID, "pattern port: local rank %d",
				i);
	if ((st = cs_pcall_elems(c, P, &se, &re)) != CS_OK)
		return st;
	if (p->nq[i] == p->cap && !grow_queue(p))
		return cs_error(CS_ERR_NOMEM, "pattern port: queue");
	qcall_t *q = &p->q[i][p->nq[i]];
	memset(q, 0, sizeof *q);
	q->c = *c;
	q->se = se;
	q->re = re;
	if (c->coll == CS_COLL_ALLTOALLV) {
		size_t b = (size_t)P * sizeof(size_t);
		if (!(q->counts = malloc(4 * b)))
			return cs_error(CS_ERR_NOMEM, "pattern port: counts");
		memcpy(q->counts, c->sendcounts, b);
		memcpy(q->counts + P, c->sdispls, b);
		memcpy(q->counts + 2 * P, c->recvcounts, b);
		memcpy(q->counts + 3 * P, c->rdispls, b);
	}
	q->sext = se;
	q->rext = re;
	if (c->coll == CS_COLL_ALLTOALLV && !extents(q, P)) {
		free(q->counts);
		return cs_error(CS_ERR_OVERFLOW, "pattern port: alltoallv "
				"displacements overflow");
	}
	if (!(q->send = malloc(q->sext * w + 1))) {
		free(q->counts);
		return cs_error(CS_ERR_NOMEM, "pattern port: send copy");
	}
	memcpy(q->send, c->send, q->sext * w);
	p->nq[i]++;
	return CS_OK;
}

/* ---- staging ------------------------------------------------------------ */

static int cuda(const cs_patport_t *p)
{
	return p->w->b->mem_kind == CS_MEM_CUDA;
}

static void fill_guards(unsigned char *h, size_t bytes)
{
	for (size_t k = 0; k < CS_GUARD_BYTES; k++) {
		h[k] = cs_exec_guard_byte(k, 0);
		h[CS_GUARD_BYTES + bytes + k] = cs_exec_guard_byte(k, 1);
	}
}

static int guards_ok(const unsigned char *h, size_t bytes)
{
	for (size_t k = 0; k < CS_GUARD_BYTES; k++)
		if (h[k] != cs_exec_guard_byte(k, 0) ||
		    h[CS_GUARD_BYTES + bytes + k] != cs_exec_guard_byte(k, 1))
			return 0;
	return 1;
}

static void stage_free(cs_patport_t *p, int i)
{
	stage_t *s = &p->st[i];
	if (s->sd)
		cs_dev_free(p->w->dev[i], s->sd);
	if (s->rd)
		cs_dev_free(p->w->dev[i], s->rd);
	free(s->sh);
	free(s->rh);
	memset(s, 0, sizeof *s);
}

/* Local rank i's buffers for call q. 1 when staged. */
static int stage(cs_patport_t *p, int i, const qcall_t *q)
{
	stage_t *s = &p->st[i];
	cs_dtype_t d = q->c.dtype;
	size_t w = cs_dtype_size(d), G = CS_GUARD_BYTES;
	s->sbytes = q->sext * w;
	s->rbytes = q->rext * w;
	s->sh = malloc(s->sbytes + 2 * G);
	s->rh = malloc(s->rbytes + 2 * G);
	if (!s->sh || !s->rh)
		return 0;
	fill_guards(s->sh, s->sbytes);
	fill_guards(s->rh, s->rbytes);
	memcpy(s->sh + G, q->send, s->sbytes);
	for (size_t e = 0; e < q->rext; e++)
		cs_store(d, s->rh + G, e, cs_exec_canary_bits(d, e));
	if (!cuda(p))
		return 1;
	int dev = p->w->dev[i];
	return cs_dev_alloc(dev, s->sbytes + 2 * G, &s->sd) == CS_OK &&
	       cs_dev_alloc(dev, s->rbytes + 2 * G, &s->rd) == CS_OK &&
	       cs_dev_put(dev, s->sd, s->sh, s->sbytes + 2 * G) == CS_OK &&
	       cs_dev_put(dev, s->rd, s->rh, s->rbytes + 2 * G) == CS_OK;
}

/* The pointers the backend gets. */
static const void *sendp(const cs_patport_t *p, int i)
{
	const stage_t *s = &p->st[i];
	return (const unsigned char *)(s->sd ? s->sd : s->sh) + CS_GUARD_BYTES;
}

static void *recvp(const cs_patport_t *p, int i)
{
	const stage_t *s = &p->st[i];
	return (unsigned char *)(s->rd ? s->rd : s->rh) + CS_GUARD_BYTES;
}

/* ---- the call ------------------------------------------------------------ */

/* Whether the backend takes call q: 1, or 0 with the reason. */
static int supported(const cs_patport_t *p, int i, const qcall_t *q,
		     char *why, size_t len)
{
	const cs_backend_t *b = p->w->b;
	const void *fn = NULL;
	switch (q->c.coll) {
	case CS_COLL_ALLREDUCE: fn = (const void *)b->allreduce; break;
	case CS_COLL_ALLGATHER: fn = (const void *)b->allgather; break;
	case CS_COLL_REDUCESCATTER: fn = (const void *)b->reducescatter; break;
	case CS_COLL_ALLTOALL: fn = (const void *)b->alltoall; break;
	case CS_COLL_ALLTOALLV: fn = (const void *)b->alltoallv; break;
	case CS_COLL_SENDRECV: fn = (const void *)b->sendrecv; break;
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_NUM_COLLS:
		break;
	}
	if (!fn) {
		snprintf(why, len, "backend '%s' has no %s", b->name,
			 cs_coll_name(q->c.coll));
		return 0;
	}
	if (!b->supports)
		return 1;
	cs_backend_query_t bq = {sizeof bq, q->c.coll, q->c.dtype,
				 cs_coll_reduces(q->c.coll) ? q->c.op
							    : CS_NUM_OPS,
				 q->c.count, p->rk[i].P, 0, 0};
	if (q->c.coll == CS_COLL_ALLTOALLV) {
		bq.count = 0;
		for (int k = 0; k < 2 * p->rk[i].P; k++) {
			size_t c = k < p->rk[i].P ? q->counts[k]
						  : q->counts[p->rk[i].P + k];
			bq.count = c > bq.count ? c : bq.count;
		}
	}
	why[0] = '\0';
	if (b->supports(p->var->comm[i], &bq, why, len))
		return 1;
	if (!why[0])
		snprintf(why, len, "backend '%s' does not support %s %s",
			 b->name, cs_coll_name(q->c.coll),
			 cs_dtype_name(q->c.dtype));
	return 0;
}

static int issue(cs_patport_t *p, int i, const qcall_t *q)
{
	const cs_backend_t *b = p->w->b;
	static const uint64_t scalar = 0;
	cs_bcomm_t comm = p->var->comm[i];
	void *stream = p->w->stream ? p->w->stream[i] : NULL;
	const void *s = sendp(p, i);
	void *r = recvp(p, i);
	const cs_pcall_t *c = &q->c;
	int P = p->rk[i].P;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		return b->allreduce(s, r, c->count, c->dtype, c->op, &scalar,
				    comm, stream);
	case CS_COLL_ALLGATHER:
		return b->allgather(s, r, c->count, c->dtype, comm, stream);
	case CS_COLL_REDUCESCATTER:
		return b->reducescatter(s, r, c->count, c->dtype, c->op,
					&scalar, comm, stream);
	case CS_COLL_ALLTOALL:
		return b->alltoall(s, r, c->count, c->dtype, comm, stream);
	case CS_COLL_ALLTOALLV:
		return b->alltoallv(s, q->counts, q->counts + P, r,
				    q->counts + 2 * P, q->counts + 3 * P,
				    c->dtype, comm, stream);
	case CS_COLL_SENDRECV:
		return b->sendrecv(s, r, c->count, c->dtype, comm, stream);
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_NUM_COLLS:
		break;
	}
	return -1;
}

/* Call k on every local rank; p->rc[i] its status (sync's when the call's
 * was 0). */
static void make_calls(cs_patport_t *p, int k)
{
	const cs_backend_t *b = p->w->b;
	int grouped = p->w->g->grouped, rc = 0;

	if (grouped)
		rc = b->group_start();
	for (int i = 0; i < p->n; i++)
		p->rc[i] = rc ? rc : issue(p, i, &p->q[i][k]);
	if (grouped && (rc = b->group_end()) != 0)
		for (int i = 0; i < p->n; i++)
			p->rc[i] = p->rc[i] ? p->rc[i] : rc;
	for (int i = 0; i < p->n; i++)
		if (!p->rc[i])
			p->rc[i] = b->synchronize(p->var->comm[i],
						  p->w->stream ? p->w->stream[i]
							       : NULL);
}

/* ---- checks after the call ------------------------------------------------ */

static uint64_t fingerprint(const unsigned char *b, size_t n)
{
	uint64_t h = 0x6964656e74ull ^ n;
	for (size_t k = 0; k < n; k++)
		h = cs_mix64(h ^ b[k]);
	return h;
}

/* alltoallv: element e of the receive extent lies in a block. */
static int in_block(const qcall_t *q, int P, size_t e)
{
	for (int b = 0; b < P; b++)
		if (e >= q->counts[3 * P + b] &&
		    e - q->counts[3 * P + b] < q->counts[2 * P + b])
			return 1;
	return 0;
}

/* alltoallv: the receive blocks copied to the pattern; the elements
 * between them (no block) must still hold their canaries. */
static void copy_blocks(cs_patport_t *p, int i, const qcall_t *q, int k)
{
	int P = p->rk[i].P;
	cs_dtype_t d = q->c.dtype;
	size_t w = cs_dtype_size(d);
	const unsigned char *r = p->st[i].rh + CS_GUARD_BYTES;

	for (size_t e = 0; e < q->rext; e++) {
		if (in_block(q, P, e)) {
			memcpy((char *)q->c.recv + e * w, r + e * w, w);
		} else if (cs_load(d, r, e) != cs_exec_canary_bits(d, e)) {
			cs_pchk_fail(&p->chk[i], "untouched", "alltoallv (call "
				     "%d) wrote element %zu, between its "
				     "receive blocks", k, e);
			return;
		}
	}
}

/* Local rank i's call q: status, guards, send buffer; results copied to
 * the pattern. */
static void check_one(cs_patport_t *p, int i, const qcall_t *q, int k)
{
	stage_t *s = &p->st[i];
	const cs_backend_t *b = p->w->b;
	size_t G = CS_GUARD_BYTES;
	cs_pcheck_t *chk = &p->chk[i];
	const char *coll = cs_coll_name(q->c.coll);
	const char *ph = cs_pphase_name(q->c.phase);

	if (p->rc[i]) {
		cs_pchk_fail(chk, "error", "%s (call %d, %s) failed: %s", coll,
			     k, ph, b->error_string(p->var->comm[i], p->rc[i]));
		return;
	}
	if (s->sd && (cs_dev_get(p->w->dev[i], s->sh, s->sd,
				 s->sbytes + 2 * G) != CS_OK ||
		      cs_dev_get(p->w->dev[i], s->rh, s->rd,
				 s->rbytes + 2 * G) != CS_OK)) {
		cs_pchk_fail(chk, "harness", "%s (call %d): copying the "
			     "buffers back from the device failed", coll, k);
		return;
	}
	if (!guards_ok(s->rh, s->rbytes) || !guards_ok(s->sh, s->sbytes)) {
		cs_pchk_fail(chk, "guard", "%s (call %d, %s) wrote outside its "
			     "buffers (guard bytes changed)", coll, k, ph);
		return;
	}
	if (memcmp(s->sh + G, q->send, s->sbytes) != 0) {
		cs_pchk_fail(chk, "sendbuf", "%s (call %d, %s) modified its "
			     "send buffer", coll, k, ph);
		return;
	}
	if (q->c.coll != CS_COLL_ALLTOALLV) {
		memcpy(q->c.recv, s->rh + G, s->rbytes);
		return;
	}
	copy_blocks(p, i, q, k);
}

/* Allreduce: every group rank's result bit-identical to group rank 0's. */
static void check_identity(cs_patport_t *p, int k)
{
	cs_worker_t *w = p->w;
	int W = w->g->world;
	uint64_t *mine = p->fp + (size_t)p->n * (size_t)W;

	for (int i = 0; i < p->n; i++)
		mine[i] = fingerprint(p->st[i].rh + CS_GUARD_BYTES,
				      p->st[i].rbytes);
	w->g->ops->allgather(w->g, p->var->slot, mine, sizeof *mine, p->fp);
	for (int i = 0; i < p->n; i++) {
		const uint64_t *grp = p->fp + (size_t)i * (size_t)W;
		for (int q = 1; q < p->rk[i].P; q++)
			if (grp[q] != grp[0] && p->rk[i].r == q) {
				cs_pchk_fail(&p->chk[i], "identity", "allreduce "
					     "(call %d) gave group rank %d a "
					     "result that differs from group "
					     "rank 0's", k, q);
			}
	}
}

/* ---- the log ----------------------------------------------------------- */

static int log_call(cs_patport_t *p, int i, const qcall_t *q)
{
	if (p->nrec[i] == p->reccap[i]) {
		size_t cap = p->reccap[i] ? 2 * p->reccap[i] : 32;
		cs_patrec_t *r = realloc(p->rec[i], cap * sizeof *r);
		if (!r)
			return 0;
		p->rec[i] = r;
		p->reccap[i] = cap;
	}
	cs_patrec_t *r = &p->rec[i][p->nrec[i]];
	memset(r, 0, sizeof *r);
	r->rank = p->rk[i].world_rank;
	r->seq = (int32_t)p->nrec[i]++;
	r->coll = (int32_t)q->c.coll;
	r->dtype = (int32_t)q->c.dtype;
	r->op = cs_coll_reduces(q->c.coll) ? (int32_t)q->c.op : CS_NUM_OPS;
	r->phase = (int32_t)q->c.phase;
	r->step = q->c.step;
	r->count = (int64_t)q->c.count;
	if (q->c.coll == CS_COLL_ALLTOALLV) { /* its largest pair count */
		r->count = 0;
		for (int k = 0; k < 2 * p->rk[i].P; k++) {
			size_t c = q->counts[k < p->rk[i].P ? k
							    : p->rk[i].P + k];
			r->count = (int64_t)c > r->count ? (int64_t)c
							 : r->count;
		}
	}
	r->send_elems = (int64_t)q->se;
	r->recv_elems = (int64_t)q->re;
	r->bytes = (int64_t)((q->se + q->re) * cs_dtype_size(q->c.dtype));
	return 1;
}

/* ---- run ----------------------------------------------------------------- */

/* 1 on every rank when any rank's flag is set. */
static int anyone(cs_patport_t *p, const int *flag)
{
	for (int i = 0; i < p->n; i++)
		p->w->flag[i] = flag[i];
	return p->w->g->ops->max(p->w->g, p->w->flag) != 0;
}

/* Call k: staged, agreed on, made, checked. 1 when every rank passed. */
static int run_one(cs_patport_t *p, int k)
{
	char why[256];
	int *bad = p->rc; /* reused as flags before the call */

	for (int i = 0; i < p->n; i++) {
		bad[i] = 0;
		if (!log_call(p, i, &p->q[i][k]) || !stage(p, i, &p->q[i][k])) {
			cs_pchk_fail(&p->chk[i], "harness", "pattern call %d: "
				     "out of memory", k);
			bad[i] = 1;
		} else if (!supported(p, i, &p->q[i][k], why, sizeof why)) {
			p->chk[i].skipped = 1;
			snprintf(p->chk[i].reason, sizeof p->chk[i].reason,
				 "%s", why);
			bad[i] = 1;
		}
	}
	if (anyone(p, bad)) {
		for (int i = 0; i < p->n; i++)
			if (!p->chk[i].failed && !p->chk[i].skipped) {
				p->chk[i].skipped = 1;
				snprintf(p->chk[i].reason,
					 sizeof p->chk[i].reason, "another "
					 "rank could not make pattern call %d",
					 k);
			}
		return 0;
	}
	make_calls(p, k);
	for (int i = 0; i < p->n; i++)
		check_one(p, i, &p->q[i][k], k);
	if (p->q[0][k].c.coll == CS_COLL_ALLREDUCE)
		check_identity(p, k);
	for (int i = 0; i < p->n; i++)
		bad[i] = p->chk[i].failed;
	return !anyone(p, bad);
}

static void drop_queue(cs_patport_t *p)
{
	for (int i = 0; i < p->n; i++) {
		for (int k = 0; k < p->nq[i]; k++) {
			free(p->q[i][k].send);
			free(p->q[i][k].counts);
		}
		p->nq[i] = 0;
	}
}

static cs_status_t port_run(cs_pport_t *pp)
{
	cs_patport_t *p = pp->impl;
	int ok, nq;

	/* every rank of the world queued the same number of calls (else a
	 * pattern bug: no call is made, rather than a hang) */
	for (int i = 0; i < p->n; i++)
		p->w->flag[i] = p->nq[i];
	nq = p->w->g->ops->max(p->w->g, p->w->flag);
	for (int i = 0; i < p->n; i++) {
		p->rc[i] = p->nq[i] != nq;
		if (p->rc[i])
			cs_pchk_fail(&p->chk[i], "harness", "the pattern queued "
				     "%d calls on this rank, %d on another",
				     p->nq[i], nq);
	}
	ok = !anyone(p, p->rc);
	for (int k = 0; ok && k < nq; k++) {
		ok = run_one(p, k);
		for (int i = 0; i < p->n; i++)
			stage_free(p, i);
	}
	drop_queue(p);
	return ok ? CS_OK : CS_ERR_INVALID;
}

/* ---- life ---------------------------------------------------------------- */

cs_patport_t *cs_patport_new(cs_worker_t *w, const struct cs_wvar *var,
			     const cs_prank_t *rk, cs_pcheck_t *chk)
{
	cs_patport_t *p = calloc(1, sizeof *p);
	size_t n = (size_t)w->n, W = (size_t)w->g->world;
	if (!p)
		return NULL;
	p->w = w;
	p->var = var;
	p->rk = rk;
	p->chk = chk;
	p->n = w->n;
	p->q = calloc(n, sizeof *p->q);
	p->nq = calloc(n, sizeof *p->nq);
	p->rec = calloc(n, sizeof *p->rec);
	p->nrec = calloc(n, sizeof *p->nrec);
	p->reccap = calloc(n, sizeof *p->reccap);
	p->st = calloc(n, sizeof *p->st);
	p->rc = calloc(n, sizeof *p->rc);
	p->fp = calloc(n * W + n, sizeof *p->fp);
	if (!p->q || !p->nq || !p->rec || !p->nrec || !p->reccap || !p->st ||
	    !p->rc || !p->fp) {
		cs_patport_free(p);
		return NULL;
	}
	p->port.call = port_call;
	p->port.run = port_run;
	p->port.impl = p;
	return p;
}

cs_pport_t *cs_patport_port(cs_patport_t *p)
{
	return &p->port;
}

const cs_patrec_t *cs_patport_log(const cs_patport_t *p, int i, size_t *n)
{
	*n = p->nrec[i];
	return p->rec[i];
}

void cs_patport_free(cs_patport_t *p)
{
	if (!p)
		return;
	if (p->nq)
		drop_queue(p);
	for (int i = 0; i < p->n; i++) {
		if (p->q)
			free(p->q[i]);
		if (p->rec)
			free(p->rec[i]);
		if (p->st)
			stage_free(p, i);
	}
	free(p->q);
	free(p->nq);
	free(p->rec);
	free(p->nrec);
	free(p->reccap);
	free(p->st);
	free(p->rc);
	free(p->fp);
	free(p);
}
