/*
 * arith.h - element arithmetic of every catalog dtype, shared by the
 * reference (host C), the GPU kernels (CUDA C) and the host step executor.
 *
 * Values travel as raw bit patterns in a uint64_t (the low 8*size bits are
 * the element's encoding, the rest zero). Floating-point formats are
 * described by (ebits, mbits, fn): exponent field width, stored mantissa
 * width, and fn=1 for the OCP "FN" format float8_e4m3 (no infinities, NaN
 * only at S.1111.111).
 *
 * Every conversion from double rounds once, to nearest, ties to even
 * (spec/numerics.md, "Conversions"). Every step op computes the result
 * in double and rounds it to the element type. For the formats narrower
 * than float64 that is one correctly rounded IEEE operation in the type:
 * products of two such values are exact in double (2p <= 53), and sums,
 * which need not be exact in double (2^127 + 2^-149), are rounded twice
 * harmlessly because 53 >= 2p + 2 for every p <= 24. float64 steps are
 * native double operations.
 */
#ifndef CSREF_ARITH_H
#define CSREF_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "cs_catalog.h"

#ifdef __CUDACC__
#define CS_HD static inline __host__ __device__
#else
#define CS_HD static inline
#endif

/* Format of a floating dtype. */
typedef struct cs_fmt {
  int ebits; /* exponent field width */
  int mbits; /* stored mantissa width (precision - 1) */
  int fn;    /* 1: no infinities, NaN only with all exponent and mantissa bits set */
} cs_fmt_t;

/*
 * The per-dtype facts below are generated from the catalog's columns
 * (spec/cs_catalog.h): each is a switch with one case per dtype, written by
 * the X-macro, so a new catalog line needs no edit here and -Wswitch-enum
 * still sees every enumerator. They are per element, hence switches (a
 * jump or lookup table), usable on the device, not calls into catalog.c.
 * CS_NUM_DTYPES is not a dtype: it gets the neutral answer after the switch.
 */
/*
 * What the arithmetic below assumes of every catalog row, checked at
 * compile time so that a new dtype outside it fails the build instead of
 * computing wrongly: elements of 1, 2, 4 or 8 bytes (cs_load, cs_store);
 * a float's precision at most 24 bits (a sum computed in double and
 * rounded to the type is then correctly rounded) or float64 itself.
 */
