/*
 * golden.c - golden value and error bound of one reduced element.
 *
 * Implements the formulas of spec/numerics.md, "Error bounds". The exact
 * result S is formed in double-double with error-free transformations
 * (TwoSum, TwoProduct via fma); the bound includes the oracle's own error
 * and is inflated slightly so that its own evaluation in double cannot make
 * it unsound. Where a partial result may overflow, the golden value also
 * says which infinities a non-saturating implementation may reach and which
 * finite results a saturating one may return ("Overflow").
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "csref/golden.h"
#include "csref/arith.h"

/* A double-double value hi + lo. */
typedef struct dd {
	double hi, lo;
} dd_t;

static void two_sum(double a, double b, double *s, double *e)
{
	double bb;

	*s = a + b;
	bb = *s - a;
	*e = (a - (*s - bb)) + (b - bb);
}

/* Cascaded summation (Sum2): hi is the running float sum, lo collects the
 * exact rounding errors; returned normalized. */
static dd_t dd_sum(const double *t, int n)
{
	double hi = 0, lo = 0, e;
	dd_t r;
	int i;

	for (i = 0; i < n; i++) {
		two_sum(hi, t[i], &hi, &e);
		lo += e;
	}
	two_sum(hi, lo, &r.hi, &r.lo);
	return r;
}

/* (a.hi + a.lo) * y in double-double. */
static dd_t dd_mul_d(dd_t a, double y)
{
	double p = a.hi * y, e = fma(a.hi, y, -p) + a.lo * y;
	dd_t r;

	two_sum(p, e, &r.hi, &r.lo);
	return r;
}

/* (a.hi + a.lo) / y in double-double, y > 0 an integer. */
static dd_t dd_div_d(dd_t a, double y)
{
	double q1 = a.hi / y, rem = fma(-q1, y, a.hi) + a.lo;
	dd_t r;

	two_sum(q1, rem / y, &r.hi, &r.lo);
	return r;
}

double cs_theta(int k, double u)
{
	if (k <= 0)
		return 0;
	return expm1((double)k * log1p(u)) * (1 + 0x1p-48);
}

double cs_unit_roundoff(cs_dtype_t d)
{
	return ldexp(1.0, -cs_dtype_prec(d));
}

double cs_underflow_unit(cs_dtype_t d)
{
	return ldexp(1.0, cs_dtype_emin(d) - cs_dtype_prec(d));
}

double cs_max_finite(cs_dtype_t d)
{
	return cs_to_f64(d, cs_fmt_maxbits(cs_fmt_of(d)));
}

/* Constants of one (dtype, P), cached per thread: computing theta and the
 * format limits for every element would dominate the oracle's time. */
struct kconst {
	int valid, P;
	cs_dtype_t d;
	double u, eta, th, maxf, grow;
	double th2; /* theta(P-2, u): the roundings below a sum's last step */
	double thr; /* the least magnitude that overflows (float8_e4m3: any
		       above it), spec 2.2 */
};

static const struct kconst *consts(cs_dtype_t d, int P)
{
	static _Thread_local struct kconst k;
	double c;

	if (k.valid && k.d == d && k.P == P)
		return &k;
	k.d = d;
	k.P = P;
	k.u = cs_unit_roundoff(d);
	k.eta = cs_underflow_unit(d);
	k.th = cs_theta(P - 1, k.u);
	k.maxf = cs_max_finite(d);
	c = (1 + k.u) * (1 + k.eta);
	k.grow = (k.th + 1) * (cs_theta(P - 1, c - 1) + 1); /* (1+u)^(P-1) c^(P-1) */
	k.th2 = cs_theta(P - 2, k.u);
	k.thr = k.maxf + ldexp(1.0, cs_dtype_emax(d) - cs_dtype_prec(d));
	k.valid = 1;
	return &k;
}

/* Round S = hi + lo to dtype d, to nearest even, looking at lo only when hi
 * sits exactly halfway between two values of d. */
static uint64_t round_dd(cs_dtype_t d, dd_t s)
{
	uint64_t b = cs_from_f64(d, s.hi, 0), nb;
	double r, r2;

	if (d == CS_DTYPE_FLOAT64 || s.lo == 0 || !isfinite(s.hi))
		return b;
	r = cs_to_f64(d, b);
	if (!isfinite(r) || r == s.hi)
		return b;
	/* the neighbour of r on hi's side */
	nb = (fabs(s.hi) > fabs(r)) ? b + 1 : b - 1;
	if (r == 0)
		nb = (s.hi > 0) ? 1 : (cs_fmt_sign(cs_fmt_of(d)) | 1);
	r2 = cs_to_f64(d, nb);
	if (fabs(s.hi - r) == fabs(r2 - s.hi) && ((s.lo > 0) == (r2 > r)))
		return nb;
	return b;
}

