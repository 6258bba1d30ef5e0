/*
 * suite.c - the case lists of the `quick` and `full` suites.
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
 * `full` is every valid point of the space (the cartesian product, minus
 * the points the constraints rule out). `quick` is a covering array of
 * strength 2 over the same factors: every pair of factor values that some
 * valid case can hold appears in at least one case, and so does every
 * (collective, dtype, op) triple. It is generated greedily, one row at a
 * time in the manner of AETG: each row starts from an uncovered triple (or,
 * once all triples are in, an uncovered pair) and takes, factor by factor,
 * the value that covers the most pairs not yet covered; ties are broken by
 * a fixed hash of the world size, so every process computes the same list
 * and different world sizes cover differently.
 *
 * Filters shrink each factor's set of values before the list is built, so
 * the quick suite under a filter is a covering array of what is left, and a
 * filter with one value per factor yields exactly one case (what a
 * failure's reproducer relies on).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "csref/gen.h"

enum factor {
	F_COLL, F_DTYPE, F_OP, F_MODE, F_INPLACE, F_COMM, F_COUNT, F_ROOT,
	F_MISALIGN, F_A2AV, NF
};

#define NA (-1)                  /* root or pattern of a case without one */
#define MAXCOUNTS ((int)(sizeof(((cs_filter_t *)0)->counts) / sizeof(size_t)))
#define MAXLV (MAXCOUNTS + 8)    /* values of one factor, at most */
#define MAX_ROWS 1000000         /* a generator that runs away is a bug */

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

struct space {
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

static uint64_t hash2(uint64_t a, uint64_t b)
{
	return cs_mix64(a ^ cs_mix64(b + 0x9e3779b97f4a7c15ull));
}

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
static int level_fits(const struct space *s, cs_coll_t coll, cs_dtype_t dtype,
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
static int admits(const struct space *s, int c, int f, int l)
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
static int op_count_ok(const struct space *s, int ol, int kl)
{
	int op = s->v[F_OP][ol];

	return !s->quick || s->v[F_COUNT][kl] != CC_BIG ||
	       op == CS_OP_NONE || op == CS_OP_SUM;
}

/* Root and pattern of the row (set or not) allowed for collective c. */
static int side_ok(const struct space *s, int c, const int *row, int f)
{
	return row[f] < 0 ? s->any[c][f] : admits(s, c, f, row[f]);
}

/* First and one-past-last level of factor f a partial row allows. */
static void span(const struct space *s, const int *row, int f, int *lo,
		 int *hi)
{
	*lo = row[f] < 0 ? 0 : row[f];
	*hi = row[f] < 0 ? s->n[f] : row[f] + 1;
}

/* Whether some value of (op, dtype, count) completes the row for c. */
static int core_ok(const struct space *s, int c, const int *row)
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
static int completable(const struct space *s, const int *row)
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

static void add_level(struct space *s, int f, int v)
{
	int i;

	for (i = 0; i < s->n[f]; i++)
		if (s->v[f][i] == v)
			return;
	s->v[f][s->n[f]++] = v;
}

static void add_count(struct space *s, int cls, size_t count)
{
	int i;

	for (i = 0; i < s->n[F_COUNT]; i++)
		if (s->count[i] == count)
			return;
	s->count[s->n[F_COUNT]] = count;
	s->v[F_COUNT][s->n[F_COUNT]++] = cls;
}

/* Levels 0..n-1 of factor f, those in mask (0 = all). */
static void add_masked(struct space *s, int f, int n, uint32_t mask)
{
	int i;

	for (i = 0; i < n; i++)
		if (!mask || (mask & (1u << i)))
			add_level(s, f, i);
}

static void add_pair(struct space *s, int f, int fv)
{
	if (fv < 0) {
		add_level(s, f, 0);
		add_level(s, f, 1);
	} else {
		add_level(s, f, fv);
	}
}

static void init_levels(struct space *s, const cs_filter_t *f)
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
static void init_tables(struct space *s)
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

/* ---- rows --------------------------------------------------------------- */

typedef int row_t[NF];

struct rows {
	row_t *r;
	size_t n, cap;
};

static cs_status_t rows_push(struct rows *rs, const int *row)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 512;
		row_t *r = realloc(rs->r, cap * sizeof *r);

		if (!r)
			return cs_error(CS_ERR_NOMEM, "suite: out of memory "
					"for %zu cases", cap);
		rs->r = r;
		rs->cap = cap;
	}
	memcpy(rs->r[rs->n++], row, sizeof(row_t));
	return CS_OK;
}

