/*
 * test_pat_mlp.c - the MLP of spec/patterns.md section 5.1 and the data
 * parallel patterns on it (ref/patterns/mlp.c, p_dp.c, zero.c): the
 * gradient of a tiny case worked out by hand and of the default model
 * against central differences, SGD and Adam steps by hand, the buckets
 * of section 5.1's worked example read from the calls dp makes, the unit
 * order of fsdp's calls, and every ZeRO and FSDP case at P = 8, where two
 * ranks own empty shards (test_patterns' grids reach P = 7 only).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csref/grid.h"
#include "csref/pkern.h"
#include "csref/psim.h"
#include "mlp.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- the gradient ------------------------------------------------------ */

/*
 * B = 2, H = 1, F = 1: W1 = 1.5, b1 = -2.5, W2 = -2, b2 = 0.25, X = [2, 1],
 * C = [3, -1]. Row 0: pre = 2 * 1.5 - 2.5 = 0.5, a = 0.5, Y = -0.75;
 * row 1: pre = 1.5 - 2.5 = -1, a = 0, Y = 0.25. dW2 = 0.5 * 3 + 0 = 1.5,
 * db2 = 3 - 1 = 2, da = [3 * -2, masked] = [-6, 0], dW1 = 2 * -6 = -12,
 * db1 = -6. Every value is exact in float32 and bfloat16.
 */
static void test_grad_by_hand(void **state)
{
	static const cs_dtype_t dts[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
					 CS_DTYPE_FLOAT64};
	const cs_mlp_t m = {2, 1, 1};
	const double p[] = {1.5, -2.5, -2, 0.25}, X[] = {2, 1},
		     C[] = {3, -1};
	const double want_g[] = {-12, -6, 1.5, 2}, want_y[] = {-0.75, 0.25};
	(void)state;
	assert_int_equal(cs_mlp_numel(&m), 4);
	for (int t = 0; t < ARRAY_LEN(dts); t++) {
		cs_dtype_t d = dts[t];
		double pb[4], xb[2], cb[2], g[4], work[4], A[2], Y[2];
		for (int i = 0; i < 4; i++)
			cs_pk_set(d, pb, (size_t)i, p[i]);
		for (int i = 0; i < 2; i++) {
			cs_pk_set(d, xb, (size_t)i, X[i]);
			cs_pk_set(d, cb, (size_t)i, C[i]);
		}
		cs_mlp_grad(d, &m, pb, xb, cb, work, g);
		for (int i = 0; i < 4; i++)
			assert_true(cs_pk_get(d, g, (size_t)i) == want_g[i]);
		cs_mlp_forward(d, &m, pb, xb, A, Y);
		for (int i = 0; i < 2; i++)
			assert_true(cs_pk_get(d, Y, (size_t)i) == want_y[i]);
	}
}

/* A deterministic value in [-1, 1) away from 0 by at least 1/16. */
static double val(unsigned i)
{
	uint32_t h = (i + 1) * 2654435761u;
	h ^= h >> 13;
	double v = (double)(h % 1024) / 512.0 - 1;
	return v + (v < 0 ? -1.0 / 16 : 1.0 / 16);
}

/* The loss sum(C . Y) at p, in float64. */
static double loss(const cs_mlp_t *m, const double *p, const double *X,
		   const double *C)
{
	double A[64], Y[64], L = 0;
	cs_mlp_forward(CS_DTYPE_FLOAT64, m, p, X, A, Y);
	for (size_t i = 0; i < m->B * m->H; i++)
		L += C[i] * Y[i];
	return L;
}

/*
 * The default model (B = 4, H = 2, F = 3) in float64 against central
 * differences. The loss is linear in every single parameter away from the
 * ReLU's kinks, and no pre-activation is within 1e-3 of 0 (asserted), so
 * a step of 1e-6 crosses none: the differences are exact but for
 * rounding, about 1e-16 |L| / 1e-6 = 1e-10 for |L| < 100.
 */
