/*
 * ucp_yield.c - an LD_PRELOAD library for the `mpich` stage of
 * scripts/test.sh: MPICH ranks that wait give their CPU to the others.
 *
 * Why: Debian's MPICH 4.0.2 (ch4:ucx) waits for a message by polling
 * without ever yielding the CPU (libmpich.so.12 does not even import
 * sched_yield; MPIR_CVAR_POLLS_BEFORE_YIELD is a ch3 setting, and the
 * MPIR_CVAR_CH4_PROGRESS_THROTTLE settings came after 4.0). With more ranks
 * than cores, a rank that waits spins through its whole time slice while
 * the rank it waits for is not running: on the 2-core CI machine a 4-rank
 * test took 55 s against 2 s with Open MPI (docs/ci.md has the figures).
 *
 * What: it wraps ucp_worker_progress, which MPICH's progress loop calls on
 * every turn, and calls sched_yield when UCX had nothing to do, so a
 * waiting rank gives way to a runnable one at once. Nothing else changes:
 * the same messages, the same order, the same results; a process that
 * never loads UCX never calls it. It is a CI measure for an oversubscribed
 * machine, not part of CollSpec, and never used against Open MPI.
 *
 * Build: cc -O2 -shared -fPIC -o libucp_yield.so .ci/ucp_yield.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* UCX's declaration (ucp/api/ucp.h), without needing its headers. */
typedef struct ucp_worker *ucp_worker_h;
unsigned ucp_worker_progress(ucp_worker_h worker);

typedef unsigned (*progress_fn)(ucp_worker_h worker);

unsigned ucp_worker_progress(ucp_worker_h worker)
{
	static progress_fn next;
	unsigned events;

	if (!next) {
		void *sym = dlsym(RTLD_NEXT, "ucp_worker_progress");

		if (!sym) { /* cannot happen: MPICH called it from libucp */
			fprintf(stderr, "ucp_yield: no ucp_worker_progress "
				"after this library\n");
			abort();
		}
		*(void **)&next = sym;
	}
	events = next(worker);
	if (events == 0)
		sched_yield();
	return events;
}
