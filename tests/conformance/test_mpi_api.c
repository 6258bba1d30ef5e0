/*
 * test_mpi_api.c - the calls the `mpi` backend makes under --backend-opt
 * api=blocking|nonblocking|persistent, and what a persistent call's
 * result is. Run under mpiexec with 2 ranks.
 *
 * The test defines MPI_Allreduce, MPI_Iallreduce and MPI_Start itself (the
 * MPI profiling interface): they count the calls and call PMPI_. With
 * `lazy` set, MPI_Start starts only the first time it is called on a call
 * of the backend (a library whose second start of a persistent request
 * does nothing): the backend must then hand back what the first start
 * did not leave there, so that the harness's check sees the lazy start.
 * Expected sums are written out for 2 ranks: rank r holds 10*r + i + 1 at
 * index i, so the sum at i is 2*i + 12.
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
#include "backends/registry.h"
#include "backends/mpiboot.h"

#define N 5

static cs_mpiboot_t *world_boot;
static int n_allreduce, n_iallreduce, n_start, lazy;

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
		  MPI_Comm c)
{
	n_allreduce++;
	return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t,
		   MPI_Op op, MPI_Comm c, MPI_Request *q)
{
	n_iallreduce++;
	return PMPI_Iallreduce(s, r, n, t, op, c, q);
}

int MPI_Start(MPI_Request *q)
{
	if (lazy && n_start++ % 2 == 1)
		return MPI_SUCCESS;
	if (!lazy)
		n_start++;
	return PMPI_Start(q);
}

/* Rank me's input, and the sum over 2 ranks. */
static void fill(int32_t *s, int me)
{
	int i;

	for (i = 0; i < N; i++)
		s[i] = 10 * me + i + 1;
}

static int sum_ok(const int32_t *r)
{
	int i;

	for (i = 0; i < N; i++)
		if (r[i] != 2 * i + 12)
			return 0;
	return 1;
}

/* One int32 sum allreduce under options opt, in place or not; whether
 * its result is the sum. The counters are reset first. */
static int allreduce_ok(const char *opt, int inplace)
{
	const cs_backend_t *b = cs_backend_mpi();
	cs_bcomm_t world = NULL;
	int32_t s[N], r[N];
	int me, ok;

	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	n_allreduce = n_iallreduce = n_start = 0;
	assert_int_equal(b->init(cs_boot_get(world_boot), opt, &world), 0);
	fill(s, me);
	memset(r, 0x5a, sizeof r);
	if (inplace)
		memcpy(r, s, sizeof r);
	assert_int_equal(b->allreduce(inplace ? r : s, r, N, CS_DTYPE_INT32,
				      CS_OP_SUM, NULL, world, NULL), 0);
	ok = sum_ok(r);
	b->comm_free(world);
	if (b->finalize)
		b->finalize();
	return ok;
}

static void test_blocking(void **state)
{
	(void)state;
	assert_true(allreduce_ok("api=blocking", 0));
	assert_int_equal(n_allreduce, 1);
	assert_int_equal(n_iallreduce + n_start, 0);
}

static void test_nonblocking(void **state)
{
	(void)state;
	assert_true(allreduce_ok("ctypes=1,api=nonblocking", 0));
	assert_int_equal(n_iallreduce, 1);
	assert_int_equal(n_allreduce + n_start, 0);
}

/* two starts; in place, the second start reduces the input again, not
 * the first start's result */
static void test_persistent(void **state)
{
	(void)state;
	assert_true(allreduce_ok("api=persistent", 0));
	assert_int_equal(n_start, 2);
	assert_int_equal(n_allreduce + n_iallreduce, 0);
	assert_true(allreduce_ok("api=persistent", 1));
	assert_int_equal(n_start, 2);
}

/* a second start that does nothing does not pass as a result */
static void test_persistent_lazy_second_start(void **state)
{
	(void)state;
	lazy = 1;
	assert_false(allreduce_ok("api=persistent", 0));
	assert_false(allreduce_ok("api=persistent", 1));
	lazy = 0;
}

/* sendrecv is point to point: skipped outside api=blocking */
static void test_sendrecv_skipped(void **state)
{
	const cs_backend_t *b = cs_backend_mpi();
	cs_backend_query_t q = {0};
	cs_bcomm_t world = NULL;
	char why[200] = "";

	(void)state;
	q.coll = CS_COLL_SENDRECV;
	q.count = 1;
	q.nranks = 2;
	assert_int_equal(b->init(cs_boot_get(world_boot), "api=nonblocking",
				 &world), 0);
	assert_int_equal(b->supports(world, &q, why, sizeof why), 0);
	assert_non_null(strstr(why, "api=nonblocking"));
	q.coll = CS_COLL_ALLREDUCE;
	assert_int_equal(b->supports(world, &q, why, sizeof why), 1);
	b->comm_free(world);
	if (b->finalize)
		b->finalize();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_nonblocking),
		cmocka_unit_test(test_persistent),
		cmocka_unit_test(test_persistent_lazy_second_start),
		cmocka_unit_test(test_sendrecv_skipped),
	};
	int rc, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || cs_boot_create(&(MPI_Comm){ MPI_COMM_WORLD },
					&world_boot) != CS_OK) {
		fprintf(stderr, "test_mpi_api: run it with 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	cs_boot_free(world_boot);
	MPI_Finalize();
	return rc;
}