static void test_grad_finite_differences(void **state)
{
	const cs_mlp_t m = {4, 2, 3};
	double p[17], X[8], C[8], g[17], work[24], A[12];
	(void)state;
	assert_int_equal(cs_mlp_numel(&m), 17);
	for (unsigned i = 0; i < 17; i++)
		p[i] = val(i);
	for (unsigned i = 0; i < 8; i++) {
		X[i] = val(100 + i);
		C[i] = val(200 + i);
	}
	/* no kink near: the pre-activations X W1 + b1 */
	for (size_t b = 0; b < 4; b++)
		for (size_t f = 0; f < 3; f++) {
			double pre = p[6 + f];
			for (size_t h = 0; h < 2; h++)
				pre += X[b * 2 + h] * p[h * 3 + f];
			assert_true(fabs(pre) > 1e-3);
		}
	cs_mlp_grad(CS_DTYPE_FLOAT64, &m, p, X, C, work, g);
	cs_mlp_forward(CS_DTYPE_FLOAT64, &m, p, X, A, NULL);
	for (int i = 0; i < 17; i++) {
		double e = 1e-6, keep = p[i];
		p[i] = keep + e;
		double up = loss(&m, p, X, C);
		p[i] = keep - e;
		double dn = loss(&m, p, X, C);
		p[i] = keep;
		double fd = (up - dn) / (2 * e);
		if (fabs(fd - g[i]) > 1e-8)
			print_error("parameter %d: gradient %.17g, central "
				    "difference %.17g\n", i, g[i], fd);
		assert_true(fabs(fd - g[i]) <= 1e-8);
	}
	/* and some gradient entries are nonzero on both layers */
	assert_true(g[0] != 0 && g[16] != 0);
}

/* Reverse tensor order at the defaults: W1 = 0..5, b1 = 6..8,
 * W2 = 9..14, b2 = 15, 16 become b2, W2, b1, W1. */
static void test_reverse_order(void **state)
{
	const cs_mlp_t m = {4, 2, 3};
	static const int32_t want[17] = {15, 16, 9, 10, 11, 12, 13, 14, 6, 7,
					 8, 0, 1, 2, 3, 4, 5};
	int32_t g[17], r[17];
	(void)state;
	for (int i = 0; i < 17; i++)
		g[i] = i;
	cs_mlp_reverse(CS_DTYPE_INT32, &m, g, r);
	assert_memory_equal(r, want, sizeof want);
}

/* ---- the optimizers ---------------------------------------------------- */

/* SGD with lr = 1/16 by hand; bfloat16 1 - 2^-9 is a tie between
 * 1 - 2^-8 (odd last bit) and 1 (even): it rounds to 1. int32: lr 1. */
static void test_sgd_by_hand(void **state)
{
	float w[] = {1, -2, 0.5f}, g[] = {0.5f, 3, -0.25f}, out[3];
	const float want[] = {0.96875f, -2.1875f, 0.515625f};
	int32_t wi[] = {5, -3}, gi[] = {2, -4}, oi[2];
	uint16_t wb[2], gb[2], ob[2];
	(void)state;
	cs_mlp_sgd(CS_DTYPE_FLOAT32, 3, w, g, out);
	for (int i = 0; i < 3; i++)
		assert_true(out[i] == want[i]);
	cs_mlp_sgd(CS_DTYPE_INT32, 2, wi, gi, oi);
	assert_int_equal(oi[0], 3);
	assert_int_equal(oi[1], 1);
	cs_pk_set(CS_DTYPE_BFLOAT16, wb, 0, 1.0);
	cs_pk_set(CS_DTYPE_BFLOAT16, gb, 0, 0x1p-5); /* lr g = 2^-9 */
	cs_pk_set(CS_DTYPE_BFLOAT16, wb, 1, 1.0);
	cs_pk_set(CS_DTYPE_BFLOAT16, gb, 1, 0x1p-4); /* lr g = 2^-8 */
	cs_mlp_sgd(CS_DTYPE_BFLOAT16, 2, wb, gb, ob);
	assert_true(cs_pk_get(CS_DTYPE_BFLOAT16, ob, 0) == 1.0);
	assert_true(cs_pk_get(CS_DTYPE_BFLOAT16, ob, 1) == 1 - 0x1p-8);
}

