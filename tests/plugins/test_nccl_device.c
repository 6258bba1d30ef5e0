/*
 * test_nccl_device.c - the nccl backends on a GPU, or their clean refusal
 * without one.
 *
 * No device: init, init_all and supports must all say "no CUDA device"
 * (status CS_NCCL_ERR_NODEV), without crashing; the program then exits 77,
 * which CTest reports as skipped.
 *
 * With devices: one rank (P = 1) through a one-rank bootstrap, where every
 * collective's result is known without a reference: each must return its
 * input (allreduce: op applied to one contribution, so x, and 2x for
 * premulsum with scalar 2), in and out of place, every dtype this NCCL
 * has; a split; the refusal of two ranks on one GPU; and nccl-local over
 * the GPUs with a grouped allreduce whose sum is known.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cuda_runtime_api.h>
#include "backends/nccl/backend_nccl.h"
#include "csref/arith.h"

#define N 37 /* elements per rank: odd, not a power of two */

#include "fake_boot.h"

/* ---- without a device ---------------------------------------------------------- */

static void test_nodev_init(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	struct fake_boot f;
	cs_bcomm_t comm = NULL;
	int rc;

	(void)state;
	fake_boot_init(&f, 0, 1);
	rc = b->init(&f.b, "", &comm);
	assert_int_equal(rc, CS_NCCL_ERR_NODEV);
	assert_non_null(strstr(b->error_string(NULL, rc), "no CUDA device"));
	assert_null(comm);
}

static void test_nodev_init_all(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	cs_bcomm_t comms[2] = { NULL, NULL };
	int rc;

	(void)state;
	rc = b->init_all(2, "", comms);
	assert_int_equal(rc, CS_NCCL_ERR_NODEV);
	assert_non_null(strstr(b->error_string(NULL, rc), "no CUDA device"));
	assert_null(comms[0]);
}

static void test_nodev_supports(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	cs_backend_query_t q;
	char reason[128] = "";

	(void)state;
	memset(&q, 0, sizeof q);
	q.struct_size = sizeof q;
	q.coll = CS_COLL_ALLTOALL;
	q.dtype = CS_DTYPE_INT8;
	q.op = CS_NUM_OPS;
	q.nranks = 2;
	assert_int_equal(b->supports(NULL, &q, reason, sizeof reason), 0);
	assert_string_equal(reason, "no CUDA device");
}

/* ---- one rank on a device ----------------------------------------------------- */

static cs_bcomm_t world;

static int setup_world(void **state)
{
	struct fake_boot f;

	(void)state;
	fake_boot_init(&f, 0, 1);
	return cs_backend_nccl()->init(&f.b, "", &world);
}

static int teardown_world(void **state)
{
	(void)state;
	return cs_backend_nccl()->comm_free(world);
}

/* Input element i of dtype d: small integers, exact in every dtype, so
 * that doubling them is exact too. */
static uint64_t input_bits(cs_dtype_t d, size_t i)
{
	int v = (int)(i % 7) - (cs_is_float(d) || cs_is_signed_int(d) ? 3 : 0);

	if (cs_is_float(d))
		return cs_from_f64(d, (double)v, 0);
	return (uint64_t)(int64_t)v;
}

static uint64_t two_bits(cs_dtype_t d)
{
	return cs_is_float(d) ? cs_from_f64(d, 2.0, 0) : 2;
}

static int supported(cs_bcomm_t comm, cs_coll_t coll, cs_dtype_t d, cs_op_t op,
		     int inplace)
{
	cs_backend_query_t q;
	char reason[256] = "";

	memset(&q, 0, sizeof q);
	q.struct_size = sizeof q;
	q.coll = coll;
	q.dtype = d;
	q.op = op;
	q.count = N;
	q.nranks = 1;
	q.inplace = inplace;
	if (cs_backend_nccl()->supports(comm, &q, reason, sizeof reason))
		return 1;
	print_message("  skipped (%s)\n", reason);
	return 0;
}

/* Call collective coll at P = 1 on device buffers holding `in`. */
static int call(cs_coll_t coll, const void *s, void *r, cs_dtype_t d,
		cs_op_t op, const void *scalar, void *stream)
{
	const cs_backend_t *b = cs_backend_nccl();
	size_t cnt = N, zero = 0;

	switch (coll) {
	case CS_COLL_ALLREDUCE:
		return b->allreduce(s, r, N, d, op, scalar, world, stream);
	case CS_COLL_REDUCESCATTER:
		return b->reducescatter(s, r, N, d, op, scalar, world, stream);
	case CS_COLL_REDUCE:
		return b->reduce(s, r, N, d, op, scalar, 0, world, stream);
	case CS_COLL_ALLGATHER:
		return b->allgather(s, r, N, d, world, stream);
	case CS_COLL_ALLTOALL:
		return b->alltoall(s, r, N, d, world, stream);
	case CS_COLL_ALLTOALLV:
		return b->alltoallv(s, &cnt, &zero, r, &cnt, &zero, d, world,
				    stream);
	case CS_COLL_BROADCAST:
		return b->broadcast(s, r, N, d, 0, world, stream);
	case CS_COLL_GATHER:
		return b->gather(s, r, N, d, 0, world, stream);
	case CS_COLL_SCATTER:
		return b->scatter(s, r, N, d, 0, world, stream);
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return b->sendrecv(s, r, N, d, world, stream);
	}
}

