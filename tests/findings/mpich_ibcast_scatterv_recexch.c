/*
 * mpich_ibcast_scatterv_recexch.c - MPICH 4.0.2: MPI_Ibcast with
 * MPIR_CVAR_IBCAST_INTRA_ALGORITHM=tsp_scatterv_recexch_allgatherv and a
 * root other than 0 does not deliver the root's data: the ranks (the root
 * too) end with other bytes, and at 5 ranks a rank dies of a segmentation
 * fault. Plain C11 + MPI, no CollSpec code.
 *
 * For counts 1, 7 and 1025 of MPI_UINT8_T and every root, the root holds
 * k * 7 + root + 1 at element k and every other rank 0xee; after the wait
 * every rank checks the root's bytes, prints its first wrong elements,
 * and rank 0 prints the total. Without the variable (MPICH's default) and
 * with tsp_ring forced it prints 0 wrong elements.
 *   mpicc FILE.c -o r
 *   MPIR_CVAR_IBCAST_INTRA_ALGORITHM=tsp_scatterv_recexch_allgatherv \
 *     mpiexec -n 2 ./r
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char want(int k, int root)
{
	return (unsigned char)(k * 7 + root + 1);
}

int main(int argc, char **argv)
{
	static const int counts[] = {1, 7, 1025};
	int me, P, bad = 0, c, root, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	for (c = 0; c < 3; c++)
		for (root = 0; root < P; root++) {
			int n = counts[c];
			unsigned char *b = malloc((size_t)n);
			MPI_Request q;

			if (!b)
				MPI_Abort(MPI_COMM_WORLD, 2);
			for (k = 0; k < n; k++)
				b[k] = me == root ? want(k, root) : 0xee;
			MPI_Ibcast(b, n, MPI_UINT8_T, root, MPI_COMM_WORLD, &q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
			for (k = 0; k < n; k++) {
				if (b[k] == want(k, root))
					continue;
				if (bad++ < 3)
					printf("rank %d of %d: count %d root %d: "
					       "element %d is %d, want %d\n", me,
					       P, n, root, k, b[k], want(k, root));
			}
			free(b);
		}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("MPI_Ibcast on %d ranks: %d wrong elements\n", P, bad);
	MPI_Finalize();
	return bad != 0;
}
