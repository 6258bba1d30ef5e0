/*
 * maxmin_nan.c - MPI_MAX and MPI_MIN on floats with NaN inputs follow no
 * rule: the result depends on which rank holds the NaN
 * (docs/findings/openmpi-4.1-maxmin-nan.md, mpich-4.0-maxmin-nan.md).
 *
 *   mpicc maxmin_nan.c -o r && mpiexec -n 2 ./r
 *
 * MPI leaves NaN handling to the implementation, but one rule per call:
 * either "ignore" (a NaN is dropped unless every input is NaN, as C's
 * fmax and fmin and NCCL do) or "propagate" (any NaN gives NaN). Two
 * ranks reduce COUNT = 64 elements of MPI_FLOAT and of MPI_DOUBLE with
 * MPI_Allreduce: at even elements rank 0 holds NaN and rank 1 holds 1,
 * at odd elements the reverse. Under either rule every element gets the
 * same answer. Exits 1 (every rank) when some elements give 1 and others
 * NaN, 0 otherwise; prints how many of each.
 */
#include <math.h>
#include <stdio.h>
#include <mpi.h>

#define COUNT 64

/* Elements of r that are NaN; the others should all be 1. */
static int nans_f(const float *r, int *other)
{
	int i, n = 0;

	*other = 0;
	for (i = 0; i < COUNT; i++) {
		n += isnan(r[i]) != 0;
		*other += !isnan(r[i]) && r[i] != 1.0f;
	}
	return n;
}

static int nans_d(const double *r, int *other)
{
	int i, n = 0;

	*other = 0;
	for (i = 0; i < COUNT; i++) {
		n += isnan(r[i]) != 0;
		*other += !isnan(r[i]) && r[i] != 1.0;
	}
	return n;
}

/* One op on both types; 1 when its results mix the two rules. */
static int check(MPI_Op op, const char *name, int rank)
{
	float sf[COUNT], rf[COUNT];
	double sd[COUNT], rd[COUNT];
	int i, nf, nd, of, od;

	for (i = 0; i < COUNT; i++) {
		int nan_here = (i % 2 == 0) == (rank == 0);

		sf[i] = nan_here ? NAN : 1.0f;
		sd[i] = nan_here ? NAN : 1.0;
	}
	MPI_Allreduce(sf, rf, COUNT, MPI_FLOAT, op, MPI_COMM_WORLD);
	MPI_Allreduce(sd, rd, COUNT, MPI_DOUBLE, op, MPI_COMM_WORLD);
	nf = nans_f(rf, &of);
	nd = nans_d(rd, &od);
	if (rank == 0)
		printf("%s: MPI_FLOAT %d NaN, %d one, %d other; MPI_DOUBLE %d "
		       "NaN, %d one, %d other\n", name, nf, COUNT - nf - of,
		       of, nd, COUNT - nd - od, od);
	return (nf != 0 && nf != COUNT) || of || (nd != 0 && nd != COUNT) ||
	       od;
}

int main(int argc, char **argv)
{
	int rank, size, bad;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	bad = check(MPI_MAX, "MPI_MAX", rank);
	bad |= check(MPI_MIN, "MPI_MIN", rank);
	if (rank == 0)
		printf("%s\n", bad ? "DEFECT: NaN handling depends on the rank "
		       "holding the NaN" : "ok: one rule for every element");
	MPI_Finalize();
	return bad;
}
