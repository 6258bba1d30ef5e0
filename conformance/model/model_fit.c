/*
 * model_fit.c - `collspec model --fit BENCH.json`: read collspec bench's
 * records (model_read.c), group them by (series, collective), fit alpha
 * and beta per group on all sizes but every K-th (csref/cost.h's
 * weighted least squares) and report the relative error of the
 * prediction on the sizes held out.
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "model/model.h"

static const char fit_usage[] =
"usage: collspec model --fit BENCH.json [--holdout K] [--plain | --algo A]\n"
"                      [--json]\n"
"\n"
"Fit alpha and beta to collspec bench --json lines, per series and\n"
"collective, by least squares weighted by 1/time^2 (relative error), with\n"
"the coefficients of algorithm A at each record's P (default: ring, or\n"
"pairwise for alltoall, direct for sendrecv): time = a(P) alpha + b(P) n\n"
"beta; the reduction's gamma term is folded into beta. --plain fits the\n"
"line time = alpha + beta n instead. Every K-th distinct size of a group\n"
"(K = 3 by default, 0: none) is held out of the fit, and the relative error\n"
"of the prediction on them reported (mean and max). Records at P = 1 (no\n"
"communication) or with time_us 0 are left out.\n"
"  --json   one object per group: series coll model nranks_min nranks_max\n"
"           points heldout alpha_us beta_ns_per_byte bw_GBps mean_rel_err\n"
"           max_rel_err\n";

/* The records of a file: malloc'ed, grown by doubling. */
struct recs {
	cs_bench_rec_t *r;
	size_t n, cap;
};

static cs_status_t push(struct recs *v, const cs_bench_rec_t *r)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		cs_bench_rec_t *p = realloc(v->r, cap * sizeof *p);

		if (!p)
			return cs_error(CS_ERR_NOMEM, "out of memory");
		v->r = p;
		v->cap = cap;
	}
	v->r[v->n++] = *r;
	return CS_OK;
}

/* Every record of path; blank lines skipped, any other bad line fatal. */
static cs_status_t read_file(const char *path, struct recs *v)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	cs_bench_rec_t r;
	cs_status_t st = CS_OK;

	if (!f)
		return cs_error(CS_ERR_IO, "cannot open %s", path);
	while (st == CS_OK && getline(&line, &cap, f) >= 0) {
		lineno++;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if ((st = cs_bench_rec_parse(line, &r)) != CS_OK)
			st = cs_error(st, "%s:%zu: %s", path, lineno,
				      cs_last_error());
		else
			st = push(v, &r);
	}
	if (st == CS_OK && ferror(f))
		st = cs_error(CS_ERR_IO, "%s: read error", path);
	if (st == CS_OK && !v->n)
		st = cs_error(CS_ERR_INVALID, "%s: no records", path);
	free(line);
	fclose(f);
	return st;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* 1 when bytes is the k-th (1-based) of the sorted distinct sizes[0..n)
 * with k a multiple of K. */
