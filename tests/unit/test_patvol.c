/*
 * test_patvol.c - the index arithmetic and closed-form volumes of the
 * parallelism patterns (ref/patterns/, csref/patterns.h). Expected values
 * are spec/patterns.md's worked examples and small cases worked out by
 * hand in the comments (call by call, with section 3.1's table), never the
 * formula under test; plus properties checked by enumeration: balanced
 * and padded shards partition their range, buckets sum to N and respect
 * beta, Ulysses' counts agree with its bytes, and the argument errors.
 * The schedules (ring, 1F1B) are test_patsched.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "csref/patterns.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- balanced split --------------------------------------------------- */

/* Written out: 5 heads over 4 ranks (spec 5.7's example) and 2 over 4. */
static void test_balanced_hand(void **state)
{
	static const struct {
		int64_t n;
		int P;
		int64_t count[4], offset[4];
	} cases[] = {
		{5, 4, {2, 1, 1, 1}, {0, 2, 3, 4}},
		{2, 4, {1, 1, 0, 0}, {0, 1, 2, 2}},
		{0, 4, {0, 0, 0, 0}, {0, 0, 0, 0}},
		{8, 4, {2, 2, 2, 2}, {0, 2, 4, 6}},
		{7, 3, {3, 2, 2, 0}, {0, 3, 5, 0}},
	};
	(void)state;
	for (int c = 0; c < ARRAY_LEN(cases); c++)
		for (int r = 0; r < cases[c].P; r++) {
			int64_t n_r = -1, o_r = -1;
			assert_int_equal(cs_pat_balanced(cases[c].n, cases[c].P,
							 r, &n_r, &o_r),
					 CS_OK);
			assert_int_equal(n_r, cases[c].count[r]);
			assert_int_equal(o_r, cases[c].offset[r]);
		}
}

/* Ranks in order tile [0, n); counts differ by at most one and do not
 * grow with r. */
static void test_balanced_partition(void **state)
{
	(void)state;
	for (int64_t n = 0; n <= 40; n++)
		for (int P = 1; P <= 9; P++) {
			int64_t next = 0, first = -1;
			for (int r = 0; r < P; r++) {
				int64_t n_r, o_r;
				assert_int_equal(cs_pat_balanced(n, P, r, &n_r,
								 &o_r),
						 CS_OK);
				assert_int_equal(o_r, next);
				if (first < 0)
					first = n_r;
				assert_true(n_r == first || n_r == first - 1);
				next = o_r + n_r;
			}
			assert_int_equal(next, n);
		}
}

/* ---- padded split ----------------------------------------------------- */

/* N = 17 (spec 5.2) at P = 4, 7, 8 and FSDP's unit 0, N_0 = 9, at P = 8
 * (spec 5.3): shard sizes and the ranks whose shard is empty. */
static void test_padded_hand(void **state)
{
	static const struct {
		int64_t n;
		int P;
		int64_t s, n_pad, real[8];
	} cases[] = {
		{17, 4, 5, 20, {5, 5, 5, 2}},
		{17, 7, 3, 21, {3, 3, 3, 3, 3, 2, 0}},
		{17, 8, 3, 24, {3, 3, 3, 3, 3, 2, 0, 0}},
		{9, 8, 2, 16, {2, 2, 2, 2, 1, 0, 0, 0}},
		{8, 4, 2, 8, {2, 2, 2, 2}},
		{1, 3, 1, 3, {1, 0, 0}},
	};
	(void)state;
	for (int c = 0; c < ARRAY_LEN(cases); c++)
		for (int r = 0; r < cases[c].P; r++) {
			cs_pat_shard_t sh;
			assert_int_equal(cs_pat_padded(cases[c].n, cases[c].P,
						       r, &sh),
					 CS_OK);
			assert_int_equal(sh.s, cases[c].s);
			assert_int_equal(sh.n_pad, cases[c].n_pad);
			assert_int_equal(sh.lo, r * cases[c].s);
			assert_int_equal(sh.real, cases[c].real[r]);
		}
}

/* The shards tile [0, n_pad) in rank order, all of one size; their real
 * parts tile [0, n); n_pad is the least multiple of P >= n; the empty
 * shards are the last ranks. */