static void set_exact_bits(cs_golden_t *g, uint64_t bits, uint32_t flags)
{
	g->bits = g->bits_alt = bits;
	g->bound = 0;
	g->flags |= CS_G_EXACT | flags;
}

static void set_sat(cs_golden_t *g, double lo, double hi)
{
	g->sat_lo = lo;
	g->sat_hi = hi;
	g->flags |= CS_G_SAT;
}

/* Whether a step whose exact result is z (at most, in magnitude) may
 * overflow: z reaches the threshold (float8_e4m3: exceeds 464). */
static bool may_overflow(cs_dtype_t d, const struct kconst *k, double z)
{
	z *= 1 + 0x1p-50; /* z itself was evaluated in double */
	return !isfinite(z) || z > k->thr ||
	       (z == k->thr && !cs_fmt_of(d).fn);
}

/* The flags of a possible overflow: pos and neg bound the exact value of
 * every step of every order from above and below in magnitude (spec
 * 4.9). */
static void set_ovf(cs_dtype_t d, const struct kconst *k, double pos,
		    double neg, cs_golden_t *g)
{
	uint32_t f = 0;

	if (may_overflow(d, k, pos))
		f |= CS_G_OVF_POS;
	if (may_overflow(d, k, neg))
		f |= CS_G_OVF_NEG;
	/* float8_e4m3 overflows to NaN; elsewhere +Inf must meet -Inf */
	if ((f && cs_fmt_of(d).fn) || f == (CS_G_OVF_POS | CS_G_OVF_NEG))
		f |= CS_G_OVF_NAN;
	g->flags |= f;
}

/* Saturation is a conforming overflow behaviour of the float8 formats only
 * (what NCCL's SATFINITE conversions do); the IEEE formats overflow to
 * infinity. */
static bool saturation_defined(cs_dtype_t d)
{
	return d == CS_DTYPE_FLOAT8_E4M3 || d == CS_DTYPE_FLOAT8_E5M2;
}

/* ---- integers ------------------------------------------------------------ */

static void golden_int(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
		       const uint64_t *alpha, cs_golden_t *g)
{
	uint64_t acc = 0;
	int i;

	for (i = 0; i < P; i++)
		acc = cs_int_fold(d, op, i, acc, x[i],
				  op == CS_OP_PREMULSUM ? alpha[i] : 0);
	acc = cs_int_fold_end(d, op, acc, P);
	g->s_hi = (double)cs_int_value(d, acc);
	set_exact_bits(g, acc, 0);
}

/* ---- float max / min ----------------------------------------------------- */

static void golden_maxmin(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
			  cs_golden_t *g)
{
	uint64_t ign = x[0], prop = x[0];
	bool zero_pos = false, zero_neg = false;
	double best;
	int i;

	for (i = 1; i < P; i++) {
		ign = cs_step_nan(d, op, ign, x[i], 0);
		prop = cs_step_nan(d, op, prop, x[i], 1);
	}
	best = cs_to_f64(d, ign);
	for (i = 0; i < P && best == 0; i++) {
		double v = cs_to_f64(d, x[i]);
		if (v == 0) {
			zero_neg |= signbit(v) != 0;
			zero_pos |= signbit(v) == 0;
		}
	}
	g->s_hi = best;
	set_exact_bits(g, ign, (zero_pos && zero_neg) ? CS_G_ANY_ZERO : 0);
	g->bits_alt = prop;
	if (cs_isnan_bits(d, ign) != cs_isnan_bits(d, prop))
		g->flags |= CS_G_NANRULE;
	else if (cs_isnan_bits(d, ign))
		g->flags |= CS_G_NAN;
	/* a saturating step turns an infinite extreme into the largest
	 * finite value of its sign; one rank performs no step */
	if (P >= 2 && isinf(best) && saturation_defined(d)) {
		double m = copysign(consts(d, P)->maxf, best);
		set_sat(g, m, m);
	}
}

/* ---- non-finite inputs --------------------------------------------------- */

/*
 * Terms t[0..n) are the values summed (inputs, or alpha*x products formed in
 * double). If any is a NaN, or +Inf meets -Inf, the result is NaN; else an
 * infinity wins. Returns true when the golden value was settled here.
 */
