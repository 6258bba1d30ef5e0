/*
 * gpu_metrics.h - the arithmetic of bench_gpu, apart from any device: the
 * size conventions of nccl-tests, their bus-bandwidth factors, and the
 * memory traffic of a libcsgpu schedule (csgpu/sched.h).
 *
 * Plain C, pure functions: no allocation, no CUDA. bench_gpu prints what
 * these compute; tests/gpu/test_busbw.c checks them against values derived
 * by hand (docs/gpu-bench.md has the derivations).
 *
 * Sizes follow nccl-tests: the "size" of a call is the bytes of the larger
 * of one rank's two buffers (allreduce, broadcast, reduce, sendrecv: count
 * elements; allgather, gather: the receive buffer, P x sendcount;
 * reducescatter, scatter: the send buffer, P x recvcount; alltoall: P x
 * count per pair). alltoallv has no such size and is refused.
 */
#ifndef CS_BENCH_GPU_METRICS_H
#define CS_BENCH_GPU_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "cs_catalog.h"
#include "csref/status.h"
#include "csgpu/sched.h"

/*
 * nccl-tests' bus-bandwidth factor of coll over P ranks: busbw = algbw x
 * factor, algbw = size / time. allreduce 2(P-1)/P; allgather,
 * reducescatter, alltoall, gather, scatter (P-1)/P; broadcast, reduce,
 * sendrecv 1. Returns -1.0 for alltoallv, a collective out of range, or
 * P < 1.
 */
double gb_busbw_factor(cs_coll_t coll, int P);

/*
 * Blocks per rank in nccl-tests' size of coll (the size is blocks x the
 * count argument x the element size): P for allgather, reducescatter,
 * alltoall, gather and scatter, 1 for the others. 0 for alltoallv, a
 * collective out of range, or P < 1.
 */
size_t gb_size_blocks(cs_coll_t coll, int P);

/*
 * The count argument (csg_plan_t's n) of the largest call of coll over P
 * ranks whose size is at most `bytes` (nccl-tests rounds the same way),
 * and the size of that call: gb_size_of(coll, P, n, esize). 0 when
 * gb_size_blocks is 0 or esize is 0.
 */
size_t gb_count_of(cs_coll_t coll, int P, size_t bytes, size_t esize);
size_t gb_size_of(cs_coll_t coll, int P, size_t n, size_t esize);

/*
 * Elements of one rank's send and receive buffers for a call of count
 * argument n (csgpu/coll.h's layout): into *send and *recv. CS_OK, or
 * CS_ERR_INVALID (naming the reason) for alltoallv, a collective out of
 * range or P < 1; *send and *recv are then 0.
 */
cs_status_t gb_buffer_elems(cs_coll_t coll, int P, size_t n, size_t *send,
			    size_t *recv);

/*
 * Memory traffic of rank r in one call of the plan `p`: over every channel
 * c < p->nchan (p->chan is ignored), slice k < p->nslices, base step s <
 * csg_base_steps(p) and op i < csg_nops(p, r, s), the op's n x (nsrc + 1)
 * x esize bytes: each source read once and the destination written once.
 * 0 when p is NULL or r is outside 0..P-1.
 */
uint64_t gb_traffic_rank(const csg_plan_t *p, int r, size_t esize);

/* The same, summed over all P ranks of the plan. */
uint64_t gb_traffic(const csg_plan_t *p, size_t esize);

/*
 * The same, summed over the ranks placed on device dev when the process
 * sees ndev devices (rank r on cs_dev_of_rank(r, ndev)). 0 when ndev < 1
 * or dev is outside 0..ndev-1.
 */
uint64_t gb_traffic_dev(const csg_plan_t *p, size_t esize, int ndev, int dev);

/*
 * Parse a byte count: decimal digits with an optional suffix K, M or G
 * (powers of 1024, either case), e.g. "1K", "64M", "1G", "4096". CS_OK
 * with *out set, or CS_ERR_INVALID naming the text for anything else
 * (empty, a sign, another suffix, trailing characters) and
 * CS_ERR_OVERFLOW when the value does not fit in size_t.
 */
cs_status_t gb_parse_size(const char *s, size_t *out);

#endif /* CS_BENCH_GPU_METRICS_H */
