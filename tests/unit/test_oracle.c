/*
 * test_oracle.c - the pure oracle against a serial simulation.
 *
 * The simulation builds every rank's whole send buffer, performs each
 * collective on buffers the way its formula in spec/collectives.md reads
 * (block copies, a left fold of prepared contributions with the reduction
 * arithmetic of ref/reduce.c), and the oracle must agree: every element
 * conforms (bit-exact in exact mode and for data movement), for every
 * collective, dtype, op, mode, P = 1..5 and counts around P.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/oracle.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/reduce.h"
#include "csref/arith.h"

#define CANARY 0x5a

static uint64_t canary_bits(size_t index)
{
	(void)index;
	return 0x5a5a5a5a5a5a5a5aull;
}

/* All ranks' send buffers of case c. */
static unsigned char **make_sends(const cs_case_t *c)
{
	unsigned char **s = calloc((size_t)c->nranks, sizeof *s);
	size_t es = cs_dtype_size(c->dtype);
	int q;

	for (q = 0; q < c->nranks; q++) {
		size_t n = cs_case_send_count(c, q);
		s[q] = malloc(n * es + 1);
		cs_gen_fill(c, q, s[q], 0, n);
	}
	return s;
}

/* Reduce block `off` (count elements) of every rank's send into out. */
static void sim_reduce(const cs_case_t *c, unsigned char **s, size_t off,
		       unsigned char *out)
{
	size_t es = cs_dtype_size(c->dtype), n = c->count;
	unsigned char *tmp = malloc(n * es + 1);
	int q;

	for (q = 0; q < c->nranks; q++) {
		cs_op_prepare(c->dtype, c->op, c->nranks, cs_gen_scalar(c, q),
			      q ? tmp : out, s[q] + off * es, n);
		if (q)
			cs_reduce_bufs(c->dtype, c->op, out, tmp, n);
	}
	cs_op_finish(c->dtype, c->op, c->nranks, out, n);
	free(tmp);
}

/* Rank r's receive buffer, by block operations. */
static void simulate(const cs_case_t *c, unsigned char **s, int r,
		     unsigned char *out)
{
	size_t es = cs_dtype_size(c->dtype), n = c->count, blk = n * es;
	int P = c->nranks, q;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		sim_reduce(c, s, 0, out);
		break;
	case CS_COLL_REDUCESCATTER:
		sim_reduce(c, s, (size_t)r * n, out);
		break;
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		for (q = 0; q < P; q++)
			memcpy(out + (size_t)q * blk, s[q], blk);
		break;
	case CS_COLL_ALLTOALL:
		for (q = 0; q < P; q++)
			memcpy(out + (size_t)q * blk, s[q] + (size_t)r * blk, blk);
		break;
	case CS_COLL_BROADCAST:
		memcpy(out, s[c->root], blk);
		break;
	case CS_COLL_SCATTER:
		memcpy(out, s[c->root] + (size_t)r * blk, blk);
		break;
	case CS_COLL_SENDRECV:
		memcpy(out, s[(r + P - 1) % P], blk);
		break;
	case CS_COLL_ALLTOALLV: {
		size_t sc[8], sd[8], rc[8], rd[8], qsc[8], qsd[8], x[8], y[8];
		cs_a2av_layout(c, r, sc, sd, rc, rd);
		memset(out, CANARY, cs_case_recv_count(c, r) * es);
		for (q = 0; q < P; q++) {
			cs_a2av_layout(c, q, qsc, qsd, x, y);
			memcpy(out + rd[q] * es, s[q] + qsd[r] * es, rc[q] * es);
		}
		break;
	}
	case CS_NUM_COLLS: /* not a collective */
	default:
		fail_msg("unknown collective");
	}
}

