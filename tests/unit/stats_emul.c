/*
 * stats_emul.c - emulated reduction implementations (see stats_emul.h).
 *
 * Narrow formats (float16, bfloat16, float8) are rounded exactly here: a
 * step forms its exact result as hi + lo in double (TwoSum, fma), and
 * emul_round rounds that pair to the format's grid. float32 and float64
 * steps are native C arithmetic, under fesetround(FE_TOWARDZERO) for the
 * truncating variants; this file is compiled with -frounding-math.
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats_emul.h"
#include "csref/gen.h"

#define EMUL_MAXP 1024

/* Field widths of a float dtype: exponent, stored mantissa, and fn = 1 for
 * float8_e4m3 (no infinity, NaN only at all ones). */
struct efmt {
	int eb, mb, fn;
};

static struct efmt fmt_of(cs_dtype_t d)
{
	switch (d) {
	case CS_DTYPE_FLOAT16: return (struct efmt){5, 10, 0};
	case CS_DTYPE_BFLOAT16: return (struct efmt){8, 7, 0};
	case CS_DTYPE_FLOAT32: return (struct efmt){8, 23, 0};
	case CS_DTYPE_FLOAT8_E4M3: return (struct efmt){4, 3, 1};
	case CS_DTYPE_FLOAT8_E5M2: return (struct efmt){5, 2, 0};
	case CS_DTYPE_INT8:
	case CS_DTYPE_UINT8:
	case CS_DTYPE_INT32:
	case CS_DTYPE_UINT32:
	case CS_DTYPE_INT64:
	case CS_DTYPE_UINT64:
	case CS_DTYPE_FLOAT64:
	case CS_NUM_DTYPES: /* not a dtype */
	default: return (struct efmt){11, 52, 0};
	}
}

static int bias_of(struct efmt f) { return (1 << (f.eb - 1)) - 1; }

/* Largest finite value: all-ones exponent minus one and all-ones mantissa,
 * or for fn the all-ones exponent with mantissa all-ones minus one. */
static double max_of(struct efmt f)
{
	int top = (1 << f.eb) - 2 - bias_of(f) + f.fn;
	double m = 2.0 - ldexp(1.0, -f.mb) * (f.fn ? 2 : 1);

	return ldexp(m, top);
}

double emul_decode(cs_dtype_t d, uint64_t b)
{
	struct efmt f = fmt_of(d);
	uint64_t emask = ((uint64_t)1 << f.eb) - 1, mmask = ((uint64_t)1 << f.mb) - 1;
	uint64_t e = (b >> f.mb) & emask, m = b & mmask;
	int neg = (int)((b >> (f.eb + f.mb)) & 1);
	double v;

	if (d == CS_DTYPE_FLOAT64) {
		memcpy(&v, &b, 8);
		return v;
	}
	if (d == CS_DTYPE_FLOAT32) {
		uint32_t w = (uint32_t)b;
		float x;
		memcpy(&x, &w, 4);
		return x;
	}
	if (e == emask && (!f.fn || m == mmask))
		v = (m && !f.fn) || f.fn ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)m, 1 - bias_of(f) - f.mb);
	else
		v = ldexp((double)(m | (mmask + 1)), (int)e - bias_of(f) - f.mb);
	return neg ? -v : v;
}

uint64_t emul_encode(cs_dtype_t d, double v)
{
	struct efmt f = fmt_of(d);
	uint64_t s = signbit(v) ? (uint64_t)1 << (f.eb + f.mb) : 0, b;
	uint64_t emask = ((uint64_t)1 << f.eb) - 1;
	double a = fabs(v);
	int e2, E, emin = 1 - bias_of(f);

	if (d == CS_DTYPE_FLOAT64) {
		memcpy(&b, &v, 8);
		return b;
	}
	if (d == CS_DTYPE_FLOAT32) {
		float x = (float)v;
		uint32_t w;
		memcpy(&w, &x, 4);
		return w;
	}
	if (isnan(v) || (isinf(v) && f.fn))
		return s | (emask << f.mb) | (((uint64_t)1 << f.mb) - 1);
	if (isinf(v))
		return s | (emask << f.mb);
	if (a == 0)
		return s;
	(void)frexp(a, &e2);
	E = e2 - 1;
	if (E < emin)
		return s | (uint64_t)ldexp(a, f.mb - emin);
	b = (uint64_t)ldexp(a, f.mb - E) - ((uint64_t)1 << f.mb);
	return s | ((uint64_t)(E + bias_of(f)) << f.mb) | b;
}

