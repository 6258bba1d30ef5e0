/*
 * test_mpi_errors.c - an MPI error inside the `ref` or `mpi` backend comes
 * back as a status with the MPI library's own message, instead of aborting
 * the job (MPI's default error handler). Run under mpiexec with 2 ranks.
 *
 * The error: a sendrecv whose counts differ between the ranks. Rank 1
 * sends 2 elements where rank 0 receives 1, so rank 0's receive is
 * truncated (MPI_ERR_TRUNCATE), on the backend's world communicator and on
 * one made by its comm_split. Rank 0 must get a non-zero status and an
 * error_string that names the MPI call and quotes MPI_Error_string of the
 * truncation. (Rank 1 receives 1 element where it expects 2: `ref` reports
 * that too; MPI itself has no error there.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <mpi.h>
#include "backends/mpi/backend_mpi.h"
#include "backends/ref/backend_ref.h"
#include "backends/registry.h"
#include "backends/mpiboot.h"

static cs_mpiboot_t *world_boot;
static int me;

/* Text MPI gives for the class of a truncated receive. */
static const char *truncate_text(void)
{
	static char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
	return text;
}

/* The mismatched sendrecv on c; on rank 0, the failure and its message. */
static void mismatched_sendrecv(const cs_backend_t *b, cs_bcomm_t c,
				const char *call)
{
	int32_t s[2] = { 1, 2 }, r[2] = { 0, 0 };
	size_t count = me == 0 ? 1 : 2;
	const char *msg;
	int rc;

	rc = b->sendrecv(s, r, count, CS_DTYPE_INT32, c, NULL);
	if (me != 0)
		return;
	assert_int_not_equal(rc, 0);
	msg = b->error_string(c, rc);
	fprintf(stderr, "%s backend, rank 0: status %d: %s\n", b->name, rc,
		msg);
	assert_non_null(strstr(msg, call));
	assert_non_null(strstr(msg, truncate_text()));
}

static void run_backend(const cs_backend_t *b, const char *call)
{
	cs_mpiboot_t *sub_boot = NULL;
	cs_bcomm_t world = NULL, sub = NULL;
	MPI_Comm dup;

	assert_int_equal(b->init(cs_boot_get(world_boot), "", &world), 0);
	mismatched_sendrecv(b, world, call);
	MPI_Barrier(MPI_COMM_WORLD);

	/* the same on a communicator of comm_split (one group: all ranks) */
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	assert_int_equal(cs_boot_create(&dup, &sub_boot), CS_OK);
	assert_int_equal(b->comm_split(world, 0, me, cs_boot_get(sub_boot),
				       &sub), 0);
	mismatched_sendrecv(b, sub, call);
	MPI_Barrier(MPI_COMM_WORLD);

	b->comm_free(sub);
	cs_boot_free(sub_boot);
	MPI_Comm_free(&dup);
	b->comm_free(world);
	if (b->finalize)
		b->finalize();
}

static void test_ref(void **state)
{
	(void)state;
	run_backend(cs_backend_ref(), "MPI_Waitall");
}

static void test_mpi(void **state)
{
	(void)state;
	run_backend(cs_backend_mpi(), "MPI_Sendrecv failed");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref),
		cmocka_unit_test(test_mpi),
	};
	int P, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	if (P != 2) {
		if (me == 0)
			fprintf(stderr, "test_mpi_errors needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	if (cs_boot_create(&(MPI_Comm){ MPI_COMM_WORLD }, &world_boot) !=
	    CS_OK) {
		MPI_Finalize();
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	cs_boot_free(world_boot);
	MPI_Finalize();
	return rc;
}
