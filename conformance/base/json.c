/*
 * json.c - the JSON Lines form of a result (json.h), written: a bounded
 * writer (jw_*) of one object; json_read.c reads it back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/hcase.h"

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

/* Contract in json.h. */
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

/* Contract in json.h. */
int cs_result_to_json(const cs_result_t *r, char *buf, size_t n)
{
	const cs_case_t *c = &r->hc.c;
	struct jw w = {buf, n, 0, 0};

	jw_knum(&w, "index", "%zu", r->hc.index);
	/* a pattern case: "coll" is "pattern", and its pattern, variant,
	 * grid and volumes follow */
	jw_kstr(&w, "coll", r->hc.pattern ? "pattern" : cs_coll_name(c->coll));
	if (r->hc.pattern) {
		jw_kstr(&w, "pattern", cs_hcase_pattern(&r->hc)
					       ? cs_hcase_pattern(&r->hc)->name
					       : "?");
		jw_kstr(&w, "variant", cs_hcase_variant(&r->hc));
		jw_kstr(&w, "grid", r->grid);
		jw_kstr(&w, "volume", r->volume);
	}
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
	if (r->peak_rss)
		jw_knum(&w, "peak_rss", "%llu", (unsigned long long)r->peak_rss);
	jw_putc(&w, '}');
	if (n)
		buf[w.used < n ? w.used : n - 1] = '\0';
	return (int)w.used;
}
