/*
 * bench_khash.c - cost of the identity check's keyed fingerprint
 * (conformance/check/khash.c) next to a plain memcmp of the same bytes.
 *
 *   bench_khash [MiB]      (default 64)
 *
 * Prints bytes per second of cs_khash (one thread: every rank fingerprints
 * its own receive buffer) and of memcmp. Figures only; nothing asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check/khash.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64, n = mib << 20;
	unsigned char *a = malloc(n ? n : 1), *b = malloc(n ? n : 1);
	cs_khash_t key, fp;
	double t, best_h = 1e30, best_m = 1e30;
	int rep, diff = 0;
	size_t i;

	if (!a || !b || !n || cs_khash_key(&key) != CS_OK) {
		fprintf(stderr, "usage: bench_khash [MiB > 0]\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		a[i] = b[i] = (unsigned char)(i * 131 + 7);
	for (rep = 0; rep < 3; rep++) {
		t = now();
		cs_khash(&key, a, n, &fp);
		t = now() - t;
		best_h = t < best_h ? t : best_h;
		t = now();
		diff |= memcmp(a, b, n);
		t = now() - t;
		best_m = t < best_m ? t : best_m;
	}
	printf("%zu MiB (fingerprint %016llx%016llx, equal %d)\n", mib,
	       (unsigned long long)fp.h[0], (unsigned long long)fp.h[1], !diff);
	printf("khash  : %10.3g bytes/s\n", (double)n / best_h);
	printf("memcmp : %10.3g bytes/s\n", (double)n / best_m);
	free(a);
	free(b);
	return 0;
}
