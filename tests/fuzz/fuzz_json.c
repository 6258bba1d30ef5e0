/*
 * fuzz_json.c - JSON result lines: cs_result_from_json on any text, and
 * the round trip through cs_result_to_json.
 *
 * Properties: parsing never crashes, leaks or reads past the text; a text
 * that parses to result r1 re-encodes (cs_result_to_json) to one line of
 * valid UTF-8 without control bytes (result.h: whatever bytes the strings
 * hold), whose length is what the encoder returned, and that parses to a
 * result equal to r1 in every field (seconds, printed with 9 significant
 * digits, is compared through its text: encoding the second result gives
 * the same line again). And the string fields of r1 are what a model of
 * the decoding gives for the last occurrence of their key: RFC 8259
 * escapes, a surrogate pair joined, a lone surrogate or \u0000 read as
 * U+FFFD, \u0080 to \u00ff read as that single byte (json.h), every
 * other byte as it is.
 */
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/result.h"
#include "fuzz.h"

/*
 * Length of the UTF-8 sequence at p (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF), or 0 when none starts there.
 */
static int utf8_seq(const unsigned char *p)
{
	unsigned cp;
	int len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void valid_line(const char *line)
{
	const unsigned char *p = (const unsigned char *)line;
	int len;

	for (; *p; p += len) {
		CS_FUZZ_CHECK(*p >= 0x20, "control byte 0x%02x at %zu in the "
			      "line %s", *p, (size_t)(p - (const unsigned char *)
						       line), line);
		len = utf8_seq(p);
		CS_FUZZ_CHECK(len > 0, "byte %zu of the line is not UTF-8: %s",
			      (size_t)(p - (const unsigned char *)line), line);
	}
}

/* r encoded, malloc'ed; the caller frees it. */
static char *encode(const cs_result_t *r)
{
	int n = cs_result_to_json(r, NULL, 0);
	char *buf;

	CS_FUZZ_CHECK(n > 0, "cs_result_to_json returned %d", n);
	buf = malloc((size_t)n + 1);
	if (!buf)
		return NULL;
	CS_FUZZ_CHECK(cs_result_to_json(r, buf, (size_t)n + 1) == n,
		      "cs_result_to_json: two lengths for one result");
	CS_FUZZ_CHECK(strlen(buf) == (size_t)n, "cs_result_to_json wrote %zu "
		      "bytes, returned %d", strlen(buf), n);
	valid_line(buf);
	return buf;
}

#define SAME(field, fmt, cast)                                                 \
	CS_FUZZ_CHECK(a->field == b->field, "round trip changed " #field       \
		      ": " fmt " became " fmt " (line %s)", (cast)a->field,    \
		      (cast)b->field, line)
#define SAME_STR(field)                                                        \
	CS_FUZZ_CHECK(!strcmp(a->field, b->field), "round trip changed "      \
		      #field ": '%s' became '%s' (line %s)", a->field,         \
		      b->field, line)

static void same_result(const cs_result_t *a, const cs_result_t *b,
			const char *line)
{
	SAME(hc.c.coll, "%d", int);
	SAME(hc.c.dtype, "%d", int);
	SAME(hc.c.op, "%d", int);
	SAME(hc.c.mode, "%d", int);
	SAME(hc.c.nranks, "%d", int);
	SAME(hc.c.root, "%d", int);
	SAME(hc.c.count, "%zu", size_t);
	SAME(hc.c.seed, "%llu", unsigned long long);
	SAME(hc.c.a2av_gap, "%zu", size_t);
	SAME(hc.inplace, "%d", int);
	SAME(hc.comm, "%d", int);
	SAME(hc.misalign, "%d", int);
	SAME(hc.a2av_pattern, "%d", int);
	SAME(hc.index, "%zu", size_t);
	SAME(verdict, "%d", int);
	SAME(elems_checked, "%zu", size_t);
	SAME(bytes_checked, "%zu", size_t);
	SAME_STR(backend);
	SAME_STR(check);
	SAME_STR(reason);
	SAME_STR(detail);
	SAME_STR(info);
	SAME_STR(repro);
}

/* Four hex digits at p (either case), or -1. */
static long model_hex4(const char *p)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		const char *digits = "0123456789abcdef";
		char c = p[i] >= 'A' && p[i] <= 'F' ? (char)(p[i] - 'A' + 'a') : p[i];
		const char *d = c ? strchr(digits, c) : NULL;

		if (!d)
			return -1;
		v = v * 16 + (d - digits);
	}
	return v;
}

/* Code point cp as UTF-8 at out[*k...]. */
static void model_utf8(unsigned long cp, char *out, size_t *k)
{
	if (cp < 0x80) {
		out[(*k)++] = (char)cp;
		return;
	}
	if (cp < 0x800) {
		out[(*k)++] = (char)(0xc0 | cp >> 6);
	} else if (cp < 0x10000) {
		out[(*k)++] = (char)(0xe0 | cp >> 12);
		out[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3f));
	} else {
		out[(*k)++] = (char)(0xf0 | cp >> 18);
		out[(*k)++] = (char)(0x80 | (cp >> 12 & 0x3f));
		out[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3f));
	}
	out[(*k)++] = (char)(0x80 | (cp & 0x3f));
}