static void check_case(const cs_case_t *c)
{
	unsigned char **s = make_sends(c);
	size_t es = cs_dtype_size(c->dtype);
	char name[160];
	int r;

	cs_case_format(c, name, sizeof name);
	for (r = 0; r < c->nranks; r++) {
		size_t n = cs_case_recv_count(c, r);
		unsigned char *out = malloc(n * es + 1);
		cs_golden_t *g = malloc((n + 1) * sizeof *g);
		cs_cmp_summary_t sum;

		if (n) /* non-roots of reduce and gather receive nothing */
			simulate(c, s, r, out);
		assert_int_equal(cs_oracle_expect(c, r, 0, n, canary_bits, g), CS_OK);
		cs_cmp_summary_init(&sum);
		cs_compare_range(c->dtype, g, out, n, 0, &sum);
		if (sum.n_wrong)
			fail_msg("%s rank %d: %zu of %zu wrong, first at %zu: got %llx "
				 "expected %llx", name, r, sum.n_wrong, n,
				 sum.first[0].index,
				 (unsigned long long)sum.first[0].got,
				 (unsigned long long)sum.first[0].expected);
		/* exact mode and data movement: every element bit-exact */
		if (c->mode == CS_MODE_EXACT &&
		    !(c->op == CS_OP_AVG && cs_dtype_is_float(c->dtype) &&
		      (c->nranks & (c->nranks - 1))))
			assert_int_equal(sum.n_exact, n);
		if (!cs_coll_reduces(c->coll))
			assert_int_equal(sum.n_exact, n);
		free(out);
		free(g);
	}
	for (r = 0; r < c->nranks; r++)
		free(s[r]);
	free(s);
}

static void sweep(cs_coll_t coll, cs_mode_t mode)
{
	static const size_t extra[] = {0, 1, 7};
	size_t M[64];
	cs_case_t c;
	int P, d, o, k, i;

	for (P = 1; P <= 5; P++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (o = 0; o < CS_NUM_OPS; o++)
				for (k = 0; k < 3; k++) {
					if (!cs_coll_reduces(coll) && o > 0)
						break;
					memset(&c, 0, sizeof c);
					c.coll = coll;
					c.dtype = (cs_dtype_t)d;
					c.op = cs_coll_reduces(coll) ? (cs_op_t)o : CS_OP_NONE;
					c.mode = mode;
					c.nranks = P;
					c.root = cs_coll_rooted(coll) ? P - 1 : 0;
					c.count = (size_t)P + extra[k] - (k == 0 ? 1 : 0);
					c.seed = 7 + (uint64_t)k;
					for (i = 0; i < P * P; i++)
						M[i] = (size_t)((i * 7 + k) % 5);
					c.a2av_counts = M;
					c.a2av_gap = (size_t)k;
					assert_int_equal(cs_case_validate(&c), CS_OK);
					check_case(&c);
				}
}

static void test_reducing(void **state)
{
	int m;

	(void)state;
	for (m = 0; m < CS_NUM_MODES; m++) {
		sweep(CS_COLL_ALLREDUCE, (cs_mode_t)m);
		sweep(CS_COLL_REDUCESCATTER, (cs_mode_t)m);
		sweep(CS_COLL_REDUCE, (cs_mode_t)m);
	}
}

static void test_moving(void **state)
{
	static const cs_coll_t colls[] = {
		CS_COLL_ALLGATHER, CS_COLL_ALLTOALL, CS_COLL_ALLTOALLV,
		CS_COLL_BROADCAST, CS_COLL_GATHER, CS_COLL_SCATTER,
		CS_COLL_SENDRECV,
	};
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof colls / sizeof colls[0]; i++)
		for (m = 0; m < CS_NUM_MODES; m++)
			sweep(colls[i], (cs_mode_t)m);
}

/*
 * Exact-mode float avg at P = 2^k, up to 2^14 ranks: the reference's fold
 * (the left fold above, premultiplying by RN(1/P) as ref/reduce.c does)
 * conforms on rank 0, bit for bit while 1/P is a number of the dtype
 * (log2 P <= p - 1 - emin: float8_e4m3 to 512); beyond, RN(1/P) is 0 or
 * the least subnormal and the bound decides.
 */
