/*
 * base_ip.c - the correct base of the all-ranks-in-one-process mutants
 * (CS_PROC_ALL_IN_PROCESS): all ten collectives in host memory. The calls
 * made between group_start and group_end, one per rank, are recorded;
 * group_end runs them team by team (a team is the ranks of one
 * communicator): it stages every rank's input, then writes each rank's
 * receive range with core.c. comm_split is recorded the same way and makes
 * the new teams at group_end, as MPI_Comm_split does. A one-rank team may
 * also be called outside a group.
 *
 * Built as it is (cs_mutant_base_ip), it must pass every run its mutants
 * fail. Built with -DCS_MUTANT=MUT_<NAME> (mutants.h), it carries one
 * fault: those that need the buffers or the group are here, each under
 * MUTANT(NAME); the others are in core.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core.h"
#include "mutants.h"
#include "csref/arith.h"
#include "csref/catalog.h"

#define MU_EINVAL 1
#define MU_ENOMEM 2
#define MU_EOPT 3

static const char *ip_err = "";

static int fail(int err, const char *msg)
{
	ip_err = msg;
	return err;
}

/* ---- communicators ------------------------------------------------------- */

struct team {
	int nranks;
	int refs;
	int world;             /* size of the world it was split from */
	unsigned long ncall;   /* collectives run on it */
};

struct ipc {
	struct team *team;     /* NULL until the group of its split closes */
	int rank;
	/* the previous call's buffers, and a result kept for them */
	const void *last_s;
	void *last_r;
	size_t last_count;
	unsigned char *cache;
};

static struct team *new_team(int nranks, int world)
{
	struct team *t = calloc(1, sizeof *t);

	if (t) {
		t->nranks = nranks;
		t->world = world;
	}
	return t;
}

static int ip_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	struct team *t;
	int r;

	if (options && *options)
		return fail(MU_EOPT, "this plugin takes no --backend-opt");
	if (!(t = new_team(nranks, nranks)))
		return fail(MU_ENOMEM, "out of memory");
	for (r = 0; r < nranks; r++) {
		struct ipc *c = calloc(1, sizeof *c);
		if (!c)
			return fail(MU_ENOMEM, "out of memory");
		c->team = t;
		c->rank = r;
		t->refs++;
		comms[r] = c;
	}
	return 0;
}

static int ip_comm_free(cs_bcomm_t comm)
{
	struct ipc *c = comm;

	if (c->team && --c->team->refs == 0)
		free(c->team);
	free(c->cache);
	free(c);
	return 0;
}

/* ---- recorded calls ------------------------------------------------------ */

struct rec {
	struct ipc *c;
	int split, color, key;  /* comm_split: its arguments and result */
	struct ipc *newc;
	cs_coll_t coll;
	const void *s;
	void *r;
	size_t count;
	cs_dtype_t d;
	cs_op_t op;
	int root;
	uint64_t scalar;
	const size_t *sc, *sd, *rd; /* alltoallv */
};

static struct rec *recs;
static size_t nrec, caprec;
static int depth;

static int record(const struct rec *r)
{
	if (nrec == caprec) {
		size_t cap = caprec ? 2 * caprec : 16;
		struct rec *p = realloc(recs, cap * sizeof *p);
		if (!p)
			return fail(MU_ENOMEM, "out of memory");
		recs = p;
		caprec = cap;
	}
	recs[nrec++] = *r;
	return 0;
}

static int flush(void);

/* Record one rank's call; run it at once for a one-rank team outside a
 * group. */
static int call(struct rec *r)
{
	int rc;

	if (depth == 0 && (!r->c->team || r->c->team->nranks != 1))
		return fail(MU_EINVAL, "a call outside a group");
	if ((rc = record(r)) != 0)
		return rc;
	return depth ? 0 : flush();
}

/* ---- comm_split, run at group_end ---------------------------------------- */

static int ip_comm_split(cs_bcomm_t comm, int color, int key,
			 const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	struct ipc *n = calloc(1, sizeof *n);
	struct rec r;
	int rc;

	(void)sub; /* NULL in this model */
	if (!n)
		return fail(MU_ENOMEM, "out of memory");
	memset(&r, 0, sizeof r);
	r.c = comm;
	r.split = 1;
	r.color = color;
	r.key = key;
	r.newc = n;
	if ((rc = call(&r)) != 0) {
		free(n);
		return rc;
	}
	*out = n;
	return 0;
}

/* Rank of member `me` of a split among m[0..P): by key, then by rank in
 * the parent. */
