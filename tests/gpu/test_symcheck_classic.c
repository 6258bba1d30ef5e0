/*
 * test_symcheck_classic.c - the classic CPU algorithms of
 * csgpu/sched_classic.h (rd, rhd, binomial) proved by the symbolic
 * checker (gpu/sim/symcheck_classic.h), and mutants of them that it must
 * reject.
 *
 * 1. Proofs: every (algorithm, collective) pair csg_cl_supports, for
 *    P = 1..64 (powers of two for rd and rhd; every other P must be
 *    refused with CSG_CL_ENOTPOW2), counts {0, 1, P-1, P, P+1, 2P+3},
 *    (nchan, nslices) (1,1) and (2,3), roots {0, P/2, P-1} for binomial;
 *    for P > 8 one (nchan, nslices) and one root per count, in turn.
 *    In place must be refused with CSG_CL_EINPLACE.
 * 2. Mutants: each a plausible bug (wrong partner, the missing fold of
 *    the ranks beyond a power of two, off-by-one chunk or block, no
 *    double buffering, a leaf read from TMP, a second pre, the root's
 *    own copy forgotten); each must be
 *    reported as a violation on some plan with P in 2..16, while the
 *    same wrapper with no mutation proves the same plans.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "csref/catalog.h"
#include "symcheck_classic.h"

#define MSG_LEN 2048

/* ---- 1. proofs ---------------------------------------------------------- */

static int pow2(int P)
{
	return (P & (P - 1)) == 0;
}

static void prove_one(csg_classic_t a, cs_coll_t c, int P, int root,
		      size_t n, int nchan, int nslices, int *nplans)
{
	char msg[MSG_LEN];
	csg_plan_t p;
	int rc = csg_cl_plan_init(&p, c, a, P, root, 0, n, nchan, nslices);

	if (a != CSG_CL_BINOMIAL && !pow2(P)) {
		if (rc != CSG_CL_ENOTPOW2)
			fail_msg("%s/%s P=%d: not refused (%d)",
				 csg_classic_name(a), cs_coll_name(c), P, rc);
		return;
	}
	if (rc)
		fail_msg("%s/%s P=%d n=%zu: refused (%d)", csg_classic_name(a),
			 cs_coll_name(c), P, n, rc);
	rc = csg_symcheck_classic(a, &p, msg, sizeof msg);
	if (rc)
		fail_msg("%s %d: %s", csg_classic_name(a), rc, msg);
	(*nplans)++;
}

static void test_proofs(void **state)
{
	static const int ch[2][2] = {{1, 1}, {2, 3}};
	int a, c, P, nplans = 0, turn = 0, ci, ri;
	csg_plan_t p;

	(void)state;
	for (a = 0; a < CSG_NUM_CLASSIC; a++)
		for (c = 0; c < CS_NUM_COLLS; c++) {
			if (!csg_cl_supports((csg_classic_t)a, (cs_coll_t)c))
				continue;
			assert_int_equal(csg_cl_plan_init(&p, (cs_coll_t)c,
				(csg_classic_t)a, 4, 0, 1, 4, 1, 1),
				CSG_CL_EINPLACE);
			for (P = 1; P <= 64; P++) {
				size_t cnt[6] = {0, 1, (size_t)P - 1, (size_t)P,
						 (size_t)P + 1, 2 * (size_t)P + 3};
				int roots[3] = {0, P / 2, P - 1}, k;

				for (k = 0; k < 6; k++, turn++)
					for (ci = 0; ci < 2; ci++)
						for (ri = 0; ri < 3; ri++) {
							if (P > 8 && (ci != turn % 2 ||
								      ri != turn % 3))
								continue;
							prove_one((csg_classic_t)a,
								  (cs_coll_t)c, P,
								  roots[ri], cnt[k],
								  ch[ci][0],
								  ch[ci][1], &nplans);
						}
			}
		}
	print_message("classic schedules: %d plans proved\n", nplans);
	assert_true(nplans > 1000);
}

/* ---- 2. mutants --------------------------------------------------------- */

