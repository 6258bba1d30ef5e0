/*
 * compare.c - classify received elements against their golden values
 * (spec/numerics.md, "Classification").
 */
#include <math.h>
#include <string.h>
#include "csref/compare.h"
#include "csref/arith.h"

/* 2^k as a double, by its bits where k is in the normal range (called for
 * every compared element: ldexp would dominate). */
static double pow2(int k)
{
	if (k >= -1022 && k <= 1023)
		return cs_bits_to_f64((uint64_t)(k + 1023) << 52);
	return ldexp(1.0, k);
}

double cs_ulp(cs_dtype_t d, double s)
{
	int p = cs_dtype_prec(d), emin = cs_dtype_emin(d), emax = cs_dtype_emax(d);
	int e;

	if (!cs_is_float(d))
		return 1;
	if (!isfinite(s))
		return NAN;
	s = fabs(s);
	if (s < pow2(emin))
		return pow2(emin - p + 1);
	e = (int)(cs_f64_to_bits(s) >> 52) - 1023; /* s in [2^e, 2^(e+1)) */
	if (e > emax)
		e = emax;
	return pow2(e - p + 1);
}

/* Same value for the purpose of an exact match: equal bits, any NaN for a
 * NaN, or a zero of either sign where the golden allows it. */
static int same(cs_dtype_t d, uint64_t want, uint64_t got, uint32_t flags)
{
	double w, g;

	if (want == got)
		return 1;
	if (!cs_is_float(d) || (flags & CS_G_MOVED))
		return 0;
	w = cs_to_f64(d, want);
	g = cs_to_f64(d, got);
	if (isnan(w) || (isnan(g) && (flags & CS_G_NAN_OK)))
		return isnan(g);
	return (flags & CS_G_ANY_ZERO) && w == 0 && g == 0;
}

/* |r - S| and its size in ulps, for floats; NaN when only one is NaN. */
static void float_error(cs_dtype_t d, const cs_golden_t *g, uint64_t got,
			cs_cmp_elem_t *o)
{
	double r = cs_to_f64(d, got);

	o->err = fabs((r - g->s_hi) - g->s_lo);
	if (isnan(r) && isnan(g->s_hi))
		o->err = 0;
	else if (isinf(r) && r == g->s_hi)
		o->err = 0;
	o->ulps = o->err / cs_ulp(d, g->s_hi);
}

/* A non-finite result of an overflow that some order reaches: +Inf or
 * -Inf with the sign of a partial that can overflow, NaN where an overflow
 * can end in one (spec 4.9). */
static int overflow_accepts(uint32_t flags, double r)
{
	if (isnan(r))
		return (flags & CS_G_OVF_NAN) != 0;
	if (isinf(r))
		return (flags & (r > 0 ? CS_G_OVF_POS : CS_G_OVF_NEG)) != 0;
	return 0;
}

/* A finite result of the saturating profile (spec 4.9). */
static int saturation_accepts(const cs_golden_t *g, double r)
{
	return (g->flags & CS_G_SAT) && isfinite(r) && r >= g->sat_lo &&
	       r <= g->sat_hi;
}

/* A float that is not one of the golden encodings: within the bound, or a
 * result of the saturating profile, or an accepted overflow, or wrong. */
static cs_cmp_class_t classify_float(const cs_golden_t *g, double r,
				     cs_cmp_elem_t *o)
{
	int bounded = !(g->flags & (CS_G_EXACT | CS_G_NANRULE));

	if (((g->flags & CS_G_NONNEG) && r < 0) ||
	    ((g->flags & CS_G_NONPOS) && r > 0)) /* no order gives that sign */
		return CS_CMP_WRONG;
	/* an infinite error is never within, not even an infinite bound
	 * (float64 terms whose S leaves the double range) */
	if (bounded && o->err <= g->bound && isfinite(o->err))
		return CS_CMP_WITHIN;
	if (saturation_accepts(g, r)) {
		o->obs_bits |= CS_OBS_BIT(CS_OBS_OVF_SATURATE);
		if (g->flags & CS_G_NANRULE) /* the saturated "ignore" result */
			o->obs_bits |= CS_OBS_BIT(CS_OBS_NAN_IGNORE);
		return CS_CMP_WITHIN;
	}
	if (bounded && overflow_accepts(g->flags, r))
		return CS_CMP_WITHIN;
	return CS_CMP_WRONG;
}

