/*
 * test_parsers.c - the harness's parsers of outside text on malformed
 * input (Check, fork mode): the JSON result lines the driver reads from
 * its workers (cs_result_from_json), an --expect file (cs_expect_parse)
 * and the --ranks and --count values (cs_parse_ranks, cs_parse_count).
 *
 * Every input is derived from a valid one, truncated at each byte or with
 * one byte replaced by each of a set of bytes that matter to the grammar,
 * and placed so that it ends at the end of readable memory (guard.h): a
 * parser that reads past its input, loops forever or crashes fails its
 * test alone, in its own process, within the test case's timeout. What
 * each test asserts beyond that is stated with it. tests/conformance and
 * tests/fuzz check what the parsers accept; these tests check that no
 * malformed input takes them down.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/a2av.h"
#include "base/cli_parse.h"
#include "base/json.h"
#include "base/names.h"
#include "base/result.h"
#include "report/expect.h"
#include "guard.h"

/* Bytes that open, close or separate something in one of the grammars,
 * and bytes that are not text. */
static const char hostile[] = { '"', '\\', '{', '}', '[', ':', ',', '-',
				'\'', '#', ' ', '\n', '\r', 'u', '0', '9',
				'k', '\x01', '\x7f', '\x80', '\xff' };
#define NHOSTILE (sizeof hostile)

/* ---- JSON result lines ------------------------------------------------------ */

/* A result whose every string holds something that must be escaped. */
static int json_line(char *buf, size_t n)
{
	cs_result_t r;

	memset(&r, 0, sizeof r);
	r.hc.c.coll = CS_COLL_ALLTOALLV;
	r.hc.c.dtype = CS_DTYPE_BFLOAT16;
	r.hc.c.op = CS_OP_NONE;
	r.hc.c.mode = CS_MODE_SPECIAL;
	r.hc.c.nranks = 7;
	r.hc.c.count = 1025;
	r.hc.c.seed = 0xfedcba9876543210ull;
	r.hc.comm = CS_COMM_ODDEVEN;
	r.hc.a2av_pattern = CS_A2AV_ZEROROWS;
	r.hc.index = 77;
	snprintf(r.backend, sizeof r.backend, "plugin:/tmp/a \"b\".so");
	r.verdict = CS_V_FAIL;
	snprintf(r.check, sizeof r.check, "value");
	snprintf(r.reason, sizeof r.reason, "tab\t quote\" \\ \x01 \xff");
	snprintf(r.detail, sizeof r.detail, "line 1\nline 2 caf\xc3\xa9\n");
	snprintf(r.info, sizeof r.info, "nan=ignore");
	snprintf(r.repro, sizeof r.repro, "collspec run --ranks 7");
	r.elems_checked = 42;
	r.seconds = 1.5e-3;
	return cs_result_to_json(&r, buf, n);
}

/* A string field must end inside its array, whatever the parser made of
 * the input. */
#define FIELD_ENDS(r, f) (memchr((r)->f, 0, sizeof (r)->f) != NULL)

static void check_json(const char *in, size_t len, int must_fail)
{
	cs_result_t r;
	cs_status_t st;

	memset(&r, 0xAB, sizeof r);
	st = cs_result_from_json(in, &r);
	ck_assert_msg(st == CS_OK || st == CS_ERR_INVALID,
		      "status %d for %zu bytes '%.60s'", (int)st, len, in);
	ck_assert_msg(!(must_fail && st == CS_OK),
		      "accepted a truncated object of %zu bytes: '%s'", len,
		      in);
	if (st == CS_OK)
		ck_assert_msg(FIELD_ENDS(&r, backend) && FIELD_ENDS(&r, check) &&
			      FIELD_ENDS(&r, reason) && FIELD_ENDS(&r, detail) &&
			      FIELD_ENDS(&r, info) && FIELD_ENDS(&r, repro),
			      "accepted '%s' with an unterminated string", in);
}

/* Every strict prefix of an object lacks its closing brace: refused. */
START_TEST(test_json_prefixes)
{
	char line[8192];
	int n = json_line(line, sizeof line);
	guard_t g;
	size_t k;

	ck_assert(n > 0 && (size_t)n < sizeof line);
	guard_init(&g, sizeof line);
	check_json(guard_place_str(&g, line, (size_t)n), (size_t)n, 0);
	ck_assert_int_eq(cs_result_from_json(guard_place_str(&g, line,
							     (size_t)n), NULL),
			 CS_ERR_INVALID);
	for (k = 0; k < (size_t)n; k++)
		check_json(guard_place_str(&g, line, k), k, 1);
	guard_free(&g);
}
END_TEST

/* One byte replaced, anywhere: accepted or refused, never more. */
START_TEST(test_json_one_byte)
{
	char line[8192], mut[8192];
	int n = json_line(line, sizeof line);
	guard_t g;
	size_t k, h;

	ck_assert(n > 0 && (size_t)n < sizeof line);
	guard_init(&g, sizeof line);
	for (k = 0; k < (size_t)n; k++) {
		for (h = 0; h < NHOSTILE; h++) {
			memcpy(mut, line, (size_t)n);
			mut[k] = hostile[h];
			check_json(guard_place_str(&g, mut, (size_t)n),
				   (size_t)n, 0);
		}
	}
	guard_free(&g);
}
END_TEST

/* ---- --expect files ------------------------------------------------------- */

