/* case.c - case validation and buffer shapes (see csref/case.h). */
#include <stdio.h>
#include "csref/case.h"
#include "csref/gen.h"

/* a*b, or CS_ERR_OVERFLOW when it does not fit in size_t. */
static cs_status_t mul_size(size_t a, size_t b, size_t *out)
{
	if (b && a > (size_t)-1 / b)
		return CS_ERR_OVERFLOW;
	*out = a * b;
	return CS_OK;
}

/* Largest element count any rank's buffer of this case holds. */
static cs_status_t max_elems(const cs_case_t *c, size_t *out)
{
	size_t P = (size_t)c->nranks, worst = 0;
	int r;

	if (c->coll != CS_COLL_ALLTOALLV)
		return mul_size(c->count, P, out);
	for (r = 0; r < c->nranks; r++) {
		size_t s = 0, v = 0, d;
		for (d = 0; d < P; d++) {
			size_t send = c->a2av_counts[r * P + d];
			size_t recv = c->a2av_counts[d * P + r];
			if (send > (size_t)-1 - s ||
			    c->a2av_gap > (size_t)-1 - s - send ||
			    recv > (size_t)-1 - v ||
			    c->a2av_gap > (size_t)-1 - v - recv)
				return CS_ERR_OVERFLOW;
			s += send + c->a2av_gap;
			v += recv + c->a2av_gap;
		}
		worst = s > worst ? s : worst;
		worst = v > worst ? v : worst;
	}
	*out = worst;
	return CS_OK;
}

cs_status_t cs_case_validate(const cs_case_t *c)
{
	size_t elems, bytes;

	if ((unsigned)c->coll >= CS_NUM_COLLS)
		return cs_error(CS_ERR_INVALID, "collective %d out of range", (int)c->coll);
	if ((unsigned)c->dtype >= CS_NUM_DTYPES)
		return cs_error(CS_ERR_INVALID, "dtype %d out of range", (int)c->dtype);
	if ((unsigned)c->mode >= CS_NUM_MODES)
		return cs_error(CS_ERR_INVALID, "mode %d out of range", (int)c->mode);
	if (c->nranks < 1)
		return cs_error(CS_ERR_INVALID, "rank count %d: must be at least 1",
				c->nranks);
	if (cs_coll_reduces(c->coll) && (unsigned)c->op >= CS_NUM_OPS)
		return cs_error(CS_ERR_UNDEFINED, "%s reduces: it needs an op "
				"(sum prod max min avg premulsum)",
				cs_coll_name(c->coll));
	if (!cs_coll_reduces(c->coll) && c->op != CS_OP_NONE)
		return cs_error(CS_ERR_UNDEFINED, "%s does not reduce: op '%s' "
				"does not apply to it", cs_coll_name(c->coll),
				cs_op_name(c->op));
	if (cs_coll_rooted(c->coll) && (c->root < 0 || c->root >= c->nranks))
		return cs_error(CS_ERR_INVALID, "root %d out of range for %d ranks",
				c->root, c->nranks);
	if (!cs_coll_rooted(c->coll) && c->root != 0)
		return cs_error(CS_ERR_UNDEFINED, "%s has no root (root %d given)",
				cs_coll_name(c->coll), c->root);
	if (c->coll == CS_COLL_ALLTOALLV && !c->a2av_counts)
		return cs_error(CS_ERR_UNDEFINED,
				"alltoallv needs a count matrix (P x P)");
	if (max_elems(c, &elems) != CS_OK ||
	    mul_size(elems, cs_dtype_size(c->dtype), &bytes) != CS_OK)
		return cs_error(CS_ERR_OVERFLOW, "%s count %zu x %d ranks x %zu "
				"bytes overflows a buffer size", cs_coll_name(c->coll),
				c->count, c->nranks, cs_dtype_size(c->dtype));
	return CS_OK;
}

static size_t a2av_total(const cs_case_t *c, int rank, int sending)
{
	size_t P = (size_t)c->nranks, t = 0, q;

	for (q = 0; q < P; q++)
		t += (sending ? c->a2av_counts[rank * P + q]
			      : c->a2av_counts[q * P + rank]) + c->a2av_gap;
	return t;
}

size_t cs_case_send_count(const cs_case_t *c, int rank)
{
	size_t P = (size_t)c->nranks;

	switch (c->coll) {
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
		return P * c->count;
	case CS_COLL_SCATTER:
		return rank == c->root ? P * c->count : 0;
	case CS_COLL_BROADCAST:
		return rank == c->root ? c->count : 0;
	case CS_COLL_ALLTOALLV:
		return a2av_total(c, rank, 1);
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SENDRECV:
		return c->count;
	case CS_NUM_COLLS: /* not a collective */
		break;
	}
	return 0;
}

size_t cs_case_recv_count(const cs_case_t *c, int rank)
{
	size_t P = (size_t)c->nranks;

	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
		return P * c->count;
	case CS_COLL_GATHER:
		return rank == c->root ? P * c->count : 0;
	case CS_COLL_REDUCE:
		return rank == c->root ? c->count : 0;
	case CS_COLL_ALLTOALLV:
		return a2av_total(c, rank, 0);
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_BROADCAST:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
		return c->count;
	case CS_NUM_COLLS: /* not a collective */
		break;
	}
	return 0;
}

void cs_a2av_layout(const cs_case_t *c, int rank, size_t *sendcounts,
		    size_t *sdispls, size_t *recvcounts, size_t *rdispls)
{
	size_t P = (size_t)c->nranks, s = 0, r = 0, q;

	for (q = 0; q < P; q++) {
		sendcounts[q] = c->a2av_counts[rank * P + q];
		recvcounts[q] = c->a2av_counts[q * P + rank];
		sdispls[q] = s;
		rdispls[q] = r;
		s += sendcounts[q] + c->a2av_gap;
		r += recvcounts[q] + c->a2av_gap;
	}
}

uint64_t cs_case_key(const cs_case_t *c)
{
	uint64_t k = cs_mix64(c->seed ^ 0x436f6c6c53706563ull);

	k = cs_mix64(k ^ (uint64_t)c->coll);
	k = cs_mix64(k ^ ((uint64_t)c->dtype << 8));
	k = cs_mix64(k ^ ((uint64_t)c->op << 16));
	return cs_mix64(k ^ ((uint64_t)c->mode << 24));
}

int cs_case_format(const cs_case_t *c, char *buf, size_t n)
{
	return snprintf(buf, n, "%s %s %s %s P=%d count=%zu root=%d seed=%llu",
			cs_coll_name(c->coll), cs_dtype_name(c->dtype),
			cs_op_name(c->op), cs_mode_name(c->mode), c->nranks,
			c->count, c->root, (unsigned long long)c->seed);
}
