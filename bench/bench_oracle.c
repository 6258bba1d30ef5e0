/*
 * bench_oracle.c - throughput of the pure oracle and of the checker.
 *
 *   bench_oracle [count] [ranks]      (defaults: 4194304 elements, P=8)
 *
 * Prints, side by side in one run, for allreduce/sum/float32 random mode
 * at P ranks:
 *   - oracle: expected elements per second, general path
 *     (cs_oracle_expect_general) and block path (cs_oracle_expect), one
 *     thread;
 *   - check: bytes verified per second by the checker's call
 *     (cs_oracle_check: oracle, comparison and statistics), on 1, 2, ...
 *     threads up to OMP_NUM_THREADS, and by the general path's oracle
 *     followed by cs_compare_range and cs_stats_add in 64 Ki-element
 *     blocks (what the checker did before cs_oracle_check), one thread;
 *   - data movement: allgather float32 random, every rank's input, bytes
 *     verified per second on one thread, by the general path's oracle and
 *     cs_compare_range and by cs_oracle_check;
 *   - where a checked element's time goes: each step alone (the inputs,
 *     the golden, the comparison, the statistics), ns per element;
 *   - the generator's floor: ns per value of the fastest generator loop
 *     (cs_gen_block on random bits: two splitmix64 finalizers per value),
 *     and what that puts out of reach: a random-mode float sum element at
 *     P ranks draws one finalizer for its column and at least one per
 *     rank (ref/gen.c, random_sum_column), P + 1 in all, so the check
 *     of a float32 sum can verify at most 4 bytes per (P + 1) / 2 values'
 *     time, with nothing else counted, and data movement of float32
 *     at most 4 bytes per value's time;
 *   - memcmp of the same bytes.
 * Figures only; nothing is asserted. Best of three runs each; one-thread
 * figures per second of CPU time, the thread scaling per wall second.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csref/oracle.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/golden.h"
#include "csref/stats.h"

#define OLD_BLOCK ((size_t)1 << 16)

/* Seconds of the process's CPU time (all threads), or of the wall clock:
 * one-thread figures are per CPU second, so that other people's load on a
 * shared machine does not enter them; the thread-scaling figures are per
 * wall second. */
static int wall_clock;

