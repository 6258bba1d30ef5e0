/*
 * test_symcheck.c - the symbolic proofs of libcsgpu's schedules
 * (csgpu/sched.h, checked by gpu/sim/symcheck.h), and the tests of the
 * checker itself.
 *
 * 1. Proofs: every (collective, algorithm) pair csg_algo_supports, for
 *    P = 1..64 (1..CS_SYMCHECK_MAX_P where set: max_ranks), in and out
 *    of place, counts {0, 1, P-1, P, P+1, 2P+3, the smallest prime >
 *    3P}, (nchan, nslices) in {(1,1), (2,3), (3,2)},
 *    roots {0, P/2, P-1} for rooted collectives, and every collspec
 *    alltoallv matrix pattern (cs_a2av_matrix, the layout of
 *    cs_a2av_layout, gap 0 or 3 as the suite alternates). The full
 *    product for P <= 8; for P >= 9 (where one plan costs up to ~0.1 s)
 *    every count and both in-place modes still, but one (nchan, nslices),
 *    one root and one pattern per (P, count, mode), taken in turn so that
 *    each value of each thinned axis comes back every three Ps. AUTO:
 *    resolves to a supported algorithm, small and large.
 * 2. The checker rejects hand-made bad schedules, one per kind of
 *    violation it claims to find (symcheck.h), with the reason.
 * 3. Mutants (gpu/sim/mutate.h): for each mutant and each pair it applies
 *    to, some plan with P in 2..8 is reported as a violation, with the
 *    mutant's get_op alone (what the gpu-sim executor hooks) and with its
 *    nops as well.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "csref/case.h"
#include "csref/catalog.h"
#include "csref/a2av.h"
#include "base/names.h"
#include "mutate.h"
#include "symcheck.h"

#define MSG_LEN 2048

/* One plan of the grid. */
struct gcase {
	cs_coll_t coll;
	csg_algo_t algo;
	int P, root, inplace, nchan, nslices;
	size_t n;
	cs_a2av_pattern_t pat;
};

/* The alltoallv matrix of a case, in the plan's form. */
struct vbuf {
	size_t *cnt, *sdis, *rdis;
	size_t gap;
};

static void vbuf_free(struct vbuf *v)
{
	free(v->cnt);
	free(v->sdis);
	free(v->rdis);
}

/* collspec's matrix and layout for (pat, P, n): M from cs_a2av_matrix,
 * displacements from cs_a2av_layout of each rank. */
static void vbuf_make(struct vbuf *v, cs_a2av_pattern_t pat, int P, size_t n)
{
	size_t PP = (size_t)P * (size_t)P, *sc, *rc;
	cs_case_t c;
	int q;

	memset(&c, 0, sizeof c);
	v->cnt = calloc(PP, sizeof(size_t));
	v->sdis = calloc(PP, sizeof(size_t));
	v->rdis = calloc(PP, sizeof(size_t));
	sc = calloc((size_t)P, sizeof(size_t));
	rc = calloc((size_t)P, sizeof(size_t));
	assert_true(v->cnt && v->sdis && v->rdis && sc && rc);
	v->gap = (unsigned)pat & 1 ? 3 : 0;
	cs_a2av_matrix(pat, P, n, 1, v->cnt);
	c.coll = CS_COLL_ALLTOALLV;
	c.nranks = P;
	c.a2av_counts = v->cnt;
	c.a2av_gap = v->gap;
	for (q = 0; q < P; q++)
		cs_a2av_layout(&c, q, sc, v->sdis + (size_t)q * P, rc,
			       v->rdis + (size_t)q * P);
	free(sc);
	free(rc);
}

/* Plan g and check it with src (NULL: sched.h's). Returns the checker's
 * code; msg gets its line. */
