/*
 * json_read.c - the JSON Lines form of a result (json.h), read: one
 * object of scalar values (jr_*), each key stored into its field of the
 * result. json.c writes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/hcase.h"

/* Reader over one JSON object of scalar values. */
struct jr {
	const char *p;
};

static void jr_ws(struct jr *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

/* Append code point cp as UTF-8 to out (bounded by n, NUL kept). */
static void put_utf8(char *out, size_t n, size_t *k, unsigned cp)
{
	unsigned char b[4];
	int len, i;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		len = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		len = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		len = 4;
	}
	for (i = 0; i < len; i++)
		if (*k + 1 < n)
			out[(*k)++] = (char)b[i];
}

/* Four hex digits at p; -1 when they are not. */
static long hex4(const char *p)
{
	long cp = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char ch = p[i];
		int v = ch >= '0' && ch <= '9' ? ch - '0'
			: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (v < 0)
			return -1;
		cp = cp << 4 | v;
	}
	return cp;
}

/*
 * The code point of a \u escape at r->p (after the 'u'), a surrogate pair
 * joined; -1 when malformed. A lone surrogate or U+0000 reads as U+FFFD.
 */
static long jr_codepoint(struct jr *r)
{
	long cp = hex4(r->p), lo;

	if (cp < 0)
		return -1;
	r->p += 4;
	if (cp >= 0xd800 && cp <= 0xdbff && r->p[0] == '\\' &&
	    r->p[1] == 'u' && (lo = hex4(r->p + 2)) >= 0xdc00 && lo <= 0xdfff) {
		r->p += 6;
		return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0)
		return 0xfffd;
	return cp;
}

/*
 * One escape after the backslash; returns 0 or -1 on a bad escape.
 * \u0080 to \u00ff are read as the single byte of that value: the writer
 * (json.c's jw_str) uses them for bytes that are not UTF-8, so a string goes
 * through its JSON form byte for byte.
 */
static int jr_escape(struct jr *r, char *out, size_t n, size_t *k)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = strchr(from, *r->p);
	long cp;

	if (*r->p && e) {
		put_utf8(out, n, k, (unsigned char)to[e - from]);
		r->p++;
		return 0;
	}
	if (*r->p != 'u')
		return -1;
	r->p++;
	if ((cp = jr_codepoint(r)) < 0)
		return -1;
	if (cp >= 0x80 && cp <= 0xff) {
		if (*k + 1 < n)
			out[(*k)++] = (char)cp;
	} else {
		put_utf8(out, n, k, (unsigned)cp);
	}
	return 0;
}

/* A string literal into out[0..n) (truncated, NUL-terminated). */
static cs_status_t jr_string(struct jr *r, char *out, size_t n)
{
	size_t k = 0;

	if (*r->p != '"')
		return cs_error(CS_ERR_INVALID, "JSON: expected a string at '%.20s'",
				r->p);
	r->p++;
	while (*r->p && *r->p != '"') {
		if (*r->p == '\\') {
			r->p++;
			if (jr_escape(r, out, n, &k))
				return cs_error(CS_ERR_INVALID,
						"JSON: bad escape at '%.20s'", r->p);
			continue;
		}
		if (k + 1 < n)
			out[k++] = *r->p;
		r->p++;
	}
	if (*r->p != '"')
		return cs_error(CS_ERR_INVALID, "JSON: unterminated string");
	r->p++;
	if (n)
		out[k] = '\0';
	return CS_OK;
}

/* A string or a bare token (number, true, false, null) into out. */
static cs_status_t jr_value(struct jr *r, char *out, size_t n)
{
	size_t k = 0;

	if (*r->p == '"')
		return jr_string(r, out, n);
	while (*r->p && strchr(",}] \t\r\n", *r->p) == NULL) {
		if (k + 1 < n)
			out[k++] = *r->p;
		r->p++;
	}
	if (k == 0)
		return cs_error(CS_ERR_INVALID, "JSON: expected a value at '%.20s'",
				r->p);
	out[k] = '\0';
	return CS_OK;
}