static void test_padded_partition(void **state)
{
	(void)state;
	for (int64_t n = 1; n <= 40; n++)
		for (int P = 1; P <= 9; P++) {
			int64_t next = 0, reals = 0, s0 = 0;
			int empty_seen = 0;
			for (int r = 0; r < P; r++) {
				cs_pat_shard_t sh;
				assert_int_equal(cs_pat_padded(n, P, r, &sh),
						 CS_OK);
				if (r == 0)
					s0 = sh.s;
				assert_int_equal(sh.s, s0);
				assert_int_equal(sh.lo, next);
				assert_true(sh.real >= 0 && sh.real <= sh.s);
				if (sh.real > 0) {
					assert_false(empty_seen);
					assert_int_equal(sh.lo, reals);
				} else {
					empty_seen = 1;
				}
				reals += sh.real;
				next += sh.s;
				assert_int_equal(sh.n_pad, P * s0);
			}
			assert_int_equal(next, P * s0);
			assert_int_equal(reals, n);
			assert_true(P * s0 >= n && P * s0 - n < P);
		}
}

/* ---- DP buckets ------------------------------------------------------- */

/* The MLP at H = 2, F = 3 in parameter order W1, b1, W2, b2. */
static const int64_t mlp[4] = {6, 3, 6, 2};

static void expect_buckets(int64_t beta, int nwant, const int64_t *want,
			   const int *want_t)
{
	int64_t got[4] = {-1, -1, -1, -1};
	int got_t[4], nb = -1;
	assert_int_equal(cs_pat_buckets(mlp, 4, 4, beta, got, got_t, &nb),
			 CS_OK);
	assert_int_equal(nb, nwant);
	for (int b = 0; b < nb; b++) {
		assert_int_equal(got[b], want[b]);
		assert_int_equal(got_t[b], want_t[b]);
	}
}

/* float32, walked b2 (2), W2 (6), b1 (3), W1 (6). */
static void test_buckets_hand(void **state)
{
	(void)state;
	/* spec 5.1: beta = 0, one tensor per bucket: 2, 6, 3, 6. */
	expect_buckets(0, 4, (const int64_t[]){2, 6, 3, 6},
		       (const int[]){1, 1, 1, 1});
	/* 32 B: b2+W2 = 8 elements = 32 B joins (<= beta); +b1 = 44 B no;
	 * b1+W1 = 36 B no. */
	expect_buckets(32, 3, (const int64_t[]){8, 3, 6},
		       (const int[]){2, 1, 1});
	/* 36 B: as above, but b1+W1 = 36 B now fits. */
	expect_buckets(36, 2, (const int64_t[]){8, 9},
		       (const int[]){2, 2});
	/* 20 B: W2 (24 B) alone is larger than beta: a bucket on its own. */
	expect_buckets(20, 4, (const int64_t[]){2, 6, 3, 6},
		       (const int[]){1, 1, 1, 1});
	/* spec 5.1's 40 w = 160 B and infinity: all 17 in one bucket. */
	expect_buckets(160, 1, (const int64_t[]){17}, (const int[]){4});
	expect_buckets(CS_PAT_BETA_INF, 1, (const int64_t[]){17},
		       (const int[]){4});
	/* 67 B: 16 elements = 64 B fit, all 17 = 68 B do not. */
	expect_buckets(67, 2, (const int64_t[]){11, 6},
		       (const int[]){3, 1});
}

/* Buckets of tensors 1..7 elements long (every list of up to 4 such
 * tensors), w in {1, 2, 8}, beta 0..70: the buckets take the reversed
 * tensors in order, sum to N, each is one tensor or fits in beta, and no
 * bucket could have taken the next bucket's first tensor. */
static void check_buckets(const int64_t *t, int nt, int w, int64_t beta)
{
	int64_t bn[4];
	int bt[4], nb = 0, i = nt - 1;
	assert_int_equal(cs_pat_buckets(t, nt, w, beta, bn, bt, &nb), CS_OK);
	assert_true(nb >= 1 && nb <= nt);
	for (int b = 0; b < nb; b++) {
		int64_t sum = 0;
		assert_true(bt[b] >= 1);
		for (int j = 0; j < bt[b]; j++)
			sum += t[i--];
		assert_int_equal(bn[b], sum);
		assert_true(bt[b] == 1 || bn[b] * w <= beta);
		if (b + 1 < nb)
			assert_true((bn[b] + t[i]) * w > beta);
	}
	assert_int_equal(i, -1);
}

