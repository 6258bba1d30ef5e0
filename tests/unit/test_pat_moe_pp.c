/*
 * test_pat_moe_pp.c - what test_patterns cannot see of the moe and pp
 * patterns (spec/patterns.md sections 5.9 and 5.10): the router's skew
 * shows in the reported imbalance; capacity dropping, top-k ties and the
 * combine on hand-made cases; pp's serial chain against an independent
 * double-precision chain, and the 1F1B run on P = 2 against that chain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "csref/grid.h"
#include "csref/pkern.h"
#include "csref/psim.h"
#include "moe.h"
#include "pp.h"

static const uint64_t seed = 0x5eed; /* test_patterns' seed */

/* ---- moe: imbalance grows with the skew ------------------------------ */

/* The imbalance rank 0 reports for variant v on ep4 (float32). */
static double imbalance(const cs_pattern_t *pat, int v)
{
	cs_grid_t g;
	cs_psim_out_t o;
	double imb = -1;
	assert_int_equal(cs_grid_parse("ep4", 4, &g), CS_OK);
	assert_int_equal(cs_psim_run(pat, v, CS_DTYPE_FLOAT32, seed, &g,
				     CS_PSIM_OK, &o), CS_OK);
	assert_int_equal(cs_psim_nfailed(&o), 0);
	const char *s = strstr(o.chk[0].info, "imb=");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "imb=%lf", &imb), 1);
	print_message("moe/%s on ep4: %s\n", pat->variants[v], o.chk[0].info);
	cs_psim_free(&o);
	return imb;
}

static void test_moe_imbalance_grows_with_skew(void **state)
{
	(void)state;
	const cs_pattern_t *pat = cs_pattern_find("moe");
	assert_non_null(pat);
	/* every (mode, drop, c_f): zeta 0, 1, 4 are variants v, v+1, v+2 */
	for (int v = 0; v < pat->nvariants; v += 3) {
		assert_non_null(strstr(pat->variants[v], "-z0"));
		assert_non_null(strstr(pat->variants[v + 2], "-z4"));
		double flat = imbalance(pat, v), skewed = imbalance(pat, v + 2);
		/* perfectly balanced routing is 1; no routing is below it */
		assert_true(flat >= 1.0);
		assert_true(skewed > flat);
	}
}

/* ---- moe: top-k, dropping, combine by hand --------------------------- */

static void test_moe_topk_ties_to_lower_index(void **state)
{
	(void)state;
	/* token 0: experts 1 and 2 tie for first; token 1: 0 and 3 tie for
	 * second behind 2 */
	const float prob[2 * 4] = {0.125f, 0.375f, 0.375f, 0.125f,
				   0.25f,  0.125f, 0.375f, 0.25f};
	int expert[4];
	float gate[4];
	cs_moe_topk(CS_DTYPE_FLOAT32, prob, 2, 4, 2, expert, gate);
	assert_int_equal(expert[0], 1);
	assert_int_equal(expert[1], 2);
	assert_int_equal(expert[2], 2);
	assert_int_equal(expert[3], 0);
	assert_true(gate[0] == 0.375f && gate[1] == 0.375f);
	assert_true(gate[2] == 0.375f && gate[3] == 0.25f);
}

/* 3 tokens, 2 experts, k = 2, C = 1:
 *   t0: slot 0 -> expert 0 (0.5),   slot 1 -> expert 1 (0.5)
 *   t1: slot 0 -> expert 1 (0.875), slot 1 -> expert 0 (0.125)
 *   t2: slot 0 -> expert 0 (0.75),  slot 1 -> expert 1 (0.25)
 * Expert 0 has (t0,j0) (t1,j1) (t2,j0): by position (j, t) the first is
 * (t0,j0); by probability (t2,j0), 0.75. Expert 1 has (t0,j1) (t1,j0)
 * (t2,j1): (t1,j0) is first by position and by probability (0.875). */
