/*
 * test_report.c - reporters (conformance/report*.c): exit codes, JSON Lines,
 * JUnit XML valid after every case and escaped (whatever bytes the strings
 * hold), the human summary, an unwritable path refused before anything is
 * written, a failed write made exit code 2, and a run that failed as a
 * whole (a plugin that crashed while loading).
 */
#define _POSIX_C_SOURCE 200809L
#include <iconv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/json.h"
#include "base/names.h"
#include "report/report.h"
#include "base/result.h"

#define TAIL "</testsuite>\n</testsuites>\n"

static char json_path[64], junit_path[64];

static void make_paths(void)
{
	snprintf(json_path, sizeof json_path, "test_report_%d.json", (int)getpid());
	snprintf(junit_path, sizeof junit_path, "test_report_%d.xml", (int)getpid());
}

static cs_result_t result(size_t index, cs_verdict_t v, const char *reason)
{
	cs_result_t r;

	memset(&r, 0, sizeof r);
	r.hc.index = index;
	r.hc.c.coll = CS_COLL_ALLREDUCE;
	r.hc.c.dtype = CS_DTYPE_FLOAT32;
	r.hc.c.op = CS_OP_SUM;
	r.hc.c.nranks = 2;
	r.hc.c.count = 5;
	r.verdict = v;
	snprintf(r.backend, sizeof r.backend, "ref");
	snprintf(r.check, sizeof r.check, "%s", v == CS_V_FAIL ? "value" : "");
	snprintf(r.reason, sizeof r.reason, "%s", reason);
	snprintf(r.repro, sizeof r.repro, "collspec run --ranks 2");
	return r;
}

/* Open a report on a scratch stream, add verdicts, close: exit code. */
static int run_report(const cs_verdict_t *v, int n, int fail_on_warn,
		      char *out, size_t outn)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	FILE *f = tmpfile();
	size_t got;
	int i, code;

	memset(&o, 0, sizeof o);
	o.backend = "ref";
	o.suite = "quick";
	o.fail_on_warn = fail_on_warn;
	o.out = f;
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	for (i = 0; i < n; i++) {
		cs_result_t r = result((size_t)i, v[i], "why");
		cs_report_add(rep, &r);
	}
	code = cs_report_close(rep);
	rewind(f);
	got = fread(out, 1, outn - 1, f);
	out[got] = '\0';
	fclose(f);
	return code;
}

static void test_exit_codes(void **state)
{
	const cs_verdict_t pass[] = {CS_V_PASS, CS_V_INFO, CS_V_SKIP};
	const cs_verdict_t fail[] = {CS_V_PASS, CS_V_FAIL};
	const cs_verdict_t skip[] = {CS_V_SKIP, CS_V_SKIP};
	const cs_verdict_t warn[] = {CS_V_PASS, CS_V_WARN};
	static char out[65536];

	(void)state;
	assert_int_equal(run_report(pass, 3, 0, out, sizeof out), 0);
	assert_non_null(strstr(out, "collspec: 3 cases: 2 passed, 0 failed, 1 "
			       "skipped, 0 warned"));
	assert_non_null(strstr(out, "\n2 passed, 0 failed\n"));
	assert_int_equal(run_report(fail, 2, 0, out, sizeof out), 1);
	assert_non_null(strstr(out, "\n1 passed, 1 failed\n"));
	assert_non_null(strstr(out, "re-run: collspec run --ranks 2"));
	assert_int_equal(run_report(skip, 2, 0, out, sizeof out), 1);
	assert_non_null(strstr(out, "every case was skipped"));
	assert_int_equal(run_report(warn, 2, 0, out, sizeof out), 0);
	assert_int_equal(run_report(warn, 2, 1, out, sizeof out), 1);
	assert_int_equal(run_report(NULL, 0, 0, out, sizeof out), 1);
	/* the per-collective summary counts each verdict */
	assert_int_equal(run_report(pass, 3, 0, out, sizeof out), 0);
	assert_non_null(strstr(out, "  allreduce           3      1      1      "
			       "0      1      0\n"));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 16];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what)) != NULL)
		n++, s++;
	return n;
}