static bool golden_sum_special(cs_dtype_t d, const double *t, int n,
			       cs_golden_t *g)
{
	cs_fmt_t f = cs_fmt_of(d);
	bool nan = false, pinf = false, ninf = false;
	int i;

	for (i = 0; i < n; i++) {
		nan |= isnan(t[i]);
		pinf |= t[i] == INFINITY;
		ninf |= t[i] == -INFINITY;
	}
	if (nan || (pinf && ninf)) {
		g->s_hi = NAN;
		set_exact_bits(g, cs_fmt_nanbits(f), CS_G_NAN);
		return true;
	}
	if (pinf || ninf) {
		const struct kconst *k = consts(d, n);
		double other = 0; /* finite mass of the sign opposite the Inf */
		for (i = 0; i < n; i++)
			if (isfinite(t[i]) && (t[i] < 0) == pinf)
				other += fabs(t[i]);
		g->s_hi = pinf ? INFINITY : -INFINITY;
		/* finite partials that can reach the other infinity: NaN too */
		set_exact_bits(g, cs_from_f64(d, g->s_hi, 0),
			       may_overflow(d, k, other * (1 + k->th2)) ?
			       CS_G_NAN_OK : 0);
		return true;
	}
	return false;
}

/* ---- the saturating profile ---------------------------------------------- */

/* z (a float8 product, exact in double) rounded to nearest in d, with
 * overflow to the largest finite value of its sign (infinities included);
 * NaN stays NaN. */
static double round_sat(cs_dtype_t d, double z)
{
	return cs_to_f64(d, cs_from_f64(d, z, 1));
}

/*
 * What a saturating sum over terms y[0..n), n >= 2, can return (spec 4.9).
 * Exactly, over all orders: from max(-M, min(M, pos) + neg) to
 * min(M, max(-M, neg) + pos), pos and neg the sums of the positive and of
 * the negative terms; an infinite term becomes M in its one step and
 * absorbs that step's partner. With roundings, each mass grows or shrinks
 * by g = (1+u)^(n-1) (1+u) at most.
 */
struct satsum {
	double pos, neg, a;      /* finite sums: > 0 terms, < 0 terms, |all| */
	double maxneg, minpos;   /* negative / positive terms nearest to 0 */
	int pinf, ninf, nonneg, nonpos;
};

static void satsum_add(struct satsum *s, double y)
{
	if (isinf(y)) {
		s->pinf += y > 0;
		s->ninf += y < 0;
		return;
	}
	s->a += fabs(y);
	s->nonneg += y >= 0;
	s->nonpos += y <= 0;
	if (y > 0) {
		s->pos += y;
		s->minpos = fmin(s->minpos, y);
	} else if (y < 0) {
		s->neg += y;
		s->maxneg = fmax(s->maxneg, y);
	}
}

static void sat_sum_hull(cs_dtype_t d, const double *y, int n, cs_golden_t *g)
{
	const struct kconst *k = consts(d, n);
	struct satsum s = {0, 0, 0, -INFINITY, INFINITY, 0, 0, 0, 0};
	double m = k->maxf, gr = (1 + k->th) * (1 + k->u), lo, hi, e;
	int i;

	for (i = 0; i < n; i++)
		satsum_add(&s, y[i]);
	if (s.pinf && s.ninf) {
		if (n == 2) /* they meet each other: NaN only */
			return;
		set_sat(g, -m, m);
		return;
	}
	/* the partner a lone Inf absorbs: the one that costs least */
	if (s.pinf == 1 && !s.nonneg)
		s.neg -= s.maxneg;
	if (s.ninf == 1 && !s.nonpos)
		s.pos -= s.minpos;
	/* an Inf's own step is exact: n - 2 roundings above it */
	lo = s.ninf ? -m : s.pinf ? m / (1 + k->th2) + s.neg * gr
		   : fmin(m, s.pos) / gr + s.neg * gr;
	hi = s.pinf ? m : s.ninf ? s.pos * gr - m / (1 + k->th2)
		   : s.pos * gr - fmin(m, -s.neg) / gr;
	e = n * 0x1p-52 * (s.a + m); /* the evaluation of lo and hi */
	set_sat(g, fmax(-m, lo - e), fmin(m, hi + e));
}

/*
 * Sum-like ops under saturation: the prepared terms are y_q = x_q (SUM) or
 * the premultiplication rounded with saturation (PREMULSUM: alpha_q x_q;
 * AVG: c x_q). y[] has room for P terms.
 */
