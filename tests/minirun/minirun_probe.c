/*
 * minirun_probe.c - a program on tests/minirun whose first test breaks the
 * assertion named on its command line (or none: "pass") and whose second
 * test passes; test_minirun.sh reads its exit status and output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka.h"

static const char *kind = "pass";

/* Each assertion, held when ok is 1 and broken when it is 0. */
static void one(const char *k, int ok)
{
	int a = 3, b = ok ? 3 : 4;
	char m1[4] = "abc", m2[4] = "abc";
	void *p = ok ? NULL : (void *)m1;

	if (!ok)
		m2[2] = 'x';
	if (!strcmp(k, "true"))
		assert_true(a == b);
	else if (!strcmp(k, "false"))
		assert_false(a != b);
	else if (!strcmp(k, "int_equal"))
		assert_int_equal(a, b);
	else if (!strcmp(k, "int_not_equal"))
		assert_int_not_equal(a, ok ? b + 1 : b - 1);
	else if (!strcmp(k, "null"))
		assert_null(p);
	else if (!strcmp(k, "non_null"))
		assert_non_null(ok ? (void *)m1 : NULL);
	else if (!strcmp(k, "memory_equal"))
		assert_memory_equal(m1, m2, sizeof m1);
	else if (!strcmp(k, "memory_not_equal"))
		assert_memory_not_equal(m1, ok ? "abd" : "abc", sizeof m1);
	else if (!strcmp(k, "string_equal"))
		assert_string_equal(m1, m2);
	else if (!strcmp(k, "in_range"))
		assert_in_range(b, 0, 3);
	else if (!strcmp(k, "fail") && !ok)
		fail();
	else if (!strcmp(k, "fail_msg") && !ok)
		fail_msg("broken on purpose: %d", a);
	else if (!strcmp(k, "skip") && !ok)
		skip();
}

static void test_breaks(void **state)
{
	(void)state;
	one(kind, 0);
	printf("probe: after the assertion\n");
}

static void test_holds(void **state)
{
	static const char *all[] = {"true", "false", "int_equal",
		"int_not_equal", "null", "non_null", "memory_equal",
		"memory_not_equal", "string_equal", "in_range"};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		one(all[i], 1);
	printf("probe: every assertion held\n");
}

static int setup_fails(void **state)
{
	(void)state;
	return -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breaks),
		cmocka_unit_test(test_holds),
	};
	const struct CMUnitTest holds_only[] = {
		cmocka_unit_test(test_holds),
	};

	if (argc > 1)
		kind = argv[1];
	if (!strcmp(kind, "pass"))
		return cmocka_run_group_tests(holds_only, NULL, NULL);
	if (!strcmp(kind, "group_setup"))
		return cmocka_run_group_tests(holds_only, setup_fails, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
