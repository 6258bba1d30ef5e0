/*
 * names.c - names of the harness's enumerations, filters, and the JSON form
 * of a result (see harness.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

struct hname {
	const char *name, *desc;
};

#define CS_HNAME_(ID, name, desc) {#name, desc},
static const struct hname commvars[] = {CS_COMMVAR_LIST(CS_HNAME_)};
static const struct hname a2avs[] = {CS_A2AV_LIST(CS_HNAME_)};
#undef CS_HNAME_

static const char *const verdicts[CS_NUM_VERDICTS] = {
	"PASS", "INFO", "SKIP", "WARN", "FAIL", "XFAIL", "XPASS"};

void cs_filter_init(cs_filter_t *f)
{
	memset(f, 0, sizeof *f);
	f->inplace = -1;
	f->root = -1;
	f->misalign = -1;
}

const char *cs_commvar_name(cs_commvar_t v)
{
	return (unsigned)v < CS_NUM_COMMVARS ? commvars[v].name : "?";
}

const char *cs_commvar_desc(cs_commvar_t v)
{
	return (unsigned)v < CS_NUM_COMMVARS ? commvars[v].desc : "?";
}

const char *cs_a2av_name(cs_a2av_pattern_t p)
{
	return (unsigned)p < CS_NUM_A2AV ? a2avs[p].name : "?";
}

const char *cs_a2av_desc(cs_a2av_pattern_t p)
{
	return (unsigned)p < CS_NUM_A2AV ? a2avs[p].desc : "?";
}

const char *cs_verdict_name(cs_verdict_t v)
{
	return (unsigned)v < CS_NUM_VERDICTS ? verdicts[v] : "?";
}

/* Index of name in table[0..n), or an error listing the valid names. */
static cs_status_t find_name(const char *what, const char *name,
			     const struct hname *table, int n, int *out)
{
	char list[256];
	size_t used = 0;
	int i;

	for (i = 0; name && i < n; i++) {
		if (strcmp(table[i].name, name) == 0) {
			*out = i;
			return CS_OK;
		}
	}
	list[0] = '\0';
	for (i = 0; i < n && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used,
					 "%s%s", i ? " " : "", table[i].name);
	return cs_error(CS_ERR_INVALID, "unknown %s '%s'; valid %ss: %s", what,
			name ? name : "(null)", what, list);
}

cs_status_t cs_commvar_parse(const char *s, cs_commvar_t *out)
{
	int i = 0;
	cs_status_t st = find_name("comm variant", s, commvars,
				   CS_NUM_COMMVARS, &i);

	if (st == CS_OK)
		*out = (cs_commvar_t)i;
	return st;
}

cs_status_t cs_a2av_parse(const char *s, cs_a2av_pattern_t *out)
{
	int i = 0;
	cs_status_t st = find_name("alltoallv pattern", s, a2avs, CS_NUM_A2AV,
				   &i);

	if (st == CS_OK)
		*out = (cs_a2av_pattern_t)i;
	return st;
}

cs_status_t cs_verdict_parse(const char *s, cs_verdict_t *out)
{
	int i;

	for (i = 0; s && i < CS_NUM_VERDICTS; i++) {
		if (strcmp(verdicts[i], s) == 0) {
			*out = (cs_verdict_t)i;
			return CS_OK;
		}
	}
	return cs_error(CS_ERR_INVALID, "unknown verdict '%s'; valid verdicts: "
			"PASS INFO SKIP WARN FAIL XFAIL XPASS", s ? s : "(null)");
}

/* ---- JSON ---------------------------------------------------------------- */

/* Bounded writer: keeps counting past the end, as snprintf does. */
struct jw {
	char *buf;
	size_t n, used;
	int nkeys;
};

static void jw_putc(struct jw *w, char ch)
{
	if (w->used + 1 < w->n)
		w->buf[w->used] = ch;
	w->used++;
}

static void jw_puts(struct jw *w, const char *s)
{
	while (*s)
		jw_putc(w, *s++);
}

/* Contract in harness.h. */
int cs_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* the second byte's range excludes overlongs, surrogates and code
	 * points above U+10FFFF (Unicode, table 3-7) */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/*
 * A JSON string literal. Quotes, backslashes and control bytes are
 * escaped; valid UTF-8 is copied; every byte that is not part of a valid
 * UTF-8 sequence is written as \u00XX with XX its value, so that the line
 * is valid UTF-8 (cs_result_from_json reads it back as that byte).
 */