static int row_cmp(const void *a, const void *b)
{
	const int *x = a, *y = b;
	int f;

	for (f = 0; f < NF; f++)
		if (x[f] != y[f])
			return x[f] < y[f] ? -1 : 1;
	return 0;
}

/* full: every valid row, in lexicographic order of levels. */
static cs_status_t enum_full(const struct space *s, int *row, int f,
			     struct rows *rs)
{
	cs_status_t st = CS_OK;
	int l;

	if (f == NF)
		return rows_push(rs, row);
	for (l = 0; l < s->n[f] && st == CS_OK; l++) {
		row[f] = l;
		if (completable(s, row))
			st = enum_full(s, row, f + 1, rs);
	}
	row[f] = -1;
	return st;
}

/* ---- quick: the covering array ----------------------------------------- */

enum { ST_NONE, ST_OPEN, ST_DONE }; /* pair or triple: not required, ... */

#define NCAND 8 /* candidate rows tried per row; the best one is kept */

struct cover {
	const struct space *s;
	size_t off[NF][NF];   /* first slot of factor pair (i < j) */
	unsigned char *pair;  /* state of each pair of values */
	unsigned char *tri;   /* state of each (coll, dtype, op) */
	size_t npair, ntri, pleft, tleft;
	uint64_t key;         /* tie-break seed: a fixed hash of P */
};

static size_t pair_slot(const struct cover *cv, int i, int li, int j, int lj)
{
	if (i > j) {
		int t = i;
		i = j;
		j = t;
		t = li;
		li = lj;
		lj = t;
	}
	return cv->off[i][j] + (size_t)li * (size_t)cv->s->n[j] + (size_t)lj;
}

static size_t tri_slot(const struct cover *cv, int cl, int dl, int ol)
{
	const struct space *s = cv->s;

	return ((size_t)cl * (size_t)s->n[F_DTYPE] + (size_t)dl) *
		       (size_t)s->n[F_OP] + (size_t)ol;
}

/* Mark each pair and triple that some valid case holds as required. */
static void cover_states(struct cover *cv)
{
	const struct space *s = cv->s;
	int i, j, a, b, row[NF];

	memset(row, -1, sizeof row);
	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++)
			for (a = 0; a < s->n[i]; a++)
				for (b = 0; b < s->n[j]; b++) {
					size_t k = pair_slot(cv, i, a, j, b);
					row[i] = a;
					row[j] = b;
					cv->pair[k] = completable(s, row) ? ST_OPEN : ST_NONE;
					cv->pleft += cv->pair[k] == ST_OPEN;
					row[i] = row[j] = -1;
				}
	for (i = 0; i < s->n[F_COLL]; i++)
		for (j = 0; j < s->n[F_DTYPE]; j++)
			for (a = 0; a < s->n[F_OP]; a++) {
				size_t k = tri_slot(cv, i, j, a);
				row[F_COLL] = i;
				row[F_DTYPE] = j;
				row[F_OP] = a;
				cv->tri[k] = completable(s, row) ? ST_OPEN : ST_NONE;
				cv->tleft += cv->tri[k] == ST_OPEN;
			}
}

