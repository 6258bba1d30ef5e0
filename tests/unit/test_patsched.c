/*
 * test_patsched.c - who holds what when in the parallelism patterns
 * (ref/patterns/schedule.c, csref/patterns.h): the ring's chunk layout and
 * step sources (spec/patterns.md 5.8) and the 1F1B order and timetable
 * (5.10). Hand-written small cases and properties by enumeration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csref/patterns.h"

#define FAILS(call, want)                                                      \
	do {                                                                   \
		assert_int_equal(call, want);                                  \
		assert_true(cs_last_error()[0] != '\0');                       \
	} while (0)

/* ---- ring ------------------------------------------------------------- */

/* P = 4: ranks hold chunks (0,7), (1,6), (2,5), (3,4); rank 1 sees the K, V
 * of ranks 1, 0, 3, 2 at steps 0..3. */
static void test_ring_hand(void **state)
{
	static const int want[4][2] = {{0, 7}, {1, 6}, {2, 5}, {3, 4}};
	static const int src1[4] = {1, 0, 3, 2};
	int c[2], src;
	(void)state;
	for (int r = 0; r < 4; r++) {
		assert_int_equal(cs_pat_ring_chunks(4, r, c), CS_OK);
		assert_int_equal(c[0], want[r][0]);
		assert_int_equal(c[1], want[r][1]);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(cs_pat_ring_source(4, 1, i, &src), CS_OK);
		assert_int_equal(src, src1[i]);
	}
}

/* cs_pat_ring_source, which must succeed. */
static int source(int P, int r, int i)
{
	int src = -1;
	assert_int_equal(cs_pat_ring_source(P, r, i, &src), CS_OK);
	return src;
}

/* P <= 16: the chunks of all ranks are each of 0..2P-1 once; over its P
 * steps a rank sees every rank's K, V once, and at step i + 1 the block
 * its left neighbour held at step i (the sendrecv moves it one to the
 * right); every rank has the same number of causal (query, key) chunk
 * pairs, 2P + 1, which is the layout's load balance. */
static void test_ring_properties(void **state)
{
	(void)state;
	for (int P = 1; P <= 16; P++) {
		int seen[32] = {0};
		for (int r = 0; r < P; r++) {
			int c[2], saw[16] = {0}, pairs = 0;
			assert_int_equal(cs_pat_ring_chunks(P, r, c), CS_OK);
			seen[c[0]]++, seen[c[1]]++;
			int left = (r + P - 1) % P;
			for (int i = 0; i < P; i++) {
				saw[source(P, r, i)]++;
				if (i == 0)
					continue;
				assert_int_equal(source(P, r, i),
						 source(P, left, i - 1));
			}
			for (int q = 0; q < P; q++)
				assert_int_equal(saw[q], 1);
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2 * P; b++)
					pairs += b <= c[a];
			assert_int_equal(pairs, 2 * P + 1);
		}
		for (int k = 0; k < 2 * P; k++)
			assert_int_equal(seen[k], 1);
	}
}

/* ---- the 1F1B timetable ----------------------------------------------- */

/* Worked by hand with the clock rule of spec 5.10. P = 2, M = 2: stage 0
 * runs F0 F1 B0 B1, stage 1 F0 B0 F1 B1; F0@0 on 0, F0@1 on 1, B0@2 on 1,
 * F1@1 on 0, B0@3 on 0 (after B0 on 1), F1@3 on 1 (after its B0), B1@4 on
 * 1, B1@5 on 0: 6 ticks. P = 1, M = 2: F0 B0 F1 B1 at 0..3. */
