/*
 * test_driver.c - the driver (conformance/driver*.c) through the real
 * mpiexec, with fake_worker standing in for `collspec run`: a crash or a
 * hang becomes a FAIL for exactly that case, the sweep resumes after it,
 * the environment reaches the workers, and no process of a launch
 * survives the driver, not even ranks that ignore SIGTERM or a child a
 * rank left behind.
 *
 *   test_driver [MPIEXEC]
 * runs them under MPIEXEC (default CS_TEST_MPIEXEC, the build's): CTest
 * runs it once per launcher installed (Open MPI's, MPICH's Hydra), each
 * with its own profile of options and crash messages (launcher.h).
 * CS_FAKE_WORKER and CS_TEST_MPIEXEC are set by the build.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "driver/driver.h"

#define MAXR 64

static struct {
	cs_result_t r[MAXR];
	int n;
} got;

static char dir[64], pidfile[128], launchlog[128];
static const char *mpiexec = CS_TEST_MPIEXEC;

static void sink(const cs_result_t *r, void *ctx)
{
	(void)ctx;
	if (got.n < MAXR)
		got.r[got.n] = *r;
	got.n++;
}

static int setup(void **state)
{
	static const char *vars[] = {"CS_FAKE_NCASES", "CS_FAKE_CRASH",
		"CS_FAKE_HANG", "CS_FAKE_STUBBORN", "CS_FAKE_CHILD",
		"CS_FAKE_EXIT", "CS_FAKE_TOKEN"};
	size_t i;

	for (i = 0; i < sizeof vars / sizeof *vars; i++)
		unsetenv(vars[i]);
	snprintf(dir, sizeof dir, "/tmp/cs-driver-test-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(pidfile, sizeof pidfile, "%s/pids", dir);
	snprintf(launchlog, sizeof launchlog, "%s/launches", dir);
	setenv("CS_FAKE_PIDFILE", pidfile, 1);
	setenv("CS_FAKE_LAUNCHLOG", launchlog, 1);
	memset(&got, 0, sizeof got);
	return 0;
}

static int teardown(void **state)
{
	unlink(pidfile);
	unlink(launchlog);
	rmdir(dir);
	return 0;
}

static cs_driver_opts_t opts(const int *sizes, int nsizes, double timeout)
{
	static char *args[] = {"--suite", "quick"};
	cs_driver_opts_t o;

	memset(&o, 0, sizeof o);
	o.sizes = sizes;
	o.nsizes = nsizes;
	o.case_timeout = timeout;
	o.mpiexec = mpiexec;
	o.self = CS_FAKE_WORKER;
	o.worker_args = args;
	o.nworker_args = 2;
	return o;
}

static void read_file(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k = f ? fread(buf, 1, n - 1, f) : 0;

	buf[k] = '\0';
	if (f)
		fclose(f);
}

/* Alive: signalable and not a zombie. */
static int alive(int pid)
{
	char path[64], buf[512] = "", *p;
	FILE *f;

	if (kill(pid, 0) != 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof buf, f))
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Every process the fake workers started is gone; returns how many. */
static int assert_no_survivors(void)
{
	char buf[8192], *line, *save = NULL;
	int n = 0;

	read_file(pidfile, buf, sizeof buf);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int pid = atoi(line);
		if (alive(pid))
			fail_msg("process %d of a launch survived the driver", pid);
		n++;
	}
	assert_true(n > 0); /* the check saw the processes it checks */
	return n;
}

/* Results [from, from+n) are cases 0..n-1 at P ranks, case `bad` a FAIL
 * with check `check`, the others PASS with the token. */
static void assert_sweep(int from, int n, int P, int bad, const char *check)
{
	int i;

	for (i = 0; i < n; i++) {
		const cs_result_t *r = &got.r[from + i];
		assert_int_equal(r->hc.index, i);
		assert_int_equal(r->hc.c.nranks, P);
		if (i == bad) {
			assert_int_equal(r->verdict, CS_V_FAIL);
			assert_string_equal(r->check, check);
		} else {
			assert_int_equal(r->verdict, CS_V_PASS);
			assert_string_equal(r->check, "value");
			assert_string_equal(r->info, "token-7");
		}
	}
}

static void test_crash_resumes(void **state)
{
	static const int sizes[] = {2};
	cs_driver_opts_t o = opts(sizes, 1, 20);
	char log[256];

	setenv("CS_FAKE_NCASES", "5", 1);
	setenv("CS_FAKE_CRASH", "2", 1);
	setenv("CS_FAKE_TOKEN", "token-7", 1); /* the environment goes through */
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_OK);
	assert_int_equal(got.n, 5);
	assert_sweep(0, 5, 2, 2, "crash");
	/* the same words whichever launcher reported it */
	assert_non_null(strstr(got.r[2].reason, "a rank died of signal 11 "
			       "(Segmentation fault)"));
	read_file(launchlog, log, sizeof log);
	assert_string_equal(log, "first=0\nfirst=3\n");
	assert_no_survivors();
}