/* After every case both files are complete documents. */
static void test_files_valid_after_each_case(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r;
	char want[64];
	int i;

	(void)state;
	make_paths();
	memset(&o, 0, sizeof o);
	o.json = json_path;
	o.junit = junit_path;
	o.backend = "ref";
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	for (i = 0; i < 4; i++) {
		char *x;
		r = result((size_t)i, i == 2 ? CS_V_FAIL : CS_V_PASS,
			   "a<b & \"c\"");
		cs_report_add(rep, &r);
		x = slurp(junit_path);
		assert_int_equal(count_of(x, "<testcase "), i + 1);
		assert_int_equal(count_of(x, "</testcase>"), i + 1);
		snprintf(want, sizeof want, "tests=\"%d\"", i + 1);
		assert_non_null(strstr(x, want));
		assert_int_equal(strcmp(x + strlen(x) - strlen(TAIL), TAIL), 0);
		assert_int_equal(count_of(slurp(json_path), "\n"), i + 1);
	}
	assert_int_equal(cs_report_close(rep), 1);
	{
		char *x = slurp(junit_path);
		assert_int_equal(count_of(x, "<failure "), 1);
		assert_non_null(strstr(x, "failures=\"1\""));
		assert_non_null(strstr(x, "message=\"a&lt;b &amp; &quot;c&quot;\""));
		assert_null(strstr(x, "a<b"));
	}
	{
		char *save, *ln = strtok_r(slurp(json_path), "\n", &save);
		ln = strtok_r(NULL, "\n", &save);
		ln = strtok_r(NULL, "\n", &save); /* the third case */
		assert_int_equal(cs_result_from_json(ln, &r), CS_OK);
		assert_int_equal(r.verdict, CS_V_FAIL);
		assert_int_equal(r.hc.index, 2);
		assert_string_equal(r.reason, "a<b & \"c\"");
	}
	remove(json_path);
	remove(junit_path);
}

static void test_abort_marks_files(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r = result(0, CS_V_PASS, "");
	char *x;

	(void)state;
	make_paths();
	memset(&o, 0, sizeof o);
	o.json = json_path;
	o.junit = junit_path;
	o.backend = "ref";
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	cs_report_add(rep, &r);
	cs_report_abort(rep, "mpiexec vanished <x>");
	x = slurp(junit_path);
	assert_non_null(strstr(x, "<error message=\"mpiexec vanished &lt;x&gt;\""));
	assert_non_null(strstr(x, "errors=\"1\""));
	assert_int_equal(strcmp(x + strlen(x) - strlen(TAIL), TAIL), 0);
	assert_non_null(strstr(slurp(json_path), "\"aborted\":true"));
	remove(json_path);
	remove(junit_path);
}

static void test_unwritable_path(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep = NULL;

	(void)state;
	memset(&o, 0, sizeof o);
	o.junit = "/nonexistent-dir/r.xml";
	o.backend = "ref";
	o.suite = "quick";
	assert_int_equal(cs_report_open(&o, &rep), CS_ERR_IO);
	assert_null(rep);
	assert_non_null(strstr(cs_last_error(), "/nonexistent-dir/r.xml"));
}

/* A JUnit path that cannot be opened leaves the JSON report as it was:
 * an existing file keeps its bytes, a missing one is not created. */
static void test_unwritable_keeps_other(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep = NULL;
	char json[64];
	FILE *f;

	(void)state;
	snprintf(json, sizeof json, "test_report_%d_keep.jsonl", (int)getpid());
	f = fopen(json, "w");
	assert_non_null(f);
	fputs("earlier run\n", f);
	fclose(f);
	memset(&o, 0, sizeof o);
	o.json = json;
	o.junit = "/nonexistent-dir/r.xml";
	o.backend = "ref";
	o.suite = "quick";
	assert_int_equal(cs_report_open(&o, &rep), CS_ERR_IO);
	assert_null(rep);
	assert_string_equal(slurp(json), "earlier run\n");
	remove(json);
	assert_int_equal(cs_report_open(&o, &rep), CS_ERR_IO);
	f = fopen(json, "r");
	assert_null(f); /* not created for nothing */
	if (f)
		fclose(f);
}

