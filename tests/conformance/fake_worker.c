/*
 * fake_worker.c - a stand-in for `collspec run` under the driver, for
 * test_driver. It speaks the worker protocol of driver.h without MPI:
 *
 *   fake_worker run --results FILE --first K [ignored arguments]
 *
 * Rank 0 (from OMPI_COMM_WORLD_RANK, or PMI_RANK under MPICH's Hydra)
 * appends a "start" line and a final PASS line for each of the fake cases
 * K..N-1 to FILE. Environment:
 *   CS_FAKE_NCASES=N     number of cases (default 5)
 *   CS_FAKE_CRASH=i      rank 0 dies of SIGSEGV after starting case i
 *   CS_FAKE_HANG=i       every rank stops forever when case i starts
 *   CS_FAKE_STUBBORN=1   ranks ignore SIGTERM (only SIGKILL ends them)
 *   CS_FAKE_CHILD=1      each rank also forks a child that sleeps forever
 *   CS_FAKE_EXIT=c       exit with status c at once, before any case
 *   CS_FAKE_PIDFILE=F    every process appends its pid to F
 *   CS_FAKE_LAUNCHLOG=F  rank 0 appends "first=K" to F on every launch
 *   CS_FAKE_TOKEN=s      copied into each result's info field
 * While a crash or hang case lies ahead, the ranks other than 0 wait
 * forever, as real ranks blocked in a collective would.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/json.h"
#include "base/names.h"
#include "base/result.h"

static long env_long(const char *name, long dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 10) : dflt;
}

static void append(const char *path, const char *text)
{
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		perror("fake_worker: write");
	close(fd);
}

static void note_pid(void)
{
	char line[32];

	snprintf(line, sizeof line, "%d\n", (int)getpid());
	append(getenv("CS_FAKE_PIDFILE"), line);
}

static void forever(void)
{
	for (;;)
		pause();
}

static void write_result(const char *file, size_t index, int P,
			 const char *check)
{
	cs_result_t r;
	char line[8192];
	int n;

	memset(&r, 0, sizeof r);
	r.hc.c.coll = CS_COLL_ALLREDUCE;
	r.hc.c.dtype = CS_DTYPE_FLOAT32;
	r.hc.c.op = CS_OP_SUM;
	r.hc.c.nranks = P;
	r.hc.c.count = 1000 + index;
	r.hc.c.seed = 1;
	r.hc.index = index;
	snprintf(r.backend, sizeof r.backend, "fake");
	r.verdict = CS_V_PASS;
	snprintf(r.check, sizeof r.check, "%s", check);
	snprintf(r.info, sizeof r.info, "%s",
		 getenv("CS_FAKE_TOKEN") ? getenv("CS_FAKE_TOKEN") : "");
	n = cs_result_to_json(&r, line, sizeof line - 1);
	if (n < 0 || (size_t)n >= sizeof line - 1)
		exit(3);
	line[n] = '\n';
	line[n + 1] = '\0';
	append(file, line);
}

static void run_cases(const char *file, long first, long n, int P)
{
	long crash = env_long("CS_FAKE_CRASH", -1);
	long hang = env_long("CS_FAKE_HANG", -1);
	long i;

	for (i = first; i < n; i++) {
		write_result(file, (size_t)i, P, "start");
		if (i == crash) {
			signal(SIGSEGV, SIG_DFL);
			raise(SIGSEGV);
		}
		if (i == hang)
			forever();
		usleep(20000); /* the "collective" */
		write_result(file, (size_t)i, P, "value");
	}
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	long first = 0, n = env_long("CS_FAKE_NCASES", 5);
	long crash = env_long("CS_FAKE_CRASH", -1);
	long hang = env_long("CS_FAKE_HANG", -1);
	int rank = (int)env_long("OMPI_COMM_WORLD_RANK",
				 env_long("PMI_RANK", 0));
	int P = (int)env_long("OMPI_COMM_WORLD_SIZE", env_long("PMI_SIZE", 1));
	int i;
	char line[64];

	for (i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--results") == 0)
			file = argv[i + 1];
		if (strcmp(argv[i], "--first") == 0)
			first = strtol(argv[i + 1], NULL, 10);
	}
	if (argc < 2 || strcmp(argv[1], "run") != 0 || !file)
		return 2;
	if (env_long("CS_FAKE_STUBBORN", 0))
		signal(SIGTERM, SIG_IGN);
	if (env_long("CS_FAKE_CHILD", 0) && fork() == 0) {
		int null = open("/dev/null", O_RDWR);

		/* off mpiexec's output pipes and, for Hydra, its PMI socket
		 * (PMI_FD), so that it does not wait for us */
		for (i = 0; i < 3 && null >= 0; i++)
			dup2(null, i);
		for (i = 3; i < 1024; i++)
			if (i != null)
				close(i);
		note_pid();
		forever();
	}
	note_pid();
	snprintf(line, sizeof line, "first=%ld\n", first);
	if (rank == 0)
		append(getenv("CS_FAKE_LAUNCHLOG"), line);
	if (env_long("CS_FAKE_EXIT", -1) >= 0)
		return (int)env_long("CS_FAKE_EXIT", 0);
	if (rank != 0) {
		if ((crash >= first && crash < n) || (hang >= first && hang < n))
			forever();
		return 0;
	}
	run_cases(file, first, n, P);
	return 0;
}