static cs_status_t cover_init(struct cover *cv, const struct space *s)
{
	int i, j;

	memset(cv, 0, sizeof *cv);
	cv->s = s;
	cv->key = hash2(0x636f6c6c73706563ull, (uint64_t)s->world);
	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++) {
			cv->off[i][j] = cv->npair;
			cv->npair += (size_t)s->n[i] * (size_t)s->n[j];
		}
	cv->ntri = (size_t)s->n[F_COLL] * s->n[F_DTYPE] * s->n[F_OP];
	cv->pair = malloc(cv->npair + 1);
	cv->tri = malloc(cv->ntri + 1);
	if (!cv->pair || !cv->tri) {
		free(cv->pair);
		free(cv->tri);
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	}
	cover_states(cv);
	return CS_OK;
}

/* Pairs and triple of a complete row still open; with mark, close them. */
static size_t cover_row(struct cover *cv, const int *row, int mark)
{
	size_t gain = 0, k;
	int i, j;

	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++) {
			k = pair_slot(cv, i, row[i], j, row[j]);
			gain += cv->pair[k] == ST_OPEN;
			if (mark && cv->pair[k] == ST_OPEN) {
				cv->pair[k] = ST_DONE;
				cv->pleft--;
			}
		}
	k = tri_slot(cv, row[F_COLL], row[F_DTYPE], row[F_OP]);
	gain += cv->tri[k] == ST_OPEN;
	if (mark && cv->tri[k] == ST_OPEN) {
		cv->tri[k] = ST_DONE;
		cv->tleft--;
	}
	return gain;
}

/* Start a row from the open triple, else the open pair, of least hash. */
static void pick_target(const struct cover *cv, int *row)
{
	const struct space *s = cv->s;
	uint64_t best = UINT64_MAX;
	int i, j, a, b;

	memset(row, -1, sizeof(row_t));
	for (i = 0; cv->tleft && i < s->n[F_COLL]; i++)
		for (j = 0; j < s->n[F_DTYPE]; j++)
			for (a = 0; a < s->n[F_OP]; a++) {
				size_t k = tri_slot(cv, i, j, a);
				uint64_t h = hash2(cv->key, k);
				if (cv->tri[k] != ST_OPEN || h >= best)
					continue;
				best = h;
				row[F_COLL] = i;
				row[F_DTYPE] = j;
				row[F_OP] = a;
			}
	for (i = 0; !cv->tleft && i < NF; i++)
		for (j = i + 1; j < NF; j++)
			for (a = 0; a < s->n[i]; a++)
				for (b = 0; b < s->n[j]; b++) {
					size_t k = pair_slot(cv, i, a, j, b);
					uint64_t h = hash2(cv->key, k);
					if (cv->pair[k] != ST_OPEN || h >= best)
						continue;
					best = h;
					memset(row, -1, sizeof(row_t));
					row[i] = a;
					row[j] = b;
				}
}

/* Open pairs that value l of factor f would close with the row so far. */
static int level_score(const struct cover *cv, const int *row, int f, int l)
{
	int g, score = 0;

	for (g = 0; g < NF; g++)
		if (g != f && row[g] >= 0)
			score += cv->pair[pair_slot(cv, f, l, g, row[g])] == ST_OPEN;
	return score;
}

/*
 * Choose factor f's value: most open pairs closed, then a small count
 * rather than a large one (the budget), then the least hash.
 */
static void choose_level(const struct cover *cv, int *row, int f,
			 uint64_t rseed)
{
	const struct space *s = cv->s;
	int l, best = -1, best_score = -1, best_heavy = 0;
	uint64_t best_h = 0;

	for (l = 0; l < s->n[f]; l++) {
		int score, heavy;
		uint64_t h;

		row[f] = l;
		if (!completable(s, row))
			continue;
		score = level_score(cv, row, f, l);
		heavy = f == F_COUNT && s->count[l] > 4096;
		h = hash2(rseed, (uint64_t)f * MAXLV + (uint64_t)l);
		if (best < 0 || score > best_score ||
		    (score == best_score && heavy < best_heavy) ||
		    (score == best_score && heavy == best_heavy && h < best_h)) {
			best = l;
			best_score = score;
			best_heavy = heavy;
			best_h = h;
		}
	}
	row[f] = best;
}

