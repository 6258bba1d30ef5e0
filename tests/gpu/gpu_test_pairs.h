/*
 * gpu_test_pairs.h - operand pairs for the GPU functor and kernel tests.
 *
 * cs_test_fill_pairs fills two buffers so that (a[i], b[i]) run through:
 * for 8-bit dtypes every pair of bit patterns; for wider ones every pair of
 * the dtype's boundary patterns (signed zeros, subnormals, extremes,
 * infinities, NaNs with different signs and payloads; integer 0, +-1,
 * minimum and maximum); then random bit patterns, which for floats mix all
 * exponents, both signs, NaNs and infinities.
 */
#ifndef CS_GPU_TEST_PAIRS_H
#define CS_GPU_TEST_PAIRS_H

#include <stddef.h>
#include <stdint.h>
#include "csref/arith.h"
#include "csref/gen.h"

#define CS_TEST_MAX_PATTERNS 32

/* Boundary bit patterns of dtype d into out[]; returns how many. */
static inline size_t cs_test_patterns(cs_dtype_t d, uint64_t *out)
{
	uint64_t mask = cs_bits_mask(d);
	size_t k = 0, i, npos;

	if (!cs_is_float(d)) {
		uint64_t smax = cs_is_signed_int(d) ? mask >> 1 : mask;

		out[k++] = 0;
		out[k++] = 1;
		out[k++] = 2;
		out[k++] = mask;          /* -1, or the unsigned maximum */
		out[k++] = mask - 1;
		out[k++] = mask >> 1;     /* signed maximum */
		out[k++] = (mask >> 1) + 1; /* signed minimum */
		out[k++] = smax / 3;
		out[k++] = 0xa5a5a5a5a5a5a5a5ull & mask;
		return k;
	}
	cs_fmt_t f = cs_fmt_of(d);
	out[k++] = 0;                                   /* +0 */
	out[k++] = 1;                                   /* least subnormal */
	out[k++] = cs_fmt_mmask(f);                     /* greatest subnormal */
	out[k++] = (uint64_t)1 << f.mbits;              /* least normal */
	out[k++] = cs_from_f64(d, 1.0, 0);
	out[k++] = cs_from_f64(d, 1.5, 0);
	out[k++] = cs_from_f64(d, 3.0, 0);
	out[k++] = cs_fmt_maxbits(f);                   /* max finite */
	out[k++] = cs_fmt_maxbits(f) - 1;
	out[k++] = cs_fmt_nanbits(f);
	if (!f.fn) {
		out[k++] = cs_fmt_infbits(f);
		out[k++] = cs_fmt_infbits(f) | 1;       /* NaN, other payload */
	}
	npos = k;
	for (i = 0; i < npos; i++)                      /* the negatives */
		out[k++] = out[i] | cs_fmt_sign(f);
	return k;
}

/* Fill a[0..n) and b[0..n) of dtype d with the pairs described above; the
 * random part depends on seed only. */
static inline void cs_test_fill_pairs(cs_dtype_t d, void *a, void *b,
				      size_t n, uint64_t seed)
{
	uint64_t pat[CS_TEST_MAX_PATTERNS];
	size_t np = cs_test_patterns(d, pat), i = 0;
	uint64_t mask = cs_bits_mask(d);

	if (cs_size_of(d) == 1) {
		for (; i < n && i < 65536; i++) {
			cs_store(d, a, i, i & 0xff);
			cs_store(d, b, i, i >> 8);
		}
	} else {
		for (; i < n && i < np * np; i++) {
			cs_store(d, a, i, pat[i % np]);
			cs_store(d, b, i, pat[i / np]);
		}
	}
	for (; i < n; i++) {
		cs_store(d, a, i, cs_mix64(seed + 2 * i) & mask);
		cs_store(d, b, i, cs_mix64(seed + 2 * i + 1) & mask);
	}
}

/*
 * 1 when `got` is an acceptable stand-in for the reference result `want`
 * of op on dtype d: the same bits, except that a NaN computed by float
 * arithmetic (sum, prod, and the sums and products of avg and premulsum)
 * may be any NaN: spec/numerics.md leaves its payload and sign free, and
 * hardware differs (x86 keeps one operand's payload, which one depends on
 * the compiler's operand order; CUDA returns a canonical NaN). max and min
 * return one of their inputs, so they are compared exactly.
 */
static inline int cs_test_same(cs_dtype_t d, cs_op_t op, uint64_t got,
			       uint64_t want)
{
	if (got == want)
		return 1;
	if (op == CS_OP_MAX || op == CS_OP_MIN)
		return 0;
	return cs_isnan_bits(d, got) && cs_isnan_bits(d, want);
}

#endif /* CS_GPU_TEST_PAIRS_H */