static void test_avg_large_p(void **state)
{
	cs_case_t c;
	int d, k;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		if (!cs_dtype_is_float((cs_dtype_t)d))
			continue;
		for (k = 0; k <= 14; k++) {
			unsigned char **s, *out;
			cs_golden_t *g;
			cs_cmp_summary_t sum;
			int q;

			memset(&c, 0, sizeof c);
			c.coll = CS_COLL_ALLREDUCE;
			c.dtype = (cs_dtype_t)d;
			c.op = CS_OP_AVG;
			c.mode = CS_MODE_EXACT;
			c.nranks = 1 << k;
			c.count = 64;
			c.seed = 3;
			s = make_sends(&c);
			out = malloc(c.count * cs_dtype_size(c.dtype));
			g = malloc(c.count * sizeof *g);
			sim_reduce(&c, s, 0, out);
			assert_int_equal(cs_oracle_expect(&c, 0, 0, c.count, NULL, g),
					 CS_OK);
			cs_cmp_summary_init(&sum);
			cs_compare_range(c.dtype, g, out, c.count, 0, &sum);
			if (sum.n_wrong)
				fail_msg("%s avg exact P=%d: %zu wrong", cs_dtype_name(c.dtype),
					 c.nranks, sum.n_wrong);
			if (k <= cs_dtype_prec(c.dtype) - 1 - cs_dtype_emin(c.dtype))
				assert_int_equal(sum.n_exact, c.count);
			for (q = 0; q < c.nranks; q++)
				free(s[q]);
			free(s);
			free(out);
			free(g);
		}
	}
}

/* Bad input: a range beyond the receive buffer, a rank out of range. */
static void test_oracle_rejects(void **state)
{
	cs_case_t c = {CS_COLL_ALLGATHER, CS_DTYPE_INT32, CS_OP_NONE,
		       CS_MODE_EXACT, 4, 0, 10, 1, NULL, 0};
	cs_golden_t g[41];

	(void)state;
	assert_int_equal(cs_oracle_expect(&c, 0, 0, 40, NULL, g), CS_OK);
	assert_int_equal(cs_oracle_expect(&c, 0, 1, 40, NULL, g), CS_ERR_INVALID);
	assert_int_equal(cs_oracle_expect(&c, 4, 0, 1, NULL, g), CS_ERR_INVALID);
}

/* Undefined combinations and overflowing sizes are rejected with reasons. */
static void test_case_validate(void **state)
{
	cs_case_t c = {CS_COLL_ALLGATHER, CS_DTYPE_INT32, CS_OP_PROD,
		       CS_MODE_EXACT, 4, 0, 10, 1, NULL, 0};

	(void)state;
	assert_int_equal(cs_case_validate(&c), CS_ERR_UNDEFINED);
	assert_non_null(strstr(cs_last_error(), "does not reduce"));
	c.op = CS_OP_NONE;
	c.root = 2;
	assert_int_equal(cs_case_validate(&c), CS_ERR_UNDEFINED);
	assert_non_null(strstr(cs_last_error(), "no root"));
	c.coll = CS_COLL_REDUCE;
	c.root = 4;
	c.op = CS_OP_SUM;
	assert_int_equal(cs_case_validate(&c), CS_ERR_INVALID);
	c.root = 0;
	c.op = CS_OP_NONE;
	assert_int_equal(cs_case_validate(&c), CS_ERR_UNDEFINED);
	c.op = CS_OP_SUM;
	c.coll = CS_COLL_ALLTOALL;
	c.op = CS_OP_NONE;
	c.count = (size_t)-1 / 8;
	assert_int_equal(cs_case_validate(&c), CS_ERR_OVERFLOW);
	c.coll = CS_COLL_ALLTOALLV;
	c.count = 1;
	assert_int_equal(cs_case_validate(&c), CS_ERR_UNDEFINED);
	{
		/* a gap that wraps size_t is an overflow, not a small buffer */
		size_t M[4] = {1, 2, 3, 4};
		c.nranks = 2;
		c.a2av_counts = M;
		c.a2av_gap = (size_t)-1 - 2;
		assert_int_equal(cs_case_validate(&c), CS_ERR_OVERFLOW);
		c.a2av_gap = 5;
		assert_int_equal(cs_case_validate(&c), CS_OK);
		c.a2av_counts = NULL;
	}
	c.nranks = 0;
	assert_int_equal(cs_case_validate(&c), CS_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_validate),
		cmocka_unit_test(test_oracle_rejects),
		cmocka_unit_test(test_moving),
		cmocka_unit_test(test_reducing),
		cmocka_unit_test(test_avg_large_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
