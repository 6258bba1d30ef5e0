/*
 * ipgroup.c - the group recorder of the all-in-process built-in backends
 * (see ipgroup.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/catalog.h"
#include "backends/gpu/ipgroup.h"

/* A recorded call: a collective, or a comm_split. */
struct rec {
	cs_ipcomm_t *c;
	int split;
	/* collective */
	cs_coll_t coll;
	cs_dtype_t d;
	cs_op_t op;
	size_t count;
	int root;
	const void *send;
	void *recv;
	uint64_t scalar;
	void *stream;
	const size_t *a2av[4];
	/* split */
	int color, key;
	cs_ipcomm_t *newc;
};

struct cs_ipg {
	cs_ipexec_t x;
	struct rec *recs;
	size_t nrec, cap;
	int depth;
	char err[512];
};

static int fail(cs_ipg_t *g, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof g->err, fmt, ap);
	va_end(ap);
	return st;
}

cs_ipg_t *cs_ipg_new(cs_ipexec_t x)
{
	cs_ipg_t *g = calloc(1, sizeof *g);

	if (g)
		g->x = x;
	return g;
}

void cs_ipg_free(cs_ipg_t *g)
{
	if (g)
		free(g->recs);
	free(g);
}

const char *cs_ipg_error(const cs_ipg_t *g)
{
	return g ? g->err : "no recorder";
}

/* ---- teams and communicators ------------------------------------------- */

static cs_ipteam_t *team_new(int nranks)
{
	cs_ipteam_t *t = calloc(1, sizeof *t);

	if (t && !(t->world = calloc((size_t)nranks + 1, sizeof *t->world))) {
		free(t);
		t = NULL;
	}
	if (t)
		t->nranks = nranks;
	return t;
}

static void team_unref(cs_ipg_t *g, cs_ipteam_t *t)
{
	if (!t || --t->refs > 0)
		return;
	if (t->exec_state && g->x.free_state)
		g->x.free_state(g->x.ctx, t->exec_state);
	free(t->world);
	free(t);
}

int cs_ipg_world(cs_ipg_t *g, int nranks, void **comms)
{
	cs_ipteam_t *t;
	int r;

	if (nranks < 1 || !comms)
		return fail(g, CS_IPG_EINVAL, "init_all: %d ranks", nranks);
	if (!(t = team_new(nranks)))
		return fail(g, CS_IPG_ENOMEM, "out of memory");
	for (r = 0; r < nranks; r++)
		comms[r] = NULL;
	for (r = 0; r < nranks; r++) {
		cs_ipcomm_t *c = calloc(1, sizeof *c);

		if (!c) {
			while (r-- > 0)
				cs_ipg_comm_free(comms[r]);
			return fail(g, CS_IPG_ENOMEM, "out of memory");
		}
		c->g = g;
		c->team = t;
		c->rank = r;
		t->world[r] = r;
		t->refs++;
		comms[r] = c;
	}
	return 0;
}

int cs_ipg_comm_free(cs_bcomm_t comm)
{
	cs_ipcomm_t *c = comm;

	if (!c)
		return 0;
	team_unref(c->g, c->team);
	free(c);
	return 0;
}

/* ---- recording ----------------------------------------------------------- */

static int record(cs_ipg_t *g, const struct rec *r)
{
	if (g->nrec == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct rec *p = realloc(g->recs, cap * sizeof *p);

		if (!p)
			return fail(g, CS_IPG_ENOMEM, "out of memory");
		g->recs = p;
		g->cap = cap;
	}
	g->recs[g->nrec++] = *r;
	return 0;
}

static int flush(cs_ipg_t *g);

int cs_ipg_split(cs_ipcomm_t *c, int color, int key, void **out)
{
	cs_ipg_t *g = c->g;
	struct rec r;
	int rc;

	memset(&r, 0, sizeof r);
	if (!c->team)
		return fail(g, CS_IPG_EINVAL, "comm_split of a communicator "
			    "whose own split has not completed");
	if (!(r.newc = calloc(1, sizeof *r.newc)))
		return fail(g, CS_IPG_ENOMEM, "out of memory");
	r.newc->g = g;
	r.c = c;
	r.split = 1;
	r.color = color;
	r.key = key;
	if (g->depth == 0 && c->team->nranks != 1)
		rc = fail(g, CS_IPG_EINVAL, "comm_split outside a group");
	else
		rc = record(g, &r);
	if (rc) {
		free(r.newc);
		return rc;
	}
	*out = r.newc;
	return g->depth ? 0 : flush(g);
}