static void golden_sat_sumlike(cs_dtype_t d, cs_op_t op, int P,
			       const uint64_t *x, const uint64_t *alpha,
			       double *y, cs_golden_t *g)
{
	double c = op == CS_OP_AVG ? cs_to_f64(d, cs_avg_scalar(d, P)) : 1;
	int i;

	if (!saturation_defined(d))
		return;
	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]);
		if (op == CS_OP_PREMULSUM)
			v = round_sat(d, cs_to_f64(d, alpha[i]) * v);
		else if (op == CS_OP_AVG)
			v = round_sat(d, c * v);
		if (isnan(v))
			return;
		y[i] = v;
	}
	if (P >= 2)
		sat_sum_hull(d, y, P, g);
	else if (op != CS_OP_SUM) /* one rank: the premultiplication only */
		set_sat(g, y[0], y[0]);
}

/* ---- float sum, avg, premulsum ------------------------------------------- */

/* PREMULSUM's masses with each term alpha_q x_q or RN(alpha_q x_q),
 * whichever is larger: what the steps after the premultiplication add. */
static void premul_masses(cs_dtype_t d, int P, const uint64_t *x,
			  const uint64_t *alpha, double *pos, double *neg)
{
	int i;

	*pos = *neg = 0;
	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]) * cs_to_f64(d, alpha[i]);
		double r = cs_to_f64(d, cs_from_f64(d, v, 0));
		double a = fmax(fabs(v), fabs(r));
		*pos += v > 0 ? a : 0;
		*neg += v < 0 ? a : 0;
	}
}

/*
 * The positive and negative masses of the terms t[0..n) as the steps of a
 * sum see them (SUM and AVG: x_q, AVG summed first reaching the larger
 * partials; PREMULSUM: alpha_q x_q and its exact error, or rounded where
 * that matters), and the sign flags: with terms of one sign only, every
 * partial of every order keeps that sign (or is zero), saturated or not.
 */
static void golden_sum_masses(cs_dtype_t d, cs_op_t op, int P,
			      const uint64_t *x, const uint64_t *alpha,
			      const double *t, int n, double *pos, double *neg,
			      cs_golden_t *g)
{
	const struct kconst *k = consts(d, P);
	int i;

	*pos = *neg = 0;
	for (i = 0; i < n; i++) {
		*pos += t[i] > 0 ? t[i] : 0;
		*neg += t[i] < 0 ? -t[i] : 0;
	}
	if (*neg == 0)
		g->flags |= CS_G_NONNEG;
	if (*pos == 0)
		g->flags |= CS_G_NONPOS;
	if (op == CS_OP_PREMULSUM &&
	    may_overflow(d, k, fmax(*pos, *neg) * (1 + k->u) * (1 + k->th2)))
		premul_masses(d, P, x, alpha, pos, neg);
}

/* Exact sum of the terms divided by div (1 for SUM and PREMULSUM, P for
 * AVG), with a power-of-two rescale near the top of the double range so that
 * no partial of the cascade, nor the quotient, overflows on the way. */
static dd_t exact_sum(double *t, int n, double A, double div)
{
	int lg = 0;
	double scale;

	while ((1 << lg) < n && lg < 30)
		lg++;
	/* room for n terms: every partial stays below 2^1022 after scaling */
	scale = A >= 0x1p1020 ? ldexp(1.0, -(lg + 2)) : 1.0;
	dd_t s;
	int i;

	if (scale != 1.0)
		for (i = 0; i < n; i++)
			t[i] *= scale;
	s = dd_sum(t, n);
	if (div != 1.0)
		s = dd_div_d(s, div);
	if (scale != 1.0) {
		s.hi /= scale;
		s.lo /= scale;
	}
	return s;
}

/* n * 2^-1073 (a subnormal: 2n times the least one), formed from its bits:
 * the same value as the product, without the microcode assist a product
 * with a subnormal result costs on x86 (the oracle's largest single cost
 * per element before). n < 2^51. */
static double subnormal_times(int n)
{
	return cs_bits_to_f64(2 * (uint64_t)n);
}

/* Fill the golden float given S, B, the oracle's error and the bounds on
 * every partial above (pos) and below (-neg) of every order. */
static void finish_float(cs_dtype_t d, int P, dd_t S, double B, double Eor,
			 double pos, double neg, cs_golden_t *g)
{
	const struct kconst *k = consts(d, P);
	double fuzz = 1 + (P + 8) * 0x1p-50;

	g->s_hi = S.hi;
	g->s_lo = S.lo;
	g->bound = (B + Eor) * fuzz + 0x1p-1074;
	g->bits = g->bits_alt = round_dd(d, S);
	set_ovf(d, k, pos, neg, g);
}

