/*
 * identity.c - the bytes identity of values fingerprints (identity.h):
 * NaNs as one NaN, zeros as +0 where either zero conforms.
 *
 * A rank verifies only its share of an allreduce against the oracle; the
 * identity check carries that verdict to every other rank. So two results
 * may be taken as the same only where the value check could not tell them
 * apart: any NaN where a NaN conforms (ref/compare.c takes any NaN for a
 * NaN in a reduction), and either zero only at the elements whose golden
 * says so, decided here from every rank's inputs at that element (the
 * generators are pure), never for every zero: a rank that gives -0 for
 * max(+0, -1) on elements another rank verified must still fail.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/golden.h"
#include "check/identity.h"

/* 1 when the received element i of call k's case c may be a zero of
 * either sign: its golden, from every rank's input at i, says so. */
static int any_zero_ok(const cs_case_t *c, size_t i, uint64_t *x,
		       uint64_t *alpha)
{
	cs_golden_t g;

	cs_gen_column(c, i, x, c->op == CS_OP_PREMULSUM ? alpha : NULL);
	cs_golden_reduce(c->dtype, c->op, c->nranks, x,
			 c->op == CS_OP_PREMULSUM ? alpha : NULL,
			 c->mode == CS_MODE_EXACT, &g);
	return (g.flags & CS_G_ANY_ZERO) != 0;
}

/* The canonical bits of element i holding b, or b itself. */
static uint64_t canon(const cs_case_t *c, cs_fmt_t f, size_t i, uint64_t b,
		      uint64_t *x, uint64_t *alpha)
{
	if (cs_fmt_isnan(f, b))
		return cs_fmt_nanbits(f);
	if (b == cs_fmt_sign(f) && any_zero_ok(c, i, x, alpha))
		return 0;
	return b;
}

/* The first element at or after i whose canonical bits differ, or n. */
static size_t next_change(const cs_case_t *c, const void *buf, size_t i,
			  size_t n, uint64_t *x, uint64_t *alpha)
{
	cs_fmt_t f = cs_fmt_of(c->dtype);
	uint64_t b;

	for (; i < n; i++) {
		b = cs_load(c->dtype, buf, i);
		if (canon(c, f, i, b, x, alpha) != b)
			return i;
	}
	return n;
}

const void *cs_identity_values(const cs_exec_t *e, int k, const void *bytes,
			       size_t n, void **copy)
{
	cs_case_t c;
	size_t es = cs_dtype_size(e->c.dtype), count = es ? n / es : 0, i;
	uint64_t *x = NULL;
	unsigned char *out;
	cs_fmt_t f;

	*copy = NULL;
	if (e->c.op == CS_OP_NONE || !cs_is_float(e->c.dtype))
		return bytes;
	cs_exec_call_case(e, k, &c);
	if (!(x = malloc(2 * (size_t)c.nranks * sizeof *x)))
		return NULL;
	i = next_change(&c, bytes, 0, count, x, x + c.nranks);
	if (i == count) {
		free(x);
		return bytes;
	}
	if (!(out = malloc(n ? n : 1))) {
		free(x);
		return NULL;
	}
	memcpy(out, bytes, n);
	f = cs_fmt_of(c.dtype);
	for (; i < count; i++)
		cs_store(c.dtype, out, i, canon(&c, f, i, cs_load(c.dtype, out, i),
						x, x + c.nranks));
	free(x);
	*copy = out;
	return out;
}
