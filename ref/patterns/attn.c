/*
 * attn.c - causal softmax attention, forward, backward and the ring's
 * blockwise merge (attn.h), one fixed loop per output element in the
 * accumulation type.
 *
 * Every arithmetic step goes through rd() (rounding to the accumulation
 * type) and the exp/log wrappers below, so the order and the roundings
 * are those the code spells out; the file is compiled without floating
 * contraction (ref/CMakeLists.txt).
 */
#include <math.h>
#include <string.h>
#include "attn.h"
#include "csref/pkern.h"

/* 1: the dtype accumulates in float32; 0: in float64; -1: refused. */
static int acc_f32(cs_dtype_t d)
{
	if (!cs_dtype_is_float(d))
		return -1;
	return cs_dtype_size(d) == 8 ? 0 : 1;
}

/* x rounded to the accumulation type (x a sum, product, ... of values of
 * that type, computed in double: for float32 this is float's result). */
static inline double rd(int f, double x)
{
	return f ? (double)(float)x : x;
}

static inline double ex(int f, double x)
{
	return f ? (double)expf((float)x) : exp(x);
}

static inline double lg(int f, double x)
{
	return f ? (double)logf((float)x) : log(x);
}

static inline double lg1p(int f, double x)
{
	return f ? (double)log1pf((float)x) : log1p(x);
}

/* sigma = 1/sqrt(D) in the accumulation type. */
static double scale(int f, size_t D)
{
	return rd(f, 1.0 / sqrt((double)D));
}

static cs_status_t args_ok(cs_dtype_t d, size_t D)
{
	if (acc_f32(d) < 0)
		return cs_error(CS_ERR_INVALID, "attention: dtype %s is not a "
				"float", cs_dtype_name(d));
	if (D < 1 || D > CS_ATTN_MAX_D)
		return cs_error(CS_ERR_INVALID, "attention: head dimension "
				"%zu, not 1..%d", D, CS_ATTN_MAX_D);
	return CS_OK;
}

/* sum_l x[a + l] y[b + l], l ascending, in acc (a dot product of two
 * D-element rows of dtype d). */
static double dot(cs_dtype_t d, int f, const void *X, size_t a,
		  const void *Y, size_t b, size_t D)
{
	double s = 0;
	for (size_t l = 0; l < D; l++)
		s = rd(f, s + rd(f, cs_pk_get(d, X, a + l) *
					cs_pk_get(d, Y, b + l)));
	return s;
}

/* ---- forward -------------------------------------------------------- */

/* Row (qi: offset of its D elements in Q) against keys at offsets
 * kbase + j * stride, j < nvis: o[0..D) and *lse as cs_attn_block says. */
static void block_row(cs_dtype_t d, int f, double sig, const void *Q,
		      size_t qi, const void *K, const void *V, size_t kbase,
		      size_t stride, size_t nvis, size_t D, double *o,
		      double *lse)
{
	double m = -INFINITY, z = 0, acc[CS_ATTN_MAX_D];
	for (size_t j = 0; j < nvis; j++) {
		double s = rd(f, sig * dot(d, f, Q, qi, K, kbase + j * stride,
					   D));
		m = s > m ? s : m;
	}
	for (size_t l = 0; l < D; l++)
		acc[l] = 0;
	for (size_t j = 0; j < nvis; j++) {
		size_t kj = kbase + j * stride;
		double s = rd(f, sig * dot(d, f, Q, qi, K, kj, D));
		double p = ex(f, rd(f, s - m));
		z = rd(f, z + p);
		for (size_t l = 0; l < D; l++)
			acc[l] = rd(f, acc[l] +
					   rd(f, p * cs_pk_get(d, V, kj + l)));
	}
	for (size_t l = 0; l < D; l++)
		o[l] = rd(f, acc[l] / z);
	*lse = rd(f, m + lg(f, z));
}

cs_status_t cs_attn_block(cs_dtype_t d, size_t nq, size_t nk, size_t A,
			  size_t D, const void *Q, const void *K,
			  const void *V, int diag, double *o, double *lse)
{
	cs_status_t st = args_ok(d, D);
	if (st != CS_OK)
		return st;
	if (diag && nq != nk)
		return cs_error(CS_ERR_INVALID, "attention: a diagonal block "
				"of %zu queries and %zu keys", nq, nk);
	int f = acc_f32(d);
	double sig = scale(f, D);
	for (size_t i = 0; i < nq; i++)
		for (size_t h = 0; h < A; h++) {
			size_t qi = (i * A + h) * D;
			block_row(d, f, sig, Q, qi, K, V, h * D, A * D,
				  diag ? i + 1 : nk, D, o + qi,
				  lse + i * A + h);
		}
	return CS_OK;
}

