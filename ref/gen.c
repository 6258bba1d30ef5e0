/*
 * gen.c - deterministic input generators (see csref/gen.h).
 *
 * Stream. key = cs_case_key(c) (seed, collective, dtype, op, mode) and P
 * give the case stream base = mix(key ^ P*G). Element `index` has the
 * per-index hash h = mix(base ^ index); rank r's value at that index comes
 * from v = mix(h + (r+1)*G'), where mix is cs_mix64 and G, G' are odd
 * constants. Every choice that concerns the whole index (pattern, common
 * exponent, which ranks play which role) is taken from h (and mix(h ^ salt)),
 * so all ranks agree on it without communicating; every per-rank choice from
 * v. Nothing else enters: the generator is a pure function of (key, P, rank,
 * index). PREMULSUM scalars come from mix(base ^ salt ^ (r+1)*G'), one per
 * rank, independent of the index. Notation: p precision (hidden bit
 * included), emin/emax the normal exponent range, M max finite, u = 2^-p,
 * lp = ceil(log2 P), "k*2^e" an integer k times a power of two.
 *
 * exact mode (every partial result, in every order and association, with
 * rounding to the dtype after every step, is exactly representable):
 *  - integers, every op: uniform in [-100, 100] (signed), [0, 100]
 *    (unsigned); PREMULSUM scalars in [-3, 3] ([0, 3]).
 *  - op none (data movement): readable (rank*1000 + index) mod R, with
 *    R = 2^min(p, 24) for floats (an integer < 2^p, exact), 2^(bits-1) for
 *    integers (non-negative).
 *  - float sum/avg: x_r = k_r * 2^e, |k_r| <= m, one e per index. At most nz
 *    ranks are nonzero and nz*m <= 2^q with q <= p, so every partial sum is
 *    an integer K, |K| <= 2^q, times 2^e. e is uniform in [elo, emax - q]
 *    (so |K|*2^e <= 2^emax <= M) with elo = emin - p + 1 + t (2^e is at
 *    least the subnormal quantum). t = 0 for sum; t = lp for avg, so that
 *    x_r * 2^-t (the premultiplication by 1/P, or the sum divided by P)
 *    stays a multiple of the subnormal quantum: exact when P is a power of
 *    two; for other P avg is inexact and checked with its bound (same
 *    inputs). q = min(p, emax - elo); it is p except for avg with a large P
 *    (e.g. float16 P > 2^28). No q >= 0 exists when t > emax - emin + p - 1
 *    (float8_e4m3 with P > 2^17): then avg is not exact for any inputs and
 *    the generator uses q = 0, e = emax. nz = min(P, 2^q), m = floor(2^q /
 *    nz); when P > nz the nonzero ranks are nz consecutive ranks (mod P)
 *    starting at an offset chosen by the index; the others hold +0. k_r is
 *    uniform in [-m, m]; for a quarter of the indices the bound is m >> s,
 *    s random, so small sums occur too. Zeros are +0, so a zero result is +0
 *    in every order.
 *  - float premulsum: scalars alpha_r = +-2^s_r with s_r uniform in
 *    [slo, slo + sd], sd = clamp(floor((p - lp) / 2), 0, 4), slo = -floor(sd
 *    / 2); inputs k_r * 2^e as for sum, with q = p - sd. Every product
 *    alpha_r x_r = +-k_r 2^(e + s_r) and every partial sum is an integer of
 *    magnitude <= nz*m*2^sd <= 2^p times 2^(e + slo): exact when e + slo >=
 *    emin - p + 1 and e + slo + p <= emax, so e is in [emin - p + 1 - slo,
 *    emax - p - slo]. The condition is nz * m * 2^(max s - min s) <= 2^p.
 *    P = 1 has a single product k_0 2^(e + s_0): q = p, e <= emax - p - slo
 *    - sd. float8_e5m2 (p = 3) gets scalars in {+-1, +-2} for P <= 2 and +-1
 *    for P >= 3; float8_e4m3 (p = 4) {+-1/2, +-1, +-2} for P = 1, {+-1, +-2}
 *    for P <= 4, +-1 above.
 *  - float prod: x_r = +-2^k_r except one rank j (chosen by the index) whose
 *    value has a random p-bit mantissa in [1, 2). Only w ranks (a window of
 *    consecutive ranks, w <= min(P, 4), offset chosen by the index) have
 *    k_r != 0, with |k_r| <= a and w*a <= L = min(emax - 1, -emin - 1): any
 *    subset product is mantissa * 2^S with |S| <= L, i.e. in [2^(emin+1),
 *    2^emax), normal and finite. For 1/16 of the indices one rank holds a
 *    zero (random sign); every partial with it is a zero whose sign is the
 *    xor of the signs, the same in every order.
 *  - max/min: +-c * 2^e, c in {0, 1, 2, 3}, one e per index in [emin,
 *    emax - 2]: few distinct values, so ties happen; c = 0 gives +0 or -0.
 *
 * random mode (checked with the error bound; no partial overflows):
 *  - float sum/avg/premulsum: a target y_r is drawn, x_r = y_r / alpha_r
 *    rounded (alpha = 1 except premulsum), so that sum |alpha_r x_r| <= M/2
 *    at every index. With etop = emax - 2 - lp (premulsum: also <= emax - 5,
 *    so that |x| <= 16|y| stays finite), per index one of:
 *    (a) 7/16: normal-ish: y = (u1+u2+u3+u4 - 2 + fine bits) * 2^e, ui
 *        uniform, |y| < 2^(e+1), e per index uniform in [emin, etop];
 *    (b) 3/16: heavy cancellation: y = +-B (+ for even ranks, - for odd,
 *        the last rank of an odd P holds no B) plus noise B*2^-j*U(-1,1),
 *        j in [1, p+3] per index, B = (1+f) 2^eb, eb in [emin, etop - 1];
 *    (c) 3/16: wide dynamic range: y = +-(1+f) 2^e_r, e_r per rank uniform
 *        in [emin - p + 1, etop] (subnormal up to large);
 *    (d) 3/16: near the limit: |y| = U * Lim, Lim = M/(2P) (premulsum:
 *        min(M/(2P), M/16)), U = 1 - 2^-10 at every rank for half of these
 *        indices (sum |alpha x| just below M/2), else uniform in (0.499,
 *        1 - 2^-10]; x is rounded toward zero, so |alpha x| <= |y| and the
 *        sum of |alpha x| is <= M/2 (rounding to nearest would exceed it).
 *    In (a)-(c) |y| <= 2^(etop+1) and rounding to nearest adds at most a
 *    factor (1+u): P * 2^(etop+1) * (1+u) <= 2^(emax-1) (1+u) <= M/2.
 *  - float prod: w = min(P, emax) ranks (a window as above; the others
 *    +-1) hold +-(1+f) 2^k_r, random p-bit mantissa, random sign, k_r
 *    uniform in [c - a, c + a]; per index a in [0, A] and c in [lo + a,
 *    hi - a - 1] with hi = floor(emax / w), lo = ceil(emin / w),
 *    A = (hi - lo - 1) / 2. Any subset S of the window has exponent sum in
 *    [|S|(c - a), |S|(c + a)] and mantissa product in [1, 2^|S|), so every
 *    partial product (rounded or not) lies in [2^emin, 2^emax].
 *  - max/min: uniformly random bit patterns made finite (an all-ones
 *    exponent loses its top bit); for 1/4 of the indices each rank picks one
 *    of 3 per-index values, so ties occur.
 *  - premulsum scalars: +-(1+f) 2^j, j uniform in [-4, 3], rounded: their
 *    magnitudes lie in [2^-4, 2^4], signs mixed.
 *  - integers (every op, scalars too) and op none: uniformly random bits of
 *    the dtype; for op none floats this includes NaNs with any payload.
 *
 * special mode:
 *  - float reducing ops: per index one pattern (uniform) among: NaN at one
 *    rank; NaN at all ranks; +Inf at one rank; +Inf and -Inf at two ranks;
 *    -0 at all ranks; mixed +0/-0 (both present when P >= 2); all subnormal
 *    (one rank holds +min subnormal); +max at one rank; +max at every rank;
 *    -max and +max at two ranks; prod adds 0 with Inf at two ranks; max and
 *    min add NaN at some ranks (at least one NaN, at least one number when
 *    P >= 2). The roles go to rank j (chosen by the index) and j2 != j; with
 *    P = 1 a two-rank pattern keeps only j's value. Ranks without a role
 *    hold small numbers +-(1+f) 2^k, k in [-2, 2]. NaNs are quiet with a
 *    random payload and sign. float8_e4m3 has no Inf: an Inf is replaced by
 *    the max finite value of that sign.
 *  - integers: each rank one of INT_MIN, INT_MAX, 0, -1 (UINT_MAX), 1 (bit
 *    patterns of the dtype's width).
 *  - op none, floats: per element one of: quiet NaN with a non-canonical
 *    payload, signalling NaN, +Inf, -Inf, +0, -0, subnormal, +-max, random
 *    bits (e4m3: its two NaNs and +-max in place of Inf).
 *  - premulsum scalars: 0 (1/8), 2 (1/8), +1 (3/8), -1 (3/8).
 *
 * Cost: a few cs_mix64 calls and one rounding per value, no log/exp/trig;
 * cs_gen_input runs at about 20-40 million values per second on one core.
 */
