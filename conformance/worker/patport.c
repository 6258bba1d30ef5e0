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
#include "worker/patport_impl.h"

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
		if (__builtin_add_overflow(cs_qc(q, 1)[k], cs_qc(q, 0)[k], &e))
			return 0;
		s = e > s ? e : s;
		if (__builtin_add_overflow(cs_qc(q, 3)[k], cs_qc(q, 2)[k], &e))
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
		int W = p->w->g->world;
		q->stride = (size_t)(W > P ? W : P);
		if (!(q->counts = calloc(4 * q->stride, sizeof *q->counts)))
			return cs_error(CS_ERR_NOMEM, "pattern port: counts");
		memcpy(cs_qc(q, 0), c->sendcounts, b);
		memcpy(cs_qc(q, 1), c->sdispls, b);
		memcpy(cs_qc(q, 2), c->recvcounts, b);
		memcpy(cs_qc(q, 3), c->rdispls, b);
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
	if (q->c.coll == CS_COLL_ALLTOALLV)
		bq.count = cs_qc_max_pair(q, p->rk[i].P);
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
	const void *s = cs_patport_sendp(p, i);
	void *r = cs_patport_recvp(p, i);
	const cs_pcall_t *c = &q->c;

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
		return b->alltoallv(s, cs_qc(q, 0), cs_qc(q, 1), r,
				    cs_qc(q, 2), cs_qc(q, 3),
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
	if (q->c.coll == CS_COLL_ALLTOALLV) /* its largest pair count */
		r->count = (int64_t)cs_qc_max_pair(q, p->rk[i].P);
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
		if (!log_call(p, i, &p->q[i][k]) || !cs_patport_stage(p, i, &p->q[i][k])) {
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
		cs_patport_check_one(p, i, &p->q[i][k], k);
	if (p->q[0][k].c.coll == CS_COLL_ALLREDUCE)
		cs_patport_check_identity(p, k);
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
			cs_patport_stage_free(p, i);
	}
	drop_queue(p);
	return ok ? CS_OK : CS_ERR_INVALID;
}

/* ---- life ---------------------------------------------------------------- */

cs_patport_t *cs_patport_new(cs_worker_t *w, const struct cs_wvar *var,
			     const cs_prank_t *rk, cs_pcheck_t *chk)
{
	cs_patport_t *p = calloc(1, sizeof *p);
	size_t n = (size_t)w->n;
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
	p->bitcall = calloc(n, sizeof *p->bitcall);
	if (!p->q || !p->nq || !p->rec || !p->nrec || !p->reccap || !p->st ||
	    !p->rc || !p->bitcall) {
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
			cs_patport_stage_free(p, i);
	}
	free(p->q);
	free(p->nq);
	free(p->rec);
	free(p->nrec);
	free(p->reccap);
	free(p->st);
	free(p->rc);
	free(p->bitcall);
	free(p);
}

void cs_patport_bits_verdict(const cs_patport_t *p, int i, cs_local_t *l)
{
	char reason[160];
	int strict = (p->w->b->flags & CS_BACKEND_F_BIT_IDENTICAL) != 0;

	if (!p->bitcall[i])
		return;
	snprintf(reason, sizeof reason, "allreduce (call %d) gave group rank "
		 "%d the values of group rank 0 in different bits (NaN "
		 "payloads or zero signs)", p->bitcall[i] - 1, p->rk[i].r);
	cs_local_set(l, strict ? CS_V_FAIL : CS_V_WARN, "bitidentity", reason,
		     NULL);
}
