/*
 * test_ops.c - one reduction step of every dtype x op (csref/arith.h) and
 * the buffer-level reduction of ref/reduce.c, against hand-computed tables.
 *
 * Every expected value below was worked out by hand from the spec (two's
 * complement wrap for integers, one round-to-nearest-even for floats) and
 * is written as a bit pattern with the arithmetic in the comment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/arith.h"
#include "csref/reduce.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define I8 CS_DTYPE_INT8
#define U8 CS_DTYPE_UINT8
#define I32 CS_DTYPE_INT32
#define U32 CS_DTYPE_UINT32
#define I64 CS_DTYPE_INT64
#define U64 CS_DTYPE_UINT64
#define F16 CS_DTYPE_FLOAT16
#define BF16 CS_DTYPE_BFLOAT16
#define F32 CS_DTYPE_FLOAT32
#define F64 CS_DTYPE_FLOAT64
#define E4M3 CS_DTYPE_FLOAT8_E4M3
#define E5M2 CS_DTYPE_FLOAT8_E5M2

#define SUM CS_OP_SUM
#define PROD CS_OP_PROD
#define MAX CS_OP_MAX
#define MIN CS_OP_MIN

/* want is "some NaN" / "either zero" rather than exact bits */
#define ANY_NAN 1
#define ANY_ZERO 2

struct step_case {
	cs_dtype_t d;
	cs_op_t op;
	uint64_t a, b, want;
	int flags;
};

#define T(d, op, a, b, want) { d, op, a, b, want, 0 }
#define T_NAN(d, op, a, b) { d, op, a, b, 0, ANY_NAN }
#define T_ZERO(d, op, a, b) { d, op, a, b, 0, ANY_ZERO }

/* ---- integers ------------------------------------------------------------ */

static const struct step_case int_cases[] = {
	T(I8, SUM, 0x7F, 0x01, 0x80),		/* 127 + 1 = -128 */
	T(I8, SUM, 0xFF, 0xFF, 0xFE),		/* -1 + -1 = -2 */
	T(I8, SUM, 0x64, 0x64, 0xC8), /* 100 + 100 = 200 - 256 = -56 */
	T(I8, SUM, 0x80, 0xFF, 0x7F),		/* -128 + -1 = 127 */
	T(I8, PROD, 0x10, 0x10, 0x00),		/* 16 * 16 = 256 = 0 */
	T(I8, PROD, 0x80, 0xFF, 0x80),		/* -128 * -1 = -128 */
	T(I8, PROD, 0x03, 0xFB, 0xF1),		/* 3 * -5 = -15 */
	T(I8, PROD, 0x40, 0x03, 0xC0),		/* 64 * 3 = 192 = -64 */
	T(I8, MAX, 0xFF, 0x01, 0x01),		/* max(-1, 1) */
	T(I8, MAX, 0x80, 0x7F, 0x7F),		/* max(-128, 127) */
	T(I8, MIN, 0xFF, 0x01, 0xFF),		/* min(-1, 1) */
	T(I8, MIN, 0x80, 0x00, 0x80),		/* min(-128, 0) */
	T(U8, SUM, 0xFF, 0x01, 0x00),		/* 255 + 1 = 0 */
	T(U8, SUM, 0xC8, 0x64, 0x2C),		/* 200 + 100 = 300 = 44 */
	T(U8, PROD, 0xC8, 0x02, 0x90),		/* 200 * 2 = 400 = 144 */
	T(U8, PROD, 0xFF, 0xFF, 0x01),		/* 65025 = 254 * 256 + 1 */
	T(U8, PROD, 0x10, 0x10, 0x00),
	T(U8, MAX, 0xFF, 0x01, 0xFF),		/* 255 > 1 (not -1 < 1) */
	T(U8, MAX, 0x80, 0x7F, 0x80),		/* 128 > 127 */
	T(U8, MIN, 0xFF, 0x01, 0x01),
	T(U8, MIN, 0x80, 0x7F, 0x7F),
	T(I32, SUM, 0x7FFFFFFF, 0x1, 0x80000000),	/* MAX + 1 = MIN */
	T(I32, SUM, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE),
	T(I32, SUM, 0x80000000, 0x80000000, 0x0),	/* MIN + MIN = 0 */
	T(I32, PROD, 0x80000000, 0xFFFFFFFF, 0x80000000), /* MIN * -1 */
	T(I32, PROD, 0x10000, 0x10000, 0x0),		/* 2^32 = 0 */
	T(I32, PROD, 0x10001, 0x10001, 0x20001),	/* 2^32 + 2^17 + 1 */
	T(I32, PROD, 0xFFFFFFFD, 0x7, 0xFFFFFFEB),	/* -3 * 7 = -21 */
	T(I32, MAX, 0xFFFFFFFF, 0x1, 0x1),
	T(I32, MAX, 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF),
	T(I32, MIN, 0xFFFFFFFF, 0x1, 0xFFFFFFFF),
	T(I32, MIN, 0x80000000, 0x7FFFFFFF, 0x80000000),
	T(U32, SUM, 0xFFFFFFFF, 0x1, 0x0),
	T(U32, SUM, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE),
	T(U32, PROD, 0x10000, 0x10000, 0x0),
	T(U32, PROD, 0xFFFFFFFF, 0xFFFFFFFF, 0x1),	/* (2^32-1)^2 */
	T(U32, PROD, 0x3, 0x55555556, 0x2),		/* 0x100000002 */
	T(U32, MAX, 0xFFFFFFFF, 0x1, 0xFFFFFFFF),
	T(U32, MAX, 0x80000000, 0x7FFFFFFF, 0x80000000),
	T(U32, MIN, 0xFFFFFFFF, 0x1, 0x1),
	T(U32, MIN, 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF),
	T(I64, SUM, 0x7FFFFFFFFFFFFFFF, 0x1, 0x8000000000000000),
	T(I64, SUM, 0xFFFFFFFFFFFFFFFB, 0x3, 0xFFFFFFFFFFFFFFFE), /* -5+3 */
	T(I64, PROD, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
	  0x8000000000000000),				/* MIN * -1 */
	T(I64, PROD, 0x100000000, 0x100000000, 0x0),
	T(I64, PROD, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x1),
	T(I64, MAX, 0xFFFFFFFFFFFFFFFB, 0xFFFFFFFFFFFFFFFD,
	  0xFFFFFFFFFFFFFFFD),				/* max(-5, -3) */
	T(I64, MIN, 0xFFFFFFFFFFFFFFFB, 0xFFFFFFFFFFFFFFFD,
	  0xFFFFFFFFFFFFFFFB),
	T(I64, MAX, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF,
	  0x7FFFFFFFFFFFFFFF),
	T(I64, MIN, 0xFFFFFFFFFFFFFFFF, 0x0, 0xFFFFFFFFFFFFFFFF),
	T(U64, SUM, 0xFFFFFFFFFFFFFFFF, 0x1, 0x0),
	T(U64, SUM, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
	  0xFFFFFFFFFFFFFFFE),
	T(U64, PROD, 0x100000000, 0x100000000, 0x0),
	T(U64, PROD, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x1),
	T(U64, PROD, 0x8000000000000000, 0x2, 0x0),
	T(U64, PROD, 0x3, 0x5555555555555556, 0x2),
	T(U64, MAX, 0xFFFFFFFFFFFFFFFF, 0x1, 0xFFFFFFFFFFFFFFFF),
	T(U64, MIN, 0x8000000000000000, 0x1, 0x1),
	T(U64, MIN, 0xFFFFFFFFFFFFFFFF, 0x1, 0x1),
};