int cs_ipg_call(cs_ipcomm_t *c, cs_coll_t coll, const void *send, void *recv,
		size_t count, cs_dtype_t d, cs_op_t op, const void *scalar,
		int root, void *stream, const size_t *const a2av[4])
{
	cs_ipg_t *g = c->g;
	struct rec r;
	int i, rc;

	memset(&r, 0, sizeof r);
	if (!c->team)
		return fail(g, CS_IPG_EINVAL, "a collective on a communicator "
			    "whose split has not completed");
	if ((unsigned)d >= CS_NUM_DTYPES)
		return fail(g, CS_IPG_EINVAL, "dtype %d is not in the catalog",
			    (int)d);
	if (cs_coll_reduces(coll) && (unsigned)op >= CS_NUM_OPS)
		return fail(g, CS_IPG_EINVAL, "op %d is not in the catalog",
			    (int)op);
	r.c = c;
	r.coll = coll;
	r.d = d;
	r.op = cs_coll_reduces(coll) ? op : CS_NUM_OPS;
	r.count = count;
	r.root = cs_coll_rooted(coll) ? root : 0;
	r.send = send;
	r.recv = recv;
	r.scalar = scalar && cs_coll_reduces(coll) ? cs_load(d, scalar, 0) : 0;
	r.stream = stream;
	for (i = 0; i < 4; i++)
		r.a2av[i] = a2av ? a2av[i] : NULL;
	if (g->depth == 0 && c->team->nranks != 1)
		return fail(g, CS_IPG_EINVAL, "a collective outside a group "
			    "on a communicator of %d ranks", c->team->nranks);
	if ((rc = record(g, &r)) != 0)
		return rc;
	return g->depth ? 0 : flush(g);
}

/* ---- running a group ------------------------------------------------------ */

/* The records of recs[i]'s team by team rank into m[]; marks them done.
 * 0, or an error when its ranks did not all make the same call. */
static int team_of(cs_ipg_t *g, size_t i, char *done, struct rec **m)
{
	const struct rec *a = &g->recs[i];
	cs_ipteam_t *t = a->c->team;
	size_t j;
	int n = 0;

	memset(m, 0, (size_t)t->nranks * sizeof *m);
	for (j = i; j < g->nrec; j++) {
		struct rec *b = &g->recs[j];

		if (done[j] || b->c->team != t)
			continue;
		if (m[b->c->rank])
			return fail(g, CS_IPG_EINVAL, "rank %d of a "
				    "communicator made two calls in one group",
				    b->c->rank);
		if (b->split != a->split || b->coll != a->coll ||
		    b->d != a->d || b->op != a->op ||
		    (b->coll != CS_COLL_ALLTOALLV && b->count != a->count) ||
		    b->root != a->root)
			return fail(g, CS_IPG_EINVAL, "the ranks of a "
				    "communicator made different calls in one "
				    "group (rank %d and rank %d)", a->c->rank,
				    b->c->rank);
		m[b->c->rank] = b;
		done[j] = 1;
		n++;
	}
	if (n != t->nranks)
		return fail(g, CS_IPG_EINVAL, "a group closed with %d of the "
			    "%d ranks of a communicator called", n, t->nranks);
	return 0;
}

/* The new teams of one split, as MPI_Comm_split orders them. */
static int run_split(cs_ipg_t *g, struct rec **m, int P)
{
	int q, k, n;

	for (q = 0; q < P; q++) {
		cs_ipteam_t *t = NULL;
		int me = 0;

		for (k = 0; k < q && !t; k++)
			if (m[k]->color == m[q]->color)
				t = m[k]->newc->team;
		if (!t) {
			for (n = 0, k = 0; k < P; k++)
				n += m[k]->color == m[q]->color;
			if (!(t = team_new(n)))
				return fail(g, CS_IPG_ENOMEM, "out of memory");
		}
		for (k = 0; k < P; k++)
			me += m[k]->color == m[q]->color &&
			      (m[k]->key < m[q]->key ||
			       (m[k]->key == m[q]->key && k < q));
		t->refs++;
		t->world[me] = m[q]->c->team->world[q];
		m[q]->newc->team = t;
		m[q]->newc->rank = me;
	}
	return 0;
}

static int run_call(cs_ipg_t *g, struct rec **m, int P)
{
	cs_ipcall_t c;
	void **mem = calloc((size_t)P * 8 + 1, sizeof *mem);
	int q, i, rc;

	if (!mem || !(c.scalar = calloc((size_t)P, sizeof *c.scalar))) {
		free(mem);
		return fail(g, CS_IPG_ENOMEM, "out of memory");
	}
	c.coll = m[0]->coll;
	c.dtype = m[0]->d;
	c.op = m[0]->op;
	c.count = m[0]->count;
	c.root = m[0]->root;
	c.P = P;
	c.team = m[0]->c->team;
	c.send = (const void **)mem;
	c.recv = mem + P;
	c.stream = mem + 2 * P;
	c.sc = (const size_t **)(mem + 3 * P);
	c.sd = (const size_t **)(mem + 4 * P);
	c.rc = (const size_t **)(mem + 5 * P);
	c.rd = (const size_t **)(mem + 6 * P);
	for (q = 0; q < P; q++) {
		const size_t **v[4] = { c.sc, c.sd, c.rc, c.rd };

		c.send[q] = m[q]->send;
		c.recv[q] = m[q]->recv;
		c.stream[q] = m[q]->stream;
		c.scalar[q] = m[q]->scalar;
		for (i = 0; i < 4; i++)
			v[i][q] = m[q]->a2av[i];
	}
	rc = g->x.run(g->x.ctx, &c, g->err, sizeof g->err);
	free(c.scalar);
	free(mem);
	return rc;
}