cs_cmp_class_t cs_compare_elem(cs_dtype_t d, const cs_golden_t *g,
			       uint64_t got, cs_cmp_elem_t *out)
{
	cs_cmp_elem_t o = {CS_CMP_EXACT, 0, 0, 0};
	int fl = cs_is_float(d);
	double r = fl ? cs_to_f64(d, got) : 0;

	if (fl)
		float_error(d, g, got, &o);
	else
		o.err = o.ulps = fabs((double)cs_int_value(d, got) - g->s_hi);
	if (same(d, g->bits, got, g->flags)) {
		if (g->flags & CS_G_NANRULE)
			o.obs_bits = CS_OBS_BIT(CS_OBS_NAN_IGNORE);
	} else if ((g->flags & CS_G_NANRULE) && same(d, g->bits_alt, got, g->flags)) {
		o.obs_bits = CS_OBS_BIT(CS_OBS_NAN_PROPAGATE);
	} else if (!fl || (g->flags & CS_G_MOVED)) {
		o.cls = CS_CMP_WRONG;
	} else {
		o.cls = classify_float(g, r, &o);
	}
	/* an overflow of finite terms shown as Inf or NaN (the golden bits
	 * themselves may be that infinity); infinite or NaN terms never set
	 * CS_G_OVF */
	if (fl && o.cls != CS_CMP_WRONG && (g->flags & CS_G_OVF) &&
	    !isfinite(r))
		o.obs_bits |= CS_OBS_BIT(CS_OBS_OVF_NONFINITE);
	if (out)
		*out = o;
	return o.cls;
}

void cs_cmp_summary_init(cs_cmp_summary_t *s)
{
	memset(s, 0, sizeof *s);
}

static void record(cs_dtype_t d, const cs_golden_t *g, uint64_t got,
		   const cs_cmp_elem_t *e, size_t index, cs_cmp_summary_t *s)
{
	cs_mismatch_t *m;

	if (s->n_recorded >= CS_CMP_MAX_RECORD)
		return;
	m = &s->first[s->n_recorded++];
	m->index = index;
	m->got = got;
	m->expected = g->bits;
	m->s = g->s_hi;
	m->bound = g->bound;
	m->err = e->err;
	m->ulps = e->ulps;
	m->flags = g->flags;
	(void)d;
}

void cs_compare_range(cs_dtype_t d, const cs_golden_t *g, const void *got,
		      size_t n, size_t index0, cs_cmp_summary_t *s)
{
	size_t n_exact = 0, n_within = 0, n_wrong = 0;
	size_t o0 = 0, o1 = 0, o2 = 0, o3 = 0;
	double max_ulps = s->max_ulps, max_ratio = s->max_err_ratio;
	long long k;

#pragma omp parallel for if (n > 16384) schedule(static) \
	reduction(+ : n_exact, n_within, n_wrong, o0, o1, o2, o3) \
	reduction(max : max_ulps, max_ratio)
	for (k = 0; k < (long long)n; k++) {
		cs_cmp_elem_t e;
		cs_cmp_class_t c = cs_compare_elem(d, &g[k], cs_load(d, got, (size_t)k), &e);

		n_exact += c == CS_CMP_EXACT;
		n_within += c == CS_CMP_WITHIN;
		n_wrong += c == CS_CMP_WRONG;
		o0 += (e.obs_bits >> CS_OBS_NAN_IGNORE) & 1;
		o1 += (e.obs_bits >> CS_OBS_NAN_PROPAGATE) & 1;
		o2 += (e.obs_bits >> CS_OBS_OVF_NONFINITE) & 1;
		o3 += (e.obs_bits >> CS_OBS_OVF_SATURATE) & 1;
		if (c != CS_CMP_EXACT && isfinite(e.ulps) && e.ulps > max_ulps)
			max_ulps = e.ulps;
		if (c == CS_CMP_WITHIN && g[k].bound > 0 &&
		    e.err <= g[k].bound && e.err / g[k].bound > max_ratio)
			max_ratio = e.err / g[k].bound;
	}
	s->n += n;
	s->n_exact += n_exact;
	s->n_within += n_within;
	s->n_wrong += n_wrong;
	s->obs[CS_OBS_NAN_IGNORE] += o0;
	s->obs[CS_OBS_NAN_PROPAGATE] += o1;
	s->obs[CS_OBS_OVF_NONFINITE] += o2;
	s->obs[CS_OBS_OVF_SATURATE] += o3;
	s->max_ulps = max_ulps;
	s->max_err_ratio = max_ratio;
	for (k = 0; n_wrong && k < (long long)n && s->n_recorded < CS_CMP_MAX_RECORD; k++) {
		cs_cmp_elem_t e;
		uint64_t v = cs_load(d, got, (size_t)k);
		if (cs_compare_elem(d, &g[k], v, &e) == CS_CMP_WRONG)
			record(d, &g[k], v, &e, index0 + (size_t)k, s);
	}
}
