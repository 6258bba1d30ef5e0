/*
 * precheck.h - before a case's buffers exist (precheck.c): the variant's
 * split of the world, and whether the backend takes the case.
 */
#ifndef CS_PRECHECK_H
#define CS_PRECHECK_H

#include <stddef.h>
#include "collspec/backend.h"
#include "base/names.h"
#include "suite/suite.h"

/* (color, key) of world rank r of W in communicator variant v, as
 * MPI_Comm_split takes them. */
void cs_commvar_split(cs_commvar_t v, int r, int W, int *color, int *key);

/*
 * 0 when backend b takes case hc on communicator comm of nranks ranks, or
 * 1 with the SKIP reason in reason[0..n): a collective it does not
 * implement, or its supports() declining.
 */
int cs_backend_takes(const cs_backend_t *b, cs_bcomm_t comm,
		     const cs_hcase_t *hc, int nranks, char *reason, size_t n);

#endif /* CS_PRECHECK_H */