/* ---- floats: sum and prod ------------------------------------------------ */

static const struct step_case float_cases[] = {
	/* float16 */
	T(F16, SUM, 0x3C00, 0x1000, 0x3C00),	/* 1 + 2^-11: tie, to even 1 */
	T(F16, SUM, 0x3C00, 0x1200, 0x3C01),	/* 1 + 3*2^-12: up */
	T(F16, SUM, 0x3C01, 0x1000, 0x3C02),	/* tie, up to even */
	T(F16, SUM, 0x7BFF, 0x7BFF, 0x7C00),	/* 65504 * 2: Inf */
	T(F16, SUM, 0x7BFF, 0x4C00, 0x7C00),	/* 65504 + 16 = 65520: Inf */
	T(F16, SUM, 0x7BFF, 0x4800, 0x7BFF),	/* 65504 + 8: 65504 */
	T(F16, SUM, 0xFBFF, 0xCC00, 0xFC00),	/* -65520: -Inf */
	T(F16, SUM, 0x0001, 0x0001, 0x0002),	/* subnormals */
	T(F16, SUM, 0x0400, 0x8001, 0x03FF),	/* 2^-14 - 2^-24 */
	T_NAN(F16, SUM, 0x7C00, 0xFC00),
	T(F16, SUM, 0x7C00, 0x3C00, 0x7C00),
	T_NAN(F16, SUM, 0x7E00, 0x3C00),
	T(F16, SUM, 0x0000, 0x8000, 0x0000),	/* +0 + -0 = +0 */
	T(F16, SUM, 0x8000, 0x8000, 0x8000),	/* -0 + -0 = -0 */
	T(F16, SUM, 0x3C00, 0xBC00, 0x0000),	/* 1 - 1 = +0 */
	T(F16, PROD, 0x0001, 0x3800, 0x0000),	/* 2^-25: tie, to 0 */
	T(F16, PROD, 0x0001, 0x3E00, 0x0002),	/* 1.5 * 2^-24: tie, to 2 */
	T(F16, PROD, 0x4200, 0x3555, 0x3C00),	/* 3 * 1365/4096: tie, to 1 */
	T(F16, PROD, 0x3E00, 0x3C01, 0x3E02),	/* 1.5 + 1.5*2^-10: tie */
	T(F16, PROD, 0x5C00, 0x5C00, 0x7C00),	/* 256 * 256: Inf */
	T(F16, PROD, 0xDC00, 0x5C00, 0xFC00),
	T(F16, PROD, 0x8000, 0x3C00, 0x8000),	/* -0 * 1 = -0 */
	T_NAN(F16, PROD, 0x7C00, 0x0000),
	/* bfloat16 */
	T(BF16, SUM, 0x3F80, 0x3B80, 0x3F80),	/* 1 + 2^-8: tie */
	T(BF16, SUM, 0x3F80, 0x3BC0, 0x3F81),	/* 1 + 3*2^-9 */
	T(BF16, SUM, 0x3F81, 0x3B80, 0x3F82),
	T(BF16, SUM, 0x7F7F, 0x7F7F, 0x7F80),
	T(BF16, SUM, 0x7F7F, 0x7B00, 0x7F80),	/* max + 2^119: tie, Inf */
	T(BF16, SUM, 0x7F7F, 0x7A80, 0x7F7F),	/* max + 2^118 */
	T(BF16, SUM, 0x0001, 0x0001, 0x0002),
	T(BF16, SUM, 0x0080, 0x8001, 0x007F),
	T_NAN(BF16, SUM, 0x7F80, 0xFF80),
	T(BF16, SUM, 0x8000, 0x8000, 0x8000),
	T(BF16, PROD, 0x0001, 0x3F00, 0x0000),
	T(BF16, PROD, 0x0001, 0x3FC0, 0x0002),
	T(BF16, PROD, 0x3FC0, 0x3F81, 0x3FC2),
	T(BF16, PROD, 0x5F80, 0x5F80, 0x7F80),	/* 2^64 * 2^64 */
	/* float32 */
	T(F32, SUM, 0x3F800000, 0x33800000, 0x3F800000),	/* 1 + 2^-24 */
	T(F32, SUM, 0x3F800000, 0x33C00000, 0x3F800001),
	T(F32, SUM, 0x3F800001, 0x33800000, 0x3F800002),
	T(F32, SUM, 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000),
	T(F32, SUM, 0x7F7FFFFF, 0x73000000, 0x7F800000),	/* + 2^103 */
	T(F32, SUM, 0x7F7FFFFF, 0x72800000, 0x7F7FFFFF),
	T(F32, SUM, 0x00000001, 0x00000001, 0x00000002),
	T(F32, SUM, 0x00800000, 0x80000001, 0x007FFFFF),
	T(F32, SUM, 0x80000000, 0x80000000, 0x80000000),
	T(F32, PROD, 0x00000001, 0x3F000000, 0x00000000),
	T(F32, PROD, 0x00000001, 0x3FC00000, 0x00000002),
	T(F32, PROD, 0x3FC00000, 0x3F800001, 0x3FC00002),
	T_NAN(F32, PROD, 0x7F800000, 0x00000000),
	/* float64 */
	T(F64, SUM, 0x3FF0000000000000, 0x3CA0000000000000,
	  0x3FF0000000000000),					/* 1 + 2^-53 */
	T(F64, SUM, 0x3FF0000000000000, 0x3CA8000000000000,
	  0x3FF0000000000001),
	T(F64, SUM, 0x3FF0000000000001, 0x3CA0000000000000,
	  0x3FF0000000000002),
	T(F64, SUM, 0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF,
	  0x7FF0000000000000),
	T(F64, SUM, 0x0010000000000000, 0x8000000000000001,
	  0x000FFFFFFFFFFFFF),
	T(F64, SUM, 0x8000000000000000, 0x8000000000000000,
	  0x8000000000000000),
	T(F64, PROD, 0x0000000000000001, 0x3FE0000000000000, 0x0),
	T(F64, PROD, 0x0000000000000001, 0x3FF8000000000000, 0x2),
	T_NAN(F64, PROD, 0x7FF0000000000000, 0x0),
	/* float8_e4m3: no Inf, overflow is NaN 0x7F / 0xFF */
	T(E4M3, SUM, 0x38, 0x18, 0x38),	/* 1 + 2^-4: tie, to 1 */
	T(E4M3, SUM, 0x38, 0x1C, 0x39),	/* 1 + 3*2^-5 */
	T(E4M3, SUM, 0x39, 0x18, 0x3A),	/* 1.125 + 2^-4: tie, 1.25 */
	T(E4M3, SUM, 0x7E, 0x60, 0x7F),	/* 448 + 32: NaN */
	T(E4M3, SUM, 0x7E, 0x58, 0x7E),	/* 448 + 16 = 464: tie, 448 */
	T(E4M3, SUM, 0xFE, 0xE0, 0xFF),	/* -480: -NaN */
	T(E4M3, SUM, 0x7E, 0x7E, 0x7F),
	T(E4M3, SUM, 0x78, 0x78, 0x7F),	/* 256 + 256 */
	T(E4M3, SUM, 0x01, 0x01, 0x02),	/* subnormals */
	T(E4M3, SUM, 0x08, 0x81, 0x07),	/* 2^-6 - 2^-9 */
	T_NAN(E4M3, SUM, 0x7F, 0x38),
	T(E4M3, SUM, 0x80, 0x80, 0x80),
	T(E4M3, PROD, 0x01, 0x30, 0x00),	/* 2^-10: tie, to 0 */
	T(E4M3, PROD, 0x01, 0x3C, 0x02),	/* 1.5 * 2^-9: tie, to 2 */
	T(E4M3, PROD, 0x58, 0x60, 0x7F),	/* 16 * 32 = 512: NaN */
	T(E4M3, PROD, 0x3C, 0x39, 0x3E),	/* 1.5 * 1.125: tie, 1.75 */
	/* float8_e5m2 */
	T(E5M2, SUM, 0x3C, 0x30, 0x3C),	/* 1 + 2^-3: tie */
	T(E5M2, SUM, 0x3C, 0x32, 0x3D),	/* 1 + 3*2^-4 */
	T(E5M2, SUM, 0x3D, 0x30, 0x3E),
	T(E5M2, SUM, 0x7B, 0x7B, 0x7C),	/* 57344 * 2: Inf */
	T(E5M2, SUM, 0x7B, 0x6C, 0x7C),	/* 57344 + 4096: tie, Inf */
	T(E5M2, SUM, 0x7B, 0x68, 0x7B),	/* 57344 + 2048 */
	T(E5M2, SUM, 0xFB, 0xEC, 0xFC),
	T(E5M2, SUM, 0x01, 0x01, 0x02),
	T(E5M2, SUM, 0x04, 0x81, 0x03),
	T_NAN(E5M2, SUM, 0x7C, 0xFC),
	T(E5M2, SUM, 0x80, 0x80, 0x80),
	T(E5M2, PROD, 0x01, 0x38, 0x00),
	T(E5M2, PROD, 0x01, 0x3E, 0x02),
	T(E5M2, PROD, 0x3E, 0x3D, 0x40),	/* 1.5 * 1.25: tie, 2 */
	T(E5M2, PROD, 0x5C, 0x5C, 0x7C),	/* 256 * 256: Inf */
};

