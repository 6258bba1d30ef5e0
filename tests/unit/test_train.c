/*
 * test_train.c - the training communication calculator (csref/train.h):
 * docs/model.md's worked example (a small GPT, dp 4 tp 2 pp 2) and its
 * variants (sp, ZeRO 2 and 3, cp, MoE) against counts derived by hand in
 * the comments, the bucket overlap on a timeline worked by hand, the MoE
 * router's load at no skew and at a skew where the answer is known, and
 * the errors of a layout that does not divide the model.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csref/train.h"

/* alpha 1 us, 10 GB/s, reductions 100 GB/s: collspec model's defaults */
static const cs_cost_params_t mdef = {1e-6, 1e-10, 1e-11};

/* docs/model.md 4.6: 24 layers, hidden 2048, ffn 8192, heads 16, seq
 * 2048, micro-batch 1, vocab 50304, bfloat16, dp 4 tp 2 pp 2, ZeRO 0,
 * 25 MiB buckets, 8 micro-batches. */
static cs_train_cfg_t example(void)
{
	cs_train_cfg_t c;

	cs_train_defaults(&c);
	c.vocab = 50304;
	c.dp = 4;
	c.tp = 2;
	c.pp = 2;
	return c;
}

static const cs_train_item_t *find(const cs_train_item_t *it, size_t n,
				   const char *group, cs_coll_t coll,
				   const char *phase, int nth)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(it[i].group, group) && it[i].coll == coll &&
		    !strcmp(it[i].phase, phase) && nth-- == 0)
			return &it[i];
	fail_msg("no %s %s %s item", group, cs_coll_name(coll), phase);
	return NULL;
}

static size_t items(const cs_train_cfg_t *c, cs_train_item_t *it)
{
	size_t n = 0;

	if (cs_train_items(c, &mdef, it, &n) != CS_OK)
		fail_msg("%s", cs_last_error());
	return n;
}

static void test_example(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	const cs_train_item_t *x;
	double dense, expert;
	size_t n = items(&c, it);

	(void)state;
	/* per layer 4 * 2048^2 + 2 * 2048 * 8192 = 50331648, over tp 2 =
	 * 25165824, 12 layers a stage = 301989888; embedding 50304 * 2048 / 2
	 * = 51511296: 353501184 */
	cs_train_params(&c, &dense, &expert);
	assert_true(dense == 353501184.0 && expert == 0);
	/* dp: 25 MiB = 13107200 bf16 elements a bucket: 26 full buckets
	 * (340787200) and one of 12713984 elements = 25427968 B; a rank
	 * hands each allreduce its bucket twice (send, receive): 2 * 2 *
	 * 353501184 = 1414004736 B */
	assert_int_equal(n, 6);
	x = find(it, n, "dp", CS_COLL_ALLREDUCE, "bwd", 0);
	assert_true(x->P == 4 && x->calls == 26 && x->size == 26214400);
	x = find(it, n, "dp", CS_COLL_ALLREDUCE, "bwd", 1);
	assert_true(x->calls == 1 && x->size == 25427968);
	assert_true(it[0].bytes + it[1].bytes == 1414004736.0);
	/* tp: activation [1, 2048, 2048] bf16 = 8388608 B; 2 allreduce per
	 * layer, 12 layers, 8 micro-batches = 192 each way; 192 * 2 *
	 * 8388608 = 3221225472 B each way */
	x = find(it, n, "tp", CS_COLL_ALLREDUCE, "fwd", 0);
	assert_true(x->P == 2 && x->calls == 192 && x->size == 8388608);
	assert_true(x->bytes == 3221225472.0);
	/* one call: 2 alpha + 2 (1/2) n beta + (1/2) n gamma = 2 + 838.8608
	 * + 41.94304 us; 192 calls: 169.49833728 ms */
	assert_true(fabs(x->time_s - 0.16949833728) < 1e-12);
	x = find(it, n, "tp", CS_COLL_ALLREDUCE, "bwd", 0);
	assert_true(x->calls == 192 && x->bytes == 3221225472.0);
	/* pp 2: one activation a micro-batch each way, one way a stage:
	 * 8 * 8388608 = 67108864 B a phase */
	x = find(it, n, "pp", CS_COLL_SENDRECV, "fwd", 0);
	assert_true(x->calls == 8 && x->size == 8388608);
	assert_true(x->bytes == 67108864.0);
	/* one transfer: 1 + 838.8608 us, 8 of them */
	assert_true(fabs(x->time_s - 8 * 839.8608e-6) < 1e-12);
}

