/*
 * nccl_fp8_model.c - NCCL's float8 reduction step on the host (see
 * nccl_fp8_model.h). Formats by their fields: E4M3 has a 4-bit exponent
 * (bias 7), 3 mantissa bits, no infinity and NaN at S.1111.111 only; E5M2
 * has a 5-bit exponent (bias 15), 2 mantissa bits and IEEE specials.
 */
#include <math.h>
#include "nccl_fp8_model.h"

static int is_e4m3(cs_dtype_t d)
{
	return d == CS_DTYPE_FLOAT8_E4M3;
}

double ncclm_value(cs_dtype_t d, uint8_t b)
{
	int mb = is_e4m3(d) ? 3 : 2, bias = is_e4m3(d) ? 7 : 15;
	int e = (b & 0x7f) >> mb, m = b & ((1 << mb) - 1), top = (1 << (7 - mb)) - 1;
	double v;

	if (is_e4m3(d) && e == top && m == (1 << mb) - 1)
		return NAN;
	if (!is_e4m3(d) && e == top)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, 1 - bias - mb);
	else
		v = ldexp(m + (1 << mb), e - bias - mb);
	return (b & 0x80) ? -v : v;
}

/* z rounded to nearest even on the grid of p-bit numbers with least
 * normal exponent emin (subnormals below it); no upper limit. */
static double round_grid(double z, int p, int emin)
{
	int e;

	if (z == 0 || !isfinite(z))
		return z;
	(void)frexp(z, &e); /* |z| in [2^(e-1), 2^e) */
	e = e - 1 < emin ? emin : e - 1;
	return ldexp(rint(ldexp(z, p - 1 - e)), e - (p - 1));
}

double ncclm_half(double z)
{
	double r = round_grid(z, 11, -14);

	return fabs(r) > 65504 ? copysign(INFINITY, r) : r;
}

uint8_t ncclm_satfinite(cs_dtype_t d, double z)
{
	int mb = is_e4m3(d) ? 3 : 2, bias = is_e4m3(d) ? 7 : 15, e;
	double maxf = is_e4m3(d) ? 448 : 57344, r;
	uint8_t sign = signbit(z) ? 0x80 : 0;

	if (isnan(z))
		return is_e4m3(d) ? 0x7f : 0x7e;
	r = fabs(round_grid(z, mb + 1, 1 - bias));
	if (r > maxf) /* infinities too */
		return sign | (is_e4m3(d) ? 0x7e : 0x7b);
	(void)frexp(r, &e); /* r in [2^(e-1), 2^e) */
	if (r == 0 || e - 1 < 1 - bias) /* subnormal: r / 2^(1-bias-mb) */
		return sign | (uint8_t)ldexp(r, bias - 1 + mb);
	return sign | (uint8_t)((e - 1 + bias) << mb) |
	       ((uint8_t)ldexp(r, mb - (e - 1)) & ((1 << mb) - 1));
}

/* __hmax / __hmin: a NaN operand loses to a number; +0 > -0. */
static double half_maxmin(cs_op_t op, double x, double y)
{
	int xbig;

	if (isnan(x) || isnan(y))
		return isnan(x) ? y : x;
	if (x == y) /* only zeros differ in sign */
		xbig = !signbit(x);
	else
		xbig = x > y;
	return (op == CS_OP_MAX) == xbig ? x : y;
}

uint8_t ncclm_step(cs_dtype_t d, cs_op_t op, uint8_t a, uint8_t b)
{
	double x = ncclm_value(d, a), y = ncclm_value(d, b), h;

	switch (op) {
	case CS_OP_PROD:
		h = ncclm_half(x * y);
		break;
	case CS_OP_MAX:
	case CS_OP_MIN:
		h = half_maxmin(op, x, y);
		break;
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
	case CS_NUM_OPS: /* CS_OP_NONE: not a reduction op */
	default:
		h = ncclm_half(x + y);
		break;
	}
	return ncclm_satfinite(d, h);
}

uint8_t ncclm_premul(cs_dtype_t d, uint8_t x, uint8_t s)
{
	return ncclm_step(d, CS_OP_PROD, x, s);
}

uint8_t ncclm_avg_scalar(cs_dtype_t d, int P)
{
	return ncclm_satfinite(d, (double)(float)(1.0 / P));
}
