/*
 * factors.c - the factor space of harness cases (factors.h): each
 * factor's levels for a world size and the filters, which combinations
 * are admissible, the quick suite's cost budget, and a row of levels as a
 * case.
 *
 * A harness case is a point in a space of ten factors:
 *
 *   collective, dtype, op, data mode, in-place, communicator variant,
 *   count, root, misalignment, alltoallv pattern.
 *
 * Three of them only mean something for some collectives, which the
 * constraints below state: op is "none" exactly for collectives that do not
 * reduce; root is "n/a" exactly for collectives without a root; the
 * alltoallv pattern is "n/a" exactly for collectives other than alltoallv.
 * A case with "n/a" stores root 0 and pattern uniform.
 *
 * Filters shrink each factor's set of levels, so a suite under a filter
 * chooses among what is left, and a filter with one value per factor
 * leaves exactly one case (what a failure's reproducer relies on).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suite/factors.h"
#include "csref/a2av.h"

enum factor {
	F_COLL, F_DTYPE, F_OP, F_MODE, F_INPLACE, F_COMM, F_COUNT, F_ROOT,
	F_MISALIGN, F_A2AV, NF
};

#define NA (-1)                  /* root or pattern of a case without one */
#define MAXCOUNTS ((int)(sizeof(((cs_filter_t *)0)->counts) / sizeof(size_t)))
#define MAXLV (MAXCOUNTS + 8)    /* values of one factor, at most */

_Static_assert(NF <= CS_COVER_MAXF && MAXLV <= CS_COVER_MAXLV,
	       "the factor space must fit cover.h's limits");

/*
 * Count classes (elements per rank, NCCL's count argument). For world size
 * P: 0, 1, P-1, P+1, a small prime, a count that leaves the largest
 * remainder a P-way split can leave (37P-1 = P-1 mod P), one above a small
 * and a mid power of two, and about a million. Classes whose count equals
 * an earlier class's count for this P are dropped.
 */
enum count_class {
	CC_ZERO, CC_ONE, CC_PM1, CC_PP1, CC_PRIME, CC_NODIV, CC_POW2, CC_MID,
	CC_BIG, CC_NUM, CC_EXPLICIT = -1
};

/*
 * Budget of the quick suite. The quick suite over P = 1..8 must run in
 * about a minute on two cores, and its cost is dominated by the checker,
 * which generates every input element the expected output depends on: for
 * a collective that reduces, P inputs per output element on every rank.
 * So the cost of a case is counted as
 *   W = sum over ranks r of (send_r + recv_r * (reduces ? P : 1))
 * input elements, and the two large classes are restricted, in the quick
 * suite only and never for counts given with --count:
 *   - CC_MID (65537) only where W <= SUITE_MID_WORK (8 Mi elements; at
 *     P <= 8 this rules out only reducescatter and alltoall(v) at P = 8);
 *   - CC_BIG (about 1M) only for collectives whose buffers do not grow with
 *     P (allreduce, broadcast, reduce, sendrecv), only for dtypes of at most
 *     2 bytes, and among reductions only for op sum: size-dependent bugs
 *     (chunking, pipelining, 32-bit offsets) do not depend on the op, and
 *     op coverage at size is carried by CC_MID.
 * With these rules the covering array needs only a handful of CC_BIG rows
 * per world size, and the generator picks a large count only when it covers
 * a pair no small count would.
 */
#define SUITE_MID_WORK ((double)(8u << 20))

struct cs_factors {
	int world, quick;
	uint64_t seed;
	int n[NF];             /* values per factor */
	int v[NF][MAXLV];      /* the values (F_COUNT: the class or -1) */
	size_t count[MAXLV];   /* F_COUNT: the counts */
	/* fit[c][d][l]: count level l allowed for collective c, dtype d */
	unsigned char fit[CS_NUM_COLLS][CS_NUM_DTYPES][MAXLV];
	/* any[c][f]: collective c admits some value of F_ROOT / F_A2AV */
	unsigned char any[CS_NUM_COLLS][NF];
};

/* First of 7, 13, 31 (starting at P mod 3) that is not P-1 or P+1. */
static size_t small_prime(int P)
{
	static const size_t primes[3] = {7, 13, 31};
	int i;

	for (i = 0; i < 3; i++) {
		size_t p = primes[(P + i) % 3];
		if (p != (size_t)P - 1 && p != (size_t)P + 1)
			return p;
	}
	return 7;
}

static size_t class_count(int cls, int P)
{
	switch (cls) {
	case CC_ZERO: return 0;
	case CC_ONE: return 1;
	case CC_PM1: return (size_t)P - 1;
	case CC_PP1: return (size_t)P + 1;
	case CC_PRIME: return small_prime(P);
	case CC_NODIV: return 37 * (size_t)P - 1;
	case CC_POW2: return 1025;
	case CC_MID: return 65537;
	default: return 1048577;
	}
}