void cs_attn_merge(cs_dtype_t d, size_t n, size_t D, double *o, double *l,
		   const double *ob, const double *lb)
{
	int f = acc_f32(d) == 0 ? 0 : 1;
	for (size_t k = 0; k < n; k++) {
		double a = l[k], b = lb[k];
		double diff = rd(f, a - b);
		double lmax = a > b ? a : b;
		double ln = rd(f, lmax + lg1p(f, ex(f, -fabs(diff))));
		double ea = ex(f, rd(f, a - ln)), eb = ex(f, rd(f, b - ln));
		for (size_t j = 0; j < D; j++)
			o[k * D + j] = rd(f, rd(f, ea * o[k * D + j]) +
					      rd(f, eb * ob[k * D + j]));
		l[k] = ln;
	}
}

void cs_attn_store(cs_dtype_t d, size_t n, const double *acc, void *out)
{
	for (size_t i = 0; i < n; i++)
		cs_pk_set(d, out, i, acc[i]);
}

cs_status_t cs_attn_fwd(cs_dtype_t d, size_t S, size_t A, size_t D,
			const void *Q, const void *K, const void *V, void *O,
			double *lse)
{
	cs_status_t st = args_ok(d, D);
	if (st != CS_OK)
		return st;
	int f = acc_f32(d);
	double sig = scale(f, D), o[CS_ATTN_MAX_D];
	for (size_t i = 0; i < S; i++)
		for (size_t h = 0; h < A; h++) {
			size_t qi = (i * A + h) * D;
			block_row(d, f, sig, Q, qi, K, V, h * D, A * D, i + 1,
				  D, o, lse + i * A + h);
			cs_attn_store(d, D, o, (char *)O + qi *
							   cs_dtype_size(d));
		}
	return CS_OK;
}

/* ---- backward ------------------------------------------------------- */

/* What the backward needs of one (query row, key row) pair of a head. */
typedef struct bwd_ctx {
	cs_dtype_t d;
	int f;
	double sig;
	size_t A, D;
	const void *Q, *K, *V, *O, *dO;
	const double *lse;
} bwd_ctx_t;

/* delta_i = sum_l dO_il O_il for the row at offset qi. */
static double row_delta(const bwd_ctx_t *c, size_t qi)
{
	return dot(c->d, c->f, c->dO, qi, c->O, qi, c->D);
}

/* p_ij and ds_ij of query row i, key row j, head h (delta = delta_i). */
static void pair(const bwd_ctx_t *c, size_t i, size_t j, size_t h,
		 double delta, double *p, double *ds)
{
	int f = c->f;
	size_t qi = (i * c->A + h) * c->D, kj = (j * c->A + h) * c->D;
	double s = rd(f, c->sig * dot(c->d, f, c->Q, qi, c->K, kj, c->D));
	*p = ex(f, rd(f, s - c->lse[i * c->A + h]));
	double dp = dot(c->d, f, c->dO, qi, c->V, kj, c->D);
	*ds = rd(f, *p * rd(f, dp - delta));
}

/* dQ rows of head h: sigma sum_{j <= i} ds_ij k_j. */
static void bwd_dq(const bwd_ctx_t *c, size_t S, size_t h, void *dQ)
{
	int f = c->f;
	double acc[CS_ATTN_MAX_D], p, ds;
	for (size_t i = 0; i < S; i++) {
		size_t qi = (i * c->A + h) * c->D;
		double delta = row_delta(c, qi);
		for (size_t l = 0; l < c->D; l++)
			acc[l] = 0;
		for (size_t j = 0; j <= i; j++) {
			size_t kj = (j * c->A + h) * c->D;
			pair(c, i, j, h, delta, &p, &ds);
			for (size_t l = 0; l < c->D; l++)
				acc[l] = rd(f, acc[l] + rd(f, ds *
					cs_pk_get(c->d, c->K, kj + l)));
		}
		for (size_t l = 0; l < c->D; l++)
			cs_pk_set(c->d, dQ, qi + l, rd(f, c->sig * acc[l]));
	}
}