static void jw_str(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	int len;

	jw_putc(w, '"');
	while (*p) {
		len = cs_utf8_len((const char *)p);
		if (len > 1) {
			while (len--)
				jw_putc(w, (char)*p++);
			continue;
		}
		if (*p == '"' || *p == '\\') {
			jw_putc(w, '\\');
			jw_putc(w, (char)*p);
		} else if (*p == '\n') {
			jw_puts(w, "\\n");
		} else if (*p == '\t') {
			jw_puts(w, "\\t");
		} else if (*p < 0x20 || *p == 0x7f || len == 0) {
			jw_puts(w, "\\u00");
			jw_putc(w, hex[*p >> 4]);
			jw_putc(w, hex[*p & 15]);
		} else {
			jw_putc(w, (char)*p);
		}
		p++;
	}
	jw_putc(w, '"');
}

char *cs_json_quote(const char *s)
{
	struct jw w = {NULL, 0, 0, 0};
	char *buf;

	jw_str(&w, s);
	buf = malloc(w.used + 1);
	if (!buf)
		return NULL;
	w.buf = buf;
	w.n = w.used + 1;
	w.used = 0;
	jw_str(&w, s);
	buf[w.used] = '\0';
	return buf;
}

static void jw_key(struct jw *w, const char *key)
{
	jw_putc(w, w->nkeys++ ? ',' : '{');
	jw_str(w, key);
	jw_putc(w, ':');
}

static void jw_kstr(struct jw *w, const char *key, const char *val)
{
	jw_key(w, key);
	jw_str(w, val);
}

