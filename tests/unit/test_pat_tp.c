/*
 * test_pat_tp.c - the tensor-parallel patterns tp_col and sp
 * (spec/patterns.md sections 5.4 and 5.6) against values this test
 * computes itself, not against the patterns' own serial mirrors:
 *
 *   - at P = 1, what the pattern computes equals the plain unsharded
 *     product (tp_col: X W; sp: ReLU(X W1) W2), computed here in double
 *     and compared within the rounding bound of the pattern's arithmetic
 *     (exactly for int32);
 *   - at P = 2, the blocks tp_col's allgather returns are the column
 *     blocks of X W, and the pattern places block q's element (i, j) at
 *     Y[i][q F/P + j]: changing that one received element must make the
 *     pattern report Y's element i F + q F/P + j, and nothing else;
 *     and the reduced input gradient is C W^T within the bound of P
 *     rounded partials;
 *   - at P = 2, each rank's shard of sp's Z is its own rows of the
 *     unsharded block, within the bound of P rounded partials; its
 *     gathered rows and reduced shards are checked at the element they
 *     arrived at (the same one-element change, call by call).
 *
 * The patterns run on a port of this file that does the collectives by
 * their definitions and keeps a copy of every buffer, so the test sees
 * what the pattern sent and received. The inputs are regenerated with
 * cs_pat_fill and the tensor numbers each pattern's file states.
 *
 * Longer than the house's 500 lines: the port, the independent products
 * and the two patterns' cases share one set of helpers, and splitting the
 * file would only move them into a header of their own.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/pattern.h"
#include "csref/pkern.h"

#define SEED 0x7e57ull
#define MAXP 2
#define MAXQ 8

/* ---- a port that does the collectives by definition and records ---- */

typedef struct rec {
	cs_coll_t coll;
	size_t ns, nr;    /* send and receive elements */
	void *send, *recv; /* copies; recv after any tampering */
} rec_t;

typedef struct tport {
	cs_pport_t port;
	cs_dtype_t d;
	int P;
	int nq[MAXP];
	cs_pcall_t q[MAXP][MAXQ];
	void *qsend[MAXP][MAXQ];
	int done;             /* calls made so far */
	rec_t rec[MAXQ][MAXP]; /* [call][rank] */
	int t_call, t_rank;   /* add 1 to recv element t_elem of that rank's
				 call t_call; t_call = -1: no change */
	size_t t_elem;
} tport_t;

/* Send and receive elements of c in a group of P; 0 for a collective
 * these patterns do not call. */
static int sizes(const cs_pcall_t *c, int P, size_t *ns, size_t *nr)
{
	size_t n = c->count, pn = (size_t)P * c->count;
	*ns = *nr = 0;
	if (c->coll == CS_COLL_ALLGATHER)
		*ns = n, *nr = pn;
	else if (c->coll == CS_COLL_ALLREDUCE)
		*ns = n, *nr = n;
	else if (c->coll == CS_COLL_REDUCESCATTER)
		*ns = pn, *nr = n;
	else
		return 0;
	return 1;
}

static cs_status_t tp_call(cs_pport_t *p, int i, const cs_pcall_t *c)
{
	tport_t *t = p->impl;
	size_t ns, nr, w = cs_dtype_size(t->d);
	if (i < 0 || i >= t->P || t->nq[i] >= MAXQ || c->dtype != t->d ||
	    !sizes(c, t->P, &ns, &nr))
		return CS_ERR_INVALID;
	t->q[i][t->nq[i]] = *c;
	t->qsend[i][t->nq[i]] = malloc(ns * w + 1);
	assert_non_null(t->qsend[i][t->nq[i]]);
	memcpy(t->qsend[i][t->nq[i]], c->send, ns * w);
	t->nq[i]++;
	return CS_OK;
}

/* out = the sum over ranks of send block `blk` of call k, added in double
 * (exact for P <= 2 values of a float dtype of at most 24 bits, and for
 * the small integers) and rounded once: a correct reduction. */
static void reduce_into(tport_t *t, int k, size_t blk, size_t n, void *out)
{
	for (size_t j = 0; j < n; j++) {
		double s = 0;
		for (int q = 0; q < t->P; q++)
			s += cs_pk_get(t->d, t->qsend[q][k], blk * n + j);
		cs_pk_set(t->d, out, j, s);
	}
}

