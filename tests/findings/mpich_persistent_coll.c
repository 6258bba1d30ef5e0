/*
 * mpich_persistent_coll.c - MPICH 4.0.2's persistent gather, scatter and
 * allgather: each MPI_Start must move the send buffers' contents at that
 * start. Plain C11 + MPI 4, no CollSpec code.
 *
 * For each collective in turn: MPI_<Coll>_init once, then two rounds of
 * (new send data, receive buffer set to -1, MPI_Start, MPI_Wait, check),
 * then MPI_Request_free. Prints each first wrong element and FAIL, or ok;
 * exits 1 on FAIL. mpicc FILE.c -o r && mpiexec -n 2 ./r (Open MPI 4.1,
 * which has them as MPIX_<Coll>_init, prints ok at 2 to 8 ranks).
 */
#include <mpi.h>
#include <stdio.h>
#if MPI_VERSION < 4 && defined(OPEN_MPI) /* Open MPI 4: the MPIX_ forms */
#include <mpi-ext.h>
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Scatter_init MPIX_Scatter_init
#endif
#define N 4
#define MAXP 16

static int me, P, s[MAXP * N], r[MAXP * N];

/* what rank q sends at element j in round k */
static int val(int q, int j, int k)
{
	return 1000 * k + 100 * q + j;
}

/* r[0..n) against block (first + i / N), element i % N, round k */
static int check(const char *what, int k, int n, int first)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i] != val(first + i / N, i % N, k)) {
			printf("rank %d, %s, start %d: r[%d] = %d, expected %d\n",
			       me, what, k, i, r[i], val(first + i / N, i % N, k));
			return 1;
		}
	return 0;
}

/* rank 0 says which collective runs next (an abort comes after it) */
static void phase(const char *what)
{
	if (me == 0) {
		printf("%s: init, then 2 starts\n", what);
		fflush(stdout);
	}
}

/* one round of request q: send data of round k, receive buffer -1 */
static void round_of(MPI_Request *q, int k, int scatter)
{
	int i;

	for (i = 0; i < P * N; i++) {
		s[i] = scatter ? val(i / N, i % N, k) : val(me, i, k);
		r[i] = -1;
	}
	MPI_Start(q);
	MPI_Wait(q, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	MPI_Request q;
	int k, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	if (P > MAXP)
		MPI_Abort(MPI_COMM_WORLD, 2);
	phase("MPI_Gather_init");
	MPI_Gather_init(s, N, MPI_INT, r, N, MPI_INT, 0, MPI_COMM_WORLD,
			MPI_INFO_NULL, &q);
	for (k = 1; k <= 2; k++) {
		round_of(&q, k, 0);
		if (me == 0)
			bad |= check("MPI_Gather_init", k, P * N, 0);
	}
	MPI_Request_free(&q);
	phase("MPI_Scatter_init");
	MPI_Scatter_init(s, N, MPI_INT, r, N, MPI_INT, 0, MPI_COMM_WORLD,
			 MPI_INFO_NULL, &q);
	for (k = 1; k <= 2; k++) {
		round_of(&q, k, 1);
		bad |= check("MPI_Scatter_init", k, N, me);
	}
	MPI_Request_free(&q);
	phase("MPI_Allgather_init");
	MPI_Allgather_init(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD,
			   MPI_INFO_NULL, &q);
	for (k = 1; k <= 2; k++) {
		round_of(&q, k, 0);
		bad |= check("MPI_Allgather_init", k, P * N, 0);
	}
	MPI_Request_free(&q);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (me == 0)
		printf("%s\n", bad ? "FAIL" : "ok");
	MPI_Finalize();
	return bad;
}
