/*
 * test_train_mem.c - memory per rank (csref/train_mem.h) against figures
 * derived outside the code: the ZeRO paper's worked example (Rajbhandari
 * et al. 2020, figure 1: a 7.5B-parameter model on 64 data-parallel
 * ranks, K = 12, takes 120 GB per rank without ZeRO and 31.4, 16.6 and
 * 1.9 GB with ZeRO 1, 2 and 3), and the activation formula of Korthikanti
 * et al. 2022 (s b h (34 + 5 a s / h) per layer, tensor parallel
 * s b h (10 + 24/t + 5 a s / (h t)), with sequence parallelism
 * s b h / t (34 + 5 a s / h)), written here in the paper's form for an
 * FFN of 4h, where the code uses a general FFN width.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "csref/train_mem.h"

#define GB 1e9

static cs_train_mem_t states(double psi, int nd, int scheme)
{
	cs_train_mem_t m = {0};

	assert_int_equal(cs_train_mem_states(psi, nd, 2, scheme, &m), CS_OK);
	return m;
}

/* The paper prints one decimal: each figure within 0.05 GB. */
static void test_zero_paper(void **state)
{
	static const double paper_GB[] = {120, 31.4, 16.6, 1.9, 1.9};
	int s;

	(void)state;
	for (s = 0; s < CS_TRAIN_MEM_NSCHEMES; s++) {
		cs_train_mem_t m = states(7.5e9, 64, s);
		double got = (m.params + m.grads + m.optim) / GB;
		if (fabs(got - paper_GB[s]) > 0.05)
			fail_msg("%s: %.3f GB, the paper has %.1f",
				 cs_train_mem_scheme_name(s), got, paper_GB[s]);
	}
}

/* Which state each stage shards, one at a time: ZeRO-1 only the
 * optimizer's 12 bytes, ZeRO-2 also the gradients' 2, ZeRO-3 all. */
static void test_zero_parts(void **state)
{
	cs_train_mem_t z1 = states(1e9, 4, 1), z2 = states(1e9, 4, 2);
	cs_train_mem_t z3 = states(1e9, 4, 3);

	(void)state;
	assert_true(z1.params == 2e9 && z1.grads == 2e9 && z1.optim == 3e9);
	assert_true(z2.params == 2e9 && z2.grads == 0.5e9 && z2.optim == 3e9);
	assert_true(z3.params == 0.5e9 && z3.grads == 0.5e9 &&
		    z3.optim == 3e9);
}

/* 24 layers, h 2048, F 4h, 16 heads, s 2048, b 1. */
static cs_train_cfg_t gpt(void)
{
	cs_train_cfg_t c;

	cs_train_defaults(&c);
	return c;
}

static double korthikanti(double t, int sp)
{
	double s = 2048, b = 1, h = 2048, a = 16;

	if (sp)
		return s * b * h / t * (34 + 5 * a * s / h);
	return s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
}

static void test_activations(void **state)
{
	cs_train_cfg_t c = gpt();

	(void)state;
	assert_true(fabs(cs_train_mem_acts(&c) - 24 * korthikanti(1, 0)) < 1);
	c.tp = 2;
	assert_true(fabs(cs_train_mem_acts(&c) - 24 * korthikanti(2, 0)) < 1);
	c.sp = 1;
	assert_true(fabs(cs_train_mem_acts(&c) - 24 * korthikanti(2, 1)) < 1);
	/* pp 4 with 2 micro-batches: stage 0 keeps both micro-batches of
	 * its 6 layers */
	c = gpt();
	c.pp = 4;
	c.micro_batches = 2;
	assert_true(fabs(cs_train_mem_acts(&c) - 12 * korthikanti(1, 0)) < 1);
	/* with 8 micro-batches, 1F1B keeps pp = 4 in flight on stage 0 */
	c.micro_batches = 8;
	assert_true(fabs(cs_train_mem_acts(&c) - 24 * korthikanti(1, 0)) < 1);
}

/* The whole table of a dense GPT at dp 8: 12 L h^2 parameters (the
 * usual count of a transformer without embeddings). */
static void test_table(void **state)
{
	cs_train_cfg_t c = gpt();
	cs_train_mem_t m;
	double psi = 12.0 * 24 * 2048 * 2048;

	(void)state;
	c.dp = 8;
	assert_int_equal(cs_train_mem(&c, 0, &m), CS_OK);
	assert_true(fabs(m.params + m.grads + m.optim - 16 * psi) < 1);
	assert_true(m.gathered == 0);
	assert_true(fabs(m.total - 16 * psi - 24 * korthikanti(1, 0)) < 1);
	assert_int_equal(cs_train_mem(&c, CS_TRAIN_MEM_FSDP, &m), CS_OK);
	assert_true(fabs(m.params + m.grads + m.optim - 16 * psi / 8) < 1);
	assert_true(fabs(m.gathered - 2 * psi / 24) < 1);
	/* tp 2 halves every state */
	c.tp = 2;
	assert_int_equal(cs_train_mem(&c, 1, &m), CS_OK);
	assert_true(fabs(m.params + m.grads + m.optim -
			 (4 + 12.0 / 8) * psi / 2) < 1);
}

static void test_errors(void **state)
{
	cs_train_mem_t m = {0};
	cs_train_cfg_t c = gpt();

	(void)state;
	assert_int_equal(cs_train_mem_states(1, 0, 2, 0, &m), CS_ERR_INVALID);
	assert_int_equal(cs_train_mem_states(1, 1, 2, 5, &m), CS_ERR_INVALID);
	assert_null(cs_train_mem_scheme_name(5));
	c.tp = 3; /* hidden 2048 is not divisible by 3 */
	assert_int_equal(cs_train_mem(&c, 0, &m), CS_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_paper),
		cmocka_unit_test(test_zero_parts),
		cmocka_unit_test(test_activations),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
