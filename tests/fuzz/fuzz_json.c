/*
 * fuzz_json.c - JSON result lines: cs_result_from_json on any text, and
 * the round trip through cs_result_to_json.
 *
 * Properties: parsing never crashes, leaks or reads past the text; a text
 * that parses to result r1 re-encodes (cs_result_to_json) to one line of
 * valid UTF-8 without control bytes (harness.h: whatever bytes the strings
 * hold), whose length is what the encoder returned, and that parses to a
 * result equal to r1 in every field (seconds, printed with 9 significant
 * digits, is compared through its text: encoding the second result gives
 * the same line again).
 */
#include <stdlib.h>
#include <string.h>
#include "collspec.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cs_result_t r1, r2;
	char *s = cs_fuzz_str(data, size), *t1 = NULL, *t2 = NULL;
	cs_status_t st;

	if (!s)
		return 0;
	if (cs_result_from_json(s, &r1) != CS_OK)
		goto out_free_s;
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