/* sp on tp: each allreduce becomes an allgather and a reducescatter of
 * the same 8388608 B; a rank hands each n + n/2 = 12582912 B; the stage
 * boundary carries the tp-sharded 4194304 B. */
static void test_example_sp(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	const cs_train_item_t *x;
	size_t n;

	(void)state;
	c.sp = 1;
	n = items(&c, it);
	x = find(it, n, "tp", CS_COLL_ALLGATHER, "fwd", 0);
	assert_true(x->calls == 192 && x->size == 8388608);
	assert_true(x->bytes == 192 * 12582912.0);
	x = find(it, n, "tp", CS_COLL_REDUCESCATTER, "bwd", 0);
	assert_true(x->calls == 192 && x->bytes == 192 * 12582912.0);
	x = find(it, n, "pp", CS_COLL_SENDRECV, "bwd", 0);
	assert_true(x->size == 4194304 && x->bytes == 8 * 4194304.0);
}

/* ZeRO 2: reducescatter in the same buckets, then one allgather of the
 * 353501184 parameters (divisible by 4: no padding), 707002368 B, a rank
 * handing 707002368 * 5/4 = 883752960 B. ZeRO 3: per micro-batch an
 * allgather forward, one backward and a reducescatter. */
static void test_example_zero(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	const cs_train_item_t *x;
	size_t n;

	(void)state;
	/* ZeRO 1: the allreduce buckets of ZeRO 0 and the allgather */
	c.zero = 1;
	n = items(&c, it);
	assert_int_equal(n, 7);
	x = find(it, n, "dp", CS_COLL_ALLREDUCE, "bwd", 0);
	assert_true(x->calls == 26 && x->size == 26214400);
	x = find(it, n, "dp", CS_COLL_ALLGATHER, "opt", 0);
	assert_true(x->calls == 1 && x->size == 707002368.0);
	/* ZeRO 1 by reducescatter (the ZeRO paper's): no allreduce; the 26
	 * full buckets reduce-scattered, a rank handing 26214400 * 5/4 =
	 * 32768000 B each, 851968000 B in all; the same allgather */
	c.zero1_rs = 1;
	n = items(&c, it);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++)
		assert_false(!strcmp(it[i].group, "dp") &&
			     it[i].coll == CS_COLL_ALLREDUCE);
	x = find(it, n, "dp", CS_COLL_REDUCESCATTER, "bwd", 0);
	assert_true(x->calls == 26 && x->size == 26214400);
	assert_true(x->bytes == 851968000.0);
	x = find(it, n, "dp", CS_COLL_ALLGATHER, "opt", 0);
	assert_true(x->calls == 1 && x->bytes == 883752960.0);
	/* its buckets overlap the backward as reducescatters: zero 2's
	 * timeline, not zero 1's allreduce one */
	{
		cs_train_overlap_t o1, o2, oar;
		cs_train_cfg_t c2 = c, car = c;

		c2.zero = 2;
		c2.zero1_rs = 0;
		car.zero1_rs = 0;
		assert_int_equal(cs_train_overlap(&c, 25, &mdef, &o1), CS_OK);
		assert_int_equal(cs_train_overlap(&c2, 25, &mdef, &o2), CS_OK);
		assert_int_equal(cs_train_overlap(&car, 25, &mdef, &oar), CS_OK);
		assert_true(o1.comm_s == o2.comm_s && o1.comm_s < oar.comm_s);
	}
	c.zero1_rs = 0;
	c.zero = 2;
	n = items(&c, it);
	x = find(it, n, "dp", CS_COLL_REDUCESCATTER, "bwd", 0);
	assert_true(x->calls == 26 && x->size == 26214400);
	x = find(it, n, "dp", CS_COLL_ALLGATHER, "opt", 0);
	assert_true(x->calls == 1 && x->size == 707002368.0);
	assert_true(x->bytes == 883752960.0);
	c.zero = 3;
	n = items(&c, it);
	x = find(it, n, "dp", CS_COLL_ALLGATHER, "fwd", 0);
	assert_true(x->calls == 8 && x->size == 707002368.0);
	x = find(it, n, "dp", CS_COLL_REDUCESCATTER, "bwd", 0);
	assert_true(x->calls == 8 && x->size == 707002368.0);
}

