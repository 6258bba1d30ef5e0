/*
 * cover.c - every admissible row of a factor space, or a covering array of
 * it (cover.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suite/cover.h"
#include "csref/gen.h"

#define MAX_ROWS 1000000 /* a covering array that runs away is a bug */
#define NCAND 8          /* candidate rows tried per row; the best is kept */

/* One row as the generator holds it: unchosen and unused entries -1. */
typedef struct row {
	int l[CS_COVER_MAXF];
} row_t;

struct rows {
	row_t *r;
	size_t n, cap;
};

static uint64_t hash2(uint64_t a, uint64_t b)
{
	return cs_mix64(a ^ cs_mix64(b + 0x9e3779b97f4a7c15ull));
}

static cs_status_t check_space(const cs_cover_space_t *sp)
{
	int f;

	if (!sp || !sp->completable || sp->nf < 1 || sp->nf > CS_COVER_MAXF)
		return cs_error(CS_ERR_INVALID, "cover: a space needs 1 to %d "
				"factors and a predicate", CS_COVER_MAXF);
	for (f = 0; f < sp->nf; f++)
		if (sp->n[f] < 0 || sp->n[f] > CS_COVER_MAXLV)
			return cs_error(CS_ERR_INVALID, "cover: factor %d has %d "
					"levels: 0 to %d allowed", f, sp->n[f],
					CS_COVER_MAXLV);
	if (sp->tri[0] >= 0 &&
	    (sp->tri[0] >= sp->nf || sp->tri[1] < 0 || sp->tri[1] >= sp->nf ||
	     sp->tri[2] < 0 || sp->tri[2] >= sp->nf || sp->tri[0] == sp->tri[1] ||
	     sp->tri[0] == sp->tri[2] || sp->tri[1] == sp->tri[2]))
		return cs_error(CS_ERR_INVALID, "cover: the triple's factors "
				"must be three distinct factors of the space");
	return CS_OK;
}

static cs_status_t rows_push(struct rows *rs, const row_t *row)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 512;
		row_t *r = realloc(rs->r, cap * sizeof *r);

		if (!r)
			return cs_error(CS_ERR_NOMEM, "cover: out of memory "
					"for %zu rows", cap);
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n++] = *row;
	return CS_OK;
}

/* Hand the rows over as nf levels each (packed in place). */
static void rows_give(struct rows *rs, int nf, int **rows, size_t *n)
{
	int *out = (int *)rs->r;
	size_t i;

	for (i = 0; i < rs->n; i++)
		memmove(out + i * (size_t)nf, rs->r[i].l, (size_t)nf * sizeof(int));
	*rows = rs->n ? out : NULL;
	*n = rs->n;
	if (!rs->n)
		free(rs->r);
}

static int row_cmp(const void *a, const void *b)
{
	const int *x = ((const row_t *)a)->l, *y = ((const row_t *)b)->l;
	int f;

	for (f = 0; f < CS_COVER_MAXF; f++)
		if (x[f] != y[f])
			return x[f] < y[f] ? -1 : 1;
	return 0;
}

/* ---- every admissible row ----------------------------------------------- */

/* Rows that complete row from factor f on, in lexicographic order. */
static cs_status_t enum_all(const cs_cover_space_t *sp, row_t *row, int f,
			    struct rows *rs)
{
	cs_status_t st = CS_OK;
	int l;

	if (f == sp->nf)
		return rows_push(rs, row);
	for (l = 0; l < sp->n[f] && st == CS_OK; l++) {
		row->l[f] = l;
		if (sp->completable(sp->arg, row->l))
			st = enum_all(sp, row, f + 1, rs);
	}
	row->l[f] = -1;
	return st;
}

cs_status_t cs_cover_all(const cs_cover_space_t *sp, int **rows, size_t *n)
{
	struct rows rs = {NULL, 0, 0};
	cs_status_t st;
	row_t row;

	if (!rows || !n)
		return cs_error(CS_ERR_INVALID, "cs_cover_all: NULL argument");
	if ((st = check_space(sp)) != CS_OK)
		return st;
	memset(&row, -1, sizeof row);
	st = enum_all(sp, &row, 0, &rs);
	if (st != CS_OK) {
		free(rs.r);
		return st;
	}
	rows_give(&rs, sp->nf, rows, n);
	return CS_OK;
}

/* ---- the covering array ------------------------------------------------- */

enum { ST_NONE, ST_OPEN, ST_DONE }; /* pair or triple: not required, ... */

struct cover {
	const cs_cover_space_t *sp;
	size_t off[CS_COVER_MAXF][CS_COVER_MAXF]; /* first slot of factor
						     pair (i < j) */
	unsigned char *pair;  /* state of each pair of levels */
	unsigned char *tri;   /* state of each triple of levels */
	size_t npair, ntri, pleft, tleft;
	uint64_t key;         /* tie-break seed */
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
	return cv->off[i][j] + (size_t)li * (size_t)cv->sp->n[j] + (size_t)lj;
}