static cs_status_t parse_u64(const char *key, const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-')
		return cs_error(CS_ERR_INVALID, "JSON: '%s' is not a count: '%s'",
				key, v);
	*out = x;
	return CS_OK;
}

static cs_status_t parse_int(const char *key, const char *v, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < -2147483647L || x > 2147483647L)
		return cs_error(CS_ERR_INVALID, "JSON: '%s' is not an integer: '%s'",
				key, v);
	*out = (int)x;
	return CS_OK;
}

/* Copy value v of key k into dst[0..n); a value too long for the field
 * (never one cs_result_to_json wrote) is an error, not cut. */
static cs_status_t copy_str(char *dst, size_t n, const char *k, const char *v)
{
	size_t len = strlen(v);

	if (len >= n)
		return cs_error(CS_ERR_INVALID, "JSON: '%s' holds %zu bytes, "
				"more than a result's %zu", k, len, n - 1);
	memcpy(dst, v, len + 1);
	return CS_OK;
}

/* "pattern": the registry's pattern of that name. */
static cs_status_t pattern_of(cs_result_t *r, const char *v)
{
	const cs_pattern_t *p = cs_pattern_find(v);
	if (!p)
		return cs_error(CS_ERR_INVALID, "JSON: unknown pattern '%s'", v);
	r->hc.pattern = cs_pattern_index(p) + 1;
	return CS_OK;
}

/* "variant", after "pattern": the index of that variant. */
static cs_status_t variant_of(cs_result_t *r, const char *v)
{
	const cs_pattern_t *p = cs_hcase_pattern(&r->hc);
	for (int i = 0; p && i < p->nvariants; i++)
		if (!strcmp(p->variants[i], v)) {
			r->hc.pvariant = i;
			return CS_OK;
		}
	return cs_error(CS_ERR_INVALID, "JSON: variant '%s' of no pattern "
			"given before it", v);
}

/* Named enumerations of a result. */
static cs_status_t apply_enum(cs_result_t *r, const char *k, const char *v,
			      int *done)
{
	cs_case_t *c = &r->hc.c;

	*done = 1;
	if (!strcmp(k, "coll") && !strcmp(v, "pattern")) {
		c->coll = CS_NUM_COLLS;
		return CS_OK;
	}
	if (!strcmp(k, "coll"))
		return cs_coll_parse(v, &c->coll);
	if (!strcmp(k, "pattern"))
		return pattern_of(r, v);
	if (!strcmp(k, "variant"))
		return variant_of(r, v);
	if (!strcmp(k, "dtype"))
		return cs_dtype_parse(v, &c->dtype);
	if (!strcmp(k, "op"))
		return cs_op_parse(v, &c->op);
	if (!strcmp(k, "mode"))
		return cs_mode_parse(v, &c->mode);
	if (!strcmp(k, "comm"))
		return cs_commvar_parse(v, &r->hc.comm);
	if (!strcmp(k, "a2av_pattern"))
		return cs_a2av_parse(v, &r->hc.a2av_pattern);
	if (!strcmp(k, "verdict"))
		return cs_verdict_parse(v, &r->verdict);
	*done = 0;
	return CS_OK;
}

/* Numbers of a result. */
static cs_status_t apply_num(cs_result_t *r, const char *k, const char *v,
			     int *done)
{
	cs_case_t *c = &r->hc.c;
	uint64_t u = 0;
	cs_status_t st = CS_OK;

	*done = 1;
	if (!strcmp(k, "nranks"))
		return parse_int(k, v, &c->nranks);
	if (!strcmp(k, "root"))
		return parse_int(k, v, &c->root);
	if (!strcmp(k, "inplace"))
		return parse_int(k, v, &r->hc.inplace);
	if (!strcmp(k, "misalign"))
		return parse_int(k, v, &r->hc.misalign);
	if (!strcmp(k, "seconds")) {
		char *end;
		r->seconds = strtod(v, &end);
		return *end ? cs_error(CS_ERR_INVALID, "JSON: bad seconds '%s'", v)
			    : CS_OK;
	}
	if (!strcmp(k, "index"))
		st = parse_u64(k, v, &u), r->hc.index = (size_t)u;
	else if (!strcmp(k, "count"))
		st = parse_u64(k, v, &u), c->count = (size_t)u;
	else if (!strcmp(k, "seed"))
		st = parse_u64(k, v, &c->seed);
	else if (!strcmp(k, "a2av_gap"))
		st = parse_u64(k, v, &u), c->a2av_gap = (size_t)u;
	else if (!strcmp(k, "elems_checked"))
		st = parse_u64(k, v, &u), r->elems_checked = (size_t)u;
	else if (!strcmp(k, "bytes_checked"))
		st = parse_u64(k, v, &u), r->bytes_checked = (size_t)u;
	else if (!strcmp(k, "peak_rss"))
		st = parse_u64(k, v, &r->peak_rss);
	else
		*done = 0;
	return st;
}