/* The checker's work W for (coll, dtype, count) at P ranks (see above). */
static double case_work(cs_coll_t coll, size_t count, int P)
{
	cs_case_t c;
	double w = 0;
	int r;

	memset(&c, 0, sizeof c);
	/* alltoallv is costed as alltoall: the patterns average out near it */
	c.coll = coll == CS_COLL_ALLTOALLV ? CS_COLL_ALLTOALL : coll;
	c.nranks = P;
	c.count = count;
	for (r = 0; r < P; r++)
		w += (double)cs_case_send_count(&c, r) +
		     (double)cs_case_recv_count(&c, r) *
			     (cs_coll_reduces(coll) ? P : 1);
	return w;
}

static int big_fits(cs_coll_t coll, cs_dtype_t dtype)
{
	return (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_BROADCAST ||
		coll == CS_COLL_REDUCE || coll == CS_COLL_SENDRECV) &&
	       cs_dtype_size(dtype) <= 2;
}

/* Budget rule of the quick suite for (coll, dtype, count level). */
static int level_fits(const cs_factors_t *s, cs_coll_t coll, cs_dtype_t dtype,
		      int l)
{
	int cls = s->v[F_COUNT][l];

	if (!s->quick || cls == CC_EXPLICIT)
		return 1;
	if (cls == CC_BIG)
		return big_fits(coll, dtype);
	if (cls == CC_MID)
		return case_work(coll, s->count[l], s->world) <= SUITE_MID_WORK;
	return 1;
}

/* Whether collective c admits level l of factor f (op, root, pattern). */
static int admits(const cs_factors_t *s, int c, int f, int l)
{
	int x = s->v[f][l];

	switch (f) {
	case F_OP:
		return (x == CS_OP_NONE) == !cs_coll_reduces((cs_coll_t)c);
	case F_ROOT:
		return (x == NA) == !cs_coll_rooted((cs_coll_t)c);
	case F_A2AV:
		return (x == NA) == (c != CS_COLL_ALLTOALLV);
	default:
		return 1;
	}
}

/*
 * The constraint that ties op and count: at class CC_BIG a reduction runs
 * only with op sum (see the budget rule).
 */
static int op_count_ok(const cs_factors_t *s, int ol, int kl)
{
	int op = s->v[F_OP][ol];

	return !s->quick || s->v[F_COUNT][kl] != CC_BIG ||
	       op == CS_OP_NONE || op == CS_OP_SUM;
}

/* Root and pattern of the row (set or not) allowed for collective c. */
static int side_ok(const cs_factors_t *s, int c, const int *row, int f)
{
	return row[f] < 0 ? s->any[c][f] : admits(s, c, f, row[f]);
}

/* First and one-past-last level of factor f a partial row allows. */
static void span(const cs_factors_t *s, const int *row, int f, int *lo,
		 int *hi)
{
	*lo = row[f] < 0 ? 0 : row[f];
	*hi = row[f] < 0 ? s->n[f] : row[f] + 1;
}

/* Whether some value of (op, dtype, count) completes the row for c. */
static int core_ok(const cs_factors_t *s, int c, const int *row)
{
	int d0, d1, k0, k1, o0, o1, d, k, o;

	span(s, row, F_DTYPE, &d0, &d1);
	span(s, row, F_COUNT, &k0, &k1);
	span(s, row, F_OP, &o0, &o1);
	for (d = d0; d < d1; d++) {
		for (k = k0; k < k1; k++) {
			if (!s->fit[c][s->v[F_DTYPE][d]][k])
				continue;
			for (o = o0; o < o1; o++)
				if (admits(s, c, F_OP, o) && op_count_ok(s, o, k))
					return 1;
		}
	}
	return 0;
}

/*
 * Whether a partial row (row[f] = level, or -1 for "not chosen yet") can be
 * completed into a case that meets every constraint. Factors other than
 * collective, dtype, op, count, root and pattern are unconstrained.
 */
static int completable(const cs_factors_t *s, const int *row)
{
	int c0, c1, cl;

	span(s, row, F_COLL, &c0, &c1);
	for (cl = c0; cl < c1; cl++) {
		int c = s->v[F_COLL][cl];

		if (side_ok(s, c, row, F_ROOT) && side_ok(s, c, row, F_A2AV) &&
		    core_ok(s, c, row))
			return 1;
	}
	return 0;
}

/* ---- the space of values, after filters --------------------------------- */

static void add_level(cs_factors_t *s, int f, int v)
{
	int i;

	for (i = 0; i < s->n[f]; i++)
		if (s->v[f][i] == v)
			return;
	s->v[f][s->n[f]++] = v;
}

