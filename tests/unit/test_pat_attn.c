/*
 * test_pat_attn.c - the attention of the Ulysses and ring patterns
 * (ref/patterns/attn.h) against attention computed here, independently,
 * in double:
 *
 *   - the ring's blockwise log-sum-exp merge, run rank by rank as the ring
 *     pattern runs it (every rank's chunks, every step's source), equals
 *     plain causal softmax attention within the bound of spec section 5.8
 *     (attn.h), for float32, bfloat16 and float64, group sizes 1..8;
 *   - the one-block forward of Ulysses likewise (nb = 1);
 *   - the backward equals central finite differences of the forward in
 *     float64, within a stated loose bound;
 *   - the first merge into the empty state copies the block exactly, and
 *     the functions refuse what they do not define.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "attn.h"
#include "csref/patterns.h"
#include "csref/pkern.h"

/* A shape and its tensors: [S, A, D] of dtype d, plus double copies. */
typedef struct prob {
	cs_dtype_t d;
	size_t S, A, D;
	void *q, *k, *v;
	double *qd, *kd, *vd;
} prob_t;

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* n values uniform in [-scale, scale), rounded to d, into buf and dbl. */
static void gen(uint64_t seed, cs_dtype_t d, double scale, size_t n,
		void *buf, double *dbl)
{
	for (size_t i = 0; i < n; i++) {
		/* 53 random bits as a fraction in [0, 1) */
		double x = ldexp((double)(mix(seed * 1000003u + i) >> 11), -53);
		cs_pk_set(d, buf, i, (2 * x - 1) * scale);
		dbl[i] = cs_pk_get(d, buf, i);
	}
}

static void prob_make(prob_t *p, cs_dtype_t d, size_t S, size_t A,
		      size_t D, uint64_t seed, double scale)
{
	size_t n = S * A * D, w = cs_dtype_size(d);
	p->d = d;
	p->S = S;
	p->A = A;
	p->D = D;
	p->q = malloc(n * w);
	p->k = malloc(n * w);
	p->v = malloc(n * w);
	p->qd = malloc(n * sizeof(double));
	p->kd = malloc(n * sizeof(double));
	p->vd = malloc(n * sizeof(double));
	assert_non_null(p->q && p->k && p->v && p->qd && p->kd && p->vd);
	gen(seed, d, scale, n, p->q, p->qd);
	gen(seed + 1, d, 1.7, n, p->k, p->kd);
	gen(seed + 2, d, 1.7, n, p->v, p->vd);
}

static void prob_free(prob_t *p)
{
	free(p->q);
	free(p->k);
	free(p->v);
	free(p->qd);
	free(p->kd);
	free(p->vd);
}

/* What plain causal attention gives for row i, head h, element l, in
 * double, and the magnitudes the bound needs. */
typedef struct ref {
	double o;       /* sum_j pi_j v_jl */
	double piv;     /* sum_j pi_j |v_jl| */
	double vmax;    /* max_j |v_jl| */
	double qk;      /* sigma max_j sum_l |q_l k_jl| */
} ref_t;

static ref_t ref_at(const prob_t *p, size_t i, size_t h, size_t l)
{
	size_t A = p->A, D = p->D;
	double sig = 1.0 / sqrt((double)D), m = -INFINITY, z = 0;
	ref_t r = {0, 0, 0, 0};
	double *s = malloc((i + 1) * sizeof *s);
	assert_non_null(s);
	for (size_t j = 0; j <= i; j++) {
		double dot = 0, mag = 0;
		for (size_t t = 0; t < D; t++) {
			double a = p->qd[(i * A + h) * D + t];
			double b = p->kd[(j * A + h) * D + t];
			dot += a * b;
			mag += fabs(a * b);
		}
		s[j] = sig * dot;
		m = fmax(m, s[j]);
		r.qk = fmax(r.qk, sig * mag);
	}
	for (size_t j = 0; j <= i; j++)
		z += exp(s[j] - m);
	for (size_t j = 0; j <= i; j++) {
		double pi = exp(s[j] - m) / z, v = p->vd[(j * A + h) * D + l];
		r.o += pi * v;
		r.piv += pi * fabs(v);
		r.vmax = fmax(r.vmax, fabs(v));
	}
	free(s);
	return r;
}

