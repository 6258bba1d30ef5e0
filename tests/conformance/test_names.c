/*
 * test_names.c - the harness's names, filters, command-line parsers,
 * reproducer and the JSON form of a result (conformance/names.c, run.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "collspec.h"

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

static void test_names(void **state)
{
	cs_commvar_t v;
	cs_a2av_pattern_t p;
	int i;

	(void)state;
	for (i = 0; i < CS_NUM_COMMVARS; i++) {
		assert_int_equal(cs_commvar_parse(cs_commvar_name(i), &v), CS_OK);
		assert_int_equal(v, i);
	}
	for (i = 0; i < CS_NUM_A2AV; i++) {
		assert_int_equal(cs_a2av_parse(cs_a2av_name(i), &p), CS_OK);
		assert_int_equal(p, i);
	}
	assert_int_equal(cs_commvar_parse("diagonal", &v), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "world reversed halves oddeven"));
	assert_int_equal(cs_a2av_parse("dense", &p), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "uniform"));
	assert_string_equal(cs_verdict_name(CS_V_FAIL), "FAIL");
	assert_string_equal(cs_verdict_name(CS_V_INFO), "INFO");
	assert_true(CS_V_FAIL > CS_V_WARN && CS_V_WARN > CS_V_SKIP &&
		    CS_V_SKIP > CS_V_INFO && CS_V_INFO > CS_V_PASS);
}

static void test_parse_ranks(void **state)
{
	static const char *const bad[] = {
		"0", "8-1", "1-", "-3", "a", "1,,2", "", ",4", "4,", "0-2",
		"2-x", "1-2-3", "3.5",
	};
	int s[64], n, i;

	(void)state;
	assert_int_equal(cs_parse_ranks("1-8", s, 64, &n), CS_OK);
	assert_int_equal(n, 8);
	assert_int_equal(s[0], 1);
	assert_int_equal(s[7], 8);
	assert_int_equal(cs_parse_ranks("2,4,8", s, 64, &n), CS_OK);
	assert_int_equal(n, 3);
	assert_int_equal(s[2], 8);
	assert_int_equal(cs_parse_ranks("4", s, 64, &n), CS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(s[0], 4);
	assert_int_equal(cs_parse_ranks("1-2,5", s, 64, &n), CS_OK);
	assert_int_equal(n, 3);
	assert_int_equal(s[2], 5);
	for (i = 0; i < (int)(sizeof bad / sizeof *bad); i++)
		assert_int_equal(cs_parse_ranks(bad[i], s, 64, &n), CS_ERR_INVALID);
	assert_int_equal(cs_parse_ranks("1-100", s, 64, &n), CS_ERR_INVALID);
}

static void test_parse_count(void **state)
{
	size_t c;

	(void)state;
	assert_int_equal(cs_parse_count("1025", &c), CS_OK);
	assert_int_equal(c, 1025);
	assert_int_equal(cs_parse_count("0", &c), CS_OK);
	assert_int_equal(c, 0);
	assert_int_equal(cs_parse_count("1k", &c), CS_OK);
	assert_int_equal(c, 1024);
	assert_int_equal(cs_parse_count("2M", &c), CS_OK);
	assert_int_equal(c, 2u << 20);
	assert_int_equal(cs_parse_count("-1", &c), CS_ERR_INVALID);
	assert_int_equal(cs_parse_count("12x", &c), CS_ERR_INVALID);
	assert_int_equal(cs_parse_count("", &c), CS_ERR_INVALID);
	assert_int_equal(cs_parse_count("99999999999999999999999", &c),
			 CS_ERR_OVERFLOW);
	assert_int_equal(cs_parse_count("18446744073709551615G", &c),
			 CS_ERR_OVERFLOW);
}

static void test_repro(void **state)
{
	cs_hcase_t hc;
	char buf[768];

	(void)state;
	memset(&hc, 0, sizeof hc);
	hc.c.coll = CS_COLL_ALLTOALLV;
	hc.c.dtype = CS_DTYPE_INT8;
	hc.c.op = CS_OP_NONE;
	hc.c.mode = CS_MODE_EXACT;
	hc.c.count = 17;
	hc.c.seed = 5;
	hc.comm = CS_COMM_HALVES;
	hc.a2av_pattern = CS_A2AV_UNEVEN;
	cs_repro_format(&hc, 4, "plugin:/a b/p.so", "", "quick", buf, sizeof buf);
	assert_non_null(strstr(buf, "collspec run --ranks 4 --backend "
			       "'plugin:/a b/p.so' --suite quick --coll alltoallv "
			       "--dtype int8 --mode exact --count 17 --inplace 0 "
			       "--comm halves"));
	assert_non_null(strstr(buf, "--a2av-pattern uneven"));
	assert_non_null(strstr(buf, "--seed 5"));
	assert_null(strstr(buf, "--op"));
	assert_null(strstr(buf, "--root"));
	hc.c.coll = CS_COLL_REDUCE;
	hc.c.op = CS_OP_PREMULSUM;
	hc.c.root = 3;
	cs_repro_format(&hc, 4, "mpi", "x'y", "full", buf, sizeof buf);
	assert_non_null(strstr(buf, "--backend mpi --backend-opt 'x'\\''y' "
			       "--suite full"));
	assert_non_null(strstr(buf, "--op premulsum"));
	assert_non_null(strstr(buf, "--root 3"));
	assert_null(strstr(buf, "--a2av-pattern"));
}

static void test_filter_init(void **state)
{
	cs_filter_t f;

	(void)state;
	memset(&f, 0x5a, sizeof f);
	cs_filter_init(&f);
	assert_int_equal(f.colls | f.dtypes | f.ops | f.modes | f.comms | f.a2av, 0);
	assert_int_equal(f.ncounts, 0);
	assert_int_equal(f.inplace, -1);
	assert_int_equal(f.root, -1);
	assert_int_equal(f.misalign, -1);
	assert_int_equal(f.has_seed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_truncates),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_ranks),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_repro),
		cmocka_unit_test(test_filter_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