static double now(void)
{
	struct timespec ts;

	clock_gettime(wall_clock ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID,
		      &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_oracle: %s: %s\n", what, cs_last_error());
	exit(2);
}

/* Best of three runs of an oracle path over the whole buffer. */
static double time_oracle(const cs_case_t *c, cs_golden_t *g, size_t n,
			  int general)
{
	double best = 1e30, t0;
	int rep;

	for (rep = 0; rep < 3; rep++) {
		t0 = now();
		if ((general ? cs_oracle_expect_general(c, 0, 0, n, NULL, g)
			     : cs_oracle_expect(c, 0, 0, n, NULL, g)) != CS_OK)
			die("oracle");
		if (now() - t0 < best)
			best = now() - t0;
	}
	return best;
}

/* Best of three checks of got[0..n) by cs_oracle_check (stats on). */
static double time_check(const cs_case_t *c, const void *got, size_t n)
{
	double best = 1e30, t0;
	cs_cmp_summary_t s;
	cs_stats_t st;
	int rep;

	for (rep = 0; rep < 3; rep++) {
		cs_cmp_summary_init(&s);
		cs_stats_init(&st);
		t0 = now();
		if (cs_oracle_check(c, 0, 0, n, NULL, got, 0, &s, &st) != CS_OK)
			die("check");
		if (now() - t0 < best)
			best = now() - t0;
		if (s.n_wrong)
			fprintf(stderr, "bench_oracle: unexpected mismatch\n");
	}
	return best;
}

/* The checker's loop before cs_oracle_check, on the general path. */
static double time_old_check(const cs_case_t *c, cs_golden_t *g,
			     const float *got, size_t n)
{
	cs_cmp_summary_t s;
	cs_stats_t st;
	double t0 = now();
	size_t lo, m;

	cs_cmp_summary_init(&s);
	cs_stats_init(&st);
	for (lo = 0; lo < n; lo += m) {
		m = n - lo < OLD_BLOCK ? n - lo : OLD_BLOCK;
		if (cs_oracle_expect_general(c, 0, lo, m, NULL, g) != CS_OK)
			die("oracle");
		cs_compare_range(c->dtype, g, got + lo, m, lo, &s);
		cs_stats_add(&st, c->dtype, c->op, c->nranks, g, got + lo, m);
	}
	return now() - t0;
}

/*
 * Where a checked element's time goes, one thread, nanoseconds per element
 * of each step alone, in blocks of 512 as the block path runs them: the P
 * inputs (cs_gen_columns), the golden (the fast golden, the general one
 * where it declines), the comparison, the statistics. g: n goldens out;
 * got: the received values.
 */
static void time_steps(const cs_case_t *c, cs_golden_t *g, const float *got,
		       size_t n)
{
	size_t B = 512, P = (size_t)c->nranks, lo, k, m;
	uint64_t *x = malloc(B * P * sizeof *x);
	double tgen, tgold, tcmp, tst, t0;
	cs_cmp_summary_t s;
	cs_stats_t st;
	cs_gsum_t gs;
	int fast = cs_gsum_init(&gs, c->dtype, c->op, c->nranks, 0);

	if (!x)
		die("memory");
	t0 = now();
	for (lo = 0; lo < n; lo += B)
		cs_gen_columns(c, lo, n - lo < B ? n - lo : B, x, NULL);
	tgen = now() - t0;
	t0 = now();
	for (lo = 0; lo < n; lo += B) {
		m = n - lo < B ? n - lo : B;
		cs_gen_columns(c, lo, m, x, NULL);
		for (k = 0; k < m; k++)
			if (!fast || !cs_golden_sum_fast(&gs, x + k * P, &g[lo + k]))
				cs_golden_reduce(c->dtype, c->op, c->nranks,
						 x + k * P, NULL, 0, &g[lo + k]);
	}
	tgold = now() - t0 - tgen;
	cs_cmp_summary_init(&s);
	t0 = now();
	for (lo = 0; lo < n; lo += B)
		cs_compare_range(c->dtype, g + lo, got + lo,
				 n - lo < B ? n - lo : B, lo, &s);
	tcmp = now() - t0;
	cs_stats_init(&st);
	t0 = now();
	for (lo = 0; lo < n; lo += B)
		cs_stats_add(&st, c->dtype, c->op, c->nranks, g + lo, got + lo,
			     n - lo < B ? n - lo : B);
	tst = now() - t0;
	printf("steps  block   1 thread : generation %.0f, golden %.0f, "
	       "comparison %.0f, statistics %.0f ns per element\n",
	       tgen / (double)n * 1e9, tgold / (double)n * 1e9,
	       tcmp / (double)n * 1e9, tst / (double)n * 1e9);
	free(x);
}

/* Goldens of both paths, field by field (bits of the doubles). */
static size_t count_differences(const cs_golden_t *a, const cs_golden_t *b,
				size_t n)
{
	size_t k, bad = 0;

	for (k = 0; k < n; k++)
		bad += a[k].bits != b[k].bits || a[k].bits_alt != b[k].bits_alt ||
		       memcmp(&a[k].s_hi, &b[k].s_hi, 5 * sizeof(double)) ||
		       a[k].flags != b[k].flags;
	return bad;
}

/* Bytes per second verified of an allgather's received buffer: by
 * cs_oracle_check (general = 0) or by the general path's oracle and
 * cs_compare_range in 64 Ki-element blocks (general = 1). */
static double moved_check(int P, size_t n, int general)
{
	cs_case_t c = {CS_COLL_ALLGATHER, CS_DTYPE_FLOAT32, CS_OP_NONE,
		       CS_MODE_RANDOM, P, 0, n / (size_t)P, 1, NULL, 0};
	size_t m = cs_case_recv_count(&c, 0), q;
	float *got = malloc(m * sizeof *got);
	double t;

	if (!got || cs_case_validate(&c) != CS_OK)
		die("allgather case");
	for (q = 0; q < (size_t)P; q++)
		cs_gen_fill(&c, (int)q, got + q * c.count, 0, c.count);
	if (general) {
		cs_golden_t *g = malloc(OLD_BLOCK * sizeof *g);
		cs_cmp_summary_t s;
		size_t lo, k;
		if (!g)
			die("memory");
		cs_cmp_summary_init(&s);
		t = now();
		for (lo = 0; lo < m; lo += k) {
			k = m - lo < OLD_BLOCK ? m - lo : OLD_BLOCK;
			if (cs_oracle_expect_general(&c, 0, lo, k, NULL, g) != CS_OK)
				die("oracle");
			cs_compare_range(c.dtype, g, got + lo, k, lo, &s);
		}
		t = (double)m * sizeof *got / (now() - t);
		free(g);
	} else {
		t = (double)m * sizeof *got / time_check(&c, got, m);
	}
	free(got);
	return t;
}

/* CPU seconds per value of cs_gen_block on a random-bits case (uint32
 * allgather input: two finalizers and a mask per value), best of three. */
static double gen_floor(size_t n)
{
	cs_case_t c = {CS_COLL_ALLGATHER, CS_DTYPE_UINT32, CS_OP_NONE,
		       CS_MODE_RANDOM, 1, 0, n, 1, NULL, 0};
	uint64_t *out = malloc(n * sizeof *out), sink = 0;
	double best = 0, t;
	int k;
	size_t i;

	if (!out || cs_case_validate(&c) != CS_OK)
		die("generator case");
	for (k = 0; k < 3; k++) {
		t = now();
		cs_gen_block(&c, 0, 0, n, out);
		t = now() - t;
		for (i = 0; i < n; i += 4096)
			sink ^= out[i];
		if (k == 0 || t < best)
			best = t;
	}
	free(out);
	if (sink == 1) /* keeps the loop; never true in practice */
		fputc(' ', stderr);
	return best / (double)n;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
	int P = argc > 2 ? atoi(argv[2]) : 8, threads = omp_get_max_threads(), t;
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
		       CS_MODE_RANDOM, P, 0, n, 1, NULL, 0};
	cs_golden_t *g = malloc(n * sizeof *g), *g2 = malloc(n * sizeof *g2);
	float *got = malloc(n * sizeof *got), *ref = malloc(n * sizeof *ref);
	double tg, tb, told, tc, tm;
	size_t i;

	if (!g || !g2 || !got || !ref || P < 1 || cs_case_validate(&c) != CS_OK) {
		fprintf(stderr, "usage: bench_oracle [count] [ranks]\n");
		return 2;
	}
	omp_set_num_threads(1);
	tg = time_oracle(&c, g, n, 1);
	tb = time_oracle(&c, g2, n, 0);
	for (i = 0; i < n; i++)
		memcpy(&got[i], &g[i].bits, sizeof(float));
	memcpy(ref, got, n * sizeof *got);
	printf("allreduce sum float32 random P=%d, %zu elements\n", P, n);
	printf("goldens differing between the paths: %zu\n",
	       count_differences(g, g2, n));
	told = time_old_check(&c, g, got, n);
	printf("oracle general 1 thread : %10.3g elements/s\n", (double)n / tg);
	printf("oracle block   1 thread : %10.3g elements/s (%.1fx)\n",
	       (double)n / tb, tg / tb);
	printf("check  general 1 thread : %10.3g bytes/s verified (oracle, "
	       "compare, stats)\n", (double)n * sizeof(float) / told);
	omp_set_num_threads(1);
	tc = time_check(&c, got, n);
	printf("check  block   1 thread : %10.3g bytes/s verified (%.1fx)\n",
	       (double)n * sizeof(float) / tc, told / tc);
	time_steps(&c, g2, got, n);
	wall_clock = 1;
	for (t = 1; t <= threads; t++) {
		omp_set_num_threads(t);
		tc = time_check(&c, got, n);
		printf("check  block  %2d threads: %10.3g bytes/s verified per "
		       "wall second\n", t, (double)n * sizeof(float) / tc);
	}
	wall_clock = 0;
	omp_set_num_threads(1);
	printf("allgather float32 random P=%d, 1 thread: check general %10.3g, "
	       "block %10.3g bytes/s verified\n", P, moved_check(P, n, 1),
	       moved_check(P, n, 0));
	tm = gen_floor(n) * 1e9;
	printf("generator floor         : %.2f ns per value of cs_gen_block "
	       "(2 finalizers); a float32 sum element at P=%d draws >= %d "
	       "finalizers: >= %.1f ns, <= %.3g bytes/s verified; data "
	       "movement float32 (one value per 4 bytes): <= %.3g bytes/s\n",
	       tm, P, P + 1, tm * (P + 1) / 2,
	       4.0 / (tm * (P + 1) / 2 * 1e-9), 4.0 / (tm * 1e-9));
	tm = now();
	if (memcmp(got, ref, n * sizeof *got) != 0)
		fprintf(stderr, "bench_oracle: unexpected mismatch\n");
	tm = now() - tm;
	printf("memcmp                  : %10.3g bytes/s\n",
	       (double)n * sizeof(float) / tm);
	free(g);
	free(g2);
	free(got);
	free(ref);
	return 0;
}