static void test_buckets_properties(void **state)
{
	static const int ws[] = {1, 2, 8};
	(void)state;
	for (int nt = 1; nt <= 4; nt++) {
		int combos = 1;
		for (int j = 0; j < nt; j++)
			combos *= 7;
		for (int c = 0; c < combos; c++) {
			int64_t t[4];
			for (int j = 0, x = c; j < nt; j++, x /= 7)
				t[j] = 1 + x % 7;
			for (int k = 0; k < ARRAY_LEN(ws); k++)
				for (int64_t beta = 0; beta <= 70; beta += 3)
					check_buckets(t, nt, ws[k], beta);
		}
	}
}

/* ---- MoE capacity ----------------------------------------------------- */

static void test_moe_capacity(void **state)
{
	int64_t C = -1;
	(void)state;
	/* spec 5.9: c_f = 1, k = 2, tau = 8, E = 8: ceil(16/8) = 2. */
	assert_int_equal(cs_pat_moe_capacity(1, 1, 2, 8, 8, &C), CS_OK);
	assert_int_equal(C, 2);
	/* c_f = 1.25: 1.25 * 16 / 8 = 2.5, rounded up to 3. */
	assert_int_equal(cs_pat_moe_capacity(5, 4, 2, 8, 8, &C), CS_OK);
	assert_int_equal(C, 3);
	/* 1.25 * 2 * 8 / 5 = 4 exactly: no rounding up. */
	assert_int_equal(cs_pat_moe_capacity(5, 4, 2, 8, 5, &C), CS_OK);
	assert_int_equal(C, 4);
	/* 1 * 1 * 1 / 3 rounds up to 1; no tokens, or c_f = 0: 0. */
	assert_int_equal(cs_pat_moe_capacity(1, 1, 1, 1, 3, &C), CS_OK);
	assert_int_equal(C, 1);
	assert_int_equal(cs_pat_moe_capacity(1, 1, 2, 0, 8, &C), CS_OK);
	assert_int_equal(C, 0);
	assert_int_equal(cs_pat_moe_capacity(0, 1, 2, 8, 8, &C), CS_OK);
	assert_int_equal(C, 0);
}

/* ---- bytes per rank per step ------------------------------------------ */

#define BYTES_OK(call, want)                                                   \
	do {                                                                   \
		int64_t bytes_ = -1;                                           \
		assert_int_equal(call, CS_OK);                                 \
		assert_int_equal(bytes_, (want));                              \
	} while (0)

static void test_bytes_dp(void **state)
{
	(void)state;
	/* spec 5.1: float32, N = 17: 16 + 48 + 24 + 48 = 136 B. */
	BYTES_OK(cs_pat_bytes_dp(2, 3, 4, &bytes_), 136);
	/* H = 1, F = 1: W1, b1, W2, b2 one element each, 4 allreduces of
	 * count 1 in bfloat16: 4 * 2 * 2 = 16 B. */
	BYTES_OK(cs_pat_bytes_dp(1, 1, 2, &bytes_), 16);
}

static void test_bytes_zero(void **state)
{
	(void)state;
	/* spec 5.2, P = 4, float32, s = 5, N_pad = 20. */
	BYTES_OK(cs_pat_bytes_zero(1, 2, 3, 4, 4, &bytes_), 260);
	BYTES_OK(cs_pat_bytes_zero(2, 2, 3, 4, 4, &bytes_), 200);
	BYTES_OK(cs_pat_bytes_zero(3, 2, 3, 4, 4, &bytes_), 300);
	/* spec 5.2, P = 8: zero2 216 B on every rank. */
	BYTES_OK(cs_pat_bytes_zero(2, 2, 3, 8, 4, &bytes_), 216);
	/* P = 1, s = N_pad = 17, float32: zero1 is an allreduce of 17 (34
	 * elements) and an allgather of 17 from one rank (17 + 17): 68
	 * elements, 272 B. zero3: three calls of 34 elements, 408 B. */
	BYTES_OK(cs_pat_bytes_zero(1, 2, 3, 1, 4, &bytes_), 272);
	BYTES_OK(cs_pat_bytes_zero(3, 2, 3, 1, 4, &bytes_), 408);
	/* P = 7, int32: s = 3, N_pad = 21; zero3: 3 calls of 3 + 21 = 24
	 * elements = 72 elements, 288 B. */
	BYTES_OK(cs_pat_bytes_zero(3, 2, 3, 7, 4, &bytes_), 288);
}