enum mutant {
	MU_NONE,
	MU_RD_PARTNER,    /* rd allreduce: partner r XOR (s+1), not 2^s */
	MU_RD_NOFOLD,     /* rd allreduce run at P = 6 without the fold */
	MU_RD_ONEBUF,     /* rd allreduce: every step into RECV */
	MU_RD_AG_WINDOW,  /* rd allgather: pulls its own window, not the
			     partner's */
	MU_RHD_HALF,      /* rhd: keeps the partner's half */
	MU_RHD_CHUNK,     /* rhd allreduce doubling: chunk off by one */
	MU_BIN_LEAF,      /* binomial reduce: a leaf read from its TMP */
	MU_BIN_NOCOPY,    /* binomial broadcast: the root's own copy
			     forgotten (as if always in place) */
	MU_RHD_PRE2,      /* rhd reducescatter: pre at every step */
	NUM_MU
};

static const char *const mu_name[NUM_MU] = {
	"none", "rd_partner", "rd_nofold", "rd_onebuf", "rd_ag_window",
	"rhd_half", "rhd_chunk", "bin_leaf", "bin_nocopy", "rhd_pre2"};

struct mu {
	csg_classic_t a;
	int which;
};

static int mu_steps(const csg_plan_t *p, void *ctx)
{
	return csg_cl_base_steps(((struct mu *)ctx)->a, p);
}

static int mu_nops(const csg_plan_t *p, int r, int s, void *ctx)
{
	return csg_cl_nops(((struct mu *)ctx)->a, p, r, s);
}

static int mu_npeers(const csg_plan_t *p, int r, void *ctx)
{
	const struct mu *m = ctx;

	/* every rank a peer: the mutants are caught for what they compute,
	 * not for a missing peer */
	(void)r;
	(void)m;
	return p->P - 1;
}

static int mu_peer(const csg_plan_t *p, int r, int i, void *ctx)
{
	(void)p;
	(void)ctx;
	return i < r ? i : i + 1;
}

/* Move every source of o that is not r's own to rank q. */
static void retarget(csg_op_t *o, int r, int q)
{
	int x;

	for (x = 0; x < o->nsrc; x++)
		if (o->src[x].rank != r) {
			o->src[x].rank = q;
			if (o->pre[x] >= 0)
				o->pre[x] = q;
		}
}

static csg_op_t mu_op(const csg_plan_t *p, int r, int s, int k, int i,
		      void *ctx)
{
	const struct mu *m = ctx;
	int L = csg_cl_log2(p->P), P = p->P, q, mm, c;
	size_t slo, sn;
	csg_op_t o = csg_cl_get_op(m->a, p, r, s, k, i);

	if (P == 1)
		return o;
	switch (m->which) {
	case MU_RD_PARTNER:
		retarget(&o, r, (r ^ (s + 1)) % P);
		break;
	case MU_RD_ONEBUF:
		o.dst.buf = CSG_RECV;
		if (s > 0)
			o.src[0].buf = o.src[1].buf = CSG_RECV;
		break;
	case MU_RD_AG_WINDOW:
		if (s > 0) {
			mm = 1 << s;
			c = r / mm * mm + i;
			sn = csg_cl_inblock(p, k, &slo);
			o = csg_op_to(csg_ref(r, CSG_RECV, (size_t)c * p->n +
					      slo), sn);
			csg_op_src(&o, csg_ref(r ^ mm, CSG_RECV,
					       (size_t)c * p->n + slo), -1);
		}
		break;
	case MU_RHD_HALF:
		if (s < L) {
			/* the same op of the partner, written into r */
			mm = P >> (s + 1);
			q = r ^ mm;
			o = csg_cl_get_op(m->a, p, q, s, k, i);
			o.dst.rank = r;
		}
		break;
	case MU_RHD_CHUNK:
		if (s >= L) {
			mm = 1 << (s - L);
			q = r ^ mm;
			c = (q / mm * mm + i + 1) % P;
			sn = csg_cl_chunk(p, c, k, &slo);
			o = csg_op_to(csg_ref(r, CSG_RECV, slo), sn);
			csg_op_src(&o, csg_ref(q, CSG_RECV, slo), -1);
		}
		break;
	case MU_BIN_LEAF:
		if (o.nsrc == 2 && o.src[1].buf == CSG_SEND) {
			o.src[1].buf = CSG_TMP;
			o.pre[1] = -1;
		}
		break;
	case MU_BIN_NOCOPY:
		if (s == 0)
			o = csg_op_none();
		break;
	case MU_RHD_PRE2:
		if (s > 0 && s < L) {
			o.pre[0] = o.src[0].rank;
			o.pre[1] = o.src[1].rank;
		}
		break;
	default:
		break;
	}
	return o;
}