/* Make queued call k on every rank, then record it as call number `at`. */
static void one_call(tport_t *t, int k, int at)
{
	size_t w = cs_dtype_size(t->d);
	for (int r = 0; r < t->P; r++) {
		const cs_pcall_t *c = &t->q[r][k];
		size_t ns, nr, n = c->count;
		sizes(c, t->P, &ns, &nr);
		if (c->coll == CS_COLL_ALLGATHER)
			for (int q = 0; q < t->P; q++)
				memcpy((char *)c->recv + (size_t)q * n * w,
				       t->qsend[q][k], n * w);
		else
			reduce_into(t, k, c->coll == CS_COLL_ALLREDUCE
					      ? 0 : (size_t)r, n, c->recv);
		if (at == t->t_call && r == t->t_rank)
			cs_pk_set(t->d, c->recv, t->t_elem,
				  cs_pk_get(t->d, c->recv, t->t_elem) + 1.0);
		rec_t *e = &t->rec[at][r];
		*e = (rec_t){.coll = c->coll, .ns = ns, .nr = nr,
			     .send = t->qsend[r][k], .recv = malloc(nr * w)};
		assert_non_null(e->recv);
		memcpy(e->recv, c->recv, nr * w);
	}
}

static cs_status_t tp_run(cs_pport_t *p)
{
	tport_t *t = p->impl;
	for (int r = 1; r < t->P; r++)
		assert_int_equal(t->nq[r], t->nq[0]);
	assert_true(t->done + t->nq[0] <= MAXQ);
	for (int k = 0; k < t->nq[0]; k++)
		one_call(t, k, t->done + k);
	t->done += t->nq[0];
	memset(t->nq, 0, sizeof t->nq);
	return CS_OK;
}

static void tport_free(tport_t *t)
{
	for (int k = 0; k < t->done; k++)
		for (int r = 0; r < t->P; r++) {
			free(t->rec[k][r].send);
			free(t->rec[k][r].recv);
		}
}

/* ---- running a pattern on it ------------------------------------------ */

typedef struct run {
	tport_t t;
	cs_grid_t grid;
	cs_prank_t rank[MAXP];
	cs_pcheck_t chk[MAXP];
	cs_pctx_t x;
} run_t;

/* Run the pattern `name` on one instance of P ranks; tamper with call
 * t_call (-1: none). */
static void run_pat(run_t *u, const char *name, cs_dtype_t d, int P,
		    int t_call, int t_rank, size_t t_elem)
{
	const cs_pattern_t *pat = cs_pattern_find(name);
	char spec[16];
	assert_non_null(pat);
	memset(u, 0, sizeof *u);
	snprintf(spec, sizeof spec, "tp%d", P);
	assert_int_equal(cs_grid_parse(spec, P, &u->grid), CS_OK);
	u->t = (tport_t){.d = d, .P = P, .t_call = t_call,
			 .t_rank = t_rank, .t_elem = t_elem};
	u->t.port = (cs_pport_t){.call = tp_call, .run = tp_run,
				 .impl = &u->t};
	for (int r = 0; r < P; r++) {
		u->rank[r] = (cs_prank_t){.world_rank = r, .P = P, .r = r,
					  .inst = 0};
		cs_pchk_init(&u->chk[r]);
	}
	u->x = (cs_pctx_t){.pat = pat, .variant = 0, .dtype = d, .seed = SEED,
			   .grid = &u->grid, .nlocal = P, .rank = u->rank,
			   .port = &u->t.port, .chk = u->chk};
	assert_int_equal(pat->run(&u->x), CS_OK);
}

/* Input tensor `tensor` of instance 0, as doubles (exact). */
static double *input(const run_t *u, int tensor, size_t n)
{
	size_t w = cs_dtype_size(u->x.dtype);
	void *raw = malloc(n * w);
	double *v = malloc(n * sizeof *v);
	assert_true(raw && v);
	cs_pat_fill(&u->x, 0, tensor, 0, raw, n);
	for (size_t j = 0; j < n; j++)
		v[j] = cs_pk_get(u->x.dtype, raw, j);
	free(raw);
	return v;
}

/* ---- the bound of one dot product -------------------------------------
 * The patterns' kernels (csref/pkern.h) form a length-k dot product of
 * float32 or bfloat16 inputs in float32, products and sums each rounded
 * (no fma), then round once to T. With Pi = sum |a_l b_l| and exact value
 * s, the float32 loop is within gamma_k(u32) Pi of s (the standard
 * recursive-summation bound, numerics.md section 4.2 with k products and
 * k-1 additions on the path), and the rounding to T adds u_T times the
 * magnitude, plus an underflow term eta = 2^-126 (above the gradual
 * underflow error of float32 and bfloat16). This test's own double
 * computation of s and Pi is within gamma_k(2^-53) Pi, added as well.
 * Integers: exact (the inputs are in [-3, 3]; no sum wraps). */
