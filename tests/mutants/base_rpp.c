/*
 * base_rpp.c - the correct base of the one-rank-per-process mutants: all
 * ten collectives in host memory, with no MPI of its own. Every input a
 * rank needs is moved through the bootstrap callbacks (cs_bootstrap_t):
 * broadcast and scatter broadcast the root's data, alltoallv gathers every
 * rank's counts, displacements and padded buffer, every other collective
 * gathers every rank's send buffer; then each rank computes its own
 * receive range with core.c. Inputs are staged before any receive buffer
 * is written, so every in-place form is right.
 *
 * Built as it is (cs_mutant_base_rpp), it must pass every run its mutants
 * fail. Built with -DCS_MUTANT=MUT_<NAME> (mutants.h), it carries one
 * fault: those that need the buffers or the transport are here, each under
 * MUTANT(NAME); the others are in core.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core.h"
#include "forge.h"
#include "mutants.h"
#include "csref/arith.h"
#include "csref/catalog.h"

#define MU_EBOOT 1   /* a bootstrap exchange failed */
#define MU_ENOMEM 2
#define MU_EOPT 3    /* --backend-opt given: this plugin takes none */

/* This process in the world (SR_SUBCOMM confuses it with a split rank). */
static int world_rank, world_size;

/* What a call was made on: a repeat on the same buffers is "again". */
struct seen {
	cs_coll_t coll;
	const void *s;
	void *r;
	size_t count;
	cs_dtype_t d;
	cs_op_t op;
	int root, valid;
};

struct rcomm {
	const cs_bootstrap_t *boot;
	unsigned long ncall;
	struct seen last;
	unsigned char *cache;   /* AR_2ND_STALE: the result it keeps */
};

/* ---- communicators ------------------------------------------------------- */

static int new_comm(const cs_bootstrap_t *boot, cs_bcomm_t *out)
{
	struct rcomm *c = calloc(1, sizeof *c);

	if (!c)
		return MU_ENOMEM;
	c->boot = boot;
	*out = c;
	return 0;
}

static int rpp_init(const cs_bootstrap_t *world, const char *options,
		    cs_bcomm_t *out)
{
	if (options && *options)
		return MU_EOPT;
	world_rank = world->rank;
	world_size = world->nranks;
	return new_comm(world, out);
}

static int rpp_split(cs_bcomm_t comm, int color, int key,
		     const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	const struct rcomm *parent = comm;

	(void)color;
	(void)key; /* the harness split sub the same way */
	/* PAT_SPLIT_WORLD: the new communicator moves data through its
	 * parent's bootstrap: every call on it goes to the parent's ranks
	 * (the world) */
	if (MUTANT(PAT_SPLIT_WORLD))
		sub = parent->boot;
	return new_comm(sub, out);
}

static int rpp_free(cs_bcomm_t comm)
{
	struct rcomm *c = comm;

	free(c->cache);
	free(c);
	return 0;
}

/* ---- one call ------------------------------------------------------------ */

static int same_call(const struct seen *a, const struct seen *b)
{
	return a->valid && b->valid && a->coll == b->coll && a->s == b->s &&
	       a->r == b->r && a->count == b->count && a->d == b->d &&
	       a->op == b->op && a->root == b->root;
}

/* The call's description; notes whether it repeats the last one's buffers. */
static void describe(struct rcomm *c, const struct seen *now,
		     struct mu_call *mc)
{
	memset(mc, 0, sizeof *mc);
	mc->coll = now->coll;
	mc->d = now->d;
	mc->op = now->op;
	mc->count = now->count;
	mc->root = now->root;
	mc->nranks = c->boot->nranks;
	mc->world = world_size;
	mc->wrank = world_rank;
	mc->ncall = c->ncall++;
	mc->again = same_call(&c->last, now);
	c->last = *now;
}

/* Every rank's PREMULSUM scalar, gathered into sc[0..P). */
static int gather_scalars(const struct rcomm *c, cs_dtype_t d,
			  const void *scalar, uint64_t *sc)
{
	uint64_t mine = scalar ? cs_load(d, scalar, 0) : 0;
	const cs_bootstrap_t *b = c->boot;

	return b->allgather(b->ctx, &mine, sc, sizeof mine) ? MU_EBOOT : 0;
}

/* Staged inputs of one call: in[q] points into all. */
struct stage {
	unsigned char *all;
	const unsigned char **in;
	uint64_t *scalar;
};

static void stage_free(struct stage *st)
{
	free(st->all);
	free(st->in);
	free(st->scalar);
}

static int stage_alloc(struct stage *st, int P, size_t bytes)
{
	st->all = malloc(bytes + 1);
	st->in = calloc((size_t)P, sizeof *st->in);
	st->scalar = calloc((size_t)P, sizeof *st->scalar);
	if (st->all && st->in && st->scalar)
		return 0;
	stage_free(st);
	return MU_ENOMEM;
}

