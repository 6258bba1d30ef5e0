/*
 * test_golden_fast.c - the golden's fast path against the general one.
 *
 * cs_golden_sum_fast must either decline a column (0) or give exactly what
 * cs_golden_reduce gives for it: every field, bit for bit. The columns are
 * every float dtype x {SUM, AVG} x P = 2..64, drawn to reach every branch
 * the general path takes:
 *   - the generators' own random-mode columns (what the fast path is for;
 *     it must take most of them, or it is no fast path);
 *   - random encodings of the dtype (subnormals, infinities, NaNs, the
 *     largest values: overflow and non-finite columns it must decline);
 *   - columns that cancel to zero, of either sign (ANY_ZERO), columns of
 *     one sign (NONNEG, NONPOS), and columns of values near the overflow
 *     threshold (the saturating hull it must leave to the general path).
 * The expected values come from cs_golden_reduce, which the test does not
 * re-derive: this test holds two implementations to each other; the
 * general path's own correctness is test_golden's.
 *
 * Built a second time against golden.c compiled with
 * CS_GOLDEN_FAST_PLANT (the fast path forgets ANY_ZERO) as
 * test_golden_fast_plant, which must fail: the columns above reach it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/golden.h"

#include "test_rng.h"

static int same_golden(const cs_golden_t *a, const cs_golden_t *b)
{
	return a->bits == b->bits && a->bits_alt == b->bits_alt &&
	       a->flags == b->flags &&
	       !memcmp(&a->s_hi, &b->s_hi, sizeof a->s_hi) &&
	       !memcmp(&a->s_lo, &b->s_lo, sizeof a->s_lo) &&
	       !memcmp(&a->bound, &b->bound, sizeof a->bound) &&
	       !memcmp(&a->sat_lo, &b->sat_lo, sizeof a->sat_lo) &&
	       !memcmp(&a->sat_hi, &b->sat_hi, sizeof a->sat_hi);
}

struct tally {
	long taken, declined, zero_taken;
};

/* One column: the fast path declines it or agrees with the general one. */
static void one(const cs_gsum_t *k, const uint64_t *x, struct tally *t)
{
	cs_golden_t fast, gen;

	memset(&fast, 0xa5, sizeof fast);
	cs_golden_reduce(k->d, k->op, k->P, x, NULL, 0, &gen);
	if (!cs_golden_sum_fast(k, x, &fast)) {
		t->declined++;
		return;
	}
	t->taken++;
	t->zero_taken += (gen.flags & CS_G_ANY_ZERO) != 0;
	if (!same_golden(&fast, &gen)) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s %s P=%d: x0=%#llx bits %#llx/%#llx "
			 "flags %#x/%#x bound %a/%a", cs_dtype_name(k->d),
			 cs_op_name(k->op), k->P, (unsigned long long)x[0],
			 (unsigned long long)fast.bits,
			 (unsigned long long)gen.bits, fast.flags, gen.flags,
			 fast.bound, gen.bound);
		fail_msg("fast and general goldens differ: %s", msg);
	}
}

/* A value of d near v (v itself rounded, then a step or two away). */
static uint64_t near(cs_dtype_t d, double v)
{
	uint64_t b = cs_from_f64(d, v, 1);

	return b + (rnd() % 3) - ((b & cs_fmt_mmask(cs_fmt_of(d))) ? 1 : 0);
}

static void columns_of(cs_dtype_t d, cs_op_t op, int P, struct tally *gen_t,
		       struct tally *all)
{
	cs_gsum_t k;
	cs_case_t c;
	uint64_t x[64 * 16];
	double top = cs_max_finite(d);
	int i, q, rep;

	assert_int_equal(cs_gsum_init(&k, d, op, P, 0), 1);
	/* the generators' random columns, 16 at a time */
	memset(&c, 0, sizeof c);
	c.coll = CS_COLL_ALLREDUCE;
	c.dtype = d;
	c.op = op;
	c.mode = CS_MODE_RANDOM;
	c.nranks = P;
	c.count = 1 << 20;
	c.seed = rnd();
	for (rep = 0; rep < 8; rep++) {
		cs_gen_columns(&c, (size_t)(rnd() % (1 << 20)), 16, x, NULL);
		for (i = 0; i < 16; i++)
			one(&k, x + i * P, gen_t);
	}
	for (rep = 0; rep < 24; rep++) {
		for (q = 0; q < P; q++) {
			uint64_t r = rnd();
			switch (rep % 6) {
			case 0: /* any encoding */
				x[q] = r & cs_bits_mask(d);
				break;
			case 1: /* cancels: pairs x, -x, an odd one zero */
				x[q] = q % 2 ? x[q - 1] ^ cs_fmt_sign(cs_fmt_of(d))
					     : (q + 1 == P ? (r & 1) * cs_fmt_sign(cs_fmt_of(d))
							   : near(d, (double)(r % 1000) - 500));
				break;
			case 2: /* one sign */
				x[q] = near(d, (double)(r % 1000 + 1) * (rep % 12 < 6 ? 1 : -1));
				break;
			case 3: /* near the overflow threshold */
				x[q] = near(d, top / (double)(1 + r % (unsigned)P));
				break;
			case 4: /* tiny: subnormal and least normal */
				x[q] = r & (cs_fmt_mmask(cs_fmt_of(d)) |
					    cs_fmt_sign(cs_fmt_of(d)));
				break;
			default: /* zeros of both signs */
				x[q] = (r & 1) * cs_fmt_sign(cs_fmt_of(d));
				break;
			}
		}
		one(&k, x, all);
	}
}

static void test_every_dtype_op_p(void **state)
{
	static const cs_op_t ops[] = {CS_OP_SUM, CS_OP_AVG};
	struct tally gen_t = {0, 0, 0}, all = {0, 0, 0};
	int d, o, P;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (o = 0; o < 2; o++)
			for (P = 2; P <= 64; P++)
				if (cs_is_float((cs_dtype_t)d))
					columns_of((cs_dtype_t)d, ops[o], P, &gen_t,
						   &all);
	printf("generator columns: %ld taken, %ld declined; drawn columns: "
	       "%ld taken (%ld zero), %ld declined\n", gen_t.taken,
	       gen_t.declined, all.taken, all.zero_taken, all.declined);
	/* a fast path that declines what it is for is no fast path: 13 of
	 * the generator's 16 random-sum patterns stay far from overflow
	 * (pattern (d) sits near it by design); the drawn columns must reach
	 * both sides and the zero flag */
	assert_true(gen_t.taken > 3 * (gen_t.taken + gen_t.declined) / 4);
	assert_true(all.taken > 0 && all.declined > 0 && all.zero_taken > 0);
}

/* Where the fast path does not apply, cs_gsum_init says so. */
static void test_init_declines(void **state)
{
	cs_gsum_t k;

	(void)state;
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_FLOAT32, CS_OP_SUM, 8, 1), 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_FLOAT32, CS_OP_SUM, 1, 0), 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_FLOAT32, CS_OP_SUM, 65, 0), 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_INT32, CS_OP_SUM, 8, 0), 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_FLOAT32, CS_OP_PROD, 8, 0), 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_FLOAT32, CS_OP_PREMULSUM, 8, 0),
			 0);
	assert_int_equal(cs_gsum_init(&k, CS_DTYPE_BFLOAT16, CS_OP_AVG, 3, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dtype_op_p),
		cmocka_unit_test(test_init_declines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
