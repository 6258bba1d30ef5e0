/*
 * bench_stats_power.c - how often the statistical verdicts (ref/stats.c)
 * flag emulated implementations, conforming and broken, on random-mode
 * allreduce cases.
 *
 *   bench_stats_power [cases] [count] [Pmax|P,P,...] [dtype]
 *       defaults: 20 cases, 1024 elements, P = 2..64, every float dtype;
 *       a comma-separated list gives the P values; cases = 0: the cost
 *       line only.
 *
 * For every float dtype, op (sum, avg, premulsum, prod) and P, `cases`
 * seeds: inputs from cs_gen_column, goldens from cs_oracle_expect, results
 * from the emulations of tests/unit/stats_emul.c. Conforming
 * implementations: ring and tree order, per hop in the dtype or
 * accumulated in float32, avg premultiplied or divided. Broken: every hop
 * truncated toward zero; avg's division truncated (only at P where that can
 * differ from every conforming result); every hop rounded with 4 mantissa
 * bits less (not float8); 0 and -S (at P = 64). Prints per (dtype, op,
 * implementation) the share of cases the statistics judge WARN and FAIL,
 * the share the per-element check (cs_compare_range) fails, the largest
 * direction fraction (qmax), sign-check fraction (smax) and mean energy
 * (Emax) of a case, and the P values where the statistics passed a broken
 * one. Then the cost of cs_stats_add per element next to the oracle's and
 * the comparison's. Figures only; nothing is asserted.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csref/arith.h"
#include "csref/compare.h"
#include "csref/oracle.h"
#include "csref/stats.h"
#include "stats_emul.h"

struct impl {
	const char *name;
	emul_impl_t im;
	int broken;
	int only_op;      /* -1: every op */
	int only_p;       /* 0: every P */
};

static const struct impl impls[] = {
	{"ring", {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_OK}, 0, -1, 0},
	{"tree", {EMUL_TREE, 0, EMUL_AVG_PREMUL, EMUL_OK}, 0, -1, 0},
	{"ring-acc32", {EMUL_RING, 1, EMUL_AVG_PREMUL, EMUL_OK}, 0, -1, 0},
	{"tree-acc32", {EMUL_TREE, 1, EMUL_AVG_PREMUL, EMUL_OK}, 0, -1, 0},
	{"ring-divide", {EMUL_RING, 0, EMUL_AVG_DIVIDE, EMUL_OK}, 0, CS_OP_AVG, 0},
	{"tree-acc32-divide", {EMUL_TREE, 1, EMUL_AVG_DIVIDE, EMUL_OK}, 0,
	 CS_OP_AVG, 0},
	{"BROKEN trunc-hops", {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_TRUNC_HOPS},
	 1, -1, 0},
	{"BROKEN avg-trunc-div", {EMUL_RING, 0, EMUL_AVG_DIVIDE,
				  EMUL_AVG_TRUNC_DIV}, 1, CS_OP_AVG, 0},
	{"BROKEN lose-4-bits", {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_LOSE_BITS},
	 1, -1, 0},
	{"BROKEN zero", {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_ZERO}, 1, -1, 64},
	{"BROKEN negate", {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_NEGATE}, 1, -1, 64},
};

#define NIMPL (sizeof impls / sizeof impls[0])

static const cs_dtype_t dtypes[] = {
	CS_DTYPE_FLOAT32, CS_DTYPE_FLOAT16, CS_DTYPE_BFLOAT16, CS_DTYPE_FLOAT64,
	CS_DTYPE_FLOAT8_E4M3, CS_DTYPE_FLOAT8_E5M2
};
static const cs_op_t ops[] = {CS_OP_SUM, CS_OP_AVG, CS_OP_PREMULSUM,
			      CS_OP_PROD};

/* Tallies of one (dtype, op, implementation) over P and seeds. */
struct tally {
	long cases, warn, fail, wrong; /* wrong: a per-element FAIL too */
	double qmax, smax, emax; /* direction and sign fractions, energy */
	char missed[256]; /* P values with a case a broken one passed */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double qmax_of(const cs_stats_t *s)
{
	double q = 0;
	int k;

	for (k = 0; k < CS_STATS_NDIR; k++)
		if (s->off[k] && (double)s->hit[k] / (double)s->off[k] > q)
			q = (double)s->hit[k] / (double)s->off[k];
	return q;
}

static void note_missed(struct tally *t, int P)
{
	size_t l = strlen(t->missed);
	char buf[16];

	snprintf(buf, sizeof buf, " %d", P);
	if (strstr(t->missed, buf) || l + strlen(buf) + 4 >= sizeof t->missed)
		return;
	strcat(t->missed, buf);
}

/* Whether avg's truncated division can differ from every conforming
 * result: P not a power of two (else the division is exact) and c P >= 1
 * for both roundings of c (else the premultiplied path already sits as far
 * toward zero; spec/numerics.md 8.8). */
static int trunc_div_visible(cs_dtype_t d, int P)
{
	double c1 = cs_to_f64(d, cs_avg_scalar(d, P)), c2 = c1;

	if (cs_dtype_prec(d) < 24) /* NCCL's scalar through float */
		c2 = cs_to_f64(d, cs_from_f64(d, (float)(1.0 / P), 0));

	return (P & (P - 1)) && c1 * P >= 1 && c2 * P >= 1;
}

/* One case: goldens once, then every applicable implementation. */
static void run_case(const cs_case_t *c, cs_golden_t *g, void *got,
		     struct tally *t)
{
	size_t i;