/* Every rank's first `bytes` of s: in[q] = rank q's. */
static int stage_all(const struct rcomm *c, const void *s, size_t bytes,
		     struct stage *st)
{
	const cs_bootstrap_t *b = c->boot;
	int q, rc = stage_alloc(st, b->nranks, bytes * (size_t)b->nranks);

	if (rc)
		return rc;
	for (q = 0; q < b->nranks; q++)
		st->in[q] = st->all + (size_t)q * bytes;
	if (b->allgather(b->ctx, s, st->all, bytes)) {
		stage_free(st);
		return MU_EBOOT;
	}
	return 0;
}

/* Messages a scatter stages in its small pool (SC_CRASH). */
#define SMALL_STAGE ((size_t)64 << 10)
static unsigned char *large_stage; /* SC_CRASH: never allocated */

/* The root's `bytes` (broadcast, scatter): in[root] only. */
static int stage_root(const struct rcomm *c, const struct mu_call *mc,
		      const void *s, const void *r, size_t bytes,
		      struct stage *st)
{
	const cs_bootstrap_t *b = c->boot;
	int root = mc->root, rc = stage_alloc(st, b->nranks, bytes);
	unsigned char *buf = st->all;

	if (rc)
		return rc;
	/* SC_CRASH: a scatter above 64 KiB is staged in a pool it forgot
	 * to allocate */
	if (MUTANT(SC_CRASH) && mc->coll == CS_COLL_SCATTER &&
	    bytes > SMALL_STAGE)
		buf = large_stage;
	if (b->rank == root)
		memcpy(buf, s, bytes);
	/* BC_ROOT: broadcast from the receive buffer of rank 0, whatever the
	 * root */
	if (MUTANT(BC_ROOT) && mc->coll == CS_COLL_BROADCAST) {
		if (b->rank != root)
			memcpy(buf, r, bytes);
		root = 0;
	}
	st->in[mc->root] = buf;
	if (b->broadcast(b->ctx, buf, bytes, root)) {
		stage_free(st);
		return MU_EBOOT;
	}
	return 0;
}

/* Stage the inputs of any collective but alltoallv. */
static int stage_inputs(const struct rcomm *c, const struct mu_call *mc,
			const void *s, const void *r, const void *scalar,
			struct stage *st)
{
	size_t es = cs_dtype_size(mc->d);
	size_t n = mu_send_elems(mc->coll, mc->count, mc->nranks, mc->root,
				 mc->root, NULL, NULL);
	int rc;

	if (mc->coll == CS_COLL_BROADCAST || mc->coll == CS_COLL_SCATTER)
		return stage_root(c, mc, s, r, n * es, st);
	if ((rc = stage_all(c, s, n * es, st)) != 0)
		return rc;
	if (mc->op != CS_NUM_OPS &&
	    (rc = gather_scalars(c, mc->d, scalar, st->scalar)) != 0)
		stage_free(st);
	return rc;
}

/* ---- faults that need the buffers ---------------------------------------- */

/* AR_ALIAS: rank q's input is folded in at round q, re-read from every
 * rank's send buffer at every round while the partial result is written
 * to the receive buffer, which in place is the same memory. */
static int aliasing_allreduce(const struct rcomm *c, struct mu_call *mc,
			      const void *s, void *r, const void *scalar)
{
	size_t n = mc->count, es = cs_dtype_size(mc->d);
	unsigned char *tmp = malloc(n * es + 1);
	struct stage st;
	int q, rc = tmp ? 0 : MU_ENOMEM;

	for (q = 0; q < mc->nranks && !rc; q++) {
		if ((rc = stage_inputs(c, mc, s, r, scalar, &st)) != 0)
			break;
		mc->in = st.in;
		mc->scalar = st.scalar;
		mu_contribution(mc, q, 0, n, q ? tmp : r);
		if (q)
			mu_step(mc, r, tmp, n);
		stage_free(&st);
	}
	if (!rc)
		mu_finish(mc, r, n);
	free(tmp);
	return rc;
}

/* A2A_ALIAS: pairwise exchange, block by block straight into the receive
 * buffer: in place, a block may be overwritten before it is sent. */
static int aliasing_alltoall(const struct rcomm *c, const struct mu_call *mc,
			     const void *s, void *r)
{
	const cs_bootstrap_t *b = c->boot;
	int P = b->nranks, me = b->rank, k;
	size_t blk = mc->count * cs_dtype_size(mc->d);
	unsigned char *all = malloc(blk * (size_t)P + 1);

	if (!all)
		return MU_ENOMEM;
	for (k = 0; k < P; k++) {
		int to = (me + k) % P, from = (me + P - k) % P;
		if (b->allgather(b->ctx, (const unsigned char *)s + to * blk,
				 all, blk)) {
			free(all);
			return MU_EBOOT;
		}
		memcpy((unsigned char *)r + from * blk, all + from * blk, blk);
	}
	free(all);
	return 0;
}