/* ---- floats: max and min ------------------------------------------------- */

/* Hand-written encodings of a few values of every float dtype; top is +Inf,
 * or max finite for e4m3, which has no infinity. */
struct fconst {
	cs_dtype_t d;
	uint64_t one, two, mone, mtwo, minsub, mminsub, top, mtop, nan, mnan,
		mzero;
};

static const struct fconst fconsts[] = {
	{ F16, 0x3C00, 0x4000, 0xBC00, 0xC000, 0x0001, 0x8001, 0x7C00, 0xFC00,
	  0x7E00, 0xFE00, 0x8000 },
	{ BF16, 0x3F80, 0x4000, 0xBF80, 0xC000, 0x0001, 0x8001, 0x7F80, 0xFF80,
	  0x7FC0, 0xFFC0, 0x8000 },
	{ F32, 0x3F800000, 0x40000000, 0xBF800000, 0xC0000000, 0x1, 0x80000001,
	  0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x80000000 },
	{ F64, 0x3FF0000000000000, 0x4000000000000000, 0xBFF0000000000000,
	  0xC000000000000000, 0x1, 0x8000000000000001, 0x7FF0000000000000,
	  0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
	  0x8000000000000000 },
	{ E4M3, 0x38, 0x40, 0xB8, 0xC0, 0x01, 0x81, 0x7E, 0xFE, 0x7F, 0xFF,
	  0x80 },
	{ E5M2, 0x3C, 0x40, 0xBC, 0xC0, 0x01, 0x81, 0x7C, 0xFC, 0x7E, 0xFE,
	  0x80 },
};

