/*
 * psim.c - the pattern simulator (csref/psim.h): a port (csref/pattern.h)
 * whose collectives are done in memory by their definitions, for every
 * rank of a grid at once, with an optional fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/psim.h"
#include "csref/reduce.h"

/* One queued call of one rank, with private copies of what it reads. */
typedef struct qcall {
	cs_pcall_t c;
	void *send;      /* copy of the send data */
	size_t *counts;  /* alltoallv: sendcounts, sdispls, recvcounts,
			    rdispls, P entries each */
	size_t send_elems, recv_elems;
} qcall_t;

typedef struct sim {
	const cs_pctx_t *x;
	cs_psim_fault_t fault;
	int W;
	qcall_t **q;     /* [W][cap] */
	int *nq;         /* [W] */
	int cap;
	int *seq;        /* [W]: calls made so far */
	cs_psim_out_t *out;
	size_t logcap;
	int broken;
} sim_t;

static void fail_all(sim_t *s, const char *check, const char *why)
{
	for (int g = 0; g < s->W; g++)
		cs_pchk_fail(&s->x->chk[g], check, "%s", why);
	s->broken = 1;
}

static cs_status_t sim_call(cs_pport_t *p, int i, const cs_pcall_t *c)
{
	sim_t *s = p->impl;
	int P = s->x->rank[i].P;
	size_t se, re, w = cs_dtype_size(c->dtype);
	cs_status_t st = cs_pcall_elems(c, P, &se, &re);
	if (st != CS_OK)
		return st;
	if (s->nq[i] == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		for (int g = 0; g < s->W; g++) {
			qcall_t *n = realloc(s->q[g], (size_t)cap * sizeof *n);
			if (!n)
				return cs_error(CS_ERR_NOMEM, "psim: queue");
			s->q[g] = n;
		}
		s->cap = cap;
	}
	qcall_t *qc = &s->q[i][s->nq[i]];
	memset(qc, 0, sizeof *qc);
	qc->c = *c;
	qc->send_elems = se;
	qc->recv_elems = re;
	qc->send = malloc(se * w + 1);
	if (!qc->send)
		return cs_error(CS_ERR_NOMEM, "psim: send copy");
	memcpy(qc->send, c->send, se * w);
	if (c->coll == CS_COLL_ALLTOALLV) {
		qc->counts = malloc(4 * (size_t)P * sizeof(size_t));
		if (!qc->counts) {
			free(qc->send);
			return cs_error(CS_ERR_NOMEM, "psim: counts copy");
		}
		memcpy(qc->counts, c->sendcounts, (size_t)P * sizeof(size_t));
		memcpy(qc->counts + P, c->sdispls, (size_t)P * sizeof(size_t));
		memcpy(qc->counts + 2 * P, c->recvcounts,
		       (size_t)P * sizeof(size_t));
		memcpy(qc->counts + 3 * P, c->rdispls,
		       (size_t)P * sizeof(size_t));
	}
	s->nq[i]++;
	return CS_OK;
}

static int log_call(sim_t *s, int g, const qcall_t *qc)
{
	cs_psim_out_t *o = s->out;
	if (o->nlog == s->logcap) {
		size_t cap = s->logcap ? 2 * s->logcap : 64;
		cs_psim_rec_t *n = realloc(o->log, cap * sizeof *n);
		if (!n)
			return 0;
		o->log = n;
		s->logcap = cap;
	}
	cs_psim_rec_t *r = &o->log[o->nlog++];
	r->world_rank = g;
	r->seq = s->seq[g]++;
	r->coll = qc->c.coll;
	r->dtype = qc->c.dtype;
	r->op = qc->c.op;
	r->phase = qc->c.phase;
	r->step = qc->c.step;
	r->count = qc->c.count;
	r->send_elems = qc->send_elems;
	r->recv_elems = qc->recv_elems;
	r->bytes = (int64_t)((qc->send_elems + qc->recv_elems) *
			     cs_dtype_size(qc->c.dtype));
	o->bytes[g] += r->bytes;
	return 1;
}

/* The members of world rank g's group for this call, in group order,
 * into mem[]; returns their number. The world under CS_PSIM_WORLD. */
static int members(sim_t *s, int g, int *mem)
{
	int n = 0;
	if (s->fault == CS_PSIM_WORLD) {
		for (int h = 0; h < s->W; h++)
			mem[n++] = h;
		return n;
	}
	const cs_prank_t *rk = s->x->rank;
	for (int r = 0; r < rk[g].P; r++)
		for (int h = 0; h < s->W; h++)
			if (rk[h].inst == rk[g].inst && rk[h].r == r)
				mem[n++] = h;
	return n;
}

