/*
 * alltoallv.c - alltoallv: every rank posts its P-1 outgoing blocks and its
 * P-1 incoming blocks at once, each received straight into its place;
 * its own block is a local copy. Only the receive blocks are written.
 *
 * In place (sendbuf == recvbuf) a receive block may cover send blocks that
 * have not left yet, so the send blocks are first copied aside (packed,
 * sum(sendcounts) elements) and sent from there.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const char fn[] = "cs_mpiref_alltoallv";

/* One non-empty block as a byte range. */
struct span {
	uintptr_t at;
	size_t bytes;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Byte ranges of the non-empty blocks of one side; *n of them. */
static cs_status_t spans_of(const void *buf, const size_t *counts,
			    const size_t *displs, size_t es, int P,
			    struct span *out, int *n, const char *side)
{
	int q;

	*n = 0;
	for (q = 0; q < P; q++) {
		if (counts[q] == 0)
			continue;
		if (counts[q] > SIZE_MAX / es ||
		    displs[q] > SIZE_MAX / es - counts[q])
			return cs_error(CS_ERR_OVERFLOW, "%s: %s block %d ends "
					"beyond any buffer size", fn, side, q);
		if (!buf)
			return cs_error(CS_ERR_INVALID, "%s: %s buffer is NULL but "
					"block %d holds %zu elements", fn, side,
					q, counts[q]);
		out[*n].at = (uintptr_t)cs_mr_at(buf, displs[q], es);
		out[(*n)++].bytes = counts[q] * es;
	}
	return CS_OK;
}

/* The receive span overlapping [s.at, s.at + s.bytes), or NULL; r sorted
 * and disjoint, so only the last one starting before the end can. */
static const struct span *hit(const struct span *r, int n, struct span s)
{
	int lo = 0, hi = n; /* first index starting at or after the end */

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (r[mid].at < s.at + s.bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && r[lo - 1].at + r[lo - 1].bytes > s.at)
		return &r[lo - 1];
	return NULL;
}

/* Receive blocks pairwise disjoint; out of place, no send block overlaps
 * a receive block. sp and rp hold P spans each. */
static cs_status_t check_layout(struct span *sp, int ns, struct span *rp,
				int nr, int inplace)
{
	int i;

	qsort(rp, (size_t)nr, sizeof *rp, span_cmp);
	for (i = 1; i < nr; i++)
		if (rp[i - 1].at + rp[i - 1].bytes > rp[i].at)
			return cs_error(CS_ERR_INVALID, "%s: two receive blocks "
					"overlap", fn);
	for (i = 0; i < ns && !inplace; i++)
		if (hit(rp, nr, sp[i]))
			return cs_error(CS_ERR_INVALID, "%s: a send block overlaps "
					"a receive block but sendbuf != recvbuf "
					"(in place needs sendbuf == recvbuf)", fn);
	return CS_OK;
}

static cs_status_t check_args(const void *sendbuf, const size_t *sendcounts,
			      const size_t *sdispls, void *recvbuf,
			      const size_t *recvcounts, const size_t *rdispls,
			      cs_dtype_t d, MPI_Comm comm, int *me, int *P)
{
	struct span *sp;
	cs_status_t st;
	int ns, nr;

	if ((st = cs_mr_comm(fn, comm, me, P)) != CS_OK ||
	    (st = cs_mr_check_dtype(fn, d)) != CS_OK)
		return st;
	if (!sendcounts || !sdispls || !recvcounts || !rdispls)
		return cs_error(CS_ERR_INVALID, "%s: a count or displacement "
				"array is NULL", fn);
	if (sendcounts[*me] != recvcounts[*me])
		return cs_error(CS_ERR_INVALID, "%s: rank %d sends itself %zu "
				"elements but receives %zu", fn, *me,
				sendcounts[*me], recvcounts[*me]);
	sp = malloc(2 * (size_t)*P * sizeof *sp);
	if (!sp)
		return cs_error(CS_ERR_NOMEM, "%s: no memory for %d blocks", fn, *P);
	st = spans_of(sendbuf, sendcounts, sdispls, cs_dtype_size(d), *P, sp,
		      &ns, "send");
	if (st == CS_OK)
		st = spans_of(recvbuf, recvcounts, rdispls, cs_dtype_size(d),
			      *P, sp + *P, &nr, "receive");
	if (st == CS_OK)
		st = check_layout(sp, ns, sp + *P, nr, sendbuf == recvbuf);
	free(sp);
	return st;
}

/* In place: pack the send blocks into *copy; *cdispls their new places. */
static cs_status_t copy_aside(const void *sendbuf, const size_t *sendcounts,
			      const size_t *sdispls, size_t es, int P,
			      unsigned char **copy, size_t **cdispls)
{
	size_t total = 0;
	int q;

	for (q = 0; q < P; q++) {
		if (sendcounts[q] > SIZE_MAX / es - total)
			return cs_error(CS_ERR_OVERFLOW, "%s: the send blocks "
					"together overflow a buffer size", fn);
		total += sendcounts[q];
	}
	*copy = malloc(total ? total * es : 1);
	*cdispls = malloc((size_t)P * sizeof **cdispls);
	if (!*copy || !*cdispls)
		return cs_error(CS_ERR_NOMEM, "%s: no memory to copy %zu elements "
				"aside for an in-place call", fn, total);
	for (total = 0, q = 0; q < P; q++) {
		(*cdispls)[q] = total;
		memcpy(cs_mr_at(*copy, total, es), cs_mr_at(sendbuf, sdispls[q], es),
		       sendcounts[q] * es);
		total += sendcounts[q];
	}
	return CS_OK;
}

/* Post every block, copy our own, wait. */
static cs_status_t exchange(const void *src, const size_t *sendcounts,
			    const size_t *sdispls, void *recvbuf,
			    const size_t *recvcounts, const size_t *rdispls,
			    size_t es, int me, int P, MPI_Comm comm)
{
	cs_p2p_t b;
	int q;

	cs_p2p_begin(&b, comm);
	for (q = 0; q < P; q++) {
		if (q == me)
			continue;
		cs_p2p_irecv(&b, cs_mr_at(recvbuf, rdispls[q], es),
			     recvcounts[q] * es, q, CS_TAG_ALLTOALLV);
		cs_p2p_isend(&b, cs_mr_at(src, sdispls[q], es),
			     sendcounts[q] * es, q, CS_TAG_ALLTOALLV);
	}
	if (sendcounts[me] > 0)
		memcpy(cs_mr_at(recvbuf, rdispls[me], es),
		       cs_mr_at(src, sdispls[me], es), sendcounts[me] * es);
	return cs_p2p_wait(&b);
}

cs_status_t cs_mpiref_alltoallv(const void *sendbuf, const size_t *sendcounts,
				const size_t *sdispls, void *recvbuf,
				const size_t *recvcounts, const size_t *rdispls,
				cs_dtype_t d, MPI_Comm comm)
{
	size_t es = cs_dtype_size(d), *cdispls = NULL;
	unsigned char *copy = NULL;
	cs_status_t st;
	int me, P;

	st = check_args(sendbuf, sendcounts, sdispls, recvbuf, recvcounts,
			rdispls, d, comm, &me, &P);
	if (st != CS_OK)
		return st;
	if (sendbuf == recvbuf && sendbuf) {
		st = copy_aside(sendbuf, sendcounts, sdispls, es, P, &copy,
				&cdispls);
		if (st == CS_OK)
			st = exchange(copy, sendcounts, cdispls, recvbuf,
				      recvcounts, rdispls, es, me, P, comm);
	} else {
		st = exchange(sendbuf, sendcounts, sdispls, recvbuf, recvcounts,
			      rdispls, es, me, P, comm);
	}
	free(copy);
	free(cdispls);
	return st;
}