/* Max/min cases of one dtype: number ordering, subnormals against zero,
 * the top value, NaN under the "ignore" rule. */
static size_t maxmin_cases(const struct fconst *c, struct step_case *out)
{
	const struct step_case t[] = {
		T(c->d, MAX, c->one, c->two, c->two),
		T(c->d, MIN, c->one, c->two, c->one),
		T(c->d, MAX, c->mone, c->mtwo, c->mone), /* -1 > -2 */
		T(c->d, MIN, c->mone, c->mtwo, c->mtwo),
		T(c->d, MAX, c->mone, c->one, c->one),
		T(c->d, MIN, c->mtwo, c->minsub, c->mtwo),
		T(c->d, MAX, c->minsub, c->mminsub, c->minsub),
		T(c->d, MIN, c->minsub, c->mminsub, c->mminsub),
		T(c->d, MAX, 0, c->minsub, c->minsub),	 /* subnormal > 0 */
		T(c->d, MIN, c->mzero, c->mminsub, c->mminsub),
		T(c->d, MAX, c->top, c->two, c->top),
		T(c->d, MIN, c->mtop, c->mtwo, c->mtop),
		T(c->d, MAX, c->nan, c->one, c->one),	 /* NaN ignored */
		T(c->d, MIN, c->mnan, c->mone, c->mone),
		T(c->d, MAX, c->mnan, c->mtop, c->mtop),
		T_NAN(c->d, MAX, c->nan, c->mnan), /* only NaNs */
		T_NAN(c->d, MIN, c->nan, c->nan),
		T_ZERO(c->d, MAX, 0, c->mzero),
		T_ZERO(c->d, MIN, 0, c->mzero),
	};

	memcpy(out, t, sizeof(t));
	return ARRAY_LEN(t);
}

#define MAXMIN_PER_DTYPE 19

/* ---- checking one step --------------------------------------------------- */

static int is_zero_bits(cs_dtype_t d, uint64_t r)
{
	int bits = 8 * cs_size_of(d);

	return (r & ~((uint64_t)1 << (bits - 1))) == 0;
}

static int want_ok(const struct step_case *c, uint64_t r)
{
	if (c->flags & ANY_NAN)
		return cs_isnan_bits(c->d, r);
	if (c->flags & ANY_ZERO)
		return is_zero_bits(c->d, r);
	return r == c->want;
}

/* cs_step on (a, b) and (b, a): both must give the expected result, and
 * max/min must return one of the two inputs bit for bit. */
static void check_step(const struct step_case *c)
{
	uint64_t r1 = cs_step(c->d, c->op, c->a, c->b);
	uint64_t r2 = cs_step(c->d, c->op, c->b, c->a);

	if (!want_ok(c, r1) || !want_ok(c, r2)) {
		print_error("dtype %d op %d: 0x%llx, 0x%llx -> 0x%llx / 0x%llx,"
			    " want 0x%llx (flags %d)\n", c->d, c->op,
			    (unsigned long long)c->a, (unsigned long long)c->b,
			    (unsigned long long)r1, (unsigned long long)r2,
			    (unsigned long long)c->want, c->flags);
		fail();
	}
	if (c->op == MAX || c->op == MIN) {
		assert_true(r1 == c->a || r1 == c->b);
		assert_true(r2 == c->a || r2 == c->b);
	}
	assert_int_equal(r1 & ~cs_bits_mask(c->d), 0);
}

static void test_int_steps(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(int_cases); i++)
		check_step(&int_cases[i]);
}

static void test_float_sum_prod(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(float_cases); i++)
		check_step(&float_cases[i]);
}