/* Round the magnitude a > 0 (with the sign of its remainder lo, relative to
 * a) to integer multiples of the quantum q = 2^qe. */
static double round_mag(double a, double lo, int qe, int rz, int below_pow2)
{
	double t = ldexp(a, -qe), fl = floor(t), fr = t - fl;

	if (rz) {
		if (fr > 0 || lo >= 0)
			return ldexp(fl, qe);
		/* on the grid, slightly below: the next number down, whose
		 * spacing halves below a power of two */
		return a - ldexp(1.0, qe - below_pow2);
	}
	if (fr > 0.5 || (fr == 0.5 && (lo > 0 || (lo == 0 && fmod(fl, 2) != 0))))
		fl += 1;
	return ldexp(fl, qe);
}

/* emul_round with `lost` fewer mantissa bits than the format has. */
static double round_lost(cs_dtype_t d, double hi, double lo, int rz,
			 int lost)
{
	struct efmt f = fmt_of(d);
	int e2, E, emin = 1 - bias_of(f), pow2;
	double a = fabs(hi), lm = hi < 0 ? -lo : lo, r, big = max_of(f);

	if (isnan(hi))
		return hi;
	if (isinf(hi))
		return rz ? copysign(big, hi) : (f.fn ? NAN : hi);
	if (a == 0)
		return hi;
	(void)frexp(a, &e2);
	E = e2 - 1 < emin ? emin : e2 - 1;
	pow2 = a == ldexp(1.0, E) && E > emin;
	r = round_mag(a, lm, E - f.mb + lost, rz, pow2);
	if (r > big)
		r = rz ? big : (f.fn ? NAN : INFINITY);
	return hi < 0 ? -r : r;
}

double emul_round(cs_dtype_t d, double hi, double lo, int rz)
{
	return round_lost(d, hi, lo, rz, 0);
}

/* ---- one step ------------------------------------------------------------ */

/* How steps are performed: in dtype w (the element type, or float32 when
 * accumulating wider), rounding toward zero when rz, with `lost` mantissa
 * bits fewer than w has (then never natively). */
struct ctx {
	cs_dtype_t w;
	int rz, lost;
};

static void two_sum(double a, double b, double *s, double *e)
{
	double bb;

	*s = a + b;
	bb = *s - a;
	*e = (a - (*s - bb)) + (b - bb);
}

static void mode_on(const struct ctx *k)
{
	if (k->rz)
		fesetround(FE_TOWARDZERO);
}

static void mode_off(const struct ctx *k)
{
	if (k->rz)
		fesetround(FE_TONEAREST);
}

static double add(const struct ctx *k, double a, double b)
{
	double s, e;

	if (k->w == CS_DTYPE_FLOAT32 && !k->lost) {
		volatile float fa = (float)a, fb = (float)b, fr;
		mode_on(k);
		fr = fa + fb;
		mode_off(k);
		return fr;
	}
	if (k->w == CS_DTYPE_FLOAT64 && !k->lost) {
		volatile double da = a, db = b, dr;
		mode_on(k);
		dr = da + db;
		mode_off(k);
		return dr;
	}
	two_sum(a, b, &s, &e);
	return round_lost(k->w, s, e, k->rz, k->lost);
}

static double mul(const struct ctx *k, double a, double b)
{
	double p = a * b;

	if (k->w == CS_DTYPE_FLOAT32 && !k->lost) {
		volatile float fa = (float)a, fb = (float)b, fr;
		mode_on(k);
		fr = fa * fb;
		mode_off(k);
		return fr;
	}
	if (k->w == CS_DTYPE_FLOAT64 && !k->lost) {
		volatile double da = a, db = b, dr;
		mode_on(k);
		dr = da * db;
		mode_off(k);
		return dr;
	}
	return round_lost(k->w, p, fma(a, b, -p), k->rz, k->lost);
}

