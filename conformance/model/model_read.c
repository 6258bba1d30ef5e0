/*
 * model_read.c - the reader of collspec bench's JSON lines for `collspec
 * model --fit` (model.h): one flat object per line with exactly the keys
 * of conformance/base/bench_rec.h, strict, each error naming the key or column.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"

/* The keys of bench_rec.h, in its order. */
static const char *const keys[] = {
	"series", "backend", "coll", "dtype", "op", "inplace", "nranks",
	"bytes", "count", "iters", "warmup", "time_us", "min_us", "p50_us",
	"p90_us", "p99_us", "max_us", "algbw_GBps", "busbw_GBps",
	"wait_spread_us", "wrong", "checked", "check_us",
};

/* check_us came later: a record without it is read with -1 */
#define OPTIONAL_KEY 22

#define NUM_KEYS (sizeof keys / sizeof keys[0])
#define MAX_VAL 128

struct rd {
	const char *s, *p; /* the line, the cursor */
};

static void ws(struct rd *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n')
		r->p++;
}

static cs_status_t bad(const struct rd *r, const char *what)
{
	return cs_error(CS_ERR_INVALID, "column %d: %s",
			(int)(r->p - r->s) + 1, what);
}

/* A JSON string into out (at most MAX_VAL - 1 bytes); escapes \" \\ \/
 * \b \f \n \r \t and \u0001 to \u00ff (one byte; \u0000 refused). */
static cs_status_t read_string(struct rd *r, char *out)
{
	size_t k = 0;
	unsigned v;

	if (*r->p != '"')
		return bad(r, "expected a string");
	for (r->p++; *r->p != '"'; r->p++) {
		char c = *r->p;

		if (!c || (unsigned char)c < 0x20)
			return bad(r, "unterminated string or control byte");
		if (c == '\\') {
			const char *e = strchr("\"\\/bfnrt", *++r->p);

			if (*r->p == 'u' &&
			    strspn(r->p + 1, "0123456789abcdefABCDEF") >= 4 &&
			    sscanf(r->p + 1, "00%2x", &v) == 1 && v) {
				c = (char)v;
				r->p += 4;
			} else if (e && *r->p) {
				c = "\"\\/\b\f\n\r\t"[e - "\"\\/bfnrt"];
			} else {
				return bad(r, "bad escape in a string");
			}
		}
		if (k + 1 >= MAX_VAL)
			return bad(r, "string too long");
		out[k++] = c;
	}
	r->p++;
	out[k] = '\0';
	return CS_OK;
}

/* A JSON number's text (its grammar checked) into out. */
static cs_status_t read_number(struct rd *r, char *out)
{
	const char *q = r->p;
	size_t len;

	if (*q == '-')
		q++;
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		q += strspn(q, "0123456789");
	else
		return bad(r, "expected a value (string or number)");
	if (*q == '.' && !(q[1] >= '0' && q[1] <= '9'))
		return bad(r, "bad number");
	if (*q == '.')
		q += 1 + strspn(q + 1, "0123456789");
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!(*q >= '0' && *q <= '9'))
			return bad(r, "bad exponent");
		q += strspn(q, "0123456789");
	}
	len = (size_t)(q - r->p);
	if (len >= MAX_VAL)
		return bad(r, "number too long");
	memcpy(out, r->p, len);
	out[len] = '\0';
	r->p = q;
	return CS_OK;
}

static int key_index(const char *k)
{
	size_t i;

	for (i = 0; i < NUM_KEYS; i++)
		if (!strcmp(k, keys[i]))
			return (int)i;
	return -1;
}

/* Integer key k's text v within [lo, hi]. */
static cs_status_t as_int(const char *k, const char *v, double lo, double hi,
			  double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (*v == '"' || *end || errno || d != floor(d) || d < lo || d > hi)
		return cs_error(CS_ERR_INVALID, "\"%s\": %s is not an integer "
				"from %.0f to %.0f", k, v, lo, hi);
	*out = d;
	return CS_OK;
}

/* v into dst[0..n), never cut: too long is an error. */
static cs_status_t copy_str(const char *k, const char *v, char *dst, size_t n)
{
	size_t len = strlen(v);

	if (len >= n)
		return cs_error(CS_ERR_INVALID, "\"%s\": longer than %zu bytes",
				k, n - 1);
	memcpy(dst, v, len + 1);
	return CS_OK;
}