static void test_float_maxmin_ignore(void **state)
{
	struct step_case t[MAXMIN_PER_DTYPE];
	size_t i, j, n;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fconsts); i++) {
		n = maxmin_cases(&fconsts[i], t);
		assert_int_equal(n, MAXMIN_PER_DTYPE);
		for (j = 0; j < n; j++)
			check_step(&t[j]);
	}
}

/* "propagate": a NaN operand wins; number-only cases are unchanged. */
static void test_float_maxmin_propagate(void **state)
{
	struct step_case t[MAXMIN_PER_DTYPE];
	size_t i, j, n;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fconsts); i++) {
		const struct fconst *c = &fconsts[i];
		cs_op_t ops[2] = { MAX, MIN };
		int k;

		for (k = 0; k < 2; k++) {
			cs_op_t o = ops[k];
			uint64_t r1 = cs_step_nan(c->d, o, c->nan, c->one, 1);
			uint64_t r2 = cs_step_nan(c->d, o, c->mone, c->mnan, 1);

			assert_int_equal(r1, c->nan); /* the NaN input itself */
			assert_int_equal(r2, c->mnan);
			assert_true(cs_isnan_bits(c->d,
				cs_step_nan(c->d, ops[k], c->nan, c->mnan, 1)));
		}
		n = maxmin_cases(c, t);
		for (j = 0; j < n; j++) {
			int has_nan = cs_isnan_bits(c->d, t[j].a) ||
				      cs_isnan_bits(c->d, t[j].b);
			uint64_t r = cs_step_nan(c->d, t[j].op, t[j].a, t[j].b,
						 /*nanprop=*/1);

			if (has_nan)
				assert_true(cs_isnan_bits(c->d, r));
			else
				assert_true(want_ok(&t[j], r));
		}
	}
}

/* Every dtype x step op appears in the tables above. */
static void test_tables_cover_every_pair(void **state)
{
	int seen[CS_NUM_DTYPES][CS_NUM_OPS] = { { 0 } };
	size_t i;
	int d;

	(void)state;
	for (i = 0; i < ARRAY_LEN(int_cases); i++)
		seen[int_cases[i].d][int_cases[i].op]++;
	for (i = 0; i < ARRAY_LEN(float_cases); i++)
		seen[float_cases[i].d][float_cases[i].op]++;
	for (i = 0; i < ARRAY_LEN(fconsts); i++) {
		seen[fconsts[i].d][MAX]++;
		seen[fconsts[i].d][MIN]++;
	}
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		assert_true(seen[d][SUM] >= 2);
		assert_true(seen[d][PROD] >= 2);
		assert_true(seen[d][MAX] >= 1);
		assert_true(seen[d][MIN] >= 1);
	}
}

/* ---- avg ----------------------------------------------------------------- */

struct postdiv_case {
	cs_dtype_t d;
	uint64_t sum;
	int p;
	uint64_t want;
};

static const struct postdiv_case postdiv_cases[] = {
	{ I8, 0xF9, 2, 0xFD },			/* -7 / 2 = -3 (not -4) */
	{ I8, 0x07, 2, 0x03 },
	{ I8, 0x80, 3, 0xD6 },			/* -128 / 3 = -42 */
	{ U8, 0xFF, 2, 0x7F },			/* 255 / 2 = 127 (not -1/2) */
	{ U8, 0x80, 3, 0x2A },			/* 128 / 3 = 42 */
	{ I32, 0xFFFFFFF9, 2, 0xFFFFFFFD },
	{ I32, 0x80000000, 3, 0xD5555556 },	/* MIN / 3 = -715827882 */
	{ U32, 0xFFFFFFFF, 2, 0x7FFFFFFF },
	{ I64, 0xFFFFFFFFFFFFFFF7, 4, 0xFFFFFFFFFFFFFFFE }, /* -9/4 = -2 */
	{ I64, 0x8000000000000000, 1, 0x8000000000000000 },
	{ U64, 0xFFFFFFFFFFFFFFFF, 3, 0x5555555555555555 },
	{ U64, 0x8000000000000000, 2, 0x4000000000000000 },
};

static void test_postdiv(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(postdiv_cases); i++) {
		const struct postdiv_case *c = &postdiv_cases[i];

		assert_int_equal(cs_op_postdiv(c->d, c->sum, c->p), c->want);
	}
}

struct scalar_case {
	cs_dtype_t d;
	int p;
	uint64_t want;
};

/* RNE(1/P) in each format. */
static const struct scalar_case scalar_cases[] = {
	{ F16, 1, 0x3C00 }, { F16, 3, 0x3555 }, { F16, 5, 0x3266 },
	{ F16, 7, 0x3092 }, { F16, 8, 0x3000 },
	{ BF16, 3, 0x3EAB }, { BF16, 5, 0x3E4D }, { BF16, 7, 0x3E12 },
	{ F32, 3, 0x3EAAAAAB }, { F32, 5, 0x3E4CCCCD }, { F32, 7, 0x3E124925 },
	{ F64, 3, 0x3FD5555555555555 }, { F64, 5, 0x3FC999999999999A },
	{ F64, 7, 0x3FC2492492492492 },
	{ E4M3, 2, 0x30 }, { E4M3, 3, 0x2B }, { E4M3, 5, 0x25 },
	{ E4M3, 7, 0x21 },
	{ E5M2, 3, 0x35 }, { E5M2, 5, 0x32 }, { E5M2, 7, 0x31 },
	{ I8, 3, 0 }, { U64, 3, 0 },		/* integers: unused, 0 */
};

