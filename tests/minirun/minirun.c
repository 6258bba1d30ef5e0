/*
 * minirun.c - the runner and the assertions of tests/minirun/cmocka.h.
 * A failed assertion or skip() jumps back to the runner, which marks the
 * test and goes on with the next (tests are run in this one process).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cmocka.h"

enum { MR_PASS, MR_FAIL, MR_SKIP };

static jmp_buf mr_back;     /* where a failed test returns to */
static int mr_running;      /* a test is between setjmp and its end */

static void mr_end(int how)
{
	fflush(stdout);
	if (!mr_running) {
		/* an assertion outside any test: nothing to return to */
		fprintf(stderr, "minirun: assertion outside a test\n");
		_Exit(1);
	}
	longjmp(mr_back, how);
}

void cs_minirun_check(int ok, const char *file, int line, const char *fmt,
		      ...)
{
	va_list ap;

	if (ok)
		return;
	fprintf(stderr, "minirun: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	mr_end(MR_FAIL);
}

void cs_minirun_ints(uintmax_t a, uintmax_t b, int want_equal,
		     const char *ea, const char *eb, const char *file,
		     int line)
{
	cs_minirun_check((a == b) == want_equal, file, line,
			 "%s (%" PRIuMAX ", %#" PRIxMAX ") %s %s (%" PRIuMAX
			 ", %#" PRIxMAX ")", ea, a, a,
			 want_equal ? "!=" : "==", eb, b, b);
}

void cs_minirun_range(uintmax_t v, uintmax_t lo, uintmax_t hi, int want_in,
		      const char *ev, const char *file, int line)
{
	cs_minirun_check((v >= lo && v <= hi) == want_in, file, line,
			 "%s = %" PRIuMAX " is %s [%" PRIuMAX ", %" PRIuMAX
			 "]", ev, v, want_in ? "outside" : "inside", lo, hi);
}

void cs_minirun_mem(const void *a, const void *b, size_t n, int want_equal,
		    const char *ea, const char *eb, const char *file,
		    int line)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	while (i < n && x[i] == y[i])
		i++;
	if (want_equal)
		cs_minirun_check(i == n, file, line, "%s and %s differ at "
				 "byte %zu of %zu (%#x, %#x)", ea, eb, i, n,
				 i < n ? (unsigned)x[i] : 0u,
				 i < n ? (unsigned)y[i] : 0u);
	else
		cs_minirun_check(i < n, file, line, "%s and %s are equal over "
				 "%zu bytes", ea, eb, n);
}

void cs_minirun_str(const char *a, const char *b, int want_equal,
		    const char *ea, const char *eb, const char *file,
		    int line)
{
	int same = a && b ? strcmp(a, b) == 0 : a == b;

	cs_minirun_check(same == want_equal, file, line, "%s (\"%s\") %s %s "
			 "(\"%s\")", ea, a ? a : "(null)",
			 want_equal ? "!=" : "==", eb, b ? b : "(null)");
}

void cs_minirun_skip(const char *file, int line)
{
	fprintf(stderr, "minirun: %s:%d: skipped\n", file, line);
	mr_end(MR_SKIP);
}

void cs_minirun_print(int to_stderr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(to_stderr ? stderr : stdout, fmt, ap);
	va_end(ap);
}

/* One test with its fixtures; MR_PASS, MR_FAIL or MR_SKIP. */
static int mr_one(const struct CMUnitTest *t, void *group_state)
{
	void *volatile state = t->initial_state ? t->initial_state
						: group_state;
	volatile int how = MR_PASS; /* set after setjmp returns again */

	mr_running = 1;
	switch (setjmp(mr_back)) {
	case 0:
		if (t->setup_func && t->setup_func((void **)&state) != 0)
			cs_minirun_check(0, "(setup)", 0, "%s's setup failed",
					 t->name);
		t->test_func((void **)&state);
		break;
	case MR_SKIP:
		how = MR_SKIP;
		break;
	default:
		how = MR_FAIL;
		break;
	}
	mr_running = 0;
	if (t->teardown_func && t->teardown_func((void **)&state) != 0 &&
	    how == MR_PASS) {
		fprintf(stderr, "minirun: %s's teardown failed\n", t->name);
		how = MR_FAIL;
	}
	return how;
}

int cs_minirun_group(const char *group, const struct CMUnitTest *tests,
		     size_t n, CMFixtureFunction group_setup,
		     CMFixtureFunction group_teardown)
{
	static const char *word[] = {"PASS", "FAIL", "SKIP"};
	void *state = NULL;
	int failed = 0, how;
	size_t i;

	printf("minirun: %s: %zu test(s)\n", group, n);
	if (group_setup && group_setup(&state) != 0) {
		printf("minirun: FAIL %s: group setup failed\n", group);
		return (int)(n ? n : 1);
	}
	for (i = 0; i < n; i++) {
		how = mr_one(&tests[i], state);
		failed += how == MR_FAIL;
		printf("minirun: %s %s\n", word[how], tests[i].name);
		fflush(stdout);
	}
	if (group_teardown && group_teardown(&state) != 0) {
		printf("minirun: FAIL %s: group teardown failed\n", group);
		failed++;
	}
	printf("minirun: %s: %d failed of %zu\n", group, failed, n);
	return failed;
}
