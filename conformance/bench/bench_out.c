/*
 * bench_out.c - the records of `collspec bench` (bench_rec.h): the
 * statistics of one message size, nccl-tests' bandwidth factors, and the
 * three outputs: the table, JSON lines, CSV; plus the JSON lines read
 * back (the worker's side file, bench.c).
 *
 * Factors: nccl-tests, doc/PERFORMANCE.md ("bus bandwidth"): allreduce
 * 2(P-1)/P; allgather, reducescatter, alltoall (P-1)/P; broadcast, reduce
 * 1. The collectives nccl-tests lacks follow the nearest one: alltoallv
 * as alltoall, gather and scatter as allgather (each of the P-1 other
 * blocks crosses one link: (P-1)/P), sendrecv 1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "csref/cost.h"

/* ---- statistics ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile p of the n sorted values s. */
static double percentile(const double *s, int n, double p)
{
	int k = (int)ceil(p / 100.0 * n) - 1;

	if (k < 0)
		k = 0;
	return s[k < n ? k : n - 1];
}

void cs_bench_stats(cs_bench_rec_t *r, const double *t, int iters)
{
	int P = r->nranks, k, q;
	double *mx = malloc((size_t)(iters > 0 ? iters : 1) * sizeof *mx);
	double sum = 0, spread = 0;

	if (!mx || iters < 1 || P < 1) {
		free(mx);
		return;
	}
	for (k = 0; k < iters; k++) {
		double hi = t[(size_t)k * P], lo = hi;
		for (q = 1; q < P; q++) {
			double v = t[(size_t)k * P + q];
			hi = v > hi ? v : hi;
			lo = v < lo ? v : lo;
		}
		mx[k] = hi * 1e6;
		sum += mx[k];
		spread += (hi - lo) * 1e6;
	}
	qsort(mx, (size_t)iters, sizeof *mx, cmp_double);
	r->time_us = sum / iters;
	r->min_us = mx[0];
	r->p50_us = percentile(mx, iters, 50);
	r->p90_us = percentile(mx, iters, 90);
	r->p99_us = percentile(mx, iters, 99);
	r->max_us = mx[iters - 1];
	r->wait_spread_us = spread / iters;
	/* bytes per microsecond / 1000 = 10^9 bytes per second */
	r->algbw_GBps = r->time_us > 0 ? (double)r->bytes / r->time_us / 1e3 : 0;
	r->busbw_GBps = r->algbw_GBps * cs_nccl_busbw_factor(r->coll, P);
	free(mx);
}

/* ---- JSON lines ----------------------------------------------------------- */

/* s as a JSON string body into buf (quotes, backslashes and control
 * bytes escaped); the length needed. */
static size_t json_esc(const char *s, char *buf, size_t n)
{
	size_t k = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[8];
		int w;

		if (c == '"' || c == '\\')
			w = snprintf(tmp, sizeof tmp, "\\%c", c);
		else if (c < 0x20)
			w = snprintf(tmp, sizeof tmp, "\\u%04x", c);
		else
			w = snprintf(tmp, sizeof tmp, "%c", c);
		if (k + (size_t)w < n)
			memcpy(buf + k, tmp, (size_t)w);
		k += (size_t)w;
	}
	if (n)
		buf[k < n ? k : n - 1] = '\0';
	return k;
}

int cs_bench_rec_json(const cs_bench_rec_t *r, char *buf, size_t n)
{
	char series[6 * sizeof r->series], backend[6 * sizeof r->backend];

	json_esc(r->series, series, sizeof series);
	json_esc(r->backend, backend, sizeof backend);
	return snprintf(buf, n,
		"{\"series\": \"%s\", \"backend\": \"%s\", \"coll\": \"%s\", "
		"\"dtype\": \"%s\", \"op\": \"%s\", \"inplace\": %d, "
		"\"nranks\": %d, \"bytes\": %llu, \"count\": %llu, "
		"\"iters\": %d, \"warmup\": %d, \"time_us\": %.9g, "
		"\"min_us\": %.9g, \"p50_us\": %.9g, \"p90_us\": %.9g, "
		"\"p99_us\": %.9g, \"max_us\": %.9g, \"algbw_GBps\": %.9g, "
		"\"busbw_GBps\": %.9g, \"wait_spread_us\": %.9g, "
		"\"wrong\": %lld, \"checked\": %d, \"check_us\": %.9g}",
		series, backend, cs_coll_name(r->coll), cs_dtype_name(r->dtype),
		cs_op_name(r->op), r->inplace, r->nranks,
		(unsigned long long)r->bytes, (unsigned long long)r->count,
		r->iters, r->warmup, r->time_us, r->min_us, r->p50_us,
		r->p90_us, r->p99_us, r->max_us, r->algbw_GBps, r->busbw_GBps,
		r->wait_spread_us, r->wrong, r->checked, r->check_us);
}

