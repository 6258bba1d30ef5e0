/*
 * test_repro.c - the re-run line of a case (conformance/base/repro.c): what it
 * names, every byte given back by a real shell, the longest line there
 * can be, and that line through the driver's results file.
 */
#define _POSIX_C_SOURCE 200809L /* popen, getline */
#include <iconv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "base/names.h"
#include "base/result.h"
#include "report/results_file.h"
#include "suite/suite.h"
#include "base/json.h"
#include "base/repro.h"
#include "json_util.h"

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
	memset(&a, 0, sizeof a);
	a.verdict = CS_V_FAIL;
	a.hc.c.coll = CS_COLL_ALLTOALLV;
	a.hc.c.op = CS_OP_NONE;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repro),
		cmocka_unit_test(test_repro_shell),
		cmocka_unit_test(test_repro_limits),
		cmocka_unit_test(test_repro_results_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
