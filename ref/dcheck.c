/*
 * dcheck.c - the host side of the check where the data is (csref/dcheck.h):
 * which cases it covers, their descriptors, and the CPU grid executor that
 * runs the device's per-thread function block by block.
 */
#include <stdlib.h>
#include "csref/dcheck.h"
#include "csref/case.h"
#include "csref/catalog.h"
#include "csref/gen.h"

/* Whether every input of the case is plain random bits of the dtype: the
 * cases ref/gen.c generates with csref/genbits.h (its random_bits). */
static int desc_map(const cs_case_t *c, int rank, cs_dcheck_desc_t *d)
{
	uint64_t n = c->count ? c->count : 1;

	d->count = n;
	d->off = 0;
	d->src = 0;
	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		d->map = CS_DCK_BLOCKS;
		return 1;
	case CS_COLL_ALLTOALL:
		d->map = CS_DCK_A2A;
		return 1;
	case CS_COLL_BROADCAST:
		d->map = CS_DCK_FIXED;
		d->src = c->root;
		return 1;
	case CS_COLL_SCATTER:
		d->map = CS_DCK_FIXED;
		d->src = c->root;
		d->off = (uint64_t)rank * n;
		return 1;
	case CS_COLL_SENDRECV:
		d->map = CS_DCK_FIXED;
		d->src = (rank + c->nranks - 1) % c->nranks;
		return 1;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		d->map = CS_DCK_REDUCE;
		return (unsigned)c->op < CS_NUM_OPS;
	case CS_COLL_REDUCESCATTER:
		d->map = CS_DCK_REDUCE;
		d->off = (uint64_t)rank * c->count;
		return (unsigned)c->op < CS_NUM_OPS;
	case CS_COLL_ALLTOALLV:
	case CS_NUM_COLLS:
	default:
		return 0;
	}
}

int cs_dcheck_desc_init(const cs_case_t *c, int rank, cs_dcheck_desc_t *d)
{
	int P = c->nranks < 1 ? 1 : c->nranks;

	if ((unsigned)c->dtype >= CS_NUM_DTYPES || !cs_gen_bits_only(c) ||
	    rank < 0 || rank >= P)
		return 0;
	d->base = cs_gen_stream(c);
	d->mask = cs_bits_mask(c->dtype);
	d->dtype = (int32_t)c->dtype;
	d->op = (int32_t)c->op;
	d->P = P;
	d->rank = rank;
	return desc_map(c, rank, d);
}

void cs_dcheck_grid_shape(uint64_t n, uint64_t *B, uint64_t *T)
{
	uint64_t per = 16 * (uint64_t)CS_DCHECK_THREADS;

	*T = CS_DCHECK_THREADS;
	*B = (n + per - 1) / per;
	if (*B > CS_DCHECK_MAX_BLOCKS)
		*B = CS_DCHECK_MAX_BLOCKS;
	if (*B < 1)
		*B = 1;
}

/* Block b of the grid: each thread's result, merged in thread order. */
static void grid_block(const cs_dcheck_desc_t *d, const void *got,
		       uint64_t lo, uint64_t n, uint64_t b, uint64_t B,
		       uint64_t T, cs_dcheck_res_t *blk)
{
	cs_dcheck_res_t th;
	uint64_t t;

	cs_dcheck_res_init(blk);
	for (t = 0; t < T; t++) {
		cs_dcheck_res_init(&th);
		cs_dcheck_thread(d, got, lo, n, b, B, t, T, &th);
		cs_dcheck_res_merge(blk, &th);
	}
}

int cs_dcheck_grid_host(const cs_dcheck_desc_t *d, const void *got,
			uint64_t lo, uint64_t n, uint64_t B, uint64_t T,
			cs_dcheck_res_t *r)
{
	cs_dcheck_res_t *blk = malloc(sizeof *blk * (size_t)(B ? B : 1));
	long long b;

	cs_dcheck_res_init(r);
	if (!blk)
		return -1;
#pragma omp parallel for if (n > 65536) schedule(static)
	for (b = 0; b < (long long)B; b++)
		grid_block(d, got, lo, n, (uint64_t)b, B, T, &blk[b]);
	for (b = 0; b < (long long)B; b++)
		cs_dcheck_res_merge(r, &blk[b]);
	free(blk);
	return 0;
}