/* ---- any bytes, write errors, a failed load (issue 7, part 5) ----------- */

/* 1 when buf is valid UTF-8 as glibc's iconv decodes it. */
static int valid_utf8(const char *buf)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	size_t il = strlen(buf), ol = 4 * il + 4, r;
	char *in = (char *)buf, *out = malloc(ol), *o = out;

	assert_true(cd != (iconv_t)-1 && out);
	r = iconv(cd, &in, &il, &o, &ol);
	iconv_close(cd);
	free(out);
	return r != (size_t)-1 && il == 0;
}

/* What XML 1.0 forbids in a document that is valid UTF-8: control bytes
 * other than tab, newline and carriage return, U+FFFE and U+FFFF. */
static int xml_chars_ok(const char *x)
{
	const unsigned char *p = (const unsigned char *)x;

	for (; *p; p++) {
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
		if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
			return 0;
	}
	return 1;
}

/* s[0..cap-1) filled with the bytes from, from + 1, ... up to 255. */
static void bytes_from(char *s, size_t cap, int from)
{
	size_t i;

	for (i = 0; i + 1 < cap && from + (int)i <= 255; i++)
		s[i] = (char)(from + (int)i);
	s[i] = '\0';
}

/* Every byte 1..255 in the backend's name and in every string of a FAIL,
 * a SKIP and an INFO result: the JUnit document is valid UTF-8 with only
 * the characters XML allows, every JSON line is UTF-8 and reads back. */
static void test_any_bytes(void **state)
{
	static char be[256];
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r, b;
	const cs_verdict_t v[3] = {CS_V_FAIL, CS_V_SKIP, CS_V_INFO};
	char *x, *save = NULL, *ln;
	int i, from;

	(void)state;
	make_paths();
	bytes_from(be, sizeof be, 1);
	memset(&o, 0, sizeof o);
	o.json = json_path;
	o.junit = junit_path;
	o.backend = be;
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	for (i = 0, from = 1; from <= 255; i++, from += 31) {
		r = result((size_t)i, v[i % 3], "");
		bytes_from(r.backend, sizeof r.backend, from);
		bytes_from(r.check, sizeof r.check, from);
		bytes_from(r.reason, sizeof r.reason, from);
		bytes_from(r.detail, sizeof r.detail, from);
		bytes_from(r.info, sizeof r.info, from);
		bytes_from(r.repro, sizeof r.repro, from);
		cs_report_add(rep, &r);
	}
	assert_int_equal(cs_report_close(rep), 1);
	x = slurp(junit_path);
	assert_true(valid_utf8(x));
	assert_true(xml_chars_ok(x));
	assert_int_equal(count_of(x, "<testcase "), i);
	assert_int_equal(strcmp(x + strlen(x) - strlen(TAIL), TAIL), 0);
	x = slurp(json_path);
	assert_true(valid_utf8(x));
	for (ln = strtok_r(x, "\n", &save), from = 1; ln;
	     ln = strtok_r(NULL, "\n", &save), from += 31) {
		assert_int_equal(cs_result_from_json(ln, &b), CS_OK);
		bytes_from(r.reason, sizeof r.reason, from);
		assert_string_equal(b.reason, r.reason);
	}
	remove(json_path);
	remove(junit_path);
}

/* The JUnit start tag holds a long backend name whole. */
static void test_long_suite_name(void **state)
{
	static char be[4200];
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r = result(0, CS_V_PASS, "");

	(void)state;
	make_paths();
	memset(be, 'b', sizeof be - 2);
	be[sizeof be - 2] = '&';
	memset(&o, 0, sizeof o);
	o.junit = junit_path;
	o.backend = be;
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	cs_report_add(rep, &r);
	assert_int_equal(cs_report_close(rep), 0);
	be[sizeof be - 2] = '\0';
	assert_non_null(strstr(slurp(junit_path), be));
	assert_non_null(strstr(slurp(junit_path), "b&amp;\" tests=\"1\""));
	remove(junit_path);
}

/* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters: in an
 * attribute (reason) and in character data (detail) they become U+FFFD,
 * and the UTF-8 around them is kept. */