#ifdef __cplusplus
#define CS_ARITH_ASSERT_ static_assert
#else
#define CS_ARITH_ASSERT_ _Static_assert
#endif
#define CS_ARITH_ROW_OK_(ID, name, bytes, kind, p_, emin, emax, eb_, fn_, ...) \
  CS_ARITH_ASSERT_((bytes) == 1 || (bytes) == 2 || (bytes) == 4 ||           \
                       (bytes) == 8,                                           \
                   #name ": elements are 1, 2, 4 or 8 bytes");                 \
  CS_ARITH_ASSERT_((kind) != CS_KIND_FLOAT ||                                  \
                       ((p_) <= 24 && 8 * (bytes) == 1 + (eb_) + (p_) - 1) ||  \
                       ((p_) == 53 && (eb_) == 11 && (bytes) == 8),            \
                   #name ": cs_step computes floats of at most 24 bits of "    \
                   "precision (or float64) in double; the catalog's bytes, "   \
                   "ebits and prec must describe one encoding");
CS_DTYPE_LIST(CS_ARITH_ROW_OK_)
#undef CS_ARITH_ROW_OK_
#undef CS_ARITH_ASSERT_

#define CS_ARITH_FMT_(ID, name, bytes, kind, p_, emin, emax, eb_, fn_, ...)   \
  case CS_DTYPE_##ID:                                                          \
    f.ebits = (eb_);                                                           \
    f.mbits = (p_) ? (p_) - 1 : 0;                                             \
    f.fn = (fn_);                                                              \
    break;

/* Format of dtype d; {0, 0, 0} for an integer dtype. */
CS_HD cs_fmt_t cs_fmt_of(cs_dtype_t d) {
  cs_fmt_t f = {0, 0, 0};
  switch (d) {
  CS_DTYPE_LIST(CS_ARITH_FMT_)
  case CS_NUM_DTYPES: /* not a dtype */
    break;
  }
  return f;
}
#undef CS_ARITH_FMT_

CS_HD int cs_fmt_bias(cs_fmt_t f) { return (1 << (f.ebits - 1)) - 1; }
CS_HD uint64_t cs_fmt_emask(cs_fmt_t f) { return ((uint64_t)1 << f.ebits) - 1; }
CS_HD uint64_t cs_fmt_mmask(cs_fmt_t f) { return ((uint64_t)1 << f.mbits) - 1; }
CS_HD uint64_t cs_fmt_sign(cs_fmt_t f) {
  return (uint64_t)1 << (f.ebits + f.mbits);
}

/* Largest finite encoding (positive). */
CS_HD uint64_t cs_fmt_maxbits(cs_fmt_t f) {
  if (f.fn) /* top exponent is usable, top mantissa pattern is NaN */
    return (cs_fmt_emask(f) << f.mbits) | (cs_fmt_mmask(f) - 1);
  return ((cs_fmt_emask(f) - 1) << f.mbits) | cs_fmt_mmask(f);
}

/* Canonical quiet NaN (positive); sign is or-ed in by callers. */
CS_HD uint64_t cs_fmt_nanbits(cs_fmt_t f) {
  if (f.fn)
    return (cs_fmt_emask(f) << f.mbits) | cs_fmt_mmask(f);
  return (cs_fmt_emask(f) << f.mbits) | ((uint64_t)1 << (f.mbits - 1));
}

CS_HD uint64_t cs_fmt_infbits(cs_fmt_t f) { /* callers check !f.fn */
  return cs_fmt_emask(f) << f.mbits;
}

CS_HD int cs_fmt_isnan(cs_fmt_t f, uint64_t b) {
  uint64_t e = (b >> f.mbits) & cs_fmt_emask(f), m = b & cs_fmt_mmask(f);
  if (f.fn)
    return e == cs_fmt_emask(f) && m == cs_fmt_mmask(f);
  return e == cs_fmt_emask(f) && m != 0;
}

CS_HD int cs_fmt_isinf(cs_fmt_t f, uint64_t b) {
  if (f.fn)
    return 0;
  return (b & ~cs_fmt_sign(f)) == cs_fmt_infbits(f);
}

CS_HD double cs_bits_to_f64(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

CS_HD uint64_t cs_f64_to_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* Decode an encoding of format f to the double of equal value (exact:
 * every format here is a subset of double). NaN decodes to a quiet NaN. */
CS_HD double cs_fmt_decode(cs_fmt_t f, uint64_t b) {
  if (f.ebits == 11 && f.mbits == 52) /* float64 itself */
    return cs_bits_to_f64(b);
  int neg = (b & cs_fmt_sign(f)) != 0;
  uint64_t e = (b >> f.mbits) & cs_fmt_emask(f), m = b & cs_fmt_mmask(f);
  double v;
  if (cs_fmt_isnan(f, b))
    return neg ? -NAN : NAN;
  if (!f.fn && e == cs_fmt_emask(f))
    v = INFINITY;
  else if (e == 0) /* zero or subnormal: m * 2^(emin - mbits), exact */
    v = (double)m *
        cs_bits_to_f64((uint64_t)(1023 + 1 - cs_fmt_bias(f) - f.mbits) << 52);
  else /* normal: the same exponent and mantissa, re-biased and widened */
    return cs_bits_to_f64(((uint64_t)neg << 63) |
                          ((e - (uint64_t)cs_fmt_bias(f) + 1023) << 52) |
                          (m << (52 - f.mbits)));
  return neg ? -v : v;
}

/*
 * Encode a double into format f, rounding once to nearest, ties to even.
 * A magnitude that rounds above the largest finite value overflows: with
 * sat=0 to infinity (or NaN for an fn format), with sat=1 to the largest
 * finite value of that sign. NaN gives the canonical quiet NaN with the
 * input's sign.
 */
CS_HD uint64_t cs_fmt_encode(cs_fmt_t f, double x, int sat) {
  if (f.ebits == 11 && f.mbits == 52) /* float64 itself */
    return cs_f64_to_bits(x);
  uint64_t sign = signbit(x) ? cs_fmt_sign(f) : 0;
  double a = fabs(x);
  if (isnan(x))
    return sign | cs_fmt_nanbits(f);
  if (a == 0)
    return sign;
  int emin = 1 - cs_fmt_bias(f);
  int emax = (int)cs_fmt_emask(f) - 1 - cs_fmt_bias(f) + f.fn;
  uint64_t ovf = sat ? cs_fmt_maxbits(f)
                     : (f.fn ? cs_fmt_nanbits(f) : cs_fmt_infbits(f));
  if (isinf(a))
    return sign | ovf;
  uint64_t ab = cs_f64_to_bits(a);
  int ea = (int)(ab >> 52) - 1023; /* a in [2^ea, 2^(ea+1)) when normal */
  if (ea >= emin && ea <= emax && (ab >> 52) != 0) {
    /* the common case, in integers: keep mbits of the 52 mantissa bits,
     * rounding the rest to nearest, ties to even; a carry out of the
     * mantissa steps into the next binade, which the exponent add does */
    int sh = 52 - f.mbits;
    uint64_t q = (ab & (((uint64_t)1 << 52) - 1)) >> sh;
    uint64_t rest = ab & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
    if (rest > half || (rest == half && (q & 1)))
      q++;
    q += (uint64_t)(ea + cs_fmt_bias(f)) << f.mbits;
    return sign | (q > cs_fmt_maxbits(f) ? ovf : q);
  }
  int e2;
  (void)frexp(a, &e2);
  int E = e2 - 1; /* a in [2^E, 2^(E+1)) */
  if (E < emin)
    E = emin; /* subnormal range: fixed quantum 2^(emin - mbits) */
  if (E > emax + 1)
    return sign | ovf;
  double r = rint(ldexp(a, f.mbits - E)); /* ties to even: default mode */
  uint64_t q = (uint64_t)r;
  if (q >> (f.mbits + 1)) { /* rounded up into the next binade */
    q >>= 1;
    E++;
  }
  if (q < ((uint64_t)1 << f.mbits)) /* subnormal (E == emin) or zero */
    return sign | q;
  if (E > emax)
    return sign | ovf;
  uint64_t m = q & cs_fmt_mmask(f);
  if (f.fn && E == emax && m == cs_fmt_mmask(f))
    return sign | ovf;
  return sign | ((uint64_t)(E + cs_fmt_bias(f)) << f.mbits) | m;
}

/* ---- per-dtype access ---------------------------------------------------- */

#define CS_ARITH_SIZE_(ID, name, bytes, ...)                                   \
  case CS_DTYPE_##ID:                                                          \
    return (bytes);

/* Storage size of one element of dtype d in bytes (0 for CS_NUM_DTYPES). */
CS_HD int cs_size_of(cs_dtype_t d) {
  switch (d) {
  CS_DTYPE_LIST(CS_ARITH_SIZE_)
  case CS_NUM_DTYPES: /* not a dtype */
    break;
  }
  return 0;
}
#undef CS_ARITH_SIZE_

#define CS_ARITH_KIND_(ID, name, bytes, kind, ...)                             \
  case CS_DTYPE_##ID:                                                          \
    return (kind);

/* CS_KIND_SINT, CS_KIND_UINT or CS_KIND_FLOAT (-1 for CS_NUM_DTYPES). */
CS_HD int cs_kind_of(cs_dtype_t d) {
  switch (d) {
  CS_DTYPE_LIST(CS_ARITH_KIND_)
  case CS_NUM_DTYPES: /* not a dtype */
    break;
  }
  return -1;
}
#undef CS_ARITH_KIND_

CS_HD int cs_is_float(cs_dtype_t d) { return cs_kind_of(d) == CS_KIND_FLOAT; }

CS_HD int cs_is_signed_int(cs_dtype_t d) {
  return cs_kind_of(d) == CS_KIND_SINT;
}

CS_HD uint64_t cs_bits_mask(cs_dtype_t d) {
  int n = cs_size_of(d);
  return n == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * n)) - 1);
}

