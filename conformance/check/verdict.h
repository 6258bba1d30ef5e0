/*
 * verdict.h - one rank's verdict for a case (cs_local_t) and the merge of
 * every rank's into the case's result (verdict.c).
 */
#ifndef CS_VERDICT_H
#define CS_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include "csref/compare.h"
#include "csref/stats.h"
#include "base/names.h"
#include "base/result.h"
#include "suite/suite.h"
#include "check/khash.h"

struct cs_run_opts; /* run_args' options: the re-run line needs them */

/* A rank's own verdict for one case, gathered to rank 0 and merged. */
typedef struct cs_local {
	int verdict;           /* cs_verdict_t */
	int prio;              /* order of the check that set it (lower first) */
	int rank;              /* world rank */
	int comm_rank;         /* rank in the communicator */
	char check[32];
	char reason[256];
	char detail[1536];
	uint64_t obs[CS_NUM_OBS];
	uint64_t elems, bytes;
	uint64_t wrong;        /* elements the value check found wrong
				  (collspec bench's #wrong) */
	double seconds;        /* the first call's own time */
	uint64_t peak_rss;     /* suite scale: the peak resident memory of
				  this rank's process over the case, divided
				  by its ranks, bytes; 0 not measured */
	double check_seconds;  /* the first call's checks on this rank
				  (cs_exec_check_call: oracle, comparison,
				  statistics, guards, send buffer) */
	cs_stats_t stats;      /* random-mode float reductions: the statistics
				  of the elements this rank checked against
				  the oracle (merged over ranks and judged by
				  cs_result_merge) */
} cs_local_t;

void cs_local_init(cs_local_t *l, int world_rank, int comm_rank);

/* Record a verdict from check `check` when it is worse than (or as bad as
 * but from an earlier check than) the one held. detail may be NULL. */
void cs_local_set(cs_local_t *l, cs_verdict_t v, const char *check,
		  const char *reason, const char *detail);

/* Order in which checks' verdicts are preferred: the check registry's
 * (check_registry.h, cs_check_priority). */
int cs_check_prio(const char *check);

/* Collectives whose result is the same on every rank. */
int cs_coll_same_everywhere(cs_coll_t c);

/* Identity across the n ranks of one communicator after call k of
 * ncalls, given each comm rank's keyed fingerprints: val[q] of its
 * received values (check/identity.h: NaNs and either-sign zeros
 * canonical), raw[q] of its received bytes. When a value fingerprint
 * differs from comm rank 0's, the first such rank, if it is l's, gets
 * FAIL "identity"; else when a raw one does, the first such rank gets
 * "bitidentity": FAIL when strict (the backend promises bit identity,
 * CS_BACKEND_F_BIT_IDENTICAL), WARN otherwise. */
void cs_identity_verdict(const cs_khash_t *val, const cs_khash_t *raw, int n,
			 int k, int ncalls, int strict, cs_local_t *l);

/*
 * The result of case hc from the n ranks' own verdicts all[0..n) (world
 * rank order): the worst verdict, the implementation profile, totals, and
 * the re-run command for world size n on o's backend.
 */
void cs_result_merge(const struct cs_run_opts *o, const char *backend_name,
		     const cs_hcase_t *hc, const cs_local_t *all, int n,
		     cs_result_t *res);

/* The re-run line of case hc at world size `world` for run options o:
 * cs_repro_format's, with --repeat when o's is not the default. Returns
 * the length it needs; buf is "" when that does not fit in n. */
int cs_run_repro(const struct cs_run_opts *o, const cs_hcase_t *hc, int world,
		 char *buf, size_t n);

#endif /* CS_VERDICT_H */
