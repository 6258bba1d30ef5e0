/*
 * memest.c - memory a case needs, the machine has and a process used
 * (memest.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/memest.h"

double cs_mem_available(void)
{
	const char *env = getenv("CS_MEM_AVAILABLE_MIB");
	FILE *f;
	char line[256], *end;
	double kb = 0;

	if (env && *env) {
		unsigned long long mib = strtoull(env, &end, 10);
		if (!*end)
			return (double)mib * 1048576.0;
		fprintf(stderr, "collspec: CS_MEM_AVAILABLE_MIB='%s' is not a "
			"whole number of MiB: ignored\n", env);
	}
	if (!(f = fopen("/proc/meminfo", "r")))
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

double cs_hcase_mem_need(const cs_hcase_t *hc, int P, int repeat)
{
	const cs_case_t *c = &hc->c;
	/* the root holds the largest buffers; alltoallv's pairs exchange
	 * count (uniform) or up to 2*count (its matrix is built later) */
	double pair = hc->a2av_pattern == CS_A2AV_UNIFORM ? 1.0 : 2.0;
	double recv = c->coll == CS_COLL_ALLTOALLV
			      ? (double)c->count * P * pair
			      : (double)cs_case_recv_count(c, c->root);
	double elems = c->coll == CS_COLL_ALLTOALLV
			       ? recv * 2.0
			       : (double)cs_case_send_count(c, c->root) + recv;

	return (elems * 3.0 + recv * (repeat + 1.0)) *
		       (double)cs_dtype_size(c->dtype) + 64e6;
}

int cs_peak_rss_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

uint64_t cs_peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}
