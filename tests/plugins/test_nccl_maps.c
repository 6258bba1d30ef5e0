/*
 * test_nccl_maps.c - the nccl backends on any machine: the dtype and op
 * maps against the catalog, the two structs, the checks made before any
 * CUDA call, and what a machine without a GPU is told.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "backends/nccl/backend_nccl.h"
#include "backends/nccl/backend_nccl_impl.h" /* cs_nccl_native_colls */

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 24, 0)
/* no float8 in this NCCL: the backend must map them to -1 */
#define ncclFloat8e4m3 (-1)
#define ncclFloat8e5m2 (-1)
#endif

#include "fake_boot.h"

/* ---- maps ------------------------------------------------------------------- */

/* Every catalog dtype goes to the enumerator the catalog's nccl column
 * names (or -1 where this NCCL lacks it), and no two to the same one. */
static void test_dtype_map_follows_catalog(void **state)
{
#define EXPECT_(ID, name, bytes, kind, prec, emin, emax, ebits, fn, nccl, \
			mpi) (int)(nccl),
	static const int expect[CS_NUM_DTYPES] = { CS_DTYPE_LIST(EXPECT_) };
#undef EXPECT_
	int d, e;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++)
		assert_int_equal(cs_backend_nccl_dtype((cs_dtype_t)d), expect[d]);
	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (e = d + 1; e < CS_NUM_DTYPES; e++)
			if (expect[d] >= 0)
				assert_int_not_equal(cs_backend_nccl_dtype((cs_dtype_t)d),
						     cs_backend_nccl_dtype((cs_dtype_t)e));
	assert_int_equal(cs_backend_nccl_dtype(CS_NUM_DTYPES), -1);
	assert_int_equal(cs_backend_nccl_dtype((cs_dtype_t)-1), -1);
}

static void test_op_map(void **state)
{
	(void)state;
	assert_int_equal(cs_backend_nccl_op(CS_OP_SUM), ncclSum);
	assert_int_equal(cs_backend_nccl_op(CS_OP_PROD), ncclProd);
	assert_int_equal(cs_backend_nccl_op(CS_OP_MAX), ncclMax);
	assert_int_equal(cs_backend_nccl_op(CS_OP_MIN), ncclMin);
	assert_int_equal(cs_backend_nccl_op(CS_OP_AVG), ncclAvg);
	assert_int_equal(cs_backend_nccl_op(CS_OP_PREMULSUM),
			 CS_NCCL_OP_PREMULSUM);
	assert_int_equal(cs_backend_nccl_op(CS_NUM_OPS), -1);
	/* every catalog op is covered: this list must grow with the catalog */
	assert_int_equal(CS_NUM_OPS, 6);
}

/* ---- the structs ------------------------------------------------------------ */

static void check_common(const cs_backend_t *b)
{
	assert_non_null(b);
	assert_int_equal(b->abi_version, CS_BACKEND_ABI_VERSION);
	assert_int_equal(b->struct_size, sizeof(cs_backend_t));
	assert_int_equal(b->mem_kind, CS_MEM_CUDA);
	assert_non_null(b->description);
	assert_non_null(b->comm_split);
	assert_non_null(b->comm_free);
	assert_non_null(b->supports);
	assert_non_null(b->allreduce);
	assert_non_null(b->allgather);
	assert_non_null(b->reducescatter);
	assert_non_null(b->alltoall);
	assert_non_null(b->alltoallv);
	assert_non_null(b->broadcast);
	assert_non_null(b->reduce);
	assert_non_null(b->gather);
	assert_non_null(b->scatter);
	assert_non_null(b->sendrecv);
	assert_non_null(b->synchronize);
	assert_non_null(b->error_string);
}

static void test_structs(void **state)
{
	const cs_backend_t *r = cs_backend_nccl(), *l = cs_backend_nccl_local();

	(void)state;
	check_common(r);
	assert_string_equal(r->name, "nccl");
	assert_int_equal(r->proc_model, CS_PROC_RANK_PER_PROCESS);
	assert_non_null(r->init);
	assert_null(r->init_all);
	assert_null(r->group_start);
	assert_null(r->group_end);
	check_common(l);
	assert_string_equal(l->name, "nccl-local");
	assert_int_equal(l->proc_model, CS_PROC_ALL_IN_PROCESS);
	assert_null(l->init);
	assert_non_null(l->init_all);
	assert_non_null(l->group_start);
	assert_non_null(l->group_end);
}

/* ---- checks made before CUDA is touched ------------------------------------ */

static void test_init_rejects_bad_bootstrap(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	struct fake_boot f;
	cs_bcomm_t comm = NULL;
	int rc;

	(void)state;
	rc = b->init(NULL, "", &comm);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "bootstrap"));
	fake_boot_init(&f, 0, 1);
	f.b.struct_size = 4; /* an older, smaller struct */
	assert_int_not_equal(b->init(&f.b, "", &comm), 0);
	fake_boot_init(&f, 1, 1); /* rank outside the group */
	assert_int_not_equal(b->init(&f.b, "", &comm), 0);
	assert_null(comm);
	assert_int_equal(f.allgathers, 0);
}

/* An option string is refused on every rank alike, after the ranks have
 * agreed (so none is left waiting), and the message quotes it. */