static void test_bytes_fsdp(void **state)
{
	(void)state;
	/* spec 5.3, P = 4, float32: 3 * (60 + 40) = 300 B. */
	BYTES_OK(cs_pat_bytes_fsdp(2, 3, 4, 4, &bytes_), 300);
	/* P = 8: unit 0, N_0 = 9: s = 2, N_pad = 16, 18 elements a call;
	 * unit 1, N_1 = 8: s = 1, N_pad = 8, 9 a call; 3 calls each:
	 * 81 elements, 324 B in float32. */
	BYTES_OK(cs_pat_bytes_fsdp(2, 3, 8, 4, &bytes_), 324);
}

static void test_bytes_tp_sp(void **state)
{
	(void)state;
	/* spec 5.4: P = 4, F = 8, B = H = 4, float32: 288 B. */
	BYTES_OK(cs_pat_bytes_tp_col(4, 4, 8, 4, 4, &bytes_), 288);
	/* P = 2, F = 4, B = 4, H = 4, float32: allgather of 8 elements
	 * receiving 16 (24), allreduce of 16 (32): 56 elements, 224 B. */
	BYTES_OK(cs_pat_bytes_tp_col(4, 4, 4, 2, 4, &bytes_), 224);
	/* spec 5.5: B = H = 4, float32: 256 B. */
	BYTES_OK(cs_pat_bytes_tp_mlp(4, 4, 4, &bytes_), 256);
	/* spec 5.6: P = 4, S = 8, B = 1, H = 4, float32: 640 B. */
	BYTES_OK(cs_pat_bytes_sp(8, 1, 4, 4, 4, &bytes_), 640);
	/* P = 2, S = 4, B = 1, H = 4, bfloat16: each call 8 + 16 = 24
	 * elements, 4 calls, 96 elements, 192 B. */
	BYTES_OK(cs_pat_bytes_sp(4, 1, 4, 2, 2, &bytes_), 192);
}

static void test_bytes_ulysses(void **state)
{
	(void)state;
	/* spec 5.7: P = 4, S = 8, A = 5, D = 2, float32: rank 0 (2 heads)
	 * 1664 B, rank 3 (1 head) 1152 B per step. */
	BYTES_OK(cs_pat_bytes_ulysses(8, 5, 2, 4, 0, 4, &bytes_), 1664);
	BYTES_OK(cs_pat_bytes_ulysses(8, 5, 2, 4, 3, 4, &bytes_), 1152);
	/* A = 8 divides: each call an alltoall of (S/P)(A/P)D = 8 per peer,
	 * 2 * 4 * 8 = 64 elements, 8 calls, 512 elements, 2048 B. */
	BYTES_OK(cs_pat_bytes_ulysses(8, 8, 2, 4, 2, 4, &bytes_), 2048);
	/* A = 3 over 4 ranks: rank 3 has no head; per call it sends its 2
	 * rows of 3 heads of 2 (12 elements) and receives nothing: 8 calls,
	 * 96 elements, 384 B. */
	BYTES_OK(cs_pat_bytes_ulysses(8, 3, 2, 4, 3, 4, &bytes_), 384);
}

/* P = 2, S = 4, A = 3, D = 2: heads 2 and 1; each rank's 2 rows carry
 * 2 * 2 * 2 = 8 elements of rank 0's heads and 2 * 1 * 2 = 4 of rank 1's. */
static void test_ulysses_counts_hand(void **state)
{
	static const int64_t to_heads[4] = {8, 4, 8, 4};
	static const int64_t to_seq[4] = {8, 8, 4, 4};
	int64_t mu[4];
	(void)state;
	assert_int_equal(cs_pat_ulysses_counts(4, 3, 2, 2, 1, mu), CS_OK);
	assert_memory_equal(mu, to_heads, sizeof(mu));
	assert_int_equal(cs_pat_ulysses_counts(4, 3, 2, 2, 0, mu), CS_OK);
	assert_memory_equal(mu, to_seq, sizeof(mu));
}

