/*
 * test_json.c - the JSON Lines form of a result (conformance/base/json.c,
 * json_read.c): every field through its JSON form and back, bytes that
 * are not UTF-8, the escapes of other writers, malformed lines.
 */
#include <iconv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/json.h"
#include "json_util.h"

static void fill_result(cs_result_t *r)
{
	memset(r, 0, sizeof *r);
	r->hc.c.coll = CS_COLL_ALLTOALLV;
	r->hc.c.dtype = CS_DTYPE_BFLOAT16;
	r->hc.c.op = CS_OP_NONE;
	r->hc.c.mode = CS_MODE_SPECIAL;
	r->hc.c.nranks = 7;
	r->hc.c.root = 0;
	r->hc.c.count = (size_t)1 << 33;
	r->hc.c.seed = 0xfedcba9876543210ull;
	r->hc.c.a2av_gap = 3;
	r->hc.inplace = 1;
	r->hc.comm = CS_COMM_ODDEVEN;
	r->hc.misalign = 1;
	r->hc.a2av_pattern = CS_A2AV_ZEROROWS;
	r->hc.index = 123456;
	snprintf(r->backend, sizeof r->backend, "plugin:/tmp/x y.so");
	r->verdict = CS_V_WARN;
	snprintf(r->check, sizeof r->check, "determinism");
	snprintf(r->reason, sizeof r->reason, "quote \" backslash \\ tab \t");
	snprintf(r->detail, sizeof r->detail, "line 1\nline 2 \x01 caf\xc3\xa9\n");
	snprintf(r->info, sizeof r->info, "nan=ignore ovf=saturate");
	snprintf(r->repro, sizeof r->repro, "collspec run --ranks 7");
	r->elems_checked = 42;
	r->bytes_checked = 4200;
	r->seconds = 1.25e-5;
}

static void test_json_roundtrip(void **state)
{
	cs_result_t a, b;
	char buf[8192];
	int n;

	(void)state;
	fill_result(&a);
	n = cs_result_to_json(&a, buf, sizeof buf);
	assert_true(n > 0 && (size_t)n < sizeof buf);
	assert_int_equal(strlen(buf), (size_t)n);
	assert_null(strchr(buf, '\n')); /* one line */
	assert_int_equal(cs_result_from_json(buf, &b), CS_OK);
	assert_int_equal(b.hc.c.coll, a.hc.c.coll);
	assert_int_equal(b.hc.c.dtype, a.hc.c.dtype);
	assert_int_equal(b.hc.c.op, a.hc.c.op);
	assert_int_equal(b.hc.c.mode, a.hc.c.mode);
	assert_int_equal(b.hc.c.nranks, 7);
	assert_true(b.hc.c.count == a.hc.c.count);
	assert_true(b.hc.c.seed == a.hc.c.seed);
	assert_int_equal(b.hc.c.a2av_gap, 3);
	assert_int_equal(b.hc.inplace, 1);
	assert_int_equal(b.hc.comm, CS_COMM_ODDEVEN);
	assert_int_equal(b.hc.misalign, 1);
	assert_int_equal(b.hc.a2av_pattern, CS_A2AV_ZEROROWS);
	assert_int_equal(b.hc.index, 123456);
	assert_int_equal(b.verdict, CS_V_WARN);
	assert_string_equal(b.backend, a.backend);
	assert_string_equal(b.check, a.check);
	assert_string_equal(b.reason, a.reason);
	assert_string_equal(b.detail, a.detail);
	assert_string_equal(b.info, a.info);
	assert_string_equal(b.repro, a.repro);
	assert_int_equal(b.elems_checked, 42);
	assert_int_equal(b.bytes_checked, 4200);
	assert_true(b.seconds == a.seconds);
}

/* Like snprintf: the return value is the full length, the text is cut. */
static void test_json_truncates(void **state)
{
	cs_result_t a;
	char full[8192], small[16];
	int n, m;

	(void)state;
	fill_result(&a);
	n = cs_result_to_json(&a, full, sizeof full);
	memset(small, 'x', sizeof small);
	m = cs_result_to_json(&a, small, sizeof small);
	assert_int_equal(m, n);
	assert_int_equal(strlen(small), sizeof small - 1);
	assert_memory_equal(small, full, sizeof small - 1);
}