/* Run and forget every recorded call. */
static int flush(cs_ipg_t *g)
{
	size_t i, most = 1;
	char *done;
	struct rec **m;
	int rc;

	for (i = 0; i < g->nrec; i++)
		if ((size_t)g->recs[i].c->team->nranks > most)
			most = (size_t)g->recs[i].c->team->nranks;
	done = calloc(g->nrec + 1, 1);
	m = calloc(most, sizeof *m);
	rc = done && m ? 0 : fail(g, CS_IPG_ENOMEM, "out of memory");

	for (i = 0; i < g->nrec && !rc; i++) {
		int P = g->recs[i].c->team->nranks;

		if (done[i])
			continue;
		if ((rc = team_of(g, i, done, m)) != 0)
			break;
		rc = m[0]->split ? run_split(g, m, P) : run_call(g, m, P);
	}
	/* splits that did not run leave their new communicators team-less */
	g->nrec = 0;
	free(done);
	free(m);
	return rc;
}

int cs_ipg_start(cs_ipg_t *g)
{
	g->depth++;
	return 0;
}

int cs_ipg_end(cs_ipg_t *g)
{
	if (g->depth == 0)
		return fail(g, CS_IPG_EINVAL, "group_end without group_start");
	return --g->depth ? 0 : flush(g);
}

/* ---- the backend ABI's collectives ------------------------------------- */

int cs_ipg_allreduce(const void *s, void *r, size_t n, cs_dtype_t d,
		     cs_op_t op, const void *scalar, cs_bcomm_t comm,
		     void *stream)
{
	return cs_ipg_call(comm, CS_COLL_ALLREDUCE, s, r, n, d, op, scalar, 0,
			   stream, NULL);
}

int cs_ipg_allgather(const void *s, void *r, size_t n, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_ALLGATHER, s, r, n, d, CS_NUM_OPS,
			   NULL, 0, stream, NULL);
}

int cs_ipg_reducescatter(const void *s, void *r, size_t n, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t comm,
			 void *stream)
{
	return cs_ipg_call(comm, CS_COLL_REDUCESCATTER, s, r, n, d, op, scalar,
			   0, stream, NULL);
}

int cs_ipg_alltoall(const void *s, void *r, size_t n, cs_dtype_t d,
		    cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_ALLTOALL, s, r, n, d, CS_NUM_OPS, NULL,
			   0, stream, NULL);
}

int cs_ipg_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		     void *r, const size_t *rc, const size_t *rd, cs_dtype_t d,
		     cs_bcomm_t comm, void *stream)
{
	const size_t *const v[4] = { sc, sd, rc, rd };

	return cs_ipg_call(comm, CS_COLL_ALLTOALLV, s, r, 0, d, CS_NUM_OPS,
			   NULL, 0, stream, v);
}

int cs_ipg_broadcast(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		     cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_BROADCAST, s, r, n, d, CS_NUM_OPS,
			   NULL, root, stream, NULL);
}

int cs_ipg_reduce(const void *s, void *r, size_t n, cs_dtype_t d, cs_op_t op,
		  const void *scalar, int root, cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_REDUCE, s, r, n, d, op, scalar, root,
			   stream, NULL);
}

int cs_ipg_gather(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		  cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_GATHER, s, r, n, d, CS_NUM_OPS, NULL,
			   root, stream, NULL);
}

int cs_ipg_scatter(const void *s, void *r, size_t n, cs_dtype_t d, int root,
		   cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_SCATTER, s, r, n, d, CS_NUM_OPS, NULL,
			   root, stream, NULL);
}

int cs_ipg_sendrecv(const void *s, void *r, size_t n, cs_dtype_t d,
		    cs_bcomm_t comm, void *stream)
{
	return cs_ipg_call(comm, CS_COLL_SENDRECV, s, r, n, d, CS_NUM_OPS, NULL,
			   0, stream, NULL);
}

int cs_ipcall_inplace(const cs_ipcall_t *c, int q)
{
	size_t off = (size_t)q * c->count * cs_dtype_size(c->dtype);
	const char *s = c->send[q];
	const char *r = c->recv[q];

	if (cs_coll_rooted(c->coll) && q != c->root)
		return 0;
	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		return s && r && s == r + off;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_SCATTER:
		return s && r && r == s + off;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return s && s == r;
	}
}