/* Each of the 8 calls hands rank r its row and column of the matrix, so
 * cs_pat_bytes_ulysses must be 8 (row_r + col_r) w (w = 2 here) in both
 * directions; the rows a rank scatters hold all A heads of its S/P = 2
 * sequence rows of D = 3: 6A elements. */
/* Row and column sums of mu[P * P] for rank r. */
static void row_col(const int64_t *mu, int P, int r, int64_t *row,
		    int64_t *col)
{
	*row = *col = 0;
	for (int q = 0; q < P; q++) {
		*row += mu[r * P + q];
		*col += mu[q * P + r];
	}
}

static void test_ulysses_counts_vs_bytes(void **state)
{
	int64_t mu[64], bytes, row, col;
	(void)state;
	for (int P = 1; P <= 8; P++)
		for (int64_t A = 1; A <= 2 * P + 1; A++)
			for (int dir = 0; dir < 2; dir++) {
				assert_int_equal(cs_pat_ulysses_counts(
					2 * P, A, 3, P, dir, mu), CS_OK);
				for (int r = 0; r < P; r++) {
					row_col(mu, P, r, &row, &col);
					assert_int_equal(dir ? row : col,
							 6 * A);
					assert_int_equal(cs_pat_bytes_ulysses(
						2 * P, A, 3, P, r, 2, &bytes),
						CS_OK);
					assert_int_equal(bytes,
							 16 * (row + col));
				}
			}
}

static void test_bytes_ring_moe_pp(void **state)
{
	(void)state;
	/* spec 5.8: P = 4, c = 2, A = 2, D = 4, float32: 1536 B; P = 1 no
	 * call. */
	BYTES_OK(cs_pat_bytes_ring(2, 2, 4, 4, 4, &bytes_), 1536);
	BYTES_OK(cs_pat_bytes_ring(2, 2, 4, 1, 4, &bytes_), 0);
	/* spec 5.9: P = 4, e = 2, C = 2, H = 4, float32: pad 1024 B; a2av
	 * with out = in = 16: 1152 B. */
	BYTES_OK(cs_pat_bytes_moe_pad(4, 2, 2, 4, 4, &bytes_), 1024);
	BYTES_OK(cs_pat_bytes_moe_a2av(4, 2, 16, 16, 4, 4, &bytes_), 1152);
	/* a2av in bfloat16, P = 2, e = 1, out 3, in 5, H = 4: counts 2 * 2
	 * int64 = 32 B; dispatch 12 + 20 elements, combine 20 + 12: 64
	 * elements, 128 B; 160 B. */
	BYTES_OK(cs_pat_bytes_moe_a2av(2, 1, 3, 5, 4, 2, &bytes_), 160);
	/* spec 5.10: P = 4, M = 4, b = 2, H = 4, float32: 256 / 512 B. */
	BYTES_OK(cs_pat_bytes_pp(4, 2, 4, 4, 0, 4, &bytes_), 256);
	BYTES_OK(cs_pat_bytes_pp(4, 2, 4, 4, 1, 4, &bytes_), 512);
	BYTES_OK(cs_pat_bytes_pp(4, 2, 4, 4, 2, 4, &bytes_), 512);
	BYTES_OK(cs_pat_bytes_pp(4, 2, 4, 4, 3, 4, &bytes_), 256);
	BYTES_OK(cs_pat_bytes_pp(4, 2, 4, 1, 0, 4, &bytes_), 0);
}

/* ---- argument errors -------------------------------------------------- */

#define FAILS(call, want)                                                      \
	do {                                                                   \
		assert_int_equal(call, want);                                  \
		assert_true(cs_last_error()[0] != '\0');                       \
	} while (0)

