/*
 * bench_oracle.c - throughput of the pure oracle and of the checker.
 *
 *   bench_oracle [count] [ranks]      (defaults: 4194304 elements, P=8)
 *
 * Prints, for allreduce/sum/float32 random mode at P ranks:
 *   - oracle: expected elements per second, on 1 thread and on all threads;
 *   - check: oracle + comparison of a received buffer (bytes verified per
 *     second), next to a plain memcmp of the same bytes.
 * Figures only; nothing is asserted.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csref/oracle.h"
#include "csref/compare.h"
#include "csref/gen.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of three runs of the oracle over the whole buffer. */
static double time_oracle(const cs_case_t *c, cs_golden_t *g, size_t n)
{
	double best = 1e30;
	int rep;

	for (rep = 0; rep < 3; rep++) {
		double t0 = now();
		if (cs_oracle_expect(c, 0, 0, n, NULL, g) != CS_OK) {
			fprintf(stderr, "bench_oracle: %s\n", cs_last_error());
			exit(2);
		}
		if (now() - t0 < best)
			best = now() - t0;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
	int P = argc > 2 ? atoi(argv[2]) : 8, threads = omp_get_max_threads();
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
		       CS_MODE_RANDOM, P, 0, n, 1, NULL, 0};
	cs_golden_t *g = malloc(n * sizeof *g);
	float *got = malloc(n * sizeof *got), *ref = malloc(n * sizeof *ref);
	cs_cmp_summary_t s;
	double t1, tn, tc, tm;
	size_t i;

	if (!g || !got || !ref || P < 1 || cs_case_validate(&c) != CS_OK) {
		fprintf(stderr, "usage: bench_oracle [count] [ranks]\n");
		return 2;
	}
	omp_set_num_threads(1);
	t1 = time_oracle(&c, g, n);
	omp_set_num_threads(threads);
	tn = time_oracle(&c, g, n);
	for (i = 0; i < n; i++)
		memcpy(&got[i], &g[i].bits, sizeof(float));
	memcpy(ref, got, n * sizeof *got);
	tc = now();
	cs_oracle_expect(&c, 0, 0, n, NULL, g);
	cs_cmp_summary_init(&s);
	cs_compare_range(c.dtype, g, got, n, 0, &s);
	tc = now() - tc;
	tm = now();
	if (memcmp(got, ref, n * sizeof *got) != 0 || s.n_wrong)
		fprintf(stderr, "bench_oracle: unexpected mismatch\n");
	tm = now() - tm;
	printf("allreduce sum float32 random P=%d, %zu elements\n", P, n);
	printf("oracle  1 thread : %10.3g elements/s\n", (double)n / t1);
	printf("oracle %2d threads: %10.3g elements/s (%.3g per thread)\n",
	       threads, (double)n / tn, (double)n / tn / threads);
	printf("check  %2d threads: %10.3g bytes/s verified (oracle + compare)\n",
	       threads, (double)n * sizeof(float) / tc);
	printf("memcmp           : %10.3g bytes/s\n", (double)n * sizeof(float) / tm);
	free(g);
	free(got);
	free(ref);
	return 0;
}
