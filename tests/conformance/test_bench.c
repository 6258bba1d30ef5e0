/*
 * test_bench.c - `collspec bench`'s pure parts (conformance/bench/bench_out.c,
 * bench_args.c): nccl-tests' bus bandwidth factors and sizes against
 * hand-computed values, the statistics of a small hand-worked example,
 * the JSON line read back and malformed lines refused, the message sizes
 * and the option errors. The end-to-end runs (JSON and CSV read by an
 * independent reader, #wrong on a broken plugin) are test_bench.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "bench/bench.h"
#include "csref/cost.h"

/* nccl-tests doc/PERFORMANCE.md: allreduce 2(n-1)/n, allgather and
 * reducescatter (n-1)/n, broadcast and reduce 1; worked by hand. */
static void test_factors(void **state)
{
	(void)state;
	assert_true(cs_nccl_busbw_factor(CS_COLL_ALLREDUCE, 4) == 1.5);
	assert_true(cs_nccl_busbw_factor(CS_COLL_ALLREDUCE, 2) == 1.0);
	assert_true(cs_nccl_busbw_factor(CS_COLL_ALLREDUCE, 1) == 0.0);
	assert_true(cs_nccl_busbw_factor(CS_COLL_ALLGATHER, 4) == 0.75);
	assert_true(cs_nccl_busbw_factor(CS_COLL_REDUCESCATTER, 8) == 0.875);
	assert_true(cs_nccl_busbw_factor(CS_COLL_ALLTOALL, 2) == 0.5);
	assert_true(cs_nccl_busbw_factor(CS_COLL_BROADCAST, 4) == 1.0);
	assert_true(cs_nccl_busbw_factor(CS_COLL_REDUCE, 16) == 1.0);
	assert_true(cs_nccl_busbw_factor(CS_COLL_SENDRECV, 2) == 1.0);
	/* bytes per element count: float32 is 4 bytes; allgather's size is
	 * the whole gathered buffer (4 ranks: 16 bytes per count) */
	assert_int_equal(cs_nccl_size_per_count(CS_COLL_ALLREDUCE,
						  CS_DTYPE_FLOAT32, 4), 4);
	assert_int_equal(cs_nccl_size_per_count(CS_COLL_ALLGATHER,
						  CS_DTYPE_FLOAT32, 4), 16);
	assert_int_equal(cs_nccl_size_per_count(CS_COLL_REDUCESCATTER,
						  CS_DTYPE_FLOAT64, 3), 24);
	assert_int_equal(cs_nccl_size_per_count(CS_COLL_BROADCAST,
						  CS_DTYPE_INT8, 8), 1);
}

/*
 * 2 ranks, 4 iterations, times in microseconds (rank 0, rank 1):
 *   (10, 12) (20, 14) (30, 30) (40, 25)
 * per iteration max: 12 20 30 40 -> mean 25.5, min 12, max 40; sorted
 * 12 20 30 40: nearest-rank p50 = element ceil(2) = 20, p90 = element
 * ceil(3.6) = 40, p99 = 40. Spread: 2, 6, 0, 15 -> mean 5.75.
 * allreduce of 1,000,000 bytes: algbw = 1e6 B / 25.5 us = 39.2157 GB/s,
 * busbw = algbw * 1 (P = 2).
 */
static void test_stats(void **state)
{
	const double us[8] = {10, 12, 20, 14, 30, 30, 40, 25};
	double t[8];
	cs_bench_rec_t r;
	int i;

	(void)state;
	for (i = 0; i < 8; i++)
		t[i] = us[i] * 1e-6;
	memset(&r, 0, sizeof r);
	r.coll = CS_COLL_ALLREDUCE;
	r.nranks = 2;
	r.bytes = 1000000;
	cs_bench_stats(&r, t, 4);
	assert_float_equal(r.time_us, 25.5, 1e-9);
	assert_float_equal(r.min_us, 12, 1e-9);
	assert_float_equal(r.max_us, 40, 1e-9);
	assert_float_equal(r.p50_us, 20, 1e-9);
	assert_float_equal(r.p90_us, 40, 1e-9);
	assert_float_equal(r.p99_us, 40, 1e-9);
	assert_float_equal(r.wait_spread_us, 5.75, 1e-9);
	assert_float_equal(r.algbw_GBps, 39.2156862745, 1e-6);
	assert_float_equal(r.busbw_GBps, 39.2156862745, 1e-6);
	/* the same times at 4 ranks of allgather (2 iterations): per
	 * iteration max 20 and 40, mean 30; factor 3/4 */
	r.coll = CS_COLL_ALLGATHER;
	r.nranks = 4;
	r.bytes = 3000;
	cs_bench_stats(&r, t, 2);
	assert_float_equal(r.time_us, 30, 1e-9);
	assert_float_equal(r.algbw_GBps, 0.1, 1e-12);
	assert_float_equal(r.busbw_GBps, 0.075, 1e-12);
	assert_float_equal(r.wait_spread_us, (10 + 15) / 2.0, 1e-9);
}

static void sample(cs_bench_rec_t *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->series, sizeof r->series, "mpi/alg=\"2\"");
	snprintf(r->backend, sizeof r->backend, "mpi");
	r->coll = CS_COLL_REDUCESCATTER;
	r->dtype = CS_DTYPE_BFLOAT16;
	r->op = CS_OP_MAX;
	r->inplace = 1;
	r->nranks = 8;
	r->bytes = 1048576;
	r->count = 65536;
	r->iters = 20;
	r->warmup = 5;
	r->time_us = 123.25;
	r->p99_us = 1e-3;
	r->busbw_GBps = 8.5;
	r->wrong = -1;
}

