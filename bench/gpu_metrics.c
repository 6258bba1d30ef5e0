/*
 * gpu_metrics.c - bench_gpu's arithmetic: nccl-tests' sizes and
 * bus-bandwidth factors, a schedule's memory traffic, byte counts with
 * suffixes. Pure functions; see gpu_metrics.h for the contracts and
 * docs/gpu-bench.md for the derivations.
 */
#include <errno.h>
#include <stdlib.h>
#include "csref/cost.h"
#include "gpu_metrics.h"
#include "csgpu/device.h" /* cs_dev_of_rank */

double gb_busbw_factor(cs_coll_t coll, int P)
{
	/* nccl-tests' table (csref/cost.h); the GPU bench times no
	 * alltoallv, whose traffic depends on its matrix */
	if (P < 1 || coll == CS_COLL_ALLTOALLV || (unsigned)coll >= CS_NUM_COLLS)
		return -1.0;
	return cs_nccl_busbw_factor(coll, P);
}

size_t gb_size_blocks(cs_coll_t coll, int P)
{
	/* nccl-tests' size rule (csref/cost.h), in blocks of count; no
	 * alltoallv (its sizes depend on its matrix) */
	if (P < 1 || coll == CS_COLL_ALLTOALLV || (unsigned)coll >= CS_NUM_COLLS)
		return 0;
	return (size_t)(cs_nccl_size_per_count(coll, CS_DTYPE_UINT8, P));
}

size_t gb_count_of(cs_coll_t coll, int P, size_t bytes, size_t esize)
{
	size_t blocks = gb_size_blocks(coll, P);

	if (!blocks || !esize)
		return 0;
	return bytes / esize / blocks;
}

size_t gb_size_of(cs_coll_t coll, int P, size_t n, size_t esize)
{
	return gb_size_blocks(coll, P) * n * esize;
}

cs_status_t gb_buffer_elems(cs_coll_t coll, int P, size_t n, size_t *send,
			    size_t *recv)
{
	size_t blocks = gb_size_blocks(coll, P);

	if (!send || !recv)
		return cs_error(CS_ERR_INVALID, "gb_buffer_elems: NULL output");
	*send = *recv = 0;
	if (!blocks)
		return cs_error(CS_ERR_INVALID, "gb_buffer_elems: no buffer "
				"layout for collective %d over %d ranks",
				(int)coll, P);
	switch (coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		*send = n;
		*recv = n * blocks;
		break;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_SCATTER:
		*send = n * blocks;
		*recv = n;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default: /* alltoall: P blocks both; the rest: n both */
		*send = *recv = n * blocks;
		break;
	}
	return CS_OK;
}

/* Traffic of rank r in channel `chan` of the plan. */
static uint64_t gb_traffic_chan(const csg_plan_t *p, int chan, int r,
				size_t esize)
{
	csg_plan_t c = *p;
	uint64_t sum = 0;
	int s, k, i, nb = csg_base_steps(p);
	csg_op_t o;

	c.chan = chan;
	for (k = 0; k < c.nslices; k++)
		for (s = 0; s < nb; s++)
			for (i = 0; i < csg_nops(&c, r, s); i++) {
				o = csg_get_op(&c, r, s, k, i);
				sum += (uint64_t)o.n * (uint64_t)(o.nsrc + 1) *
				       esize;
			}
	return sum;
}

uint64_t gb_traffic_rank(const csg_plan_t *p, int r, size_t esize)
{
	uint64_t sum = 0;
	int chan;

	if (!p || r < 0 || r >= p->P)
		return 0;
	for (chan = 0; chan < p->nchan; chan++)
		sum += gb_traffic_chan(p, chan, r, esize);
	return sum;
}

uint64_t gb_traffic(const csg_plan_t *p, size_t esize)
{
	uint64_t sum = 0;
	int r;

	if (!p)
		return 0;
	for (r = 0; r < p->P; r++)
		sum += gb_traffic_rank(p, r, esize);
	return sum;
}

uint64_t gb_traffic_dev(const csg_plan_t *p, size_t esize, int ndev, int dev)
{
	uint64_t sum = 0;
	int r;

	if (!p || ndev < 1 || dev < 0 || dev >= ndev)
		return 0;
	for (r = 0; r < p->P; r++)
		if (cs_dev_of_rank(r, ndev) == dev)
			sum += gb_traffic_rank(p, r, esize);
	return sum;
}

/* The power of 1024 a suffix stands for: 0 for none, -1 for a bad one. */
static int gb_suffix_shift(const char *end)
{
	if (!*end)
		return 0;
	if (end[1])
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		return 10;
	case 'm':
	case 'M':
		return 20;
	case 'g':
	case 'G':
		return 30;
	default:
		return -1;
	}
}

cs_status_t gb_parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	if (!s || !out || *s < '0' || *s > '9') /* strtoull would take -1 */
		return cs_error(CS_ERR_INVALID, "size '%s': not a number",
				s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if ((shift = gb_suffix_shift(end)) < 0)
		return cs_error(CS_ERR_INVALID, "size '%s': expected digits "
				"and an optional K, M or G", s);
	if (errno == ERANGE || v > (unsigned long long)SIZE_MAX >> shift)
		return cs_error(CS_ERR_OVERFLOW, "size '%s': too large", s);
	*out = (size_t)v << shift;
	return CS_OK;
}