	if (cs_oracle_expect(c, 0, 0, c->count, NULL, g) != CS_OK)
		return;
	for (i = 0; i < NIMPL; i++) {
		const struct impl *im = &impls[i];
		cs_cmp_summary_t cmp;
		cs_stats_t s;
		int lv;

		if ((im->only_op >= 0 && (int)c->op != im->only_op) ||
		    (im->only_p && c->nranks != im->only_p) ||
		    (im->im.bug == EMUL_LOSE_BITS &&
		     cs_dtype_prec(c->dtype) <= EMUL_LOST_BITS + 4) ||
		    (im->im.bug == EMUL_AVG_TRUNC_DIV &&
		     !trunc_div_visible(c->dtype, c->nranks)))
			continue;
		emul_call(c, &im->im, 0, c->count, got);
		cs_stats_init(&s);
		cs_stats_add(&s, c->dtype, c->op, c->nranks, g, got, c->count);
		lv = cs_stats_judge(&s, NULL, 0, NULL, 0);
		cs_cmp_summary_init(&cmp);
		cs_compare_range(c->dtype, g, got, c->count, 0, &cmp);
		t[i].wrong += cmp.n_wrong > 0;
		t[i].cases++;
		t[i].warn += lv == CS_STATS_WARN;
		t[i].fail += lv == CS_STATS_FAIL;
		if (qmax_of(&s) > t[i].qmax)
			t[i].qmax = qmax_of(&s);
		if (s.sign_off && (double)s.sign_hit / (double)s.sign_off > t[i].smax)
			t[i].smax = (double)s.sign_hit / (double)s.sign_off;
		if (s.n_used && s.energy / (double)s.n_used > t[i].emax)
			t[i].emax = s.energy / (double)s.n_used;
		if (im->broken && lv == CS_STATS_PASS)
			note_missed(&t[i], c->nranks);
	}
}

static void print_tallies(cs_dtype_t d, cs_op_t op, const struct tally *t)
{
	size_t i;

	for (i = 0; i < NIMPL; i++) {
		if (!t[i].cases)
			continue;
		double c = (double)t[i].cases;

		printf("%-12s %-10s %-22s %6ld %7.2f%% %7.2f%% %7.2f%% %6.3f "
		       "%6.3f %7.4f %s\n", cs_dtype_name(d), cs_op_name(op),
		       impls[i].name, t[i].cases,
		       100.0 * (double)t[i].warn / c,
		       100.0 * (double)t[i].fail / c,
		       100.0 * (double)t[i].wrong / c, t[i].qmax, t[i].smax,
		       t[i].emax, t[i].missed[0] ? t[i].missed : "-");
	}
}

/* Every P and seed of one (dtype, op), cases spread over threads. */
/* dst += src, tally by tally. */
static void merge_tallies(struct tally *dst, const struct tally *src)
{
	size_t i;

	for (i = 0; i < NIMPL; i++) {
		const char *p = src[i].missed;
		char *end;

		dst[i].cases += src[i].cases;
		dst[i].warn += src[i].warn;
		dst[i].fail += src[i].fail;
		dst[i].wrong += src[i].wrong;
		dst[i].qmax = src[i].qmax > dst[i].qmax ? src[i].qmax : dst[i].qmax;
		dst[i].smax = src[i].smax > dst[i].smax ? src[i].smax : dst[i].smax;
		dst[i].emax = src[i].emax > dst[i].emax ? src[i].emax : dst[i].emax;
		for (; *p; p = end)
			note_missed(&dst[i], (int)strtol(p, &end, 10));
	}
}

static void power(cs_dtype_t d, cs_op_t op, int cases, size_t n,
		  const int *ps, int nps)
{
	struct tally t[NIMPL];
	int job;

	memset(t, 0, sizeof t);
#pragma omp parallel
	{
		cs_golden_t *g = malloc(n * sizeof *g);
		void *got = malloc(n * 8);
		struct tally mine[NIMPL];

		memset(mine, 0, sizeof mine);
#pragma omp for schedule(dynamic)
		for (job = 0; job < nps * cases; job++) {
			cs_case_t c = {CS_COLL_ALLREDUCE, d, op, CS_MODE_RANDOM,
				       ps[job / cases], 0, n,
				       (uint64_t)(job % cases) + 1, NULL, 0};
			if (g && got)
				run_case(&c, g, got, mine);
		}
#pragma omp critical
		merge_tallies(t, mine);
		free(g);
		free(got);
	}
	print_tallies(d, op, t);
}

/* Nanoseconds per element of the oracle, the per-element comparison and
 * cs_stats_add, one thread, in blocks of 2^16 elements as the checker
 * (conformance/check/check.c) runs them. */
static void cost(size_t n)
{
	enum { BLOCK = 1 << 16 };
	cs_case_t c = {CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
		       CS_MODE_RANDOM, 8, 0, n, 1, NULL, 0};
	emul_impl_t im = {EMUL_RING, 0, EMUL_AVG_PREMUL, EMUL_OK};
	cs_golden_t *g = malloc(BLOCK * sizeof *g);
	float *got = malloc(n * sizeof *got);
	double t0, to = 0, tc = 0, ts = 0;
	cs_cmp_summary_t cmp;
	cs_stats_t s;
	size_t lo;

	if (!g || !got)
		return;
	omp_set_num_threads(1);
	emul_call(&c, &im, 0, n, got);
	cs_cmp_summary_init(&cmp);
	cs_stats_init(&s);
	for (lo = 0; lo < n; lo += BLOCK) {
		size_t k = n - lo < BLOCK ? n - lo : BLOCK;
		t0 = now();
		cs_oracle_expect(&c, 0, lo, k, NULL, g);
		to += now() - t0;
		t0 = now();
		cs_compare_range(c.dtype, g, got + lo, k, lo, &cmp);
		tc += now() - t0;
		t0 = now();
		cs_stats_add(&s, c.dtype, c.op, c.nranks, g, got + lo, k);
		ts += now() - t0;
	}
	printf("\ncost, float32 sum P=8, %zu elements in blocks of %d, 1 thread: "
	       "oracle %.1f, compare %.1f, cs_stats_add %.1f ns/element "
	       "(%.1f%% of oracle + compare)\n", n, BLOCK, 1e9 * to / (double)n,
	       1e9 * tc / (double)n, 1e9 * ts / (double)n,
	       100 * ts / (to + tc));
	free(g);
	free(got);
}

/* The P values: 2..Pmax, or a comma-separated list. Returns how many. */
static int parse_ranks(const char *arg, int *ps, int max)
{
	char *end;
	long v = strtol(arg, &end, 10);
	int n = 0;

	if (!*end) {
		for (n = 0; n < max && n + 2 <= v; n++)
			ps[n] = n + 2;
		return v >= 2 && v <= 1024 ? n : 0;
	}
	for (;;) {
		if (v < 2 || v > 1024 || n == max || (*end && *end != ','))
			return 0;
		ps[n++] = (int)v;
		if (!*end)
			return n;
		v = strtol(end + 1, &end, 10);
	}
}

int main(int argc, char **argv)
{
	int cases = argc > 1 ? atoi(argv[1]) : 20, ps[1024], nps;
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1024;
	cs_dtype_t only = CS_NUM_DTYPES;
	size_t di, oi;

	nps = parse_ranks(argc > 3 ? argv[3] : "64", ps, 1024);
	if (cases < 0 || n < 1 || !nps ||
	    (argc > 4 && cs_dtype_parse(argv[4], &only) != CS_OK)) {
		fprintf(stderr, "usage: bench_stats_power [cases] [count] "
			"[Pmax|P,P,...] [float dtype]\n");
		return 2;
	}
	if (cases == 0) {
		cost((size_t)1 << 20);
		return 0;
	}
	printf("random-mode allreduce, %zu elements, P = %s, %d seeds each; "
	       "share of cases judged WARN and FAIL\n", n,
	       argc > 3 ? argv[3] : "2..64", cases);
	printf("%-12s %-10s %-22s %6s %8s %8s %8s %6s %6s %7s %s\n", "dtype",
	       "op", "implementation", "cases", "WARN", "FAIL", "elemFAIL",
	       "qmax", "smax", "Emax", "P missed (broken)");
	for (di = 0; di < sizeof dtypes / sizeof dtypes[0]; di++)
		for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
			if (only != CS_NUM_DTYPES && dtypes[di] != only)
				continue;
			power(dtypes[di], ops[oi], cases, n, ps, nps);
			fflush(stdout);
		}
	cost((size_t)1 << 20);
	return 0;
}