/* Load element i of a buffer of dtype d as bits. */
CS_HD uint64_t cs_load(cs_dtype_t d, const void *buf, size_t i) {
  const unsigned char *p = (const unsigned char *)buf + i * cs_size_of(d);
  switch (cs_size_of(d)) {
  case 1: return *p;
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

/* Store bits as element i of a buffer of dtype d. */
CS_HD void cs_store(cs_dtype_t d, void *buf, size_t i, uint64_t b) {
  unsigned char *p = (unsigned char *)buf + i * cs_size_of(d);
  switch (cs_size_of(d)) {
  case 1: *p = (unsigned char)b; break;
  case 2: { uint16_t v = (uint16_t)b; memcpy(p, &v, 2); break; }
  case 4: { uint32_t v = (uint32_t)b; memcpy(p, &v, 4); break; }
  default: memcpy(p, &b, 8); break;
  }
}

/* Integer value of bits as a signed 64-bit number (sign-extended for
 * signed dtypes; unsigned 64-bit values above INT64_MAX wrap). */
CS_HD int64_t cs_int_value(cs_dtype_t d, uint64_t b) {
  if (!cs_is_signed_int(d))
    return (int64_t)b;
  switch (cs_size_of(d)) { /* sign-extend from the element's width */
  case 1: return (int8_t)(uint8_t)b;
  case 2: return (int16_t)(uint16_t)b;
  case 4: return (int32_t)(uint32_t)b;
  default: return (int64_t)b;
  }
}

/* Float value of bits (exact). */
CS_HD double cs_to_f64(cs_dtype_t d, uint64_t b) {
  if (d == CS_DTYPE_FLOAT32) {
    uint32_t v = (uint32_t)b;
    float f;
    memcpy(&f, &v, 4);
    return f;
  }
  return cs_fmt_decode(cs_fmt_of(d), b);
}

/* Round a double to dtype d (floats: nearest-even, sat as cs_fmt_encode). */
CS_HD uint64_t cs_from_f64(cs_dtype_t d, double x, int sat) {
  if (d == CS_DTYPE_FLOAT32 && !sat) {
    float f = (float)x; /* one rounding, nearest-even */
    uint32_t v;
    memcpy(&v, &f, 4);
    return v;
  }
  return cs_fmt_encode(cs_fmt_of(d), x, sat);
}

CS_HD int cs_isnan_bits(cs_dtype_t d, uint64_t b) {
  return cs_is_float(d) && cs_fmt_isnan(cs_fmt_of(d), b);
}

/* ---- one reduction step -------------------------------------------------- */

/*
 * a OP b for one element, rounded to the dtype: the arithmetic one step of
 * a ring or tree performs. op is SUM, PROD, MAX or MIN (AVG and PREMULSUM
 * reduce with SUM; see cs_op_premul and cs_op_postdiv). Integers wrap
 * modulo 2^bits. Float MAX/MIN follow the "ignore" NaN rule (a NaN operand
 * loses to a number, as fmax does); nanprop=1 selects "propagate".
 */
CS_HD uint64_t cs_step_nan(cs_dtype_t d, cs_op_t op, uint64_t a, uint64_t b,
                           int nanprop) {
  if (!cs_is_float(d)) {
    uint64_t mask = cs_bits_mask(d);
    int64_t sa = cs_int_value(d, a), sb = cs_int_value(d, b);
    int sgn = cs_is_signed_int(d);
    switch (op) {
    case CS_OP_SUM:
    case CS_OP_AVG:       /* a step of AVG sums (cs_step_op) */
    case CS_OP_PREMULSUM: /* a step of PREMULSUM sums too */
      return (a + b) & mask;
    case CS_OP_PROD: return (a * b) & mask;
    case CS_OP_MAX: return (sgn ? sa >= sb : a >= b) ? a : b;
    case CS_OP_MIN: return (sgn ? sa <= sb : a <= b) ? a : b;
    case CS_NUM_OPS: /* CS_OP_NONE: no reduction, a stays */
      return a;
    }
    return a;
  }
  cs_fmt_t f = cs_fmt_of(d);
  double x = cs_to_f64(d, a), y = cs_to_f64(d, b), r;
  switch (op) {
  case CS_OP_PROD:
    r = x * y;
    /* a NaN result is the canonical quiet NaN: which operand's payload
     * the hardware keeps depends on operand order, so host and device
     * would otherwise differ in NaN bits */
    if (isnan(r))
      return cs_fmt_nanbits(f);
    return cs_from_f64(d, r, 0);
  case CS_OP_MAX:
  case CS_OP_MIN:
    if (isnan(x) || isnan(y)) {
      if (nanprop || (isnan(x) && isnan(y)))
        return isnan(x) ? a : b;
      return isnan(x) ? b : a;
    }
    if (op == CS_OP_MAX)
      return x >= y ? a : b;
    return x <= y ? a : b;
  case CS_OP_SUM:
  case CS_OP_AVG:       /* a step of AVG sums (cs_step_op) */
  case CS_OP_PREMULSUM: /* a step of PREMULSUM sums too */
    r = x + y;
    if (isnan(r))
      return cs_fmt_nanbits(f);
    if (d == CS_DTYPE_FLOAT64)
      return cs_f64_to_bits(r);
    return cs_from_f64(d, r, 0);
  case CS_NUM_OPS: /* CS_OP_NONE: no reduction, a stays */
    break;
  }
  return a;
}

CS_HD uint64_t cs_step(cs_dtype_t d, cs_op_t op, uint64_t a, uint64_t b) {
  return cs_step_nan(d, op, a, b, 0);
}

/* The op a step applies: AVG and PREMULSUM reduce with SUM. */
CS_HD cs_op_t cs_step_op(cs_op_t op) {
  switch (op) {
  case CS_OP_AVG:
  case CS_OP_PREMULSUM:
    return CS_OP_SUM;
  case CS_OP_SUM:
  case CS_OP_PROD:
  case CS_OP_MAX:
  case CS_OP_MIN:
  case CS_NUM_OPS: /* CS_OP_NONE stays none */
    break;
  }
  return op;
}

/* Pre-multiplication of one input: x * scalar rounded to the dtype
 * (PREMULSUM with the rank's scalar; float AVG with cs_avg_scalar). */
CS_HD uint64_t cs_op_premul(cs_dtype_t d, uint64_t x, uint64_t scalar) {
  if (d == CS_DTYPE_FLOAT64)
    return cs_f64_to_bits(cs_bits_to_f64(x) * cs_bits_to_f64(scalar));
  return cs_step(d, CS_OP_PROD, x, scalar);
}

/* The scalar float AVG pre-multiplies by: 1/P computed in double, then
 * rounded to the dtype (what NCCL does). Integers: unused, returns 0. */
CS_HD uint64_t cs_avg_scalar(cs_dtype_t d, int nranks) {
  if (!cs_is_float(d))
    return 0;
  return cs_from_f64(d, 1.0 / (double)nranks, 0);
}

/* Integer AVG's last step: the wrapped sum divided by P, truncating toward
 * zero (C division of the signed or unsigned value). */
CS_HD uint64_t cs_op_postdiv(cs_dtype_t d, uint64_t sum, int nranks) {
  if (cs_is_signed_int(d))
    return (uint64_t)(cs_int_value(d, sum) / (int64_t)nranks) & cs_bits_mask(d);
  return (sum / (uint64_t)nranks) & cs_bits_mask(d);
}

/* An integer reduction over the ranks in rank order, one rank at a time:
 * the partial result after rank i's input x (alpha: its PREMULSUM
 * scalar, else unused), given acc, the partial result after rank i - 1.
 * Exact: integer sums and products wrap, so any order gives these bits.
 * The golden (ref/golden.c) and the device check (csref/dcheck.h) both
 * fold with it; cs_int_fold_end finishes AVG. */
CS_HD uint64_t cs_int_fold(cs_dtype_t d, cs_op_t op, int i, uint64_t acc,
                           uint64_t x, uint64_t alpha) {
  if (op == CS_OP_PREMULSUM)
    x = cs_op_premul(d, x, alpha);
  return i ? cs_step(d, cs_step_op(op), acc, x) : x;
}

/* The integer reduction's result from the fold over P ranks. */
CS_HD uint64_t cs_int_fold_end(cs_dtype_t d, cs_op_t op, uint64_t acc,
                               int P) {
  return op == CS_OP_AVG ? cs_op_postdiv(d, acc, P) : acc;
}

#endif /* CSREF_ARITH_H */
