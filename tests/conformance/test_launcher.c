/*
 * test_launcher.c - the launcher profiles (conformance/driver/launcher.c): which
 * profile a `--version` text is, the options of each, and the signal of a
 * rank's death read from mpiexec's exit status and messages.
 *
 * The texts below were captured on Debian 12 from Open MPI 4.1.4's and
 * MPICH 4.0.2's (Hydra) mpiexec: `--version`, and a 2-rank program whose
 * rank 1 raises SIGSEGV (stdout and stderr, the ranks' own backtraces
 * left out), or calls exit(11). The expected signals and ranks are read
 * off those texts by hand. Runs no launcher except in
 * test_detect_installed (skipped where none is installed).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "driver/launcher.h"

static const char ompi_version[] =
	"mpiexec (OpenRTE) 4.1.4\n"
	"\n"
	"Report bugs to http://www.open-mpi.org/community/help/\n";

static const char hydra_version[] =
	"HYDRA build details:\n"
	"    Version:                                 4.0.2\n"
	"    Release Date:                            Thu Apr  7 12:34:45 CDT 2022\n"
	"    Process Manager:                         pmi\n"
	"    Launchers available:                     ssh rsh fork slurm ll lsf sge manual persist\n";

/* rank 1 raised SIGSEGV; mpiexec exited with 139 (stderr) */
static const char ompi_segv[] =
	"--------------------------------------------------------------------------\n"
	"Primary job  terminated normally, but 1 process returned\n"
	"a non-zero exit code. Per user-direction, the job has been aborted.\n"
	"--------------------------------------------------------------------------\n"
	"--------------------------------------------------------------------------\n"
	"mpiexec.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 11 (Segmentation fault).\n"
	"--------------------------------------------------------------------------\n";

/* rank 1 called exit(11); mpiexec exited with 11 (stderr) */
static const char ompi_exit11[] =
	"--------------------------------------------------------------------------\n"
	"mpiexec.openmpi detected that one or more processes exited with non-zero status, thus causing\n"
	"the job to be terminated. The first process to do so was:\n"
	"\n"
	"  Process name: [[26137,1],1]\n"
	"  Exit code:    11\n"
	"--------------------------------------------------------------------------\n";

/* rank 1 raised SIGSEGV; mpiexec exited with 11 (stdout). Before it, the
 * first line of the rank's UCX backtrace from stderr, which is not
 * mpiexec's report: its signal changed from 11 to 7, so that a parser
 * reading it instead would be seen. */
static const char hydra_segv[] =
	"[vm:20822:0:20822] Caught signal 7 (Bus error: tkill(2) or tgkill(2) at address 0x5156)\n"
	"\n"
	"===================================================================================\n"
	"=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
	"=   PID 20822 RUNNING AT vm\n"
	"=   EXIT CODE: 11\n"
	"=   CLEANING UP REMAINING PROCESSES\n"
	"=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n"
	"===================================================================================\n"
	"YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)\n"
	"This typically refers to a problem with your application.\n"
	"Please see the FAQ page for debugging suggestions\n";

/* the same with SIGABRT in rank 0: exit status 6 */
static const char hydra_abort[] =
	"YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)\n"
	"This typically refers to a problem with your application.\n";

#define EXITED(code) ((code) << 8) /* a wait status, as waitpid writes it */

static void test_kind_of(void **state)
{
	(void)state;
	assert_int_equal(cs_launcher_kind_of(ompi_version), CS_LAUNCHER_OPENMPI);
	assert_int_equal(cs_launcher_kind_of("mpiexec (Open MPI) 5.0.3\n"),
			 CS_LAUNCHER_OPENMPI);
	assert_int_equal(cs_launcher_kind_of(hydra_version), CS_LAUNCHER_HYDRA);
	assert_int_equal(cs_launcher_kind_of(NULL), CS_LAUNCHER_GENERIC);
	assert_int_equal(cs_launcher_kind_of(""), CS_LAUNCHER_GENERIC);
	assert_int_equal(cs_launcher_kind_of("slurm 22.05.8\n"),
			 CS_LAUNCHER_GENERIC);
	assert_string_equal(cs_launcher_name(CS_LAUNCHER_HYDRA), "MPICH (Hydra)");
	assert_string_equal(cs_launcher_name(CS_LAUNCHER_OPENMPI), "Open MPI");
	assert_string_equal(cs_launcher_name((cs_launcher_kind_t)99), "generic");
}

static void test_flags(void **state)
{
	const char *f[CS_LAUNCHER_MAX_FLAGS];

	(void)state;
	assert_int_equal(cs_launcher_flags(CS_LAUNCHER_OPENMPI, 0, f), 2);
	assert_string_equal(f[0], "--oversubscribe");
	assert_string_equal(f[1], "--allow-run-as-root");
	assert_int_equal(cs_launcher_flags(CS_LAUNCHER_OPENMPI, 1000, f), 1);
	assert_string_equal(f[0], "--oversubscribe");
	/* Hydra refuses both ("unrecognized argument oversubscribe") */
	assert_int_equal(cs_launcher_flags(CS_LAUNCHER_HYDRA, 0, f), 0);
	assert_int_equal(cs_launcher_flags(CS_LAUNCHER_GENERIC, 0, f), 0);
	assert_int_equal(cs_launcher_flags(CS_LAUNCHER_OPENMPI, 0, NULL), 0);
}

static void expect_death(cs_launcher_kind_t k, int code, const char *text,
			 int sig, int rank)
{
	int r = 1234;

	assert_int_equal(cs_launcher_death_signal(k, EXITED(code), text, &r),
			 sig);
	assert_int_equal(r, rank);
}