static void test_init_rejects_options(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	struct fake_boot f;
	cs_bcomm_t comm = NULL;
	int rc;

	(void)state;
	fake_boot_init(&f, 0, 3);
	rc = b->init(&f.b, "algo=ring", &comm);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "'algo=ring'"));
	assert_int_equal(f.allgathers, 1);
	assert_int_equal(f.broadcasts, 0); /* no unique id goes out */
	assert_null(comm);
}

static void test_init_all_rejects_bad_arguments(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	cs_bcomm_t comms[2] = { NULL, NULL };
	int rc;

	(void)state;
	rc = b->init_all(0, "", comms);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "0 ranks"));
	assert_int_not_equal(b->init_all(2, "", NULL), 0);
	rc = b->init_all(2, "x", comms);
	assert_non_null(strstr(b->error_string(NULL, rc), "'x'"));
	assert_null(comms[0]);
}

static void test_calls_reject_null_comm(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	int rc;

	(void)state;
	rc = b->allreduce(NULL, NULL, 0, CS_DTYPE_FLOAT32, CS_OP_SUM, NULL, NULL,
			  NULL);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "NULL communicator"));
	assert_int_not_equal(b->alltoallv(NULL, NULL, NULL, NULL, NULL, NULL,
					  CS_DTYPE_INT8, NULL, NULL), 0);
	assert_int_not_equal(b->synchronize(NULL, NULL), 0);
	assert_int_not_equal(b->comm_free(NULL), 0);
}

static void test_group_end_without_start(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	int rc;

	(void)state;
	rc = b->group_end();
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "group_start"));
}

/* error_string is never NULL, and explains the exported codes. */
static void test_error_strings(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();

	(void)state;
	assert_string_equal(b->error_string(NULL, 0), "success");
	(void)b->comm_free(NULL); /* makes another code the last failure */
	assert_string_equal(b->error_string(NULL, CS_NCCL_ERR_NODEV),
			    "no CUDA device");
	assert_non_null(strstr(b->error_string(NULL, CS_NCCL_ERR_FEWDEV),
			       "fewer CUDA devices"));
	assert_non_null(b->error_string(NULL, 12345));
	assert_non_null(b->error_string(NULL, -7));
}

/* ---- NCCL's own alltoall, gather, scatter -------------------------------- */

/* init_all of one rank with opts; the communicator, if a device made one,
 * freed. The status. */
static int init_all_with(const char *opts)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	cs_bcomm_t comm = NULL;
	int rc = b->init_all(1, opts, &comm);

	if (rc == 0)
		b->comm_free(comm);
	return rc;
}

/* Built against NCCL 2.28+ with the three symbols, and run with that
 * library (this build's), gather, scatter and alltoall are NCCL's own;
 * p2p=1 turns them back into grouped send/recv, p2p=0 or no option not.
 * Options are parsed before any device is looked for, so this holds on a
 * machine without a GPU. */
static void test_native_colls(void **state)
{
	int v = 0;

	(void)state;
	assert_int_equal(ncclGetVersion(&v), ncclSuccess);
	(void)init_all_with("");
	if (!NB_HAVE_NATIVE_COLLS || v < NCCL_VERSION(2, 28, 0)) {
		assert_false(cs_nccl_native_colls());
		skip();
	}
	assert_true(cs_nccl_native_colls());
	(void)init_all_with("p2p=1");
	assert_false(cs_nccl_native_colls());
	(void)init_all_with("p2p=0");
	assert_true(cs_nccl_native_colls());
	(void)init_all_with("p2p=1,p2p=0");
	assert_true(cs_nccl_native_colls());
}

/* p2p takes 0 or 1; the refusal quotes the item and gives the range. */
static void test_p2p_option_values(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	int rc;

	(void)state;
	rc = init_all_with("p2p=2");
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(b->error_string(NULL, rc), "'p2p=2'"));
	assert_non_null(strstr(b->error_string(NULL, rc), "p2p=0|1"));
	rc = init_all_with("p2p=1,algo=ring");
	assert_non_null(strstr(b->error_string(NULL, rc), "'algo=ring'"));
	assert_int_not_equal(init_all_with("p2p"), 0);
}

/* ---- no device --------------------------------------------------------------- */

static void test_no_device_answers(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	cs_backend_query_t q;
	char reason[128] = "";

	(void)state;
	if (device_count() > 0)
		skip();
	memset(&q, 0, sizeof q);
	q.struct_size = sizeof q;
	q.coll = CS_COLL_ALLREDUCE;
	q.dtype = CS_DTYPE_FLOAT32;
	q.op = CS_OP_SUM;
	q.count = 1;
	q.nranks = 1;
	assert_int_equal(b->supports(NULL, &q, reason, sizeof reason), 0);
	assert_string_equal(reason, "no CUDA device");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dtype_map_follows_catalog),
		cmocka_unit_test(test_op_map),
		cmocka_unit_test(test_structs),
		cmocka_unit_test(test_init_rejects_bad_bootstrap),
		cmocka_unit_test(test_init_rejects_options),
		cmocka_unit_test(test_init_all_rejects_bad_arguments),
		cmocka_unit_test(test_calls_reject_null_comm),
		cmocka_unit_test(test_group_end_without_start),
		cmocka_unit_test(test_error_strings),
		cmocka_unit_test(test_no_device_answers),
		cmocka_unit_test(test_native_colls),
		cmocka_unit_test(test_p2p_option_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