/*
 * Adam's first step by hand (float32): with c1 = 1 - 0.9f (exact,
 * Sterbenz), g = 2 gives m = 2 c1, mh = 2, v = 4 c2, vh = 4 (products by
 * powers of two and their divisions exact), sqrt 2, 2 + 1e-8 = 2: the step
 * is lr = 1/16 exactly. g = -0.5 likewise steps +1/16, g = 0 not at all.
 */
static void test_adam_by_hand(void **state)
{
	float w[] = {1, 1, 0.75f}, g[] = {2, -0.5f, 0}, out[3];
	(void)state;
	cs_mlp_adam(CS_DTYPE_FLOAT32, 3, w, g, out);
	assert_true(out[0] == 0.9375f);
	assert_true(out[1] == 1.0625f);
	assert_true(out[2] == 0.75f);
}

/* ---- the calls --------------------------------------------------------- */

/* Rank 0's call counts of pattern `name` variant v (float32) on grid. */
static int counts_of(const char *name, int v, const char *grid, int world,
		     size_t *count, cs_coll_t *coll, int max)
{
	const cs_pattern_t *pat = cs_pattern_find(name);
	cs_grid_t g;
	cs_psim_out_t o;
	int n = 0;
	assert_non_null(pat);
	assert_int_equal(cs_grid_parse(grid, world, &g), CS_OK);
	assert_int_equal(cs_psim_run(pat, v, CS_DTYPE_FLOAT32, 7, &g,
				     CS_PSIM_OK, &o), CS_OK);
	assert_int_equal(cs_psim_nfailed(&o), 0);
	for (size_t i = 0; i < o.nlog && n < max; i++)
		if (o.log[i].world_rank == 0) {
			count[n] = o.log[i].count;
			coll[n++] = o.log[i].coll;
		}
	cs_psim_free(&o);
	return n;
}

/* Section 5.1's example: P = 4, float32; beta = 0 gives the buckets b2,
 * W2, b1, W1 (2, 6, 3, 6 elements), beta = 8w gives (b2, W2), b1, W1
 * (8, 3, 6), beta = inf one bucket of 17; sum then divide the same. */
static void test_dp_buckets(void **state)
{
	static const struct {
		int v, n;
		size_t count[4];
	} cases[] = {
		{0, 4, {2, 6, 3, 6}}, {1, 3, {8, 3, 6}}, {2, 1, {17}},
		{3, 4, {2, 6, 3, 6}}, {4, 3, {8, 3, 6}}, {5, 1, {17}},
	};
	(void)state;
	for (int c = 0; c < ARRAY_LEN(cases); c++) {
		size_t count[8];
		cs_coll_t coll[8];
		int n = counts_of("dp", cases[c].v, "dp4", 4, count, coll, 8);
		assert_int_equal(n, cases[c].n);
		for (int i = 0; i < n; i++) {
			assert_int_equal(coll[i], CS_COLL_ALLREDUCE);
			assert_int_equal(count[i], cases[c].count[i]);
		}
	}
}

/*
 * The calls in order at P = 4 (section 5.2, 5.3): N = 17, s = 5; zero1's
 * variant 0 (ar-sgd) allreduces all N_pad = 20, its variant 2 (rs-sgd)
 * reduce-scatters shards of 5 as zero2 does; fsdp's units N0 = 9 (s0 = 3)
 * and N1 = 8 (s1 = 2), gathered 0, 1 forward and 1, 0 backward, each
 * unit's gather before its reducescatter.
 */
