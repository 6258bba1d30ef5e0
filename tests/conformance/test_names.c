/*
 * test_names.c - the harness's names, filters, command-line parsers,
 * reproducer and the JSON form of a result (conformance/names.c, run.c),
 * and error messages that keep their cause (ref/status.c).
 */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <iconv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- bytes that are not UTF-8 (issue 7, part 5) ---------------------------- */

/* 1 when buf[0..n) is valid UTF-8, as glibc's iconv decodes it (an
 * implementation independent of names.c's). */
static int valid_utf8(const char *buf, size_t n)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	char *in = (char *)buf, *out, *o;
	size_t il = n, ol = 4 * n + 4, r;

	assert_true(cd != (iconv_t)-1);
	out = o = malloc(ol);
	assert_non_null(out);
	r = iconv(cd, &in, &il, &o, &ol);
	iconv_close(cd);
	free(out);
	return r != (size_t)-1 && il == 0;
}

/* No raw control byte: a JSON line is one line. */
static int no_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

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

/* ---- re-run lines --------------------------------------------------------- */

/* The arguments /bin/sh finds in line (which starts with `collspec`), NUL
 * separated, into out; returns their total length. */
static size_t shell_args(const char *line, char *out, size_t n)
{
	static const char fn[] = "collspec() { for a; do printf '%s\\0' \"$a\";"
				 " done; }; ";
	char *cmd = malloc(strlen(fn) + strlen(line) + 1);
	FILE *p;
	size_t k;

	assert_non_null(cmd);
	strcpy(cmd, fn);
	strcat(cmd, line);
	p = popen(cmd, "r");
	assert_non_null(p);
	k = fread(out, 1, n, p);
	assert_int_equal(pclose(p), 0);
	free(cmd);
	return k;
}

/* The argument after `name` among args[0..n) (NUL-separated). */
static const char *arg_after(const char *args, size_t n, const char *name)
{
	const char *a;

	for (a = args; a < args + n; a += strlen(a) + 1)
		if (!strcmp(a, name) && a + strlen(a) + 1 < args + n)
			return a + strlen(a) + 1;
	return NULL;
}

/* A shell gives back every backend and option string byte for byte, and
 * the line is printable ASCII or UTF-8. */
static void test_repro_shell(void **state)
{
	static char all[256], line[CS_REPRO_MAX], args[CS_REPRO_MAX];
	const char *words[] = {
		"plain", "with space", "it's", "$HOME `id` $(id) \\ \" * ? ~ ;",
		"100%d %s", "-leading", "caf\xc3\xa9 \xe2\x82\xac", "\xff\xfe",
		"a'b\xff%c\\d\"e", "-\xff", "'", "", all,
	};
	cs_hcase_t hc;
	size_t i, n;
	int len;

	(void)state;
	for (i = 0; i < 0xe0; i++)
		all[i] = (char)(0x20 + i); /* 0x20..0xff */
	memset(&hc, 0, sizeof hc);
	hc.c.coll = CS_COLL_ALLREDUCE;
	hc.c.op = CS_OP_SUM;
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		len = cs_repro_format(&hc, 3, words[i][0] ? words[i] : "x",
				      words[i], "quick", line, sizeof line);
		assert_true(len > 0 && (size_t)len < sizeof line);
		assert_true(valid_utf8(line, strlen(line)));
		assert_true(no_controls(line));
		n = shell_args(line, args, sizeof args);
		assert_string_equal(arg_after(args, n, "--backend"),
				    words[i][0] ? words[i] : "x");
		if (words[i][0])
			assert_string_equal(arg_after(args, n, "--backend-opt"),
					    words[i]);
		assert_string_equal(arg_after(args, n, "--seed"), "0");
	}
}

/* The longest backend and option the command line accepts, each byte the
 * most expensive to quote, fit in CS_REPRO_MAX; a buffer too small gets no
 * line at all rather than a cut one. */
