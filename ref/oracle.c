/*
 * oracle.c - expected output of any rank, computed without communication
 * from the generators (spec/collectives.md gives each formula).
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "csref/oracle.h"
#include "csref/gen.h"
#include "csref/arith.h"

/* Per-call context: the case and, for alltoallv, every rank's layout. */
struct octx {
	const cs_case_t *c;
	int rank;
	uint64_t (*canary)(size_t);
	size_t *sdispl;      /* P*P: sdispl[q*P + d], sender q's block for d */
	size_t *rcount, *rdispl; /* P: this rank's receive layout */
	int fast;            /* gsum applies (cs_gsum_init): the block path
				tries cs_golden_sum_fast first */
	cs_gsum_t gsum;
};

/* Golden value of a reducing collective at input index i. */
static void expect_reduced(const struct octx *o, size_t i, uint64_t *xs,
			   uint64_t *alpha, cs_golden_t *g)
{
	const cs_case_t *c = o->c;

	cs_gen_column(c, i, xs, c->op == CS_OP_PREMULSUM ? alpha : NULL);
	cs_golden_reduce(c->dtype, c->op, c->nranks, xs, alpha,
			 c->mode == CS_MODE_EXACT, g);
}

/* alltoallv: element j of this rank's receive buffer. */
static void expect_a2av(const struct octx *o, size_t j, cs_golden_t *g)
{
	const cs_case_t *c = o->c;
	size_t P = (size_t)c->nranks, q;

	for (q = 0; q < P; q++) {
		size_t start = o->rdispl[q];
		if (j >= start && j < start + o->rcount[q]) {
			size_t src = o->sdispl[q * P + (size_t)o->rank] + (j - start);
			cs_golden_moved(c->dtype, cs_gen_input(c, (int)q, src), g);
			return;
		}
	}
	cs_golden_moved(c->dtype, o->canary ? o->canary(j) & cs_bits_mask(c->dtype) : 0, g);
	g->flags |= CS_G_UNTOUCHED;
}

/* Which rank's which input lands at element j of a data-movement output. */
static void source_of(const cs_case_t *c, int rank, size_t j, int *q, size_t *i)
{
	size_t n = c->count ? c->count : 1;
	int P = c->nranks;

	switch (c->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		*q = (int)(j / n);
		*i = j % n;
		break;
	case CS_COLL_ALLTOALL:
		*q = (int)(j / n);
		*i = (size_t)rank * n + j % n;
		break;
	case CS_COLL_SCATTER:
		*q = c->root;
		*i = (size_t)rank * n + j;
		break;
	case CS_COLL_BROADCAST:
		*q = c->root;
		*i = j;
		break;
	case CS_COLL_SENDRECV:
		*q = (rank + P - 1) % P;
		*i = j;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_REDUCE:
	case CS_COLL_ALLTOALLV:
	case CS_NUM_COLLS:
		/* not moved element by element (expect_one handles these):
		 * the rank's own element */
		*q = rank;
		*i = j;
		break;
	}
}

static void expect_one(const struct octx *o, size_t j, uint64_t *xs,
		       uint64_t *alpha, cs_golden_t *g)
{
	const cs_case_t *c = o->c;
	size_t i;
	int q;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		expect_reduced(o, j, xs, alpha, g);
		return;
	case CS_COLL_REDUCESCATTER:
		expect_reduced(o, (size_t)o->rank * c->count + j, xs, alpha, g);
		return;
	case CS_COLL_ALLTOALLV:
		expect_a2av(o, j, g);
		return;
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_BROADCAST:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective: cases are validated first */
		source_of(c, o->rank, j, &q, &i);
		cs_golden_moved(c->dtype, cs_gen_input(c, q, i), g);
	}
}

