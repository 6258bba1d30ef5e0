/*
 * cost.h - the alpha-beta-gamma cost model of the collectives (issue 11,
 * docs/model.md): the time of one call of a collective by one algorithm
 * on P ranks for n bytes, and the least-squares fit of alpha and beta to
 * measured times. Pure arithmetic: no MPI, no allocation.
 *
 * Every formula has the form
 *
 *     T = a(P) alpha + b(P) n beta + g(P) n gamma
 *
 * with alpha the start-up time of one message (s), beta the time per byte
 * on a link (s/byte, 1 / bandwidth) and gamma the time per byte of a local
 * reduction (s/byte). n is the call's size as nccl-tests and
 * conformance/base/bench_rec.h give it: count * dtype size for allreduce,
 * broadcast, reduce and sendrecv; count * P * dtype size for allgather
 * (the whole result), reducescatter (the whole input) and alltoall (all a
 * rank sends). The coefficients and their sources are in docs/model.md.
 */
#ifndef CSREF_COST_H
#define CSREF_COST_H

#include <stddef.h>
#include <stdint.h>
#include "csref/catalog.h"
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms of the model. */
typedef enum cs_algo {
	CS_ALGO_RING = 0,  /* ring (pipelined chain for broadcast, reduce) */
	CS_ALGO_TREE,      /* double binary tree / two-tree, pipelined */
	CS_ALGO_RD,        /* recursive doubling; P a power of two */
	CS_ALGO_RHD,       /* recursive halving and doubling (Rabenseifner) */
	CS_ALGO_BINOMIAL,  /* binomial tree, whole message per step */
	CS_ALGO_DIRECT,    /* every message posted at once */
	CS_ALGO_PAIRWISE,  /* P - 1 exchange steps, one peer each */
	CS_ALGO_LINEAR,    /* the root talks to every rank in turn */
	CS_NUM_ALGOS
} cs_algo_t;

/* The machine: seconds, seconds per byte, seconds per byte. */
typedef struct cs_cost_params {
	double alpha, beta, gamma;
} cs_cost_params_t;

/* The coefficients a(P), b(P), g(P) of one formula at one P. */
typedef struct cs_cost_coef {
	double a, b, g;
} cs_cost_coef_t;

/* "ring", ...; "?" when out of range. */
const char *cs_algo_name(cs_algo_t a);

/* One algorithm by name; CS_ERR_INVALID naming the valid ones. */
cs_status_t cs_algo_parse(const char *name, cs_algo_t *out);

/* 1 when the model has a formula for (coll, algo) (allreduce, allgather,
 * reducescatter, broadcast, reduce, alltoall, sendrecv), else 0. */
int cs_cost_defined(cs_coll_t coll, cs_algo_t algo);

/* The algorithm `collspec model --fit` and --train use for coll by
 * default: ring where it is defined, else pairwise (alltoall), direct
 * (sendrecv); CS_NUM_ALGOS when the model has none. */
cs_algo_t cs_cost_default_algo(cs_coll_t coll);

/* The formula of (coll, algo) as text ("2(P-1) alpha + 2(P-1)/P n beta +
 * (P-1)/P n gamma"), or NULL when it is not defined. */
const char *cs_cost_formula(cs_coll_t coll, cs_algo_t algo);

/*
 * The coefficients of (coll, algo) at P ranks into *c. P = 1 costs
 * nothing (all zero). CS_ERR_INVALID when P < 1 or P > 2^20;
 * CS_ERR_UNDEFINED when the model has no such formula, or when the
 * algorithm needs P a power of two (rd, rhd) and P is not.
 */
cs_status_t cs_cost_coef(cs_coll_t coll, cs_algo_t algo, int P,
			 cs_cost_coef_t *c);

/* T = a alpha + b n beta + g n gamma, in seconds. */
double cs_cost_eval(const cs_cost_coef_t *c, const cs_cost_params_t *m,
		    double n);

/* cs_cost_coef then cs_cost_eval into *seconds. */
cs_status_t cs_cost_time(cs_coll_t coll, cs_algo_t algo, int P, double n,
			 const cs_cost_params_t *m, double *seconds);

/*
 * Weighted least squares of y ~ alpha x1 + beta x2 over k points, each
 * weighted by 1/y^2 (so a small message counts as much as a large one:
 * the relative error is minimised). For a formula, x1 = a(P) and
 * x2 = b(P) n; for the plain line time = alpha + beta n, x1 = 1,
 * x2 = n. CS_ERR_INVALID when k < 2, a y is not finite and positive, or
 * the points do not determine both (a singular system).
 */
cs_status_t cs_cost_fit(const double *x1, const double *x2, const double *y,
			size_t k, double *alpha, double *beta);

/*
 * nccl-tests' conventions (its doc/PERFORMANCE.md), the one copy that
 * collspec bench, the GPU bench and the run report use. A call's "size"
 * is count times cs_nccl_size_per_count: the dtype size for allreduce,
 * broadcast, reduce and sendrecv; P times it for allgather,
 * reducescatter, alltoall(v), gather and scatter (the whole gathered or
 * scattered buffer). busbw = algbw times cs_nccl_busbw_factor: 2(P-1)/P
 * for allreduce, (P-1)/P for the gathering and scattering ones, 1 for
 * broadcast, reduce and sendrecv. P < 1 counts as 1.
 */
uint64_t cs_nccl_size_per_count(cs_coll_t c, cs_dtype_t d, int P);
double cs_nccl_busbw_factor(cs_coll_t c, int P);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_COST_H */