/* cp 2: sequence 1024 a rank; K and V blocks [1, 1024, 1024] x 2 bf16 =
 * 4194304 B; 1 step a layer forward (12 x 8 = 96), 2 backward (192);
 * the gradients reduce over dp x cp = 8. MoE: 8 experts over ep 4, top-2,
 * capacity 1.25, 2048 tokens: C = ceil(1.25 * 2 * 2048 / 8) = 640 rows
 * per expert, 8 * 640 * 2048 * 2 = 20971520 B per alltoall, 2 a layer
 * each way: 2 * 12 * 8 = 192. */
static void test_example_cp_moe(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	const cs_train_item_t *x;
	double dense, expert;
	size_t n;

	(void)state;
	c.cp = 2;
	n = items(&c, it);
	x = find(it, n, "cp", CS_COLL_SENDRECV, "fwd", 0);
	assert_true(x->calls == 96 && x->size == 4194304);
	x = find(it, n, "cp", CS_COLL_SENDRECV, "bwd", 0);
	assert_true(x->calls == 192);
	assert_int_equal(find(it, n, "dp", CS_COLL_ALLREDUCE, "bwd", 0)->P, 8);
	c = example();
	c.experts = 8;
	c.ep = 4;
	n = items(&c, it);
	x = find(it, n, "ep", CS_COLL_ALLTOALL, "fwd", 0);
	assert_true(x->P == 4 && x->calls == 192 && x->size == 20971520);
	/* experts: 12 layers x 2 local experts x 2 * 2048 * 8192 / tp 2 =
	 * 402653184, over edp = 4 / 4 = 1 rank: no reduction */
	cs_train_params(&c, &dense, &expert);
	assert_true(expert == 402653184.0);
	assert_true(dense == 12 * 4 * 2048.0 * 2048 / 2 + 51511296.0);
	for (size_t i = 0; i < n; i++)
		assert_true(strcmp(it[i].group, "edp"));
	/* dp 8: two ranks hold the same experts (edp 2); 402653184 bf16
	 * expert gradients = 805306368 B = 30 buckets of 25 MiB (786432000)
	 * and one of 18874368 B */
	c.dp = 8;
	n = items(&c, it);
	x = find(it, n, "edp", CS_COLL_ALLREDUCE, "bwd", 0);
	assert_true(x->P == 2 && x->calls == 30 && x->size == 26214400);
	x = find(it, n, "edp", CS_COLL_ALLREDUCE, "bwd", 1);
	assert_true(x->calls == 1 && x->size == 18874368);
}

/* A timeline worked by hand: 4 layers of 4 * 512^2 + 2 * 512 * 2048 =
 * 3145728 float32 parameters (12 MiB each, 48 MiB in all), dp 2, backward
 * 40 ms: layer k's gradients are ready at 10 (k+1) ms. At 1 GB/s, a ring
 * allreduce on 2 ranks of n bytes takes 2 alpha + n * 1e-9 s: a 12 MiB
 * bucket 12.582912 ms plus 2 alpha. */
