/*
 * test_conversions.c - decoding and encoding of every floating dtype
 * (csref/arith.h), checked against an independent model.
 *
 * The model is written from the format definitions of spec/numerics.md and
 * shares no code with arith.h: each narrow format is described by hand
 * (widths, bias, the exact Inf/NaN/max encodings), every value is computed
 * from its fields with integer arithmetic and exact powers of two, the
 * values are sorted into a table, and the correctly rounded encoding of a
 * double is found by binary search in that table with an explicit midpoint
 * comparison (ties to the even encoding). Hand-written spot values anchor
 * the model itself. float32 is checked against the C cast, float16 also
 * against the compiler's _Float16 where gcc provides it.
 *
 * CMocka: the code under test is pure arithmetic, with nothing that could
 * crash or hang the test program (tests/README.md says when a test uses
 * Check's fork mode instead).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/arith.h"

/* assert cond, or fail with a printf-style message (CMocka's assert_true
 * prints only the expression). */
#define ASSERT_MSG(cond, ...)                 \
	do {                                  \
		if (!(cond))                  \
			fail_msg(__VA_ARGS__); \
	} while (0)

/* ---- failure collection -------------------------------------------------- */

/* Loops over ~10^6 cases count mismatches instead of asserting each one,
 * so that one run reports how many there are; the first one is kept for
 * the final message and a few more go to stderr. */
struct tally {
	long n;
	char first[256];
};

static void miss(struct tally *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void miss(struct tally *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (t->n == 0)
		memcpy(t->first, buf, sizeof(buf));
	if (t->n < 8)
		fprintf(stderr, "mismatch: %s\n", buf);
	t->n++;
}

#define TALLY_DONE(t) \
	ASSERT_MSG((t)->n == 0, "%ld mismatches, first: %s", (t)->n, \
		      (t)->first)

/* ---- the independent model ----------------------------------------------- */

/* A narrow format, written out by hand from the spec. */
struct rfmt {
	const char *name;
	cs_dtype_t dtype;
	int bits;	/* total width */
	int mbits;	/* stored mantissa bits */
	int bias;
	uint32_t inf;	/* +Inf encoding; 0: the format has none */
	uint32_t nan;	/* canonical +NaN */
	uint32_t max;	/* largest finite */
};

static const struct rfmt rfmts[] = {
	{ "float16", CS_DTYPE_FLOAT16, 16, 10, 15, 0x7C00, 0x7E00, 0x7BFF },
	{ "bfloat16", CS_DTYPE_BFLOAT16, 16, 7, 127, 0x7F80, 0x7FC0, 0x7F7F },
	{ "float8_e4m3", CS_DTYPE_FLOAT8_E4M3, 8, 3, 7, 0, 0x7F, 0x7E },
	{ "float8_e5m2", CS_DTYPE_FLOAT8_E5M2, 8, 2, 15, 0x7C, 0x7E, 0x7B },
};
#define NFMTS ((int)(sizeof(rfmts) / sizeof(rfmts[0])))
/* main's PER_FORMAT names every entry */
_Static_assert(sizeof(rfmts) / sizeof(rfmts[0]) == 4,
	       "PER_FORMAT in main must list every format");

enum rclass { R_FINITE, R_INF, R_NAN };

static uint32_t rsign(const struct rfmt *f)
{
	return (uint32_t)1 << (f->bits - 1);
}

/* 2^k by repeated exact doubling or halving (no ldexp, no libm). */
static double pow2i(int k)
{
	double v = 1.0;

	for (; k > 0; k--)
		v *= 2.0;
	for (; k < 0; k++)
		v *= 0.5;
	return v;
}

static enum rclass rclassify(const struct rfmt *f, uint32_t b)
{
	uint32_t mag = b & (rsign(f) - 1);

	if (f->inf == 0) /* e4m3: the one NaN magnitude, no infinity */
		return mag == f->nan ? R_NAN : R_FINITE;
	if (mag == f->inf)
		return R_INF;
	return mag > f->inf ? R_NAN : R_FINITE;
}

/* Value of a finite or infinite encoding: sign * significand * 2^exp. */
static double rdecode(const struct rfmt *f, uint32_t b)
{
	uint32_t mag = b & (rsign(f) - 1);
	uint32_t e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);
	double v;

	if (rclassify(f, b) == R_INF)
		v = INFINITY;
	else if (e == 0)
		v = (double)m * pow2i(1 - f->bias - f->mbits);
	else
		v = (double)(m + (1u << f->mbits)) *
		    pow2i((int)e - f->bias - f->mbits);
	return (b & rsign(f)) ? -v : v;
}