static void jw_knum(struct jw *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void jw_knum(struct jw *w, const char *key, const char *fmt, ...)
{
	char num[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(num, sizeof num, fmt, ap);
	va_end(ap);
	jw_key(w, key);
	jw_puts(w, num);
}

int cs_result_to_json(const cs_result_t *r, char *buf, size_t n)
{
	const cs_case_t *c = &r->hc.c;
	struct jw w = {buf, n, 0, 0};

	jw_knum(&w, "index", "%zu", r->hc.index);
	jw_kstr(&w, "coll", cs_coll_name(c->coll));
	jw_kstr(&w, "dtype", cs_dtype_name(c->dtype));
	jw_kstr(&w, "op", cs_op_name(c->op));
	jw_kstr(&w, "mode", cs_mode_name(c->mode));
	jw_knum(&w, "nranks", "%d", c->nranks);
	jw_knum(&w, "root", "%d", c->root);
	jw_knum(&w, "count", "%zu", c->count);
	jw_knum(&w, "seed", "%llu", (unsigned long long)c->seed);
	jw_knum(&w, "a2av_gap", "%zu", c->a2av_gap);
	jw_knum(&w, "inplace", "%d", r->hc.inplace);
	jw_kstr(&w, "comm", cs_commvar_name(r->hc.comm));
	jw_knum(&w, "misalign", "%d", r->hc.misalign);
	jw_kstr(&w, "a2av_pattern", cs_a2av_name(r->hc.a2av_pattern));
	jw_kstr(&w, "backend", r->backend);
	jw_kstr(&w, "verdict", cs_verdict_name(r->verdict));
	jw_kstr(&w, "check", r->check);
	jw_kstr(&w, "reason", r->reason);
	jw_kstr(&w, "detail", r->detail);
	jw_kstr(&w, "info", r->info);
	jw_kstr(&w, "repro", r->repro);
	jw_knum(&w, "elems_checked", "%zu", r->elems_checked);
	jw_knum(&w, "bytes_checked", "%zu", r->bytes_checked);
	jw_knum(&w, "seconds", "%.9g", r->seconds);
	jw_putc(&w, '}');
	if (n)
		buf[w.used < n ? w.used : n - 1] = '\0';
	return (int)w.used;
}

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
 * (jw_str) uses them for bytes that are not UTF-8, so a string goes
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

/* Named enumerations of a result. */
static cs_status_t apply_enum(cs_result_t *r, const char *k, const char *v,
			      int *done)
{
	cs_case_t *c = &r->hc.c;

	*done = 1;
	if (!strcmp(k, "coll"))
		return cs_coll_parse(v, &c->coll);
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

/* ---- reproducer ----------------------------------------------------------- */

/* Bytes a shell word may hold unquoted. */
static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%";

/* 1 when s holds a control byte or a byte that is not valid UTF-8. */
static int needs_printf(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int len;

	for (; *p; p += len) {
		len = cs_utf8_len((const char *)p);
		if (!len || *p < 0x20 || *p == 0x7f)
			return 1;
	}
	return 0;
}

/*
 * s as one shell word that gives s back byte for byte, written in
 * printable ASCII and valid UTF-8 only (the re-run line travels in JSON
 * and XML): unchanged when every byte is plain; in single quotes (a quote
 * as '\'') when it is text; otherwise "$(printf 'F')" with every byte other
 * than printable ASCII, quote, backslash, percent and a leading '-'
 * written as \ooo. At most 4 bytes per byte of s, plus 14. (Command
 * substitution drops trailing newlines: the CLI refuses control bytes in
 * what it quotes.)
 */
static void shell_word(struct jw *w, const char *s)
{
	const unsigned char *p;
	char oct[5];

	if (*s && strspn(s, plain_chars) == strlen(s)) {
		jw_puts(w, s);
		return;
	}
	if (!needs_printf(s)) {
		jw_putc(w, '\'');
		for (p = (const unsigned char *)s; *p; p++) {
			if (*p == '\'')
				jw_puts(w, "'\\''");
			else
				jw_putc(w, (char)*p);
		}
		jw_putc(w, '\'');
		return;
	}
	jw_puts(w, "\"$(printf '");
	for (p = (const unsigned char *)s; *p; p++) {
		/* (a leading '-' would read as an option of printf) */
		if (*p >= 0x20 && *p < 0x7f && !strchr("'\\%", *p) &&
		    (*p != '-' || p != (const unsigned char *)s)) {
			jw_putc(w, (char)*p);
			continue;
		}
		snprintf(oct, sizeof oct, "\\%03o", *p);
		jw_puts(w, oct);
	}
	jw_puts(w, "')\"");
}

/* " --NAME VALUE" with VALUE an integer. */
static void opt_num(struct jw *w, const char *name, unsigned long long v)
{
	char num[32];

	snprintf(num, sizeof num, " %llu", v);
	jw_puts(w, name);
	jw_puts(w, num);
}

static void opt_word(struct jw *w, const char *name, const char *v)
{
	jw_puts(w, name);
	jw_putc(w, ' ');
	shell_word(w, v);
}

/* Contract in collspec.h. */
int cs_repro_format(const cs_hcase_t *hc, int world, const char *backend,
		    const char *backend_opt, const char *suite, char *buf,
		    size_t n)
{
	const cs_case_t *c = &hc->c;
	struct jw w = {buf, n, 0, 0};

	opt_num(&w, "collspec run --ranks", (unsigned long long)world);
	opt_word(&w, " --backend", backend);
	if (backend_opt && *backend_opt)
		opt_word(&w, " --backend-opt", backend_opt);
	opt_word(&w, " --suite", suite);
	opt_word(&w, " --coll", cs_coll_name(c->coll));
	opt_word(&w, " --dtype", cs_dtype_name(c->dtype));
	if (cs_coll_reduces(c->coll))
		opt_word(&w, " --op", cs_op_name(c->op));
	opt_word(&w, " --mode", cs_mode_name(c->mode));
	opt_num(&w, " --count", c->count);
	opt_num(&w, " --inplace", (unsigned long long)hc->inplace);
	opt_word(&w, " --comm", cs_commvar_name(hc->comm));
	if (cs_coll_rooted(c->coll))
		opt_num(&w, " --root", (unsigned long long)c->root);
	opt_num(&w, " --misalign", (unsigned long long)hc->misalign);
	if (c->coll == CS_COLL_ALLTOALLV)
		opt_word(&w, " --a2av-pattern", cs_a2av_name(hc->a2av_pattern));
	opt_num(&w, " --seed", c->seed);
	/* a cut line would re-run something else: none at all instead */
	if (n)
		buf[w.used < n ? w.used : 0] = '\0';
	return (int)w.used;
}