/* Build the alltoallv layouts the oracle needs. */
static cs_status_t a2av_prepare(struct octx *o)
{
	size_t P = (size_t)o->c->nranks, q;
	size_t *tmp = malloc(sizeof(size_t) * P * 2);

	o->sdispl = malloc(sizeof(size_t) * P * P);
	o->rcount = malloc(sizeof(size_t) * P);
	o->rdispl = malloc(sizeof(size_t) * P);
	if (!tmp || !o->sdispl || !o->rcount || !o->rdispl) {
		free(tmp);
		return cs_error(CS_ERR_NOMEM, "oracle: no memory for %zu ranks", P);
	}
	for (q = 0; q < P; q++)
		cs_a2av_layout(o->c, (int)q, tmp, o->sdispl + q * P, tmp + P,
			       tmp + P);
	cs_a2av_layout(o->c, o->rank, tmp, tmp + P, o->rcount, o->rdispl);
	free(tmp);
	return CS_OK;
}

static cs_status_t fill_range(const struct octx *o, size_t lo, size_t n,
			      cs_golden_t *out)
{
	size_t P = (size_t)o->c->nranks;
	int failed = 0;

#pragma omp parallel if (n > 4096) reduction(| : failed)
	{
		uint64_t *xs = malloc(sizeof(uint64_t) * P * 2);
		long long k;

		if (!xs)
			failed = 1;
#pragma omp for schedule(static)
		for (k = 0; k < (long long)n; k++)
			if (xs)
				expect_one(o, lo + (size_t)k, xs, xs + P, &out[k]);
		free(xs);
	}
	return failed ? cs_error(CS_ERR_NOMEM, "oracle: out of memory") : CS_OK;
}

/* The rank and range are ones the case defines. */
static cs_status_t check_args(const cs_case_t *c, int rank, size_t lo,
			      size_t n)
{
	if (rank < 0 || rank >= c->nranks)
		return cs_error(CS_ERR_INVALID, "oracle: rank %d out of range for %d ranks",
				rank, c->nranks);
	if (lo > cs_case_recv_count(c, rank) || n > cs_case_recv_count(c, rank) - lo)
		return cs_error(CS_ERR_INVALID, "oracle: elements [%zu, %zu) beyond "
				"rank %d's %zu", lo, lo + n, rank,
				cs_case_recv_count(c, rank));
	return CS_OK;
}

static void octx_free(struct octx *o)
{
	free(o->sdispl);
	free(o->rcount);
	free(o->rdispl);
}

cs_status_t cs_oracle_expect_general(const cs_case_t *c, int rank, size_t lo,
				     size_t n, uint64_t (*canary)(size_t index),
				     cs_golden_t *out)
{
	struct octx o = {c, rank, canary, NULL, NULL, NULL, 0, {0}};
	cs_status_t st;

	if ((st = check_args(c, rank, lo, n)) != CS_OK)
		return st;
	if (c->coll == CS_COLL_ALLTOALLV && (st = a2av_prepare(&o)) != CS_OK)
		goto out_free_layout;
	st = fill_range(&o, lo, n, out);
out_free_layout:
	octx_free(&o);
	return st;
}

/* ---- the block path ------------------------------------------------------- */

/*
 * The block path computes the same golden values as the general one, in
 * blocks of OBLOCK elements that stay in a thread's cache: the inputs of a
 * block come from one cs_gen_columns (reducing collectives) or
 * cs_gen_block (data movement) call, not from one generator call per
 * element and rank. cs_oracle_check then compares the block and adds it to
 * the statistics while it is still in cache; data movement whose bits all
 * match needs no golden at all (a moved element conforms exactly when its
 * bits are the source's). The differential test (tests/unit/
 * test_oracle_fast.c) holds both paths to identical goldens and verdicts.
 */
#define OBLOCK ((size_t)512)

/* Elements per block at P ranks: OBLOCK, fewer at large P so that a
 * block's inputs stay within 2 MiB. */