/* s / P rounded once to dtype d (remainder exact by fma). */
static double divide(cs_dtype_t d, double s, int P, int rz)
{
	struct ctx k = {d, rz, 0};
	double q = s / P;

	if (d == CS_DTYPE_FLOAT32) {
		volatile float fs = (float)s, fp = (float)P, fr;
		mode_on(&k);
		fr = fs / fp;
		mode_off(&k);
		return fr;
	}
	if (d == CS_DTYPE_FLOAT64) {
		volatile double ds = s, dp = P, dr;
		mode_on(&k);
		dr = ds / dp;
		mode_off(&k);
		return dr;
	}
	return emul_round(d, q, fma(-q, (double)P, s) / P, rz);
}

/* ---- a whole element ----------------------------------------------------- */

static double combine(const struct ctx *k, cs_op_t op, double a, double b)
{
	return op == CS_OP_PROD ? mul(k, a, b) : add(k, a, b);
}

static double reduce_order(const struct ctx *k, cs_op_t op, double *v, int P,
			   int start, enum emul_order order)
{
	double acc;
	int i, n;

	if (order == EMUL_RING) {
		acc = v[start % P];
		for (i = 1; i < P; i++)
			acc = combine(k, op, acc, v[(start + i) % P]);
		return acc;
	}
	for (n = P; n > 1; n = (n + 1) / 2) {
		for (i = 0; i < n / 2; i++)
			v[i] = combine(k, op, v[2 * i], v[2 * i + 1]);
		if (n % 2)
			v[n / 2] = v[n - 1];
	}
	return v[0];
}

static int narrow(cs_dtype_t d)
{
	return d != CS_DTYPE_FLOAT32 && d != CS_DTYPE_FLOAT64;
}

uint64_t emul_reduce(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
		     const uint64_t *alpha, int start, const emul_impl_t *im)
{
	struct ctx k = {d, im->bug == EMUL_TRUNC_HOPS,
			im->bug == EMUL_LOSE_BITS ? EMUL_LOST_BITS : 0};
	int divide_avg = op == CS_OP_AVG &&
			 (im->avg == EMUL_AVG_DIVIDE || im->bug == EMUL_AVG_TRUNC_DIV);
	double v[EMUL_MAXP], c, r;
	int q;

	if (im->bug == EMUL_ZERO || P < 1 || P > EMUL_MAXP)
		return 0;
	if (im->acc32 && narrow(d))
		k.w = CS_DTYPE_FLOAT32;
	c = emul_round(k.w, 1.0 / P, 0, 0);
	for (q = 0; q < P; q++) {
		v[q] = emul_decode(d, x[q]);
		if (op == CS_OP_PREMULSUM)
			v[q] = mul(&k, v[q], emul_decode(d, alpha[q]));
		else if (op == CS_OP_AVG && !divide_avg)
			v[q] = mul(&k, v[q], c);
	}
	r = reduce_order(&k, op, v, P, start, im->order);
	if (divide_avg)
		r = divide(d, r, P, k.rz || im->bug == EMUL_AVG_TRUNC_DIV);
	else if (k.w != d)
		r = emul_round(d, r, 0, 0);
	if (im->bug == EMUL_NEGATE)
		r = -r;
	return emul_encode(d, r);
}

/* Element i of buf, in the machine's byte order. */
static void store(cs_dtype_t d, void *buf, size_t i, uint64_t b)
{
	unsigned char *p = (unsigned char *)buf + i * cs_dtype_size(d);
	uint8_t b8 = (uint8_t)b;
	uint16_t b16 = (uint16_t)b;
	uint32_t b32 = (uint32_t)b;

	switch (cs_dtype_size(d)) {
	case 1: memcpy(p, &b8, 1); break;
	case 2: memcpy(p, &b16, 2); break;
	case 4: memcpy(p, &b32, 4); break;
	default: memcpy(p, &b, 8); break;
	}
}

void emul_call(const cs_case_t *c, const emul_impl_t *im, size_t lo,
	       size_t n, void *got)
{
	uint64_t x[EMUL_MAXP], alpha[EMUL_MAXP];
	int pms = c->op == CS_OP_PREMULSUM;
	size_t i;

	for (i = 0; i < n; i++) {
		cs_gen_column(c, lo + i, x, pms ? alpha : NULL);
		store(c->dtype, got, i, emul_reduce(c->dtype, c->op, c->nranks,
						    x, pms ? alpha : NULL,
						    (int)((lo + i) % (size_t)c->nranks),
						    im));
	}
}
