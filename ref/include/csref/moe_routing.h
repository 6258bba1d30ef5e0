/*
 * moe_routing.h - the MoE pattern's routing as data (spec/patterns.md
 * section 5.9): for one instance of the `moe` pattern, which expert each
 * token's top-k slots chose, which slots the capacity dropped, and how
 * many rows each rank dispatches to each other rank. It is the routing
 * the pattern runs (p_moe.c computes its volumes through it), exposed for
 * `collspec explain --pattern moe` and the teaching pages.
 */
#ifndef CSREF_MOE_ROUTING_H
#define CSREF_MOE_ROUTING_H

#include <stdint.h>
#include "csref/catalog.h"
#include "csref/grid.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One instance's routing. Arrays are the routing's own; free them with
 * cs_moe_routing_free. Rank indices are ep-group ranks. */
typedef struct cs_moe_routing {
	int P;          /* ep ranks */
	int E;          /* experts, e per rank: expert i lives on rank i / e */
	int e, tau, k;  /* experts per rank, tokens per rank, top-k */
	int64_t C;      /* capacity per (source rank, expert) */
	int pad;        /* 1: mode pad (alltoall of C rows per block) */
	int *expert;    /* [P][tau k]: the expert slot j of token t chose */
	int *pos;       /* [P][tau k]: its place among the expert's kept
			   rows from that rank, or -1 when dropped */
	int64_t *routed, *kept; /* [P][E]: chosen, kept per (rank, expert) */
	int64_t *m;     /* [P][P]: kept rows rank s dispatches to rank d */
	char *arena;
} cs_moe_routing_t;

/*
 * The routing of instance inst of the `moe` pattern, variant v (an index
 * of its variants), dtype d and seed, on grid (whose ep axis gives P), as
 * every rank of the pattern computes it. CS_OK; CS_ERR_INVALID for a
 * variant or dtype the pattern does not have; CS_ERR_NOMEM.
 */
cs_status_t cs_moe_routing(int v, cs_dtype_t d, uint64_t seed,
			   const cs_grid_t *grid, int inst,
			   cs_moe_routing_t *out);

void cs_moe_routing_free(cs_moe_routing_t *r);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_MOE_ROUTING_H */
