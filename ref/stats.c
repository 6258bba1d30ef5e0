/*
 * stats.c - statistical verdicts over the elements of one call (see
 * csref/stats.h; derivation in spec/numerics.md, "Statistical verdicts").
 *
 * Per element, cs_stats_add needs the received value r and the golden S
 * and B. It classifies r against the reference points (S, and for avg also
 * cPS, the centre of the premultiplied path, for either rounding of c) in
 * four directions, checks its sign, and adds its squared distance from
 * them in units of the model variance. The judge turns the counts into
 * binomial tail bounds (Chernoff, in the Kullback-Leibler form) and the
 * energy into a Bernstein bound.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "csref/stats.h"
#include "csref/arith.h"

/* Well-conditioned elements: error scale a at most KAPPA |S|. */
#define KAPPA 2.0

/* log(1/delta) of the two levels: FAIL at 2^-40, WARN at 2^-20. */
#define LN_FAIL (40 * 0.69314718055994531)
#define LN_WARN (20 * 0.69314718055994531)

/* Golden flags whose elements are not a plain finite rounding case. */
#define NOT_PLAIN (CS_G_EXACT | CS_G_NAN | CS_G_ANY_ZERO | CS_G_OVF | \
		   CS_G_SAT | CS_G_NANRULE | CS_G_UNTOUCHED | CS_G_MOVED | \
		   CS_G_NAN_OK)

/*
 * cs_stats_add counts elements in classes (bins), one add per element:
 * CLASS(near, far, positive) for the signs of r - klo S and r - khi S and
 * of S; the same class offset by NCLASS for a well-conditioned element;
 * the sign check's two counters after those. Counts per test follow from
 * the classes (add_bins).
 */
#define NCLASS 18
#define CLASS(near, far, pos) (((near) + 1) * 3 + (far) + 1 + 9 * (pos))
#define BIN_SIGN_OFF (2 * NCLASS)
#define BIN_SIGN_HIT (2 * NCLASS + 1)
#define NBINS (2 * NCLASS + 2)

/* A positive factor k = hi + lo, |lo| <= ulp(hi) / 2: c P exactly. */
struct kdd {
	double hi, lo;
};

/* Constants of one (dtype, op, P). */
struct model {
	cs_dtype_t d;
	cs_op_t op;
	double u, inv_fuzz, inv_kB; /* inverses rounded up by 2^-50 */
	struct kdd klo, khi; /* references k S for k in [klo, khi]: 1, and for
				avg c P for either rounding of the scalar c */
	int one_ref;         /* klo == khi */
	double kB;   /* B = kB * scale + u|S| + (terms >= 0), scale = A,
			A/P or A' (0 for prod) */
	double ksig; /* sigma = ksig * scale, or ksig * |S| for prod */
	double ufl;  /* results below this may be lost to underflow: 2 P eta */
	double nmin; /* the least normal magnitude 2^emin: elements whose |S| is
			below it are not used (spec/numerics.md 8.1) */
};

static struct kdd times_p(double c, int P)
{
	double hi = c * P;

	return (struct kdd){hi, fma(c, (double)P, -hi)};
}