/*
 * Sum-like ops. For SUM the terms are x; for PREMULSUM alpha*x (each split
 * exactly into a product and its error); for AVG x, with S divided by P.
 */
static void golden_sumlike(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
			   const uint64_t *alpha, double *t, cs_golden_t *g)
{
	const struct kconst *k = consts(d, P);
	double u = k->u, eta = k->eta, th = k->th, A = 0, B, Eor, pos, neg;
	int n = 0, i;
	dd_t S;

	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]);
		if (op == CS_OP_PREMULSUM) {
			double a = cs_to_f64(d, alpha[i]), p = a * v;
			t[n++] = p;
			if (isfinite(p))
				t[n++] = fma(a, v, -p);
			else if (isnan(p))
				t[n - 1] = NAN; /* 0 * Inf */
		} else {
			t[n++] = v;
		}
	}
	if (golden_sum_special(d, t, n, g)) {
		golden_sat_sumlike(d, op, P, x, alpha, t, g);
		return;
	}
	golden_sum_masses(d, op, P, x, alpha, t, n, &pos, &neg, g);
	A = pos + neg;
	S = exact_sum(t, n, A, op == CS_OP_AVG ? (double)P : 1.0);
	Eor = 2.0 * n * n * 0x1p-106 * A + subnormal_times(n);
	if (op == CS_OP_SUM) {
		B = th * A + u * fabs(S.hi);
	} else if (op == CS_OP_PREMULSUM) {
		B = ((1 + u) * (1 + th) - 1) * A + P * eta * (1 + th) + u * fabs(S.hi);
	} else { /* AVG */
		/* NCCL's c for p < 24 goes through float: RN_T(RN_24(1/P)) */
		double up = u + (cs_dtype_prec(d) < 24 ? 0x1p-23 : 0x1p-53);
		Eor = Eor / P + 4 * 0x1p-104 * fabs(S.hi);
		B = ((1 + up) * (1 + u) * (1 + th) - 1) * (A / P) +
		    P * eta * (1 + th) + eta + u * fabs(S.hi);
		if (1.0 / P < ldexp(1.0, cs_dtype_emin(d))) /* c is subnormal */
			B += eta * (1 + u) * (1 + th) * A;
	}
	/* a step's exact value: its terms grown by the roundings below it */
	finish_float(d, P, S, B, Eor, pos * (1 + k->th2), neg * (1 + k->th2),
		     g);
	if (S.hi == 0)
		g->flags |= CS_G_ANY_ZERO;
	if (g->flags & CS_G_OVF)
		golden_sat_sumlike(d, op, P, x, alpha, t, g);
}

/* ---- float prod ---------------------------------------------------------- */

/* Whether some subset product of the finite inputs may round to zero: the
 * smallest one (all magnitudes below 1) under half the least subnormal. */
static bool golden_prod_tiny(cs_dtype_t d, int P, const uint64_t *x)
{
	const struct kconst *k = consts(d, P);
	double m = 1;
	int i;

	for (i = 0; i < P; i++) {
		double v = fabs(cs_to_f64(d, x[i]));
		if (isfinite(v) && v < 1)
			m *= v;
	}
	return m <= fmax(k->eta, 0x1p-1074) * (1 + k->th) * (1 + k->th);
}

static bool golden_prod_special(cs_dtype_t d, int P, const uint64_t *x,
				cs_golden_t *g)
{
	bool nan = false, inf = false, zero = false, neg = false;
	int i;

	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]);
		nan |= isnan(v);
		inf |= isinf(v);
		zero |= v == 0;
		neg ^= signbit(v) != 0;
	}
	if (nan || (inf && zero)) {
		g->s_hi = NAN;
		set_exact_bits(g, cs_fmt_nanbits(cs_fmt_of(d)), CS_G_NAN);
		return true;
	}
	if (inf) {
		g->s_hi = neg ? -INFINITY : INFINITY;
		/* finite partials that can round to zero first: 0 * Inf = NaN */
		set_exact_bits(g, cs_from_f64(d, g->s_hi, 0),
			       golden_prod_tiny(d, P, x) ? CS_G_NAN_OK : 0);
		return true;
	}
	return false;
}

static bool golden_prod_neg(cs_dtype_t d, int P, const uint64_t *x)
{
	bool neg = false;
	int i;

	for (i = 0; i < P; i++)
		neg ^= signbit(cs_to_f64(d, x[i])) != 0;
	return neg;
}