static int held_out(double bytes, const double *sizes, size_t n, int K)
{
	size_t i, k = 0;

	if (K <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (i == 0 || sizes[i] != sizes[i - 1])
			if (++k, sizes[i] == bytes)
				return k % (size_t)K == 0;
	return 0;
}

/* Regressors of record r: x1 = a(P), x2 = b(P) n (or 1, n); 0 when the
 * record does not enter (P = 1, or no formula at its P). */
static int regressors(const cs_model_fit_t *g, const cs_bench_rec_t *r,
		      double *x1, double *x2)
{
	cs_cost_coef_t c;

	if (r->nranks < 2 || !(r->time_us > 0))
		return 0;
	if (g->plain) {
		*x1 = 1;
		*x2 = (double)r->bytes;
		return 1;
	}
	if (cs_cost_coef(g->coll, g->algo, r->nranks, &c) != CS_OK)
		return 0;
	*x1 = c.a;
	*x2 = c.b * (double)r->bytes;
	return 1;
}

/* Fit group g over the records idx[0..m) of v; held-out error. */
static cs_status_t fit_group(cs_model_fit_t *g, const struct recs *v,
			     const size_t *idx, size_t m, int K, double *buf)
{
	double *sizes = buf, *x1 = buf + m, *x2 = buf + 2 * m, *y = buf + 3 * m;
	double sum = 0, a, b;
	size_t i, k = 0, ns = 0;
	cs_status_t st;

	for (i = 0; i < m; i++)
		sizes[ns++] = (double)v->r[idx[i]].bytes;
	qsort(sizes, ns, sizeof *sizes, cmp_double);
	for (i = 0; i < m; i++) {
		const cs_bench_rec_t *r = &v->r[idx[i]];

		if (held_out((double)r->bytes, sizes, ns, K) ||
		    !regressors(g, r, &x1[k], &x2[k]))
			continue;
		y[k++] = r->time_us * 1e-6;
	}
	if ((st = cs_cost_fit(x1, x2, y, k, &g->alpha_s, &g->beta_s)) != CS_OK)
		return st;
	g->used = k;
	g->held = 0;
	g->max_err = 0;
	for (i = 0; i < m; i++) {
		const cs_bench_rec_t *r = &v->r[idx[i]];
		double e, t;

		if (!held_out((double)r->bytes, sizes, ns, K) ||
		    !regressors(g, r, &a, &b))
			continue;
		t = r->time_us * 1e-6;
		e = fabs(a * g->alpha_s + b * g->beta_s - t) / t;
		sum += e;
		g->max_err = fmax(g->max_err, e);
		g->held++;
	}
	g->mean_err = g->held ? sum / (double)g->held : 0;
	return CS_OK;
}

/* The records of v in group (series, coll) into idx; their P range. */
static size_t members(const struct recs *v, const char *series,
		      cs_coll_t coll, size_t *idx, cs_model_fit_t *g)
{
	size_t i, m = 0;

	g->pmin = 1 << 30;
	g->pmax = 0;
	for (i = 0; i < v->n; i++)
		if (v->r[i].coll == coll && !strcmp(v->r[i].series, series)) {
			idx[m++] = i;
			g->pmin = v->r[i].nranks < g->pmin ? v->r[i].nranks :
							      g->pmin;
			g->pmax = v->r[i].nranks > g->pmax ? v->r[i].nranks :
							      g->pmax;
		}
	return m;
}

/* 1 when (series, coll) of record i appeared in an earlier record. */
static int seen_before(const struct recs *v, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (v->r[j].coll == v->r[i].coll &&
		    !strcmp(v->r[j].series, v->r[i].series))
			return 1;
	return 0;
}

/* Fit every group of v into fits (at most max). */
static cs_status_t fit_all(const struct recs *v, int plain, int algo_set,
			   cs_algo_t algo, int K, cs_model_fit_t *fits,
			   size_t max, size_t *n, size_t *idx, double *buf)
{
	size_t i, m;

	for (*n = 0, i = 0; i < v->n && *n < max; i++) {
		cs_model_fit_t *g = &fits[*n];

		if (seen_before(v, i))
			continue;
		memset(g, 0, sizeof *g);
		snprintf(g->series, sizeof g->series, "%s", v->r[i].series);
		g->coll = v->r[i].coll;
		g->plain = plain;
		g->algo = algo_set ? algo : cs_cost_default_algo(g->coll);
		m = members(v, g->series, g->coll, idx, g);
		if (!plain && !cs_cost_defined(g->coll, g->algo)) {
			fprintf(stderr, "collspec model: %s %s: the model has no "
				"%s formula (try --plain); left out\n",
				g->series, cs_coll_name(g->coll),
				cs_algo_name(g->algo));
			continue;
		}
		if (fit_group(g, v, idx, m, K, buf) != CS_OK) {
			fprintf(stderr, "collspec model: %s %s: %s; left out\n",
				g->series, cs_coll_name(g->coll),
				cs_last_error());
			continue;
		}
		(*n)++;
	}
	return *n ? CS_OK : cs_error(CS_ERR_INVALID, "no group could be "
				     "fitted");
}

cs_status_t cs_model_fit_file(const char *path, int plain, int algo_set,
			      cs_algo_t algo, int holdout,
			      cs_model_fit_t *fits, size_t max, size_t *n)
{
	struct recs v = {NULL, 0, 0};
	size_t *idx = NULL;
	double *buf = NULL;
	cs_status_t st;

	*n = 0;
	if ((st = read_file(path, &v)) != CS_OK)
		goto out_free;
	idx = malloc(v.n * sizeof *idx);
	buf = malloc(4 * v.n * sizeof *buf);
	if (!idx || !buf) {
		st = cs_error(CS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	st = fit_all(&v, plain, algo_set, algo, holdout, fits, max, n, idx,
		     buf);
out_free:
	free(buf);
	free(idx);
	free(v.r);
	return st;
}

/* The English ordinal suffix of k >= 1: "st" (1, 21), "nd", "rd", "th"
 * (4, 11, 12, 13). */
static const char *ordinal_suffix(long k)
{
	if (k % 100 >= 11 && k % 100 <= 13)
		return "th";
	return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd"
								: "th";
}

static void print_fit(const cs_model_fit_t *g, int json)
{
	const char *model = g->plain ? "plain" : cs_algo_name(g->algo);
	double bw = g->beta_s > 0 ? 1e-9 / g->beta_s : 0;

	if (json)
		printf("{\"series\":\"%s\",\"coll\":\"%s\",\"model\":\"%s\","
		       "\"nranks_min\":%d,\"nranks_max\":%d,\"points\":%zu,"
		       "\"heldout\":%zu,\"alpha_us\":%.6g,"
		       "\"beta_ns_per_byte\":%.6g,\"bw_GBps\":%.6g,"
		       "\"mean_rel_err\":%.6g,\"max_rel_err\":%.6g}\n",
		       g->series, cs_coll_name(g->coll), model, g->pmin,
		       g->pmax, g->used, g->held, g->alpha_s * 1e6,
		       g->beta_s * 1e9, bw, g->mean_err, g->max_err);
	else
		printf("%-16s %-13s %-8s %3d-%-3d %6zu %6zu %10.3f %10.3f "
		       "%8.2f%% %8.2f%%\n", g->series, cs_coll_name(g->coll),
		       model, g->pmin, g->pmax, g->used, g->held,
		       g->alpha_s * 1e6, bw, 100 * g->mean_err,
		       100 * g->max_err);
}

#define MAX_FITS 256

/* --holdout K: 0 (none) or 2 to 1000. */
static cs_status_t parse_holdout(const char *v, long *K)
{
	cs_status_t st = cs_parse_int("--holdout", v, 0, 1000, K);

	if (st == CS_OK && *K == 1)
		st = cs_error(CS_ERR_INVALID, "--holdout 1 would hold out "
			      "every size (0: none, K >= 2: every K-th)");
	return st;
}

/* --fit's options after the dispatch; -1 on a bad one (message out). */
static int fit_args(int argc, char **argv, const char **path, int *plain,
		    int *algo_set, cs_algo_t *algo, long *K, int *json)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		cs_status_t st = CS_OK;

		if (!strcmp(o, "--plain") || !strcmp(o, "--json")) {
			*(o[2] == 'p' ? plain : json) = 1;
			continue;
		}
		if (!v || (strcmp(o, "--fit") && strcmp(o, "--holdout") &&
			   strcmp(o, "--algo"))) {
			fprintf(stderr, "collspec model --fit: unexpected "
				"argument '%s'%s (see collspec model --fit "
				"--help)\n", o, v ? "" : " or a value missing");
			return -1;
		}
		i++;
		if (!strcmp(o, "--fit"))
			*path = v;
		else if (!strcmp(o, "--holdout"))
			st = parse_holdout(v, K);
		else if ((st = cs_algo_parse(v, algo)) == CS_OK)
			*algo_set = 1;
		if (st != CS_OK) {
			fprintf(stderr, "collspec model: %s\n", cs_last_error());
			return -1;
		}
	}
	if (*plain && *algo_set) {
		fprintf(stderr, "collspec model: --plain and --algo exclude "
			"each other\n");
		return -1;
	}
	return 0;
}

int cs_model_fit_main(int argc, char **argv)
{
	static cs_model_fit_t fits[MAX_FITS];
	const char *path = NULL;
	int plain = 0, algo_set = 0, json = 0;
	cs_algo_t algo = CS_ALGO_RING;
	long K = 3;
	size_t n, i;

	for (i = 1; i < (size_t)argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(fit_usage, stdout);
			return 0;
		}
	if (fit_args(argc, argv, &path, &plain, &algo_set, &algo, &K,
		     &json) < 0)
		return 2;
	if (cs_model_fit_file(path, plain, algo_set, algo, (int)K, fits,
			      MAX_FITS, &n) != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return 2;
	}
	if (!json && K)
		printf("# sizes 1..N of each group, every %ld%s held out of the "
		       "fit; the error is on those\n", K, ordinal_suffix(K));
	else if (!json)
		printf("# every size fitted (--holdout 0): no error to show\n");
	if (!json)
		printf("%-16s %-13s %-8s %-7s %6s %6s %10s %10s %9s %9s\n",
		       "series", "coll", "model", "P", "fitted", "held",
		       "alpha_us", "bw_GBps", "mean_err", "max_err");
	for (i = 0; i < n; i++)
		print_fit(&fits[i], json);
	return 0;
}