/* Store one key's value; unknown keys are ignored. */
static cs_status_t apply_key(cs_result_t *r, const char *k, const char *v)
{
	int done;
	cs_status_t st = apply_enum(r, k, v, &done);

	if (done)
		return st;
	st = apply_num(r, k, v, &done);
	if (done)
		return st;
	if (!strcmp(k, "backend"))
		return copy_str(r->backend, sizeof r->backend, k, v);
	if (!strcmp(k, "check"))
		return copy_str(r->check, sizeof r->check, k, v);
	if (!strcmp(k, "reason"))
		return copy_str(r->reason, sizeof r->reason, k, v);
	if (!strcmp(k, "detail"))
		return copy_str(r->detail, sizeof r->detail, k, v);
	if (!strcmp(k, "info"))
		return copy_str(r->info, sizeof r->info, k, v);
	if (!strcmp(k, "repro"))
		return copy_str(r->repro, sizeof r->repro, k, v);
	if (!strcmp(k, "grid"))
		return copy_str(r->grid, sizeof r->grid, k, v);
	if (!strcmp(k, "volume"))
		return copy_str(r->volume, sizeof r->volume, k, v);
	return CS_OK;
}

/* The members of the object at rd->p (after its '{') into r; val holds
 * any value of the line. */
static cs_status_t jr_members(struct jr *rd, cs_result_t *r, char *val,
			      size_t n)
{
	char key[64];
	int have_verdict = 0;
	cs_status_t st;

	for (jr_ws(rd); *rd->p != '}';) {
		if ((st = jr_string(rd, key, sizeof key)) != CS_OK)
			return st;
		jr_ws(rd);
		if (*rd->p++ != ':')
			return cs_error(CS_ERR_INVALID, "JSON: expected ':' after "
					"'%s'", key);
		jr_ws(rd);
		if ((st = jr_value(rd, val, n)) != CS_OK ||
		    (st = apply_key(r, key, val)) != CS_OK)
			return st;
		have_verdict |= !strcmp(key, "verdict");
		jr_ws(rd);
		if (*rd->p == ',')
			rd->p++, jr_ws(rd);
		else if (*rd->p != '}')
			return cs_error(CS_ERR_INVALID, "JSON: expected ',' or '}' "
					"at '%.20s'", rd->p);
	}
	rd->p++;
	jr_ws(rd);
	if (*rd->p)
		return cs_error(CS_ERR_INVALID, "JSON: text after the object");
	if (!have_verdict)
		return cs_error(CS_ERR_INVALID, "JSON: the result has no verdict");
	return CS_OK;
}

/* Contract in json.h. */
cs_status_t cs_result_from_json(const char *line, cs_result_t *r)
{
	struct jr rd = {line};
	cs_status_t st;
	size_t n;
	char *val;

	if (!line || !r)
		return cs_error(CS_ERR_INVALID, "cs_result_from_json: NULL argument");
	memset(r, 0, sizeof *r);
	r->hc.c.op = CS_OP_NONE;
	jr_ws(&rd);
	if (*rd.p++ != '{')
		return cs_error(CS_ERR_INVALID, "JSON: a result must be an object");
	n = strlen(line) + 1; /* no value is longer than its line */
	val = malloc(n);
	if (!val)
		return cs_error(CS_ERR_NOMEM, "JSON: out of memory");
	st = jr_members(&rd, r, val, n);
	free(val);
	return st;
}
