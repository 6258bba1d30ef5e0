/*
 * dcheck.h - the value check "where the data is": a per-element check of
 * one receive buffer against the generator, as host+device functions
 * (CS_HD), so that a CUDA kernel (gpu/src/dcheck.cu), the CPU grid
 * executor (cs_dcheck_grid_host, ref/dcheck.c) and the unit tests run the
 * same code (docs/harness.md, "Checking where the data is").
 *
 * Covered: the cases whose inputs are plain random bits of the dtype
 * (csref/genbits.h: random mode with an integer dtype, or with no op) on
 * every collective but alltoallv: data movement (allgather, gather,
 * alltoall, broadcast, scatter, sendrecv), whose expected element is one
 * rank's input element, compared bit for bit; and the integer reductions
 * (allreduce, reduce, reducescatter with sum, prod, max, min, avg,
 * premulsum), whose expected element is the fold of arith.h's cs_step over
 * the ranks in rank order, bit-exact as every integer result is (integer
 * sum and prod wrap, so the order does not matter). cs_dcheck_desc_init
 * says 0 for every other case: the caller checks those on the host.
 *
 * The answer for a range of elements is a cs_dcheck_res_t: how many were
 * checked, how many were wrong, and the lowest CS_DCHECK_FIRST wrong
 * indices. It is a verdict of PASS only: a caller that finds anything
 * wrong runs the host check (ref/oracle.c) on the same buffer, so a FAIL
 * reads as it always has.
 *
 * Partition (the same on the device and in the grid executor): a grid of
 * B blocks of T threads; block b owns elements [lo + b*C, lo + (b+1)*C)
 * of the range, C = ceil(n / B); thread t of the block checks the
 * block's elements t, t + T, t + 2T, ... Each thread's result is its own;
 * a block's is the merge of its threads', the range's the merge of its
 * blocks'. Merging adds the counts and keeps the lowest indices, so the
 * merged result does not depend on the order of the merges.
 */
#ifndef CSREF_DCHECK_H
#define CSREF_DCHECK_H

#include <stddef.h>
#include <stdint.h>
#include "csref/arith.h"
#include "csref/case.h"
#include "csref/genbits.h"

/* Wrong indices a result keeps (the lowest). */
#define CS_DCHECK_FIRST 4

/* Where element j of the receive range comes from. */
enum cs_dcheck_map {
	CS_DCK_BLOCKS, /* rank j / count, its element j % count (allgather,
			  gather) */
	CS_DCK_A2A,    /* rank j / count, its element rank*count + j % count
			  (alltoall) */
	CS_DCK_FIXED,  /* rank src, its element off + j (broadcast, scatter,
			  sendrecv) */
	CS_DCK_REDUCE  /* every rank's element off + j, reduced with op
			  (allreduce, reduce, reducescatter) */
};

/* One receive buffer's case, as the check needs it: plain data, copied to
 * the device by value. */
typedef struct cs_dcheck_desc {
	uint64_t base;   /* the case's stream (csref/genbits.h) */
	uint64_t mask;   /* the dtype's bits */
	uint64_t count;  /* elements per block (CS_DCK_BLOCKS, CS_DCK_A2A) */
	uint64_t off;    /* first source element (CS_DCK_FIXED, _REDUCE) */
	int32_t map;     /* enum cs_dcheck_map */
	int32_t dtype;   /* cs_dtype_t */
	int32_t op;      /* cs_op_t (CS_DCK_REDUCE) */
	int32_t P;       /* ranks */
	int32_t rank;    /* whose receive buffer */
	int32_t src;     /* CS_DCK_FIXED: the source rank */
} cs_dcheck_desc_t;

/* What a check of some elements found. */
typedef struct cs_dcheck_res {
	uint64_t checked;                /* elements compared */
	uint64_t wrong;                  /* of them, not the expected bits */
	uint64_t first[CS_DCHECK_FIRST]; /* the lowest wrong indices,
					    ascending */
	uint32_t nfirst;                 /* entries of first[] in use */
	uint32_t pad_;
} cs_dcheck_res_t;

CS_HD void cs_dcheck_res_init(cs_dcheck_res_t *r)
{
	int i;

	r->checked = r->wrong = 0;
	r->nfirst = r->pad_ = 0;
	for (i = 0; i < CS_DCHECK_FIRST; i++)
		r->first[i] = 0;
}

/* Keep index j among r's lowest wrong indices (no count changes). */
CS_HD void cs_dcheck_res_keep(cs_dcheck_res_t *r, uint64_t j)
{
	uint32_t k;

	if (r->nfirst == CS_DCHECK_FIRST && j >= r->first[CS_DCHECK_FIRST - 1])
		return;
	if (r->nfirst < CS_DCHECK_FIRST)
		r->nfirst++;
	for (k = r->nfirst - 1; k > 0 && r->first[k - 1] > j; k--)
		r->first[k] = r->first[k - 1];
	r->first[k] = j;
}