/* A JSON string at *p (after its opening quote) into out; *p past it. */
static int read_string(const char **p, char *out, size_t n)
{
	const char *s = *p;
	size_t k = 0;

	for (; *s && *s != '"'; s++) {
		char c = *s;
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				unsigned v;
				if (sscanf(s + 1, "%4x", &v) != 1 || v > 0x7f)
					return 0;
				c = (char)v;
				s += 4;
			} else if (*s == '"' || *s == '\\' || *s == '/') {
				c = *s;
			} else {
				return 0;
			}
		}
		if (k + 1 >= n)
			return 0;
		out[k++] = c;
	}
	if (*s != '"')
		return 0;
	out[k] = '\0';
	*p = s + 1;
	return 1;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

/* Key k's value v (text, or a number's text) into its field of r. */
static int set_field(cs_bench_rec_t *r, const char *k, const char *v, int str)
{
	char *end = NULL;
	double d = str ? 0 : strtod(v, &end);

	if (!str && (end == v || *end))
		return 0;

#define NUM(name, field, type) \
	if (!strcmp(k, name)) { if (str) return 0; r->field = (type)d; return 1; }
	if (!strcmp(k, "series") || !strcmp(k, "backend")) {
		char *dst = k[0] == 's' ? r->series : r->backend;
		if (!str || strlen(v) >= sizeof r->series)
			return 0;
		strcpy(dst, v);
		return 1;
	}
	if (!strcmp(k, "coll"))
		return str && cs_coll_parse(v, &r->coll) == CS_OK;
	if (!strcmp(k, "dtype"))
		return str && cs_dtype_parse(v, &r->dtype) == CS_OK;
	if (!strcmp(k, "op"))
		return str && cs_op_parse(v, &r->op) == CS_OK;
	NUM("inplace", inplace, int) NUM("nranks", nranks, int)
	NUM("bytes", bytes, uint64_t) NUM("count", count, uint64_t)
	NUM("iters", iters, int) NUM("warmup", warmup, int)
	NUM("time_us", time_us, double) NUM("min_us", min_us, double)
	NUM("p50_us", p50_us, double) NUM("p90_us", p90_us, double)
	NUM("p99_us", p99_us, double) NUM("max_us", max_us, double)
	NUM("algbw_GBps", algbw_GBps, double)
	NUM("busbw_GBps", busbw_GBps, double)
	NUM("wait_spread_us", wait_spread_us, double)
	NUM("wrong", wrong, long long) NUM("checked", checked, int)
	NUM("check_us", check_us, double)
#undef NUM
	return 0;
}

cs_status_t cs_bench_rec_from_json(const char *line, cs_bench_rec_t *r)
{
	const char *p = skip_ws(line);
	char key[32], val[256];
	int nkeys = 0;

	memset(r, 0, sizeof *r);
	r->check_us = -1; /* absent from earlier releases' records */
	if (*p++ != '{')
		return cs_error(CS_ERR_INVALID, "bench record: not a JSON object");
	for (p = skip_ws(p); *p != '}'; p = skip_ws(p)) {
		int str;
		if (nkeys && *p++ != ',')
			return cs_error(CS_ERR_INVALID, "bench record: ',' "
					"expected after key %d", nkeys);
		p = skip_ws(p);
		if (*p++ != '"' || !read_string(&p, key, sizeof key))
			return cs_error(CS_ERR_INVALID, "bench record: a key "
					"expected");
		p = skip_ws(p);
		if (*p++ != ':')
			return cs_error(CS_ERR_INVALID, "bench record: ':' "
					"expected after \"%s\"", key);
		p = skip_ws(p);
		str = *p == '"';
		if (str)
			p++;
		if (str ? !read_string(&p, val, sizeof val)
			: sscanf(p, "%255[-+.0-9eE]", val) != 1)
			return cs_error(CS_ERR_INVALID, "bench record: bad value "
					"of \"%s\"", key);
		if (!str)
			p += strlen(val);
		if (!set_field(r, key, val, str))
			return cs_error(CS_ERR_INVALID, "bench record: bad key or "
					"value \"%s\": %s", key, val);
		nkeys++;
	}
	if (nkeys != 23 && nkeys != 22)
		return cs_error(CS_ERR_INVALID, "bench record: %d keys, 23 "
				"expected (22 without check_us)", nkeys);
	return CS_OK;
}

/* ---- CSV ---------------------------------------------------------------- */

void cs_bench_csv_header(FILE *f)
{
	fputs("series,backend,coll,dtype,op,inplace,nranks,bytes,count,iters,"
	      "warmup,time_us,min_us,p50_us,p90_us,p99_us,max_us,algbw_GBps,"
	      "busbw_GBps,wait_spread_us,wrong,checked,check_us\n", f);
}

