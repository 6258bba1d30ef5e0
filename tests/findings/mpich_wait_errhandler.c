/*
 * mpich_wait_errhandler.c - MPICH 4.0: an error completed by MPI_Wait or
 * MPI_Waitall goes to MPI_COMM_WORLD's error handler, not to the handler
 * of the communicator the request belongs to
 * (docs/findings/mpich-4.0-wait-errhandler.md).
 *
 *   mpicc.mpich mpich_wait_errhandler.c -o r && mpiexec.mpich -n 2 ./r
 *
 * Both ranks duplicate MPI_COMM_WORLD and give the copy MPI_ERRORS_RETURN;
 * MPI_COMM_WORLD keeps its default, MPI_ERRORS_ARE_FATAL. Rank 1 sends 8
 * bytes on the copy; rank 0 posts an MPI_Irecv of 4 bytes on the copy and
 * calls MPI_Wait: a truncation, an error of a communication on the copy,
 * which its handler must return to the caller. Rank 0 prints the error
 * and exits 0 when MPI_Wait returns it; with the defect, the job aborts
 * inside MPI_Wait ("Fatal error in internal_Wait: Message truncated").
 */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
	char buf[8] = {0}, text[MPI_MAX_ERROR_STRING];
	int rank, size, rc, len, cls;
	MPI_Request req;
	MPI_Comm comm;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	if (rank == 1) {
		MPI_Send(buf, 8, MPI_BYTE, 0, 0, comm);
	} else {
		MPI_Irecv(buf, 4, MPI_BYTE, 1, 0, comm, &req);
		rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Error_class(rc, &cls);
		MPI_Error_string(rc, text, &len);
		printf("MPI_Wait returned %s (class %d): %s\n",
		       rc == MPI_SUCCESS ? "success" : "an error", cls, text);
		printf("%s\n", cls == MPI_ERR_TRUNCATE ? "ok" :
		       "DEFECT: the truncation was not reported");
	}
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