static void test_repro_limits(void **state)
{
	static char be[CS_BACKEND_MAX + 1], opt[CS_BACKEND_OPT_MAX + 1];
	static char line[CS_REPRO_MAX];
	cs_hcase_t hc;
	int len;

	(void)state;
	memcpy(be, "plugin:", 7);
	memset(be + 7, 0xff, CS_BACKEND_MAX - 7);
	memset(opt, '\'', CS_BACKEND_OPT_MAX);
	opt[0] = (char)0xfe; /* the printf form, for the quotes too */
	memset(&hc, 0, sizeof hc);
	hc.c.coll = CS_COLL_ALLTOALLV;
	hc.c.count = SIZE_MAX;
	hc.c.seed = UINT64_MAX;
	len = cs_repro_format(&hc, 65536, be, opt, "quick", line, sizeof line);
	assert_true(len > 4 * (CS_BACKEND_MAX + CS_BACKEND_OPT_MAX) - 100);
	assert_true((size_t)len < sizeof line);
	assert_int_equal(strlen(line), (size_t)len);
	assert_int_equal(cs_repro_format(&hc, 2, be, opt, "quick", line, 100),
			 cs_repro_format(&hc, 2, be, opt, "quick", NULL, 0));
	assert_string_equal(line, "");
}

/* The longest re-run line goes whole through the driver's results file (a
 * JSON line of the worker protocol) and back. */
static void test_repro_results_line(void **state)
{
	static char be[CS_BACKEND_MAX + 1], opt[CS_BACKEND_OPT_MAX + 1];
	static cs_result_t a, b;
	FILE *f = tmpfile();
	char *line = NULL;
	size_t cap = 0;

	(void)state;
	memcpy(be, "plugin:", 7);
	memset(be + 7, '\\', CS_BACKEND_MAX - 7);
	memset(opt, '%', CS_BACKEND_OPT_MAX);
	opt[0] = (char)0xfe; /* (the printf form: 4 bytes for each '%') */
	be[7] = (char)0xfe;
	fill_result(&a);
	a.hc.c.coll = CS_COLL_ALLTOALLV;
	memset(a.detail, 1, sizeof a.detail - 1); /* six bytes each in JSON */
	assert_true(cs_repro_format(&a.hc, 7, be, opt, "quick", a.repro,
				    sizeof a.repro) > 32000);
	assert_non_null(f);
	cs_results_line(f, &a);
	rewind(f);
	assert_true(getline(&line, &cap, f) > 32768);
	assert_int_equal(cs_result_from_json(line, &b), CS_OK);
	assert_string_equal(b.repro, a.repro);
	assert_string_equal(b.detail, a.detail);
	free(line);
	fclose(f);
}

/* ---- error messages keep their cause ------------------------------------ */

static void test_error_keeps_cause(void **state)
{
	size_t n = 100000;
	char *msg = malloc(n + 1);
	const char *e;

	(void)state;
	assert_non_null(msg);
	memset(msg, 'x', n);
	memcpy(msg, "start:", 6);
	memcpy(msg + n - 10, " the cause", 10);
	msg[n] = '\0';
	cs_error(CS_ERR_INVALID, "%s", msg);
	e = cs_last_error();
	assert_true(strlen(e) < 20000);
	assert_memory_equal(e, "start:", 6);
	assert_string_equal(e + strlen(e) - 10, " the cause");
	assert_non_null(strstr(e, "bytes left out"));
	/* a message quoting the last one (the same buffer) */
	cs_error(CS_ERR_INVALID, "short cause");
	cs_error(CS_ERR_IO, "outer: %s", cs_last_error());
	assert_string_equal(cs_last_error(), "outer: short cause");
	memset(msg, 'y', 16000);
	msg[16000] = '\0';
	cs_error(CS_ERR_IO, "%s!", msg); /* below the buffer's size: whole */
	assert_int_equal(strlen(cs_last_error()), 16001);
	/* a long message of UTF-8 continuation bytes only (a plugin's bytes
	 * are anything): cut at a character boundary that does not exist,
	 * it must still stay inside the buffer */
	memset(msg, 0x80, 20000);
	msg[20000] = '\0';
	cs_error(CS_ERR_INVALID, "%s", msg);
	e = cs_last_error();
	assert_true(strlen(e) < 16384);
	assert_non_null(strstr(e, "bytes left out"));
	free(msg);
}

/* ---- command-line parsing ------------------------------------------------- */

/* Parse `run` with args (NULL-terminated): 0, 2 or -1 as
 * cs_run_parse_args returns. */
