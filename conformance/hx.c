/*
 * hx.c - the harness's own exchanges between ranks during a case (the
 * identity fingerprints and their key, the root's result for the shared
 * check, the per-case agreement and the merge of verdicts), made with
 * point-to-point messages only.
 *
 * Why not MPI's collectives: the MPI library is often the implementation
 * under test, and a user may force one of its collective algorithms (Open
 * MPI's coll_tuned_*_algorithm variables, MPICH's CVARs) to validate it. A
 * forced algorithm that fails or aborts must fail the backend's call (a
 * verdict "error" with the library's message), not the harness's own
 * bookkeeping. Point-to-point messages on the harness's communicators,
 * with MPI_ERRORS_ARE_FATAL left as is, are what every MPI gets right
 * first; a failure there is an environment error, not a verdict.
 *
 * Broadcasts go down a binomial tree (log2 P rounds, so a root's result of
 * many bytes does not leave the root P - 1 times); gathers come up linearly
 * to the root (their messages are small: fingerprints, flags, verdicts).
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hx.h"

#define HX_TAG 0x4358 /* "CX": no other traffic uses these communicators */

/*
 * Wait for r without keeping a core busy: the ranks of a launch often share
 * cores with the rank they wait for (which is checking its share against
 * the oracle), so after a short spin the wait sleeps, doubling from 10 us
 * to 500 us.
 */
static void hx_wait(MPI_Request *r)
{
	int done = 0, spins = 0;
	useconds_t us = 10;

	for (;;) {
		MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		if (++spins < 64)
			continue;
		usleep(us);
		us = us < 250 ? 2 * us : 500;
	}
}

/* Send or receive n bytes in pieces that fit an int count. */
static void hx_send(const void *buf, size_t n, int to, MPI_Comm comm)
{
	const size_t piece = (size_t)1 << 30;
	size_t at = 0, m;

	do { /* one message at least, also for 0 bytes */
		m = n - at < piece ? n - at : piece;
		MPI_Request r;
		MPI_Isend((const unsigned char *)buf + at, (int)m, MPI_BYTE, to,
			  HX_TAG, comm, &r);
		hx_wait(&r);
		at += m;
	} while (at < n);
}

static void hx_recv(void *buf, size_t n, int from, MPI_Comm comm)
{
	const size_t piece = (size_t)1 << 30;
	size_t at = 0, m;

	do {
		m = n - at < piece ? n - at : piece;
		MPI_Request r;
		MPI_Irecv((unsigned char *)buf + at, (int)m, MPI_BYTE, from,
			  HX_TAG, comm, &r);
		hx_wait(&r);
		at += m;
	} while (at < n);
}

void cs_hx_bcast(void *buf, size_t n, int root, MPI_Comm comm)
{
	int P, me, vr, mask;

	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);
	vr = (me - root + P) % P; /* rank relative to the root */
	/* receive from the parent: the rank that differs in the lowest set
	 * bit of vr */
	for (mask = 1; mask < P; mask <<= 1)
		if (vr & mask) {
			hx_recv(buf, n, (vr - mask + root) % P, comm);
			break;
		}
	/* send to the children: vr + each lower power of two */
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < P)
			hx_send(buf, n, (vr + mask + root) % P, comm);
}

void cs_hx_gather(const void *send, size_t n, void *recv, int root,
		  MPI_Comm comm)
{
	int P, me, q;

	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);
	if (me != root) {
		hx_send(send, n, root, comm);
		return;
	}
	for (q = 0; q < P; q++)
		if (q == me)
			memcpy((unsigned char *)recv + (size_t)q * n, send, n);
		else
			hx_recv((unsigned char *)recv + (size_t)q * n, n, q,
				comm);
}

void cs_hx_allgather(const void *send, size_t n, void *recv, MPI_Comm comm)
{
	int P;

	MPI_Comm_size(comm, &P);
	cs_hx_gather(send, n, recv, 0, comm);
	cs_hx_bcast(recv, n * (size_t)P, 0, comm);
}

int cs_hx_max(int v, MPI_Comm comm)
{
	int P, q, max, *all;

	MPI_Comm_size(comm, &P);
	all = malloc((size_t)P * sizeof *all);
	if (!all)
		MPI_Abort(MPI_COMM_WORLD, 2);
	cs_hx_gather(&v, sizeof v, all, 0, comm);
	for (max = all[0], q = 1; q < P; q++)
		max = all[q] > max ? all[q] : max;
	cs_hx_bcast(&max, sizeof max, 0, comm);
	free(all);
	return max;
}

int cs_hx_any(int flag, MPI_Comm comm)
{
	return cs_hx_max(flag != 0, comm);
}
