/*
 * fold.c - the block-owner fold: how the reference reduces.
 *
 * Each element is reduced by exactly one rank, the owner of its block,
 * which combines the P contributions in rank order:
 *
 *     acc = prep_0(x_0); acc = acc STEP prep_1(x_1); ... ; finish(acc)
 *
 * where prep_s is cs_op_prepare with rank s's PREMULSUM scalar and STEP is
 * cs_reduce_bufs. The bits of the result therefore depend only on the
 * inputs, never on which rank owns the element or on the chunk size, and
 * a result that several ranks receive is the same everywhere.
 *
 *   step 0: owners learn every rank's PREMULSUM scalar
 *   step 1: every rank posts its part of block q to owner q, as
 *           chunk-sized messages (nonblocking, straight from sendbuf)
 *   step 2: each owner, chunk by chunk, receives the P contributions in
 *           rank order and folds them; memory: two chunks
 *   step 3: wait for our own messages of step 1
 *
 * All sends are posted before any blocking receive, so no rank can wait
 * for a rank that is itself waiting.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/reduce.h"
#include "internal.h"

struct fold {
	cs_dtype_t d;
	cs_op_t op;
	int P, me;
	MPI_Comm comm;
	size_t es, chunk;          /* element size; chunk in elements */
	const uint64_t *scalars;   /* every rank's PREMULSUM scalar, or NULL */
	unsigned char *acc, *tmp;  /* chunk elements each */
};

/*
 * step 0: each rank sends its scalar to every owner of a non-empty block;
 * an owner collects all P of them in all[] (NULL when we own nothing).
 */
static cs_status_t exchange_scalars(const struct fold *f, const size_t *n,
				    uint64_t mine, uint64_t *all)
{
	cs_p2p_t b;
	int q;

	if (all)
		all[f->me] = mine;
	cs_p2p_begin(&b, f->comm);
	for (q = 0; q < f->P; q++) {
		if (q == f->me)
			continue;
		if (all)
			cs_p2p_irecv(&b, &all[q], sizeof all[q], q, CS_TAG_SCALAR);
		if (n[q] > 0)
			cs_p2p_isend(&b, &mine, sizeof mine, q, CS_TAG_SCALAR);
	}
	return cs_p2p_wait(&b);
}

/* step 1: our part of every other rank's block, one message per chunk. */
static void post_contributions(const struct fold *f, cs_p2p_t *b,
			       const void *sendbuf, const size_t *lo,
			       const size_t *n)
{
	int q;

	for (q = 0; q < f->P; q++) {
		size_t off;

		if (q == f->me)
			continue;
		for (off = 0; off < n[q]; off += f->chunk) {
			size_t m = n[q] - off < f->chunk ? n[q] - off : f->chunk;

			cs_p2p_isend(b, cs_mr_at(sendbuf, lo[q] + off, f->es),
				     m * f->es, q, CS_TAG_FOLD);
		}
	}
}

/*
 * step 2 for one chunk of m elements: `mine` is our own contribution, out
 * the place of the result (it may be `mine`: it is read before out is
 * written).
 */
static cs_status_t fold_chunk(const struct fold *f, const void *mine,
			      size_t m, void *out)
{
	int s;

	for (s = 0; s < f->P; s++) {
		unsigned char *x = s == 0 ? f->acc : f->tmp;
		uint64_t scalar = f->scalars ? f->scalars[s] : 0;
		const void *src = mine;

		if (s != f->me) {
			cs_status_t st = cs_p2p_recv(f->comm, x, m * f->es, s,
						     CS_TAG_FOLD);
			if (st != CS_OK)
				return st;
			src = x;
		}
		cs_op_prepare(f->d, f->op, f->P, scalar, x, src, m);
		if (s > 0)
			cs_reduce_bufs(f->d, f->op, f->acc, f->tmp, m);
	}
	cs_op_finish(f->d, f->op, f->P, f->acc, m);
	memcpy(out, f->acc, m * f->es);
	return CS_OK;
}

/* step 2: fold our whole block, chunk by chunk. */
static cs_status_t fold_block(const struct fold *f, const void *mine,
			      size_t n, void *dst)
{
	size_t off;

	for (off = 0; off < n; off += f->chunk) {
		size_t m = n - off < f->chunk ? n - off : f->chunk;
		cs_status_t st = fold_chunk(f, cs_mr_at(mine, off, f->es), m,
					    cs_mr_at(dst, off, f->es));
		if (st != CS_OK)
			return st;
	}
	return CS_OK;
}

/* Chunk buffers and scalars; CS_ERR_NOMEM when they cannot be had. */
static cs_status_t fold_alloc(struct fold *f, size_t n_me, uint64_t **scalars)
{
	size_t m = n_me < f->chunk ? n_me : f->chunk;

	*scalars = NULL;
	f->acc = f->tmp = NULL;
	if (n_me == 0)
		return CS_OK;
	f->acc = malloc(m * f->es);
	f->tmp = malloc(m * f->es);
	if (f->op == CS_OP_PREMULSUM)
		*scalars = malloc((size_t)f->P * sizeof **scalars);
	if (!f->acc || !f->tmp || (f->op == CS_OP_PREMULSUM && !*scalars))
		return cs_error(CS_ERR_NOMEM, "mpiref: no memory for two chunks "
				"of %zu elements", m);
	return CS_OK;
}

cs_status_t cs_mr_fold_blocks(const void *sendbuf, void *dst,
			      const size_t *lo, const size_t *n, cs_dtype_t d,
			      cs_op_t op, uint64_t scalar, MPI_Comm comm)
{
	struct fold f = {.d = d, .op = op, .comm = comm};
	uint64_t *scalars = NULL;
	cs_p2p_t sends;
	cs_status_t st, st_wait;

	MPI_Comm_rank(comm, &f.me);
	MPI_Comm_size(comm, &f.P);
	f.es = cs_dtype_size(d);
	f.chunk = cs_mr_chunk_elems(f.es);
	st = fold_alloc(&f, n[f.me], &scalars);
	if (st != CS_OK)
		goto out_free;
	if (op == CS_OP_PREMULSUM) {
		st = exchange_scalars(&f, n, scalar, scalars);
		f.scalars = scalars;
		if (st != CS_OK)
			goto out_free;
	}
	cs_p2p_begin(&sends, comm);
	post_contributions(&f, &sends, sendbuf, lo, n);
	st = fold_block(&f, cs_mr_at(sendbuf, lo[f.me], f.es), n[f.me], dst);
	st_wait = cs_p2p_wait(&sends);
	if (st == CS_OK)
		st = st_wait;
out_free:
	free(f.acc);
	free(f.tmp);
	free(scalars);
	return st;
}