static void test_overlap_by_hand(void **state)
{
	cs_train_cfg_t c;
	cs_cost_params_t m = {0, 1e-9, 0};
	cs_train_overlap_t o;

	(void)state;
	cs_train_defaults(&c);
	c.layers = 4;
	c.hidden = 512;
	c.ffn = 2048;
	c.heads = 8;
	c.dtype = CS_DTYPE_FLOAT32;
	c.dp = 2;
	c.bwd_ms = 40;
	/* alpha 0, 12 MiB: one bucket a layer, sent back to back from 10 ms:
	 * 10 + 4 * 12.582912 = 60.331648 ms, 20.331648 past the backward */
	assert_int_equal(cs_train_overlap(&c, 12, &m, &o), CS_OK);
	assert_true(o.buckets == 4 && fabs(o.first_s - 0.010) < 1e-12);
	assert_true(fabs(o.exposed_s - 0.020331648) < 1e-12);
	/* alpha 1 ms: 12 MiB buckets take 14.582912 ms: exposed 10 + 4 *
	 * 14.582912 - 40 = 28.331648; 6 MiB ones 8.291456 ms, 8 of them from
	 * 10 ms: 36.331648 (too small: alpha each time); one 48 MiB bucket
	 * at 40 ms: 2 + 50.331648 (too large: starts late) */
	m.alpha = 1e-3;
	assert_int_equal(cs_train_overlap(&c, 12, &m, &o), CS_OK);
	assert_true(fabs(o.exposed_s - 0.028331648) < 1e-12);
	assert_int_equal(cs_train_overlap(&c, 6, &m, &o), CS_OK);
	assert_true(o.buckets == 8 && fabs(o.exposed_s - 0.036331648) < 1e-12);
	assert_int_equal(cs_train_overlap(&c, 48, &m, &o), CS_OK);
	assert_true(o.buckets == 1 && fabs(o.first_s - 0.040) < 1e-12);
	assert_true(fabs(o.exposed_s - 0.052331648) < 1e-12);
	assert_true(fabs(o.comm_s - 0.052331648) < 1e-12);
	/* nothing to overlap on one dp rank, or under ZeRO 3 */
	c.dp = 1;
	assert_int_equal(cs_train_overlap(&c, 12, &m, &o), CS_ERR_UNDEFINED);
	c.dp = 2;
	c.zero = 3;
	assert_int_equal(cs_train_overlap(&c, 12, &m, &o), CS_ERR_UNDEFINED);
}

/* No skew: 8192 tokens x 2 slots over 8 experts, 2048 each on average,
 * a standard deviation of about sqrt(2048 * 7/8) = 42: the busiest within
 * 10%. Skew 4: logits fall by 4 per expert, so experts 0 and 1 take
 * almost every token (expert 2 beats expert 1 only when g2 - g1 > 4,
 * probability 0.2%): imbalance E/k = 4, dropped 1 - 0.3125 = 0.6875 of
 * their assignments at capacity 1.25 (C = 0.3125 T), and ep rank 0, which
 * holds both, 4 times the mean load; the busiest expert is 0. */
static void test_moe(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_moe_t r, r0;

	(void)state;
	c.experts = 8;
	c.ep = 4;
	assert_int_equal(cs_train_moe(&c, &r0), CS_OK);
	assert_int_equal(r0.tokens, 8192);
	assert_true(r0.imbalance >= 1 && r0.imbalance < 1.1);
	assert_true(r0.dropped == 0);
	c.skew = 4;
	assert_int_equal(cs_train_moe(&c, &r), CS_OK);
	assert_true(r.imbalance > 3.95 && r.imbalance <= 4);
	assert_int_equal(r.busiest, 0);
	assert_true(fabs(r.dropped - 0.6875) < 0.01);
	assert_true(r.rank_skew > 3.95 && r.rank_skew <= 4);
	c.experts = 0;
	c.ep = 1;
	assert_int_equal(cs_train_moe(&c, &r), CS_ERR_UNDEFINED);
}

/* A layout that does not divide the model names the two options. */
static void test_errors(void **state)
{
	cs_train_cfg_t c = example();
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	size_t n;

	(void)state;
	c.pp = 5;
	assert_int_equal(cs_train_items(&c, &mdef, it, &n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "--layers 24"));
	assert_non_null(strstr(cs_last_error(), "--pp 5"));
	c = example();
	c.ep = 3;
	c.experts = 6;
	assert_int_equal(cs_train_check(&c), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "--dp 4"));
	c = example();
	c.ep = 2;
	assert_int_equal(cs_train_check(&c), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "--experts"));
	c = example();
	c.zero = 4;
	assert_int_equal(cs_train_check(&c), CS_ERR_INVALID);
	c = example();
	c.zero = 2;
	c.zero1_rs = 1;
	assert_int_equal(cs_train_check(&c), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "--zero1 rs needs --zero 1"));
	c = example();
	c.capacity = 0;
	assert_int_equal(cs_train_check(&c), CS_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_example_sp),
		cmocka_unit_test(test_example_zero),
		cmocka_unit_test(test_example_cp_moe),
		cmocka_unit_test(test_overlap_by_hand),
		cmocka_unit_test(test_moe),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
