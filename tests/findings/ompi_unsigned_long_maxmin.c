/*
 * ompi_unsigned_long_maxmin.c - Open MPI 4.1: MPI_MAX and MPI_MIN on
 * MPI_UNSIGNED_LONG compare the values as signed, while MPI_UINT64_T and
 * MPI_UNSIGNED_LONG_LONG, the same 64 bits on x86-64 Linux, are right
 * (docs/findings/openmpi-4.1-unsigned-long-maxmin-signed.md).
 *
 *   mpicc ompi_unsigned_long_maxmin.c -o r && mpiexec -n 2 ./r
 *
 * Rank 0 contributes 2^63 + 1 and rank 1 contributes 1 to every one of
 * COUNT elements (1 and 64); MPI_Allreduce with MPI_MAX must give
 * 2^63 + 1 and with MPI_MIN 1, as C compares unsigned long. Exits 1
 * (every rank) when any element differs, 0 when all are right.
 */
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#define MAXCOUNT 64

/* op over count elements of datatype t; elements that differ from want. */
static int wrong(MPI_Datatype t, MPI_Op op, int count, uint64_t mine,
		 uint64_t want)
{
	uint64_t s[MAXCOUNT], r[MAXCOUNT];
	int i, n = 0;

	for (i = 0; i < MAXCOUNT; i++)
		s[i] = mine;
	MPI_Allreduce(s, r, count, t, op, MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		n += r[i] != want;
	return n;
}

int main(int argc, char **argv)
{
	static const struct {
		MPI_Datatype t;
		const char *name;
	} types[] = {
		{MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
		{MPI_UINT64_T, "MPI_UINT64_T"},
		{MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
	};
	static const int counts[] = {1, MAXCOUNT};
	const uint64_t big = ((uint64_t)1 << 63) + 1;
	int rank, size, bad = 0, k, c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || sizeof(unsigned long) != 8) {
		if (rank == 0)
			fprintf(stderr, "run with 2 ranks, where unsigned long "
				"has 64 bits\n");
		MPI_Finalize();
		return 2;
	}
	for (k = 0; k < 3; k++)
		for (c = 0; c < 2; c++) {
			uint64_t mine = rank == 0 ? big : 1;
			int wmax = wrong(types[k].t, MPI_MAX, counts[c], mine,
					 big);
			int wmin = wrong(types[k].t, MPI_MIN, counts[c], mine,
					 1);

			bad |= wmax || wmin;
			if (rank == 0)
				printf("%-22s count %2d: MPI_MAX %d wrong, "
				       "MPI_MIN %d wrong\n", types[k].name,
				       counts[c], wmax, wmin);
		}
	if (rank == 0)
		printf("%s\n", bad ? "DEFECT: unsigned max/min compared as "
		       "signed" : "ok");
	MPI_Finalize();
	return bad;
}