static int split_rank(struct rec **m, int P, int me)
{
	int q, k = 0;

	for (q = 0; q < P; q++) {
		int before = m[q]->key < m[me]->key ||
			     (m[q]->key == m[me]->key && q < me);
		/* IP_SPLIT_ORDER: the key is ignored, ranks keep the
		 * parent's order */
		if (MUTANT(IP_SPLIT_ORDER))
			before = q < me;
		k += m[q]->color == m[me]->color && before;
	}
	return k;
}

/* IP_PAT_SPLIT_WORLD: every new communicator joins its parent's team,
 * with its rank there: every call on it goes to the parent's ranks (the
 * world). */
static void split_as_parent(struct rec **m, int P)
{
	int q;

	for (q = 0; q < P; q++) {
		m[q]->newc->team = m[q]->c->team;
		m[q]->newc->team->refs++;
		m[q]->newc->rank = m[q]->c->rank;
	}
}

static int run_split(struct rec **m, int P)
{
	int q, k;

	if (MUTANT(IP_PAT_SPLIT_WORLD)) {
		split_as_parent(m, P);
		return 0;
	}
	for (q = 0; q < P; q++) {
		struct team *t = NULL;
		for (k = 0; k < q && !t; k++)
			if (m[k]->color == m[q]->color)
				t = m[k]->newc->team;
		if (!t) {
			t = new_team(0, m[q]->c->team->world);
			if (!t)
				return fail(MU_ENOMEM, "out of memory");
			for (k = 0; k < P; k++)
				t->nranks += m[k]->color == m[q]->color;
		}
		t->refs++;
		m[q]->newc->team = t;
		m[q]->newc->rank = split_rank(m, P, q);
	}
	return 0;
}

/* ---- collectives, run at group_end --------------------------------------- */

/* Copies of every significant input: in[q] (NULL where not significant). */
static int stage(struct rec **m, int P, const unsigned char **in)
{
	size_t es = cs_dtype_size(m[0]->d), n;
	int q;

	for (q = 0; q < P; q++) {
		const struct rec *x = m[q];
		unsigned char *p;
		int rooted = x->coll == CS_COLL_BROADCAST ||
			     x->coll == CS_COLL_SCATTER;
		n = mu_send_elems(x->coll, x->count, P, x->root, q, x->sc,
				  x->sd);
		in[q] = NULL;
		if (rooted && q != x->root)
			continue;
		/* IP_A2A_ALIAS: alltoall reads straight from the send buffers,
		 * which in place are the receive buffers it is writing */
		if (MUTANT(IP_A2A_ALIAS) && x->coll == CS_COLL_ALLTOALL) {
			in[q] = x->s;
			continue;
		}
		if (!(p = malloc(n * es + 1)))
			return fail(MU_ENOMEM, "out of memory");
		memcpy(p, x->s, n * es);
		in[q] = p;
	}
	return 0;
}

static void unstage(struct rec **m, int P, const unsigned char **in)
{
	int q;

	for (q = 0; q < P; q++)
		if (in[q] != m[q]->s)
			free((void *)in[q]);
}

/* IP_A2AV_CRASH: the staging buffer of large receives, never allocated. */
static unsigned char *large_stage;

/* The faults that strike before anything is written. */
static void strike(struct rec **m, int P)
{
	size_t big = 0, e;
	int q, s;

	/* IP_A2A_HANG: an alltoall of 7 elements per peer never ends */
	if (MUTANT(IP_A2A_HANG) && m[0]->coll == CS_COLL_ALLTOALL &&
	    m[0]->count == 7)
		for (;;)
			pause();
	if (!MUTANT(IP_A2AV_CRASH) || m[0]->coll != CS_COLL_ALLTOALLV)
		return;
	/* IP_A2AV_CRASH: a receive above 64 Ki elements goes through a
	 * staging pointer that was never set */
	for (q = 0; q < P; q++)
		for (s = 0; s < P; s++)
			if ((e = m[q]->rd[s] + m[s]->sc[q]) > big)
				big = e;
	if (big > ((size_t)64 << 10))
		*(volatile unsigned char *)large_stage = 1;
}

/* A rank's call repeats its previous one's buffers (IP_SR_2ND_STALE). */
static int again(struct rec *x)
{
	struct ipc *c = x->c;
	int same = c->last_s == x->s && c->last_r == x->r &&
		   c->last_count == x->count;

	c->last_s = x->s;
	c->last_r = x->r;
	c->last_count = x->count;
	return same;
}

