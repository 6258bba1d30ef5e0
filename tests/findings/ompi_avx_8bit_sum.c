/*
 * ompi_avx_8bit_sum.c - Open MPI 4.1: MPI_SUM on 8-bit integers saturates
 * instead of wrapping once the count is large enough for the op/avx
 * component's vector loop (docs/findings/openmpi-4.1-op-avx-8bit-
 * saturation.md).
 *
 *   mpicc ompi_avx_8bit_sum.c -o r && mpiexec -n 2 ./r
 *
 * Every rank contributes 100 to each MPI_INT8_T element and 200 to each
 * MPI_UINT8_T element; MPI_Allreduce with MPI_SUM, at count 1 and 1025.
 * Over P ranks the sums wrap modulo 256, as the same sums of C's int8_t
 * and uint8_t do: (int8_t)(100 P) and (uint8_t)(200 P). Exits 1 (every
 * rank) when any element differs, 0 when all are right.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

/* MPI_SUM of `count` elements of value v (as int) on every rank; the
 * number of elements that differ from want, and the first result. */
static long sum_check(MPI_Datatype t, int count, int v, int want, int *first)
{
	unsigned char *s = malloc((size_t)count), *r = malloc((size_t)count);
	long wrong = 0;
	int i;

	if (!s || !r)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < count; i++)
		s[i] = (unsigned char)v; /* the same byte for int8 and uint8 */
	MPI_Allreduce(s, r, count, t, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		wrong += r[i] != (unsigned char)want;
	*first = t == MPI_INT8_T ? (int)(int8_t)r[0] : (int)r[0];
	free(s);
	free(r);
	return wrong;
}

int main(int argc, char **argv)
{
	static const int counts[] = {1, 1025};
	int rank, size, bad = 0, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (k = 0; k < 2; k++) {
		int s8 = (int8_t)(uint8_t)(100 * size);
		int u8 = (uint8_t)(200 * size);
		int got8, gotu8;
		long w8 = sum_check(MPI_INT8_T, counts[k], 100, s8, &got8);
		long wu8 = sum_check(MPI_UINT8_T, counts[k], 200, u8, &gotu8);

		bad |= w8 || wu8;
		if (rank != 0)
			continue;
		printf("count %4d: MPI_INT8_T  %d x 100 = %d (want %d), "
		       "%ld of %d elements wrong\n", counts[k], size, got8, s8,
		       w8, counts[k]);
		printf("count %4d: MPI_UINT8_T %d x 200 = %d (want %d), "
		       "%ld of %d elements wrong\n", counts[k], size, gotu8, u8,
		       wu8, counts[k]);
	}
	if (rank == 0)
		printf("%s\n", bad ? "DEFECT: 8-bit MPI_SUM does not wrap" :
		       "ok");
	MPI_Finalize();
	return bad;
}