static size_t oblock(int P)
{
	size_t b = ((size_t)1 << 18) / (size_t)(P > 0 ? P : 1);

	return b < 1 ? 1 : b > OBLOCK ? OBLOCK : b;
}

/* One thread's working memory. */
struct ows {
	uint64_t *xs;     /* OBLOCK columns of P inputs, or OBLOCK moved bits */
	uint64_t *alpha;  /* P PREMULSUM scalars */
	cs_golden_t *g;   /* OBLOCK goldens */
};

static int ows_alloc(struct ows *w, size_t P)
{
	size_t b = oblock((int)P);

	w->xs = malloc(sizeof(uint64_t) * b * (P > 1 ? P : 1));
	w->alpha = malloc(sizeof(uint64_t) * P);
	w->g = malloc(sizeof(cs_golden_t) * b);
	return w->xs && w->alpha && w->g;
}

static void ows_free(struct ows *w)
{
	free(w->xs);
	free(w->alpha);
	free(w->g);
}

static int reduces(cs_coll_t coll)
{
	return coll == CS_COLL_ALLREDUCE || coll == CS_COLL_REDUCE ||
	       coll == CS_COLL_REDUCESCATTER;
}

/* Elements from j on that come from one source rank, consecutive in its
 * input (data movement), at most `left`. */
static size_t moved_run(const cs_case_t *c, size_t j, size_t left)
{
	size_t n = c->count ? c->count : 1;

	if (c->coll == CS_COLL_ALLGATHER || c->coll == CS_COLL_GATHER ||
	    c->coll == CS_COLL_ALLTOALL)
		return n - j % n < left ? n - j % n : left;
	return left;
}

/* bits[k] = the input that lands at element lo + k (data movement). */
static void moved_bits(const struct octx *o, size_t lo, size_t n,
		       uint64_t *bits)
{
	size_t j = lo, run, i = 0;
	int q = 0; /* set by source_of (initialised for -O3's warning) */

	for (; j < lo + n; j += run) {
		run = moved_run(o->c, j, lo + n - j);
		source_of(o->c, o->rank, j, &q, &i);
		cs_gen_block(o->c, q, i, run, bits + (j - lo));
	}
}

/* Goldens of elements [lo, lo+n), n <= oblock(P), into w->g. */
static void block_expect(const struct octx *o, size_t lo, size_t n,
			 struct ows *w)
{
	const cs_case_t *c = o->c;
	size_t P = (size_t)c->nranks, src = lo, k;

	if (reduces(c->coll)) {
		if (c->coll == CS_COLL_REDUCESCATTER)
			src += (size_t)o->rank * c->count;
		cs_gen_columns(c, src, n, w->xs,
			       c->op == CS_OP_PREMULSUM ? w->alpha : NULL);
		for (k = 0; k < n; k++)
			if (!o->fast ||
			    !cs_golden_sum_fast(&o->gsum, w->xs + k * P, &w->g[k]))
				cs_golden_reduce(c->dtype, c->op, c->nranks,
						 w->xs + k * P, w->alpha,
						 c->mode == CS_MODE_EXACT, &w->g[k]);
	} else if (c->coll == CS_COLL_ALLTOALLV) {
		for (k = 0; k < n; k++)
			expect_a2av(o, lo + k, &w->g[k]);
	} else {
		moved_bits(o, lo, n, w->xs);
		for (k = 0; k < n; k++)
			cs_golden_moved(c->dtype, w->xs[k], &w->g[k]);
	}
}

/* Run body(o, lo, n, w, arg) over [lo, lo+n) in pieces of oblock(P),
 * split across OpenMP threads in contiguous shares (each thread's pieces
 * in index order). */
typedef void (*block_fn)(const struct octx *o, size_t lo, size_t n,
			 struct ows *w, void *arg, int tid);

