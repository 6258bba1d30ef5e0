/*
 * identity.h - what the identity check across ranks compares
 * (spec/numerics.md section 5.1): identity of values, where a NaN equals
 * any NaN and +0 equals -0 wherever the op allows either zero, and bit
 * identity of the raw bytes beyond it (identity.c).
 */
#ifndef CS_IDENTITY_H
#define CS_IDENTITY_H

#include <stddef.h>
#include "check/exec.h"

/*
 * The bytes bytes[0..n) that call k of e received, as identity of values
 * compares them: for a reducing collective of a float dtype, every NaN
 * becomes the dtype's canonical quiet NaN, and every zero whose element
 * the golden lets be a zero of either sign (CS_G_ANY_ZERO: a max/min tie
 * of +0 and -0, a sum whose exact value is 0) becomes +0. Sound because
 * the value check accepts any NaN where it accepts one and either zero
 * exactly there, so two buffers alike here are alike to it.
 *
 * Returns bytes itself when no element changes (always for integers and
 * data movement); else a malloc'ed canonical copy, also in *copy, that the
 * caller frees; NULL when out of memory. *copy is NULL unless a copy was
 * made.
 */
const void *cs_identity_values(const cs_exec_t *e, int k, const void *bytes,
			       size_t n, void **copy);

#endif /* CS_IDENTITY_H */