/* Slot of the triple a row holds on factors sp->tri. */
static size_t tri_slot(const struct cover *cv, const int *l)
{
	const cs_cover_space_t *sp = cv->sp;
	const int *t = sp->tri;

	return ((size_t)l[t[0]] * (size_t)sp->n[t[1]] + (size_t)l[t[1]]) *
		       (size_t)sp->n[t[2]] + (size_t)l[t[2]];
}

/* Mark each pair and triple that some admissible row holds as required. */
static void cover_states(struct cover *cv)
{
	const cs_cover_space_t *sp = cv->sp;
	const int *t = sp->tri;
	row_t row;
	int i, j, a, b;

	memset(&row, -1, sizeof row);
	for (i = 0; i < sp->nf; i++)
		for (j = i + 1; j < sp->nf; j++)
			for (a = 0; a < sp->n[i]; a++)
				for (b = 0; b < sp->n[j]; b++) {
					size_t k = pair_slot(cv, i, a, j, b);
					row.l[i] = a;
					row.l[j] = b;
					cv->pair[k] = sp->completable(sp->arg, row.l)
							      ? ST_OPEN : ST_NONE;
					cv->pleft += cv->pair[k] == ST_OPEN;
					row.l[i] = row.l[j] = -1;
				}
	for (i = 0; cv->ntri && i < sp->n[t[0]]; i++)
		for (j = 0; j < sp->n[t[1]]; j++)
			for (a = 0; a < sp->n[t[2]]; a++) {
				size_t k;
				row.l[t[0]] = i;
				row.l[t[1]] = j;
				row.l[t[2]] = a;
				k = tri_slot(cv, row.l);
				cv->tri[k] = sp->completable(sp->arg, row.l)
						     ? ST_OPEN : ST_NONE;
				cv->tleft += cv->tri[k] == ST_OPEN;
			}
}

static cs_status_t cover_init(struct cover *cv, const cs_cover_space_t *sp)
{
	int i, j;

	memset(cv, 0, sizeof *cv);
	cv->sp = sp;
	cv->key = hash2(0x636f6c6c73706563ull, sp->seed);
	for (i = 0; i < sp->nf; i++)
		for (j = i + 1; j < sp->nf; j++) {
			cv->off[i][j] = cv->npair;
			cv->npair += (size_t)sp->n[i] * (size_t)sp->n[j];
		}
	if (sp->tri[0] >= 0)
		cv->ntri = (size_t)sp->n[sp->tri[0]] * (size_t)sp->n[sp->tri[1]] *
			   (size_t)sp->n[sp->tri[2]];
	cv->pair = malloc(cv->npair + 1);
	cv->tri = malloc(cv->ntri + 1);
	if (!cv->pair || !cv->tri) {
		free(cv->pair);
		free(cv->tri);
		return cs_error(CS_ERR_NOMEM, "cover: out of memory");
	}
	cover_states(cv);
	return CS_OK;
}

/* Pairs and triple of a complete row still open; with mark, close them. */
static size_t cover_row(struct cover *cv, const row_t *row, int mark)
{
	const int *l = row->l;
	size_t gain = 0, k;
	int i, j;

	for (i = 0; i < cv->sp->nf; i++)
		for (j = i + 1; j < cv->sp->nf; j++) {
			k = pair_slot(cv, i, l[i], j, l[j]);
			gain += cv->pair[k] == ST_OPEN;
			if (mark && cv->pair[k] == ST_OPEN) {
				cv->pair[k] = ST_DONE;
				cv->pleft--;
			}
		}
	if (!cv->ntri)
		return gain;
	k = tri_slot(cv, l);
	gain += cv->tri[k] == ST_OPEN;
	if (mark && cv->tri[k] == ST_OPEN) {
		cv->tri[k] = ST_DONE;
		cv->tleft--;
	}
	return gain;
}

/* Start a row from the open triple of least hash. */
static void pick_triple(const struct cover *cv, row_t *row)
{
	const cs_cover_space_t *sp = cv->sp;
	const int *t = sp->tri;
	uint64_t best = UINT64_MAX;
	row_t cand;
	int i, j, a;

	memset(&cand, -1, sizeof cand);
	for (i = 0; i < sp->n[t[0]]; i++)
		for (j = 0; j < sp->n[t[1]]; j++)
			for (a = 0; a < sp->n[t[2]]; a++) {
				size_t k;
				uint64_t h;
				cand.l[t[0]] = i;
				cand.l[t[1]] = j;
				cand.l[t[2]] = a;
				k = tri_slot(cv, cand.l);
				h = hash2(cv->key, k);
				if (cv->tri[k] != ST_OPEN || h >= best)
					continue;
				best = h;
				*row = cand;
			}
}

