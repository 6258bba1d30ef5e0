/*
 * checked.h - overflow-checked int64_t arithmetic and the argument checks
 * shared by ref/patterns/ (private to it). Each *_ok returns false, with a
 * cs_error message naming `what`, when the check fails.
 */
#ifndef CS_PATTERNS_CHECKED_H
#define CS_PATTERNS_CHECKED_H

#include <stdbool.h>
#include <stdint.h>
#include "csref/status.h"

/* *out = a * b for a, b >= 0, unless that exceeds INT64_MAX. */
static inline bool pat_mul_ok(int64_t a, int64_t b, int64_t *out,
			      const char *what)
{
	if (__builtin_mul_overflow(a, b, out)) {
		cs_error(CS_ERR_OVERFLOW, "%s: %lld * %lld overflows int64",
			 what, (long long)a, (long long)b);
		return false;
	}
	return true;
}

/* *out = a + b for a, b >= 0, unless that exceeds INT64_MAX. */
static inline bool pat_add_ok(int64_t a, int64_t b, int64_t *out,
			      const char *what)
{
	if (__builtin_add_overflow(a, b, out)) {
		cs_error(CS_ERR_OVERFLOW, "%s: %lld + %lld overflows int64",
			 what, (long long)a, (long long)b);
		return false;
	}
	return true;
}

/* v >= lo, else an invalid-argument message naming `what`. */
static inline bool pat_min_ok(int64_t v, int64_t lo, const char *what)
{
	if (v < lo) {
		cs_error(CS_ERR_INVALID, "%s = %lld, must be >= %lld", what,
			 (long long)v, (long long)lo);
		return false;
	}
	return true;
}

/* w is a dtype size: 1, 2, 4 or 8 bytes. */
static inline bool pat_w_ok(int w)
{
	if (w != 1 && w != 2 && w != 4 && w != 8) {
		cs_error(CS_ERR_INVALID, "dtype size w = %d, must be 1, 2, 4 "
			 "or 8", w);
		return false;
	}
	return true;
}

/* P >= 1 and 0 <= r < P. */
static inline bool pat_rank_ok(int P, int r)
{
	if (P < 1 || r < 0 || r >= P) {
		cs_error(CS_ERR_INVALID, "rank %d of a group of %d: need "
			 "P >= 1 and 0 <= r < P", r, P);
		return false;
	}
	return true;
}

#endif /* CS_PATTERNS_CHECKED_H */