/* Store value v (is_str: it was a string) of key number i into *r. */
static cs_status_t store(cs_bench_rec_t *r, int i, const char *v, int is_str)
{
	const char *k = keys[i];
	double d = 0;
	cs_status_t st = CS_OK;

	if ((i <= 4) != is_str)
		return cs_error(CS_ERR_INVALID, "\"%s\": expected a %s", k,
				i <= 4 ? "string" : "number");
	switch (i) {
	case 0: st = copy_str(k, v, r->series, sizeof r->series); break;
	case 1: st = copy_str(k, v, r->backend, sizeof r->backend); break;
	case 2: st = cs_coll_parse(v, &r->coll); break;
	case 3: st = cs_dtype_parse(v, &r->dtype); break;
	case 4: st = cs_op_parse(v, &r->op); break;
	case 5: st = as_int(k, v, 0, 1, &d); r->inplace = (int)d; break;
	case 6: st = as_int(k, v, 1, 1 << 20, &d); r->nranks = (int)d; break;
	case 7: st = as_int(k, v, 0, 9007199254740992.0, &d);
		r->bytes = (uint64_t)d; break;
	case 8: st = as_int(k, v, 0, 9007199254740992.0, &d);
		r->count = (uint64_t)d; break;
	case 9: st = as_int(k, v, 0, 2147483647, &d); r->iters = (int)d; break;
	case 10: st = as_int(k, v, 0, 2147483647, &d); r->warmup = (int)d;
		break;
	case 20: st = as_int(k, v, -1, 9007199254740992.0, &d);
		r->wrong = (long long)d; break;
	case 21: st = as_int(k, v, 0, 1, &d); r->checked = (int)d; break;
	case 22:
		r->check_us = strtod(v, NULL);
		if (!isfinite(r->check_us) || r->check_us < -1)
			st = cs_error(CS_ERR_INVALID, "\"%s\": %s is not a time "
				      "or -1", k, v);
		break;
	default: {
		double *f[] = {&r->time_us, &r->min_us, &r->p50_us, &r->p90_us,
			       &r->p99_us, &r->max_us, &r->algbw_GBps,
			       &r->busbw_GBps, &r->wait_spread_us};

		*f[i - 11] = strtod(v, NULL);
		if (!isfinite(*f[i - 11]))
			st = cs_error(CS_ERR_INVALID, "\"%s\": %s is not "
				      "finite", k, v);
	}
	}
	return st;
}

/* One "key": value pair at the cursor, stored; seen[] marks the keys. */
static cs_status_t member(struct rd *rd, cs_bench_rec_t *r, int *seen)
{
	char k[MAX_VAL], v[MAX_VAL];
	cs_status_t st;
	int i, is_str;

	ws(rd);
	if ((st = read_string(rd, k)) != CS_OK)
		return st;
	if ((i = key_index(k)) < 0)
		return cs_error(CS_ERR_INVALID, "unknown key \"%s\" (bench_rec.h "
				"names 23 keys)", k);
	if (seen[i]++)
		return cs_error(CS_ERR_INVALID, "key \"%s\" twice", k);
	ws(rd);
	if (*rd->p != ':')
		return bad(rd, "expected ':'");
	rd->p++;
	ws(rd);
	is_str = *rd->p == '"';
	st = is_str ? read_string(rd, v) : read_number(rd, v);
	if (st != CS_OK)
		return st;
	return store(r, i, v, is_str);
}

cs_status_t cs_bench_rec_parse(const char *line, cs_bench_rec_t *r)
{
	struct rd rd = {line, line};
	int seen[NUM_KEYS] = {0};
	cs_status_t st;
	size_t i;

	if (!line || !r)
		return cs_error(CS_ERR_INVALID, "no line to read");
	memset(r, 0, sizeof *r);
	r->check_us = -1;
	ws(&rd);
	if (*rd.p != '{')
		return bad(&rd, "expected '{' (one JSON object per line)");
	rd.p++;
	do {
		if ((st = member(&rd, r, seen)) != CS_OK)
			return st;
		ws(&rd);
	} while (*rd.p == ',' && rd.p++);
	if (*rd.p != '}')
		return bad(&rd, "expected ',' or '}'");
	rd.p++;
	ws(&rd);
	if (*rd.p)
		return bad(&rd, "text after the object");
	for (i = 0; i < NUM_KEYS; i++)
		if (!seen[i] && i != OPTIONAL_KEY)
			return cs_error(CS_ERR_INVALID, "key \"%s\" missing",
					keys[i]);
	return CS_OK;
}