static void test_json_back(void **state)
{
	cs_bench_rec_t r, b;
	char line[2048];

	(void)state;
	sample(&r);
	assert_true(cs_bench_rec_json(&r, line, sizeof line) < (int)sizeof line);
	assert_non_null(strstr(line, "\"series\": \"mpi/alg=\\\"2\\\"\""));
	assert_non_null(strstr(line, "\"op\": \"max\""));
	assert_int_equal(cs_bench_rec_from_json(line, &b), CS_OK);
	assert_string_equal(b.series, r.series);
	assert_int_equal(b.coll, r.coll);
	assert_int_equal(b.dtype, r.dtype);
	assert_int_equal(b.op, r.op);
	assert_int_equal(b.bytes, r.bytes);
	assert_int_equal(b.count, r.count);
	assert_int_equal(b.nranks, 8);
	assert_true(b.wrong == -1);
	assert_float_equal(b.time_us, 123.25, 0);
	assert_float_equal(b.p99_us, 1e-3, 0);
	/* malformed lines: a key missing, a bad number, a string for a
	 * number, an unknown collective, no object */
	assert_int_equal(cs_bench_rec_from_json("{\"series\": \"x\"}", &b),
			 CS_ERR_INVALID);
	strcpy(strstr(line, "\"time_us\": ") + 11, "1.2.3}");
	assert_int_equal(cs_bench_rec_from_json(line, &b), CS_ERR_INVALID);
	cs_bench_rec_json(&r, line, sizeof line);
	memcpy(strstr(line, "\"nranks\": 8"), "\"nranks\":\"8", 11);
	assert_int_equal(cs_bench_rec_from_json(line, &b), CS_ERR_INVALID);
	cs_bench_rec_json(&r, line, sizeof line);
	memcpy(strstr(line, "reducescatter"), "reducesHatter", 13);
	assert_int_equal(cs_bench_rec_from_json(line, &b), CS_ERR_INVALID);
	assert_int_equal(cs_bench_rec_from_json("[1, 2]", &b), CS_ERR_INVALID);
}

static cs_status_t parse(cs_bench_opts_t *o, const char *line)
{
	char buf[512], *argv[32], *p, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof buf, "bench %s", line);
	for (p = strtok_r(buf, " ", &save); p && argc < 31;
	     p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	argv[argc] = NULL;
	free(o->list_buf);
	return cs_bench_parse_args(argc, argv, o);
}

static void test_sizes(void **state)
{
	cs_bench_opts_t o = {0};
	cs_run_opts_t ro;
	uint64_t b[40];

	(void)state;
	/* defaults: 8 B to 1 MiB by 2: 2^3 .. 2^20, 18 sizes */
	assert_int_equal(parse(&o, "--coll allreduce"), CS_OK);
	assert_int_equal(cs_bench_byte_sizes(&o, b, 40), 18);
	assert_int_equal(b[0], 8);
	assert_int_equal(b[17], 1048576);
	assert_int_equal(o.iters, 20);
	assert_int_equal(o.inplace, -1);
	assert_int_equal(parse(&o, "--coll allgather -b 1K -e 1m -f 32 "
			       "--inplace 0"), CS_OK);
	assert_int_equal(cs_bench_byte_sizes(&o, b, 40), 3);
	assert_int_equal(b[1], 32768);
	assert_int_equal(o.op, CS_OP_NONE);
	/* allgather float32 at 4 ranks: 1 KiB is 64 elements per rank */
	assert_int_equal(cs_bench_run_opts(&o, 4, &ro), CS_OK);
	assert_int_equal(ro.f.ncounts, 3);
	assert_int_equal(ro.f.counts[0], 64);
	assert_int_equal(ro.f.counts[2], 65536);
	assert_int_equal(ro.f.inplace, 0);
	/* sizes below one element per rank run count 1, once */
	assert_int_equal(parse(&o, "--coll allgather -b 1 -e 8"), CS_OK);
	assert_int_equal(cs_bench_run_opts(&o, 4, &ro), CS_OK);
	assert_int_equal(ro.f.ncounts, 1);
	assert_int_equal(ro.f.counts[0], 1);
	assert_int_equal(parse(&o, "--backend ref,mpi --coll reduce --ompi-alg "
			       "1,3 --ranks 2,4 -c 0"), CS_OK);
	assert_int_equal(o.nbackends, 2);
	assert_string_equal(o.backends[1], "mpi");
	assert_int_equal(o.nalgs, 2);
	assert_int_equal(o.algs[1], 3);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.check, 0);
	free(o.list_buf);
}

static void test_bad_options(void **state)
{
	static const char *bad[] = {
		"", "--coll allreduce --frobnicate", "--coll allreduce -f 1",
		"--coll allgather --op sum", "--coll allreduce --op none",
		"--coll allreduce -b 1M -e 8", "--coll allreduce -b 2T",
		"--coll allreduce -b 1 -e 64G -f 2",
		"--coll allreduce -e 99999999999999999999999", "--coll allreduce -n 0",
		"--coll allreduce -c 2", "--coll allreduce --inplace 2",
		"--coll allreduce --backend ref,,mpi", "--coll allreduce -b x",
		"--coll allreduce --ompi-alg 1,,2", "--coll allreduce --plot a.pdf",
		"--coll fft", "--coll allreduce --ranks 0", "--coll allreduce x",
	};
	cs_bench_opts_t o = {0};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (parse(&o, bad[i]) != CS_ERR_INVALID)
			fail_msg("accepted: collspec bench %s", bad[i]);
	}
	free(o.list_buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_factors),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_json_back),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