/* The faults applied to rank q's buffers after its result is written. */
static int after(struct rec **m, int q)
{
	struct rec *x = m[q];
	size_t es = cs_dtype_size(x->d), b = x->count * es;
	unsigned char *s = (unsigned char *)x->s;
	int k, P = x->c->team->nranks;

	/* IP_AG_CLOBBER: out of place, the send buffer is used as a bounce
	 * buffer and left holding block 0 */
	if (MUTANT(IP_AG_CLOBBER) && x->coll == CS_COLL_ALLGATHER &&
	    s != (unsigned char *)x->r + (size_t)q * b)
		memcpy(s, x->r, b);
	/* IP_SC_CLOBBER: the root clears the blocks it has sent */
	if (MUTANT(IP_SC_CLOBBER) && x->coll == CS_COLL_SCATTER && q == x->root)
		for (k = 0; k < P; k++)
			if (k != q)
				memset(s + (size_t)k * b, 0, b);
	/* IP_SR_2ND_STALE: sendrecv keeps the result for the buffers and
	 * returns it when they come again */
	if (MUTANT(IP_SR_2ND_STALE) && x->coll == CS_COLL_SENDRECV) {
		if (again(x) && x->c->cache) {
			memcpy(x->r, x->c->cache, b);
		} else {
			free(x->c->cache);
			if (!(x->c->cache = malloc(b + 1)))
				return fail(MU_ENOMEM, "out of memory");
			memcpy(x->c->cache, x->r, b);
		}
	}
	return 0;
}

static void describe(struct rec **m, int P, const unsigned char **in,
		     const uint64_t *scalar, const size_t **sc,
		     const size_t **sd, struct mu_call *mc)
{
	struct team *t = m[0]->c->team;

	memset(mc, 0, sizeof *mc);
	mc->coll = m[0]->coll;
	mc->d = m[0]->d;
	mc->op = m[0]->op;
	mc->count = m[0]->count;
	mc->root = m[0]->root;
	mc->nranks = P;
	mc->world = t->world;
	mc->wrank = -1;
	mc->ncall = t->ncall++;
	mc->in = in;
	mc->scalar = scalar;
	mc->sc = sc;
	mc->sd = sd;
}

static int run_coll(struct rec **m, int P)
{
	const unsigned char **in = calloc((size_t)P, sizeof *in);
	const size_t **sc = calloc((size_t)P, sizeof *sc);
	const size_t **sd = calloc((size_t)P, sizeof *sd);
	uint64_t *scalar = calloc((size_t)P, sizeof *scalar);
	struct mu_call mc;
	int q, rc = 0;

	if (!in || !sc || !sd || !scalar)
		rc = fail(MU_ENOMEM, "out of memory");

	for (q = 0; q < P && !rc; q++) {
		scalar[q] = m[q]->scalar;
		sc[q] = m[q]->sc;
		sd[q] = m[q]->sd;
	}
	if (!rc && (rc = stage(m, P, in)) == 0) {
		strike(m, P);
		describe(m, P, in, scalar, sc, sd, &mc);
		for (q = 0; q < P && !rc; q++)
			if (mu_result(&mc, q, m[q]->rd, m[q]->r))
				rc = fail(MU_ENOMEM, "out of memory");
		for (q = 0; q < P && !rc; q++)
			rc = after(m, q);
	}
	if (in)
		unstage(m, P, in);
	free(in);
	free(sc);
	free(sd);
	free(scalar);
	return rc;
}

/* ---- groups -------------------------------------------------------------- */

/* The records of recs[i]'s team, by rank, into m[]; marks them done. */
static int team_of(size_t i, char *done, struct rec **m)
{
	struct team *t = recs[i].c->team;
	size_t j;
	int n = 0;

	memset(m, 0, (size_t)t->nranks * sizeof *m);
	for (j = i; j < nrec; j++) {
		struct rec *r = &recs[j];
		if (done[j] || r->c->team != t)
			continue;
		if (m[r->c->rank] || r->split != recs[i].split ||
		    r->coll != recs[i].coll || r->count != recs[i].count)
			return fail(MU_EINVAL, "the ranks of a communicator "
				    "made different calls in one group");
		m[r->c->rank] = r;
		done[j] = 1;
		n++;
	}
	if (n != t->nranks)
		return fail(MU_EINVAL, "a group closed before every rank of a "
			    "communicator made its call");
	return 0;
}