struct rent {
	double v;
	uint32_t b;
};

/* Sorted non-negative finite values of a format, plus one virtual entry
 * above max (max + the top binade's spacing, encoded max + 1) that stands
 * for "overflow" when a value rounds to it. */
struct rtab {
	const struct rfmt *f;
	struct rent *e;
	int n; /* finite entries; e[n] is the virtual one */
};

static int rent_cmp(const void *pa, const void *pb)
{
	const struct rent *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

static void rtab_build(struct rtab *t, const struct rfmt *f)
{
	uint32_t b;
	int i;

	t->f = f;
	t->n = 0;
	t->e = malloc(sizeof(*t->e) * ((size_t)f->max + 2));
	assert_non_null(t->e);
	for (b = 0; b < rsign(f); b++) {
		if (rclassify(f, b) != R_FINITE)
			continue;
		t->e[t->n].v = rdecode(f, b);
		t->e[t->n].b = b;
		t->n++;
	}
	qsort(t->e, (size_t)t->n, sizeof(*t->e), rent_cmp);
	for (i = 1; i < t->n; i++)
		ASSERT_MSG(t->e[i - 1].v < t->e[i].v, "%s: table not strict",
			      f->name);
	assert_int_equal(t->e[t->n - 1].b, f->max);
	t->e[t->n].v = 2 * t->e[t->n - 1].v - t->e[t->n - 2].v;
	t->e[t->n].b = f->max + 1;
}

/* Largest i with e[i].v <= a (a >= 0, a < e[n].v). */
static int rtab_floor(const struct rtab *t, double a)
{
	int lo = 0, hi = t->n; /* e[lo].v <= a < e[hi].v */

	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		if (t->e[mid].v <= a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t rovf(const struct rfmt *f, int sat)
{
	if (sat)
		return f->max;
	return f->inf ? f->inf : f->nan;
}

/* The correctly rounded encoding of x (ties to the even encoding). */
static uint32_t rencode(const struct rtab *t, double x, int sat)
{
	const struct rfmt *f = t->f;
	uint32_t sign = signbit(x) ? rsign(f) : 0;
	double a = fabs(x), mid;
	int i;

	if (isnan(x))
		return sign | f->nan;
	if (a >= t->e[t->n].v)
		return sign | rovf(f, sat);
	i = rtab_floor(t, a);
	if (a == t->e[i].v)
		return sign | t->e[i].b;
	/* exact: two neighbours of a format of at most 24 bits */
	mid = (t->e[i].v + t->e[i + 1].v) / 2;
	if (a > mid || (a == mid && (t->e[i].b & 1)))
		i++;
	if (i == t->n)
		return sign | rovf(f, sat);
	return sign | t->e[i].b;
}

/* ---- the dense set of doubles -------------------------------------------- */

/* Calls fn on every table value, every midpoint between neighbours (the
 * virtual one included), one double ulp either side of each, and on
 * values far below the smallest subnormal and far beyond the overflow
 * threshold. Non-negative only; callers add the sign. */
typedef void (*dense_fn)(const struct rtab *t, double x, void *arg);

static void dense_each(const struct rtab *t, dense_fn fn, void *arg)
{
	static const double extra[] = { 0.0, DBL_TRUE_MIN, DBL_MIN, 1e-300,
					 1e300, DBL_MAX, INFINITY };
	int i;
	size_t k;

	for (i = 0; i <= t->n; i++) {
		double lo = t->e[i].v;

		fn(t, lo, arg);
		fn(t, nextafter(lo, 0), arg);
		fn(t, nextafter(lo, INFINITY), arg);
		if (i == t->n)
			break;
		lo = (lo + t->e[i + 1].v) / 2;
		fn(t, lo, arg);
		fn(t, nextafter(lo, 0), arg);
		fn(t, nextafter(lo, INFINITY), arg);
	}
	fn(t, 2 * t->e[t->n].v, arg);
	fn(t, t->e[1].v / 4, arg);
	for (k = 0; k < sizeof(extra) / sizeof(extra[0]); k++)
		fn(t, extra[k], arg);
}

/* ---- tests --------------------------------------------------------------- */

/* Hand-computed values: they pin down the model and the code alike. */
struct spot {
	cs_dtype_t d;
	uint32_t b;
	double v;
};

static const struct spot spots[] = {
	{ CS_DTYPE_FLOAT8_E4M3, 0x7E, 448.0 },
	{ CS_DTYPE_FLOAT8_E4M3, 0xFE, -448.0 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x78, 256.0 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x7D, 416.0 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x38, 1.0 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x08, 0x1p-6 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x07, 0x7p-9 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x01, 0x1p-9 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x80, -0.0 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x7B, 57344.0 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x7C, INFINITY },
	{ CS_DTYPE_FLOAT8_E5M2, 0xFC, -INFINITY },
	{ CS_DTYPE_FLOAT8_E5M2, 0x3C, 1.0 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x04, 0x1p-14 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x01, 0x1p-16 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x83, -0x3p-16 },
	{ CS_DTYPE_FLOAT16, 0x7BFF, 65504.0 },
	{ CS_DTYPE_FLOAT16, 0x7C00, INFINITY },
	{ CS_DTYPE_FLOAT16, 0x3C00, 1.0 },
	{ CS_DTYPE_FLOAT16, 0x3555, 1365.0 / 4096.0 },
	{ CS_DTYPE_FLOAT16, 0x0400, 0x1p-14 },
	{ CS_DTYPE_FLOAT16, 0x03FF, 0x3FFp-24 },
	{ CS_DTYPE_FLOAT16, 0x0001, 0x1p-24 },
	{ CS_DTYPE_FLOAT16, 0x8000, -0.0 },
	{ CS_DTYPE_BFLOAT16, 0x7F7F, 0xFFp120 },
	{ CS_DTYPE_BFLOAT16, 0x7F80, INFINITY },
	{ CS_DTYPE_BFLOAT16, 0x3F80, 1.0 },
	{ CS_DTYPE_BFLOAT16, 0x3EAB, 171.0 / 512.0 },
	{ CS_DTYPE_BFLOAT16, 0x0080, 0x1p-126 },
	{ CS_DTYPE_BFLOAT16, 0x0001, 0x1p-133 },
	{ CS_DTYPE_BFLOAT16, 0xC000, -2.0 },
};

static const struct rfmt *rfmt_of(cs_dtype_t d)
{
	int i;

	for (i = 0; i < NFMTS; i++)
		if (rfmts[i].dtype == d)
			return &rfmts[i];
	return NULL;
}

static int same_double(double a, double b)
{
	return cs_f64_to_bits(a) == cs_f64_to_bits(b);
}

static void test_spot_values(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(spots) / sizeof(spots[0]); i++) {
		const struct spot *s = &spots[i];
		double got = cs_to_f64(s->d, s->b);

		ASSERT_MSG(same_double(rdecode(rfmt_of(s->d), s->b), s->v),
			      "model decode of 0x%x wrong", (unsigned)s->b);
		ASSERT_MSG(same_double(got, s->v),
			      "%s 0x%x decodes to %a, want %a",
			      rfmt_of(s->d)->name, (unsigned)s->b, got, s->v);
	}
	/* e4m3 "FN": only S.1111.111 is NaN; S.1111.000-110 are numbers */
	assert_true(cs_isnan_bits(CS_DTYPE_FLOAT8_E4M3, 0x7F));
	assert_true(cs_isnan_bits(CS_DTYPE_FLOAT8_E4M3, 0xFF));
	assert_true(!cs_isnan_bits(CS_DTYPE_FLOAT8_E4M3, 0x78));
	assert_true(!cs_fmt_isinf(cs_fmt_of(CS_DTYPE_FLOAT8_E4M3), 0x78));
	assert_true(cs_isnan_bits(CS_DTYPE_FLOAT8_E5M2, 0x7D));
	assert_true(cs_isnan_bits(CS_DTYPE_FLOAT8_E5M2, 0xFF));
	assert_true(!cs_isnan_bits(CS_DTYPE_FLOAT8_E5M2, 0x7C));
}

static void check_decode(const struct rfmt *f, uint32_t b, struct tally *t)
{
	cs_fmt_t cf = cs_fmt_of(f->dtype);
	enum rclass c = rclassify(f, b);
	double got = cs_to_f64(f->dtype, b);

	if (!same_double(cs_fmt_decode(cf, b), got))
		miss(t, "%s 0x%x: cs_fmt_decode != cs_to_f64", f->name, b);
	if ((c == R_NAN) != cs_fmt_isnan(cf, b) ||
	    (c == R_NAN) != cs_isnan_bits(f->dtype, b) ||
	    (c == R_INF) != cs_fmt_isinf(cf, b))
		miss(t, "%s 0x%x: wrong class", f->name, b);
	if (c == R_NAN ? !isnan(got) : !same_double(got, rdecode(f, b)))
		miss(t, "%s 0x%x decodes to %a, want %a", f->name, b, got,
		     rdecode(f, b));
}

static void check_roundtrip(const struct rfmt *f, uint32_t b, struct tally *t)
{
	double x = cs_to_f64(f->dtype, b);
	int sat;

	for (sat = 0; sat <= 1; sat++) {
		uint32_t got = (uint32_t)cs_from_f64(f->dtype, x, sat);
		uint32_t want = b;

		if (rclassify(f, b) == R_NAN) {
			if (rclassify(f, got) != R_NAN)
				miss(t, "%s NaN 0x%x -> 0x%x", f->name, b, got);
			continue;
		}
		if (rclassify(f, b) == R_INF && sat)
			want = (b & rsign(f)) | f->max;
		if (got != want)
			miss(t, "%s 0x%x round trip (sat=%d) gives 0x%x",
			     f->name, b, sat, got);
	}
}

/* Every bit pattern: decode exactly, re-encode to itself. */
static void test_decode_roundtrip_all(void **state)
{
	const struct rfmt *f = *state;
	struct tally t = { 0 };
	uint32_t b;

	for (b = 0; b < ((uint32_t)1 << f->bits); b++) {
		check_decode(f, b, &t);
		check_roundtrip(f, b, &t);
	}
	TALLY_DONE(&t);
}

static void check_encode_one(const struct rtab *t, double x, void *arg)
{
	const struct rfmt *f = t->f;
	cs_fmt_t cf = cs_fmt_of(f->dtype);
	int sat, neg;

	for (neg = 0; neg <= 1; neg++) {
		double y = neg ? -x : x;

		for (sat = 0; sat <= 1; sat++) {
			uint32_t want = rencode(t, y, sat);
			uint32_t g1 = (uint32_t)cs_fmt_encode(cf, y, sat);
			uint32_t g2 = (uint32_t)cs_from_f64(f->dtype, y, sat);

			if (g1 != want || g2 != want)
				miss(arg, "%s encode(%a, sat=%d) = 0x%x/0x%x, want 0x%x",
				     f->name, y, sat, g1, g2, want);
		}
	}
}

/* Every value, midpoint and neighbour, both signs, both overflow modes. */
static void test_encode_dense(void **state)
{
	struct tally t = { 0 };
	struct rtab tab;

	rtab_build(&tab, *state);
	dense_each(&tab, check_encode_one, &t);
	free(tab.e);
	TALLY_DONE(&t);
}

/* The model's own tie and overflow decisions at the spec's thresholds. */
struct edge {
	cs_dtype_t d;
	double x;
	uint32_t sat0, sat1;
};

static const struct edge edges[] = {
	/* e4m3: 464 is the tie between 448 (even) and 480: stays 448 */
	{ CS_DTYPE_FLOAT8_E4M3, 464.0, 0x7E, 0x7E },
	{ CS_DTYPE_FLOAT8_E4M3, 0x1.D000000000001p8, 0x7F, 0x7E },
	{ CS_DTYPE_FLOAT8_E4M3, -480.0, 0xFF, 0xFE },
	{ CS_DTYPE_FLOAT8_E4M3, INFINITY, 0x7F, 0x7E },
	{ CS_DTYPE_FLOAT8_E4M3, NAN, 0x7F, 0x7F },
	{ CS_DTYPE_FLOAT8_E4M3, -NAN, 0xFF, 0xFF },
	{ CS_DTYPE_FLOAT8_E4M3, 0x1p-10, 0x00, 0x00 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x1.0000000000001p-10, 0x01, 0x01 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x3p-10, 0x02, 0x02 },
	{ CS_DTYPE_FLOAT8_E4M3, -0x1p-11, 0x80, 0x80 },
	{ CS_DTYPE_FLOAT8_E4M3, 0x0.Fp-6, 0x08, 0x08 },
	/* e5m2: 61440 is the tie between 57344 (odd) and 65536: overflows */
	{ CS_DTYPE_FLOAT8_E5M2, 61440.0, 0x7C, 0x7B },
	{ CS_DTYPE_FLOAT8_E5M2, 0x1.DFFFFFFFFFFFFp15, 0x7B, 0x7B },
	{ CS_DTYPE_FLOAT8_E5M2, -61440.0, 0xFC, 0xFB },
	{ CS_DTYPE_FLOAT8_E5M2, -INFINITY, 0xFC, 0xFB },
	{ CS_DTYPE_FLOAT8_E5M2, NAN, 0x7E, 0x7E },
	{ CS_DTYPE_FLOAT8_E5M2, -NAN, 0xFE, 0xFE },
	{ CS_DTYPE_FLOAT8_E5M2, 0x1p-17, 0x00, 0x00 },
	{ CS_DTYPE_FLOAT8_E5M2, 0x3p-17, 0x02, 0x02 },
	/* float16 */
	{ CS_DTYPE_FLOAT16, 65520.0, 0x7C00, 0x7BFF },
	{ CS_DTYPE_FLOAT16, 0x1.FFDFFFFFFFFFFp15, 0x7BFF, 0x7BFF },
	{ CS_DTYPE_FLOAT16, 1e9, 0x7C00, 0x7BFF },
	{ CS_DTYPE_FLOAT16, NAN, 0x7E00, 0x7E00 },
	{ CS_DTYPE_FLOAT16, -NAN, 0xFE00, 0xFE00 },
	{ CS_DTYPE_FLOAT16, 0x1p-25, 0x0000, 0x0000 },
	{ CS_DTYPE_FLOAT16, 0x1.0000000000001p-25, 0x0001, 0x0001 },
	{ CS_DTYPE_FLOAT16, 1.0 + 0x1p-11, 0x3C00, 0x3C00 },
	{ CS_DTYPE_FLOAT16, 1.0 + 0x3p-11, 0x3C02, 0x3C02 },
	{ CS_DTYPE_FLOAT16, -0.0, 0x8000, 0x8000 },
	/* bfloat16: max = 0xFFp120, threshold = 0x1FFp119 */
	{ CS_DTYPE_BFLOAT16, 0x1FFp119, 0x7F80, 0x7F7F },
	{ CS_DTYPE_BFLOAT16, 0x1.FEFFFFFFFFFFFp127, 0x7F7F, 0x7F7F },
	{ CS_DTYPE_BFLOAT16, -0x1FFp119, 0xFF80, 0xFF7F },
	{ CS_DTYPE_BFLOAT16, INFINITY, 0x7F80, 0x7F7F },
	{ CS_DTYPE_BFLOAT16, NAN, 0x7FC0, 0x7FC0 },
	{ CS_DTYPE_BFLOAT16, -NAN, 0xFFC0, 0xFFC0 },
	{ CS_DTYPE_BFLOAT16, 0x1p-126, 0x0080, 0x0080 },
	{ CS_DTYPE_BFLOAT16, 0x1p-133, 0x0001, 0x0001 },
	{ CS_DTYPE_BFLOAT16, 0x1p-134, 0x0000, 0x0000 },
	{ CS_DTYPE_BFLOAT16, -0x1.8p-133, 0x8002, 0x8002 },
	{ CS_DTYPE_BFLOAT16, 1.0 + 0x1p-8, 0x3F80, 0x3F80 },
	{ CS_DTYPE_BFLOAT16, -0.0, 0x8000, 0x8000 },
};

static void test_encode_edges(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const struct edge *e = &edges[i];
		struct rtab tab;
		uint32_t g0 = (uint32_t)cs_from_f64(e->d, e->x, 0);
		uint32_t g1 = (uint32_t)cs_from_f64(e->d, e->x, 1);

		ASSERT_MSG(g0 == e->sat0 && g1 == e->sat1,
			      "%s encode(%a) = 0x%x/0x%x, want 0x%x/0x%x",
			      rfmt_of(e->d)->name, e->x, g0, g1, e->sat0,
			      e->sat1);
		rtab_build(&tab, rfmt_of(e->d));
		assert_int_equal(rencode(&tab, e->x, 0), e->sat0);
		assert_int_equal(rencode(&tab, e->x, 1), e->sat1);
		free(tab.e);
	}
}

/* ---- float16 against the compiler ---------------------------------------- */

#ifdef __FLT16_MAX__
static void check_f16_native(const struct rtab *t, double x, void *arg)
{
	int neg;

	for (neg = 0; neg <= 1; neg++) {
		double y = neg ? -x : x;
		_Float16 h = (_Float16)y;
		uint16_t want;
		uint32_t got = (uint32_t)cs_from_f64(CS_DTYPE_FLOAT16, y, 0);

		memcpy(&want, &h, 2);
		if (got != want)
			miss(arg, "float16 encode(%a) = 0x%x, _Float16 0x%x", y,
			     got, want);
	}
}

static void test_f16_vs_compiler(void **state)
{
	struct tally t = { 0 };
	struct rtab tab;
	uint32_t b;

	for (b = 0; b < 0x10000; b++) {
		uint16_t u = (uint16_t)b;
		_Float16 h;
		double got = cs_to_f64(CS_DTYPE_FLOAT16, b), want;

		memcpy(&h, &u, 2);
		want = (double)h;
		if (isnan(want) ? !isnan(got) : !same_double(got, want))
			miss(&t, "float16 0x%x: %a, _Float16 says %a", b, got,
			     want);
	}
	rtab_build(&tab, &rfmts[0]);
	dense_each(&tab, check_f16_native, &t);
	free(tab.e);
	TALLY_DONE(&t);
}
#endif

/* ---- float32 and float64 ------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* cs_from_f64(float32) against the cast; sat=1 (own rounding code) must
 * agree with the cast too, except that overflow saturates. */
static void check_f32(double x, struct tally *t)
{
	float c = (float)x;
	uint32_t want0 = f32_bits(c), want1 = want0;
	uint32_t g0 = (uint32_t)cs_from_f64(CS_DTYPE_FLOAT32, x, 0);
	uint32_t g1 = (uint32_t)cs_from_f64(CS_DTYPE_FLOAT32, x, 1);

	if (isnan(x)) {
		if (!isnan(cs_to_f64(CS_DTYPE_FLOAT32, g0)) ||
		    !isnan(cs_to_f64(CS_DTYPE_FLOAT32, g1)))
			miss(t, "float32 NaN encodes to 0x%x/0x%x", g0, g1);
		return;
	}
	if (isinf(c))
		want1 = signbit(x) ? 0xFF7FFFFFu : 0x7F7FFFFFu;
	if (g0 != want0 || g1 != want1)
		miss(t, "float32 encode(%a) = 0x%x/0x%x, want 0x%x/0x%x", x,
		     g0, g1, want0, want1);
}

/* A random double: random sign and mantissa, exponent around float32's
 * range, or a float32 midpoint (the tie cases) nudged by 0 or +-1 ulp. */
static double random_f32_probe(void)
{
	uint64_t r = rng_next();
	double sign = (r & 2) ? -1 : 1, mid;
	uint32_t fb = (uint32_t)(r >> 32) % 0x7F800000u; /* finite, >= 0 */
	float f, g;

	if (r & 1) {
		int e = (int)((r >> 2) % 300) - 160;

		return sign * ldexp(1.0 + (double)(r >> 12) * 0x1p-52, e);
	}
	memcpy(&f, &fb, 4);
	g = nextafterf(f, INFINITY);
	mid = ((double)f + (double)g) / 2;
	switch ((r >> 8) % 3) {
	case 0: return sign * mid;
	case 1: return sign * nextafter(mid, 0);
	default: return sign * nextafter(mid, INFINITY);
	}
}

static void test_float32(void **state)
{
	static const double edge[] = {
		FLT_MAX, 0x1.FFFFFFp127, 0x1.FFFFFEFFFFFFFp127, 0x1p128,
		FLT_MIN, FLT_TRUE_MIN, 0x1p-150, 0x1.0000000000001p-150,
		0x3p-150, 1.0 + 0x1p-24, 1.0 + 0x3p-24, 0.1, 1e-50, 1e50,
		0.0, DBL_TRUE_MIN, DBL_MAX, INFINITY, NAN,
	};
	struct tally t = { 0 };
	size_t i;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		check_f32(edge[i], &t);
		check_f32(-edge[i], &t);
	}
	for (i = 0; i < 400000; i++)
		check_f32(random_f32_probe(), &t);
	for (i = 0; i < 200000; i++) {
		uint32_t b = (uint32_t)rng_next();
		float f;
		double want, g1, g2;

		memcpy(&f, &b, 4);
		want = f;
		g1 = cs_to_f64(CS_DTYPE_FLOAT32, b);
		g2 = cs_fmt_decode(cs_fmt_of(CS_DTYPE_FLOAT32), b);
		if (isnan(want) ? !(isnan(g1) && isnan(g2)) :
		    !(same_double(g1, want) && same_double(g2, want)))
			miss(&t, "float32 0x%x decodes to %a/%a", b, g1, g2);
	}
	TALLY_DONE(&t);
}