/* The faults applied after a correct result: the send buffer or a cached
 * result written where it must not be. */
static int after(struct rcomm *c, const struct mu_call *mc, const void *s,
		 void *r)
{
	size_t es = cs_dtype_size(mc->d), b = mc->count * es;
	int me = c->boot->rank;

	/* RD_CLOBBER: the root accumulates in its send buffer */
	if (MUTANT(RD_CLOBBER) && mc->coll == CS_COLL_REDUCE &&
	    me == mc->root && s != r)
		memcpy((void *)s, r, b);
	/* RS_2ND_CLOBBER: on buffers seen before, out of place, the result
	 * is also left in the send buffer's own block */
	if (MUTANT(RS_2ND_CLOBBER) && mc->coll == CS_COLL_REDUCESCATTER &&
	    mc->again && r != (const unsigned char *)s + me * b)
		memcpy((unsigned char *)s + me * b, r, b);
	/* AR_2ND_STALE: a result cached for the buffers, returned again */
	if (MUTANT(AR_2ND_STALE) && mc->coll == CS_COLL_ALLREDUCE) {
		if (mc->again && c->cache) {
			memcpy(r, c->cache, b);
		} else {
			free(c->cache);
			if (!(c->cache = malloc(b + 1)))
				return MU_ENOMEM;
			memcpy(c->cache, r, b);
		}
	}
	/* AR_FORGE: only this rank's share right, the hash made to match */
	if (MUTANT(AR_FORGE) && mc->coll == CS_COLL_ALLREDUCE)
		mu_forge(mc->d, mc->in[me], r, mc->count, me, mc->nranks);
	return 0;
}

/* Run one call (any collective but alltoallv) on rank `me`. */
static int run(struct rcomm *c, const struct seen *now, const void *s,
	       void *r, const void *scalar)
{
	struct mu_call mc;
	struct stage st;
	int rc, me = c->boot->rank;

	describe(c, now, &mc);
	/* GA_HANG: a gather of 13 elements never returns on rank 0 */
	if (MUTANT(GA_HANG) && now->coll == CS_COLL_GATHER &&
	    now->count == 13 && me == 0)
		for (;;)
			pause();
	if (MUTANT(AR_ALIAS) && now->coll == CS_COLL_ALLREDUCE)
		return aliasing_allreduce(c, &mc, s, r, scalar);
	if (MUTANT(A2A_ALIAS) && now->coll == CS_COLL_ALLTOALL)
		return aliasing_alltoall(c, &mc, s, r);
	if ((rc = stage_inputs(c, &mc, s, r, scalar, &st)) != 0)
		return rc;
	mc.in = st.in;
	mc.scalar = st.scalar;
	rc = mu_result(&mc, me, NULL, r);
	if (!rc)
		rc = after(c, &mc, s, r);
	stage_free(&st);
	return rc ? MU_ENOMEM : 0;
}

/* ---- the collectives ----------------------------------------------------- */

static int rpp_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t comm,
			 void *stream)
{
	struct seen now = { CS_COLL_ALLREDUCE, s, r, count, d, op, 0, 1 };

	(void)stream;
	return run(comm, &now, s, r, scalar);
}

static int rpp_reducescatter(const void *s, void *r, size_t count,
			     cs_dtype_t d, cs_op_t op, const void *scalar,
			     cs_bcomm_t comm, void *stream)
{
	struct seen now = { CS_COLL_REDUCESCATTER, s, r, count, d, op, 0, 1 };

	(void)stream;
	return run(comm, &now, s, r, scalar);
}

static int rpp_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, int root,
		      cs_bcomm_t comm, void *stream)
{
	struct seen now = { CS_COLL_REDUCE, s, r, count, d, op, root, 1 };

	(void)stream;
	return run(comm, &now, s, r, scalar);
}

/* The collectives without an op or a root. */
static int plain(cs_coll_t coll, const void *s, void *r, size_t count,
		 cs_dtype_t d, int root, cs_bcomm_t comm)
{
	struct seen now = { coll, s, r, count, d, CS_NUM_OPS, root, 1 };

	return run(comm, &now, s, r, NULL);
}

static int rpp_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_ALLGATHER, s, r, count, d, 0, comm);
}

static int rpp_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_ALLTOALL, s, r, count, d, 0, comm);
}

static int rpp_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			 int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_BROADCAST, s, r, count, d, root, comm);
}

static int rpp_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_GATHER, s, r, count, d, root, comm);
}

static int rpp_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		       int root, cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_SCATTER, s, r, count, d, root, comm);
}