static double gam(double k, double u)
{
	return k * u / (1 - k * u);
}

/*
 * Omega of attn.h (spec 5.8) for unit roundoff u (libm within 2 ulp:
 * ue = 4u), head dimension D, N keys in nb blocks, the row's qk (its
 * score magnitude before rounding).
 */
static double omega(double u, size_t D, size_t N, size_t nb, double qk)
{
	double ue = 4 * u, lnN = log((double)N);
	double E = gam((double)D + 2, u) * qk;
	double M = qk * (1 + 2 * gam((double)D + 2, u));
	double eta_b = ue * (lnN + 1) + u * (M + lnN + 1);
	double phi_b = 2 * u * M + 2 * ue + 2 * u * ((double)N + 1);
	double phi_m = u * (2 * M + 2 * lnN + 1) + 2 * ue + 4 * u;
	double eta_m = u * (3 * M + 3 * lnN + 2) + 3 * ue;
	return 2 * E + 2 * eta_b + 2 * phi_b +
	       (double)(nb - 1) * (phi_m + eta_m);
}

/* The bound on |got - exact| of attn.h, plus the double reference's own
 * error (the same bound for one block in float64, no final rounding). */
static double bound(cs_dtype_t d, const ref_t *r, size_t D, size_t N,
		    size_t nb)
{
	double u = cs_dtype_size(d) == 8 ? ldexp(1, -53) : ldexp(1, -24);
	double ud = ldexp(1, -cs_dtype_prec(d));
	double om = omega(u, D, N, nb, r->qk);
	double om_ref = omega(ldexp(1, -53), D, N, 1, r->qk);
	return expm1(om) * r->piv + ud * exp(om) * r->vmax +
	       expm1(om_ref) * r->piv * (1 + 1e-9);
}

/* Compare got [rows at positions pos[k]] with the reference; returns the
 * largest error / bound seen. */
static double compare_row(const prob_t *p, const void *got, size_t k,
			  size_t pos, size_t nb)
{
	double worst = 0;
	for (size_t h = 0; h < p->A; h++)
		for (size_t l = 0; l < p->D; l++) {
			ref_t r = ref_at(p, pos, h, l);
			size_t at = (k * p->A + h) * p->D + l;
			double g = cs_pk_get(p->d, got, at);
			double b = bound(p->d, &r, p->D, pos + 1, nb);
			double e = fabs(g - r.o);
			if (!(e <= b))
				print_error("%s pos %zu head %zu l %zu: got "
					    "%.9g, exact %.9g, error %.3g > "
					    "bound %.3g\n", cs_dtype_name(p->d),
					    pos, h, l, g, r.o, e, b);
			assert_true(e <= b);
			worst = fmax(worst, e / b);
		}
	return worst;
}

/* Rows [a c, (a+1) c) of full [S, A, D] (dtype size w) into dst. */
static void copy_chunk(size_t w, size_t c, size_t A, size_t D,
		       const void *full, size_t a, void *dst)
{
	memcpy(dst, (const char *)full + a * c * A * D * w, c * A * D * w);
}

/* Rank r of a ring of P over p (chunks of c): run its P steps as the
 * ring pattern does, holding source (r - i) mod P's chunks at step i, and
 * compare its output rows with plain causal attention. Returns the worst
 * error / bound. */
