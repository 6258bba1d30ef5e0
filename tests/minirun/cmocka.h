/*
 * cmocka.h (tests/minirun) - the part of CMocka's API that the `gpu`
 * tests use, for a machine without CMocka (the GPU test machine; docs/
 * gpu.md): a test list, a group runner, the assertions, fail and skip. No
 * mocks, no expectations. Built only where pkg-config finds no CMocka and
 * CS_TEST_FRAMEWORKS=AUTO; tests/CMakeLists.txt (cs_test) then links the
 * tests labelled `gpu` against it and configures no other CMocka test.
 *
 * Semantics kept from CMocka: a failed assertion ends its test (the next
 * test runs); cmocka_run_group_tests returns the number of tests that
 * failed (0: all passed or skipped); a group setup that fails fails the
 * group. Output is one line per test: "minirun: PASS|FAIL|SKIP name".
 */
#ifndef CS_MINIRUN_CMOCKA_H
#define CS_MINIRUN_CMOCKA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*CMUnitTestFunction)(void **state);
typedef int (*CMFixtureFunction)(void **state);

struct CMUnitTest {
	const char *name;
	CMUnitTestFunction test_func;
	CMFixtureFunction setup_func;
	CMFixtureFunction teardown_func;
	void *initial_state;
};

/* Run the n tests of tests[] in order, between group_setup and
 * group_teardown (either may be NULL); returns how many failed. */
int cs_minirun_group(const char *group, const struct CMUnitTest *tests,
		     size_t n, CMFixtureFunction group_setup,
		     CMFixtureFunction group_teardown);

/* The assertions' backs: each returns when the condition holds and ends
 * the running test (FAIL, with file:line and what) when it does not. */
void cs_minirun_check(int ok, const char *file, int line, const char *fmt,
		      ...);
void cs_minirun_ints(uintmax_t a, uintmax_t b, int want_equal,
		     const char *ea, const char *eb, const char *file,
		     int line);
void cs_minirun_range(uintmax_t v, uintmax_t lo, uintmax_t hi, int want_in,
		      const char *ev, const char *file, int line);
void cs_minirun_mem(const void *a, const void *b, size_t n, int want_equal,
		    const char *ea, const char *eb, const char *file,
		    int line);
void cs_minirun_str(const char *a, const char *b, int want_equal,
		    const char *ea, const char *eb, const char *file,
		    int line);
/* End the running test: skipped (skip) or failed. */
void cs_minirun_skip(const char *file, int line);
void cs_minirun_print(int to_stderr, const char *fmt, ...);

#define cmocka_unit_test(f) { #f, f, NULL, NULL, NULL }
#define cmocka_unit_test_setup(f, s) { #f, f, s, NULL, NULL }
#define cmocka_unit_test_teardown(f, t) { #f, f, NULL, t, NULL }
#define cmocka_unit_test_setup_teardown(f, s, t) { #f, f, s, t, NULL }
#define cmocka_unit_test_prestate(f, st) { #f, f, NULL, NULL, st }
#define cmocka_run_group_tests(t, gs, gt) \
	cs_minirun_group(#t, t, sizeof(t) / sizeof((t)[0]), gs, gt)
#define cmocka_run_group_tests_name(name, t, gs, gt) \
	cs_minirun_group(name, t, sizeof(t) / sizeof((t)[0]), gs, gt)

#define cs_mr_u(x) ((uintmax_t)(x))
#define assert_true(c) \
	cs_minirun_check(!!(c), __FILE__, __LINE__, "%s is false", #c)
#define assert_false(c) \
	cs_minirun_check(!(c), __FILE__, __LINE__, "%s is true", #c)
#define assert_null(p) cs_minirun_check((p) == NULL, __FILE__, __LINE__, \
					"%s is not NULL", #p)
#define assert_non_null(p) cs_minirun_check((p) != NULL, __FILE__, \
					    __LINE__, "%s is NULL", #p)
#define assert_ptr_equal(a, b) \
	cs_minirun_check((const void *)(a) == (const void *)(b), __FILE__, \
			 __LINE__, "%s != %s", #a, #b)
#define assert_ptr_not_equal(a, b) \
	cs_minirun_check((const void *)(a) != (const void *)(b), __FILE__, \
			 __LINE__, "%s == %s", #a, #b)
#define assert_int_equal(a, b) \
	cs_minirun_ints(cs_mr_u(a), cs_mr_u(b), 1, #a, #b, __FILE__, __LINE__)
#define assert_int_not_equal(a, b) \
	cs_minirun_ints(cs_mr_u(a), cs_mr_u(b), 0, #a, #b, __FILE__, __LINE__)
#define assert_return_code(rc, err) \
	cs_minirun_check((rc) >= 0, __FILE__, __LINE__, "%s < 0 (%s = %d)", \
			 #rc, #err, (int)(err))
#define assert_in_range(v, lo, hi) \
	cs_minirun_range(cs_mr_u(v), cs_mr_u(lo), cs_mr_u(hi), 1, #v, \
			 __FILE__, __LINE__)
#define assert_not_in_range(v, lo, hi) \
	cs_minirun_range(cs_mr_u(v), cs_mr_u(lo), cs_mr_u(hi), 0, #v, \
			 __FILE__, __LINE__)
#define assert_memory_equal(a, b, n) \
	cs_minirun_mem(a, b, n, 1, #a, #b, __FILE__, __LINE__)
#define assert_memory_not_equal(a, b, n) \
	cs_minirun_mem(a, b, n, 0, #a, #b, __FILE__, __LINE__)
#define assert_string_equal(a, b) \
	cs_minirun_str(a, b, 1, #a, #b, __FILE__, __LINE__)
#define assert_string_not_equal(a, b) \
	cs_minirun_str(a, b, 0, #a, #b, __FILE__, __LINE__)
#define fail() cs_minirun_check(0, __FILE__, __LINE__, "fail()")
#define fail_msg(...) cs_minirun_check(0, __FILE__, __LINE__, __VA_ARGS__)
#define skip() cs_minirun_skip(__FILE__, __LINE__)
#define print_message(...) cs_minirun_print(0, __VA_ARGS__)
#define print_error(...) cs_minirun_print(1, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif /* CS_MINIRUN_CMOCKA_H */