static cs_status_t for_blocks(const struct octx *o, size_t lo, size_t n,
			      block_fn body, void *arg)
{
	size_t bl = oblock(o->c->nranks);
	long long nb = (long long)((n + bl - 1) / bl), b;
	int failed = 0;

#pragma omp parallel if (nb > 8) reduction(| : failed)
	{
		struct ows w;
		int ok = ows_alloc(&w, (size_t)o->c->nranks);

		if (!ok)
			failed = 1;
#pragma omp for schedule(static)
		for (b = 0; b < nb; b++) {
			size_t at = lo + (size_t)b * bl;
			size_t m = lo + n - at < bl ? lo + n - at : bl;
			if (ok)
				body(o, at, m, &w, arg, omp_get_thread_num());
		}
		ows_free(&w);
	}
	return failed ? cs_error(CS_ERR_NOMEM, "oracle: out of memory") : CS_OK;
}

/* cs_oracle_expect's body: block lo's goldens, written at out[lo - first]. */
struct expect_arg {
	size_t first;
	cs_golden_t *out;
};

static void expect_at(const struct octx *o, size_t lo, size_t n,
		      struct ows *w, void *arg, int tid)
{
	struct expect_arg *a = arg;

	(void)tid;
	block_expect(o, lo, n, w);
	memcpy(a->out + (lo - a->first), w->g, n * sizeof *w->g);
}

/* Prepare the context of one call: arguments, alltoallv layouts. */
static cs_status_t octx_init(struct octx *o, const cs_case_t *c, int rank,
			     size_t lo, size_t n, uint64_t (*canary)(size_t))
{
	cs_status_t st;

	*o = (struct octx){c, rank, canary, NULL, NULL, NULL, 0, {0}};
	if ((st = check_args(c, rank, lo, n)) != CS_OK)
		return st;
	o->fast = reduces(c->coll) &&
		  cs_gsum_init(&o->gsum, c->dtype, c->op, c->nranks,
			       c->mode == CS_MODE_EXACT);
	if (c->coll == CS_COLL_ALLTOALLV && (st = a2av_prepare(o)) != CS_OK) {
		octx_free(o);
		return st;
	}
	return CS_OK;
}

cs_status_t cs_oracle_expect(const cs_case_t *c, int rank, size_t lo,
			     size_t n, uint64_t (*canary)(size_t index),
			     cs_golden_t *out)
{
	struct expect_arg a = {lo, out};
	struct octx o;
	cs_status_t st;

	if ((st = octx_init(&o, c, rank, lo, n, canary)) != CS_OK)
		return st;
	st = for_blocks(&o, lo, n, expect_at, &a);
	octx_free(&o);
	return st;
}

/* ---- oracle, comparison and statistics in one pass ------------------------ */

/* One thread's share of a cs_oracle_check. */
struct check_acc {
	cs_cmp_summary_t s;
	cs_stats_t st;
};

struct check_arg {
	size_t first, index0;      /* the range's start and its reported index */
	const unsigned char *got;  /* element `first` of the received data */
	int stats;
	struct check_acc *acc;     /* one per thread */
};

/* Whether got[0..n) holds exactly bits[0..n). */
static int bits_equal(cs_dtype_t d, const uint64_t *bits, const void *got,
		      size_t n)
{
	const unsigned char *p = got;
	uint64_t diff = 0;
	size_t k;

	/* one loop per element size, no early exit: the loops vectorise */
	switch (cs_size_of(d)) {
	case 1:
		for (k = 0; k < n; k++)
			diff |= p[k] ^ bits[k];
		break;
	case 2:
		for (k = 0; k < n; k++) {
			uint16_t v;
			memcpy(&v, p + 2 * k, 2);
			diff |= v ^ bits[k];
		}
		break;
	case 4:
		for (k = 0; k < n; k++) {
			uint32_t v;
			memcpy(&v, p + 4 * k, 4);
			diff |= v ^ bits[k];
		}
		break;
	default:
		for (k = 0; k < n; k++)
			diff |= cs_load(d, got, k) ^ bits[k];
		break;
	}
	return diff == 0;
}

