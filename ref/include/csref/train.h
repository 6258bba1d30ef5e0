/*
 * train.h - the training communication calculator of `collspec model
 * --train` (issue 11, docs/model.md section 4): for a transformer's shape
 * and its DP/TP/PP/EP/CP layout, the collectives one training step makes
 * per group (bytes and estimated time with csref/cost.h's model), the
 * overlap of bucketed gradient reduction with backward compute, and the
 * MoE all-to-all imbalance of a skewed router. Pure arithmetic.
 *
 * Counts are doubles: a parameter or byte count below 2^53 is exact.
 */
#ifndef CSREF_TRAIN_H
#define CSREF_TRAIN_H

#include <stddef.h>
#include "csref/catalog.h"
#include "csref/cost.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model and its layout. Zero means absent for vocab and experts. */
typedef struct cs_train_cfg {
	long layers, hidden, ffn, heads, seq, mbs, vocab;
	long experts, topk;
	double capacity;      /* c_f, > 0 */
	int dp, tp, pp, ep, cp;
	int sp;               /* Megatron sequence parallelism on tp */
	int zero;             /* 0..3 */
	int zero1_rs;         /* zero 1 only: 1 reduces the gradients by
				 reducescatter (the ZeRO paper's ZeRO-1,
				 zero 2's calls), 0 by allreduce */
	double bucket_mb;     /* MiB per gradient bucket */
	long micro_batches;   /* M per step */
	cs_dtype_t dtype;
	double bwd_ms;        /* backward compute of one micro-batch */
	double skew;          /* router skew zeta */
} cs_train_cfg_t;

/* cfg with the defaults of docs/model.md (a small GPT). */
void cs_train_defaults(cs_train_cfg_t *cfg);

/* CS_OK, or CS_ERR_INVALID naming the first field out of range or a
 * layout that does not divide the model (layers % pp, hidden % tp, ...). */
cs_status_t cs_train_check(const cs_train_cfg_t *cfg);

/* 1 when cfg reduces its data-parallel gradients by reducescatter (ZeRO 2,
 * and ZeRO 1 with zero1_rs), 0 when by allreduce or per micro-batch (3). */
int cs_train_rs(const cs_train_cfg_t *cfg);

/* One collective of a step: calls of one size on one group. */
typedef struct cs_train_item {
	const char *group;    /* "dp", "edp", "tp", "pp", "ep", "cp" */
	int P;                /* the group's size */
	cs_coll_t coll;
	const char *phase;    /* "fwd", "bwd", "opt" */
	const char *what;     /* what moves, a few words */
	double calls;         /* per step */
	double size;          /* one call's size n (csref/cost.h), bytes */
	double bytes;         /* per rank per step, spec/patterns.md 3.1 */
	double time_s;        /* calls x the model's time of one call */
} cs_train_item_t;

#define CS_TRAIN_MAX_ITEMS 24
#define CS_TRAIN_MAX_BUCKETS 10000000 /* cs_train_overlap's bucket loop */

/* Parameters on one rank of the first stage (the busiest, it holds the
 * embedding): dense ones (reduced over dp) and expert ones (over edp). */
void cs_train_params(const cs_train_cfg_t *cfg, double *dense,
		     double *expert);

/*
 * The collectives of one step of cfg (checked) into it[0..*n), at most
 * CS_TRAIN_MAX_ITEMS, each timed with model m by cs_cost_default_algo.
 */
cs_status_t cs_train_items(const cs_train_cfg_t *cfg,
			   const cs_cost_params_t *m, cs_train_item_t *it,
			   size_t *n);

/* Bucketed gradient reduction against the backward of the last
 * micro-batch (docs/model.md 4.3). */
typedef struct cs_train_overlap {
	double buckets;
	double comm_s;        /* the buckets' communication, in sum */
	double first_s;       /* when the first bucket starts */
	double end_s;         /* when the last one ends */
	double exposed_s;     /* end_s past the end of backward, or 0 */
} cs_train_overlap_t;

/* The overlap of cfg's dense gradient reduction with buckets of
 * bucket_mb MiB. CS_ERR_UNDEFINED when there is none to overlap (dp 1,
 * or ZeRO-3, which reduces per micro-batch); CS_ERR_INVALID when the
 * buckets would be more than CS_TRAIN_MAX_BUCKETS. */
cs_status_t cs_train_overlap(const cs_train_cfg_t *cfg, double bucket_mb,
			     const cs_cost_params_t *m,
			     cs_train_overlap_t *o);

/* The router's load on the experts (docs/model.md 4.4). */
typedef struct cs_train_moe {
	long tokens;          /* tokens routed: one micro-batch over all ep,
				 at most 2^16 and 2^28 / (topk experts) */
	double imbalance;     /* max over experts of load / (k tokens / E) */
	double dropped;       /* fraction of assignments over capacity */
	double rank_skew;     /* busiest ep rank's load / the mean load */
	long busiest;         /* the expert with the largest load (lowest
				 index among equals) */
} cs_train_moe_t;

/* The MoE load of cfg (experts > 0) at router skew cfg->skew. */
cs_status_t cs_train_moe(const cs_train_cfg_t *cfg, cs_train_moe_t *r);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_TRAIN_H */