/* r += s: counts added, the lowest wrong indices of both kept. s's
 * indices are distinct from r's (the partition gives each element to one
 * thread). */
CS_HD void cs_dcheck_res_merge(cs_dcheck_res_t *r, const cs_dcheck_res_t *s)
{
	uint32_t k;

	r->checked += s->checked;
	r->wrong += s->wrong;
	for (k = 0; k < s->nfirst; k++)
		cs_dcheck_res_keep(r, s->first[k]);
}

/* The expected bits of element j of the receive range. */
CS_HD uint64_t cs_dcheck_expect(const cs_dcheck_desc_t *d, uint64_t j)
{
	cs_dtype_t dt = (cs_dtype_t)d->dtype;
	cs_op_t op = (cs_op_t)d->op;
	uint64_t acc = 0, i = d->off + j;
	int q;

	switch (d->map) {
	case CS_DCK_BLOCKS:
		return cs_genbits_at(d->base, (int)(j / d->count), j % d->count,
				     d->mask);
	case CS_DCK_A2A:
		return cs_genbits_at(d->base, (int)(j / d->count),
				     (uint64_t)d->rank * d->count + j % d->count,
				     d->mask);
	case CS_DCK_FIXED:
		return cs_genbits_at(d->base, d->src, i, d->mask);
	default:
		break;
	}
	/* CS_DCK_REDUCE: the golden's integer fold (arith.h) in rank order */
	for (q = 0; q < d->P; q++)
		acc = cs_int_fold(dt, op, q, acc,
				  cs_genbits_at(d->base, q, i, d->mask),
				  op == CS_OP_PREMULSUM
					  ? cs_genbits_scalar(d->base, q, d->mask)
					  : 0);
	return cs_int_fold_end(dt, op, acc, d->P);
}

/* The elements of range [lo, lo+n) that block b of B owns: [*a, *z). */
CS_HD void cs_dcheck_block_span(uint64_t lo, uint64_t n, uint64_t b,
				uint64_t B, uint64_t *a, uint64_t *z)
{
	uint64_t C = (n + B - 1) / B;

	*a = lo + (b * C < n ? b * C : n);
	*z = lo + ((b + 1) * C < n ? (b + 1) * C : n);
}

/* Thread t of T, block b of B: check its elements of the range
 * [lo, lo+n) of got (element 0 of the receive range) into r (added to). */
CS_HD void cs_dcheck_thread(const cs_dcheck_desc_t *d, const void *got,
			    uint64_t lo, uint64_t n, uint64_t b, uint64_t B,
			    uint64_t t, uint64_t T, cs_dcheck_res_t *r)
{
	cs_dtype_t dt = (cs_dtype_t)d->dtype;
	uint64_t a, z, j;

	cs_dcheck_block_span(lo, n, b, B, &a, &z);
	for (j = a + t; j < z; j += T) {
		r->checked++;
#ifdef CS_DCHECK_PLANT /* tests/unit/test_dcheck.c's planted error: the
			  last element of a block is counted, not compared */
		if (j + 1 == z)
			continue;
#endif
		if (cs_load(dt, got, (size_t)j) != cs_dcheck_expect(d, j)) {
			r->wrong++;
			cs_dcheck_res_keep(r, j);
		}
	}
}

#ifdef __cplusplus
extern "C" {
#endif

/* The case of rank `rank`'s receive buffer for case c (the call's own
 * seed), into d: 1 when the check covers it, 0 when the host must check
 * it (see the top of this file). c must be valid. */
int cs_dcheck_desc_init(const cs_case_t *c, int rank,
			cs_dcheck_desc_t *d);

/* The grid a range of n elements is checked with: *B blocks of *T
 * threads (at most CS_DCHECK_MAX_BLOCKS and CS_DCHECK_THREADS). */
#define CS_DCHECK_THREADS 256
#define CS_DCHECK_MAX_BLOCKS 1024
void cs_dcheck_grid_shape(uint64_t n, uint64_t *B, uint64_t *T);

/*
 * The CPU grid executor: elements [lo, lo+n) of got (element 0 of the
 * receive range, host memory) checked by cs_dcheck_thread for every
 * thread of a grid of B blocks of T threads (T <= CS_DCHECK_THREADS), the
 * threads' results merged into their block's, the blocks' into *r, as the
 * CUDA kernel does. Blocks run in parallel with OpenMP. 0, or -1 when
 * out of memory (r then holds nothing: check on the host).
 */
int cs_dcheck_grid_host(const cs_dcheck_desc_t *d, const void *got,
			uint64_t lo, uint64_t n, uint64_t B, uint64_t T,
			cs_dcheck_res_t *r);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_DCHECK_H */
