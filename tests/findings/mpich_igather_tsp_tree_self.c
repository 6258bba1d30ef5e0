/*
 * mpich_igather_tsp_tree_self.c - MPICH 4.0.2: MPI_Igather with
 * MPIR_CVAR_IGATHER_INTRA_ALGORITHM=tsp_tree on a communicator of one
 * rank leaves the receive buffer as it was: the root's own block, which
 * MPI requires in it, is not copied. Plain C11 + MPI, no CollSpec code.
 *
 * On MPI_COMM_SELF, for counts 1, 7 and 1025 of MPI_UINT8_T: the send
 * buffer holds k + 1 at element k, the receive buffer 0xee before the
 * call; each rank prints its first wrong element and the count of wrong
 * ones. Without the variable (MPICH's default) it prints 0.
 *   mpicc FILE.c -o r
 *   MPIR_CVAR_IGATHER_INTRA_ALGORITHM=tsp_tree mpiexec -n 1 ./r
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static const int counts[] = {1, 7, 1025};
	int me, bad = 0, c, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	for (c = 0; c < 3; c++) {
		int n = counts[c];
		unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n);
		MPI_Request q;

		if (!s || !r)
			MPI_Abort(MPI_COMM_WORLD, 2);
		for (k = 0; k < n; k++) {
			s[k] = (unsigned char)(k + 1);
			r[k] = 0xee;
		}
		MPI_Igather(s, n, MPI_UINT8_T, r, n, MPI_UINT8_T, 0,
			    MPI_COMM_SELF, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		for (k = 0; k < n; k++) {
			if (r[k] == (unsigned char)(k + 1))
				continue;
			if (bad++ == 0)
				printf("rank %d: count %d: element %d is %d, "
				       "want %d\n", me, n, k, r[k], k + 1);
		}
		free(s);
		free(r);
	}
	printf("rank %d: MPI_Igather on MPI_COMM_SELF: %d wrong elements\n",
	       me, bad);
	MPI_Finalize();
	return bad != 0;
}