static void add_count(cs_factors_t *s, int cls, size_t count)
{
	int i;

	for (i = 0; i < s->n[F_COUNT]; i++)
		if (s->count[i] == count)
			return;
	s->count[s->n[F_COUNT]] = count;
	s->v[F_COUNT][s->n[F_COUNT]++] = cls;
}

/* Levels 0..n-1 of factor f, those in mask (0 = all). */
static void add_masked(cs_factors_t *s, int f, int n, uint32_t mask)
{
	int i;

	for (i = 0; i < n; i++)
		if (!mask || (mask & (1u << i)))
			add_level(s, f, i);
}

static void add_pair(cs_factors_t *s, int f, int fv)
{
	if (fv < 0) {
		add_level(s, f, 0);
		add_level(s, f, 1);
	} else {
		add_level(s, f, fv);
	}
}

static void init_levels(cs_factors_t *s, const cs_filter_t *f)
{
	int P = s->world, i;

	add_masked(s, F_COLL, CS_NUM_COLLS, f->colls);
	add_masked(s, F_DTYPE, CS_NUM_DTYPES, f->dtypes);
	add_masked(s, F_OP, CS_NUM_OPS + 1, f->ops); /* + CS_OP_NONE */
	add_masked(s, F_MODE, CS_NUM_MODES, f->modes);
	add_pair(s, F_INPLACE, f->inplace);
	/* at P = 1 every variant is the world itself: keep one */
	add_masked(s, F_COMM, f->comms || P > 1 ? CS_NUM_COMMVARS : 1, f->comms);
	add_pair(s, F_MISALIGN, f->misalign);
	add_level(s, F_ROOT, NA);
	if (f->root >= 0 && f->root < P)
		add_level(s, F_ROOT, f->root);
	if (f->root < 0) {
		add_level(s, F_ROOT, 0);
		add_level(s, F_ROOT, P - 1);
		if (s->quick)
			add_level(s, F_ROOT, P / 2);
	}
	add_level(s, F_A2AV, NA);
	add_masked(s, F_A2AV, CS_NUM_A2AV, f->a2av);
	for (i = 0; i < f->ncounts; i++)
		add_count(s, CC_EXPLICIT, f->counts[i]);
	for (i = 0; !f->ncounts && i < CC_NUM; i++)
		add_count(s, i, class_count(i, P));
}

/* The constraint tables, from the levels. */
static void init_tables(cs_factors_t *s)
{
	int c, d, l;

	for (c = 0; c < CS_NUM_COLLS; c++) {
		for (l = 0; l < s->n[F_ROOT]; l++)
			s->any[c][F_ROOT] |= admits(s, c, F_ROOT, l);
		for (l = 0; l < s->n[F_A2AV]; l++)
			s->any[c][F_A2AV] |= admits(s, c, F_A2AV, l);
		for (d = 0; d < CS_NUM_DTYPES; d++)
			for (l = 0; l < s->n[F_COUNT]; l++)
				s->fit[c][d][l] = (unsigned char)level_fits(
					s, (cs_coll_t)c, (cs_dtype_t)d, l);
	}
}

static int mask_ok(uint32_t mask, int n)
{
	return n >= 32 || (mask >> n) == 0;
}

static cs_status_t check_filter(const cs_filter_t *f)
{
	if (!mask_ok(f->colls, CS_NUM_COLLS) ||
	    !mask_ok(f->dtypes, CS_NUM_DTYPES) ||
	    !mask_ok(f->ops, CS_NUM_OPS + 1) ||
	    !mask_ok(f->modes, CS_NUM_MODES) ||
	    !mask_ok(f->comms, CS_NUM_COMMVARS) || !mask_ok(f->a2av, CS_NUM_A2AV))
		return cs_error(CS_ERR_INVALID, "filter mask names a value "
				"beyond the catalog");
	if (f->ncounts < 0 || f->ncounts > MAXCOUNTS)
		return cs_error(CS_ERR_INVALID, "%d counts given: at most %d",
				f->ncounts, MAXCOUNTS);
	if (f->inplace < -1 || f->inplace > 1)
		return cs_error(CS_ERR_INVALID, "in-place filter %d: must be "
				"0 or 1", f->inplace);
	if (f->root < -1)
		return cs_error(CS_ERR_INVALID, "root %d: must be at least 0",
				f->root);
	if (f->misalign < -1)
		return cs_error(CS_ERR_INVALID, "misalignment %d: must be at "
				"least 0", f->misalign);
	return CS_OK;
}

/* Contract in factors.h. */
cs_status_t cs_factors_new(cs_suite_kind_t kind, int world,
			   const cs_filter_t *f, cs_factors_t **out)
{
	cs_factors_t *s;
	cs_status_t st;

	if (world < 1)
		return cs_error(CS_ERR_INVALID, "world size %d: must be at "
				"least 1", world);
	if ((st = check_filter(f)) != CS_OK)
		return st;
	s = calloc(1, sizeof *s);
	if (!s)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	s->world = world;
	s->quick = kind == CS_SUITE_COVER;
	s->seed = f->has_seed ? f->seed : 1;
	init_levels(s, f);
	init_tables(s);
	*out = s;
	return CS_OK;
}