static double gamma_k(size_t k, double u)
{
	return (double)k * u / (1.0 - (double)k * u);
}

static double unit_roundoff(cs_dtype_t d)
{
	return d == CS_DTYPE_BFLOAT16 ? ldexp(1, -8) : ldexp(1, -24);
}

static double dot_bound(cs_dtype_t d, size_t k, double s, double pi)
{
	if (!cs_dtype_is_float(d))
		return 0;
	double e = gamma_k(k, ldexp(1, -24)) * pi;
	return e + unit_roundoff(d) * (fabs(s) + e) + ldexp(1, -126) +
	       2 * gamma_k(k, ldexp(1, -53)) * pi;
}

/* |got - want| <= bound, with a message naming the element. */
static void near(const char *what, size_t j, double got, double want,
		 double bound)
{
	if (fabs(got - want) <= bound)
		return;
	print_error("%s[%zu]: got %.9g, the test computes %.9g, bound %.3g\n",
		    what, j, got, want, bound);
	fail();
}

/* C[m x n] = A[m x k] B[k x n] in double, and Pi per element. */
static void dgemm(size_t m, size_t n, size_t k, const double *A,
		  const double *Bm, double *C, double *pi)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double s = 0, a = 0;
			for (size_t l = 0; l < k; l++) {
				s += A[i * k + l] * Bm[l * n + j];
				a += fabs(A[i * k + l] * Bm[l * n + j]);
			}
			C[i * n + j] = s;
			pi[i * n + j] = a;
		}
}

/* The first element the check of local rank r reported, and that the
 * failing check's reason starts with `what`. */
static size_t first_bad(const run_t *u, int r, const char *what)
{
	const cs_pcheck_t *k = &u->chk[r];
	size_t at = (size_t)-1;
	const char *p = strstr(k->reason, "the first at ");
	if (!k->failed || strncmp(k->reason, what, strlen(what)) != 0 || !p ||
	    sscanf(p, "the first at %zu", &at) != 1) {
		print_error("rank %d: expected a failure of \"%s\", got "
			    "failed=%d \"%s\"\n", r, what, k->failed,
			    k->reason);
		fail();
	}
	return at;
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_INT32};
#define NDT (sizeof dtypes / sizeof dtypes[0])

static void all_pass(const run_t *u)
{
	for (int r = 0; r < u->t.P; r++) {
		if (u->chk[r].failed)
			print_error("rank %d: %s\n%s", r, u->chk[r].reason,
				    u->chk[r].detail);
		assert_false(u->chk[r].failed);
		assert_true(u->chk[r].elems > 0);
	}
}

/* ---- tp_col (section 5.4): B = 4, H = 4, F = 2P; tensors 0 X, 1 W ---- */

enum { TC_B = 4, TC_H = 4, TC_FPER = 2 };

/* What every rank's allgather returns at P ranks, [P, B, F/P], against
 * X W computed here: block q is X W's columns [q F/P, (q+1) F/P). At
 * P = 1 the one block is the rank's whole forward. */
static void tp_col_check_y(cs_dtype_t d, int P)
{
	enum { FMAX = 2 * TC_FPER };
	size_t F = (size_t)TC_FPER * (size_t)P;
	double y[TC_B * FMAX], pi[TC_B * FMAX];
	run_t u;
	run_pat(&u, "tp_col", d, P, -1, 0, 0);
	all_pass(&u);
	double *X = input(&u, 0, TC_B * TC_H), *W = input(&u, 1, TC_H * F);
	dgemm(TC_B, F, TC_H, X, W, y, pi);
	for (int r = 0; r < P; r++) {
		const rec_t *g = &u.t.rec[0][r];
		assert_int_equal(g->coll, CS_COLL_ALLGATHER);
		assert_int_equal(g->nr, TC_B * F);
		for (size_t e = 0; e < g->nr; e++) {
			size_t q = e / (TC_B * TC_FPER),
			       i = e % (TC_B * TC_FPER) / TC_FPER,
			       k = i * F + q * TC_FPER + e % TC_FPER;
			near("gathered Y", k, cs_pk_get(d, g->recv, e), y[k],
			     dot_bound(d, TC_H, y[k], pi[k]));
		}
	}
	free(X);
	free(W);
	tport_free(&u.t);
}

