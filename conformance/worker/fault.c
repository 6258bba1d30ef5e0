/*
 * fault.c - a fault on a guard page as the FAIL of the running case
 * (fault.h).
 *
 * The handler runs in a process that is about to end: it reads the
 * registry (check/guardpage.c, lock-free), fills the result prepared for
 * the case (cs_fault_case) with the rank, buffer and side, formats it
 * with cs_result_to_json into static storage (snprintf, no allocation,
 * no lock taken by glibc for these formats), appends it to the results
 * file with one write(2) and ends the process with _exit(1). A second
 * thread that faults meanwhile waits for that end. With several ranks in
 * processes, more than one may fault in the same case: each writes its
 * line and the driver keeps the first (driver.c, take_line).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/json.h"
#include "base/result.h"
#include "check/guardpage.h"
#include "check/verdict.h"
#include "worker/fault.h"

static struct sigaction old_act;
static int installed, armed, taken, results_fd = -1;
static cs_result_t tmpl;        /* the running case's FAIL, prepared */
static char line[1 << 18];      /* its JSON line */

/* The rank as the case's other messages name it (cs_exec_who). */
static void who(const cs_gpage_hit_t *h, char *buf, size_t n)
{
	if (h->world_rank == h->rank)
		snprintf(buf, n, "rank %d", h->rank);
	else
		snprintf(buf, n, "rank %d (comm rank %d)", h->world_rank,
			 h->rank);
}

/* Every byte of buf[0..n) to fd, across short writes. */
static void write_all(int fd, const char *buf, size_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t k = write(fd, buf, n);

		if (k <= 0)
			return;
		buf += k;
		n -= (size_t)k;
	}
}

/* The verdict of hit h: the results file's line and a line on stderr. */
static void report(const cs_gpage_hit_t *h)
{
	int after = h->side == CS_GPAGE_AFTER, n;
	char rk[96];

	who(h, rk, sizeof rk);
	snprintf(tmpl.reason, sizeof tmpl.reason, "%s: %s accessed %s "
		 "(guard page)", rk, h->what,
		 after ? "past its end" : "before its start");
	snprintf(tmpl.detail, sizeof tmpl.detail, "%s: %s of %zu elements: "
		 "byte %c%zu %s element %zu was read or written: it lies in "
		 "the inaccessible page %s the buffer, beyond its guard bytes; "
		 "the process ended at the fault", rk, h->what, h->elems,
		 after ? '+' : '-', h->distance, after ? "after" : "before",
		 after ? h->elems : 0, after ? "after" : "before");
	n = cs_result_to_json(&tmpl, line, sizeof line - 1);
	if (n < 0 || (size_t)n >= sizeof line - 1) {
		tmpl.repro[0] = '\0';
		n = cs_result_to_json(&tmpl, line, sizeof line - 1);
	}
	if (n > 0 && (size_t)n < sizeof line - 1) {
		line[n] = '\n';
		write_all(results_fd, line, (size_t)n + 1);
	}
	n = snprintf(line, sizeof line, "collspec: FAIL guardpage, case #%zu: "
		     "%s\n", tmpl.hc.index, tmpl.detail);
	if (n > 0)
		write_all(STDERR_FILENO, line, (size_t)n < sizeof line
			  ? (size_t)n : sizeof line - 1);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	cs_gpage_hit_t h;

	(void)sig;
	(void)ctx;
	if (!armed || si->si_code != SEGV_ACCERR ||
	    !cs_gpage_find(si->si_addr, &h)) {
		/* not ours: the access faults again, into the old handler */
		sigaction(SIGSEGV, &old_act, NULL);
		return;
	}
	if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();
	report(&h);
	_exit(1);
}

int cs_fault_install(const char *results)
{
	struct sigaction sa;

	if (installed)
		return 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	results_fd = results ? open(results, O_WRONLY | O_APPEND | O_CLOEXEC)
			     : -1;
	if (sigaction(SIGSEGV, &sa, &old_act) != 0) {
		if (results_fd >= 0)
			close(results_fd);
		results_fd = -1;
		return 0;
	}
	installed = 1;
	return 1;
}

void cs_fault_case(const cs_run_opts_t *o, const char *backend,
		   const cs_hcase_t *hc, int world)
{
	armed = 0;
	memset(&tmpl, 0, sizeof tmpl);
	tmpl.hc = *hc;
	snprintf(tmpl.backend, sizeof tmpl.backend, "%s", backend);
	tmpl.verdict = CS_V_FAIL;
	snprintf(tmpl.check, sizeof tmpl.check, "guardpage");
	cs_run_repro(o, hc, world, tmpl.repro, sizeof tmpl.repro);
	armed = installed;
}

void cs_fault_uninstall(void)
{
	if (!installed)
		return;
	sigaction(SIGSEGV, &old_act, NULL);
	if (results_fd >= 0)
		close(results_fd);
	results_fd = -1;
	installed = armed = 0;
}