/* Where block q lands (spec section 7.2's fault reverses it). */
static int place(const sim_t *s, int q, int P)
{
	return s->fault == CS_PSIM_REVERSE ? P - 1 - q : q;
}

/* Off by 1 + |v| at element 0 (CS_PSIM_PERTURB). */
static void perturb(const sim_t *s, cs_dtype_t d, void *buf, size_t n)
{
	if (s->fault != CS_PSIM_PERTURB || n == 0)
		return;
	uint64_t b = cs_load(d, buf, 0);
	double v = cs_is_float(d) ? cs_to_f64(d, b) : (double)cs_int_value(d, b);
	double nv = v + 1 + (v < 0 ? -v : v);
	cs_store(d, buf, 0,
		 cs_is_float(d) ? cs_from_f64(d, nv, 0)
				: ((uint64_t)(int64_t)nv & cs_bits_mask(d)));
}

/* op over the P' members' send buffers, elements [lo, lo + n), into dst. */
static int reduce_into(sim_t *s, int k, const int *mem, int Pm, size_t lo,
		       size_t n, void *dst)
{
	const qcall_t *q0 = &s->q[mem[0]][k];
	cs_dtype_t d = q0->c.dtype;
	size_t w = cs_dtype_size(d);
	void *tmp = malloc(n * w + 1);
	if (!tmp)
		return 0;
	for (int m = 0; m < Pm; m++) {
		const qcall_t *qm = &s->q[mem[m]][k];
		void *into = m == 0 ? dst : tmp;
		cs_op_prepare(d, q0->c.op, Pm, 0, into,
			      (const char *)qm->send + lo * w, n);
		if (m > 0)
			cs_reduce_bufs(d, q0->c.op, dst, tmp, n);
	}
	cs_op_finish(d, q0->c.op, Pm, dst, n);
	free(tmp);
	return 1;
}

/* Call k of world rank g, with its group's calls k. 1 done, 0 failed
 * (the verdicts say why). */
static int exec_one(sim_t *s, int k, int g, const int *mem, int Pm)
{
	const qcall_t *me = &s->q[g][k];
	const cs_pcall_t *c = &me->c;
	size_t w = cs_dtype_size(c->dtype), n = c->count;
	int P = s->x->rank[g].P, r = -1;
	char why[200];
	for (int m = 0; m < Pm; m++)
		if (mem[m] == g)
			r = m;
	for (int m = 0; m < Pm; m++) {
		const cs_pcall_t *o = &s->q[mem[m]][k].c;
		if (o->coll != c->coll || o->dtype != c->dtype ||
		    (c->coll != CS_COLL_ALLTOALLV && o->count != c->count) ||
		    ((c->coll == CS_COLL_ALLREDUCE ||
		      c->coll == CS_COLL_REDUCESCATTER) && o->op != c->op)) {
			snprintf(why, sizeof why, "call %d: the group's ranks "
				 "disagree on the call (%s)", k,
				 cs_coll_name(c->coll));
			fail_all(s, "error", why);
			return 0;
		}
	}
	/* A call that would read or write beyond the pattern's buffers is
	 * refused, as a real implementation would fail or break guards. */
	if (Pm != P && c->coll != CS_COLL_ALLREDUCE &&
	    c->coll != CS_COLL_SENDRECV) {
		snprintf(why, sizeof why, "%s on %d ranks: the buffers hold "
			 "blocks for %d (the call went outside its group)",
			 cs_coll_name(c->coll), Pm, P);
		cs_pchk_fail(&s->x->chk[g], "error", "%s", why);
		s->broken = 1;
		return 0;
	}
	char *out = c->recv;
	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		if (!reduce_into(s, k, mem, Pm, 0, n, out))
			return 0;
		perturb(s, c->dtype, out, n);
		return 1;
	case CS_COLL_REDUCESCATTER:
		if (!reduce_into(s, k, mem, Pm,
				 (size_t)place(s, r, Pm) * n, n, out))
			return 0;
		perturb(s, c->dtype, out, n);
		return 1;
	case CS_COLL_ALLGATHER:
		for (int q = 0; q < Pm; q++)
			memcpy(out + (size_t)place(s, q, Pm) * n * w,
			       s->q[mem[q]][k].send, n * w);
		return 1;
	case CS_COLL_ALLTOALL:
		for (int q = 0; q < Pm; q++)
			memcpy(out + (size_t)place(s, q, Pm) * n * w,
			       (const char *)s->q[mem[q]][k].send +
				   (size_t)r * n * w,
			       n * w);
		return 1;
	case CS_COLL_SENDRECV: {
		const qcall_t *src = &s->q[mem[(r + Pm - 1) % Pm]][k];
		memcpy(out, src->send, n * w);
		return 1;
	}
	case CS_COLL_ALLTOALLV:
		for (int q = 0; q < Pm; q++) {
			const qcall_t *sq = &s->q[mem[q]][k];
			size_t sc = sq->counts[r], sd = sq->counts[Pm + r];
			int at_ = place(s, q, Pm);
			size_t rc = me->counts[2 * Pm + at_];
			size_t rd = me->counts[3 * Pm + at_];
			if (s->fault != CS_PSIM_REVERSE && sc != rc) {
				snprintf(why, sizeof why, "alltoallv: rank %d "
					 "sends %zu elements to rank %d, which "
					 "expects %zu", q, sc, r, rc);
				cs_pchk_fail(&s->x->chk[g], "error", "%s",
					     why);
				s->broken = 1;
				return 0;
			}
			memcpy(out + rd * w,
			       (const char *)sq->send + sd * w,
			       (sc < rc ? sc : rc) * w);
		}
		return 1;
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_NUM_COLLS:
		break;
	}
	fail_all(s, "error", "a pattern called a collective psim lacks");
	return 0;
}