/* A product kept as a double-double mantissa times 2^e, renormalized after
 * every factor so that no intermediate overflows or underflows. */
struct scaled {
	dd_t m;
	long e;
};

static void scaled_mul(struct scaled *a, double v)
{
	int ev, em;

	a->m = dd_mul_d(a->m, frexp(v, &ev));
	a->m.hi = frexp(a->m.hi, &em);
	a->m.lo = ldexp(a->m.lo, -em);
	a->e += (long)ev + em;
}

/* value * 2^shift, clamped so ldexp's int argument cannot wrap. */
static double scaled_value(dd_t m, long e, double *lo)
{
	int ec = e > 4000 ? 4000 : e < -4000 ? -4000 : (int)e;

	*lo = ldexp(m.lo, ec);
	return ldexp(m.hi, ec);
}

/* The underflow term (P-1) eta M (1+u)^(P-1) c^(P-1) of B_prod, formed
 * with eta's exponent applied last so that it neither underflows (float64)
 * nor overflows early. */
static double prod_underflow(cs_dtype_t d, const struct kconst *k, int P,
			     const struct scaled *M)
{
	double unused;
	long e = M->e + cs_dtype_emin(d) - cs_dtype_prec(d);

	return scaled_value((dd_t){M->m.hi * (P - 1) * k->grow, 0}, e, &unused);
}

/* Product of the magnitudes below 1, but the one at index skip. */
static struct scaled prod_small(cs_dtype_t d, int P, const uint64_t *x,
				int skip)
{
	struct scaled m = {{1, 0}, 0};
	int i;

	for (i = 0; i < P; i++) {
		double a = fabs(cs_to_f64(d, x[i]));
		if (a < 1 && i != skip)
			scaled_mul(&m, a);
	}
	return m;
}

/*
 * prod under saturation (spec 4.9), P >= 2, no NaN input: the sign is the
 * product of the signs; the magnitude lies between min(M, L) s and
 * min(M, |S|), L the product of the factors >= 1 (an Inf counts as M and
 * absorbs the partner of its one step), s that of the factors below 1,
 * widened by the roundings as B_prod is.
 */
static void golden_sat_prod(cs_dtype_t d, int P, const uint64_t *x,
			    cs_golden_t *g)
{
	const struct kconst *k = consts(d, P);
	struct scaled L = {{1, 0}, 0}, s;
	double m = k->maxf, top = 0, big, lo, hi, ufl, unused;
	int inf = 0, zero = 0, large = 0, neg = 0, itop = -1, i;

	if (!saturation_defined(d))
		return;
	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]), a = fabs(v);
		if (isnan(v))
			return;
		neg ^= signbit(v) != 0;
		inf += isinf(v) != 0;
		zero |= a == 0;
		large |= a >= 1 && !isinf(a);
		if (a >= 1)
			scaled_mul(&L, fmin(a, m));
		else if (a > top)
			top = a, itop = i;
	}
	if (zero) { /* M * 0 = 0 once an Inf has met a partner */
		if (inf && P >= 3)
			set_sat(g, -0.0, 0.0);
		return;
	}
	/* one Inf among factors below 1 absorbs the largest of them */
	s = prod_small(d, P, x, inf == 1 && !large ? itop : -1);
	big = scaled_value(L.m, L.e, &unused);
	scaled_mul(&s, inf || big >= m ? m : big);
	lo = scaled_value(s.m, s.e, &unused) / (1 + k->th);
	hi = inf ? m : fabs(g->s_hi) * (1 + k->th);
	/* no partial reaches the subnormal range: no underflow term */
	s = prod_small(d, P, x, -1);
	ufl = scaled_value(s.m, s.e, &unused) / (1 + k->th) >=
	      ldexp(1.0, cs_dtype_emin(d)) ? 0 : prod_underflow(d, k, P, &L);
	lo = fmax(0, lo - ufl - 0x1p-1074);
	hi = fmin(m, hi + ufl);
	if (neg)
		set_sat(g, -hi, -lo);
	else
		set_sat(g, lo, hi);
}