static void test_avg_scalar(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(scalar_cases); i++) {
		const struct scalar_case *c = &scalar_cases[i];

		assert_int_equal(cs_avg_scalar(c->d, c->p), c->want);
	}
}

/* ---- a whole reduction through reduce.c ---------------------------------- */

/* P ranks, two elements each: prepare every rank, fold left to right with
 * cs_reduce_bufs, finish; scalars are used by premulsum only. */
struct pipe_case {
	cs_dtype_t d;
	cs_op_t op;
	int p;
	uint64_t in[4][2];
	uint64_t scalar[4];
	uint64_t want[2];
};

static const struct pipe_case pipe_cases[] = {
	/* avg of integers: wrapped sum, then C division */
	{ I8, CS_OP_AVG, 2, { { 0xFD, 0x64 }, { 0xFC, 0x64 } }, { 0 },
	  { 0xFD, 0xE4 } },		/* -7/2 = -3; (100+100 = -56)/2 = -28 */
	{ U8, CS_OP_AVG, 2, { { 0xC8, 0xC8 }, { 0x37, 0x64 } }, { 0 },
	  { 0x7F, 0x16 } },		/* 255/2 = 127; (300 = 44)/2 = 22 */
	{ I32, CS_OP_AVG, 3, { { 0xFFFFFFF6, 0x7FFFFFFF }, { 0, 1 }, { 3, 0 } },
	  { 0 }, { 0xFFFFFFFE, 0xD5555556 } },	/* -7/3; MIN/3 */
	{ U32, CS_OP_AVG, 2, { { 0xFFFFFFFF, 0xFFFFFFFF }, { 0, 1 } }, { 0 },
	  { 0x7FFFFFFF, 0x0 } },
	{ I64, CS_OP_AVG, 4,
	  { { 0xFFFFFFFFFFFFFFF7, 0x8000000000000000 },
	    { 0, 0xFFFFFFFFFFFFFFFF }, { 0, 0 }, { 0, 0 } },
	  { 0 }, { 0xFFFFFFFFFFFFFFFE, 0x1FFFFFFFFFFFFFFF } }, /* -9/4; MAX/4 */
	{ U64, CS_OP_AVG, 3,
	  { { 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF }, { 0, 1 }, { 0, 0 } },
	  { 0 }, { 0x5555555555555555, 0x0 } },
	/* avg of floats: each input times RNE(1/3), then the sum */
	{ F16, CS_OP_AVG, 3, { { 0x3C00, 0x4200 }, { 0x3C00, 0x4200 },
	  { 0x3C00, 0x4200 } }, { 0 }, { 0x3C00, 0x4200 } },
	{ BF16, CS_OP_AVG, 3, { { 0x3F80, 0x4040 }, { 0x3F80, 0x4040 },
	  { 0x3F80, 0x4040 } }, { 0 }, { 0x3F80, 0x4040 } },
	{ F32, CS_OP_AVG, 3, { { 0x3F800000, 0x40400000 },
	  { 0x3F800000, 0x40400000 }, { 0x3F800000, 0x40400000 } }, { 0 },
	  { 0x3F800000, 0x40400000 } },
	{ F64, CS_OP_AVG, 3, { { 0x3FF0000000000000, 0x4008000000000000 },
	  { 0x3FF0000000000000, 0x4008000000000000 },
	  { 0x3FF0000000000000, 0x4008000000000000 } }, { 0 },
	  { 0x3FF0000000000000, 0x4008000000000000 } },
	{ E4M3, CS_OP_AVG, 3,
	  { { 0x38, 0x40 }, { 0x38, 0x40 }, { 0x38, 0x40 } },
	  { 0 }, { 0x38, 0x40 } },	/* 33/32 -> 1; 66/32 -> 2 */
	{ E5M2, CS_OP_AVG, 3,
	  { { 0x3C, 0x40 }, { 0x3C, 0x40 }, { 0x3C, 0x40 } },
	  { 0 }, { 0x3C, 0x40 } },	/* 15/16: tie, to 1; 1.875: tie, 2 */
	/* premulsum: rank r's input times scalar[r], then the sum */
	{ I8, CS_OP_PREMULSUM, 2, { { 0x64, 0x80 }, { 0x03, 0x80 } },
	  { 0x03, 0xFF }, { 0x29, 0x00 } }, /* 44 - 3; -384 + 128 = -256 = 0 */
	{ U8, CS_OP_PREMULSUM, 2, { { 0xC8, 0x01 }, { 0x01, 0x01 } },
	  { 0x02, 0xFF }, { 0x8F, 0x01 } }, /* 144 + 255 = 143; 2 + 255 */
	{ I32, CS_OP_PREMULSUM, 2, { { 0x80000000, 0x2 }, { 0x5, 0x3 } },
	  { 0xFFFFFFFF, 0xFFFFFFFE }, { 0x7FFFFFF6, 0xFFFFFFF8 } },
	{ U32, CS_OP_PREMULSUM, 2, { { 0x80000000, 0x1 }, { 0x3, 0x1 } },
	  { 0x2, 0x55555556 }, { 0x2, 0x55555558 } },
	{ I64, CS_OP_PREMULSUM, 2,
	  { { 0x8000000000000000, 0x1 }, { 0x7, 0x1 } },
	  { 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF },
	  { 0x7FFFFFFFFFFFFFF9, 0xFFFFFFFFFFFFFFFE } },
	{ U64, CS_OP_PREMULSUM, 2,
	  { { 0x8000000000000000, 0x1 }, { 0x3, 0x1 } },
	  { 0x2, 0x5555555555555556 }, { 0x2, 0x5555555555555558 } },
	{ F16, CS_OP_PREMULSUM, 2, { { 0x3C01, 0x3C00 }, { 0x4200, 0x3C00 } },
	  { 0x3E00, 0x3800 }, { 0x4201, 0x4000 } }, /* 1.5+2^-9 + 1.5 */
	{ BF16, CS_OP_PREMULSUM, 2, { { 0x3F81, 0x3F80 }, { 0x4040, 0x3F80 } },
	  { 0x3FC0, 0x3F00 }, { 0x4041, 0x4000 } },
	{ F32, CS_OP_PREMULSUM, 2, { { 0x3F800001, 0x3F800000 },
	  { 0x40400000, 0x3F800000 } }, { 0x3FC00000, 0x3F000000 },
	  { 0x40400001, 0x40000000 } },
	{ F64, CS_OP_PREMULSUM, 2, { { 0x4008000000000000, 0x0 },
	  { 0x3FF0000000000000, 0x0 } },
	  { 0x3FB999999999999A, 0x3FB999999999999A },
	  { 0x3FD999999999999A, 0x0 } }, /* 3*0.1 + 0.1 = 0.4 in double */
	{ E4M3, CS_OP_PREMULSUM, 2, { { 0x39, 0x7E }, { 0x40, 0x38 } },
	  { 0x3C, 0x30 }, { 0x43, 0x7F } },	/* 1.75 + 1; 448*1.5: NaN */
	{ E5M2, CS_OP_PREMULSUM, 2, { { 0x3D, 0x7B }, { 0x40, 0x38 } },
	  { 0x3E, 0x38 }, { 0x42, 0x7C } },	/* 2 + 1; Inf + 0.25 */
};

