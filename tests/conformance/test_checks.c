/*
 * test_checks.c - the check registry (conformance/base/check_registry.c) on its own:
 * names unique and well formed, the verdicts each can set, priorities a
 * strict order with the head that docs/reports.md documents, lookups, and
 * the checks an expectations entry may name. test_check_sources.c holds
 * the registry against the harness's sources.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "base/check_registry.h"
#include "base/names.h"
#include "base/result.h"
#include "report/expect.h"

/* ---- the registry on its own ---------------------------------------------- */

static size_t nrows(void)
{
	size_t n = 0;

	while (cs_check_at(n))
		n++;
	return n;
}

static void test_names(void **state)
{
	const cs_check_info_t *a, *b;
	cs_result_t r;
	size_t i, j, n = nrows();

	(void)state;
	assert_true(n >= 15);
	for (i = 0; i < n; i++) {
		a = cs_check_at(i);
		assert_non_null(a->name);
		assert_true(a->name[0] != '\0');
		assert_int_equal(strspn(a->name, "abcdefghijklmnopqrstuvwxyz"),
				 strlen(a->name));
		assert_true(strlen(a->name) < sizeof r.check);
		assert_non_null(a->desc);
		assert_true(strlen(a->desc) > 20);
		assert_null(strchr(a->desc, '\n'));
		assert_non_null(a->setter);
		for (j = i + 1; j < n; j++) {
			b = cs_check_at(j);
			if (!strcmp(a->name, b->name))
				fail_msg("check '%s' has two rows", a->name);
		}
		assert_ptr_equal(cs_check_find(a->name), a);
	}
	assert_null(cs_check_find("no-such-check"));
	assert_null(cs_check_find(""));
	assert_null(cs_check_find(NULL));
	assert_null(cs_check_at(n));
}

/* No check sets PASS, and XFAIL keeps the check of the FAIL it hides. */
static void test_verdicts(void **state)
{
	const cs_check_info_t *c;
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		assert_true(c->verdicts != 0);
		assert_false(c->verdicts & CS_CHECK_V(CS_V_PASS));
		assert_false(c->verdicts & CS_CHECK_V(CS_V_XFAIL));
		assert_true(c->verdicts < CS_CHECK_V(CS_NUM_VERDICTS));
	}
	cs_check_verdicts_text(cs_check_find("bias"), buf, sizeof buf);
	assert_string_equal(buf, "FAIL or WARN");
	cs_check_verdicts_text(cs_check_find("value"), buf, sizeof buf);
	assert_string_equal(buf, "FAIL");
	cs_check_verdicts_text(cs_check_find("expect"), buf, sizeof buf);
	assert_string_equal(buf, "XPASS");
	cs_check_verdicts_text(cs_check_find("sign"), buf, 7);
	assert_string_equal(buf, "FAIL o");
	cs_check_verdicts_text(NULL, buf, sizeof buf);
	assert_string_equal(buf, "");
}

/* Ranked rows first, priorities 0..k-1 in table order (a strict order);
 * everything else ranks after them, together. */
static void test_priorities(void **state)
{
	const cs_check_info_t *c;
	size_t i;
	int k = 0, unranked_seen = 0;

	(void)state;
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		if (c->prio == CS_CHECK_UNRANKED) {
			unranked_seen = 1;
			continue;
		}
		assert_false(unranked_seen);
		assert_int_equal(c->prio, k);
		assert_int_equal(cs_check_priority(c->name), k);
		k++;
	}
	assert_true(k >= 2);
	for (i = 0; (c = cs_check_at(i)) != NULL; i++)
		if (c->prio == CS_CHECK_UNRANKED)
			assert_int_equal(cs_check_priority(c->name), k);
	assert_int_equal(cs_check_priority(""), k);
	assert_int_equal(cs_check_priority("no-such-check"), k);
	assert_int_equal(cs_check_priority(NULL), k);
}

/* The order docs/reports.md ("A failure's detail") promises for the row
 * shown when ranks fail differently. */
static void test_documented_order(void **state)
{
	static const char *const doc[] = {"error", "guard", "sendbuf",
					  "untouched", "value", "identity",
					  "nanrule"};
	size_t i;

	(void)state;
	for (i = 0; i + 1 < sizeof doc / sizeof doc[0]; i++)
		assert_true(cs_check_priority(doc[i]) <
			    cs_check_priority(doc[i + 1]));
	/* a FAIL of the harness itself never hides one of the backend's */
	assert_true(cs_check_priority("precision") <
		    cs_check_priority("harness"));
}

/* What an expectations entry may name: the checks that can FAIL a case;
 * not a WARN, SKIP, INFO or XPASS check, nor the run's "load". */
static void test_expectable(void **state)
{
	static const char *const yes[] = {"error", "value", "identity",
					  "sign", "harness", "crash", "hang"};
	static const char *const no[] = {"determinism", "skip", "profile",
					 "expect", "load"};
	size_t i;
	int n = cs_expect_nchecks();

	(void)state;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_true(cs_check_expectable(cs_check_find(yes[i])));
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_false(cs_check_expectable(cs_check_find(no[i])));
	assert_false(cs_check_expectable(NULL));
	/* an entry's checks are bits 0..30 of a word (failsig.h: bit 31) */
	assert_true(n > 0 && n <= 31);
	for (i = 0; (int)i < n; i++)
		assert_true(cs_check_expectable(
			cs_check_find(cs_expect_check_name((int)i))));
	assert_null(cs_expect_check_name(n));
	assert_null(cs_expect_check_name(-1));
}

/* The check families of the failure signatures, as docs/reports.md
 * ("Failure signatures") lists them; every other check is "other". */
static void test_families(void **state)
{
	static const struct {
		const char *name;
		cs_check_family_t fam;
	} doc[] = {
		{"value", CS_CHECKF_VALUES}, {"nanrule", CS_CHECKF_VALUES},
		{"ovfrule", CS_CHECKF_VALUES}, {"sign", CS_CHECKF_VALUES},
		{"bias", CS_CHECKF_VALUES}, {"precision", CS_CHECKF_VALUES},
		{"guard", CS_CHECKF_MEMORY}, {"sendbuf", CS_CHECKF_MEMORY},
		{"untouched", CS_CHECKF_MEMORY}, {"guardpage", CS_CHECKF_MEMORY},
		{"identity", CS_CHECKF_IDENTITY},
		{"bitidentity", CS_CHECKF_IDENTITY},
		{"crash", CS_CHECKF_CRASH}, {"hang", CS_CHECKF_CRASH},
		{"error", CS_CHECKF_ERROR},
	};
	const cs_check_info_t *c;
	size_t i, k;
	cs_check_family_t want;

	(void)state;
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		want = CS_CHECKF_OTHER;
		for (k = 0; k < sizeof doc / sizeof doc[0]; k++)
			if (!strcmp(doc[k].name, c->name))
				want = doc[k].fam;
		if (c->family != want)
			fail_msg("check '%s': family %d, docs say %d", c->name,
				 (int)c->family, (int)want);
	}
	for (k = 0; k < sizeof doc / sizeof doc[0]; k++)
		assert_non_null(cs_check_find(doc[k].name));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_priorities),
		cmocka_unit_test(test_documented_order),
		cmocka_unit_test(test_expectable),
		cmocka_unit_test(test_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