static int check_case(const struct gcase *g, const csg_sched_src_t *src,
		      char *msg)
{
	struct vbuf vb = {NULL, NULL, NULL, 0};
	csg_symcheck_opts_t o;
	csg_vmat_t v = {NULL, NULL, NULL};
	csg_plan_t p;
	int rc;

	if (g->coll == CS_COLL_ALLTOALLV) {
		vbuf_make(&vb, g->pat, g->P, g->n);
		v.cnt = vb.cnt;
		v.sdis = vb.sdis;
		v.rdis = vb.rdis;
	}
	rc = csg_plan_init(&p, g->coll, g->algo, g->P, g->root, g->inplace,
			   g->n, 4, g->nchan, g->nslices, v);
	if (rc)
		fail_msg("csg_plan_init refused %s/%d P=%d", cs_coll_name(g->coll),
			 (int)g->algo, g->P);
	o.src = src;
	o.a2av_gap = vb.gap;
	rc = csg_symcheck_ex(&p, &o, msg, MSG_LEN);
	vbuf_free(&vb);
	return rc;
}

static void prove(const struct gcase *g, size_t *nplans)
{
	char msg[MSG_LEN];
	int rc = check_case(g, NULL, msg);

	if (rc)
		fail_msg("symcheck %d (pattern %s): %s", rc,
			 cs_a2av_name(g->pat), msg);
	(*nplans)++;
}

/* ---- 1. proofs ------------------------------------------------------------ */