static void test_zero_call_order(void **state)
{
	static const struct {
		const char *name;
		int v, n;
		cs_coll_t coll[6];
		size_t count[6];
	} cases[] = {
		{"zero1", 0, 2, {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER}, {20, 5}},
		{"zero1", 2, 2, {CS_COLL_REDUCESCATTER, CS_COLL_ALLGATHER},
		 {5, 5}},
		{"zero1", 3, 2, {CS_COLL_REDUCESCATTER, CS_COLL_ALLGATHER},
		 {5, 5}},
		{"zero2", 0, 2, {CS_COLL_REDUCESCATTER, CS_COLL_ALLGATHER},
		 {5, 5}},
		{"zero3", 0, 3, {CS_COLL_ALLGATHER, CS_COLL_ALLGATHER,
			      CS_COLL_REDUCESCATTER}, {5, 5, 5}},
		{"fsdp", 0, 6, {CS_COLL_ALLGATHER, CS_COLL_ALLGATHER,
			     CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER,
			     CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER},
		 {3, 2, 2, 2, 3, 3}},
	};
	(void)state;
	for (int c = 0; c < ARRAY_LEN(cases); c++) {
		size_t count[8];
		cs_coll_t coll[8];
		int n = counts_of(cases[c].name, cases[c].v, "dp4", 4, count,
				  coll, 8);
		assert_int_equal(n, cases[c].n);
		for (int i = 0; i < n; i++) {
			assert_int_equal(coll[i], cases[c].coll[i]);
			assert_int_equal(count[i], cases[c].count[i]);
		}
	}
}

/* Every ZeRO and FSDP case on dp8 (ranks 6, 7 own empty shards; fsdp's
 * unit 0 has s0 = 2, so ranks 5, 6, 7): passes, and shards returned in
 * reverse order and a perturbed reduction are caught. */
static void test_empty_shards(void **state)
{
	static const char *const names[] = {"zero1", "zero2", "zero3",
					    "fsdp"};
	cs_grid_t g;
	(void)state;
	assert_int_equal(cs_grid_parse("dp8", 8, &g), CS_OK);
	for (int p = 0; p < ARRAY_LEN(names); p++) {
		const cs_pattern_t *pat = cs_pattern_find(names[p]);
		assert_non_null(pat);
		for (int v = 0; v < pat->nvariants; v++)
			for (int t = 0; t < pat->ndtypes; t++) {
				char why[128];
				cs_dtype_t d = pat->dtypes[t];
				cs_psim_out_t o;
				if (!pat->accepts(v, d, why, sizeof why))
					continue;
				assert_int_equal(cs_psim_run(pat, v, d, 3, &g,
							     CS_PSIM_OK, &o),
						 CS_OK);
				assert_int_equal(cs_psim_nfailed(&o), 0);
				cs_psim_free(&o);
				assert_int_equal(
				    cs_psim_run(pat, v, d, 3, &g,
						CS_PSIM_REVERSE, &o), CS_OK);
				assert_true(cs_psim_nfailed(&o) > 0);
				cs_psim_free(&o);
				assert_int_equal(
				    cs_psim_run(pat, v, d, 3, &g,
						CS_PSIM_PERTURB, &o), CS_OK);
				assert_true(cs_psim_nfailed(&o) > 0);
				cs_psim_free(&o);
			}
	}
}

/* Adam is float32 only. */
static void test_adam_accepts(void **state)
{
	const cs_pattern_t *pat = cs_pattern_find("zero2");
	char why[128];
	(void)state;
	assert_non_null(pat);
	assert_int_equal(pat->accepts(1, CS_DTYPE_FLOAT32, why, sizeof why),
			 1);
	assert_int_equal(pat->accepts(1, CS_DTYPE_BFLOAT16, why, sizeof why),
			 0);
	assert_int_equal(pat->accepts(1, CS_DTYPE_INT32, why, sizeof why), 0);
	assert_int_equal(pat->accepts(0, CS_DTYPE_INT32, why, sizeof why), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grad_by_hand),
	    cmocka_unit_test(test_grad_finite_differences),
	    cmocka_unit_test(test_reverse_order),
	    cmocka_unit_test(test_sgd_by_hand),
	    cmocka_unit_test(test_adam_by_hand),
	    cmocka_unit_test(test_dp_buckets),
	    cmocka_unit_test(test_zero_call_order),
	    cmocka_unit_test(test_empty_shards),
	    cmocka_unit_test(test_adam_accepts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