/* Complete a started row, visiting the free factors in a seeded order. */
static void fill_row(const struct cover *cv, int *row, uint64_t rseed)
{
	uint64_t h[NF];
	int order[NF], f, i, j;

	for (f = 0; f < NF; f++) {
		order[f] = f;
		h[f] = hash2(rseed, (uint64_t)f);
	}
	for (i = 1; i < NF; i++)
		for (j = i; j > 0 && h[order[j]] < h[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < NF; i++)
		if (row[order[i]] < 0)
			choose_level(cv, row, order[i], rseed);
}

static cs_status_t build_quick(struct cover *cv, struct rows *rs)
{
	while (cv->pleft || cv->tleft) {
		int start[NF], cand[NF], best[NF];
		size_t best_gain = 0, gain;
		int k;

		if (rs->n >= MAX_ROWS)
			return cs_error(CS_ERR_INTERNAL, "suite: covering "
					"array does not converge");
		pick_target(cv, start);
		for (k = 0; k < NCAND; k++) {
			memcpy(cand, start, sizeof cand);
			fill_row(cv, cand, hash2(cv->key, rs->n * NCAND + k));
			gain = cover_row(cv, cand, 0);
			if (k == 0 || gain > best_gain) {
				memcpy(best, cand, sizeof best);
				best_gain = gain;
			}
		}
		cover_row(cv, best, 1);
		if (rows_push(rs, best) != CS_OK)
			return CS_ERR_NOMEM;
	}
	if (rs->n) /* (an empty list may have no array at all) */
		qsort(rs->r, rs->n, sizeof(row_t), row_cmp);
	return CS_OK;
}

/* ---- cases -------------------------------------------------------------- */

static void row_case(const struct space *s, const int *row, size_t index,
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

/* Counts given with --count: check each (coll, dtype, count, pattern) once. */
static cs_status_t validate_explicit(const struct space *s, const struct rows *rs)
{
	unsigned char *seen;
	cs_status_t st = CS_OK;
	size_t i;

	seen = calloc((size_t)s->n[F_COLL] * s->n[F_DTYPE] * s->n[F_COUNT] *
			      s->n[F_A2AV], 1);
	if (!seen)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	for (i = 0; i < rs->n && st == CS_OK; i++) {
		const int *r = rs->r[i];
		size_t k = (((size_t)r[F_COLL] * s->n[F_DTYPE] + r[F_DTYPE]) *
				    s->n[F_COUNT] + r[F_COUNT]) * s->n[F_A2AV] +
			   r[F_A2AV];
		cs_hcase_t hc;

		if (seen[k])
			continue;
		seen[k] = 1;
		row_case(s, r, i, &hc);
		st = validate_hcase(&hc);
	}
	free(seen);
	return st;
}

static cs_status_t emit_cases(const struct space *s, const struct rows *rs,
			      cs_hcase_t **out, size_t *n)
{
	size_t i;

	*out = NULL;
	*n = 0;
	if (!rs->n)
		return CS_OK;
	*out = malloc(rs->n * sizeof **out);
	if (!*out)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory for %zu "
				"cases", rs->n);
	for (i = 0; i < rs->n; i++)
		row_case(s, rs->r[i], i, &(*out)[i]);
	*n = rs->n;
	return CS_OK;
}

static cs_status_t build_rows(const struct space *s, struct rows *rs)
{
	struct cover cv;
	cs_status_t st;
	int row[NF];

	if (!s->quick) {
		memset(row, -1, sizeof row);
		return enum_full(s, row, 0, rs);
	}
	st = cover_init(&cv, s);
	if (st != CS_OK)
		return st;
	st = build_quick(&cv, rs);
	free(cv.pair);
	free(cv.tri);
	return st;
}

/*
 * Build suite `name` ("quick" or "full") for world size `world` under the
 * filters f (NULL: none); see harness.h. Filter semantics: each mask keeps
 * the cases whose value is in it (op: bit CS_OP_NONE keeps the collectives
 * that do not reduce; a2av restricts alltoallv's patterns only); explicit
 * counts replace the count classes and are not subject to the quick
 * suite's budget; root restricts rooted collectives only (a root >= world
 * leaves none); inplace, misalign and seed fix their field. On success
 * *out (malloc'ed, NULL when *n is 0) is the caller's to free. Returns
 * CS_ERR_INVALID on bad arguments, CS_ERR_OVERFLOW when an explicit count
 * makes a buffer size overflow, CS_ERR_NOMEM.
 */
cs_status_t cs_suite_build(const char *name, int world, const cs_filter_t *f,
			   cs_hcase_t **out, size_t *n)
{
	struct rows rs = {NULL, 0, 0};
	cs_filter_t none;
	struct space *s;
	cs_status_t st;

	if (!name || !out || !n)
		return cs_error(CS_ERR_INVALID, "cs_suite_build: NULL argument");
	if (strcmp(name, "quick") != 0 && strcmp(name, "full") != 0)
		return cs_error(CS_ERR_INVALID, "unknown suite '%s'; valid "
				"suites: quick full", name);
	if (world < 1)
		return cs_error(CS_ERR_INVALID, "world size %d: must be at "
				"least 1", world);
	if (!f) {
		cs_filter_init(&none);
		f = &none;
	}
	st = check_filter(f);
	if (st != CS_OK)
		return st;
	s = calloc(1, sizeof *s);
	if (!s)
		return cs_error(CS_ERR_NOMEM, "suite: out of memory");
	s->world = world;
	s->quick = strcmp(name, "quick") == 0;
	s->seed = f->has_seed ? f->seed : 1;
	init_levels(s, f);
	init_tables(s);
	st = build_rows(s, &rs);
	if (st == CS_OK && f->ncounts)
		st = validate_explicit(s, &rs);
	if (st == CS_OK)
		st = emit_cases(s, &rs, out, n);
	free(rs.r);
	free(s);
	return st;
}

/* ---- alltoallv count matrices ------------------------------------------ */

static size_t sat_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/*
 * Fill M[src*P + dst] with the counts of pattern p for P ranks around the
 * base count `count`; a pure function of its arguments. uniform: count
 * everywhere. uneven: each pair a hashed count in 0..2*count. zerorows:
 * every third rank (from a seeded offset) sends nothing, and every third
 * rank of another residue receives nothing; other pairs exchange count.
 * sparse: each pair exchanges P*count with probability about 1/P, else 0.
 * Counts that would overflow saturate at SIZE_MAX (cs_case_validate then
 * reports the overflow). Does nothing when P < 1 or M is NULL.
 */
void cs_a2av_matrix(cs_a2av_pattern_t p, int P, size_t count, uint64_t seed,
		    size_t *M)
{
	uint64_t key = hash2(seed, 0x613261762d6d6174ull + (uint64_t)p);
	size_t span = count <= (SIZE_MAX - 1) / 2 ? 2 * count + 1 : SIZE_MAX;
	unsigned off = (unsigned)(key % 3);
	int s, d;

	if (P < 1 || !M)
		return;
	for (s = 0; s < P; s++)
		for (d = 0; d < P; d++) {
			uint64_t h = hash2(key, (uint64_t)s * (uint64_t)P + (uint64_t)d);
			size_t *m = &M[(size_t)s * (size_t)P + (size_t)d];

			switch (p) {
			case CS_A2AV_UNEVEN:
				*m = (size_t)(h % span);
				break;
			case CS_A2AV_ZEROROWS:
				*m = ((unsigned)s + off) % 3 == 1 ||
				     ((unsigned)d + off) % 3 == 2 ? 0 : count;
				break;
			case CS_A2AV_SPARSE:
				*m = h % (uint64_t)P == 0 ? sat_mul(count, (size_t)P) : 0;
				break;
			case CS_A2AV_UNIFORM:
			case CS_NUM_A2AV: /* not a pattern */
			default:
				*m = count;
			}
		}
}
