/*
 * failsig.h - failure signatures: the FAIL and XFAIL results of a run
 * grouped by (collective family, dtype family, op family, check family),
 * so that the many failing cases of one defect read as one line of the
 * report's summary, with the collectives, dtypes, ops and checks seen.
 */
#ifndef CS_FAILSIG_H
#define CS_FAILSIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/result.h"

/* The families (names: cs_failsig_family_name). */
enum { CS_SIG_COLL_REDUCING, CS_SIG_COLL_MOVING, CS_SIG_NCOLLF };
enum {
	CS_SIG_DT_INT8, CS_SIG_DT_WIDEINT, CS_SIG_DT_FP8, CS_SIG_DT_FP16,
	CS_SIG_DT_WIDEFP, CS_SIG_NDTYPEF
};
enum { CS_SIG_OP_SUMLIKE, CS_SIG_OP_PROD, CS_SIG_OP_MAXMIN, CS_SIG_OP_NONE,
       CS_SIG_NOPF };
enum {
	CS_SIG_CK_VALUES, CS_SIG_CK_MEMORY, CS_SIG_CK_IDENTITY,
	CS_SIG_CK_CRASH, CS_SIG_CK_ERROR, CS_SIG_CK_OTHER, CS_SIG_NCHECKF
};

/* A result's signature: one family of each part. */
typedef struct cs_failsig_key {
	int coll, dtype, op, check;
} cs_failsig_key_t;

/* The signature of r's case and check. */
void cs_failsig_key(const cs_result_t *r, cs_failsig_key_t *k);

/* Family names: part 0 collective, 1 dtype, 2 op, 3 check; "?" when out
 * of range. */
const char *cs_failsig_family_name(int part, int family);

/* One signature's tallies and the members seen (bit masks: collectives,
 * dtypes, ops with bit CS_OP_NONE, checks by cs_expect_check_name index
 * with bit 31 for any other check). */
typedef struct cs_failsig_row {
	size_t fail, xfail;
	uint32_t colls, dtypes, ops, checks;
} cs_failsig_row_t;

typedef struct cs_failsigs {
	cs_failsig_row_t row[CS_SIG_NCOLLF][CS_SIG_NDTYPEF][CS_SIG_NOPF]
			   [CS_SIG_NCHECKF];
	size_t total;  /* FAIL and XFAIL results added */
} cs_failsigs_t;

/* Count r when its verdict is FAIL or XFAIL; other results are ignored. */
void cs_failsigs_add(cs_failsigs_t *s, const cs_result_t *r);

/* The summary block (nothing when no result was counted): one line per
 * signature, most cases first, with an xfail column when with_xfail, and
 * under it the members seen. */
void cs_failsigs_print(const cs_failsigs_t *s, int with_xfail, FILE *out);

#endif /* CS_FAILSIG_H */
