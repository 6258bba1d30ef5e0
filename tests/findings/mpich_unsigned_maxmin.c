/*
 * mpich_unsigned_maxmin.c - MPICH 4.0: MPI_MAX and MPI_MIN compare
 * unsigned integers as signed (docs/findings/mpich-4.0-unsigned-maxmin-
 * signed.md).
 *
 *   mpicc.mpich mpich_unsigned_maxmin.c -o r && mpiexec.mpich -n 2 ./r
 *
 * Two ranks reduce, with MPI_Allreduce, one value per unsigned type: rank
 * 0 gives the type's largest value, rank 1 gives 1. MPI_MAX must return
 * the largest value and MPI_MIN 1, as C compares them. Exits 1 (on every
 * rank) when any result differs, 0 when all are right.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

/* v stored as an unsigned integer of size bytes at p, and read back. */
static void put(void *p, size_t size, uint64_t v)
{
	if (size == 1)
		*(uint8_t *)p = (uint8_t)v;
	else if (size == 2)
		*(uint16_t *)p = (uint16_t)v;
	else if (size == 4)
		*(uint32_t *)p = (uint32_t)v;
	else
		*(uint64_t *)p = v;
}

static uint64_t get(const void *p, size_t size)
{
	if (size == 1)
		return *(const uint8_t *)p;
	if (size == 2)
		return *(const uint16_t *)p;
	if (size == 4)
		return *(const uint32_t *)p;
	return *(const uint64_t *)p;
}

/* One type: the reduced max and min of {big, 1}. */
static int check(const char *name, MPI_Datatype t, size_t size,
		 uint64_t big, int rank)
{
	uint64_t s[1], r[1], mx, mn; /* room for any of the sizes */
	int bad;

	put(s, size, rank == 0 ? big : 1);
	MPI_Allreduce(s, r, 1, t, MPI_MAX, MPI_COMM_WORLD);
	mx = get(r, size);
	MPI_Allreduce(s, r, 1, t, MPI_MIN, MPI_COMM_WORLD);
	mn = get(r, size);
	bad = mx != big || mn != 1;
	if (rank == 0)
		printf("%-15s max(%" PRIu64 ", 1) = %" PRIu64 ", min = %"
		       PRIu64 "%s\n", name, big, mx, mn,
		       bad ? "   <- wrong" : "");
	return bad;
}

int main(int argc, char **argv)
{
	int rank, size, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	bad |= check("MPI_UINT8_T", MPI_UINT8_T, 1, UINT8_MAX, rank);
	bad |= check("MPI_UINT16_T", MPI_UINT16_T, 2, UINT16_MAX, rank);
	bad |= check("MPI_UINT32_T", MPI_UINT32_T, 4, UINT32_MAX, rank);
	bad |= check("MPI_UINT64_T", MPI_UINT64_T, 8, UINT64_MAX, rank);
	if (rank == 0)
		printf("%s\n", bad ? "DEFECT: unsigned max/min compared as "
		       "signed" : "ok");
	MPI_Finalize();
	return bad;
}