/* Run and forget every recorded call. */
static int flush(void)
{
	char *done = calloc(nrec + 1, 1);
	struct rec **m = calloc(nrec + 1, sizeof *m);
	size_t i;
	int rc = done && m ? 0 : fail(MU_ENOMEM, "out of memory");

	for (i = 0; i < nrec && !rc; i++) {
		if (done[i] || (rc = team_of(i, done, m)) != 0)
			continue;
		if (m[0]->split)
			rc = run_split(m, recs[i].c->team->nranks);
		else
			rc = run_coll(m, recs[i].c->team->nranks);
	}
	nrec = 0;
	free(done);
	free(m);
	return rc;
}

static int ip_group_start(void)
{
	depth++;
	return 0;
}

static int ip_group_end(void)
{
	if (depth == 0)
		return fail(MU_EINVAL, "group_end without group_start");
	return --depth ? 0 : flush();
}

/* ---- the collectives: recorded ------------------------------------------- */

static int reducing(cs_coll_t coll, const void *s, void *r, size_t count,
		    cs_dtype_t d, cs_op_t op, const void *scalar, int root,
		    cs_bcomm_t comm)
{
	struct rec x = { .c = comm, .coll = coll, .s = s, .r = r,
			 .count = count, .d = d, .op = op, .root = root };

	x.scalar = scalar ? cs_load(d, scalar, 0) : 0;
	return call(&x);
}

static int ip_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t comm,
			void *stream)
{
	(void)stream;
	return reducing(CS_COLL_ALLREDUCE, s, r, count, d, op, scalar, 0, comm);
}

static int ip_reducescatter(const void *s, void *r, size_t count,
			    cs_dtype_t d, cs_op_t op, const void *scalar,
			    cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return reducing(CS_COLL_REDUCESCATTER, s, r, count, d, op, scalar, 0,
			comm);
}

static int ip_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_op_t op, const void *scalar, int root, cs_bcomm_t comm,
		     void *stream)
{
	(void)stream;
	return reducing(CS_COLL_REDUCE, s, r, count, d, op, scalar, root, comm);
}

static int plain(cs_coll_t coll, const void *s, void *r, size_t count,
		 cs_dtype_t d, int root, cs_bcomm_t comm)
{
	struct rec x = { .c = comm, .coll = coll, .s = s, .r = r,
			 .count = count, .d = d, .op = CS_NUM_OPS,
			 .root = root };

	return call(&x);
}

static int ip_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_ALLGATHER, s, r, count, d, 0, comm);
}

static int ip_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		       cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_ALLTOALL, s, r, count, d, 0, comm);
}

static int ip_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_BROADCAST, s, r, count, d, root, comm);
}

static int ip_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		     int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_GATHER, s, r, count, d, root, comm);
}

static int ip_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_SCATTER, s, r, count, d, root, comm);
}

static int ip_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		       cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_SENDRECV, s, r, count, d, 0, comm);
}

static int ip_alltoallv(const void *s, const size_t *sc, const size_t *sd,
			void *r, const size_t *rcnt, const size_t *rd,
			cs_dtype_t d, cs_bcomm_t comm, void *stream)
{
	struct rec x = { .c = comm, .coll = CS_COLL_ALLTOALLV, .s = s, .r = r,
			 .d = d, .op = CS_NUM_OPS, .sc = sc, .sd = sd,
			 .rd = rd };

	(void)rcnt; /* the same as the senders' counts to this rank */
	(void)stream;
	return call(&x);
}

/* ---- the rest of the ABI ------------------------------------------------- */

static int ip_sync(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	(void)stream;
	return 0;
}

static const char *ip_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	(void)err;
	return ip_err[0] ? ip_err : "unknown error";
}

static int ip_finalize(void)
{
	free(recs);
	recs = NULL;
	nrec = caprec = 0;
	return 0;
}

static const cs_backend_t ip_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "mutant-ip",
	.description = "all ten collectives, every rank in one process (a "
		       "mutant when built with CS_MUTANT)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = ip_init_all,
	.comm_split = ip_comm_split,
	.comm_free = ip_comm_free,
	.finalize = ip_finalize,
	.allreduce = ip_allreduce,
	.allgather = ip_allgather,
	.reducescatter = ip_reducescatter,
	.alltoall = ip_alltoall,
	.alltoallv = ip_alltoallv,
	.broadcast = ip_broadcast,
	.reduce = ip_reduce,
	.gather = ip_gather,
	.scatter = ip_scatter,
	.sendrecv = ip_sendrecv,
	.group_start = ip_group_start,
	.group_end = ip_group_end,
	.synchronize = ip_sync,
	.error_string = ip_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &ip_backend;
}