static void test_death_signal(void **state)
{
	(void)state;
	/* Open MPI: from the text (with the rank), or 128 + signal */
	expect_death(CS_LAUNCHER_OPENMPI, 139, ompi_segv, 11, 1);
	expect_death(CS_LAUNCHER_OPENMPI, 139, NULL, 11, -1);
	expect_death(CS_LAUNCHER_OPENMPI, 11, ompi_exit11, 0, -1);
	expect_death(CS_LAUNCHER_OPENMPI, 1, "", 0, -1);
	/* Hydra: from the text only; its status 11 is also exit(11) */
	expect_death(CS_LAUNCHER_HYDRA, 11, hydra_segv, 11, -1);
	expect_death(CS_LAUNCHER_HYDRA, 6, hydra_abort, 6, -1);
	expect_death(CS_LAUNCHER_HYDRA, 11, NULL, 0, -1);
	expect_death(CS_LAUNCHER_HYDRA, 139, "", 0, -1);
	/* generic: the shell's 128 + signal, and both texts */
	expect_death(CS_LAUNCHER_GENERIC, 134, "", 6, -1);
	expect_death(CS_LAUNCHER_GENERIC, 128 + 65, "", 0, -1);
	expect_death(CS_LAUNCHER_GENERIC, 1, hydra_segv, 11, -1);
	expect_death(CS_LAUNCHER_GENERIC, 1, ompi_segv, 11, 1);
	/* a number out of range in the text is no signal */
	expect_death(CS_LAUNCHER_HYDRA, 1, "EXIT STRING: x (signal 99)\n", 0,
		     -1);
	expect_death(CS_LAUNCHER_HYDRA, 1, "EXIT STRING: x (signal -3)\n", 0,
		     -1);
}

static void test_describe(void **state)
{
	char buf[256];

	(void)state;
	cs_launcher_describe(CS_LAUNCHER_OPENMPI, EXITED(139), ompi_segv, buf,
			     sizeof buf);
	assert_string_equal(buf, "mpiexec exited with status 139: a rank died "
			    "of signal 11 (Segmentation fault); mpiexec names "
			    "rank 1");
	cs_launcher_describe(CS_LAUNCHER_HYDRA, EXITED(11), hydra_segv, buf,
			     sizeof buf);
	assert_string_equal(buf, "mpiexec exited with status 11: a rank died "
			    "of signal 11 (Segmentation fault)");
	cs_launcher_describe(CS_LAUNCHER_HYDRA, EXITED(11), "", buf, sizeof buf);
	assert_string_equal(buf, "mpiexec exited with status 11");
	cs_launcher_describe(CS_LAUNCHER_OPENMPI, EXITED(11), ompi_exit11, buf,
			     sizeof buf);
	assert_string_equal(buf, "mpiexec exited with status 11");
	cs_launcher_describe(CS_LAUNCHER_HYDRA, SIGKILL, NULL, buf, sizeof buf);
	assert_string_equal(buf, "mpiexec was killed by signal 9 (Killed)");
	/* cut to the buffer, NUL-terminated */
	memset(buf, 'x', sizeof buf);
	cs_launcher_describe(CS_LAUNCHER_OPENMPI, EXITED(139), NULL, buf, 8);
	assert_string_equal(buf, "mpiexec");
	cs_launcher_describe(CS_LAUNCHER_OPENMPI, EXITED(139), NULL, NULL, 8);
}

/* A fake launcher: a shell script that prints text for --version. */
static void fake_launcher(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat <<'EOF'\n%sEOF\n", text);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_detect(void **state)
{
	char dir[] = "/tmp/cs-launcher-test-XXXXXX", path[64], v[128];
	cs_launcher_kind_t k = CS_LAUNCHER_OPENMPI;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/mpiexec", dir);
	fake_launcher(path, hydra_version);
	assert_int_equal(cs_launcher_detect(path, &k, v, sizeof v), CS_OK);
	assert_int_equal(k, CS_LAUNCHER_HYDRA);
	assert_string_equal(v, "Version: 4.0.2");
	fake_launcher(path, ompi_version);
	assert_int_equal(cs_launcher_detect(path, &k, v, sizeof v), CS_OK);
	assert_int_equal(k, CS_LAUNCHER_OPENMPI);
	assert_string_equal(v, "mpiexec (OpenRTE) 4.1.4");
	fake_launcher(path, "");
	assert_int_equal(cs_launcher_detect(path, &k, NULL, 0), CS_OK);
	assert_int_equal(k, CS_LAUNCHER_GENERIC);
	assert_int_equal(cs_launcher_detect(NULL, &k, v, sizeof v),
			 CS_ERR_INVALID);
	assert_int_equal(cs_launcher_detect(path, NULL, v, sizeof v),
			 CS_ERR_INVALID);
	unlink(path);
	rmdir(dir);
}

/* The launchers installed here are what their profiles say. */
static void test_detect_installed(void **state)
{
	static const struct {
		const char *path;
		cs_launcher_kind_t kind;
	} real[] = {
		{"/usr/bin/mpiexec.openmpi", CS_LAUNCHER_OPENMPI},
		{"/usr/bin/mpiexec.mpich", CS_LAUNCHER_HYDRA},
	};
	size_t i, seen = 0;

	(void)state;
	for (i = 0; i < sizeof real / sizeof *real; i++) {
		cs_launcher_kind_t k = CS_LAUNCHER_GENERIC;

		if (access(real[i].path, X_OK) != 0)
			continue;
		assert_int_equal(cs_launcher_detect(real[i].path, &k, NULL, 0),
				 CS_OK);
		assert_int_equal(k, real[i].kind);
		seen++;
	}
	if (!seen)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_of),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_death_signal),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_detect_installed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