/* float64: conversion is the identity on bits, whatever sat says. */
static void test_float64_identity(void **state)
{
	struct tally t = { 0 };
	int i;

	for (i = 0; i < 100000; i++) {
		uint64_t b = rng_next();
		double x, got = cs_to_f64(CS_DTYPE_FLOAT64, b);

		memcpy(&x, &b, 8);
		if (isnan(x) ? !isnan(got) :
		    cs_f64_to_bits(got) != b ||
		    cs_from_f64(CS_DTYPE_FLOAT64, x, 0) != b ||
		    cs_from_f64(CS_DTYPE_FLOAT64, x, 1) != b)
			miss(&t, "float64 0x%llx not carried exactly",
			     (unsigned long long)b);
	}
	TALLY_DONE(&t);
}

/* One test per narrow format for the exhaustive ones (the format is the
 * test's state), named "test/format" so that a failure names its format. */
#define ONE_FORMAT(fn, i) \
	{ #fn "/" RFMT_NAME_##i, fn, NULL, NULL, (void *)&rfmts[i] }
#define RFMT_NAME_0 "float16"
#define RFMT_NAME_1 "bfloat16"
#define RFMT_NAME_2 "float8_e4m3"
#define RFMT_NAME_3 "float8_e5m2"
#define PER_FORMAT(fn) \
	ONE_FORMAT(fn, 0), ONE_FORMAT(fn, 1), ONE_FORMAT(fn, 2), \
	ONE_FORMAT(fn, 3)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spot_values),
		PER_FORMAT(test_decode_roundtrip_all),
		PER_FORMAT(test_encode_dense),
		cmocka_unit_test(test_encode_edges),
#ifdef __FLT16_MAX__
		cmocka_unit_test(test_f16_vs_compiler),
#endif
		cmocka_unit_test(test_float32),
		cmocka_unit_test(test_float64_identity),
	};
	return cmocka_run_group_tests_name("conversions", tests, NULL, NULL);
}
