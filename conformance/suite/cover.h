/*
 * cover.h - rows over a space of factors: every admissible row, or a
 * covering array of strength 2 with the triples of three chosen factors.
 *
 * A factor has levels 0..n-1; a row gives each factor one level. Which
 * rows are admissible is the caller's business, told through a predicate
 * on partial rows. The generator knows nothing else about the factors: the
 * suites (suite.c) map levels to collectives, dtypes, counts and so on.
 *
 * The covering array is built greedily, one row at a time in the manner of
 * AETG (Cohen et al., 1997): each row starts from an open triple (or, once
 * every triple is covered, an open pair) and takes, factor by factor in a
 * seeded order, the level that covers the most pairs still open; of
 * several candidate rows the one covering most is kept. Ties are broken by
 * a fixed hash of the seed, so the rows are a pure function of the space.
 */
#ifndef CS_COVER_H
#define CS_COVER_H

#include <stddef.h>
#include <stdint.h>
#include "csref/status.h"

#define CS_COVER_MAXF 16  /* factors of a space, at most */
#define CS_COVER_MAXLV 40 /* levels of one factor, at most (part of the
			     tie-break hash: changing it changes the rows) */

typedef struct cs_cover_space {
	int nf;                /* factors, 1..CS_COVER_MAXF */
	int n[CS_COVER_MAXF];  /* levels of each factor, 0..CS_COVER_MAXLV */
	/*
	 * 1 when some admissible row agrees with every chosen entry of row
	 * (row[f] a level, or -1 where factor f is not chosen), else 0. It
	 * must be exact: the generator emits only rows it accepts with every
	 * entry chosen, and requires exactly the pairs (and triples) it
	 * accepts with only those chosen. arg is the space's arg.
	 */
	int (*completable)(const void *arg, const int *row);
	/* 1 for a level the covering array should avoid when it covers no
	 * more than another (a costly count); NULL: no level is. */
	int (*heavy)(const void *arg, int f, int level);
	const void *arg;
	int tri[3];            /* three distinct factors whose admissible
				  triples of levels must all be covered too;
				  tri[0] < 0: none */
	uint64_t seed;         /* the tie-breaks' seed */
} cs_cover_space_t;

/*
 * Every admissible row of space sp, in lexicographic order of levels: the
 * product of the factors' levels, less what sp->completable refuses. On
 * success *rows (malloc'ed; NULL when *n is 0, the caller frees it) holds
 * *n rows of sp->nf levels each, row i at (*rows)[i * sp->nf]. Fails with
 * CS_ERR_INVALID on a space out of the limits above, CS_ERR_NOMEM.
 */
cs_status_t cs_cover_all(const cs_cover_space_t *sp, int **rows, size_t *n);

/*
 * A covering array of space sp, sorted in lexicographic order: admissible
 * rows such that every pair of levels of two factors that some admissible
 * row holds is held by at least one of them, and so is every admissible
 * triple of levels of factors sp->tri. Rows are returned as by
 * cs_cover_all. Fails with CS_ERR_INVALID on a space out of the limits,
 * CS_ERR_NOMEM, or CS_ERR_INTERNAL when a partial row the predicate
 * accepts cannot be completed into a row it accepts (a predicate that is
 * not exact).
 */
cs_status_t cs_cover_pairs(const cs_cover_space_t *sp, int **rows, size_t *n);

#endif /* CS_COVER_H */