static int kdd_less(struct kdd a, struct kdd b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* Extend [klo, khi] to k. */
static void widen(struct model *m, struct kdd k)
{
	if (kdd_less(k, m->klo))
		m->klo = k;
	if (kdd_less(m->khi, k))
		m->khi = k;
}

static int kdd_equal(struct kdd a, struct kdd b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

/* The references k S: k = 1, and for avg c P with c = RN_T(1/P) or, as
 * NCCL computes it for p < 24, RN_T(RN_24(1/P)) (spec/numerics.md 4.5). */
static void model_refs(struct model *m, cs_dtype_t d, cs_op_t op, int P)
{
	m->klo = m->khi = (struct kdd){1, 0};
	if (op == CS_OP_AVG)
		widen(m, times_p(cs_to_f64(d, cs_avg_scalar(d, P)), P));
	if (op == CS_OP_AVG && cs_dtype_prec(d) < 24)
		widen(m, times_p(cs_to_f64(d, cs_from_f64(d, (float)(1.0 / P), 0)),
				 P));
	m->one_ref = kdd_equal(m->klo, m->khi);
}

/* kB as golden.c forms B, and the model's sigma per unit of scale. */
static void model_coeffs(struct model *m, cs_dtype_t d, cs_op_t op, int P)
{
	double u = m->u, th = cs_theta(P - 1, u);
	double up = u + (cs_dtype_prec(d) < 24 ? 0x1p-23 : 0x1p-53);

	switch (op) {
	case CS_OP_SUM: /* P roundings of at most u A (1 + theta) */
		m->kB = th;
		m->ksig = sqrt((double)P) * u * (1 + th);
		break;
	case CS_OP_AVG: /* 2P roundings of at most u (A/P)(1+u')(1+u)(1+th) */
		m->kB = (1 + up) * (1 + u) * (1 + th) - 1;
		m->ksig = sqrt(2.0 * P) * u * (1 + up) * (1 + u) * (1 + th);
		break;
	case CS_OP_PREMULSUM: /* 2P roundings of at most u A'(1+u)(1+th) */
		m->kB = (1 + u) * (1 + th) - 1;
		m->ksig = sqrt(2.0 * P) * u * (1 + u) * (1 + th);
		break;
	case CS_OP_PROD: /* relative, (1 + u^2)^P - 1 */
		m->kB = 0;
		m->ksig = sqrt(expm1(P * log1p(u * u))) * (1 + 0x1p-40);
		break;
	case CS_OP_MAX:
	case CS_OP_MIN:
	case CS_NUM_OPS: /* exact ops and none: model_init refuses them */
		m->kB = 0;
		m->ksig = 0;
		break;
	}
	m->inv_kB = m->kB > 0 ? (1 + 0x1p-50) / m->kB : 0;
}

static int model_init(struct model *m, cs_dtype_t d, cs_op_t op, int P)
{
	if (!cs_is_float(d) || P < 2 || !(op == CS_OP_SUM || op == CS_OP_PROD ||
					  op == CS_OP_AVG || op == CS_OP_PREMULSUM))
		return 0;
	m->d = d;
	m->op = op;
	m->u = cs_unit_roundoff(d);
	m->inv_fuzz = (1 + 0x1p-50) / (1 + (P + 8) * 0x1p-50);
	m->ufl = 2.0 * P * cs_underflow_unit(d);
	m->nmin = ldexp(1.0, cs_dtype_emin(d));
	model_refs(m, d, op, P);
	model_coeffs(m, d, op, P);
	return 1;
}

static int plain(const cs_golden_t *g)
{
	return !(g->flags & NOT_PLAIN) && isfinite(g->s_hi) && g->s_hi != 0 &&
	       isfinite(g->bound) && g->bound > 0;
}

/* The error scale of one plain element: A for sum, A/P for avg, A' for
 * premulsum, |S| for prod (spec: a). Recovered from B, which exceeds
 * kB*a + u|S| by nonnegative terms only, so it is never below the true
 * scale. */
static double scale(const struct model *m, const cs_golden_t *g)
{
	double a;

	if (m->op == CS_OP_PROD)
		return fabs(g->s_hi);
	a = (g->bound * m->inv_fuzz - m->u * fabs(g->s_hi)) * m->inv_kB;
	return a > 0 ? a : g->bound * m->inv_kB;
}

/* Model standard deviation of the error of one plain element (spec:
 * sigma). */
static double sigma(const struct model *m, const cs_golden_t *g)
{
	return m->ksig * scale(m, g);
}

double cs_stats_sigma(cs_dtype_t d, cs_op_t op, int nranks,
		      const cs_golden_t *g)
{
	struct model m;

	if (!g || !model_init(&m, d, op, nranks) || !plain(g))
		return 0;
	return sigma(&m, g);
}

/* r - k (s_hi + s_lo), exact enough in sign that only an r equal to the
 * reference gives 0. */
static double offset(double r, const cs_golden_t *g, struct kdd k)
{
	double hi = k.hi * g->s_hi;
	double lo = fma(k.hi, g->s_hi, -hi) + k.hi * g->s_lo + k.lo * g->s_hi;

	return (r - hi) - lo;
}

static int sign_of(double x)
{
	return (x > 0) - (x < 0);
}

/*
 * One element: the number of bins it counts in, written to bin[], and its
 * energy term and cap; 0 when it is not a plain finite rounding case. Its
 * class: the signs of its
 * offsets from klo S and khi S and of S (a well-conditioned element, a <=
 * KAPPA |S|, counts in the second set of classes too); the sign check's
 * bins when |S| is beyond what underflow can erase. The energy is the
 * squared distance of r from the references (0 between them) over sigma^2.
 */
static int elem(const struct model *m, const cs_golden_t *g, uint64_t got,
		double *en, double *cap, int bin[4])
{
	double r = cs_to_f64(m->d, got), a, inv, e1, e2, x;
	int n = 0;

	/* below the normal range rounding errors are not relative to S, and
	 * round to nearest of a result below the least subnormal is 0, toward
	 * zero, on every element: no evidence of bias or precision */
	if (!plain(g) || !isfinite(r) || fabs(g->s_hi) < m->nmin)
		return 0;
	a = scale(m, g);
	inv = 1 / (m->ksig * a);
	if (!(inv > 0) || !isfinite(inv))
		return 0;
	e1 = offset(r, g, m->klo);
	e2 = m->one_ref ? e1 : offset(r, g, m->khi);
	x = g->bound * inv;
	*cap = x * x;
	x = (e1 > 0) != (e2 > 0) ? 0 : fmin(fabs(e1), fabs(e2)) * inv;
	*en = fmin(x * x, *cap);
	bin[n++] = CLASS(sign_of(e1), sign_of(e2), g->s_hi > 0);
	if (a <= KAPPA * fabs(g->s_hi))
		bin[n++] = bin[0] + NCLASS;
	if (fabs(g->s_hi) > m->ufl && m->klo.hi > 0) { /* c = 0 returns 0 */
		bin[n++] = BIN_SIGN_OFF;
		if (r == 0 || signbit(r) != signbit(g->s_hi)) /* no product:
								 it underflows */
			bin[n++] = BIN_SIGN_HIT;
	}
	return n;
}

/* Add the counts of class c (times cnt) to the four tests of set `set`:
 * toward against the reference nearest zero, away against the farthest,
 * up and down against the largest and the smallest. */
static void add_class(cs_stats_t *s, int set, int c, uint64_t cnt)
{
	int near = c % 9 / 3 - 1, far = c % 3 - 1, sg = c / 9 ? 1 : -1;
	int up = sg > 0 ? far : near, down = sg > 0 ? near : far;
	uint64_t *hit = s->hit + set * CS_STATS_NDIR;
	uint64_t *off = s->off + set * CS_STATS_NDIR;

	off[CS_STATS_TOWARD] += near ? cnt : 0;
	hit[CS_STATS_TOWARD] += near * sg < 0 ? cnt : 0;
	off[CS_STATS_AWAY] += far ? cnt : 0;
	hit[CS_STATS_AWAY] += far * sg > 0 ? cnt : 0;
	off[CS_STATS_UP] += up ? cnt : 0;
	hit[CS_STATS_UP] += up > 0 ? cnt : 0;
	off[CS_STATS_DOWN] += down ? cnt : 0;
	hit[CS_STATS_DOWN] += down < 0 ? cnt : 0;
}

static void add_bins(cs_stats_t *s, const uint64_t *cnt)
{
	int c;

	for (c = 0; c < NCLASS; c++) {
		add_class(s, 0, c, cnt[c]);
		add_class(s, 1, c, cnt[NCLASS + c]);
	}
	s->sign_off += cnt[BIN_SIGN_OFF];
	s->sign_hit += cnt[BIN_SIGN_HIT];
}

void cs_stats_init(cs_stats_t *s)
{
	memset(s, 0, sizeof *s);
	s->dtype = s->op = s->nranks = -1;
}

/* Record (d, op, P) in s, or mark it mixed when it differs. */
static void stamp(cs_stats_t *s, int32_t d, int32_t op, int32_t P)
{
	if (s->dtype < 0) {
		s->dtype = d;
		s->op = op;
		s->nranks = P;
	} else if (s->dtype != d || s->op != op || s->nranks != P) {
		s->mixed = 1;
	}
}

void cs_stats_add(cs_stats_t *s, cs_dtype_t d, cs_op_t op, int nranks,
		  const cs_golden_t *g, const void *got, size_t n)
{
	uint64_t cnt[NBINS] = {0}, used = 0;
	double en = 0, cap = 0, capmax = s->energy_capmax;
	struct model m;
	long long k;

	if (!n)
		return;
	stamp(s, (int32_t)d, (int32_t)op, (int32_t)nranks);
	s->n_seen += n;
	if (!model_init(&m, d, op, nranks))
		return;
#pragma omp parallel for if (n > 16384) schedule(static) \
	reduction(+ : cnt[:NBINS], used, en, cap) reduction(max : capmax)
	for (k = 0; k < (long long)n; k++) {
		double e = 0, c = 0;
		int bin[4], nb, i;

		nb = elem(&m, &g[k], cs_load(d, got, (size_t)k), &e, &c, bin);
		for (i = 0; i < nb; i++)
			cnt[bin[i]]++;
		used += nb > 0;
		en += e;
		cap += c;
		if (c > capmax)
			capmax = c;
	}
	add_bins(s, cnt);
	s->n_used += used;
	s->energy += en;
	s->energy_cap += cap;
	s->energy_capmax = capmax;
}

void cs_stats_merge(cs_stats_t *dst, const cs_stats_t *src)
{
	int t;

	if (src->dtype < 0)
		return;
	if (dst->dtype < 0) {
		*dst = *src;
		return;
	}
	stamp(dst, src->dtype, src->op, src->nranks);
	dst->mixed |= src->mixed;
	dst->n_seen += src->n_seen;
	dst->n_used += src->n_used;
	dst->sign_off += src->sign_off;
	dst->sign_hit += src->sign_hit;
	for (t = 0; t < CS_STATS_NTEST; t++) {
		dst->hit[t] += src->hit[t];
		dst->off[t] += src->off[t];
	}
	dst->energy += src->energy;
	dst->energy_cap += src->energy_cap;
	dst->energy_capmax = fmax(dst->energy_capmax, src->energy_capmax);
}

/* ---- verdict ------------------------------------------------------------- */

/*
 * Model constants (spec/numerics.md, "Statistical verdicts"). BIAS_Q0: the
 * largest probability that a conforming result off its reference lies in
 * a given direction (1/2 under symmetric rounding, plus an allowance for
 * the bias round to nearest itself shows on random-mode inputs). SIGN_Q0:
 * the largest probability that a conforming result that underflow cannot
 * erase is 0 or has the other sign. BIAS_PMAX: the largest P at which
 * BIAS_Q0 was measured; beyond it the bias check warns only.
 */
#define BIAS_Q0 0.65
#define SIGN_Q0 0.5
#define BIAS_PMAX 1024
/* float8_e4m3 sum: judged with BIAS_Q0 on the four tests over every
 * element, for P up to F8_PMAX, the range measured (spec 8.4). */
#define F8_PMAX 64

/* One check's outcome: level, strength (its score over its FAIL threshold)
 * and the line that states its figures. */
struct finding {
	int level;
	double strength;
	char line[320];
};

/* Kullback-Leibler divergence of Bernoulli(a) from Bernoulli(b). */
static double kl(double a, double b)
{
	double x = a > 0 ? a * log(a / b) : 0;

	return x + (a < 1 ? (1 - a) * log((1 - a) / (1 - b)) : 0);
}

/* Chernoff: -log of the largest probability that Binomial(m, q0) reaches
 * k (0 when k/m <= q0). */
static double binom_score(uint64_t k, uint64_t m, double q0)
{
	double q = m ? (double)k / (double)m : 0;

	return q > q0 ? (double)m * kl(q, q0) : 0;
}

static void set_level(struct finding *f, double score, int cap)
{
	f->level = score >= LN_FAIL ? CS_STATS_FAIL :
		   score >= LN_WARN ? CS_STATS_WARN : CS_STATS_PASS;
	if (f->level > cap)
		f->level = cap;
	f->strength = score / LN_FAIL;
}

static const char *const dir_name[CS_STATS_NDIR] = {
	"on the zero side of", "away from zero beyond", "above", "below"
};

/* The direction tests judged: all of them for the wider formats; for
 * float8_e4m3 sum at P <= F8_PMAX the four over every element; none for
 * other float8 cases, where round to nearest itself leans toward zero by up
 * to 100% (spec 8.4). */
static int bias_tests(const cs_stats_t *s)
{
	if (cs_dtype_prec((cs_dtype_t)s->dtype) >= 8)
		return CS_STATS_NTEST;
	if (s->dtype == CS_DTYPE_FLOAT8_E4M3 && s->op == CS_OP_SUM &&
	    s->nranks <= F8_PMAX)
		return CS_STATS_NDIR;
	return 0;
}

/* The direction test with the largest score among those judged. */
static void judge_bias(const cs_stats_t *s, struct finding *f)
{
	double best = 0, sc;
	int t, tb = 0, nt = bias_tests(s);

	for (t = 0; t < nt; t++) {
		sc = binom_score(s->hit[t], s->off[t], BIAS_Q0);
		if (sc > best || (sc == best && s->hit[t] * s->off[tb] >
					       s->hit[tb] * s->off[t])) {
			best = sc;
			tb = t;
		}
	}
	set_level(f, best, s->nranks > BIAS_PMAX ? CS_STATS_WARN
						 : CS_STATS_FAIL);
	snprintf(f->line, sizeof f->line,
		 "bias: %llu of %llu%s results off the reference lie %s it "
		 "(%.1f%%, conforming <= %.0f%%): m*KL = %.1f (WARN %.1f, FAIL "
		 "%.1f)", (unsigned long long)s->hit[tb],
		 (unsigned long long)s->off[tb],
		 tb >= CS_STATS_NDIR ? " well-conditioned" : "",
		 dir_name[tb % CS_STATS_NDIR],
		 s->off[tb] ? 100.0 * (double)s->hit[tb] / (double)s->off[tb] : 0,
		 100 * BIAS_Q0, best, LN_WARN, LN_FAIL);
	if (!nt) {
		f->level = CS_STATS_PASS;
		f->strength = 0;
		snprintf(f->line, sizeof f->line, "bias: not judged for float8 "
			 "(but float8_e4m3 sum at P <= %d)", F8_PMAX);
	}
}

static void judge_sign(const cs_stats_t *s, struct finding *f)
{
	double sc = binom_score(s->sign_hit, s->sign_off, SIGN_Q0);

	set_level(f, sc, CS_STATS_FAIL);
	snprintf(f->line, sizeof f->line,
		 "sign: %llu of %llu results are 0 or of the other sign than S "
		 "(%.1f%%, conforming <= %.0f%%): m*KL = %.1f (WARN %.1f, FAIL "
		 "%.1f)", (unsigned long long)s->sign_hit,
		 (unsigned long long)s->sign_off,
		 s->sign_off ? 100.0 * (double)s->sign_hit / (double)s->sign_off
			     : 0, 100 * SIGN_Q0, sc, LN_WARN, LN_FAIL);
}

/* Bernstein: the excess over the mean bound m that a sum of independent
 * terms in [0, cap_i] with mean <= 1 (so variance <= cap_i) exceeds with
 * probability at most e^-L. */
static double bernstein_excess(const cs_stats_t *s, double L)
{
	double b = s->energy_capmax * L / 3;

	return b + sqrt(b * b + 2 * L * s->energy_cap);
}

/* float8 warns only: its rounding errors are measurably not mean-zero. */
static void judge_precision(const cs_stats_t *s, struct finding *f)
{
	double m = (double)s->n_used, tf = bernstein_excess(s, LN_FAIL);
	double tw = bernstein_excess(s, LN_WARN), ex = s->energy - m;
	int cap = cs_dtype_prec((cs_dtype_t)s->dtype) < 8 ? CS_STATS_WARN
							    : CS_STATS_FAIL;

	f->level = ex >= tf ? CS_STATS_FAIL : ex >= tw ? CS_STATS_WARN
						: CS_STATS_PASS;
	if (f->level > cap)
		f->level = cap;
	f->strength = ex / tf;
	snprintf(f->line, sizeof f->line,
		 "precision: mean squared error %.3g model variances over %llu "
		 "elements (WARN above %.3g, FAIL above %.3g)",
		 s->energy / m, (unsigned long long)s->n_used, (m + tw) / m,
		 (m + tf) / m);
}

static void put(char *dst, size_t n, const char *src)
{
	if (dst && n)
		snprintf(dst, n, "%s", src);
}

static const char *const check_name[3] = {"sign", "bias", "precision"};

int cs_stats_judge(const cs_stats_t *s, char *check, size_t check_n,
		   char *reason, size_t reason_n)
{
	struct finding f[3];
	char line[1100];
	int i, w = 0;

	if (s->mixed || s->n_used == 0) {
		put(check, check_n, "stats");
		snprintf(line, sizeof line, "statistics skipped: %s",
			 s->mixed ? "elements of different dtypes, ops or rank "
				    "counts were merged"
				  : "no plain finite rounding case");
		put(reason, reason_n, line);
		return CS_STATS_PASS;
	}
	judge_sign(s, &f[0]);
	judge_bias(s, &f[1]);
	judge_precision(s, &f[2]);
	for (i = 1; i < 3; i++)
		if (f[i].level > f[w].level ||
		    (f[i].level == f[w].level && f[i].strength > f[w].strength))
			w = i;
	if (f[w].level == CS_STATS_PASS) {
		put(check, check_n, "stats");
		snprintf(line, sizeof line, "%s; %s; %s; %llu of %llu elements "
			 "used", f[0].line, f[1].line, f[2].line,
			 (unsigned long long)s->n_used,
			 (unsigned long long)s->n_seen);
	} else {
		put(check, check_n, check_name[w]);
		snprintf(line, sizeof line, "%s; %llu of %llu elements used",
			 f[w].line, (unsigned long long)s->n_used,
			 (unsigned long long)s->n_seen);
	}
	put(reason, reason_n, line);
	return f[w].level;
}