void cs_factors_free(cs_factors_t *s)
{
	free(s);
}

/* ---- the space as cover.h sees it -------------------------------------- */

/* cover.h's predicate: completable() on the space arg. */
static int space_completable(const void *arg, const int *row)
{
	return completable(arg, row);
}

/* A count above 4096 elements is avoided when it covers no more. */
static int space_heavy(const void *arg, int f, int l)
{
	const cs_factors_t *s = arg;

	return f == F_COUNT && s->count[l] > 4096;
}

/* Contract in factors.h. */
void cs_factors_cover_space(const cs_factors_t *s, cs_cover_space_t *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->nf = NF;
	memcpy(sp->n, s->n, sizeof s->n);
	sp->completable = space_completable;
	sp->heavy = space_heavy;
	sp->arg = s;
	sp->tri[0] = F_COLL;
	sp->tri[1] = F_DTYPE;
	sp->tri[2] = F_OP;
	sp->seed = (uint64_t)s->world;
}

/* ---- cases -------------------------------------------------------------- */

/* Contract in factors.h. */
void cs_factors_case(const cs_factors_t *s, const int *row, size_t index,
		     cs_hcase_t *hc)
{
	int root = s->v[F_ROOT][row[F_ROOT]], pat = s->v[F_A2AV][row[F_A2AV]];

	memset(hc, 0, sizeof *hc);
	hc->c.coll = (cs_coll_t)s->v[F_COLL][row[F_COLL]];
	hc->c.dtype = (cs_dtype_t)s->v[F_DTYPE][row[F_DTYPE]];
	hc->c.op = (cs_op_t)s->v[F_OP][row[F_OP]];
	hc->c.mode = (cs_mode_t)s->v[F_MODE][row[F_MODE]];
	hc->c.nranks = s->world;
	hc->c.root = root == NA ? 0 : root;
	hc->c.count = s->count[row[F_COUNT]];
	hc->c.seed = s->seed;
	hc->inplace = s->v[F_INPLACE][row[F_INPLACE]];
	hc->comm = (cs_commvar_t)s->v[F_COMM][row[F_COMM]];
	hc->misalign = s->v[F_MISALIGN][row[F_MISALIGN]];
	hc->a2av_pattern = pat == NA ? CS_A2AV_UNIFORM : (cs_a2av_pattern_t)pat;
	/* gaps between alltoallv blocks: a function of fields a reproducer
	 * names, so the one-case rerun has the same layout */
	if (hc->c.coll == CS_COLL_ALLTOALLV)
		hc->c.a2av_gap = ((unsigned)pat + (unsigned)hc->misalign) & 1 ? 3 : 0;
	hc->index = index;
}

/* cs_case_validate for a harness case (alltoallv with its matrix). */
static cs_status_t validate_hcase(const cs_hcase_t *hc)
{
	size_t P = (size_t)hc->c.nranks, *M;
	cs_case_t c = hc->c;
	cs_status_t st;

	if (c.coll != CS_COLL_ALLTOALLV)
		return cs_case_validate(&c);
	if (P > ((size_t)1 << 15))
		return cs_error(CS_ERR_UNSUPPORTED, "alltoallv at %zu ranks: "
				"the count matrix is too large", P);
	M = malloc(P * P * sizeof *M);
	if (!M)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	cs_a2av_matrix(hc->a2av_pattern, (int)P, c.count, c.seed, M);
	c.a2av_counts = M;
	st = cs_case_validate(&c);
	free(M);
	return st;
}

/* Contract in factors.h. */
cs_status_t cs_factors_check_counts(const cs_factors_t *s, const int *rows,
				    size_t n)
{
	unsigned char *seen;
	cs_status_t st = CS_OK;
	size_t i;

	seen = calloc((size_t)s->n[F_COLL] * s->n[F_DTYPE] * s->n[F_COUNT] *
			      s->n[F_A2AV], 1);
	if (!seen)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	for (i = 0; i < n && st == CS_OK; i++) {
		const int *r = &rows[i * NF];
		size_t k = (((size_t)r[F_COLL] * s->n[F_DTYPE] + r[F_DTYPE]) *
				    s->n[F_COUNT] + r[F_COUNT]) * s->n[F_A2AV] +
			   r[F_A2AV];
		cs_hcase_t hc;

		if (seen[k])
			continue;
		seen[k] = 1;
		cs_factors_case(s, r, i, &hc);
		st = validate_hcase(&hc);
	}
	free(seen);
	return st;
}