static double ring_rank(const prob_t *p, size_t c, int P, int r)
{
	size_t w = cs_dtype_size(p->d), ch = c * p->A * p->D;
	int qch[2] = {r, 2 * P - 1 - r};
	char *Q = malloc(2 * ch * w), *KV = malloc(4 * ch * w);
	char *O = malloc(2 * ch * w);
	double *mem = malloc(cs_attn_ring_doubles(c, p->A, p->D) *
			     sizeof(double));
	assert_non_null(Q && KV && O && mem);
	cs_attn_ring_t st;
	for (int k = 0; k < 2; k++)
		copy_chunk(w, c, p->A, p->D, p->q, (size_t)qch[k],
			   Q + (size_t)k * ch * w);
	assert_int_equal(cs_attn_ring_init(&st, p->d, c, p->A, p->D, qch,
					   mem), CS_OK);
	for (int i = 0; i < P; i++) {
		int src = ((r - i) % P + P) % P;
		int kch[2] = {src, 2 * P - 1 - src};
		for (int k = 0; k < 2; k++) {
			copy_chunk(w, c, p->A, p->D, p->k, (size_t)kch[k],
				   KV + (size_t)k * ch * w);
			copy_chunk(w, c, p->A, p->D, p->v, (size_t)kch[k],
				   KV + (size_t)(2 + k) * ch * w);
		}
		cs_attn_ring_step(&st, Q, kch, KV);
	}
	cs_attn_ring_finish(&st, O);
	double worst = 0;
	for (size_t k = 0; k < 2 * c; k++) {
		size_t a = (size_t)qch[k / c], pos = a * c + k % c;
		worst = fmax(worst, compare_row(p, O, k, pos, a + 1));
	}
	free(Q);
	free(KV);
	free(O);
	free(mem);
	return worst;
}

static const cs_dtype_t float_types[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
					 CS_DTYPE_FLOAT64};

/* The ring's merge over every rank of rings of 1..8, two chunk shapes,
 * softmaxes flat (|q| <= 1) and peaked (|q| <= 6). */
static void test_ring_merge_is_causal_attention(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{2, 2, 4}, {3, 1, 3}}; /* c A D */
	for (size_t t = 0; t < 3; t++) {
		double worst = 0;
		for (size_t sh = 0; sh < 2; sh++)
			for (int P = 1; P <= 8; P++)
				for (int peak = 0; peak < 2; peak++) {
					size_t c = shapes[sh][0];
					prob_t p;
					prob_make(&p, float_types[t],
						  2 * (size_t)P * c,
						  shapes[sh][1], shapes[sh][2],
						  (uint64_t)(100 * P + 10 * sh +
							     peak),
						  peak ? 6.0 : 1.0);
					for (int r = 0; r < P; r++)
						worst = fmax(worst,
							     ring_rank(&p, c,
								       P, r));
					prob_free(&p);
				}
		print_message("ring merge, %s: largest error / bound %.3g\n",
			      cs_dtype_name(float_types[t]), worst);
	}
}

/* Ulysses' forward: one diagonal block over the whole sequence. */
static void test_fwd_is_causal_attention(void **state)
{
	(void)state;
	for (size_t t = 0; t < 3; t++)
		for (int peak = 0; peak < 2; peak++) {
			prob_t p;
			size_t S = 12, A = 3, D = 2;
			size_t w = cs_dtype_size(float_types[t]);
			prob_make(&p, float_types[t], S, A, D,
				  (uint64_t)(7 + peak), peak ? 6.0 : 1.0);
			void *O = malloc(S * A * D * w);
			double *lse = malloc(S * A * sizeof *lse);
			assert_non_null(O && lse);
			assert_int_equal(cs_attn_fwd(p.d, S, A, D, p.q, p.k,
						     p.v, O, lse),
					 CS_OK);
			for (size_t i = 0; i < S; i++)
				(void)compare_row(&p, O, i, i, 1);
			free(O);
			free(lse);
			prob_free(&p);
		}
}

/* L = sum C . O, O the float64 forward of p. */
static double loss(const prob_t *p, const double *C, double *O, double *lse)
{
	size_t n = p->S * p->A * p->D;
	double L = 0;
	assert_int_equal(cs_attn_fwd(p->d, p->S, p->A, p->D, p->q, p->k, p->v,
				     O, lse),
			 CS_OK);
	for (size_t e = 0; e < n; e++)
		L += C[e] * O[e];
	return L;
}

/*
 * The backward against central differences of the float64 forward with
 * step h = 1e-5: truncation h^2 |L'''| / 6 and cancellation about
 * 1e-16 |L| / h are both near 1e-10 for these O(1) inputs, so the stated
 * bound |fd - g| <= 1e-6 (1 + |g|) is loose by three orders and still
 * far below a wrong term of the gradient (O(0.01) or more).
 */
