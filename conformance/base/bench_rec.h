/*
 * bench_rec.h - one measurement of `collspec bench` (issue 11): a series
 * (a backend, or a variant of one: an MPI library's algorithm), one
 * collective, dtype, op, in-place choice, world size and message size,
 * timed over iterations. What bench's table, --json and --csv print, what
 * --plot draws and what `collspec model --fit` reads.
 *
 * The JSON form (one object per line, keys in this order) and the CSV
 * form (a header line, then one line per record, same names) are:
 *
 *   series backend coll dtype op inplace nranks bytes count iters warmup
 *   time_us min_us p50_us p90_us p99_us max_us algbw_GBps busbw_GBps
 *   wait_spread_us wrong checked check_us
 *
 * series, backend, coll, dtype, op are strings (op "none" for a collective
 * that does not reduce); inplace, nranks, iters, warmup, wrong, checked
 * integers; bytes, count unsigned integers; the rest numbers. Times are
 * microseconds of one call; per iteration the time is the largest over
 * the ranks; time_us is their mean, min/p50/p90/p99/max their order
 * statistics. bytes is nccl-tests' "size": count * dtype size for
 * allreduce, broadcast, reduce, sendrecv; count * P * dtype size for
 * allgather, reducescatter, alltoall(v), gather, scatter. algbw =
 * bytes / time, busbw = algbw * nccl-tests' factor (allreduce 2(P-1)/P;
 * allgather, reducescatter, alltoall (P-1)/P; broadcast, reduce,
 * sendrecv 1), in GB/s (10^9 bytes per second). wait_spread_us: the mean
 * over iterations of (largest - smallest) per-rank time of that
 * iteration, the straggler view. wrong: elements of the last iteration's
 * result that failed the harness's check (checked = 1), or -1 when the
 * check was off (-c 0; checked = 0). check_us: the harness's checks of
 * that checked call (the oracle, the comparison, the statistics, guards
 * and send buffer: cs_exec_check_call) on its slowest rank, in
 * microseconds, beside the call's own time_us; -1 when not checked.
 * Records of earlier releases have no check_us: readers take it as -1.
 */
#ifndef CS_BENCH_REC_H
#define CS_BENCH_REC_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"

typedef struct cs_bench_rec {
	char series[64];   /* "mpi", "ref", "mpi/alg=2" */
	char backend[64];
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;        /* CS_NUM_OPS ("none") when coll does not reduce */
	int inplace;
	int nranks;
	uint64_t bytes, count;
	int iters, warmup;
	double time_us, min_us, p50_us, p90_us, p99_us, max_us;
	double algbw_GBps, busbw_GBps;
	double wait_spread_us;
	long long wrong;   /* -1: not checked */
	int checked;
	double check_us;   /* -1: not checked (or not recorded) */
} cs_bench_rec_t;

#endif /* CS_BENCH_REC_H */