/*
 * Run one P = 1 case and compare every element, bit for bit, with the
 * input (or twice it for premulsum). Out of place the send buffer must
 * come back unchanged.
 */
static void run_case(cs_coll_t coll, cs_dtype_t d, cs_op_t op, int inplace,
		     void *stream)
{
	const cs_backend_t *b = cs_backend_nccl();
	size_t es = (size_t)cs_size_of(d), i;
	unsigned char in[N * 8], out[N * 8], scalar[8];
	void *ds = NULL, *dr = NULL;
	uint64_t want;
	int rc;

	for (i = 0; i < N; i++)
		cs_store(d, in, i, input_bits(d, i));
	cs_store(d, scalar, 0, two_bits(d));
	assert_int_equal(cudaMalloc(&ds, N * es), cudaSuccess);
	assert_int_equal(cudaMalloc(&dr, N * es), cudaSuccess);
	assert_int_equal(cudaMemcpy(ds, in, N * es, cudaMemcpyHostToDevice),
			 cudaSuccess);
	rc = call(coll, ds, inplace ? ds : dr, d, op, scalar, stream);
	if (rc == 0)
		rc = b->synchronize(world, stream);
	if (rc)
		fail_msg("%s", b->error_string(world, rc));
	assert_int_equal(cudaMemcpy(out, inplace ? ds : dr, N * es,
				    cudaMemcpyDeviceToHost), cudaSuccess);
	for (i = 0; i < N; i++) {
		want = input_bits(d, i);
		if (op == CS_OP_PREMULSUM)
			want = cs_is_float(d)
				       ? cs_from_f64(d, 2.0 * cs_to_f64(d, want), 0)
				       : want * 2;
		assert_int_equal(cs_load(d, out, i), want & cs_bits_mask(d));
	}
	if (!inplace) {
		assert_int_equal(cudaMemcpy(out, ds, N * es,
					    cudaMemcpyDeviceToHost), cudaSuccess);
		assert_memory_equal(out, in, N * es);
	}
	cudaFree(ds);
	cudaFree(dr);
}

/* allreduce, reducescatter and reduce: every dtype and op, both ways. */
static void test_reducing_p1(void **state)
{
	static const cs_coll_t colls[] = { CS_COLL_ALLREDUCE,
					   CS_COLL_REDUCESCATTER,
					   CS_COLL_REDUCE };
	size_t c;
	int d, op, ip;

	(void)state;
	for (c = 0; c < 3; c++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (op = 0; op < CS_NUM_OPS; op++)
				for (ip = 0; ip < 2; ip++)
					if (supported(world, colls[c], (cs_dtype_t)d,
						      (cs_op_t)op, ip))
						run_case(colls[c], (cs_dtype_t)d,
							 (cs_op_t)op, ip, NULL);
}

/* The collectives that move data, including the ones built from
 * send/recv, every dtype, both ways, on the backend's stream and on ours. */
static void test_moving_p1(void **state)
{
	static const cs_coll_t colls[] = {
		CS_COLL_ALLGATHER, CS_COLL_ALLTOALL, CS_COLL_ALLTOALLV,
		CS_COLL_BROADCAST, CS_COLL_GATHER, CS_COLL_SCATTER,
		CS_COLL_SENDRECV };
	cudaStream_t st;
	size_t c;
	int d, ip;

	(void)state;
	assert_int_equal(cudaStreamCreate(&st), cudaSuccess);
	for (c = 0; c < sizeof colls / sizeof colls[0]; c++)
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (ip = 0; ip < 2; ip++)
				if (supported(world, colls[c], (cs_dtype_t)d,
					      CS_NUM_OPS, ip))
					run_case(colls[c], (cs_dtype_t)d,
						 CS_NUM_OPS, ip,
						 (d % 2) ? (void *)st : NULL);
	cudaStreamDestroy(st);
}

static void test_split_p1(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	struct fake_boot f;
	cs_bcomm_t sub = NULL, keep = world;
	int rc;

	(void)state;
	fake_boot_init(&f, 0, 1);
	rc = b->comm_split(world, 0, 0, &f.b, &sub);
	if (rc)
		fail_msg("%s", b->error_string(world, rc));
	world = sub; /* run_case works on `world` */
	run_case(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM, 0, NULL);
	world = keep;
	assert_int_equal(b->comm_free(sub), 0);
}

/* Two ranks of one process both on this GPU: refused before NCCL starts,
 * on every rank, with the reason; likewise a rank told another has none. */
static void test_refusals_before_nccl(void **state)
{
	const cs_backend_t *b = cs_backend_nccl();
	struct fake_boot f;
	cs_bcomm_t comm = NULL;
	int rc;

	(void)state;
	fake_boot_init(&f, 0, 2); /* the other rank reports the same GPU */
	rc = b->init(&f.b, "", &comm);
	assert_int_equal(rc, CS_NCCL_ERR_FEWDEV);
	assert_non_null(strstr(b->error_string(NULL, rc), "share one GPU"));
	fake_boot_init(&f, 1, 2);
	f.other_status = CS_NCCL_ERR_NODEV;
	rc = b->init(&f.b, "", &comm);
	assert_int_equal(rc, CS_NCCL_ERR_NODEV);
	assert_non_null(strstr(b->error_string(NULL, rc), "rank 0 of 2"));
	assert_null(comm);
}

/* Rank i's buffer, on device i, holding N times the value i + 1. */
static void *local_buffer(int i)
{
	int32_t h[N];
	void *buf = NULL;
	size_t k;

	for (k = 0; k < N; k++)
		h[k] = i + 1;
	assert_int_equal(cudaSetDevice(i), cudaSuccess);
	assert_int_equal(cudaMalloc(&buf, sizeof h), cudaSuccess);
	assert_int_equal(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice),
			 cudaSuccess);
	return buf;
}