#include <stdint.h>
#include <string.h>
#include "csref/gen.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/genbits.h"

#define GOLD CS_GEN_GOLD   /* per-stream multiplier (csref/genbits.h) */
#define RANKG CS_GEN_RANKG /* per-rank multiplier */
#define SALT_A 0x5851f42d4c957f2dull
#define SALT_B 0x14057b7ef767814full
#define SALT_SCALAR CS_GEN_SALT_SCALAR

/* splitmix64's finalizer (csref/genbits.h, shared with the device
 * check), inlined into the generators' inner loops. */
static inline uint64_t mix(uint64_t x)
{
	return cs_genbits_mix(x);
}

uint64_t cs_mix64(uint64_t x)
{
	return mix(x);
}

/* Everything about a case the generator needs, derived once per call. */
struct gen {
	uint64_t base;   /* stream of (case key, P) */
	cs_dtype_t d;
	cs_op_t op;      /* or CS_OP_NONE */
	cs_mode_t mode;
	int P, lp;       /* rank count and ceil(log2 P) */
	int isf;
	cs_fmt_t f;
	int p, emin, emax;
	/* exact sum/avg/premulsum: k*2^e, |k| <= m, e in [elo, ehi] */
	int elo, ehi, q, slo, sd;
	uint64_t nz, m;
	int etop;        /* random sums: |y| < 2^(etop+1) */
	int w;           /* random prod: window size */
};

/* ---- small helpers -------------------------------------------------------- */