static void test_moe_drop_by_hand(void **state)
{
	(void)state;
	const int expert[6] = {0, 1, 1, 0, 0, 1};
	const float gate[6] = {0.5f, 0.5f, 0.875f, 0.125f, 0.75f, 0.25f};
	int pos[6];
	int64_t kept[2], routed[2];
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 3, 2, 2, 1,
		    CS_MOE_DROP_POSITION, pos, kept, routed);
	const int by_pos[6] = {0, -1, 0, -1, -1, -1};
	assert_memory_equal(pos, by_pos, sizeof pos);
	assert_true(kept[0] == 1 && kept[1] == 1);
	assert_true(routed[0] == 3 && routed[1] == 3);
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 3, 2, 2, 1,
		    CS_MOE_DROP_PROB, pos, kept, NULL);
	const int by_prob[6] = {-1, -1, 0, -1, 0, -1};
	assert_memory_equal(pos, by_prob, sizeof pos);
	assert_true(kept[0] == 1 && kept[1] == 1);
	/* C = 2: expert 0 keeps (t0,j0) then (t2,j0) by position, (t2,j0)
	 * then (t0,j0) by probability */
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 3, 2, 2, 2,
		    CS_MOE_DROP_POSITION, pos, kept, NULL);
	const int pos2[6] = {0, 1, 0, -1, 1, -1};
	assert_memory_equal(pos, pos2, sizeof pos);
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 3, 2, 2, 2,
		    CS_MOE_DROP_PROB, pos, kept, NULL);
	const int prob2[6] = {1, 1, 0, -1, 0, -1};
	assert_memory_equal(pos, prob2, sizeof pos);
}

/* Equal gates: probability falls back to (token, slot), position to
 * (slot, token). t0: expert 1 (0.75), expert 0 (0.25); t1: expert 0
 * (0.25), expert 1 (0.25). Expert 0 holds (t0,j1) and (t1,j0), C = 1. */
static void test_moe_drop_tie(void **state)
{
	(void)state;
	const int expert[4] = {1, 0, 0, 1};
	const float gate[4] = {0.75f, 0.25f, 0.25f, 0.25f};
	int pos[4];
	int64_t kept[2];
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 2, 2, 2, 1,
		    CS_MOE_DROP_POSITION, pos, kept, NULL);
	const int by_pos[4] = {0, -1, 0, -1};
	assert_memory_equal(pos, by_pos, sizeof pos);
	cs_moe_drop(CS_DTYPE_FLOAT32, expert, gate, 2, 2, 2, 1,
		    CS_MOE_DROP_PROB, pos, kept, NULL);
	const int by_prob[4] = {0, 0, -1, -1};
	assert_memory_equal(pos, by_prob, sizeof pos);
}

/* Token 0 keeps slot 1 only, token 1 keeps nothing: its output is +0,
 * and its rows (NaN here) are never read. */
static void test_moe_combine_dropped_token_is_zero(void **state)
{
	(void)state;
	const size_t H = 2;
	const float nan = __builtin_nanf("");
	const float y[4 * 2] = {nan, nan, 2.0f, -6.0f, nan, nan, nan, nan};
	const float gate[4] = {0.5f, 0.25f, 0.5f, 0.5f};
	const int pos[4] = {-1, 0, -1, -1};
	float out[2 * 2];
	cs_moe_combine(CS_DTYPE_FLOAT32, y, gate, pos, 2, 2, H, out);
	assert_true(out[0] == 0.5f && out[1] == -1.5f);
	const uint32_t zero = 0;
	assert_memory_equal(&out[2], &zero, 4);
	assert_memory_equal(&out[3], &zero, 4);
}

/* ---- pp: the chain against an independent one ------------------------ */

enum { PM = CS_PP_M, PB = CS_PP_B, PH = CS_PP_H, PROWS = PM * PB };

/* a [rows, PH] times w [PH, PH] (transposed when tw), then ReLU when
 * relu, in double. */
static void dmat(const double *a, const double *w, int tw, int relu,
		 double *out)
{
	for (int i = 0; i < PROWS; i++)
		for (int j = 0; j < PH; j++) {
			double s = 0;
			for (int l = 0; l < PH; l++)
				s += a[i * PH + l] *
				     (tw ? w[j * PH + l] : w[l * PH + j]);
			out[i * PH + j] = relu && s < 0 ? 0 : s;
		}
}