static void test_errors(void **state)
{
	int64_t x = 7, y = 7, bn[4];
	int nb = 7;
	cs_pat_shard_t sh;
	const int64_t bad[2] = {3, 0};
	(void)state;
	FAILS(cs_pat_balanced(-1, 4, 0, &x, &y), CS_ERR_INVALID);
	FAILS(cs_pat_balanced(5, 0, 0, &x, &y), CS_ERR_INVALID);
	FAILS(cs_pat_balanced(5, 4, 4, &x, &y), CS_ERR_INVALID);
	FAILS(cs_pat_balanced(5, 4, -1, &x, &y), CS_ERR_INVALID);
	FAILS(cs_pat_balanced(5, 4, 0, NULL, &y), CS_ERR_INVALID);
	assert_int_equal(x, 7);
	assert_int_equal(y, 7);
	FAILS(cs_pat_padded(0, 4, 0, &sh), CS_ERR_INVALID);
	FAILS(cs_pat_padded(5, 4, 4, &sh), CS_ERR_INVALID);
	FAILS(cs_pat_padded(INT64_MAX, 2, 0, &sh), CS_ERR_OVERFLOW);
	FAILS(cs_pat_buckets(mlp, 4, 3, 0, bn, NULL, &nb), CS_ERR_INVALID);
	FAILS(cs_pat_buckets(mlp, 4, 4, -1, bn, NULL, &nb), CS_ERR_INVALID);
	FAILS(cs_pat_buckets(mlp, 0, 4, 0, bn, NULL, &nb), CS_ERR_INVALID);
	FAILS(cs_pat_buckets(bad, 2, 4, 0, bn, NULL, &nb), CS_ERR_INVALID);
	FAILS(cs_pat_buckets((const int64_t[]){INT64_MAX / 4, 1}, 2, 4, 0, bn,
			     NULL, &nb),
	      CS_ERR_OVERFLOW);
	assert_int_equal(nb, 7);
	FAILS(cs_pat_moe_capacity(1, 0, 2, 8, 8, &x), CS_ERR_INVALID);
	FAILS(cs_pat_moe_capacity(1, 1, 0, 8, 8, &x), CS_ERR_INVALID);
	FAILS(cs_pat_moe_capacity(1, 1, 2, 8, 0, &x), CS_ERR_INVALID);
	FAILS(cs_pat_moe_capacity(INT64_MAX, 1, 2, 8, 8, &x), CS_ERR_OVERFLOW);
	FAILS(cs_pat_bytes_dp(2, 3, 3, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_dp(0, 3, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_dp(INT64_MAX / 2, 3, 4, &x), CS_ERR_OVERFLOW);
	FAILS(cs_pat_bytes_zero(4, 2, 3, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_zero(1, 2, 3, 0, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_fsdp(2, 3, 4, 4, NULL), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_tp_col(4, 4, 6, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_sp(6, 1, 4, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_ulysses(8, 5, 2, 4, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_ulysses(8, 0, 2, 4, 0, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_ring(INT64_MAX / 8, 2, 4, 4, 4, &x),
	      CS_ERR_OVERFLOW);
	FAILS(cs_pat_bytes_moe_pad(4, 2, -1, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_moe_a2av(4, 2, -1, 16, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_pp(4, 2, 4, 4, 4, 4, &x), CS_ERR_INVALID);
	FAILS(cs_pat_bytes_pp(0, 2, 4, 4, 0, 4, &x), CS_ERR_INVALID);
	assert_int_equal(x, 7);
	FAILS(cs_pat_ulysses_counts(6, 5, 2, 4, 1, bn), CS_ERR_INVALID);
	FAILS(cs_pat_ulysses_counts(8, 5, 2, 0, 1, bn), CS_ERR_INVALID);
	FAILS(cs_pat_ulysses_counts(8, INT64_MAX, 2, 4, 1, NULL),
	      CS_ERR_INVALID);
	FAILS(cs_pat_ulysses_counts(8, INT64_MAX, 2, 4, 1, bn),
	      CS_ERR_OVERFLOW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced_hand),
		cmocka_unit_test(test_balanced_partition),
		cmocka_unit_test(test_padded_hand),
		cmocka_unit_test(test_padded_partition),
		cmocka_unit_test(test_buckets_hand),
		cmocka_unit_test(test_buckets_properties),
		cmocka_unit_test(test_moe_capacity),
		cmocka_unit_test(test_bytes_dp),
		cmocka_unit_test(test_bytes_zero),
		cmocka_unit_test(test_bytes_fsdp),
		cmocka_unit_test(test_bytes_tp_sp),
		cmocka_unit_test(test_bytes_ulysses),
		cmocka_unit_test(test_ulysses_counts_hand),
		cmocka_unit_test(test_ulysses_counts_vs_bytes),
		cmocka_unit_test(test_bytes_ring_moe_pp),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