static void test_bwd_is_the_gradient(void **state)
{
	(void)state;
	const size_t S = 5, A = 2, D = 3, n = S * A * D;
	const double h = 1e-5;
	prob_t p;
	prob_make(&p, CS_DTYPE_FLOAT64, S, A, D, 42, 1.5);
	double *C = malloc(n * sizeof *C), *Cd = malloc(n * sizeof *Cd);
	double *O = malloc(n * sizeof *O), *lse = malloc(S * A * sizeof *lse);
	double *g[3], *x[3] = {p.q, p.k, p.v};
	for (int t = 0; t < 3; t++)
		g[t] = malloc(n * sizeof(double));
	assert_non_null(C && Cd && O && lse && g[0] && g[1] && g[2]);
	gen(99, CS_DTYPE_FLOAT64, 1.0, n, C, Cd);
	(void)loss(&p, C, O, lse);
	assert_int_equal(cs_attn_bwd(p.d, S, A, D, p.q, p.k, p.v, O, C, lse,
				     g[0], g[1], g[2]),
			 CS_OK);
	double *tmp = malloc(n * sizeof *tmp);
	assert_non_null(tmp);
	for (int t = 0; t < 3; t++)
		for (size_t e = 0; e < n; e++) {
			double keep = x[t][e];
			x[t][e] = keep + h;
			double lp = loss(&p, C, tmp, lse);
			x[t][e] = keep - h;
			double lm = loss(&p, C, tmp, lse);
			x[t][e] = keep;
			double fd = (lp - lm) / (2 * h);
			if (!(fabs(fd - g[t][e]) <= 1e-6 * (1 + fabs(g[t][e]))))
				print_error("d%c[%zu]: backward %.12g, finite "
					    "difference %.12g\n", "QKV"[t], e,
					    g[t][e], fd);
			assert_true(fabs(fd - g[t][e]) <=
				    1e-6 * (1 + fabs(g[t][e])));
		}
	free(tmp);
	for (int t = 0; t < 3; t++)
		free(g[t]);
	free(C);
	free(Cd);
	free(O);
	free(lse);
	prob_free(&p);
}

/* Merging a block into the empty state (o = 0, l = -inf) copies it bit
 * for bit; a second merge of the same block keeps o and adds ln 2. */
static void test_first_merge_is_exact(void **state)
{
	(void)state;
	for (size_t t = 0; t < 3; t++) {
		double o[4] = {0, 0, 0, 0}, l[2] = {-INFINITY, -INFINITY};
		double ob[4], lb[2] = {0.3125, -2.75};
		for (int k = 0; k < 4; k++)
			ob[k] = cs_pk_round(CS_DTYPE_BFLOAT16, 0.37 * k - 0.5);
		cs_attn_merge(float_types[t], 2, 2, o, l, ob, lb);
		assert_memory_equal(o, ob, sizeof o);
		assert_memory_equal(l, lb, sizeof l);
		cs_attn_merge(float_types[t], 2, 2, o, l, ob, lb);
		for (int k = 0; k < 2; k++)
			assert_true(fabs(l[k] - lb[k] - log(2.0)) < 1e-6);
		for (int k = 0; k < 4; k++)
			assert_true(fabs(o[k] - ob[k]) <= 1e-6 * fabs(ob[k]));
	}
}

static void test_refusals(void **state)
{
	(void)state;
	int32_t buf[8] = {0};
	double o[8], l[8];
	assert_int_equal(cs_attn_block(CS_DTYPE_INT32, 1, 1, 1, 2, buf, buf,
				       buf, 1, o, l),
			 CS_ERR_INVALID);
	assert_int_equal(cs_attn_block(CS_DTYPE_FLOAT32, 1, 1, 1,
				       CS_ATTN_MAX_D + 1, buf, buf, buf, 1, o,
				       l),
			 CS_ERR_INVALID);
	assert_int_equal(cs_attn_block(CS_DTYPE_FLOAT32, 2, 1, 1, 2, buf, buf,
				       buf, 1, o, l),
			 CS_ERR_INVALID);
	assert_int_equal(cs_attn_fwd(CS_DTYPE_INT32, 1, 1, 2, buf, buf, buf,
				     buf, l),
			 CS_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring_merge_is_causal_attention),
	    cmocka_unit_test(test_fwd_is_causal_attention),
	    cmocka_unit_test(test_bwd_is_the_gradient),
	    cmocka_unit_test(test_first_merge_is_exact),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
