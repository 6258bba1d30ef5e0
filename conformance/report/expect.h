/*
 * expect.h - known defects as data: the expectations file of `collspec run
 * --expect FILE` (format in docs/expectations/README.md) and what it does
 * to a case's final result.
 *
 * Each entry describes a defect: the cases it can show in (the run's
 * filters, plus world sizes, the backend's name and words of its
 * --backend-opt and of its --mpi-alg; any of them may be left out), the
 * checks it fails, a
 * reason and the finding (a file of docs/findings/) that documents it. One entry so holds for every suite,
 * filter and forced algorithm; an entry with every filter given selects
 * one case (an exact-case entry). Applied to the run's results
 * (cs_expect_apply, then cs_expect_finish):
 *   FAIL of a selected case, by a listed check -> XFAIL (not a failure);
 *   PASS, INFO or WARN of a selected case      -> unchanged (a defect
 *                                                 that depends on the data
 *                                                 need not show in every
 *                                                 case it can show in);
 *   an entry that selected cases of the run, none of which failed by one
 *   of its checks                              -> XPASS (a failure of the
 *                                                 run: the defect no longer
 *                                                 shows anywhere it was
 *                                                 looked for);
 *   the same for an entry given --shows sometimes (a defect that shows
 *   in some of its cases only, for a reason no filter describes: the
 *   data, the timing)                          -> neither (not shown);
 *   an entry that selected no case             -> neither.
 * The re-run line of an XFAIL gets `--expect FILE`.
 *
 * The parser bounds everything it reads (file, entry, field and list
 * sizes below), so any input, however hostile, costs bounded memory and
 * time; a problem is an error naming the file, line and problem.
 */
#ifndef CS_EXPECT_H
#define CS_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include "base/result.h"
#include "suite/suite.h"

#define CS_EXPECT_FILE_MAX (1u << 20) /* bytes of a file */
#define CS_EXPECT_ENTRY_MAX 4096      /* bytes of one entry, lines joined */
#define CS_EXPECT_ENTRIES_MAX 1024    /* entries of a file */
#define CS_EXPECT_NAME_MAX 63         /* an entry's name */
#define CS_EXPECT_REASON_MAX 200      /* --reason */
#define CS_EXPECT_FINDING_MAX 127     /* --finding */
#define CS_EXPECT_RANGES_MAX 16       /* ranges of --ranks */
#define CS_EXPECT_PATH_MAX 1024       /* the --expect path itself */
#define CS_EXPECT_BOPT_MAX 255        /* --backend-opt of an entry */

/* One entry. Unset filters match every case: a mask or list of 0 items,
 * inplace, root and misalign -1, has_seed 0, nranges 0, backend "",
 * backend_opt "", mpi_alg "". */
typedef struct cs_expect_entry {
	char name[CS_EXPECT_NAME_MAX + 1];
	int line;                     /* the entry's first line in the file */
	cs_filter_t f;                /* the run filters, cs_suite_build's
					 meaning (cs_expect_case_matches) */
	int nranges;
	int ranks[CS_EXPECT_RANGES_MAX][2]; /* world sizes, lo-hi inclusive */
	char backend[CS_BACKEND_NAME_MAX + 1]; /* the backend's own name */
	char backend_opt[CS_EXPECT_BOPT_MAX + 1]; /* comma-separated words,
					 each one a word of the run's
					 --backend-opt (cs_expect_opt_matches) */
	char mpi_alg[CS_EXPECT_BOPT_MAX + 1]; /* the same for the run's
					 --mpi-alg (a forced algorithm) */
	uint32_t checks;              /* bit i: cs_expect_check_name(i) */
	char reason[CS_EXPECT_REASON_MAX + 1];
	char finding[CS_EXPECT_FINDING_MAX + 1];
	int sometimes;                /* --shows sometimes: never XPASS */
	size_t matched;               /* the run's cases it selected (not
					 SKIP) */
	size_t shown;                 /* of those, cases that FAILed by one
					 of its checks */
	size_t xfail;                 /* results it turned into XFAIL */
	int xpass;                    /* 1: matched && !shown &&
					 !sometimes, set by cs_expect_finish */
} cs_expect_entry_t;