static void test_json_rejects(void **state)
{
	cs_result_t r;

	(void)state;
	assert_int_equal(cs_result_from_json("{\"coll\":\"allreduce\"}", &r),
			 CS_ERR_INVALID); /* no verdict */
	assert_int_equal(cs_result_from_json("{\"verdict\":\"PASS\",\"coll\":"
					     "\"allsum\"}", &r), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "allsum"));
	assert_int_equal(cs_result_from_json("{\"verdict\":\"PASS\"} x", &r),
			 CS_ERR_INVALID);
	assert_int_equal(cs_result_from_json("{\"verdict\":\"PASS", &r),
			 CS_ERR_INVALID);
	assert_int_equal(cs_result_from_json("[1]", &r), CS_ERR_INVALID);
	assert_int_equal(cs_result_from_json("{\"verdict\":\"MAYBE\"}", &r),
			 CS_ERR_INVALID);
	assert_int_equal(cs_result_from_json("{\"verdict\":\"FAIL\",\"count\":"
					     "-1}", &r), CS_ERR_INVALID);
	/* unknown keys are ignored, \u escapes decode */
	assert_int_equal(cs_result_from_json(" {\"future\": 3.5, \"verdict\":"
					     "\"SKIP\", \"reason\":\"a\\u0041\"}",
					     &r), CS_OK);
	assert_int_equal(r.verdict, CS_V_SKIP);
	assert_string_equal(r.reason, "aA");
}

/* ---- bytes that are not UTF-8 (issue 7, part 5) ---------------------------- */

/* Field k of r (0 backend, 1 check, 2 reason, 3 detail, 4 info, 5 repro)
 * and its size. */
static char *field(cs_result_t *r, int k, size_t *cap)
{
	char *f[6] = {r->backend, r->check, r->reason, r->detail, r->info,
		      r->repro};
	size_t n[6] = {sizeof r->backend, sizeof r->check, sizeof r->reason,
		       sizeof r->detail, sizeof r->info, sizeof r->repro};

	*cap = n[k];
	return f[k];
}

/* Every byte value 1..255 (0 ends a C string) in every string field: the
 * line is valid UTF-8 without a control byte, and reads back byte for
 * byte. Fields too small for 255 bytes take them in turns. */
static void test_json_every_byte(void **state)
{
	cs_result_t a, b;
	char *line, *f;
	size_t cap, i;
	int k, n, start;

	(void)state;
	for (k = 0; k < 6; k++) {
		for (start = 1; start <= 255; start += (int)cap - 1) {
			fill_result(&a);
			f = field(&a, k, &cap);
			for (i = 0; i + 1 < cap && start + (int)i <= 255; i++)
				f[i] = (char)(start + (int)i);
			f[i] = '\0';
			n = cs_result_to_json(&a, NULL, 0);
			line = malloc((size_t)n + 1);
			assert_non_null(line);
			assert_int_equal(cs_result_to_json(&a, line, (size_t)n + 1), n);
			assert_true(valid_utf8(line, (size_t)n));
			assert_true(no_controls(line));
			assert_int_equal(cs_result_from_json(line, &b), CS_OK);
			assert_string_equal(field(&b, k, &cap), f);
			assert_string_equal(b.reason, k == 2 ? f : a.reason);
			assert_string_equal(b.repro, k == 5 ? f : a.repro);
			free(line);
		}
	}
}

/* The encoding, case by case (Unicode's table 3-7 for what is valid). */
static void test_json_escapes(void **state)
{
	static const char *const cases[][2] = {
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},           /* 2 bytes, kept */
		{"\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\""},
		{"\xef\xbf\xbf", "\"\xef\xbf\xbf\""},         /* U+FFFF is UTF-8 */
		{"\xc0\x80", "\"\\u00c0\\u0080\""},           /* overlong NUL */
		{"\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\""}, /* overlong '/' */
		{"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""}, /* a surrogate */
		{"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""}, /* >10FFFF */
		{"\xe2\x82", "\"\\u00e2\\u0082\""},           /* cut short */
		{"a\x80" "b", "\"a\\u0080b\""},               /* lone continuation */
		{"\xff\xfe", "\"\\u00ff\\u00fe\""},
		{"\x01\x1f\x7f\t\n", "\"\\u0001\\u001f\\u007f\\t\\n\""},
		{"q\"b\\", "\"q\\\"b\\\\\""},
	};
	size_t i;
	char *q;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		q = cs_json_quote(cases[i][0]);
		assert_non_null(q);
		assert_string_equal(q, cases[i][1]);
		free(q);
	}
}

/* What the reader makes of escapes other writers use. */
static void test_json_reader_escapes(void **state)
{
	cs_result_t r;

	(void)state;
	assert_int_equal(cs_result_from_json("{\"verdict\":\"PASS\",\"reason\":"
		"\"\\ud83d\\ude00|\\ud800x|\\u0100|\\u00e9|\\u0000\"}", &r), CS_OK);
	assert_string_equal(r.reason, "\xf0\x9f\x98\x80|\xef\xbf\xbdx|\xc4\x80|"
			    "\xe9|\xef\xbf\xbd");
	/* a string longer than its field is refused, not cut */
	assert_int_equal(cs_result_from_json("{\"verdict\":\"PASS\",\"check\":"
		"\"0123456789012345678901234567890123456789\"}", &r),
		CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "'check' holds 40 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_truncates),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_json_every_byte),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_reader_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
