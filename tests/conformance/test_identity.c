/*
 * test_identity.c - what the identity check across ranks compares
 * (conformance/check/identity.c, cs_identity_verdict in check/verdict.c;
 * spec/numerics.md section 5.1): NaNs as one NaN, a zero as +0 only where
 * the inputs make either zero conform, raw bytes for bitidentity. No MPI:
 * buffers are written by hand, the inputs read from the generators.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "check/exec.h"
#include "check/identity.h"
#include "check/verdict.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "suite/suite.h"

#define N 600

static cs_exec_t setup(cs_coll_t coll, cs_dtype_t d, cs_op_t op, int P)
{
	cs_hcase_t hc;
	cs_exec_t e;

	memset(&hc, 0, sizeof hc);
	hc.c.coll = coll;
	hc.c.dtype = d;
	hc.c.op = op;
	hc.c.mode = CS_MODE_SPECIAL;
	hc.c.nranks = P;
	hc.c.count = N;
	hc.c.seed = 5;
	memset(&e, 0, sizeof e);
	assert_int_equal(cs_exec_setup(&e, &hc, P, 0), CS_OK);
	return e;
}

/* Two ranks' results that hold NaNs with other payloads and signs: the
 * same values; numbers stay as they are. */
static void test_nan_any_payload(void **state)
{
	cs_exec_t e = setup(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM, 3);
	uint32_t a[N], b[N];
	const void *va, *vb;
	void *ca, *cb;

	(void)state;
	for (int i = 0; i < N; i++) {
		a[i] = 0x7fc00000u | (uint32_t)i;          /* quiet, payload i */
		b[i] = 0xff800001u + (uint32_t)(i % 7);    /* negative, others */
	}
	a[5] = b[5] = 0x3f800000u;                         /* 1.0 */
	va = cs_identity_values(&e, 0, a, sizeof a, &ca);
	vb = cs_identity_values(&e, 0, b, sizeof b, &cb);
	assert_non_null(ca);
	assert_non_null(cb);
	assert_ptr_equal(va, ca);
	assert_memory_equal(va, vb, sizeof a);
	assert_int_equal(((const uint32_t *)va)[5], 0x3f800000u);
	assert_int_equal(a[7], 0x7fc00007u); /* the input is left alone */
	free(ca);
	free(cb);
	/* no NaN, no -0: the bytes themselves, no copy */
	for (int i = 0; i < N; i++)
		a[i] = 0x40000000u + (uint32_t)i;
	assert_ptr_equal(cs_identity_values(&e, 0, a, sizeof a, &ca), a);
	assert_null(ca);
	cs_exec_free(&e);
}

/* 1 when max over x[0..P) ignoring NaNs is a zero and both zeros are
 * among them: a tie that either zero answers (spec/numerics.md 3.3). */
static int zero_tie(const uint64_t *x, int P)
{
	int pos = 0, neg = 0, any = 0;
	float best = 0;

	for (int q = 0; q < P; q++) {
		uint32_t bits = (uint32_t)x[q];
		float v;

		memcpy(&v, &bits, sizeof v);
		if (isnan(v))
			continue;
		if (!any || v > best)
			best = v;
		any = 1;
		pos |= v == 0 && !signbit(v);
		neg |= v == 0 && signbit(v);
	}
	return any && best == 0 && pos && neg;
}

/* -0 becomes +0 at a max tie of +0 and -0 only, in call k's inputs;
 * elsewhere -0 stays, so a rank that writes -0 for +0 where no tie allows
 * it still differs. */
static void zero_ties(int k)
{
	cs_exec_t e = setup(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_MAX, 4);
	uint32_t got[N];
	uint64_t x[4];
	const uint32_t *v;
	void *copy;
	cs_case_t c;
	int ties = 0, others = 0;

	cs_exec_set_call(&e, k, 3);
	cs_exec_call_case(&e, k, &c);
	assert_int_equal(c.seed, e.c.seed);
	for (int i = 0; i < N; i++)
		got[i] = 0x80000000u; /* -0 everywhere */
	v = cs_identity_values(&e, k, got, sizeof got, &copy);
	assert_non_null(copy);
	for (int i = 0; i < N; i++) {
		cs_gen_column(&c, (size_t)i, x, NULL);
		if (zero_tie(x, 4)) {
			assert_int_equal(v[i], 0u);
			ties++;
		} else {
			assert_int_equal(v[i], 0x80000000u);
			others++;
		}
	}
	assert_true(ties > 0 && others > 0);
	free(copy);
	cs_exec_free(&e);
}

static void test_zero_only_at_ties(void **state)
{
	(void)state;
	zero_ties(0);
	zero_ties(1); /* fresh inputs: the call's own */
}

/* Integers and data movement: bits are values. */
static void test_raw_elsewhere(void **state)
{
	cs_exec_t ag = setup(CS_COLL_ALLGATHER, CS_DTYPE_FLOAT32, CS_OP_NONE, 2);
	cs_exec_t in = setup(CS_COLL_ALLREDUCE, CS_DTYPE_INT32, CS_OP_MAX, 2);
	uint32_t a[2 * N];
	void *copy;

	(void)state;
	for (int i = 0; i < 2 * N; i++)
		a[i] = i % 2 ? 0x7fc00001u : 0x80000000u;
	assert_ptr_equal(cs_identity_values(&ag, 0, a, sizeof a, &copy), a);
	assert_null(copy);
	assert_ptr_equal(cs_identity_values(&in, 0, a, N * 4, &copy), a);
	assert_null(copy);
	cs_exec_free(&ag);
	cs_exec_free(&in);
}

/* The verdict of comm rank `me` over three ranks' fingerprints. */
static cs_local_t verdict(const cs_khash_t *val, const cs_khash_t *raw,
			  int strict, int me)
{
	cs_local_t l;

	cs_local_init(&l, me, me);
	cs_identity_verdict(val, raw, 3, 0, 1, strict, &l);
	return l;
}

static void test_verdicts(void **state)
{
	cs_khash_t same[3] = {{{1, 2}}, {{1, 2}}, {{1, 2}}};
	cs_khash_t rank2[3] = {{{1, 2}}, {{1, 2}}, {{1, 3}}};
	cs_local_t l;

	(void)state;
	l = verdict(same, same, 1, 2);
	assert_int_equal(l.verdict, CS_V_PASS);
	/* same values, other bits: WARN, FAIL when promised; the rank
	 * that differs says so */
	l = verdict(same, rank2, 0, 2);
	assert_int_equal(l.verdict, CS_V_WARN);
	assert_string_equal(l.check, "bitidentity");
	l = verdict(same, rank2, 1, 2);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "bitidentity");
	assert_int_equal(verdict(same, rank2, 1, 1).verdict, CS_V_PASS);
	/* other values: FAIL identity, promised or not */
	l = verdict(rank2, rank2, 0, 2);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "identity");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nan_any_payload),
		cmocka_unit_test(test_zero_only_at_ties),
		cmocka_unit_test(test_raw_elsewhere),
		cmocka_unit_test(test_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
