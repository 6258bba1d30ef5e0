/*
 * mpich_inplace_reduce_root.c - MPICH 4.0: MPI_Reduce with MPI_IN_PLACE
 * at a root other than 0 and a count above 512 elements crashes with a
 * segmentation fault (docs/findings/mpich-4.0-inplace-reduce-root-
 * segfault.md).
 *
 *   mpicc.mpich mpich_inplace_reduce_root.c -o r
 *   mpiexec.mpich -n 2 ./r [COUNT [ROOT]]      (default 1025 and 1)
 *
 * Every rank holds COUNT int32 values, rank r's element i being r + i;
 * the root passes MPI_IN_PLACE and its own buffer as the receive buffer,
 * the others their buffer as the send buffer, op MPI_SUM. The root then
 * checks element i against P*i + P*(P-1)/2. Exits 0 when right, 1 when a
 * value is wrong; with the defect, a rank dies of SIGSEGV inside
 * MPI_Reduce and mpiexec reports it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, root, bad = 0;
	long count, i;
	int *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	count = argc > 1 ? atol(argv[1]) : 1025;
	root = argc > 2 ? atoi(argv[2]) : 1;
	if (count < 1 || count > 1 << 24 || root < 0 || root >= size) {
		if (rank == 0)
			fprintf(stderr, "need 1 <= COUNT <= 2^24 and 0 <= ROOT "
				"< %d\n", size);
		MPI_Finalize();
		return 2;
	}
	buf = malloc((size_t)count * sizeof *buf);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < count; i++)
		buf[i] = rank + (int)i;
	if (rank == 0)
		printf("MPI_Reduce(MPI_IN_PLACE at root %d, %ld x MPI_INT32_T, "
		       "MPI_SUM) on %d ranks\n", root, count, size);
	fflush(stdout);
	if (rank == root)
		MPI_Reduce(MPI_IN_PLACE, buf, (int)count, MPI_INT32_T, MPI_SUM,
			   root, MPI_COMM_WORLD);
	else
		MPI_Reduce(buf, NULL, (int)count, MPI_INT32_T, MPI_SUM, root,
			   MPI_COMM_WORLD);
	for (i = 0; rank == root && i < count; i++)
		bad |= buf[i] != size * (int)i + size * (size - 1) / 2;
	if (rank == root)
		printf("%s\n", bad ? "DEFECT: wrong sums" : "ok");
	free(buf);
	MPI_Finalize();
	return bad;
}