/* nccl-local over every GPU (at most 8): rank i adds i + 1 everywhere. */
static void test_local_grouped_allreduce(void **state)
{
	const cs_backend_t *b = cs_backend_nccl_local();
	int n = device_count() < 8 ? device_count() : 8, i, rc;
	int32_t h[N], want = n * (n + 1) / 2;
	cs_bcomm_t comms[8];
	void *buf[8];
	size_t k;

	(void)state;
	rc = b->init_all(device_count() + 1, "", comms);
	assert_int_equal(rc, CS_NCCL_ERR_FEWDEV);
	assert_non_null(strstr(b->error_string(NULL, rc), "but this process "
			       "sees"));
	if ((rc = b->init_all(n, "", comms)) != 0)
		fail_msg("%s", b->error_string(NULL, rc));
	for (i = 0; i < n; i++)
		buf[i] = local_buffer(i);
	if (n > 1) /* ungrouped, it would wait forever: refused instead */
		assert_int_not_equal(b->allreduce(buf[0], buf[0], N,
						  CS_DTYPE_INT32, CS_OP_SUM,
						  NULL, comms[0], NULL), 0);
	assert_int_equal(b->group_start(), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(b->allreduce(buf[i], buf[i], N, CS_DTYPE_INT32,
					      CS_OP_SUM, NULL, comms[i], NULL), 0);
	assert_int_equal(b->group_end(), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(b->synchronize(comms[i], NULL), 0);
		assert_int_equal(cudaMemcpy(h, buf[i], sizeof h,
					    cudaMemcpyDeviceToHost), cudaSuccess);
		for (k = 0; k < N; k++)
			assert_int_equal(h[k], want);
		cudaFree(buf[i]);
		assert_int_equal(b->comm_free(comms[i]), 0);
	}
}

int main(void)
{
	const struct CMUnitTest nodev[] = {
		cmocka_unit_test(test_nodev_init),
		cmocka_unit_test(test_nodev_init_all),
		cmocka_unit_test(test_nodev_supports),
	};
	const struct CMUnitTest one[] = {
		cmocka_unit_test(test_reducing_p1),
		cmocka_unit_test(test_moving_p1),
		cmocka_unit_test(test_split_p1),
	};
	const struct CMUnitTest rest[] = {
		cmocka_unit_test(test_refusals_before_nccl),
		cmocka_unit_test(test_local_grouped_allreduce),
	};
	int rc;

	if (device_count() == 0) {
		rc = cmocka_run_group_tests_name("nccl, no device", nodev, NULL,
						 NULL);
		return rc ? rc : 77; /* checked the refusal; the rest needs a GPU */
	}
	rc = cmocka_run_group_tests_name("nccl, one rank", one, setup_world,
					 teardown_world);
	return rc + cmocka_run_group_tests_name("nccl, refusals and local",
						rest, NULL, NULL);
}