/* The pair a mutant breaks. */
static void mu_pair(int which, csg_classic_t *a, cs_coll_t *c)
{
	*a = CSG_CL_RD;
	*c = CS_COLL_ALLREDUCE;
	switch (which) {
	case MU_RD_AG_WINDOW:
		*c = CS_COLL_ALLGATHER;
		break;
	case MU_RHD_HALF:
	case MU_RHD_CHUNK:
		*a = CSG_CL_RHD;
		break;
	case MU_RHD_PRE2:
		*a = CSG_CL_RHD;
		*c = CS_COLL_REDUCESCATTER;
		break;
	case MU_BIN_LEAF:
		*a = CSG_CL_BINOMIAL;
		*c = CS_COLL_REDUCE;
		break;
	case MU_BIN_NOCOPY:
		*a = CSG_CL_BINOMIAL;
		*c = CS_COLL_BROADCAST;
		break;
	default:
		break;
	}
}

/* Check a plan under mutant which: the checker's return. */
static int mu_check(int which, csg_classic_t a, cs_coll_t c, int P, int root,
		    size_t n, char *msg)
{
	struct mu m = {a, which};
	csg_sched_src_t src = {mu_steps, mu_nops, mu_op, mu_npeers, mu_peer,
			       &m};
	csg_symcheck_opts_t o = {&src, 0};
	csg_vmat_t v = {NULL, NULL, NULL};
	csg_plan_t p;

	/* the fold mutant bypasses csg_cl_plan_init's refusal */
	if (csg_plan_init(&p, c, CSG_ALGO_RING, P, root, 0, n, 4, 1, 1, v))
		fail_msg("plan refused");
	return csg_symcheck_ex(&p, &o, msg, MSG_LEN);
}

static void test_mutant(void **state)
{
	int which = (int)(intptr_t)*state, P, caught = 0;
	char msg[MSG_LEN];
	csg_classic_t a;
	cs_coll_t c;

	mu_pair(which, &a, &c);
	for (P = 2; P <= 16 && !caught; P++) {
		if (a != CSG_CL_BINOMIAL && !pow2(P) &&
		    !(which == MU_RD_NOFOLD && P == 6))
			continue;
		if (which == MU_RD_NOFOLD && P != 6)
			continue;
		/* the unmutated wrapper proves what the mutant breaks */
		if (which != MU_RD_NOFOLD &&
		    mu_check(MU_NONE, a, c, P, P / 2, (size_t)P + 1, msg))
			fail_msg("unmutated %s P=%d: %s", mu_name[which], P, msg);
		if (mu_check(which, a, c, P, P / 2, (size_t)P + 1, msg) ==
		    CSG_SYM_VIOLATION) {
			caught = 1;
			print_message("mutant %s caught at P=%d: %s\n",
				      mu_name[which], P, msg);
		}
	}
	if (!caught)
		fail_msg("mutant %s not caught for P in 2..16", mu_name[which]);
}

int main(void)
{
	struct CMUnitTest tests[NUM_MU];
	int n = 0, w;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_proofs);
	for (w = 1; w < NUM_MU; w++) {
		struct CMUnitTest t = cmocka_unit_test_prestate(
			test_mutant, (void *)(intptr_t)w);
		t.name = mu_name[w];
		tests[n++] = t;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