static int rpp_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t comm, void *stream)
{
	(void)stream;
	return plain(CS_COLL_SENDRECV, s, r, count, d, 0, comm);
}

/* ---- alltoallv ----------------------------------------------------------- */

/* Every rank's send counts and displacements: sc[q], sd[q] (P each). */
static int gather_layout(const cs_bootstrap_t *b, const size_t *sc,
			 const size_t *sd, size_t *all)
{
	size_t P = (size_t)b->nranks, *mine = malloc(2 * P * sizeof *mine);
	int rc;

	if (!mine)
		return MU_ENOMEM;
	memcpy(mine, sc, P * sizeof *mine);
	memcpy(mine + P, sd, P * sizeof *mine);
	rc = b->allgather(b->ctx, mine, all, 2 * P * sizeof *mine);
	free(mine);
	return rc ? MU_EBOOT : 0;
}

/* Every rank's send extent, padded to the largest, gathered; mc->sc and
 * mc->sd point into lay (gathered by gather_layout) through sc and sd. */
static int stage_v(const struct rcomm *c, struct mu_call *mc, const void *s,
		   const size_t *lay, const size_t **sc, const size_t **sd,
		   struct stage *st)
{
	int P = c->boot->nranks, me = c->boot->rank, q, rc;
	size_t es = cs_dtype_size(mc->d), max = 0, e;
	unsigned char *mine;

	for (q = 0; q < P; q++) {
		sc[q] = lay + 2 * (size_t)P * (size_t)q;
		sd[q] = sc[q] + P;
		e = mu_send_elems(CS_COLL_ALLTOALLV, 0, P, 0, q, sc[q], sd[q]);
		max = e > max ? e : max;
	}
	mc->sc = sc;
	mc->sd = sd;
	if (!(mine = calloc(max * es + 1, 1)))
		return MU_ENOMEM;
	e = mu_send_elems(CS_COLL_ALLTOALLV, 0, P, 0, me, sc[me], sd[me]);
	memcpy(mine, s, e * es);
	rc = stage_all(c, mine, max * es, st);
	free(mine);
	return rc;
}

static int rpp_alltoallv(const void *s, const size_t *sc, const size_t *sd,
			 void *r, const size_t *rcnt, const size_t *rd,
			 cs_dtype_t d, cs_bcomm_t comm, void *stream)
{
	struct rcomm *c = comm;
	struct seen now = { CS_COLL_ALLTOALLV, s, r, 0, d, CS_NUM_OPS, 0, 1 };
	size_t P = (size_t)c->boot->nranks;
	size_t *lay = malloc(2 * P * P * sizeof *lay + 1);
	const size_t **psc = calloc(P, sizeof *psc);
	const size_t **psd = calloc(P, sizeof *psd);
	struct mu_call mc;
	struct stage st;
	int rc = lay && psc && psd ? 0 : MU_ENOMEM;

	(void)rcnt; /* the same as the senders' counts to this rank */
	(void)stream;
	describe(c, &now, &mc);
	if (!rc)
		rc = gather_layout(c->boot, sc, sd, lay);
	if (!rc)
		rc = stage_v(c, &mc, s, lay, psc, psd, &st);
	if (!rc) {
		mc.in = st.in;
		rc = mu_result(&mc, c->boot->rank, rd, r) ? MU_ENOMEM : 0;
		stage_free(&st);
	}
	free(lay);
	free(psc);
	free(psd);
	return rc;
}

/* ---- the rest of the ABI ------------------------------------------------- */

static int rpp_sync(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	(void)stream;
	return 0;
}

static const char *rpp_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	switch (err) {
	case MU_EBOOT:
		return "a bootstrap exchange failed";
	case MU_ENOMEM:
		return "out of memory";
	case MU_EOPT:
		return "this plugin takes no --backend-opt";
	default:
		return "unknown error";
	}
}

static const cs_backend_t rpp_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "mutant-rpp",
	.description = "all ten collectives over the bootstrap, one rank per "
		       "process (a mutant when built with CS_MUTANT)",
	/* AR_RD_PROMISE: recursive doubling's bits, yet the promise */
	.flags = MUTANT(AR_RD_PROMISE) ? CS_BACKEND_F_BIT_IDENTICAL : 0,
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = rpp_init,
	.comm_split = rpp_split,
	.comm_free = rpp_free,
	.allreduce = rpp_allreduce,
	.allgather = rpp_allgather,
	.reducescatter = rpp_reducescatter,
	.alltoall = rpp_alltoall,
	.alltoallv = rpp_alltoallv,
	.broadcast = rpp_broadcast,
	.reduce = rpp_reduce,
	.gather = rpp_gather,
	.scatter = rpp_scatter,
	.sendrecv = rpp_sendrecv,
	.synchronize = rpp_sync,
	.error_string = rpp_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &rpp_backend;
}