static void test_hang_resumes(void **state)
{
	static const int sizes[] = {1, 3};
	cs_driver_opts_t o = opts(sizes, 2, 2.0);
	char log[256];

	setenv("CS_FAKE_NCASES", "4", 1);
	setenv("CS_FAKE_HANG", "1", 1);
	setenv("CS_FAKE_STUBBORN", "1", 1); /* SIGTERM is not enough */
	setenv("CS_FAKE_CHILD", "1", 1);    /* and each rank leaves a child */
	setenv("CS_FAKE_TOKEN", "token-7", 1);
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_OK);
	assert_int_equal(got.n, 8);
	assert_sweep(0, 4, 1, 1, "hang");
	assert_sweep(4, 4, 3, 1, "hang");
	assert_non_null(strstr(got.r[1].reason, "timeout"));
	read_file(launchlog, log, sizeof log);
	assert_string_equal(log, "first=0\nfirst=2\nfirst=0\nfirst=2\n");
	/* P=1: 1 rank + child, twice; P=3: 3 ranks + children, twice */
	assert_int_equal(assert_no_survivors(), 2 * 2 + 2 * 6);
}

/* A worker that fails before any case: an error after two tries, not a
 * loop; a worker that exits 1 (failures found) is done. */
static void test_launch_failure(void **state)
{
	cs_driver_opts_t o = opts(NULL, 0, 5);
	char log[256];

	o.rmin = o.rmax = 2;
	setenv("CS_FAKE_EXIT", "2", 1);
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "twice"));
	assert_int_equal(got.n, 0);
	read_file(launchlog, log, sizeof log);
	assert_string_equal(log, "first=0\nfirst=0\n");
	assert_no_survivors();
}

static void test_no_launcher(void **state)
{
	cs_driver_opts_t o = opts(NULL, 0, 5);
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	o.rmin = 1;
	o.rmax = 2;
	o.mpiexec = "/nonexistent/mpiexec";
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "mpiexec"));
	o.mpiexec = "mpiexec"; /* a bare name is looked up on PATH */
	setenv("PATH", "/nonexistent-dir", 1);
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "no 'mpiexec' on PATH"));
	/* none named: the build's launcher, found without PATH */
	assert_string_equal(cs_driver_default_launcher(), CS_TEST_MPIEXEC);
	if (path)
		setenv("PATH", path, 1);
	free(path);
	assert_int_equal(got.n, 0);
}

static void test_bad_options(void **state)
{
	static const int zero[] = {0};
	cs_driver_opts_t o = opts(NULL, 0, 5);

	o.rmin = 0;
	o.rmax = 2;
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_INVALID);
	o.rmin = 3;
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_INVALID);
	o.rmin = 1;
	assert_int_equal(cs_driver_run(&o, NULL, NULL), CS_ERR_INVALID);
	o.case_timeout = 0;
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_INVALID);
	o = opts(zero, 1, 5);
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_INVALID);
	o = opts(NULL, 0, 5);
	o.rmin = o.rmax = 1;
	o.self = "/nonexistent/collspec";
	assert_int_equal(cs_driver_run(&o, sink, NULL), CS_ERR_INVALID);
	assert_int_equal(got.n, 0);
}

static int count_lines(const char *path)
{
	char buf[4096];
	int n = 0;
	char *p;

	read_file(path, buf, sizeof buf);
	for (p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

/* SIGTERM to the driver while a case hangs: the workers die with it. */
static void test_signal_kills_workers(void **state)
{
	static const int sizes[] = {2};
	struct timespec tick = {0, 50 * 1000 * 1000};
	int status, i;
	pid_t child;

	setenv("CS_FAKE_NCASES", "3", 1);
	setenv("CS_FAKE_HANG", "0", 1);
	setenv("CS_FAKE_STUBBORN", "1", 1);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		cs_driver_opts_t o = opts(sizes, 1, 60);
		cs_driver_run(&o, sink, NULL);
		_exit(0);
	}
	for (i = 0; i < 400 && count_lines(pidfile) < 2; i++)
		nanosleep(&tick, NULL);
	assert_int_equal(count_lines(pidfile), 2);
	nanosleep(&tick, NULL);
	kill(child, SIGTERM);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_no_survivors();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_crash_resumes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hang_resumes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_launch_failure, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_launcher, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_options, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_signal_kills_workers,
						setup, teardown),
	};

	if (argc > 1)
		mpiexec = argv[1];
	printf("test_driver: launcher %s\n", mpiexec);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