/* The \u escape at *p (at the 'u') into out; -1 when malformed. */
static int model_u(const char **p, char *out, size_t *k)
{
	long cp = model_hex4(*p + 1), lo = -1;

	if (cp < 0)
		return -1;
	*p += 5;
	if (cp >= 0xd800 && cp <= 0xdbff && (*p)[0] == '\\' && (*p)[1] == 'u')
		lo = model_hex4(*p + 2);
	if (lo >= 0xdc00 && lo <= 0xdfff) {
		*p += 6;
		model_utf8(0x10000 + ((unsigned long)(cp - 0xd800) << 10) +
			   (unsigned long)(lo - 0xdc00), out, k);
	} else if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
		model_utf8(0xfffd, out, k);
	} else if (cp >= 0x80 && cp <= 0xff) {
		out[(*k)++] = (char)cp;
	} else {
		model_utf8((unsigned long)cp, out, k);
	}
	return 0;
}

/* The string literal at *p (at its quote) decoded into out (room for
 * strlen(*p) + 1 bytes); advances past it. -1 when malformed. */
static int model_string(const char **p, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	size_t k = 0;

	if (**p != '"')
		return -1;
	for ((*p)++; **p && **p != '"';) {
		if (**p != '\\') {
			out[k++] = *(*p)++;
		} else if ((*p)[1] == 'u') {
			(*p)++;
			if (model_u(p, out, &k))
				return -1;
		} else if ((*p)[1] && (e = strchr(from, (*p)[1])) != NULL) {
			out[k++] = to[e - from];
			*p += 2;
		} else {
			return -1;
		}
	}
	if (**p != '"')
		return -1;
	(*p)++;
	out[k] = '\0';
	return 0;
}

static const char *model_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The string fields of a result, by key. */
static const char *const str_keys[] = {"backend", "check", "reason",
				       "detail", "info", "repro"};
#define NSTR (sizeof str_keys / sizeof str_keys[0])

static const char *str_field(const cs_result_t *r, size_t i)
{
	const char *f[NSTR] = {r->backend, r->check, r->reason, r->detail,
			       r->info, r->repro};

	return f[i];
}

/* The model's value of each string key of the object in line (want[i],
 * "" when absent; the last occurrence wins); -1 when the model cannot
 * read the object. */
static int model_object(const char *line, char **want, char *key, char *val)
{
	const char *p = model_ws(line);
	size_t i;

	if (*p++ != '{')
		return -1;
	for (p = model_ws(p); *p != '}';) {
		if (model_string(&p, key))
			return -1;
		p = model_ws(p);
		if (*p++ != ':')
			return -1;
		p = model_ws(p);
		if (*p == '"') {
			if (model_string(&p, val))
				return -1;
		} else {
			size_t k = 0;
			while (*p && !strchr(",}] \t\r\n", *p))
				val[k++] = *p++;
			val[k] = '\0';
		}
		/* memmove: want, key and val share one allocation, so GCC 12
		 * at -O3 cannot rule out an overlap for strcpy (-Wrestrict) */
		for (i = 0; i < NSTR; i++)
			if (!strcmp(key, str_keys[i]))
				memmove(want[i], val, strlen(val) + 1);
		p = model_ws(p);
		if (*p == ',')
			p = model_ws(p + 1);
		else if (*p != '}')
			return -1;
	}
	return 0;
}

/* r's string fields are the model's decoding of line. */
static void decoded_strings(const char *line, const cs_result_t *r)
{
	size_t n = strlen(line) + 1, i;
	char *buf = calloc(NSTR + 2, n), *want[NSTR];
	int rc;

	if (!buf)
		return;
	for (i = 0; i < NSTR; i++)
		want[i] = buf + i * n;
	rc = model_object(line, want, buf + NSTR * n, buf + (NSTR + 1) * n);
	CS_FUZZ_CHECK(rc == 0, "cs_result_from_json took a line the model "
		      "cannot read: %s", line);
	for (i = 0; i < NSTR; i++)
		CS_FUZZ_CHECK(!strcmp(want[i], str_field(r, i)), "%s: parsed "
			      "'%s', the model reads '%s' (line %s)",
			      str_keys[i], str_field(r, i), want[i], line);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cs_result_t r1, r2;
	char *s = cs_fuzz_str(data, size), *t1 = NULL, *t2 = NULL;
	cs_status_t st;

	if (!s)
		return 0;
	if (cs_result_from_json(s, &r1) != CS_OK)
		goto out_free_s;
	decoded_strings(s, &r1);
	t1 = encode(&r1);
	if (!t1)
		goto out_free_s;
	st = cs_result_from_json(t1, &r2);
	CS_FUZZ_CHECK(st == CS_OK, "the encoder's line does not parse (%s): %s",
		      cs_last_error(), t1);
	same_result(&r1, &r2, t1);
	t2 = encode(&r2);
	CS_FUZZ_CHECK(!t2 || !strcmp(t1, t2), "encoded twice, a result gives "
		      "two lines:\n%s\n%s", t1, t2);
	free(t2);
	free(t1);
out_free_s:
	free(s);
	return 0;
}