static int is_prime(size_t n)
{
	size_t d;

	if (n < 2)
		return 0;
	for (d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

#define NCOUNTS 7
static void counts_of(int P, size_t *c)
{
	size_t u = (size_t)P, pr = 3 * u + 1;

	while (!is_prime(pr))
		pr++;
	c[0] = 0;
	c[1] = 1;
	c[2] = u - 1;
	c[3] = u;
	c[4] = u + 1;
	c[5] = 2 * u + 3;
	c[6] = pr;
}

static const int chans[3] = {1, 2, 3}, slices[3] = {1, 3, 2};

/* The roots of P: 0, P/2, P-1 (fewer when they coincide). */
static int roots_of(int P, int *roots)
{
	int n = 0, c[3] = {0, P / 2, P - 1}, i, j, dup;

	for (i = 0; i < 3; i++) {
		for (dup = 0, j = 0; j < n; j++)
			dup |= roots[j] == c[i];
		if (!dup)
			roots[n++] = c[i];
	}
	return n;
}

/* Every plan of the full grid for one (coll, algo, P, n, inplace). */
static void prove_full(struct gcase *g, size_t *nplans)
{
	int roots[3], nroots = roots_of(g->P, roots), ri, cf, pat;
	int npat = g->coll == CS_COLL_ALLTOALLV ? CS_NUM_A2AV : 1;

	for (ri = 0; ri < (csg_rooted(g->coll) ? nroots : 1); ri++)
		for (cf = 0; cf < 3; cf++)
			for (pat = 0; pat < npat; pat++) {
				g->root = csg_rooted(g->coll) ? roots[ri] : 0;
				g->nchan = chans[cf];
				g->nslices = slices[cf];
				g->pat = (cs_a2av_pattern_t)pat;
				prove(g, nplans);
			}
}

/* One plan for (coll, algo, P >= 9, n = counts[ci], inplace): the thinned
 * axes taken in turn. */
static void prove_thin(struct gcase *g, int ci, size_t *nplans)
{
	int roots[3], nroots = roots_of(g->P, roots);
	int turn = g->P + ci + 2 * g->inplace;

	g->root = csg_rooted(g->coll) ? roots[turn % nroots] : 0;
	g->nchan = chans[turn % 3];
	g->nslices = slices[turn % 3];
	g->pat = (cs_a2av_pattern_t)(turn % CS_NUM_A2AV);
	prove(g, nplans);
}

/* The largest P proved: CSG_MAX_RANKS, or CS_SYMCHECK_MAX_P (9 to
 * CSG_MAX_RANKS) where set. The asan test preset sets 16: under the
 * sanitizers every code path of the proofs (the full product up to 8,
 * each value of the thinned axes from 9) is still taken, in about 4 s
 * where P = 1..64 took 292 s (the plans grow with P), and the whole
 * range is proved in the Release build's `slow` stage. A value out of
 * range fails the test rather than proving less than it says. */
static int max_ranks(void)
{
	const char *s = getenv("CS_SYMCHECK_MAX_P");
	char *end;
	long v;

	if (!s || !*s)
		return CSG_MAX_RANKS;
	v = strtol(s, &end, 10);
	if (*end || v < 9 || v > CSG_MAX_RANKS)
		fail_msg("CS_SYMCHECK_MAX_P='%s': want a whole number from 9 "
			 "to %d", s, CSG_MAX_RANKS);
	return (int)v;
}

static void prove_pair(cs_coll_t coll, csg_algo_t algo, size_t *nplans)
{
	size_t counts[NCOUNTS];
	struct gcase g;
	int ci, maxp = max_ranks();

	memset(&g, 0, sizeof g);
	g.coll = coll;
	g.algo = algo;
	for (g.P = 1; g.P <= maxp; g.P++) {
		counts_of(g.P, counts);
		for (g.inplace = 0; g.inplace < 2; g.inplace++)
			for (ci = 0; ci < NCOUNTS; ci++) {
				g.n = counts[ci];
				if (g.P <= 8)
					prove_full(&g, nplans);
				else
					prove_thin(&g, ci, nplans);
			}
	}
}

/* state: the algorithm; every collective it runs. */
static void test_prove_algo(void **state)
{
	csg_algo_t algo = (csg_algo_t)(intptr_t)*state;
	size_t nplans = 0;
	int c, npairs = 0;

	for (c = 0; c < CS_NUM_COLLS; c++)
		if (csg_algo_supports(algo, (cs_coll_t)c)) {
			prove_pair((cs_coll_t)c, algo, &nplans);
			npairs++;
		}
	assert_true(npairs > 0);
	print_message("algo %d: %d collectives, %zu plans proved, P = 1..%d\n",
		      (int)algo, npairs, nplans, max_ranks());
}

/* AUTO resolves, small and large, to an algorithm that runs the
 * collective, and that plan is proved. */
static void test_auto(void **state)
{
	size_t esize[2] = {4, CSG_AUTO_TREE_BYTES}, nplans = 0;
	struct vbuf vb;
	csg_vmat_t v;
	csg_plan_t p;
	char msg[MSG_LEN];
	csg_symcheck_opts_t o = {NULL, 0};
	int c, e, P = 5;

	(void)state;
	vbuf_make(&vb, CS_A2AV_UNEVEN, P, 3);
	v.cnt = vb.cnt;
	v.sdis = vb.sdis;
	v.rdis = vb.rdis;
	o.a2av_gap = vb.gap;
	for (c = 0; c < CS_NUM_COLLS; c++)
		for (e = 0; e < 2; e++) {
			assert_int_equal(csg_plan_init(&p, (cs_coll_t)c,
						       CSG_ALGO_AUTO, P, 2, 0, 7,
						       esize[e], 2, 2, v), 0);
			assert_int_not_equal(p.algo, CSG_ALGO_AUTO);
			assert_true(csg_algo_supports(p.algo, (cs_coll_t)c));
			if (csg_symcheck_ex(&p, &o, msg, sizeof msg))
				fail_msg("%s", msg);
			nplans++;
		}
	/* the two sizes pick the two allreduce algorithms */
	assert_int_equal(csg_auto_algo(CS_COLL_ALLREDUCE, 4), CSG_ALGO_TREE);
	assert_int_equal(csg_auto_algo(CS_COLL_ALLREDUCE,
				       CSG_AUTO_TREE_BYTES + 1), CSG_ALGO_RING);
	vbuf_free(&vb);
	print_message("auto: %zu plans proved\n", nplans);
}

/* ---- 2. hand-made bad schedules ------------------------------------------- */

/* A tweak of sched.h's ops (and of its step and op counts). */
struct tweak {
	void (*op)(csg_op_t *o, const csg_plan_t *p, int r, int s, int k,
		   int i);
	int base;   /* > 0: this many base steps */
	int nops;   /* > 0: this many ops wherever sched.h has one or more */
	int npeer;  /* >= 0: every rank has this many peers (r+1, r+2...)  */
	int lonely; /* 1: only rank 0 lists a peer (rank 1) */
	int selfish; /* 1: every rank lists itself */
};

static int tw_base(const csg_plan_t *p, void *ctx)
{
	const struct tweak *t = ctx;

	return t->base > 0 ? t->base : csg_base_steps(p);
}

static int tw_nops(const csg_plan_t *p, int r, int s, void *ctx)
{
	const struct tweak *t = ctx;
	int n = csg_nops(p, r, s);

	return t->nops > 0 && n > 0 ? t->nops : n;
}

static csg_op_t tw_op(const csg_plan_t *p, int r, int s, int k, int i,
		      void *ctx)
{
	const struct tweak *t = ctx;
	csg_op_t o;

	if (i >= csg_nops(p, r, s))
		i = 0; /* the extra ops of tw_nops repeat op 0 */
	o = csg_get_op(p, r, s, k, i);
	if (t->op)
		t->op(&o, p, r, s, k, i);
	return o;
}

static int tw_npeers(const csg_plan_t *p, int r, void *ctx)
{
	const struct tweak *t = ctx;

	if (t->lonely)
		return r == 0;
	if (t->selfish)
		return 1;
	return t->npeer >= 0 ? t->npeer : csg_npeers(p, r);
}

static int tw_peer(const csg_plan_t *p, int r, int i, void *ctx)
{
	const struct tweak *t = ctx;

	if (t->lonely)
		return 1;
	if (t->selfish)
		return r;
	return t->npeer >= 0 ? csg_mod(r + 1 + i, p->P) : csg_peer(p, r, i);
}

/* Check g with tweak t: a violation whose line contains `want`. */
static void expect_violation(const struct gcase *g, struct tweak *t,
			     const char *want)
{
	csg_sched_src_t src = {tw_base, tw_nops, tw_op, tw_npeers, tw_peer,
			       NULL};
	char msg[MSG_LEN];
	int rc;

	src.ctx = t;
	rc = check_case(g, &src, msg);
	if (rc != CSG_SYM_VIOLATION || !strstr(msg, want))
		fail_msg("expected a violation with \"%s\"; got %d: %s", want,
			 rc, msg);
}

static struct gcase gc(cs_coll_t coll, csg_algo_t algo, int P, size_t n,
		       int inplace, int nchan, int nslices)
{
	struct gcase g;

	memset(&g, 0, sizeof g);
	g.coll = coll;
	g.algo = algo;
	g.P = P;
	g.n = n;
	g.inplace = inplace;
	g.nchan = nchan;
	g.nslices = nslices;
	g.root = P - 1;
	g.pat = CS_A2AV_UNIFORM;
	return g;
}

static struct tweak tw(void)
{
	struct tweak t;

	memset(&t, 0, sizeof t);
	t.npeer = -1;
	return t;
}

/* The tweaks, one per kind of violation. */
static void pull_prev_send(csg_op_t *o, const csg_plan_t *p, int r, int s,
			   int k, int i)
{
	/* sendrecv in place without staging: r-1 overwrites its SEND
	 * (its RECV) in the very step r reads it */
	*o = csg_op_to(csg_ref(r, CSG_RECV, o->dst.off), o->n);
	csg_op_src(o, csg_ref(csg_mod(r - 1, p->P), CSG_SEND, o->dst.off), -1);
}

static void read_op0_dst(csg_op_t *o, const csg_plan_t *p, int r, int s,
			 int k, int i)
{
	/* op 1 of a step reads what op 0 of the same rank writes in it: the
	 * kernels run the ops of a step without a barrier between them */
	if (i == 1 && s == csg_stages(p)) {
		csg_op_t o0 = csg_get_op(p, r, s, k, 0);

		o->src[0] = o0.dst;
	}
}

static void ignore_chan(csg_op_t *o, const csg_plan_t *p, int r, int s,
			int k, int i)
{
	csg_plan_t q = *p;

	q.chan = 0;
	*o = csg_get_op(&q, r, s, k, i);
}

static void dst_next_rank(csg_op_t *o, const csg_plan_t *p, int r, int s,
			  int k, int i)
{
	o->dst.rank = csg_mod(r + 1, p->P);
}

static void dst_send(csg_op_t *o, const csg_plan_t *p, int r, int s, int k,
		     int i)
{
	o->dst.buf = CSG_SEND;
}

static void one_more(csg_op_t *o, const csg_plan_t *p, int r, int s, int k,
		     int i)
{
	o->n += o->nsrc > 0;
}

static void twice_own(csg_op_t *o, const csg_plan_t *p, int r, int s, int k,
		      int i)
{
	if (o->nsrc == 2) /* the ring's own contribution, again */
		csg_op_src(o, o->src[1], o->pre[1]);
}

static void pre_of_next(csg_op_t *o, const csg_plan_t *p, int r, int s,
			int k, int i)
{
	if (o->nsrc == 2)
		o->pre[1] = csg_mod(o->pre[1] + 1, p->P);
}

static void pre_on_partial(csg_op_t *o, const csg_plan_t *p, int r, int s,
			   int k, int i)
{
	if (o->nsrc == 2 && s > 0 && s < p->P - 1)
		o->pre[0] = csg_mod(r - 1, p->P);
}

static void swap_elems(csg_op_t *o, const csg_plan_t *p, int r, int s,
		       int k, int i)
{
	if (o->nsrc == 2 && o->n == 1)
		o->src[1].off ^= 1;
}

static void post_on_copies(csg_op_t *o, const csg_plan_t *p, int r, int s,
			   int k, int i)
{
	o->post |= o->nsrc == 1 && o->pre[0] < 0;
}

static void post_first(csg_op_t *o, const csg_plan_t *p, int r, int s,
		       int k, int i)
{
	o->post |= s == 0;
}

static void no_pre_first(csg_op_t *o, const csg_plan_t *p, int r, int s,
			 int k, int i)
{
	if (s == 0)
		o->pre[0] = -1;
}

static void post_on_move(csg_op_t *o, const csg_plan_t *p, int r, int s,
			 int k, int i)
{
	o->post = 1;
}

static void pull_next(csg_op_t *o, const csg_plan_t *p, int r, int s, int k,
		      int i)
{
	o->src[0].rank = csg_mod(r + 1, p->P);
}

static void skip_first(csg_op_t *o, const csg_plan_t *p, int r, int s,
		       int k, int i)
{
	if (s == 0)
		*o = csg_op_none();
}

static void test_hazards(void **state)
{
	struct gcase g;
	struct tweak t = tw();

	(void)state;
	/* across ranks, one step */
	g = gc(CS_COLL_SENDRECV, CSG_ALGO_DIRECT, 3, 4, 1, 1, 1);
	t.base = 1;
	t.op = pull_prev_send;
	expect_violation(&g, &t, "read by rank");
	/* two ops of one rank, one step */
	g = gc(CS_COLL_SENDRECV, CSG_ALGO_DIRECT, 2, 4, 0, 1, 1);
	t = tw();
	t.nops = 2;
	expect_violation(&g, &t, "in the same step");
	/* one op of a rank reads what another op of it writes in the same
	 * step (in-place alltoall after staging: every slot is initialised,
	 * so only the hazard can be the violation) */
	g = gc(CS_COLL_ALLTOALL, CSG_ALGO_DIRECT, 3, 4, 1, 1, 1);
	t = tw();
	t.op = read_op0_dst;
	expect_violation(&g, &t, "op 0");
	expect_violation(&g, &t, "op 1");
	expect_violation(&g, &t, "and read by");
	/* two channels on the same elements */
	g = gc(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 3, 7, 0, 2, 1);
	t = tw();
	t.op = ignore_chan;
	expect_violation(&g, &t, "both write");
}

static void test_peers(void **state)
{
	struct gcase g = gc(CS_COLL_SENDRECV, CSG_ALGO_DIRECT, 4, 3, 1, 1, 1);
	struct tweak t = tw();

	(void)state;
	t.npeer = 0;
	expect_violation(&g, &t, "are not peers");
	t = tw();
	t.lonely = 1;
	expect_violation(&g, &t, "does not list");
	t = tw();
	t.selfish = 1;
	expect_violation(&g, &t, "itself or a repeat");
}

static void test_bad_ops(void **state)
{
	struct gcase g = gc(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 3, 6, 0, 1, 1);
	struct tweak t = tw();

	(void)state;
	t.op = dst_next_rank;
	expect_violation(&g, &t, "writes rank 1's buffer");
	t.op = dst_send;
	expect_violation(&g, &t, "only RECV and TMP");
	t.op = one_more;
	expect_violation(&g, &t, "outside the buffer");
	g = gc(CS_COLL_ALLGATHER, CSG_ALGO_RING, 3, 2, 0, 1, 1);
	t.op = skip_first;
	expect_violation(&g, &t, "never written and not an input");
	t.op = post_on_move;
	expect_violation(&g, &t, "post in a collective that does not reduce");
}

static void test_bad_folds(void **state)
{
	struct gcase g = gc(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 3, 6, 0, 1, 1);
	struct tweak t = tw();

	(void)state;
	t.op = twice_own;
	expect_violation(&g, &t, "counted twice");
	t.op = pre_of_next;
	expect_violation(&g, &t, "pre of rank 1 applied to element 4 of "
			 "ranks {0}"); /* rank 0's chunk 2 at step 0 */
	t.op = pre_on_partial;
	expect_violation(&g, &t, "pre applies once");
	t.op = no_pre_first;
	expect_violation(&g, &t, "without its pre");
	t.op = post_first;
	expect_violation(&g, &t, "an incomplete value");
	t.op = post_on_copies;
	expect_violation(&g, &t, "post applied twice");
	/* reducescatter, one element per slice: element 1 folded into 0 */
	g = gc(CS_COLL_REDUCESCATTER, CSG_ALGO_RING, 3, 2, 0, 1, 2);
	t.op = swap_elems;
	expect_violation(&g, &t, "different elements");
}

static void test_bad_results(void **state)
{
	struct gcase g = gc(CS_COLL_SENDRECV, CSG_ALGO_DIRECT, 3, 2, 0, 1, 1);
	struct tweak t = tw();

	(void)state;
	t.op = pull_next;
	expect_violation(&g, &t, "holds rank 1's element 0, expected rank "
			 "2's element 0");
	/* alltoallv: one element past each block lands in the gap */
	g = gc(CS_COLL_ALLTOALLV, CSG_ALGO_DIRECT, 2, 2, 0, 1, 1);
	g.pat = CS_A2AV_UNEVEN; /* gap 3 */
	t.op = one_more;
	expect_violation(&g, &t, "a gap");
}

static void test_refused(void **state)
{
	csg_vmat_t v = {NULL, NULL, NULL};
	csg_plan_t p;
	char msg[MSG_LEN];

	(void)state;
	assert_int_equal(csg_symcheck(NULL, msg, sizeof msg), CSG_SYM_EINVAL);
	assert_int_equal(csg_plan_init(&p, CS_COLL_ALLREDUCE, CSG_ALGO_RING, 4,
				       0, 0, 5, 4, 1, 1, v), 0);
	assert_int_equal(csg_symcheck(&p, msg, sizeof msg), 0);
	p.algo = CSG_ALGO_AUTO;
	assert_int_equal(csg_symcheck(&p, msg, sizeof msg), CSG_SYM_EINVAL);
	p.algo = CSG_ALGO_DIRECT; /* does not run allreduce */
	assert_int_equal(csg_symcheck(&p, msg, sizeof msg), CSG_SYM_EINVAL);
	p.algo = CSG_ALGO_RING;
	p.P = CSG_MAX_RANKS + 1;
	assert_int_equal(csg_symcheck(&p, msg, sizeof msg), CSG_SYM_EINVAL);
	p.P = 4;
	p.nslices = 0;
	assert_int_equal(csg_symcheck(&p, msg, sizeof msg), CSG_SYM_EINVAL);
	assert_non_null(strstr(msg, "nslices 0"));
}

/* ---- 3. mutants ------------------------------------------------------------- */

static int mu_nops(const csg_plan_t *p, int r, int s, void *ctx)
{
	return csg_mutant_nops(*(const int *)ctx, p, r, s);
}

static csg_op_t mu_op(const csg_plan_t *p, int r, int s, int k, int i,
		      void *ctx)
{
	return csg_mutant_op(*(const int *)ctx, p, r, s, k, i);
}

/* 1 when some plan with P in 2..8 is rejected under mutant which, with
 * only get_op hooked (as csgpu/sim.h's executor takes it) or nops too;
 * 0 when none is. Any code but 0 or a violation fails. */
static int find_violation(int which, cs_coll_t coll, csg_algo_t algo,
			  int hook_nops, char *msg)
{
	csg_sched_src_t src = {NULL, NULL, mu_op, NULL, NULL, NULL};
	size_t counts[NCOUNTS];
	struct gcase g = gc(coll, algo, 2, 0, 0, 1, 1);
	int ci, cf, rc;

	src.ctx = &which;
	if (hook_nops)
		src.nops = mu_nops;
	for (g.P = 2; g.P <= 8; g.P++) {
		counts_of(g.P, counts);
		g.root = g.P - 1;
		for (g.inplace = 0; g.inplace < 2; g.inplace++)
			for (ci = 1; ci < NCOUNTS; ci++)
				for (cf = 0; cf < 3; cf++) {
					g.n = counts[ci];
					g.nchan = chans[cf];
					g.nslices = slices[cf];
					rc = check_case(&g, &src, msg);
					if (rc == CSG_SYM_VIOLATION)
						return 1;
					if (rc)
						fail_msg("mutant %s: %d: %s",
							 csg_mutant_name(which),
							 rc, msg);
				}
	}
	return 0;
}

/* state: the mutant; every pair it applies to must be caught. */
static void test_mutant(void **state)
{
	int which = (int)(intptr_t)*state, c, a, pairs = 0;
	char msg[MSG_LEN];

	assert_true(csg_mutant_applies(which, CS_COLL_ALLREDUCE));
	for (c = 0; c < CS_NUM_COLLS; c++)
		for (a = 1; a < CSG_NUM_ALGOS; a++) {
			if (!csg_algo_supports((csg_algo_t)a, (cs_coll_t)c) ||
			    !csg_mutant_applies(which, (cs_coll_t)c))
				continue;
			if (!find_violation(which, (cs_coll_t)c, (csg_algo_t)a,
					    0, msg) ||
			    !find_violation(which, (cs_coll_t)c, (csg_algo_t)a,
					    1, msg))
				fail_msg("mutant %s not caught on %s, algo %d",
					 csg_mutant_name(which),
					 cs_coll_name((cs_coll_t)c), a);
			pairs++;
		}
	print_message("mutant %s: caught on %d pairs\n",
		      csg_mutant_name(which), pairs);
}

static void assert_same_op(const csg_op_t *a, const csg_op_t *b)
{
	int m;

	assert_int_equal(a->nsrc, b->nsrc);
	assert_int_equal(a->post, b->post);
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->dst.rank, b->dst.rank);
	assert_int_equal(a->dst.buf, b->dst.buf);
	assert_int_equal(a->dst.off, b->dst.off);
	for (m = 0; m < CSG_MAX_SRC; m++) {
		assert_int_equal(a->src[m].rank, b->src[m].rank);
		assert_int_equal(a->src[m].buf, b->src[m].buf);
		assert_int_equal(a->src[m].off, b->src[m].off);
		assert_int_equal(a->pre[m], b->pre[m]);
	}
}

/* Mutant 0 and the build-time selection are sched.h itself. */
static void test_mutant_none(void **state)
{
	csg_vmat_t v = {NULL, NULL, NULL};
	csg_plan_t p;
	csg_op_t a, b;
	int r, s, k, i;

	(void)state;
	assert_int_equal(CSG_MUTANT, 0);
	assert_string_equal(csg_mutant_name(0), "none");
	assert_null(csg_mutant_name(CSG_NUM_MUTANTS));
	assert_false(csg_mutant_applies(0, CS_COLL_ALLREDUCE));
	assert_false(csg_mutant_applies(CSG_MUTANT_DROP_PRE,
					CS_COLL_ALLGATHER));
	assert_int_equal(csg_plan_init(&p, CS_COLL_ALLREDUCE, CSG_ALGO_RING, 5,
				       0, 0, 23, 4, 1, 2, v), 0);
	for (r = 0; r < p.P; r++)
		for (s = 0; s < csg_base_steps(&p); s++) {
			assert_int_equal(csg_exec_nops(&p, r, s),
					 csg_nops(&p, r, s));
			assert_int_equal(csg_mutant_nops(0, &p, r, s),
					 csg_nops(&p, r, s));
			for (k = 0; k < p.nslices; k++)
				for (i = 0; i < csg_nops(&p, r, s); i++) {
					a = csg_get_op(&p, r, s, k, i);
					b = csg_exec_op(&p, r, s, k, i);
					assert_same_op(&a, &b);
					b = csg_mutant_op(0, &p, r, s, k, i);
					assert_same_op(&a, &b);
					b = csg_exec_get_op(&p, r, s, k, i,
							    NULL);
					assert_same_op(&a, &b);
				}
		}
}

/* The tests; the mutant tests are made from the mutant list. */
int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hazards),
		cmocka_unit_test(test_peers),
		cmocka_unit_test(test_bad_ops),
		cmocka_unit_test(test_bad_folds),
		cmocka_unit_test(test_bad_results),
		cmocka_unit_test(test_mutant_none),
	};
	static const csg_algo_t algos[] = {CSG_ALGO_RING, CSG_ALGO_TREE,
					   CSG_ALGO_DIRECT, CSG_ALGO_PAIRWISE};
	static const char *const algo_names[] = {"prove ring", "prove tree",
						 "prove direct",
						 "prove pairwise"};
	/* fixed, the mutants but NONE, test_auto, the four proofs */
	struct CMUnitTest tests[sizeof fixed / sizeof fixed[0] +
				CSG_NUM_MUTANTS + 4];
	size_t n = 0, i;
	int w;

#ifdef __GLIBC__
	/* Keep freed slots on the heap: the plans of P = 64 take up to
	 * ~100 MB each, and mapping them afresh every time costs more in
	 * page faults than the proofs themselves. */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		tests[n++] = fixed[i];
	for (w = 1; w < CSG_NUM_MUTANTS; w++) {
		struct CMUnitTest t = cmocka_unit_test_prestate(
			test_mutant, (void *)(intptr_t)w);

		t.name = csg_mutant_name(w);
		tests[n++] = t;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_auto);
	for (i = 0; i < 4; i++) {
		struct CMUnitTest t = cmocka_unit_test_prestate(
			test_prove_algo, (void *)(intptr_t)algos[i]);

		t.name = algo_names[i];
		tests[n++] = t;
	}
	if (n != sizeof tests / sizeof tests[0])
		return 1;
	return cmocka_run_group_tests_name("test_symcheck", tests, NULL, NULL);
}