static uint64_t sign_bit(const struct gen *g) { return cs_fmt_sign(g->f); }

/* Uniform in [0, n) from `bits` random bits of r starting at `shift`. */
static uint64_t field(uint64_t r, int shift, int bits, uint64_t n)
{
	uint64_t x = (r >> shift) & (((uint64_t)1 << bits) - 1);

	return (x * n) >> bits;
}

/* Uniform in [0, n) for any n >= 1 (n > 2^32: modulo, negligible bias). */
static uint64_t below(uint64_t r, uint64_t n)
{
	if (n <= 0xffffffffull)
		return field(r, 32, 32, n);
	return (r >> 1) % n;
}

static int irange(uint64_t r, int shift, int bits, int lo, int hi)
{
	if (hi <= lo)
		return hi;
	return lo + (int)field(r, shift, bits, (uint64_t)(hi - lo) + 1);
}

static int ceil_log2(uint64_t n)
{
	int k = 0;

	while (k < 63 && ((uint64_t)1 << k) < n)
		k++;
	return k;
}

static int min_i(int a, int b) { return a < b ? a : b; }
static int max_i(int a, int b) { return a > b ? a : b; }

/* 2^e as a double (exact for e >= -1074). */
static double pow2(int e)
{
	if (e >= -1022 && e <= 1023)
		return cs_bits_to_f64((uint64_t)(e + 1023) << 52);
	return ldexp(1.0, e);
}

