/*
 * mpich_icoll_sched_auto.c - MPICH 4.0.2: the nonblocking collectives
 * beside MPI_Iallreduce (mpich_iallreduce_sched_auto.c) with their
 * MPIR_CVAR_I<COLL>_INTRA_ALGORITHM=sched_auto, a value MPICH's `mpivars`
 * lists ("Internal algorithm selection for sched-based algorithms").
 * Plain C11 + MPI, no CollSpec code.
 *
 * argv[1] names one call: ibcast ireduce igather iscatter iallgather
 * ireduce_scatter ialltoall ialltoallv. Each rank sends 1..7 as MPI_INT
 * (to every rank, for the all-to-all and gather kinds); rank 0 prints
 * whether what it received is right and ok, or FAIL. Without the
 * variable (MPICH's default) every call prints ok.
 *   mpicc FILE.c -o r
 *   MPIR_CVAR_IBCAST_INTRA_ALGORITHM=sched_auto mpiexec -n 2 ./r ibcast
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 7
#define PMAX 64

static int s[PMAX * N], r[PMAX * N], cnt[PMAX], dsp[PMAX];

/* Start call `name` on P ranks; 0 when the name is unknown. */
static int start(const char *name, int P, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;

	if (!strcmp(name, "ibcast"))
		return MPI_Ibcast(r, N, MPI_INT, 0, w, q), 1;
	if (!strcmp(name, "ireduce"))
		return MPI_Ireduce(s, r, N, MPI_INT, MPI_SUM, 0, w, q), 1;
	if (!strcmp(name, "igather"))
		return MPI_Igather(s, N, MPI_INT, r, N, MPI_INT, 0, w, q), 1;
	if (!strcmp(name, "iscatter"))
		return MPI_Iscatter(s, N, MPI_INT, r, N, MPI_INT, 0, w, q), 1;
	if (!strcmp(name, "iallgather"))
		return MPI_Iallgather(s, N, MPI_INT, r, N, MPI_INT, w, q), 1;
	if (!strcmp(name, "ireduce_scatter"))
		return MPI_Ireduce_scatter_block(s, r, N, MPI_INT, MPI_SUM, w,
						 q), 1;
	if (!strcmp(name, "ialltoall"))
		return MPI_Ialltoall(s, N, MPI_INT, r, N, MPI_INT, w, q), 1;
	if (!strcmp(name, "ialltoallv"))
		return MPI_Ialltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT,
				      w, q), 1;
	(void)P;
	return 0;
}

/* Rank me's received elements after call `name`: 1 when one is wrong.
 * Every send buffer holds 1..7 per block of N; a reduction of P of them
 * gives P times that. */
static int wrong(const char *name, int me, int P)
{
	int n = N, mul = 1, i;

	if (!strcmp(name, "ireduce") || !strcmp(name, "ireduce_scatter"))
		mul = P;
	if (!strcmp(name, "igather") || !strcmp(name, "iallgather") ||
	    !strncmp(name, "ialltoall", 9))
		n = P * N;
	if (me != 0 && (!strcmp(name, "ireduce") || !strcmp(name, "igather")))
		return 0; /* only the root receives */
	for (i = 0; i < n; i++)
		if (r[i] != mul * (i % N + 1))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int i, me, P, bad;
	MPI_Request q;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	if (P > PMAX || argc != 2) {
		if (me == 0)
			fprintf(stderr, "usage: mpiexec -n 2..%d %s ibcast|ireduce|"
				"igather|iscatter|iallgather|ireduce_scatter|"
				"ialltoall|ialltoallv\n", PMAX, argv[0]);
		MPI_Finalize();
		return 2;
	}
	for (i = 0; i < PMAX * N; i++) {
		s[i] = i % N + 1;
		r[i] = -1; /* what no call writes */
	}
	for (i = 0; me == 0 && i < N; i++)
		r[i] = i + 1; /* ibcast: the root's data */
	for (i = 0; i < P; i++) {
		cnt[i] = N;
		dsp[i] = i * N;
	}
	if (!start(argv[1], P, &q)) {
		if (me == 0)
			fprintf(stderr, "%s: unknown call '%s'\n", argv[0], argv[1]);
		MPI_Finalize();
		return 2;
	}
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	bad = wrong(argv[1], me, P);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (me == 0)
		printf("%s of %d x MPI_INT on %d ranks: %s\n", argv[1], N, P,
		       bad ? "FAIL" : "ok");
	MPI_Finalize();
	return bad;
}
