/*
 * check_registry.h - the check registry: one row for every check name a result
 * can carry (the `check` column of the table, JSON Lines and JUnit), with
 * the verdicts it can set, its priority when ranks disagree, the failure
 * signature family it belongs to and a description a user can act on.
 *
 * Everything that enumerates check names reads this table: the expectations
 * file's --check (expect.c), the failure signatures (failsig.c), the order
 * in which a rank keeps its verdicts (cs_check_priority) and the table of
 * docs/running.md ("What is checked", `collspec doc-table checks`).
 * tests/conformance/test_checks.c scans the harness's sources and fails
 * when a check name is set there without a row here, or a row is never set.
 */
#ifndef CS_CHECK_REGISTRY_H
#define CS_CHECK_REGISTRY_H

#include <stddef.h>

/* Bit of verdict v in cs_check_info_t.verdicts. */
#define CS_CHECK_V(v) (1u << (unsigned)(v))

/* cs_check_info_t.prio of a check that no rank sets (the driver, the
 * report or the expectations set it on a merged result): it never competes
 * with another rank's check. */
#define CS_CHECK_UNRANKED (-1)

/* Where a check's verdict lives. */
typedef enum cs_check_scope {
	CS_CHECK_CASE, /* one case's result: an expectations entry may name it */
	CS_CHECK_RUN   /* the whole run, before or instead of any case */
} cs_check_scope_t;

/* Failure signature families of the report's summary (failsig.h's
 * CS_SIG_CK_* have these values). */
typedef enum cs_check_family {
	CS_CHECKF_VALUES,   /* the received values are wrong */
	CS_CHECKF_MEMORY,   /* memory outside the result was written */
	CS_CHECKF_IDENTITY, /* ranks disagree on a shared result */
	CS_CHECKF_CRASH,    /* a rank died or hung */
	CS_CHECKF_ERROR,    /* the backend returned an error */
	CS_CHECKF_OTHER,
	CS_CHECK_NFAMILIES
} cs_check_family_t;

/* One check. Strings are static. */
typedef struct cs_check_info {
	const char *name;       /* as it appears in results: "value" */
	unsigned verdicts;      /* CS_CHECK_V(v) for every verdict it sets */
	int prio;               /* 0, 1, ...: when a rank holds verdicts of two
				   checks of the same level, the lower wins
				   (cs_local_set); CS_CHECK_UNRANKED otherwise */
	cs_check_scope_t scope;
	cs_check_family_t family;
	const char *setter;     /* who sets it: "each rank", "the driver", ... */
	const char *desc;       /* one paragraph, no newline: what breaks it */
} cs_check_info_t;

/* Row i of the registry (ranked checks first, in priority order), or NULL
 * for i past the last row. */
const cs_check_info_t *cs_check_at(size_t i);

/* The row of check `name`, or NULL (also for NULL). */
const cs_check_info_t *cs_check_find(const char *name);

/*
 * The rank order of check `name` as cs_local_set compares it: its prio for
 * a ranked check; for an unranked, unknown or empty name (a fresh local
 * verdict holds "") the number of ranked checks, so every ranked check is
 * preferred to it.
 */
int cs_check_priority(const char *name);

/* 1 when an expectations entry may list check c: it can FAIL one case. */
int cs_check_expectable(const cs_check_info_t *c);

/* "FAIL", "FAIL or WARN", ...: c's verdicts, worst first, into buf[n]
 * (NUL-terminated, cut to fit). */
void cs_check_verdicts_text(const cs_check_info_t *c, char *buf, size_t n);

#endif /* CS_CHECK_REGISTRY_H */