static void golden_prod(cs_dtype_t d, int P, const uint64_t *x, cs_golden_t *g)
{
	const struct kconst *k = consts(d, P);
	struct scaled S = {{1, 0}, 0}, M = {{1, 0}, 0};
	double mval, unused, B, Eor;
	bool neg = golden_prod_neg(d, P, x);
	dd_t s;
	int i;

	if (golden_prod_special(d, P, x, g)) {
		if (P >= 2)
			golden_sat_prod(d, P, x, g);
		return;
	}
	for (i = 0; i < P; i++) {
		double v = cs_to_f64(d, x[i]);
		scaled_mul(&S, v);
		scaled_mul(&M, fmax(1.0, fabs(v)));
	}
	s.hi = scaled_value(S.m, S.e, &s.lo);
	if (s.hi == 0) /* the sign of a zero product is the product of signs */
		s.hi = neg ? -0.0 : 0.0;
	mval = scaled_value(M.m, M.e, &unused) * k->grow;
	B = k->th * fabs(s.hi) + prod_underflow(d, k, P, &M);
	Eor = 8.0 * P * 0x1p-104 * fabs(s.hi) + 0x1p-1073;
	g->flags |= neg ? CS_G_NONPOS : CS_G_NONNEG;
	/* the result has the sign of the product; a zero factor makes an
	 * overflowing partial a NaN (Inf * 0), never an infinity */
	if (S.m.hi == 0)
		finish_float(d, P, s, B, Eor, 0, 0, g);
	else
		finish_float(d, P, s, B, Eor, neg ? 0 : mval, neg ? mval : 0,
			     g);
	if (may_overflow(d, k, mval) && (S.m.hi == 0 || cs_fmt_of(d).fn ||
					 golden_prod_tiny(d, P, x)))
		g->flags |= CS_G_OVF_NAN;
	if (P >= 2 && (g->flags & CS_G_OVF))
		golden_sat_prod(d, P, x, g);
}

/* Float AVG is exact only when its scalar c = RN(1/P) is 1/P itself: P a
 * power of two with 1/P at least the least subnormal, log2 P <= p-1-emin
 * (float8_e4m3: P <= 512). Beyond, c rounds to 0 or to 2^(emin-p+1) and
 * the premultiplied terms are not the exact-mode x_q / P (spec 4.10). */
static bool avg_can_be_exact(cs_dtype_t d, int P)
{
	int lg = 0;

	if (P & (P - 1))
		return false;
	while ((1 << lg) < P)
		lg++;
	return lg <= cs_dtype_prec(d) - 1 - cs_dtype_emin(d);
}

void cs_golden_reduce(cs_dtype_t d, cs_op_t op, int P, const uint64_t *x,
		      const uint64_t *alpha, int exact, cs_golden_t *g)
{
	double stack_terms[128];
	double *t = stack_terms;

	g->s_hi = g->s_lo = 0;
	g->sat_lo = g->sat_hi = 0;
	g->flags = 0;
	g->bound = 0;
	if (!cs_is_float(d)) {
		golden_int(d, op, P, x, alpha, g);
		return;
	}
	switch (op) {
	case CS_OP_MAX:
	case CS_OP_MIN:
		golden_maxmin(d, op, P, x, g);
		return;
	case CS_OP_PROD:
		golden_prod(d, P, x, g);
		break;
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
		if (2 * P > 128 && !(t = malloc(sizeof(double) * 2 * (size_t)P)))
			abort(); /* out of memory in the oracle: nothing sane to do */
		golden_sumlike(d, op, P, x, alpha, t, g);
		if (t != stack_terms)
			free(t);
		break;
	case CS_NUM_OPS: /* CS_OP_NONE: no reduction (cases are validated) */
		return;
	}
	/* exact-mode inputs, or a single rank (one rounding at most, which a
	 * conforming implementation performs to nearest): only the golden bits */
	/* one rank: the golden bits are the one rounding itself (the double-
	 * double S of a float64 product can miss bits below 2^-1074) */
	if (P == 1 && op == CS_OP_PREMULSUM && !(g->flags & CS_G_NAN))
		g->bits = g->bits_alt = cs_op_premul(d, x[0], alpha[0]);
	if ((exact || P == 1) && !(g->flags & CS_G_NAN) &&
	    !(op == CS_OP_AVG && !avg_can_be_exact(d, P)))
		g->flags |= CS_G_EXACT;
	/* exact-mode inputs never overflow, whatever the bound on partials
	 * says (spec 7) */
	if (exact)
		g->flags &= ~(CS_G_OVF | CS_G_SAT);
}

void cs_golden_moved(cs_dtype_t d, uint64_t bits, cs_golden_t *g)
{
	g->bits = g->bits_alt = bits;
	g->s_hi = cs_is_float(d) ? cs_to_f64(d, bits) : (double)cs_int_value(d, bits);
	g->s_lo = 0;
	g->bound = 0;
	g->sat_lo = g->sat_hi = 0;
	g->flags = CS_G_EXACT | CS_G_MOVED;
}

