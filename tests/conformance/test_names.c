/*
 * test_names.c - the harness's names (conformance/base/names.c), the filter's
 * initial state (suite.c), the command-line parsers (run.c), and error
 * messages that keep their cause (ref/status.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "base/cli_parse.h"
#include "base/names.h"
#include "base/result.h"
#include "run/run_args.h"
#include "suite/suite.h"

static void test_names(void **state)
{
	cs_commvar_t v;
	cs_a2av_pattern_t p;
	cs_verdict_t w;
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
	for (i = 0; i < CS_NUM_VERDICTS; i++) {
		assert_int_equal(cs_verdict_parse(cs_verdict_name(i), &w), CS_OK);
		assert_int_equal(w, i);
	}
	assert_int_equal(cs_verdict_parse("pass", &w), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "unknown verdict 'pass'; valid "
			       "verdicts: PASS INFO SKIP WARN FAIL XFAIL XPASS"));
	assert_string_equal(cs_verdict_name(CS_NUM_VERDICTS), "?");
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

/* Parse `run` with args (NULL-terminated): cs_run_parse_args's status. */
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
	assert_int_equal(parse(&o, "-vx", NULL, NULL), CS_ERR_INVALID);
	assert_int_equal(parse(&o, "-", NULL, NULL), CS_ERR_INVALID);
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
		assert_int_equal(parse(&o, "--seed", bad[i], NULL), CS_ERR_INVALID);
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
		assert_int_equal(parse(&o, "--timeout", bad[i], NULL), CS_ERR_INVALID);
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
	assert_int_equal(parse(&o, "--backend-opt", opt, NULL), CS_ERR_INVALID);
	memcpy(be, "plugin:", 7);
	memset(be + 7, 'p', CS_BACKEND_MAX - 7);
	assert_int_equal(parse(&o, "--backend", be, NULL), 0);
	be[CS_BACKEND_MAX] = 'p';
	assert_int_equal(parse(&o, "--backend", be, NULL), CS_ERR_INVALID);
	assert_int_equal(parse(&o, "--backend-opt", "a\tb", NULL), CS_ERR_INVALID);
	assert_int_equal(parse(&o, "--backend-opt", "a\nb", NULL), CS_ERR_INVALID);
	assert_int_equal(parse(&o, "--backend-opt", "caf\xc3\xa9 \xff", NULL), 0);
	assert_int_equal(parse(&o, "--first", "3", "--ranks=2"), 0);
	assert_int_equal(o.first, 3);
	assert_int_equal(parse(&o, "--first", "-3", NULL), CS_ERR_INVALID);
	assert_int_equal(parse(&o, "--root", " 1", NULL), CS_ERR_INVALID);
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
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_ranks),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_filter_init),
		cmocka_unit_test(test_error_keeps_cause),
		cmocka_unit_test(test_parse_verbose),
		cmocka_unit_test(test_parse_seed),
		cmocka_unit_test(test_parse_timeout),
		cmocka_unit_test(test_parse_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