/* Data movement whose every bit matches: exact, no golden needed; 0 when
 * some element differs (then w->g holds the goldens). */
static int moved_all_exact(const struct octx *o, size_t lo, size_t n,
			   const void *got, struct ows *w)
{
	size_t k;

	moved_bits(o, lo, n, w->xs);
	if (bits_equal(o->c->dtype, w->xs, got, n))
		return 1;
	for (k = 0; k < n; k++)
		cs_golden_moved(o->c->dtype, w->xs[k], &w->g[k]);
	return 0;
}

static void check_at(const struct octx *o, size_t lo, size_t n,
		     struct ows *w, void *arg, int tid)
{
	struct check_arg *a = arg;
	struct check_acc *acc = &a->acc[tid];
	const cs_case_t *c = o->c;
	const void *got = a->got + (lo - a->first) * cs_size_of(c->dtype);

	if (!reduces(c->coll) && c->coll != CS_COLL_ALLTOALLV) {
		if (moved_all_exact(o, lo, n, got, w)) {
			acc->s.n += n;
			acc->s.n_exact += n;
			/* data movement has no op: the statistics count the
			 * elements seen and read no golden */
			if (a->stats)
				cs_stats_add(&acc->st, c->dtype, c->op, c->nranks,
					     w->g, got, n);
			return;
		}
	} else {
		block_expect(o, lo, n, w);
	}
	cs_compare_range(c->dtype, w->g, got, n, a->index0 + (lo - a->first),
			 &acc->s);
	if (a->stats)
		cs_stats_add(&acc->st, c->dtype, c->op, c->nranks, w->g, got, n);
}

/* s += t, t's recorded mismatches after s's (t's indices follow s's). */
static void summary_add(cs_cmp_summary_t *s, const cs_cmp_summary_t *t)
{
	size_t i;

	s->n += t->n;
	s->n_exact += t->n_exact;
	s->n_within += t->n_within;
	s->n_wrong += t->n_wrong;
	for (i = 0; i < CS_NUM_OBS; i++)
		s->obs[i] += t->obs[i];
	s->max_ulps = fmax(s->max_ulps, t->max_ulps);
	s->max_err_ratio = fmax(s->max_err_ratio, t->max_err_ratio);
	for (i = 0; i < t->n_recorded && s->n_recorded < CS_CMP_MAX_RECORD; i++)
		s->first[s->n_recorded++] = t->first[i];
}

cs_status_t cs_oracle_check(const cs_case_t *c, int rank, size_t lo, size_t n,
			    uint64_t (*canary)(size_t index), const void *got,
			    size_t index0, cs_cmp_summary_t *s, cs_stats_t *st)
{
	int nt = omp_get_max_threads(), t;
	struct check_arg a = {lo, index0, got, st != NULL, NULL};
	struct octx o;
	cs_status_t rc;

	if ((rc = octx_init(&o, c, rank, lo, n, canary)) != CS_OK)
		return rc;
	if (!(a.acc = malloc(sizeof *a.acc * (size_t)nt))) {
		octx_free(&o);
		return cs_error(CS_ERR_NOMEM, "oracle: out of memory");
	}
	for (t = 0; t < nt; t++) {
		cs_cmp_summary_init(&a.acc[t].s);
		a.acc[t].s.max_ulps = s->max_ulps;
		a.acc[t].s.max_err_ratio = s->max_err_ratio;
		cs_stats_init(&a.acc[t].st);
	}
	rc = for_blocks(&o, lo, n, check_at, &a);
	/* threads hold contiguous shares in index order: merged in thread
	 * order, the recorded mismatches stay in index order */
	for (t = 0; rc == CS_OK && t < nt; t++) {
		summary_add(s, &a.acc[t].s);
		if (st)
			cs_stats_merge(st, &a.acc[t].st);
	}
	free(a.acc);
	octx_free(&o);
	return rc;
}