/* s as one CSV field (RFC 4180: quoted when it holds , " or a newline). */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void cs_bench_rec_csv(FILE *f, const cs_bench_rec_t *r)
{
	csv_field(f, r->series);
	fputc(',', f);
	csv_field(f, r->backend);
	fprintf(f, ",%s,%s,%s,%d,%d,%llu,%llu,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,"
		"%.9g,%.9g,%.9g,%.9g,%lld,%d,%.9g\n", cs_coll_name(r->coll),
		cs_dtype_name(r->dtype), cs_op_name(r->op), r->inplace,
		r->nranks, (unsigned long long)r->bytes,
		(unsigned long long)r->count, r->iters, r->warmup, r->time_us,
		r->min_us, r->p50_us, r->p90_us, r->p99_us, r->max_us,
		r->algbw_GBps, r->busbw_GBps, r->wait_spread_us, r->wrong,
		r->checked, r->check_us);
}

static cs_status_t close_ok(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad)
		return cs_error(CS_ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
	return CS_OK;
}

cs_status_t cs_bench_write_json(const char *path, const cs_bench_rec_t *r,
				size_t n)
{
	FILE *f = fopen(path, "w");
	char line[2048];
	size_t i;

	if (!f)
		return cs_error(CS_ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
	for (i = 0; i < n; i++) {
		cs_bench_rec_json(&r[i], line, sizeof line);
		fprintf(f, "%s\n", line);
	}
	return close_ok(f, path);
}

cs_status_t cs_bench_write_csv(const char *path, const cs_bench_rec_t *r,
			       size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return cs_error(CS_ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
	cs_bench_csv_header(f);
	for (i = 0; i < n; i++)
		cs_bench_rec_csv(f, &r[i]);
	return close_ok(f, path);
}

/* ---- the table ------------------------------------------------------------ */

/* The record of (series, nranks, bytes, inplace), or NULL. */
static const cs_bench_rec_t *find(const cs_bench_rec_t *r, size_t n,
				  const char *series, int P, uint64_t bytes,
				  int ip)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(r[i].series, series) && r[i].nranks == P &&
		    r[i].bytes == bytes && r[i].inplace == ip)
			return &r[i];
	return NULL;
}

static void cols(FILE *f, const cs_bench_rec_t *r)
{
	if (!r) {
		fprintf(f, " %9s %7s %7s %6s %9s %9s %8s %9s", "-", "-", "-",
			"-", "-", "-", "-", "-");
		return;
	}
	fprintf(f, " %9.2f %7.2f %7.2f %6lld %9.2f %9.2f %8.2f", r->time_us,
		r->algbw_GBps, r->busbw_GBps, r->wrong, r->p50_us, r->p99_us,
		r->wait_spread_us);
	if (r->check_us >= 0)
		fprintf(f, " %9.2f", r->check_us);
	else
		fprintf(f, " %9s", "-");
}

void cs_bench_table(FILE *f, const cs_bench_rec_t *r, size_t n,
		    const char *series, int P)
{
	double bus = 0;
	size_t i, rows = 0, nb = 0;
	const char *grp = "     time   algbw   busbw #wrong       p50       p99"
			  "   spread     check";

	fprintf(f, "# series %s, %d ranks\n", series, P);
	fprintf(f, "# %12s %12s %9s %6s      %-69s%s\n", "", "", "", "",
		"out-of-place", "in-place");
	fprintf(f, "# %12s %12s %9s %6s %s%s\n", "size", "count", "type",
		"redop", grp, grp);
	fprintf(f, "# %12s %12s %9s %6s %s%s\n", "(B)", "(elements)", "", "",
		"      (us)  (GB/s)  (GB/s)             (us)      (us)     (us)"
		"      (us)",
		"      (us)  (GB/s)  (GB/s)             (us)      (us)     (us)"
		"      (us)");
	for (i = 0; i < n; i++) {
		const cs_bench_rec_t *oop, *ip;
		if (strcmp(r[i].series, series) || r[i].nranks != P)
			continue;
		oop = find(r, n, series, P, r[i].bytes, 0);
		ip = find(r, n, series, P, r[i].bytes, 1);
		if ((oop ? oop : ip) != &r[i])
			continue; /* the row is printed at its first record */
		fprintf(f, "  %12llu %12llu %9s %6s", (unsigned long long)r[i].bytes,
			(unsigned long long)r[i].count, cs_dtype_name(r[i].dtype),
			cs_op_name(r[i].op));
		cols(f, oop);
		cols(f, ip);
		fputc('\n', f);
		rows++;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(r[i].series, series) && r[i].nranks == P) {
			bus += r[i].busbw_GBps;
			nb++;
		}
	if (rows)
		fprintf(f, "# Avg bus bandwidth    : %g GB/s (%s, %d ranks)\n",
			bus / (double)nb, series, P);
}