/* ---- the fast path: random-mode float sums and averages ------------------ */

/*
 * cs_golden_sum_fast repeats golden_sumlike's arithmetic for SUM and AVG,
 * operation for operation (this file is built without contraction of
 * products into fused multiply-adds, so the same expressions round the
 * same way), with what depends on (dtype, op, P) alone taken out of the
 * loop, and returns 0 wherever the general path would go another way: a
 * non-finite term, terms near the top of the double range (exact_sum's
 * rescale), a partial that may overflow (the saturating hull). The
 * constants keep the general path's association: e1 * A is
 * ((2.0 * n) * n * 2^-106) * A, kavg * (A / P) + yavg the first two terms
 * of AVG's bound.
 */
int cs_gsum_init(cs_gsum_t *k, cs_dtype_t d, cs_op_t op, int P, int exact)
{
	const struct kconst *c;
	double up;

	memset(k, 0, sizeof *k);
	if (!cs_is_float(d) || exact || P < 2 || P > 64 ||
	    (op != CS_OP_SUM && op != CS_OP_AVG))
		return 0;
	c = consts(d, P);
	k->d = d;
	k->op = op;
	k->P = P;
	k->u = c->u;
	k->eta = c->eta;
	k->th = c->th;
	k->th2 = c->th2;
	k->thr = c->thr;
	k->fn = cs_fmt_of(d).fn;
	k->e1 = 2.0 * P * P * 0x1p-106;
	k->e2 = subnormal_times(P);
	k->fuzz = 1 + (P + 8) * 0x1p-50;
	up = c->u + (cs_dtype_prec(d) < 24 ? 0x1p-23 : 0x1p-53);
	k->kavg = (1 + up) * (1 + c->u) * (1 + c->th) - 1;
	k->yavg = P * c->eta * (1 + c->th);
	k->avg_sub = 1.0 / P < ldexp(1.0, cs_dtype_emin(d));
	k->zavg = c->eta * (1 + c->u) * (1 + c->th);
	return 1;
}

/* may_overflow with the prepared constants. */
static int fast_overflows(const cs_gsum_t *k, double z)
{
	z *= 1 + 0x1p-50;
	return !isfinite(z) || z > k->thr || (z == k->thr && !k->fn);
}

int cs_golden_sum_fast(const cs_gsum_t *k, const uint64_t *x, cs_golden_t *g)
{
	double t[64], pos = 0, neg = 0, A, B, Eor, hi = 0, lo = 0, e;
	uint32_t flags = 0;
	int i, P = k->P;
	dd_t S;

	for (i = 0; i < P; i++) {
		t[i] = cs_to_f64(k->d, x[i]);
		if (!isfinite(t[i]))
			return 0;
	}
	for (i = 0; i < P; i++) {
		pos += t[i] > 0 ? t[i] : 0;
		neg += t[i] < 0 ? -t[i] : 0;
	}
	if (neg == 0)
		flags |= CS_G_NONNEG;
	if (pos == 0)
		flags |= CS_G_NONPOS;
	A = pos + neg;
	if (A >= 0x1p1020 || fast_overflows(k, pos * (1 + k->th2)) ||
	    fast_overflows(k, neg * (1 + k->th2)))
		return 0;
	/* dd_sum, then AVG's division */
	for (i = 0; i < P; i++) {
		two_sum(hi, t[i], &hi, &e);
		lo += e;
	}
	two_sum(hi, lo, &S.hi, &S.lo);
	Eor = k->e1 * A + k->e2;
	if (k->op == CS_OP_SUM) {
		B = k->th * A + k->u * fabs(S.hi);
	} else {
		S = dd_div_d(S, (double)P);
		Eor = Eor / P + 4 * 0x1p-104 * fabs(S.hi);
		B = k->kavg * (A / P) + k->yavg + k->eta + k->u * fabs(S.hi);
		if (k->avg_sub)
			B += k->zavg * A;
	}
	g->s_hi = S.hi;
	g->s_lo = S.lo;
	g->bound = (B + Eor) * k->fuzz + 0x1p-1074;
	g->bits = g->bits_alt = round_dd(k->d, S);
	g->sat_lo = g->sat_hi = 0;
#ifndef CS_GOLDEN_FAST_PLANT
	g->flags = flags | (S.hi == 0 ? CS_G_ANY_ZERO : 0);
#else /* tests/unit/test_golden_fast.c's planted error: must be caught */
	g->flags = flags;
#endif
	return 1;
}