/* dK and dV rows of head h: sums over the queries i >= j. */
static void bwd_dkv(const bwd_ctx_t *c, size_t S, size_t h, void *dK,
		    void *dV)
{
	int f = c->f;
	double ak[CS_ATTN_MAX_D], av[CS_ATTN_MAX_D], p, ds;
	for (size_t j = 0; j < S; j++) {
		size_t kj = (j * c->A + h) * c->D;
		for (size_t l = 0; l < c->D; l++)
			ak[l] = av[l] = 0;
		for (size_t i = j; i < S; i++) {
			size_t qi = (i * c->A + h) * c->D;
			pair(c, i, j, h, row_delta(c, qi), &p, &ds);
			for (size_t l = 0; l < c->D; l++) {
				ak[l] = rd(f, ak[l] + rd(f, ds *
					cs_pk_get(c->d, c->Q, qi + l)));
				av[l] = rd(f, av[l] + rd(f, p *
					cs_pk_get(c->d, c->dO, qi + l)));
			}
		}
		for (size_t l = 0; l < c->D; l++) {
			cs_pk_set(c->d, dK, kj + l, rd(f, c->sig * ak[l]));
			cs_pk_set(c->d, dV, kj + l, av[l]);
		}
	}
}

cs_status_t cs_attn_bwd(cs_dtype_t d, size_t S, size_t A, size_t D,
			const void *Q, const void *K, const void *V,
			const void *O, const void *dO, const double *lse,
			void *dQ, void *dK, void *dV)
{
	cs_status_t st = args_ok(d, D);
	if (st != CS_OK)
		return st;
	int f = acc_f32(d);
	bwd_ctx_t c = {.d = d, .f = f, .sig = scale(f, D), .A = A, .D = D,
		       .Q = Q, .K = K, .V = V, .O = O, .dO = dO, .lse = lse};
	for (size_t h = 0; h < A; h++) {
		bwd_dq(&c, S, h, dQ);
		bwd_dkv(&c, S, h, dK, dV);
	}
	return CS_OK;
}

/* ---- ring ----------------------------------------------------------- */

size_t cs_attn_ring_doubles(size_t c, size_t A, size_t D)
{
	return 3 * c * A * D + 3 * c * A;
}

cs_status_t cs_attn_ring_init(cs_attn_ring_t *st, cs_dtype_t d, size_t c,
			      size_t A, size_t D, const int qchunk[2],
			      double *mem)
{
	cs_status_t s = args_ok(d, D);
	if (s != CS_OK)
		return s;
	st->d = d;
	st->c = c;
	st->A = A;
	st->D = D;
	st->qchunk[0] = qchunk[0];
	st->qchunk[1] = qchunk[1];
	st->o = mem;
	st->l = st->o + 2 * c * A * D;
	st->ob = st->l + 2 * c * A;
	st->lb = st->ob + c * A * D;
	for (size_t k = 0; k < 2 * c * A * D; k++)
		st->o[k] = 0;
	for (size_t k = 0; k < 2 * c * A; k++)
		st->l[k] = -INFINITY;
	return CS_OK;
}

void cs_attn_ring_step(cs_attn_ring_t *st, const void *Q,
		       const int kchunk[2], const void *KV)
{
	size_t w = cs_dtype_size(st->d), rowel = st->A * st->D;
	size_t chunk = st->c * rowel; /* elements of one chunk */
	const char *V = (const char *)KV + 2 * chunk * w;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			if (kchunk[b] > st->qchunk[a])
				continue;
			(void)cs_attn_block(st->d, st->c, st->c, st->A, st->D,
					    (const char *)Q + a * chunk * w,
					    (const char *)KV + b * chunk * w,
					    V + b * chunk * w,
					    kchunk[b] == st->qchunk[a], st->ob,
					    st->lb);
			cs_attn_merge(st->d, st->c * st->A, st->D,
				      st->o + a * chunk, st->l + a * st->c *
							     st->A,
				      st->ob, st->lb);
		}
}

void cs_attn_ring_finish(const cs_attn_ring_t *st, void *O)
{
	cs_attn_store(st->d, 2 * st->c * st->A * st->D, st->o, O);
}