static void test_xml_nonchars(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r = result(0, CS_V_FAIL, "a\xef\xbf\xbe\xc3\xa9");
	char *x;

	(void)state;
	make_paths();
	snprintf(r.detail, sizeof r.detail, "d\xef\xbf\xbf\xef\xbf\xbd");
	memset(&o, 0, sizeof o);
	o.junit = junit_path;
	o.backend = "ref";
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	cs_report_add(rep, &r);
	assert_int_equal(cs_report_close(rep), 1);
	x = slurp(junit_path);
	assert_true(valid_utf8(x));
	assert_true(xml_chars_ok(x));
	assert_non_null(strstr(x, "message=\"a\xef\xbf\xbd\xc3\xa9\""));
	assert_non_null(strstr(x, ">d\xef\xbf\xbd\xef\xbf\xbd"));
	remove(junit_path);
}

/* A report that cannot be written (a full device) makes the exit code 2,
 * for the JSON and for the JUnit file. */
static void test_write_errors(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r = result(0, CS_V_PASS, "");
	int which;

	(void)state;
	for (which = 0; which < 2; which++) {
		memset(&o, 0, sizeof o);
		o.json = which ? NULL : "/dev/full";
		o.junit = which ? "/dev/full" : NULL;
		o.backend = "ref";
		o.suite = "quick";
		o.out = tmpfile();
		assert_int_equal(cs_report_open(&o, &rep), CS_OK);
		cs_report_add(rep, &r);
		assert_int_equal(cs_report_close(rep), 2);
	}
	/* the human report too */
	memset(&o, 0, sizeof o);
	o.backend = "ref";
	o.suite = "quick";
	o.out = fopen("/dev/full", "w");
	assert_non_null(o.out);
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	cs_report_add(rep, &r);
	assert_int_equal(cs_report_close(rep), 2);
	fclose(o.out);
}

/* JUnit is rewritten in place: a pipe is refused before anything runs. */
static void test_junit_pipe(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep = NULL;
	char fifo[64];

	(void)state;
	snprintf(fifo, sizeof fifo, "test_report_%d.fifo", (int)getpid());
	assert_int_equal(mkfifo(fifo, 0600), 0);
	memset(&o, 0, sizeof o);
	o.junit = fifo;
	o.backend = "ref";
	o.suite = "quick";
	assert_int_equal(cs_report_open(&o, &rep), CS_ERR_IO);
	assert_null(rep);
	assert_non_null(strstr(cs_last_error(), "rewritten in place"));
	remove(fifo);
}

/* A plugin that crashed while loading: one FAIL "load" in both files. */
static void test_fail_run(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	cs_result_t r;
	char *x;

	(void)state;
	make_paths();
	memset(&o, 0, sizeof o);
	o.json = json_path;
	o.junit = junit_path;
	o.backend = "plugin:x.so";
	o.suite = "quick";
	o.out = tmpfile();
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	assert_int_equal(cs_report_fail_run(rep, "load", "plugin x.so crashed "
					    "while loading (signal 11) <"), 1);
	x = slurp(junit_path);
	assert_non_null(strstr(x, "tests=\"1\" failures=\"1\" errors=\"0\""));
	assert_non_null(strstr(x, "<failure type=\"load\" message=\"plugin x.so "
			       "crashed while loading (signal 11) &lt;\"/>"));
	assert_int_equal(strcmp(x + strlen(x) - strlen(TAIL), TAIL), 0);
	assert_int_equal(cs_result_from_json(slurp(json_path), &r), CS_OK);
	assert_int_equal(r.verdict, CS_V_FAIL);
	assert_string_equal(r.check, "load");
	assert_string_equal(r.reason, "plugin x.so crashed while loading "
			    "(signal 11) <");
	remove(json_path);
	remove(junit_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_files_valid_after_each_case),
		cmocka_unit_test(test_abort_marks_files),
		cmocka_unit_test(test_unwritable_path),
		cmocka_unit_test(test_unwritable_keeps_other),
		cmocka_unit_test(test_any_bytes),
		cmocka_unit_test(test_long_suite_name),
		cmocka_unit_test(test_xml_nonchars),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_junit_pipe),
		cmocka_unit_test(test_fail_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