/* Uniform double in [0, 1) with 53 random bits. */
static double unit(uint64_t r)
{
	return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * cs_from_f64(d, x, 0), with a fast path for results in the normal range
 * (the common case): round the double's mantissa to nearest even directly.
 */
static uint64_t enc(const struct gen *g, double x)
{
	uint64_t b = cs_f64_to_bits(x), a = b & ~((uint64_t)1 << 63), q, r;
	int e = (int)(a >> 52) - 1023, sh = 52 - g->f.mbits;

	if (g->d == CS_DTYPE_FLOAT64)
		return b;
	if (g->d == CS_DTYPE_FLOAT32) /* the cast rounds the same way */
		return cs_from_f64(g->d, x, 0);
	if (e < g->emin || e > g->emax)
		return cs_from_f64(g->d, x, 0);
	q = (a & (((uint64_t)1 << 52) - 1)) >> sh;
	r = a & (((uint64_t)1 << sh) - 1);
	if (r > ((uint64_t)1 << (sh - 1)) ||
	    (r == ((uint64_t)1 << (sh - 1)) && (q & 1)))
		q++; /* a carry out of the mantissa bumps the exponent */
	q += (uint64_t)(e + cs_fmt_bias(g->f)) << g->f.mbits;
	if (q > cs_fmt_maxbits(g->f))
		return cs_from_f64(g->d, x, 0);
	return (b >> 63) ? q | sign_bit(g) : q;
}

/* cs_to_f64(d, b), with a fast path for normal numbers. */
static double dec(const struct gen *g, uint64_t b)
{
	uint64_t e = (b >> g->f.mbits) & cs_fmt_emask(g->f);
	uint64_t m = b & cs_fmt_mmask(g->f);

	if (g->d == CS_DTYPE_FLOAT64 || g->d == CS_DTYPE_FLOAT32 || e == 0 ||
	    e == cs_fmt_emask(g->f))
		return cs_to_f64(g->d, b);
	m = (m << (52 - g->f.mbits)) |
	    ((e - (uint64_t)cs_fmt_bias(g->f) + 1023) << 52);
	return cs_bits_to_f64((b & sign_bit(g)) ? m | ((uint64_t)1 << 63) : m);
}

/* Largest finite value of the dtype, as a double (exact). */
static double max_finite(const struct gen *g)
{
	return cs_fmt_decode(g->f, cs_fmt_maxbits(g->f));
}

/* Bits of +-(1 + mantissa bits) * 2^k for a normal exponent k. */
static uint64_t normal_bits(const struct gen *g, int neg, int k, uint64_t mant)
{
	uint64_t b = ((uint64_t)(k + cs_fmt_bias(g->f)) << g->f.mbits) |
		     (mant & cs_fmt_mmask(g->f));

	return neg ? b | sign_bit(g) : b;
}

/* The rank's position in a window of consecutive ranks starting at off. */
static uint64_t window_pos(const struct gen *g, int rank, uint64_t off)
{
	return ((uint64_t)rank + (uint64_t)g->P - off) % (uint64_t)g->P;
}

/* ---- parameters ------------------------------------------------------------ */

static void exact_sum_params(struct gen *g)
{
	int p = g->p, q, lo;

	g->slo = 0;
	g->sd = 0;
	if (g->op == CS_OP_PREMULSUM) {
		g->sd = min_i(max_i((p - g->lp) / 2, 0), 4);
		g->slo = -(g->sd / 2);
		q = g->P == 1 ? p : p - g->sd;
		lo = g->emin - p + 1 - g->slo;
		g->ehi = g->emax - p - g->slo - (g->P == 1 ? g->sd : 0);
	} else {
		lo = g->emin - p + 1 + (g->op == CS_OP_AVG ? g->lp : 0);
		q = min_i(p, g->emax - lo);
		if (q < 0) { /* avg cannot be exact: see the top comment */
			q = 0;
			lo = g->emax;
		}
		g->ehi = g->emax - q;
	}
	g->elo = lo;
	g->q = q;
	g->nz = (uint64_t)g->P <= ((uint64_t)1 << q) ? (uint64_t)g->P
						      : (uint64_t)1 << q;
	g->m = ((uint64_t)1 << q) / g->nz;
}

static void gen_init(struct gen *g, const cs_case_t *c)
{
	g->d = c->dtype;
	g->op = (unsigned)c->op < CS_NUM_OPS ? (int)c->op : CS_OP_NONE;
	g->mode = c->mode;
	g->P = c->nranks < 1 ? 1 : c->nranks;
	g->lp = ceil_log2((uint64_t)g->P);
	g->base = mix(cs_case_key(c) ^ ((uint64_t)g->P * GOLD));
	g->isf = cs_is_float(g->d);
	if (!g->isf)
		return;
	g->f = cs_fmt_of(g->d);
	g->p = cs_dtype_prec(g->d);
	g->emin = cs_dtype_emin(g->d);
	g->emax = cs_dtype_emax(g->d);
	if (g->mode == CS_MODE_EXACT)
		exact_sum_params(g);
	g->etop = g->emax - 2 - g->lp;
	if (g->op == CS_OP_PREMULSUM)
		g->etop = min_i(g->etop, g->emax - 5);
	g->w = min_i(g->P, g->emax);
}

/* ---- scalars --------------------------------------------------------------- */

static uint64_t int_small(const struct gen *g, uint64_t v, int lim)
{
	if (cs_is_signed_int(g->d))
		return (uint64_t)((int64_t)below(v, 2 * (uint64_t)lim + 1) - lim) &
		       cs_bits_mask(g->d);
	return below(v, (uint64_t)lim + 1);
}

/* 0 (1/8), 2 (1/8), +1 (3/8), -1 (3/8). */
static double special_scalar(uint64_t v)
{
	uint64_t k = field(v, 0, 8, 8);

	return k == 0 ? 0.0 : k == 1 ? 2.0 : k < 5 ? 1.0 : -1.0;
}

static uint64_t scalar_of(const struct gen *g, int rank)
{
	uint64_t v = mix(g->base ^ SALT_SCALAR ^ ((uint64_t)rank + 1) * RANKG);
	int neg = (int)(v & 1);
	double a;

	if (g->mode == CS_MODE_SPECIAL) {
		a = special_scalar(v);
		if (!g->isf)
			return (uint64_t)(int64_t)a & cs_bits_mask(g->d);
		return enc(g, a);
	}
	if (!g->isf)
		return g->mode == CS_MODE_EXACT ? int_small(g, v, 3)
			: cs_genbits_scalar(g->base, rank, cs_bits_mask(g->d));
	if (g->mode == CS_MODE_EXACT)
		a = pow2(g->slo + (int)field(v, 8, 16, (uint64_t)g->sd + 1));
	else
		a = (1.0 + unit(v)) * pow2(irange(v, 1, 10, -4, 3));
	return enc(g, neg ? -a : a);
}

/* ---- exact mode ------------------------------------------------------------ */

static uint64_t exact_moved(const struct gen *g, int rank, size_t index)
{
	uint64_t n = (uint64_t)rank * 1000u + (uint64_t)index;

	if (!g->isf) {
		int bits = 8 * cs_size_of(g->d) - 1;
		return n & (((uint64_t)1 << bits) - 1);
	}
	n &= ((uint64_t)1 << min_i(g->p, 24)) - 1;
	return enc(g, (double)n);
}

static uint64_t exact_sum(const struct gen *g, uint64_t h, int rank,
			  uint64_t v)
{
	uint64_t h2 = mix(h ^ SALT_A), kmax = g->m, k;
	int e = irange(h, 0, 32, g->elo, g->ehi);
	double x;

	if (window_pos(g, rank, below(h, (uint64_t)g->P)) >= g->nz)
		return 0;
	if (field(h2, 0, 8, 4) == 0)
		kmax >>= field(h2, 8, 8, (uint64_t)g->q + 1);
	k = below(v, 2 * kmax + 1);
	x = (double)((int64_t)k - (int64_t)kmax) * pow2(e);
	return x == 0 ? 0 : enc(g, x);
}

static uint64_t exact_prod(const struct gen *g, uint64_t h, int rank,
			   uint64_t v)
{
	uint64_t h2 = mix(h ^ SALT_A), P = (uint64_t)g->P;
	int L = min_i(g->emax - 1, -g->emin - 1);
	int w = 1 + (int)field(h2, 32, 8, (uint64_t)min_i(g->P, 4));
	int a = (int)field(h2, 40, 16, (uint64_t)(L / w) + 1);
	uint64_t j = below(h, P), off = field(h2, 0, 32, P);
	int neg = (int)(v & 1), k = 0;

	if (field(h2, 56, 8, 16) == 0 && (uint64_t)rank == (j + 1) % P)
		return neg ? sign_bit(g) : 0;
	if (window_pos(g, rank, off) < (uint64_t)w)
		k = -a + (int)field(v, 1, 16, 2 * (uint64_t)a + 1);
	return normal_bits(g, neg, k, (uint64_t)rank == j ? mix(v) : 0);
}

static uint64_t exact_maxmin(const struct gen *g, uint64_t h, uint64_t v)
{
	int e = irange(h, 0, 16, g->emin, g->emax - 2);
	double x = (double)field(v, 1, 8, 4) * pow2(e);

	return enc(g, (v & 1) ? -x : x);
}

static uint64_t gen_exact(const struct gen *g, uint64_t h, int rank,
			  size_t index, uint64_t v)
{
	if (g->op == CS_OP_NONE)
		return exact_moved(g, rank, index);
	if (!g->isf)
		return int_small(g, v, 100);
	switch (g->op) {
	case CS_OP_PROD:
		return exact_prod(g, h, rank, v);
	case CS_OP_MAX:
	case CS_OP_MIN:
		return exact_maxmin(g, h, v);
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
		return exact_sum(g, h, rank, v);
	case CS_NUM_OPS: /* CS_OP_NONE: returned above */
		break;
	}
	return exact_moved(g, rank, index);
}

/* ---- random mode ----------------------------------------------------------- */

/* Round y/alpha to the dtype; toward zero when rtz (bound-critical). */
static uint64_t divide_round(const struct gen *g, double y, double alpha,
			     int rtz)
{
	double x = alpha == 1.0 ? y : y / alpha;
	uint64_t b = enc(g, x);

	if (rtz && fabs(dec(g, b)) > fabs(x))
		b--; /* one step toward zero: sign-magnitude encoding */
	return b;
}

/* Patterns (a)-(c) of random sums: the target y of rank r. */
static double random_target(const struct gen *g, int pat, uint64_t h,
			    int rank, uint64_t v)
{
	uint64_t h2;
	double y, b;
	int e;

	if (pat < 7) { /* (a) normal-ish */
		double s = (double)(field(v, 0, 16, 65536) + field(v, 16, 16, 65536) +
				    field(v, 32, 16, 65536) + field(v, 48, 16, 65536));
		y = (s - 131070.0 + unit(mix(v))) * (1.0 / 65536.0);
		return y * pow2(irange(h, 16, 16, g->emin, g->etop));
	}
	if (pat < 10) { /* (b) heavy cancellation */
		h2 = mix(h ^ SALT_A);
		e = irange(h, 16, 16, g->emin, g->etop - 1);
		b = (1.0 + unit(h2)) * pow2(e) * ((h2 >> 8 & 1) ? -1.0 : 1.0);
		y = b * pow2(-irange(h2, 0, 8, 1, g->p + 3)) *
		    (2.0 * unit(v) - 1.0);
		if (rank % 2 == 0 && rank + 1 == g->P)
			return y;
		return (rank % 2) ? y - b : y + b;
	}
	/* (c) wide dynamic range */
	y = (1.0 + unit(mix(v))) *
	    pow2(irange(v, 0, 32, g->emin - g->p + 1, g->etop));
	return (v >> 32 & 1) ? -y : y;
}

static uint64_t random_sum(const struct gen *g, uint64_t h, int rank,
			   uint64_t v)
{
	int pat = (int)field(h, 0, 8, 16);
	double alpha = 1.0, y, lim, big;

	if (g->op == CS_OP_PREMULSUM)
		alpha = dec(g, scalar_of(g, rank));
	if (pat < 13)
		return divide_round(g, random_target(g, pat, h, rank, v), alpha, 0);
	/* (d) near the limit */
	big = max_finite(g);
	lim = big / (2.0 * g->P);
	if (g->op == CS_OP_PREMULSUM && lim > big / 16)
		lim = big / 16;
	y = (1.0 - 1.0 / 1024 - ((h >> 8 & 1) ? 0.5 * unit(v) : 0.0)) * lim;
	return divide_round(g, (mix(v) & 1) ? -y : y, alpha, 1);
}

static uint64_t random_prod(const struct gen *g, uint64_t h, int rank,
			    uint64_t v)
{
	uint64_t h2 = mix(h ^ SALT_A);
	int hi = g->emax / g->w;                   /* floor: emax > 0 */
	int lo = -((-g->emin) / g->w);             /* ceil: emin < 0 */
	int a = (int)field(h2, 0, 16, (uint64_t)(hi - lo - 1) / 2 + 1);
	int c = irange(h2, 16, 16, lo + a, hi - a - 1), k = 0;
	int neg = (int)(v & 1);

	if (window_pos(g, rank, below(h, (uint64_t)g->P)) >= (uint64_t)g->w)
		return normal_bits(g, neg, 0, 0);
	k = irange(v, 1, 16, c - a, c + a);
	return normal_bits(g, neg, k, mix(v));
}

/* Random bits of the dtype, made finite. */
static uint64_t finite_bits(const struct gen *g, uint64_t r)
{
	uint64_t b = r & cs_bits_mask(g->d);

	if (cs_fmt_isnan(g->f, b) || cs_fmt_isinf(g->f, b))
		b &= ~((uint64_t)1 << (g->f.mbits + g->f.ebits - 1));
	return b;
}

static uint64_t random_maxmin(const struct gen *g, uint64_t h, uint64_t v)
{
	if (field(h, 0, 8, 4) == 0) /* ties: one of 3 per-index values */
		return finite_bits(g, mix(h ^ (SALT_B + field(v, 0, 16, 3))));
	return finite_bits(g, v);
}

static uint64_t gen_random(const struct gen *g, uint64_t h, int rank,
			   uint64_t v)
{
	if (!g->isf || g->op == CS_OP_NONE)
		return v & cs_bits_mask(g->d);
	switch (g->op) {
	case CS_OP_PROD:
		return random_prod(g, h, rank, v);
	case CS_OP_MAX:
	case CS_OP_MIN:
		return random_maxmin(g, h, v);
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
		return random_sum(g, h, rank, v);
	case CS_NUM_OPS: /* CS_OP_NONE: returned above */
		break;
	}
	return v & cs_bits_mask(g->d);
}

/* ---- special mode ---------------------------------------------------------- */

enum special_pattern {
	SP_NAN1, SP_NANALL, SP_INF1, SP_INFPAIR, SP_NEGZERO, SP_MIXZERO,
	SP_SUBN, SP_MAX1, SP_MAXALL, SP_MAXPAIR, SP_COMMON, /* all ops */
	SP_ZEROINF = SP_COMMON,                           /* prod */
	SP_NANSOME = SP_COMMON                            /* max, min */
};

static uint64_t sp_inf(const struct gen *g, int neg)
{
	uint64_t b = g->f.fn ? cs_fmt_maxbits(g->f) : cs_fmt_infbits(g->f);

	return neg ? b | sign_bit(g) : b;
}

static uint64_t sp_nan(const struct gen *g, uint64_t r)
{
	uint64_t b = cs_fmt_nanbits(g->f);

	if (!g->f.fn) /* quiet, random payload */
		b |= (r >> 1) & (cs_fmt_mmask(g->f) >> 1);
	return (r & 1) ? b | sign_bit(g) : b;
}

static uint64_t sp_max(const struct gen *g, int neg)
{
	return cs_fmt_maxbits(g->f) | (neg ? sign_bit(g) : 0);
}

static uint64_t sp_small(const struct gen *g, uint64_t v)
{
	return normal_bits(g, (int)(v & 1), irange(v, 1, 8, -2, 2), v >> 9);
}

/* A random nonzero subnormal, or the smallest one when tiny. */
static uint64_t sp_subnormal(const struct gen *g, uint64_t v, int tiny)
{
	uint64_t m = tiny ? 1 : 1 + below(v, cs_fmt_mmask(g->f));

	return (v & 1) && !tiny ? m | sign_bit(g) : m;
}

/* Value of `rank` under pattern pat; j and j2 are the chosen ranks. */
static uint64_t special_value(const struct gen *g, int pat, int rank, int j,
			      int j2, uint64_t v)
{
	int role = rank == j ? 1 : rank == j2 ? 2 : 0;

	switch (pat) {
	case SP_NAN1: return role == 1 ? sp_nan(g, v) : sp_small(g, v);
	case SP_NANALL: return sp_nan(g, v);
	case SP_INF1: return role == 1 ? sp_inf(g, 0) : sp_small(g, v);
	case SP_INFPAIR: return role ? sp_inf(g, role == 2) : sp_small(g, v);
	case SP_NEGZERO: return sign_bit(g);
	case SP_MIXZERO: return (role ? role == 2 : (int)(v & 1)) ? sign_bit(g) : 0;
	case SP_SUBN: return sp_subnormal(g, v, role == 1);
	case SP_MAX1: return role == 1 ? sp_max(g, 0) : sp_small(g, v);
	case SP_MAXALL: return sp_max(g, 0);
	case SP_MAXPAIR: return role ? sp_max(g, role == 1) : sp_small(g, v);
	default:
		break;
	}
	if (g->op == CS_OP_PROD) /* SP_ZEROINF */
		return role == 1 ? ((v & 1) ? sign_bit(g) : 0)
		       : role == 2 ? sp_inf(g, (int)(v & 1)) : sp_small(g, v);
	/* SP_NANSOME: j NaN, j2 a number, the others either */
	if (role == 1 || (role == 0 && (v & 2)))
		return sp_nan(g, v >> 2);
	return sp_small(g, v);
}

static uint64_t special_float(const struct gen *g, uint64_t h, int rank,
			      uint64_t v)
{
	int n = SP_COMMON, j, j2 = -1;
	uint64_t h2 = mix(h ^ SALT_A);

	if (g->op == CS_OP_PROD || g->op == CS_OP_MAX || g->op == CS_OP_MIN)
		n++;
	j = (int)below(h2, (uint64_t)g->P);
	if (g->P > 1)
		j2 = (j + 1 + (int)field(h2, 0, 32, (uint64_t)g->P - 1)) % g->P;
	return special_value(g, (int)field(h, 0, 16, (uint64_t)n), rank, j, j2, v);
}

static uint64_t special_int(const struct gen *g, uint64_t v)
{
	uint64_t mask = cs_bits_mask(g->d), top = (mask >> 1) + 1;
	const uint64_t set[5] = {top, top - 1, 0, mask, 1};

	return set[field(v, 0, 16, 5)];
}

/* Data movement: NaN payloads, sNaN, +-Inf, +-0, subnormal, max, random. */
static uint64_t special_moved(const struct gen *g, uint64_t v)
{
	uint64_t r = mix(v), s = (r & 1) ? sign_bit(g) : 0;
	uint64_t q = (uint64_t)1 << (g->f.mbits - 1);

	switch (field(v, 0, 8, 10)) {
	case 0: /* quiet NaN, non-canonical payload */
		return g->f.fn ? sp_nan(g, r) : (sp_nan(g, r) | 1);
	case 1: /* signalling NaN: quiet bit clear, payload nonzero */
		if (g->f.fn)
			return sp_nan(g, r);
		return s | cs_fmt_infbits(g->f) | (((r >> 1) & (q - 1)) | 1);
	case 2: return sp_inf(g, 0);
	case 3: return sp_inf(g, 1);
	case 4: return 0;
	case 5: return sign_bit(g);
	case 6: return sp_subnormal(g, r, 0);
	case 7: return sp_max(g, (int)(r & 1));
	default: return r & cs_bits_mask(g->d);
	}
}

static uint64_t gen_special(const struct gen *g, uint64_t h, int rank,
			    uint64_t v)
{
	if (!g->isf)
		return special_int(g, v);
	if (g->op == CS_OP_NONE)
		return special_moved(g, v);
	return special_float(g, h, rank, v);
}

/* ---- entry points ---------------------------------------------------------- */

static uint64_t gen_one_h(const struct gen *g, uint64_t h, int rank,
			  size_t index)
{
	uint64_t v = mix(h + ((uint64_t)rank + 1) * RANKG);

	switch (g->mode) {
	case CS_MODE_EXACT:
		return gen_exact(g, h, rank, index, v);
	case CS_MODE_SPECIAL:
		return gen_special(g, h, rank, v);
	case CS_MODE_RANDOM:
	case CS_NUM_MODES: /* not a mode: cases are validated first */
		break;
	}
	return gen_random(g, h, rank, v);
}

static uint64_t gen_one(const struct gen *g, int rank, size_t index)
{
	return gen_one_h(g, mix(g->base ^ (uint64_t)index), rank, index);
}

/* The parameters of the case last seen by this thread: deriving them costs
 * more than generating a value, and callers ask for many values of one
 * case in a row. Keyed by every field gen_init reads. */
static const struct gen *gen_cached(const cs_case_t *c)
{
	static _Thread_local struct {
		int valid;
		cs_case_t key;
		struct gen g;
	} cache;

	if (!cache.valid || cache.key.seed != c->seed ||
	    cache.key.coll != c->coll || cache.key.dtype != c->dtype ||
	    cache.key.op != c->op || cache.key.mode != c->mode ||
	    cache.key.nranks != c->nranks) {
		cache.key = *c;
		gen_init(&cache.g, c);
		cache.valid = 1;
	}
	return &cache.g;
}

/* The fields the generator reads are in range (c->op may be anything:
 * out of range means no op). */
static int gen_ok(const cs_case_t *c, int rank)
{
	return c && (unsigned)c->dtype < CS_NUM_DTYPES &&
	       (unsigned)c->mode < CS_NUM_MODES && rank >= 0;
}

/*
 * Bits of element `index` of `rank`'s send buffer: a pure function of
 * (cs_case_key(c), P, rank, index), as described at the top of this file.
 * Thread-safe; c is only read. 0 for a NULL case, a dtype or mode out of
 * range, or a negative rank.
 */
uint64_t cs_gen_input(const cs_case_t *c, int rank, size_t index)
{
	if (!gen_ok(c, rank))
		return 0;
	return gen_one(gen_cached(c), rank, index);
}

void cs_gen_column(const cs_case_t *c, size_t index, uint64_t *x,
		   uint64_t *alpha)
{
	const struct gen *g;
	uint64_t h;
	int q;

	if (!gen_ok(c, 0)) {
		memset(x, 0, sizeof *x * (size_t)(c && c->nranks > 0 ? c->nranks : 0));
		return;
	}
	g = gen_cached(c);
	h = mix(g->base ^ (uint64_t)index);
	for (q = 0; q < c->nranks; q++) {
		x[q] = gen_one_h(g, h, q, index);
		if (alpha)
			alpha[q] = scalar_of(g, q);
	}
}

/* Bits of rank's PREMULSUM scalar, consistent with cs_gen_input; 0 where
 * cs_gen_input gives 0 for every index. */
uint64_t cs_gen_scalar(const cs_case_t *c, int rank)
{
	struct gen g;

	if (!gen_ok(c, rank))
		return 0;
	gen_init(&g, c);
	return scalar_of(&g, rank);
}

/* buf[i] = cs_gen_input(c, rank, lo + i) for i < n, stored as c->dtype;
 * runs in parallel (OpenMP) when n is large. Writes nothing when buf is
 * NULL, n is 0 or cs_gen_input would give 0 for every index. */
void cs_gen_fill(const cs_case_t *c, int rank, void *buf, size_t lo, size_t n)
{
	struct gen g;
	size_t i;

	if (!buf || !n || !gen_ok(c, rank))
		return;
	gen_init(&g, c);
#pragma omp parallel for if (n > 65536) schedule(static)
	for (i = 0; i < n; i++)
		cs_store(g.d, buf, i, gen_one(&g, rank, lo + i));
}

/* ---- blocks ---------------------------------------------------------------- */

/*
 * Random-mode sums, a whole column at once: random_sum's choices that
 * depend on the index alone (pattern, exponent, cancellation base, limit)
 * are taken once, the per-rank values then follow in one loop with the
 * same operations in the same order, so every value is bit for bit what
 * random_sum gives. alpha: the ranks' scalars (PREMULSUM), else NULL.
 */
static void random_sum_column(const struct gen *g, uint64_t h,
			      const uint64_t *alpha, uint64_t *x)
{
	int pat = (int)field(h, 0, 8, 16), q, j;
	uint64_t h2 = mix(h ^ SALT_A), v;
	double scale = 0, b = 0, lim = 0, a = 1.0, y;

	if (pat < 7) {
		scale = pow2(irange(h, 16, 16, g->emin, g->etop));
	} else if (pat < 10) {
		b = (1.0 + unit(h2)) * pow2(irange(h, 16, 16, g->emin, g->etop - 1)) *
		    ((h2 >> 8 & 1) ? -1.0 : 1.0);
		scale = b * pow2(-irange(h2, 0, 8, 1, g->p + 3));
	} else if (pat >= 13) {
		lim = max_finite(g) / (2.0 * g->P);
		if (g->op == CS_OP_PREMULSUM && lim > max_finite(g) / 16)
			lim = max_finite(g) / 16;
	}
	for (q = 0; q < g->P; q++) {
		v = mix(h + ((uint64_t)q + 1) * RANKG);
		if (alpha)
			a = dec(g, alpha[q]);
		if (pat < 7) {
			double s = (double)(field(v, 0, 16, 65536) + field(v, 16, 16, 65536) +
					    field(v, 32, 16, 65536) + field(v, 48, 16, 65536));
			y = (s - 131070.0 + unit(mix(v))) * (1.0 / 65536.0) * scale;
		} else if (pat < 10) {
			y = scale * (2.0 * unit(v) - 1.0);
			if (!(q % 2 == 0 && q + 1 == g->P))
				y = (q % 2) ? y - b : y + b;
		} else if (pat < 13) {
			j = irange(v, 0, 32, g->emin - g->p + 1, g->etop);
			y = (1.0 + unit(mix(v))) * pow2(j);
			y = (v >> 32 & 1) ? -y : y;
		} else {
			y = (1.0 - 1.0 / 1024 - ((h >> 8 & 1) ? 0.5 * unit(v) : 0.0)) * lim;
			x[q] = divide_round(g, (mix(v) & 1) ? -y : y, a, 1);
			continue;
		}
		x[q] = divide_round(g, y, a, 0);
	}
}

/* Whether every value of the case is plain random bits of the dtype
 * (gen_random's first line: integers with any op, and op none). */
static int random_bits(const struct gen *g)
{
	return g->mode == CS_MODE_RANDOM && (!g->isf || g->op == CS_OP_NONE);
}

/* out[k] = gen_one's value at index lo + k for a random_bits case: its
 * two mixes and gen_random's mask, unswitched. (An AVX2 clone of this
 * loop, tried, ran 20% slower: AVX2 has no 64-bit multiply.) */
static void random_bits_block(uint64_t base, int rank, uint64_t mask,
			      size_t lo, size_t n, uint64_t *out)
{
	size_t k;

	for (k = 0; k < n; k++)
		out[k] = cs_genbits_at(base, rank, (uint64_t)(lo + k), mask);
}

/* Whether random_sum_column makes the columns of this case. */
static int sum_columns(const struct gen *g)
{
	return g->mode == CS_MODE_RANDOM && g->isf &&
	       (g->op == CS_OP_SUM || g->op == CS_OP_AVG ||
		g->op == CS_OP_PREMULSUM);
}

/*
 * Inputs of every rank at indices lo..lo+n-1, column by column:
 * x[k*P + q] = cs_gen_input(c, q, lo + k), and when alpha is not NULL
 * alpha[q] = cs_gen_scalar(c, q). The parameters are derived once per
 * call and the per-index choices once per column (random-mode sums), so a
 * block costs a fraction of n*P cs_gen_input calls. Thread-safe; c is
 * only read; x (n*P entries) and alpha (P) are the caller's.
 */
void cs_gen_columns(const cs_case_t *c, size_t lo, size_t n, uint64_t *x,
		    uint64_t *alpha)
{
	struct gen g;
	size_t k, P;
	int q;

	if (!gen_ok(c, 0) || c->nranks < 1) {
		memset(x, 0, sizeof *x * n * (size_t)(c && c->nranks > 0 ? c->nranks : 0));
		return;
	}
	gen_init(&g, c);
	P = (size_t)g.P;
	if (alpha)
		for (q = 0; q < g.P; q++)
			alpha[q] = scalar_of(&g, q);
	for (k = 0; k < n; k++) {
		uint64_t h = mix(g.base ^ (uint64_t)(lo + k));
		if (sum_columns(&g) && (g.op != CS_OP_PREMULSUM || alpha)) {
			random_sum_column(&g, h, g.op == CS_OP_PREMULSUM ? alpha : NULL,
					  x + k * P);
			continue;
		}
		if (random_bits(&g)) {
			/* gen_one_h's mix and gen_random's mask, unswitched */
			for (q = 0; q < g.P; q++)
				x[k * P + (size_t)q] =
					mix(h + ((uint64_t)q + 1) * RANKG) &
					cs_bits_mask(g.d);
			continue;
		}
		for (q = 0; q < g.P; q++)
			x[k * P + (size_t)q] = gen_one_h(&g, h, q, lo + k);
	}
}

/*
 * out[k] = cs_gen_input(c, rank, lo + k) for k < n, the parameters derived
 * once: the data-movement oracle's source. Thread-safe; out is the
 * caller's; all zero where cs_gen_input gives 0.
 */
void cs_gen_block(const cs_case_t *c, int rank, size_t lo, size_t n,
		  uint64_t *out)
{
	struct gen g;
	size_t k;

	if (!gen_ok(c, rank)) {
		memset(out, 0, sizeof *out * n);
		return;
	}
	gen_init(&g, c);
	if (random_bits(&g)) {
		random_bits_block(g.base, rank, cs_bits_mask(g.d), lo, n, out);
		return;
	}
	for (k = 0; k < n; k++)
		out[k] = gen_one(&g, rank, lo + k);
}

int cs_gen_bits_only(const cs_case_t *c)
{
	return gen_ok(c, 0) && random_bits(gen_cached(c));
}

uint64_t cs_gen_stream(const cs_case_t *c)
{
	return gen_ok(c, 0) ? gen_cached(c)->base : 0;
}