#define GUARD 0xA5

/* Runs one pipe case in buffers with guard bytes after the 2 elements. */
static void run_pipe(const struct pipe_case *c, unsigned char *acc)
{
	unsigned char src[24], dst[24];
	int sz = cs_size_of(c->d), r, i;

	memset(acc, GUARD, 24);
	for (r = 0; r < c->p; r++) {
		memset(dst, GUARD, sizeof(dst));
		for (i = 0; i < 2; i++)
			cs_store(c->d, src, i, c->in[r][i]);
		cs_op_prepare(c->d, c->op, c->p, c->scalar[r], dst, src, 2);
		for (i = 2 * sz; i < 24; i++)
			assert_int_equal(dst[i], GUARD);
		if (r == 0)
			memcpy(acc, dst, 2 * sz);
		else
			cs_reduce_bufs(c->d, c->op, acc, dst, 2);
	}
	cs_op_finish(c->d, c->op, c->p, acc, 2);
	for (i = 2 * sz; i < 24; i++)
		assert_int_equal(acc[i], GUARD);
}

static void test_avg_premulsum_pipeline(void **state)
{
	int seen[CS_NUM_DTYPES][CS_NUM_OPS] = { { 0 } };
	unsigned char acc[24];
	size_t k;
	int i, d;

	(void)state;
	for (k = 0; k < ARRAY_LEN(pipe_cases); k++) {
		const struct pipe_case *c = &pipe_cases[k];

		run_pipe(c, acc);
		for (i = 0; i < 2; i++) {
			uint64_t got = cs_load(c->d, acc, i);

			if (got != c->want[i]) {
				print_error("dtype %d op %d elem %d: 0x%llx,"
					    " want 0x%llx\n", c->d, c->op, i,
					    (unsigned long long)got,
					    (unsigned long long)c->want[i]);
				fail();
			}
		}
		seen[c->d][c->op] = 1;
	}
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		assert_true(seen[d][CS_OP_AVG]);
		assert_true(seen[d][CS_OP_PREMULSUM]);
	}
}

/* The float paths of the pieces, one at a time. */
static void test_premul_and_prepare_units(void **state)
{
	unsigned char buf[8];

	(void)state;
	assert_int_equal(cs_op_premul(F16, 0x4200, 0x3555), 0x3C00);
	assert_int_equal(cs_op_premul(E4M3, 0x7E, 0x40), 0x7F); /* 896 */
	assert_int_equal(cs_op_premul(E5M2, 0x7B, 0x40), 0x7C);
	assert_int_equal(cs_op_premul(I8, 0x64, 0x03), 0x2C);
	assert_int_equal(cs_op_premul(U8, 0xC8, 0x02), 0x90);
	assert_int_equal(cs_op_premul(F64, 0x4008000000000000,
				      0x3FB999999999999A), 0x3FD3333333333334);
	/* float avg prepare multiplies by RNE(1/P), ignoring `scalar` */
	cs_store(F16, buf, 0, 0x3C00);
	cs_op_prepare(F16, CS_OP_AVG, 3, 0x4000, buf, buf, 1); /* in place */
	assert_int_equal(cs_load(F16, buf, 0), 0x3555);
	/* integer avg prepare is a copy; so are sum/prod/max/min */
	cs_store(I32, buf, 0, 0xFFFFFFF9);
	cs_op_prepare(I32, CS_OP_AVG, 2, 0x3, buf, buf, 1);
	assert_int_equal(cs_load(I32, buf, 0), 0xFFFFFFF9);
	cs_op_prepare(I32, CS_OP_SUM, 2, 0x3, buf, buf, 1);
	cs_op_prepare(I32, CS_OP_MAX, 2, 0x3, buf, buf, 1);
	assert_int_equal(cs_load(I32, buf, 0), 0xFFFFFFF9);
	/* finish divides only integer avg */
	cs_op_finish(I32, CS_OP_SUM, 2, buf, 1);
	assert_int_equal(cs_load(I32, buf, 0), 0xFFFFFFF9);
	cs_op_finish(I32, CS_OP_AVG, 2, buf, 1);
	assert_int_equal(cs_load(I32, buf, 0), 0xFFFFFFFD);
	cs_store(F16, buf, 0, 0x4200);
	cs_op_finish(F16, CS_OP_AVG, 3, buf, 1);
	assert_int_equal(cs_load(F16, buf, 0), 0x4200);
}

