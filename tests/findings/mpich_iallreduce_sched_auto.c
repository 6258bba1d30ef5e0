/*
 * mpich_iallreduce_sched_auto.c - MPICH 4.0.2: MPI_Iallreduce with
 * MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM=sched_auto, a value its `mpivars`
 * lists ("Internal algorithm selection for sched-based algorithms"),
 * stops the job with "Assertion failed in file src/mpi/coll/mpir_coll.c
 * at line 4826: 0". Plain C11 + MPI, no CollSpec code.
 *
 * Each rank contributes 1..7 as MPI_INT; rank 0 prints the sums (2 ranks:
 * 2, 4, ..., 14) and ok. Without the variable (MPICH's default) it does.
 *   mpicc FILE.c -o r
 *   MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM=sched_auto mpiexec -n 2 ./r
 */
#include <mpi.h>
#include <stdio.h>
#define N 7

int main(int argc, char **argv)
{
	int s[N], r[N], i, me, P, bad = 0;
	MPI_Request q;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	for (i = 0; i < N; i++)
		s[i] = i + 1;
	MPI_Iallreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	for (i = 0; i < N; i++)
		bad |= r[i] != P * (i + 1);
	if (me == 0)
		printf("MPI_Iallreduce of %d x MPI_INT on %d ranks: %s\n", N, P,
		       bad ? "FAIL" : "ok");
	MPI_Finalize();
	return bad;
}