static int parse(cs_run_opts_t *o, const char *a0, const char *a1,
		 const char *a2)
{
	char *argv[4] = {"run", (char *)a0, (char *)a1, (char *)a2};
	int argc = a0 ? a1 ? a2 ? 4 : 3 : 2 : 1, rc;

	rc = cs_run_parse_args(argc, argv, o);
	free(o->wargs);
	return rc;
}

static void test_parse_verbose(void **state)
{
	cs_run_opts_t o;
	char *argv[] = {"run", "-vv", "--verbose", "-v"};

	(void)state;
	assert_int_equal(cs_run_parse_args(4, argv, &o), 0);
	assert_int_equal(o.verbose, 4);
	assert_int_equal(o.nwargs, 3); /* handed on to the workers */
	assert_string_equal(o.wargs[0], "-vv");
	free(o.wargs);
	assert_int_equal(parse(&o, "-vx", NULL, NULL), 2);
	assert_int_equal(parse(&o, "-", NULL, NULL), 2);
}

static void test_parse_seed(void **state)
{
	static const char *const bad[] = {
		" 1", "-1", "+1", "1 ", "0x", "0x 1", "1e3", "0b1", "",
		"18446744073709551616", "0x10000000000000000", "1.5",
	};
	cs_run_opts_t o;
	size_t i;

	(void)state;
	assert_int_equal(parse(&o, "--seed", "010", NULL), 0);
	assert_true(o.f.seed == 10); /* decimal, not octal */
	assert_int_equal(parse(&o, "--seed", "0x1F", NULL), 0);
	assert_true(o.f.seed == 31);
	assert_int_equal(parse(&o, "--seed=18446744073709551615", NULL, NULL), 0);
	assert_true(o.f.seed == UINT64_MAX);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(&o, "--seed", bad[i], NULL), 2);
}

static void test_parse_timeout(void **state)
{
	static const char *const bad[] = {
		"inf", "nan", "-1", "0", " 5", "1e9", "86400.5", "1e999", "",
		"5s", "infinity",
	};
	cs_run_opts_t o;
	size_t i;

	(void)state;
	assert_int_equal(parse(&o, "--timeout", "86400", NULL), 0);
	assert_true(o.timeout == 86400);
	assert_int_equal(parse(&o, "--timeout", "0.5", NULL), 0);
	assert_true(o.timeout == 0.5);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(&o, "--timeout", bad[i], NULL), 2);
}

/* --backend and --backend-opt: bounded, printable; --first kept. */
static void test_parse_limits(void **state)
{
	static char opt[CS_BACKEND_OPT_MAX + 2], be[CS_BACKEND_MAX + 2];
	cs_run_opts_t o;

	(void)state;
	memset(opt, 'o', CS_BACKEND_OPT_MAX);
	assert_int_equal(parse(&o, "--backend-opt", opt, NULL), 0);
	opt[CS_BACKEND_OPT_MAX] = 'o';
	assert_int_equal(parse(&o, "--backend-opt", opt, NULL), 2);
	memcpy(be, "plugin:", 7);
	memset(be + 7, 'p', CS_BACKEND_MAX - 7);
	assert_int_equal(parse(&o, "--backend", be, NULL), 0);
	be[CS_BACKEND_MAX] = 'p';
	assert_int_equal(parse(&o, "--backend", be, NULL), 2);
	assert_int_equal(parse(&o, "--backend-opt", "a\tb", NULL), 2);
	assert_int_equal(parse(&o, "--backend-opt", "a\nb", NULL), 2);
	assert_int_equal(parse(&o, "--backend-opt", "caf\xc3\xa9 \xff", NULL), 0);
	assert_int_equal(parse(&o, "--first", "3", "--ranks=2"), 0);
	assert_int_equal(o.first, 3);
	assert_int_equal(parse(&o, "--first", "-3", NULL), 2);
	assert_int_equal(parse(&o, "--root", " 1", NULL), 2);
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
		cmocka_unit_test(test_json_every_byte),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_reader_escapes),
		cmocka_unit_test(test_repro_shell),
		cmocka_unit_test(test_repro_limits),
		cmocka_unit_test(test_repro_results_line),
		cmocka_unit_test(test_error_keeps_cause),
		cmocka_unit_test(test_parse_verbose),
		cmocka_unit_test(test_parse_seed),
		cmocka_unit_test(test_parse_timeout),
		cmocka_unit_test(test_parse_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
