/*
 * test_mpi_ctypes.c - the MPI datatype the `mpi` backend hands MPI for each
 * dtype, with and without --backend-opt ctypes=N. Run under mpiexec with 1
 * rank.
 *
 * The test defines MPI_Allreduce and MPI_Bcast itself (the MPI profiling
 * interface): they record the datatype and call PMPI_. The expected types
 * are written by hand from the MPI standard's names and the C types'
 * sizes: ctypes=0 the fixed-width names (MPI_INT8_T ... MPI_UINT64_T,
 * MPI_FLOAT, MPI_DOUBLE), ctypes=1 the first C-named type of the size
 * (MPI_SIGNED_CHAR, MPI_INT, MPI_LONG where long has 64 bits, ...),
 * ctypes=2 the second (MPI_LONG_LONG for 64 bits where long has 64 too);
 * float16, bfloat16 and the fp8 types are contiguous byte types in every
 * mode. A bad option value is refused by init with a message.
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

static cs_mpiboot_t *world_boot;
static MPI_Datatype seen_allreduce, seen_bcast;

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
		  MPI_Comm c)
{
	seen_allreduce = t;
	return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	seen_bcast = t;
	return PMPI_Bcast(buf, n, t, root, c);
}

/* The type of dtype d that the backend should use in mode n (0, 1, 2);
 * MPI_DATATYPE_NULL: a derived contiguous byte type. */
static MPI_Datatype expected(cs_dtype_t d, int n)
{
	int l64 = sizeof(long) == 8, i32 = sizeof(int) == 4;

	switch (d) {
	case CS_DTYPE_INT8: return n ? MPI_SIGNED_CHAR : MPI_INT8_T;
	case CS_DTYPE_UINT8: return n ? MPI_UNSIGNED_CHAR : MPI_UINT8_T;
	case CS_DTYPE_INT32:
		if (!n)
			return MPI_INT32_T;
		return n == 2 && !l64 ? MPI_LONG : i32 ? MPI_INT : MPI_LONG;
	case CS_DTYPE_UINT32:
		if (!n)
			return MPI_UINT32_T;
		return n == 2 && !l64 ? MPI_UNSIGNED_LONG
				      : i32 ? MPI_UNSIGNED : MPI_UNSIGNED_LONG;
	case CS_DTYPE_INT64:
		if (!n)
			return MPI_INT64_T;
		return n == 1 && l64 ? MPI_LONG : MPI_LONG_LONG;
	case CS_DTYPE_UINT64:
		if (!n)
			return MPI_UINT64_T;
		return n == 1 && l64 ? MPI_UNSIGNED_LONG
				     : MPI_UNSIGNED_LONG_LONG;
	case CS_DTYPE_FLOAT32: return MPI_FLOAT;
	case CS_DTYPE_FLOAT64: return MPI_DOUBLE;
	case CS_DTYPE_FLOAT16:
	case CS_DTYPE_BFLOAT16:
	case CS_DTYPE_FLOAT8_E4M3:
	case CS_DTYPE_FLOAT8_E5M2:
	case CS_NUM_DTYPES:
		break;
	}
	return MPI_DATATYPE_NULL;
}

static int is_contiguous_bytes(MPI_Datatype t)
{
	int ni, na, nd, comb;

	if (t == MPI_DATATYPE_NULL)
		return 0;
	MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	return comb == MPI_COMBINER_CONTIGUOUS;
}

static void check_mode(const char *opt, int n)
{
	const cs_backend_t *b = cs_backend_mpi();
	cs_bcomm_t world = NULL;
	unsigned char s[16] = { 0 }, r[16];
	int d;

	assert_int_equal(b->init(cs_boot_get(world_boot), opt, &world), 0);
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		MPI_Datatype want = expected((cs_dtype_t)d, n);

		seen_allreduce = seen_bcast = MPI_DATATYPE_NULL;
		assert_int_equal(b->allreduce(s, r, 1, (cs_dtype_t)d,
					      CS_OP_SUM, NULL, world, NULL), 0);
		assert_int_equal(b->broadcast(s, r, 1, (cs_dtype_t)d, 0,
					      world, NULL), 0);
		print_message("%s %s\n", opt, cs_dtype_name((cs_dtype_t)d));
		if (want == MPI_DATATYPE_NULL) {
			assert_true(is_contiguous_bytes(seen_allreduce));
			assert_true(is_contiguous_bytes(seen_bcast));
		} else {
			assert_true(seen_allreduce == want);
			assert_true(seen_bcast == want);
		}
	}
	b->comm_free(world);
	if (b->finalize)
		b->finalize();
}

static void test_fixed_width(void **state)
{
	(void)state;
	check_mode("", 0);
	check_mode("ctypes=0", 0);
}

static void test_ctypes1(void **state)
{
	(void)state;
	check_mode("ctypes=1", 1);
}

static void test_ctypes2(void **state)
{
	(void)state;
	check_mode("ctypes=2", 2);
}

static void test_bad_option(void **state)
{
	const cs_backend_t *b = cs_backend_mpi();
	cs_bcomm_t world = NULL;
	int rc;

	(void)state;
	rc = b->init(cs_boot_get(world_boot), "ctypes=3", &world);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "ctypes=0|1|2"));
	assert_non_null(strstr(b->error_string(NULL, rc), "'ctypes=3'"));
	if (b->finalize)
		b->finalize();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_width),
		cmocka_unit_test(test_ctypes1),
		cmocka_unit_test(test_ctypes2),
		cmocka_unit_test(test_bad_option),
	};
	int rc;

	MPI_Init(&argc, &argv);
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