static void test_1f1b_hand(void **state)
{
	/* per stage: F0, F1, B0, B1 */
	static const int want2[8] = {0, 1, 3, 5, 1, 3, 2, 4};
	static const int want1[4] = {0, 2, 1, 3};
	int tick[8], n = -1;
	(void)state;
	assert_int_equal(cs_pat_1f1b_ticks(2, 2, tick, &n), CS_OK);
	assert_int_equal(n, 6);
	assert_memory_equal(tick, want2, sizeof(want2));
	assert_int_equal(cs_pat_1f1b_ticks(1, 2, tick, &n), CS_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(tick, want1, sizeof(want1));
	/* spec 5.10's example: P = 4, M = 4 takes 14 ticks (14 calls). */
	int big[4 * 8];
	assert_int_equal(cs_pat_1f1b_ticks(4, 4, big, &n), CS_OK);
	assert_int_equal(n, 14);
}

/* Stage s's order, written out for P = 4, M = 4 (w_s = 3, 2, 1, 0). */
static void test_1f1b_order(void **state)
{
	static const char *const want[4] = {
		"F0F1F2F3B0B1B2B3", "F0F1F2B0F3B1B2B3", "F0F1B0F2B1F3B2B3",
		"F0B0F1B1F2B2F3B3"};
	(void)state;
	for (int s = 0; s < 4; s++) {
		char got[17];
		for (int i = 0; i < 8; i++) {
			int bwd, mb;
			assert_int_equal(cs_pat_1f1b_op(4, 4, s, i, &bwd, &mb),
					 CS_OK);
			got[2 * i] = bwd ? 'B' : 'F';
			got[2 * i + 1] = (char)('0' + mb);
		}
		got[16] = '\0';
		assert_string_equal(got, want[s]);
	}
}

/* P, M <= 8: every op once, F and B each in ascending micro-batch order
 * and F_j before B_j on a stage; ticks rise along a stage's order; F_j
 * after F_j of the stage before, B_j after B_j of the stage after; the
 * table takes 2(M + P - 1) ticks, as spec 5.10 states. */
static void check_1f1b(int P, int M)
{
	int tick[8 * 16], n;
	assert_int_equal(cs_pat_1f1b_ticks(P, M, tick, &n), CS_OK);
	assert_int_equal(n, 2 * (M + P - 1));
	for (int s = 0; s < P; s++) {
		int nf = 0, nb = 0, prev = -1;
		for (int i = 0; i < 2 * M; i++) {
			int bwd, mb;
			assert_int_equal(cs_pat_1f1b_op(P, M, s, i, &bwd, &mb),
					 CS_OK);
			assert_int_equal(mb, bwd ? nb++ : nf++);
			assert_true(nb <= nf);
			int t = tick[s * 2 * M + bwd * M + mb];
			assert_true(t > prev && t < n);
			prev = t;
			if (!bwd && s > 0)
				assert_true(t > tick[(s - 1) * 2 * M + mb]);
			if (bwd && s < P - 1)
				assert_true(t > tick[(s + 1) * 2 * M + M + mb]);
		}
	}
}

static void test_1f1b_properties(void **state)
{
	(void)state;
	for (int P = 1; P <= 8; P++)
		for (int M = 1; M <= 8; M++)
			check_1f1b(P, M);
}

/* ---- argument errors -------------------------------------------------- */

static void test_sched_errors(void **state)
{
	int t[8], b = 9, m = 9, n = 9, c[2] = {9, 9};
	(void)state;
	FAILS(cs_pat_ring_chunks(4, 4, c), CS_ERR_INVALID);
	FAILS(cs_pat_ring_chunks(0, 0, c), CS_ERR_INVALID);
	FAILS(cs_pat_ring_source(4, 0, 4, &n), CS_ERR_INVALID);
	FAILS(cs_pat_ring_source(4, -1, 0, &n), CS_ERR_INVALID);
	FAILS(cs_pat_1f1b_op(2, 2, 2, 0, &b, &m), CS_ERR_INVALID);
	FAILS(cs_pat_1f1b_op(2, 2, 0, 4, &b, &m), CS_ERR_INVALID);
	FAILS(cs_pat_1f1b_op(2, 0, 0, 0, &b, &m), CS_ERR_INVALID);
	FAILS(cs_pat_1f1b_ticks(0, 2, t, &n), CS_ERR_INVALID);
	FAILS(cs_pat_1f1b_ticks(2, CS_PAT_PP_MAX + 1, t, &n), CS_ERR_INVALID);
	assert_int_equal(b + m + n + c[0] + c[1], 45);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_hand),
		cmocka_unit_test(test_ring_properties),
		cmocka_unit_test(test_1f1b_hand),
		cmocka_unit_test(test_1f1b_order),
		cmocka_unit_test(test_1f1b_properties),
		cmocka_unit_test(test_sched_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