/* ---- cs_reduce_bufs ------------------------------------------------------ */

/* One table group (dtype, op) as two buffers, reduced in one call. */
static void reduce_group(const struct step_case *t, size_t n, cs_dtype_t d,
			 cs_op_t op)
{
	unsigned char inout[8 * 40 + 16], in[8 * 40];
	const struct step_case *sel[40];
	size_t i, k = 0, sz = (size_t)cs_size_of(d);

	memset(inout, GUARD, sizeof(inout));
	memset(in, 0, sizeof(in));
	for (i = 0; i < n; i++) {
		if (t[i].d != d || t[i].op != op)
			continue;
		assert_true(k < 40);
		sel[k] = &t[i];
		cs_store(d, inout, k, t[i].a);
		cs_store(d, in, k, t[i].b);
		k++;
	}
	cs_reduce_bufs(d, op, inout, in, k);
	for (i = 0; i < k; i++)
		assert_true(want_ok(sel[i], cs_load(d, inout, i)));
	for (i = k * sz; i < k * sz + 16; i++)
		assert_int_equal(inout[i], GUARD);
}

static void test_reduce_bufs_elementwise(void **state)
{
	struct step_case mm[MAXMIN_PER_DTYPE * 6];
	size_t i, n = 0;
	int d, op;

	(void)state;
	for (i = 0; i < ARRAY_LEN(fconsts); i++)
		n += maxmin_cases(&fconsts[i], mm + n);
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		for (op = SUM; op <= MIN; op++) {
			reduce_group(int_cases, ARRAY_LEN(int_cases), d, op);
			reduce_group(float_cases, ARRAY_LEN(float_cases), d,
				     op);
			reduce_group(mm, n, d, op);
		}
	}
}

static void test_reduce_bufs_edges(void **state)
{
	unsigned char a[16], b[16];
	int i;

	(void)state;
	/* n = 0 writes nothing */
	memset(a, GUARD, sizeof(a));
	memset(b, 0x01, sizeof(b));
	cs_reduce_bufs(I8, SUM, a, b, 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(a[i], GUARD);
	/* inout == in: x + x; avg and premulsum reduce with sum */
	for (i = 0; i < 4; i++)
		cs_store(I8, a, i, (uint64_t[]){ 0x01, 0x7F, 0x80, 0xFF }[i]);
	cs_reduce_bufs(I8, SUM, a, a, 3);
	assert_int_equal(a[0], 0x02);
	assert_int_equal(a[1], 0xFE);	/* 127 + 127 = 254 = -2 */
	assert_int_equal(a[2], 0x00);
	assert_int_equal(a[3], 0xFF);	/* not reduced (n = 3) */
	cs_store(F16, b, 0, 0x3C00);
	cs_store(F16, a, 0, 0x3C00);
	cs_reduce_bufs(F16, CS_OP_AVG, a, b, 1);
	assert_int_equal(cs_load(F16, a, 0), 0x4000);
	cs_reduce_bufs(F16, CS_OP_PREMULSUM, a, b, 1);
	assert_int_equal(cs_load(F16, a, 0), 0x4200);
}

/* Long enough for the OpenMP-parallel path (n > 65536). */
static void test_reduce_bufs_long(void **state)
{
	const size_t n = 100003;
	uint32_t *a = malloc((n + 1) * 4), *b = malloc(n * 4);
	uint8_t *c = malloc(n + 1), *e = malloc(n);
	size_t i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(e);
	for (i = 0; i < n; i++) {
		a[i] = (uint32_t)i * 0x9E3779B9u;
		b[i] = (uint32_t)i;
		c[i] = 200;
		e[i] = (uint8_t)(100 + i % 2);
	}
	a[n] = 0xDEADBEEF;
	c[n] = GUARD;
	cs_reduce_bufs(U32, SUM, a, b, n);
	cs_reduce_bufs(U8, PROD, c, e, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(a[i], (uint32_t)i * 0x9E3779B9u + (uint32_t)i);
		assert_int_equal(c[i], i % 2 ? 0xE8 : 0x20); /* 20200, 20000 */
	}
	assert_int_equal(a[n], 0xDEADBEEF);
	assert_int_equal(c[n], GUARD);
	free(a);
	free(b);
	free(c);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_steps),
		cmocka_unit_test(test_float_sum_prod),
		cmocka_unit_test(test_float_maxmin_ignore),
		cmocka_unit_test(test_float_maxmin_propagate),
		cmocka_unit_test(test_tables_cover_every_pair),
		cmocka_unit_test(test_postdiv),
		cmocka_unit_test(test_avg_scalar),
		cmocka_unit_test(test_avg_premulsum_pipeline),
		cmocka_unit_test(test_premul_and_prepare_units),
		cmocka_unit_test(test_reduce_bufs_elementwise),
		cmocka_unit_test(test_reduce_bufs_edges),
		cmocka_unit_test(test_reduce_bufs_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