/* An expectations file, parsed. */
typedef struct cs_expect {
	char path[CS_EXPECT_PATH_MAX + 1]; /* as given to --expect */
	cs_expect_entry_t *e;
	size_t n;
	const char *run_opt;          /* the run's --backend-opt, NULL for none
					 (not owned: cs_expect_set_run_opt) */
	const char *run_alg;          /* the run's --mpi-alg, likewise */
} cs_expect_t;

/* The check names an entry may list: the rows of the check registry
 * (check_registry.h) that can FAIL one case, in the registry's order; name i for
 * i in 0..cs_expect_nchecks()-1 (at most 31: bit i of an entry's checks),
 * NULL beyond. */
const char *cs_expect_check_name(int i);
int cs_expect_nchecks(void);

/*
 * Parse the text[0..len) of expectations file `path` (path is only named
 * in messages and kept for the re-run lines; at most CS_EXPECT_PATH_MAX
 * bytes of UTF-8 without control bytes). On success *out is malloc'ed
 * (cs_expect_free). On a problem returns CS_ERR_INVALID (CS_ERR_NOMEM when
 * out of memory) with a message "PATH:LINE: problem" and *out NULL.
 */
cs_status_t cs_expect_parse(const char *path, const char *text, size_t len,
			    cs_expect_t **out);

/* Read file path and parse it (cs_expect_parse); CS_ERR_IO when it cannot
 * be read or is larger than CS_EXPECT_FILE_MAX. */
cs_status_t cs_expect_load(const char *path, cs_expect_t **out);

void cs_expect_free(cs_expect_t *x);

/* 1 when entry e's case filters (not its checks) select r's case: every
 * filter given holds for it, with cs_suite_build's meaning (op none: the
 * collectives that do not reduce; --a2av-pattern restricts alltoallv only,
 * --root rooted collectives only), the world size in --ranks, and r's
 * backend name equal to --backend. */
int cs_expect_case_matches(const cs_expect_entry_t *e, const cs_result_t *r);

/* 1 when entry e's --backend-opt is unset, or when each of its
 * comma-separated words is, whole, one of the comma-separated words of
 * run_opt (the run's --backend-opt; NULL or "" has none): "algo=ring"
 * holds for a run with "allgather=allgatherv,algo=ring", not for one
 * with "algo=ring_chunked" or with no option. */
int cs_expect_opt_matches(const cs_expect_entry_t *e, const char *run_opt);

/* Remember the run's --backend-opt (NULL: none) for cs_expect_apply; the
 * string must outlive x. */
void cs_expect_set_run_opt(cs_expect_t *x, const char *run_opt);

/* cs_expect_opt_matches for entry e's --mpi-alg and the run's --mpi-alg
 * (run_alg; NULL or "" has none): "ibroadcast=tsp_ring" holds for a run
 * with "--mpi-alg ibroadcast=tsp_ring,ireduce=tsp_tree". */
int cs_expect_alg_matches(const cs_expect_entry_t *e, const char *run_alg);

/* Remember the run's --mpi-alg (NULL: none), as cs_expect_set_run_opt. */
void cs_expect_set_run_alg(cs_expect_t *x, const char *run_alg);

/*
 * Apply x to final result r (see the top of this file). Every entry that
 * selects r's case (cs_expect_case_matches, and cs_expect_opt_matches
 * with x->run_opt) counts it (matched; shown when r FAILed by one of its
 * checks); the first that selects it and lists r's check makes a FAIL an
 * XFAIL, which keeps r's check and reason and gets the entry (name, file
 * and line, reason, finding) as its first detail line. A FAIL of a
 * selected case by a check no selecting entry lists stays FAIL, with a
 * detail line saying so. Returns the entry that made r an XFAIL, or NULL.
 */
const cs_expect_entry_t *cs_expect_apply(cs_expect_t *x, cs_result_t *r);

/* After the run's last result: mark every entry that matched cases but
 * was shown by none as XPASS (its xpass = 1), but those given --shows
 * sometimes. Returns how many are. */
size_t cs_expect_finish(cs_expect_t *x);

/* The reason of XPASS entry e, for the report: "entry NAME (FILE:LINE,
 * check C) selected N cases of this run and none failed by its check: the
 * defect no longer shows, or the entry selects the wrong cases; finding
 * docs/findings/F". */
void cs_expect_xpass_reason(const cs_expect_t *x, const cs_expect_entry_t *e,
			    char *buf, size_t n);

#endif /* CS_EXPECT_H */