static void load(const cs_pctx_t *x, int tensor, int q, size_t n, double *v)
{
	int32_t buf[PROWS * PH];
	cs_pat_fill(x, 0, tensor, q, buf, n);
	for (size_t i = 0; i < n; i++)
		v[i] = buf[i];
}

/* At P = 2, M = 4, int32 (exact in double): the input gradient
 * dX = ((C . [a2 > 0]) W1^T . [a1 > 0]) W0^T and the weight gradients,
 * derived here from the inputs, equal cs_pp_chain's; and the 1F1B run,
 * which every stage checks bitwise against cs_pp_chain, passes. */
static void test_pp_input_gradient_p2(void **state)
{
	(void)state;
	const cs_pattern_t *pat = cs_pattern_find("pp");
	assert_non_null(pat);
	assert_int_equal(PM, 4);
	cs_pctx_t x = {.pat = pat, .dtype = CS_DTYPE_INT32, .seed = seed};
	double X[PROWS * PH], W0[PH * PH], W1[PH * PH], C[PROWS * PH];
	double a1[PROWS * PH], a2[PROWS * PH], d1[PROWS * PH],
	    d0[PROWS * PH], dx[PROWS * PH];
	load(&x, CS_PP_T_X, 0, PROWS * PH, X);
	load(&x, CS_PP_T_W, 0, PH * PH, W0);
	load(&x, CS_PP_T_W, 1, PH * PH, W1);
	load(&x, CS_PP_T_C, 0, PROWS * PH, C);
	dmat(X, W0, 0, 1, a1);
	dmat(a1, W1, 0, 1, a2);
	for (int i = 0; i < PROWS * PH; i++)
		d1[i] = a2[i] > 0 ? C[i] : 0;
	dmat(d1, W1, 1, 0, d0);
	for (int i = 0; i < PROWS * PH; i++)
		d0[i] = a1[i] > 0 ? d0[i] : 0;
	dmat(d0, W0, 1, 0, dx);

	int32_t act[3 * PROWS * PH], grad[3 * PROWS * PH], dw[2 * PH * PH];
	assert_int_equal(cs_pp_chain(&x, 0, 2, act, grad, dw), CS_OK);
	int nonzero = 0;
	for (int i = 0; i < PROWS * PH; i++) {
		assert_true((double)grad[i] == dx[i]);
		assert_true((double)act[2 * PROWS * PH + i] == a2[i]);
		nonzero += dx[i] != 0;
	}
	assert_true(nonzero > 0); /* not vacuous */
	for (int i = 0; i < PH; i++)
		for (int j = 0; j < PH; j++) {
			double g0 = 0, g1 = 0;
			for (int r = 0; r < PROWS; r++) {
				g0 += X[r * PH + i] * d0[r * PH + j];
				g1 += a1[r * PH + i] * d1[r * PH + j];
			}
			assert_true((double)dw[i * PH + j] == g0);
			assert_true((double)dw[PH * PH + i * PH + j] == g1);
		}

	cs_grid_t g;
	cs_psim_out_t o;
	assert_int_equal(cs_grid_parse("pp2", 2, &g), CS_OK);
	assert_int_equal(cs_psim_run(pat, 0, CS_DTYPE_INT32, seed, &g,
				     CS_PSIM_OK, &o), CS_OK);
	assert_int_equal(cs_psim_nfailed(&o), 0);
	/* one call per tick: 2 (M + P - 1) = 10 on each of the 2 stages */
	assert_int_equal(o.nlog, 2 * 10);
	for (int r = 0; r < 2; r++)
		assert_true(o.chk[r].elems >= 2 * PROWS * PH + PH * PH);
	cs_psim_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moe_imbalance_grows_with_skew),
	    cmocka_unit_test(test_moe_topk_ties_to_lower_index),
	    cmocka_unit_test(test_moe_drop_by_hand),
	    cmocka_unit_test(test_moe_drop_tie),
	    cmocka_unit_test(test_moe_combine_dropped_token_is_zero),
	    cmocka_unit_test(test_pp_input_gradient_p2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