static const char expect_text[] =
	"# known failures\n"
	"sat --backend mpi --ranks 1-3,8 --coll allreduce,reduce\n"
	"    --dtype int8,uint8 --op sum --count 7,1k --inplace 1\n"
	"    --check value --finding f-1.md --reason 'op/avx: \"sat\" sums'\n"
	"\r\n"
	"nan --mode special --comm halves --root 2 --seed 0x10 "
	"--a2av-pattern sparse --check value,nanrule --finding g.md "
	"--reason \"it's NaN\"\n";

/* text[0..len) ends where readable memory ends, with no NUL after it:
 * the parser must stay within len. Accepted or refused with a message
 * naming the file, and *out set accordingly. */
static void check_expect(const char *text, size_t len)
{
	cs_expect_t *x = (cs_expect_t *)1;
	cs_status_t st = cs_expect_parse("e.txt", text, len, &x);

	ck_assert_msg(st == CS_OK || st == CS_ERR_INVALID,
		      "status %d for %zu bytes", (int)st, len);
	if (st == CS_OK) {
		ck_assert_msg(x && x->n >= 1 && x->n <= 2,
			      "accepted %zu bytes as %zu entries", len,
			      x ? x->n : 0);
		cs_expect_free(x);
		return;
	}
	ck_assert_ptr_null(x);
	ck_assert_msg(strncmp(cs_last_error(), "e.txt", 5) == 0,
		      "message '%s' does not name the file", cs_last_error());
}

START_TEST(test_expect_prefixes)
{
	size_t n = sizeof expect_text - 1, k;
	guard_t g;

	guard_init(&g, n);
	for (k = 0; k <= n; k++)
		check_expect(guard_place(&g, expect_text, k), k);
	guard_free(&g);
}
END_TEST

START_TEST(test_expect_one_byte)
{
	size_t n = sizeof expect_text - 1, k, h;
	char mut[sizeof expect_text];
	guard_t g;

	guard_init(&g, n);
	for (k = 0; k < n; k++) {
		for (h = 0; h < NHOSTILE; h++) {
			memcpy(mut, expect_text, n);
			mut[k] = hostile[h];
			check_expect(guard_place(&g, mut, n), n);
		}
	}
	guard_free(&g);
}
END_TEST

/* ---- --ranks and --count -------------------------------------------------- */

static void check_ranks(const char *s, size_t len)
{
	int sizes[64], n = -1, i;
	cs_status_t st = cs_parse_ranks(s, sizes, 64, &n);

	ck_assert_msg(st == CS_OK || st == CS_ERR_INVALID,
		      "--ranks '%s': status %d", s, (int)st);
	if (st != CS_OK)
		return;
	ck_assert_msg(n >= 1 && n <= 64, "--ranks '%s': %d sizes", s, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(sizes[i] >= 1 && sizes[i] <= 65536,
			      "--ranks '%s': size %d", s, sizes[i]);
	(void)len;
}

static void check_count(const char *s, size_t len)
{
	size_t c;
	cs_status_t st = cs_parse_count(s, &c);

	ck_assert_msg(st == CS_OK || st == CS_ERR_INVALID ||
		      st == CS_ERR_OVERFLOW, "--count '%s': status %d", s,
		      (int)st);
	(void)len;
}

typedef void (*value_check_fn)(const char *s, size_t len);

/* Every prefix and every one-byte change of each seed, at the guard. */
static void sweep(const char *const *seeds, size_t nseeds, value_check_fn fn)
{
	char mut[64];
	size_t i, k, h, n;
	guard_t g;

	guard_init(&g, sizeof mut);
	for (i = 0; i < nseeds; i++) {
		n = strlen(seeds[i]);
		ck_assert_uint_lt(n, sizeof mut);
		for (k = 0; k <= n; k++)
			fn(guard_place_str(&g, seeds[i], k), k);
		for (k = 0; k < n; k++) {
			for (h = 0; h < NHOSTILE; h++) {
				memcpy(mut, seeds[i], n);
				mut[k] = hostile[h] ? hostile[h] : 'x';
				fn(guard_place_str(&g, mut, n), n);
			}
		}
	}
	guard_free(&g);
}

START_TEST(test_ranks_malformed)
{
	static const char *const seeds[] = {
		"1-8", "2,4,8", "1-2,5", "65536", "1-65536", "3-1",
		"0000000000000000000000000000000001-4", "99999999999999999999",
	};

	sweep(seeds, sizeof seeds / sizeof seeds[0], check_ranks);
}
END_TEST

START_TEST(test_count_malformed)
{
	static const char *const seeds[] = {
		"1025", "1k", "2M", "3g", "18446744073709551615",
		"18446744073709551616", "17179869183G", "0",
	};

	sweep(seeds, sizeof seeds / sizeof seeds[0], check_count);
}
END_TEST

static Suite *parsers_suite(void)
{
	Suite *s = suite_create("parsers");
	TCase *json = tcase_create("json"), *expect = tcase_create("expect");
	TCase *values = tcase_create("values");

	/* a few seconds each under ASan; a hang is a failure, not a stall */
	tcase_set_timeout(json, 60);
	tcase_set_timeout(expect, 60);
	tcase_set_timeout(values, 30);
	tcase_add_test(json, test_json_prefixes);
	tcase_add_test(json, test_json_one_byte);
	tcase_add_test(expect, test_expect_prefixes);
	tcase_add_test(expect, test_expect_one_byte);
	tcase_add_test(values, test_ranks_malformed);
	tcase_add_test(values, test_count_malformed);
	suite_add_tcase(s, json);
	suite_add_tcase(s, expect);
	suite_add_tcase(s, values);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(parsers_suite());
	int failed;

	/* each test in its own child, whatever CK_FORK says */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