static cs_status_t sim_run(cs_pport_t *p)
{
	sim_t *s = p->impl;
	int *mem = malloc((size_t)s->W * sizeof *mem);
	cs_status_t st = CS_OK;
	if (!mem)
		return cs_error(CS_ERR_NOMEM, "psim: members");
	for (int g = 1; g < s->W; g++)
		if (s->nq[g] != s->nq[0])
			fail_all(s, "error", "the ranks queued different "
					     "numbers of calls");
	for (int k = 0; !s->broken && k < s->nq[0]; k++) {
		for (int g = 0; g < s->W; g++)
			if (!log_call(s, g, &s->q[g][k]))
				fail_all(s, "error", "psim: out of memory");
		for (int g = 0; !s->broken && g < s->W; g++) {
			int Pm = members(s, g, mem);
			exec_one(s, k, g, mem, Pm);
		}
	}
	for (int g = 0; g < s->W; g++) {
		for (int k = 0; k < s->nq[g]; k++) {
			free(s->q[g][k].send);
			free(s->q[g][k].counts);
		}
		s->nq[g] = 0;
	}
	free(mem);
	if (s->broken)
		st = CS_ERR_INVALID;
	return st;
}

cs_status_t cs_psim_run(const cs_pattern_t *pat, int v, cs_dtype_t d,
			uint64_t seed, const cs_grid_t *grid,
			cs_psim_fault_t f, cs_psim_out_t *out)
{
	if (!pat || !grid || !out || v < 0 || v >= pat->nvariants)
		return cs_error(CS_ERR_INVALID, "cs_psim_run: bad arguments");
	int W = grid->world;
	cs_status_t st = CS_ERR_NOMEM;
	sim_t s;
	cs_pport_t port;
	cs_prank_t *rk = calloc((size_t)W, sizeof *rk);
	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	out->world = W;
	out->chk = calloc((size_t)W, sizeof *out->chk);
	out->bytes = calloc((size_t)W, sizeof *out->bytes);
	s.q = calloc((size_t)W, sizeof *s.q);
	s.nq = calloc((size_t)W, sizeof *s.nq);
	s.seq = calloc((size_t)W, sizeof *s.seq);
	if (!rk || !out->chk || !out->bytes || !s.q || !s.nq || !s.seq)
		goto done;
	for (int g = 0; g < W; g++) {
		cs_pchk_init(&out->chk[g]);
		st = cs_pattern_rank(pat, grid, g, &rk[g]);
		if (st != CS_OK)
			goto done;
	}
	cs_pctx_t x = {.pat = pat, .variant = v, .dtype = d, .seed = seed,
		       .grid = grid, .nlocal = W, .rank = rk, .port = &port,
		       .chk = out->chk};
	s.x = &x;
	s.fault = f;
	s.W = W;
	s.out = out;
	port.call = sim_call;
	port.run = sim_run;
	port.impl = &s;
	st = pat->run(&x);
done:
	if (s.q)
		for (int g = 0; g < W; g++) {
			for (int k = 0; k < (s.nq ? s.nq[g] : 0); k++) {
				free(s.q[g][k].send);
				free(s.q[g][k].counts);
			}
			free(s.q[g]);
		}
	free(s.q);
	free(s.nq);
	free(s.seq);
	free(rk);
	if (st != CS_OK) {
		cs_psim_free(out);
		out->world = 0;
	}
	return st;
}

void cs_psim_free(cs_psim_out_t *out)
{
	free(out->chk);
	free(out->log);
	free(out->bytes);
	out->chk = NULL;
	out->log = NULL;
	out->bytes = NULL;
	out->nlog = 0;
}

int cs_psim_nfailed(const cs_psim_out_t *o)
{
	int n = 0;
	for (int g = 0; g < o->world; g++)
		n += o->chk[g].failed;
	return n;
}