static void test_tp_col_y(void **state)
{
	(void)state;
	for (size_t t = 0; t < NDT; t++) {
		tp_col_check_y(dtypes[t], 1);
		tp_col_check_y(dtypes[t], 2);
	}
}

/* P = 2: a change to the received element (q, i, j) alone is reported by
 * that rank at Y's element (i, q F/P + j), and by no other rank. */
static void test_tp_col_p2_where(void **state)
{
	(void)state;
	enum { P = 2, F = TC_FPER * P, N = P * TC_B * TC_FPER };
	for (size_t t = 0; t < NDT; t++)
		for (size_t e = 0; e < N; e++) {
			run_t u;
			int r = (int)(e % P);
			size_t q = e / (TC_B * TC_FPER),
			       i = e % (TC_B * TC_FPER) / TC_FPER,
			       j = e % TC_FPER;
			run_pat(&u, "tp_col", dtypes[t], P, 0, r, e);
			assert_int_equal(first_bad(&u, r, "Y (allgather"),
					 i * F + q * TC_FPER + j);
			assert_false(u.chk[1 - r].failed);
			tport_free(&u.t);
		}
}

/* P = 2: the reduced input gradient is C W^T. Each rank's partial is a
 * length-F/P product rounded to T (dot_bound over its own columns); this
 * test's port adds the P partials exactly in double and rounds once. */
static void test_tp_col_p2_dx(void **state)
{
	(void)state;
	enum { P = 2, F = TC_FPER * P };
	for (size_t t = 0; t < NDT; t++) {
		cs_dtype_t d = dtypes[t];
		run_t u;
		run_pat(&u, "tp_col", d, P, -1, 0, 0);
		all_pass(&u);
		double *C = input(&u, 2, TC_B * F), *W = input(&u, 1, TC_H * F);
		for (size_t i = 0; i < TC_B; i++)
			for (size_t h = 0; h < TC_H; h++) {
				double want = 0, e = 0;
				for (size_t q = 0; q < P; q++) {
					double s = 0, pi = 0;
					for (size_t j = q * TC_FPER;
					     j < (q + 1) * TC_FPER; j++) {
						double cw = C[i * F + j] *
							    W[h * F + j];
						s += cw;
						pi += fabs(cw);
					}
					want += s;
					e += dot_bound(d, TC_FPER, s, pi);
				}
				if (cs_dtype_is_float(d))
					e += unit_roundoff(d) *
						 (fabs(want) + e) +
					     ldexp(1, -126);
				for (int r = 0; r < P; r++)
					near("dX", i * TC_H + h,
					     cs_pk_get(d, u.t.rec[1][r].recv,
						       i * TC_H + h),
					     want, e);
			}
		free(C);
		free(W);
		tport_free(&u.t);
	}
}

/* ---- sp (section 5.6): S = 2P, B = 1, H = 4, F = 2P; tensors 0 X,
 * 1 W1, 2 W2, 3 C; calls 0 allgather X, 1 reducescatter Z, 2 allgather
 * dZ, 3 reducescatter dX ---- */

enum { SP_SPER = 2, SP_H = 4, SP_FPER = 2 };

/* The bound of Z = ReLU(X W1) W2 at one element, given the first layer's
 * exact values G (after ReLU) and bounds eG over its F entries and the
 * column h of W2 (stride ldw): ReLU is 1-Lipschitz, so the pattern's
 * rounded G is within eG of G; the second product then adds its own
 * float32 loop error over |G| + eG, and the rounding to T. */
static double mlp_bound(cs_dtype_t d, size_t F, const double *G,
			const double *eG, const double *w2, size_t ldw,
			double z)
{
	if (!cs_dtype_is_float(d))
		return 0;
	double a = 0, b = 0;
	for (size_t j = 0; j < F; j++) {
		a += eG[j] * fabs(w2[j * ldw]);
		b += (G[j] + eG[j]) * fabs(w2[j * ldw]);
	}
	double e = a + gamma_k(F, ldexp(1, -24)) * b;
	return e + unit_roundoff(d) * (fabs(z) + e) + ldexp(1, -126) +
	       2 * gamma_k(F, ldexp(1, -53)) * b;
}