/* Start a row from the open pair of least hash. */
static void pick_pair(const struct cover *cv, row_t *row)
{
	const cs_cover_space_t *sp = cv->sp;
	uint64_t best = UINT64_MAX;
	int i, j, a, b;

	for (i = 0; i < sp->nf; i++)
		for (j = i + 1; j < sp->nf; j++)
			for (a = 0; a < sp->n[i]; a++)
				for (b = 0; b < sp->n[j]; b++) {
					size_t k = pair_slot(cv, i, a, j, b);
					uint64_t h = hash2(cv->key, k);
					if (cv->pair[k] != ST_OPEN || h >= best)
						continue;
					best = h;
					memset(row, -1, sizeof *row);
					row->l[i] = a;
					row->l[j] = b;
				}
}

/* Start a row from an open triple while any is open, else an open pair. */
static void pick_target(const struct cover *cv, row_t *row)
{
	memset(row, -1, sizeof *row);
	if (cv->tleft)
		pick_triple(cv, row);
	else
		pick_pair(cv, row);
}

/* Open pairs that level l of factor f would close with the row so far. */
static int level_score(const struct cover *cv, const int *row, int f, int l)
{
	int g, score = 0;

	for (g = 0; g < cv->sp->nf; g++)
		if (g != f && row[g] >= 0)
			score += cv->pair[pair_slot(cv, f, l, g, row[g])] == ST_OPEN;
	return score;
}

/*
 * Choose factor f's level: most open pairs closed, then a level that is
 * not heavy rather than one that is, then the least hash.
 */
static void choose_level(const struct cover *cv, int *row, int f,
			 uint64_t rseed)
{
	const cs_cover_space_t *sp = cv->sp;
	int l, best = -1, best_score = -1, best_heavy = 0;
	uint64_t best_h = 0;

	for (l = 0; l < sp->n[f]; l++) {
		int score, heavy;
		uint64_t h;

		row[f] = l;
		if (!sp->completable(sp->arg, row))
			continue;
		score = level_score(cv, row, f, l);
		heavy = sp->heavy && sp->heavy(sp->arg, f, l);
		h = hash2(rseed, (uint64_t)f * CS_COVER_MAXLV + (uint64_t)l);
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
static void fill_row(const struct cover *cv, row_t *row, uint64_t rseed)
{
	uint64_t h[CS_COVER_MAXF];
	int order[CS_COVER_MAXF], nf = cv->sp->nf, f, i, j;

	for (f = 0; f < nf; f++) {
		order[f] = f;
		h[f] = hash2(rseed, (uint64_t)f);
	}
	for (i = 1; i < nf; i++)
		for (j = i; j > 0 && h[order[j]] < h[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < nf; i++)
		if (row->l[order[i]] < 0)
			choose_level(cv, row->l, order[i], rseed);
}

/* Whether fill_row made an admissible row (always, for an exact
 * predicate). */
static int row_complete(const struct cover *cv, const row_t *row)
{
	int f;

	for (f = 0; f < cv->sp->nf; f++)
		if (row->l[f] < 0)
			return 0;
	return cv->sp->completable(cv->sp->arg, row->l);
}

/* Rows until every required pair and triple is covered, then sorted. Each
 * row covers the open pair or triple it starts from, so this ends. */
static cs_status_t build_cover(struct cover *cv, struct rows *rs)
{
	while (cv->pleft || cv->tleft) {
		row_t start, cand, best;
		size_t best_gain = 0, gain;
		int k;

		if (rs->n >= MAX_ROWS)
			return cs_error(CS_ERR_INTERNAL, "cover: the covering "
					"array does not converge");
		pick_target(cv, &start);
		for (k = 0; k < NCAND; k++) {
			cand = start;
			fill_row(cv, &cand, hash2(cv->key, rs->n * NCAND + k));
			if (!row_complete(cv, &cand))
				return cs_error(CS_ERR_INTERNAL, "cover: the "
						"predicate accepts a partial row "
						"that no admissible row completes");
			gain = cover_row(cv, &cand, 0);
			if (k == 0 || gain > best_gain) {
				best = cand;
				best_gain = gain;
			}
		}
		cover_row(cv, &best, 1);
		if (rows_push(rs, &best) != CS_OK)
			return CS_ERR_NOMEM;
	}
	if (rs->n) /* (an empty list may have no array at all) */
		qsort(rs->r, rs->n, sizeof *rs->r, row_cmp);
	return CS_OK;
}

cs_status_t cs_cover_pairs(const cs_cover_space_t *sp, int **rows, size_t *n)
{
	struct rows rs = {NULL, 0, 0};
	struct cover cv;
	cs_status_t st;

	if (!rows || !n)
		return cs_error(CS_ERR_INVALID, "cs_cover_pairs: NULL argument");
	if ((st = check_space(sp)) != CS_OK)
		return st;
	if ((st = cover_init(&cv, sp)) != CS_OK)
		return st;
	st = build_cover(&cv, &rs);
	free(cv.pair);
	free(cv.tri);
	if (st != CS_OK) {
		free(rs.r);
		return st;
	}
	rows_give(&rs, sp->nf, rows, n);
	return CS_OK;
}