/* Rank r's shard of Z after the reducescatter at P ranks against
 * ReLU(X W1) W2 computed here unsharded. Partial q is rank q's F/P
 * columns of G times its rows of W2, rounded to T (mlp_bound over that
 * block); this test's port adds the P partials exactly in double and
 * rounds once. At P = 1 the shard is the rank's whole forward. */
static void sp_check_z(cs_dtype_t d, int P)
{
	enum { R1 = SP_SPER, FMAX = 2 * SP_FPER, RMAX = 2 * R1 };
	size_t R = (size_t)R1 * (size_t)P, F = (size_t)SP_FPER * (size_t)P;
	double G[RMAX * FMAX], piG[RMAX * FMAX], eG[RMAX * FMAX];
	run_t u;
	run_pat(&u, "sp", d, P, -1, 0, 0);
	all_pass(&u);
	double *X = input(&u, 0, R * SP_H), *W1 = input(&u, 1, SP_H * F),
	       *W2 = input(&u, 2, F * SP_H);
	dgemm(R, F, SP_H, X, W1, G, piG);
	for (size_t k = 0; k < R * F; k++) {
		eG[k] = dot_bound(d, SP_H, G[k], piG[k]);
		G[k] = G[k] > 0 ? G[k] : 0;
	}
	for (int r = 0; r < P; r++) {
		const rec_t *z = &u.t.rec[1][r];
		assert_int_equal(z->coll, CS_COLL_REDUCESCATTER);
		assert_int_equal(z->nr, R1 * SP_H);
		for (size_t k = 0; k < z->nr; k++) {
			size_t i = (size_t)r * R1 + k / SP_H, h = k % SP_H;
			double want = 0, e = 0;
			for (size_t q = 0; q < (size_t)P; q++) {
				size_t lo = q * SP_FPER;
				double zq = 0;
				for (size_t j = lo; j < lo + SP_FPER; j++)
					zq += G[i * F + j] * W2[j * SP_H + h];
				want += zq;
				e += mlp_bound(d, SP_FPER, &G[i * F + lo],
					       &eG[i * F + lo],
					       &W2[lo * SP_H + h], SP_H, zq);
			}
			if (cs_dtype_is_float(d))
				e += unit_roundoff(d) * (fabs(want) + e) +
				     ldexp(1, -126);
			near("Z", i * SP_H + h, cs_pk_get(d, z->recv, k), want,
			     e);
		}
	}
	free(X);
	free(W1);
	free(W2);
	tport_free(&u.t);
}

/* P = 1: the rank's forward is the plain block ReLU(X W1) W2; P = 2: each
 * rank's shard of Z is its own rows of it. */
static void test_sp_z(void **state)
{
	(void)state;
	for (size_t t = 0; t < NDT; t++) {
		sp_check_z(dtypes[t], 1);
		sp_check_z(dtypes[t], 2);
	}
}

/* P = 2: a change to one received element of any of the four calls is
 * reported at that element by that rank. */
static void test_sp_p2_rows(void **state)
{
	(void)state;
	enum { P = 2, R = SP_SPER * P, N = R * SP_H, SH = N / P };
	static const char *const what[4] = {"X (forward", "Z rows",
					    "dZ (backward", "dX rows"};
	for (size_t t = 0; t < NDT; t++) {
		cs_dtype_t d = dtypes[t];
		run_t u;
		run_pat(&u, "sp", d, P, -1, 0, 0);
		all_pass(&u);
		tport_free(&u.t);
		for (int k = 0; k < 4; k++)
			for (size_t e = 0; e < (k % 2 ? SH : N); e++) {
				int r = (int)(e % P);
				run_pat(&u, "sp", d, P, k, r, e);
				assert_int_equal(first_bad(&u, r, what[k]), e);
				/* A changed X or dZ also changes the partial
				 * the rank sends on: the other rank's shard
				 * of the next reduction may show it, nothing
				 * else may. */
				const cs_pcheck_t *o = &u.chk[1 - r];
				const char *next = what[k + 1 < 4 ? k + 1 : 0];
				assert_true(!o->failed ||
					    (k % 2 == 0 &&
					     strncmp(o->reason, next,
						     strlen(next)) == 0));
				tport_free(&u.t);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tp_col_y),
	    cmocka_unit_test(test_tp_col_p2_where),
	    cmocka_unit_test(test_tp_col_p2_dx),
	    cmocka_unit_test(test_sp_z),
	    cmocka_unit_test(test_sp_p2_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
