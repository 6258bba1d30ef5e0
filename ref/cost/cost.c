/*
 * cost.c - the alpha-beta-gamma formulas of the collectives (csref/cost.h).
 * One row per (collective, algorithm): its coefficients as a function of P
 * and the formula as text. L = ceil(lg P), q = (P-1)/P; docs/model.md
 * derives each row and names its source.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "csref/cost.h"

static const char *const algo_names[CS_NUM_ALGOS] = {
	"ring", "tree", "rd", "rhd", "binomial", "direct", "pairwise",
	"linear",
};

const char *cs_algo_name(cs_algo_t a)
{
	return (int)a >= 0 && a < CS_NUM_ALGOS ? algo_names[a] : "?";
}

cs_status_t cs_algo_parse(const char *name, cs_algo_t *out)
{
	int i;

	if (!name || !out)
		return cs_error(CS_ERR_INVALID, "algorithm name missing");
	for (i = 0; i < CS_NUM_ALGOS; i++)
		if (!strcmp(name, algo_names[i])) {
			*out = (cs_algo_t)i;
			return CS_OK;
		}
	return cs_error(CS_ERR_INVALID, "unknown algorithm '%s'; valid "
			"algorithms: ring tree rd rhd binomial direct pairwise "
			"linear", name);
}

/* What a row's coefficient is, in terms of P: */
enum term {
	T0,   /* 0 */
	T1,   /* 1 */
	T2,   /* 2 */
	TP1,  /* P - 1 */
	T2P1, /* 2 (P - 1) */
	TL,   /* ceil(lg P) */
	T2L,  /* 2 ceil(lg P) */
	TQ,   /* (P-1)/P */
	T2Q,  /* 2 (P-1)/P */
};

struct row {
	cs_coll_t coll;
	cs_algo_t algo;
	enum term a, b, g;
	int pow2;            /* defined for P a power of two only */
	const char *text;
};

static const struct row rows[] = {
	/* allreduce: Thakur et al. 2005; Patarasuk & Yuan 2009 (ring);
	 * Sanders et al. 2009 (two trees) */
	{CS_COLL_ALLREDUCE, CS_ALGO_RING, T2P1, T2Q, TQ, 0,
	 "2(P-1) alpha + 2(P-1)/P n beta + (P-1)/P n gamma"},
	{CS_COLL_ALLREDUCE, CS_ALGO_TREE, T2L, T2, T1, 0,
	 "2 lgP alpha + 2 n beta + n gamma"},
	{CS_COLL_ALLREDUCE, CS_ALGO_RD, TL, TL, TL, 1,
	 "lgP alpha + lgP n beta + lgP n gamma"},
	{CS_COLL_ALLREDUCE, CS_ALGO_RHD, T2L, T2Q, TQ, 1,
	 "2 lgP alpha + 2(P-1)/P n beta + (P-1)/P n gamma"},
	{CS_COLL_ALLREDUCE, CS_ALGO_BINOMIAL, T2L, T2L, TL, 0,
	 "2 lgP alpha + 2 lgP n beta + lgP n gamma"},
	/* allgather, reducescatter: Thakur et al. 2005; Chan et al. 2007 */
	{CS_COLL_ALLGATHER, CS_ALGO_RING, TP1, TQ, T0, 0,
	 "(P-1) alpha + (P-1)/P n beta"},
	{CS_COLL_ALLGATHER, CS_ALGO_RD, TL, TQ, T0, 1,
	 "lgP alpha + (P-1)/P n beta"},
	{CS_COLL_REDUCESCATTER, CS_ALGO_RING, TP1, TQ, TQ, 0,
	 "(P-1) alpha + (P-1)/P n beta + (P-1)/P n gamma"},
	{CS_COLL_REDUCESCATTER, CS_ALGO_RHD, TL, TQ, TQ, 1,
	 "lgP alpha + (P-1)/P n beta + (P-1)/P n gamma"},
	/* broadcast, reduce: Thakur et al. 2005 (binomial, scatter +
	 * allgather, Rabenseifner's reduce); Sanders et al. 2009 (two-tree);
	 * the chain as a pipelined ring */
	{CS_COLL_BROADCAST, CS_ALGO_RING, TP1, T1, T0, 0,
	 "(P-1) alpha + n beta"},
	{CS_COLL_BROADCAST, CS_ALGO_TREE, TL, T1, T0, 0,
	 "lgP alpha + n beta"},
	{CS_COLL_BROADCAST, CS_ALGO_RHD, T2L, T2Q, T0, 1,
	 "2 lgP alpha + 2(P-1)/P n beta"},
	{CS_COLL_BROADCAST, CS_ALGO_BINOMIAL, TL, TL, T0, 0,
	 "lgP alpha + lgP n beta"},
	{CS_COLL_BROADCAST, CS_ALGO_LINEAR, TP1, TP1, T0, 0,
	 "(P-1) alpha + (P-1) n beta"},
	{CS_COLL_REDUCE, CS_ALGO_RING, TP1, T1, T1, 0,
	 "(P-1) alpha + n beta + n gamma"},
	{CS_COLL_REDUCE, CS_ALGO_TREE, TL, T1, T1, 0,
	 "lgP alpha + n beta + n gamma"},
	{CS_COLL_REDUCE, CS_ALGO_RHD, T2L, T2Q, TQ, 1,
	 "2 lgP alpha + 2(P-1)/P n beta + (P-1)/P n gamma"},
	{CS_COLL_REDUCE, CS_ALGO_BINOMIAL, TL, TL, TL, 0,
	 "lgP alpha + lgP n beta + lgP n gamma"},
	{CS_COLL_REDUCE, CS_ALGO_LINEAR, TP1, TP1, TP1, 0,
	 "(P-1) alpha + (P-1) n beta + (P-1) n gamma"},
	/* alltoall: Thakur et al. 2005 (pairwise); direct: the start-ups
	 * overlap, the bytes share the rank's link */
	{CS_COLL_ALLTOALL, CS_ALGO_DIRECT, T1, TQ, T0, 0,
	 "alpha + (P-1)/P n beta"},
	{CS_COLL_ALLTOALL, CS_ALGO_PAIRWISE, TP1, TQ, T0, 0,
	 "(P-1) alpha + (P-1)/P n beta"},
	/* sendrecv: one exchange, both directions at once */
	{CS_COLL_SENDRECV, CS_ALGO_DIRECT, T1, T1, T0, 0,
	 "alpha + n beta"},
};

#define NUM_ROWS (sizeof rows / sizeof rows[0])

static const struct row *row_of(cs_coll_t coll, cs_algo_t algo)
{
	size_t i;

	for (i = 0; i < NUM_ROWS; i++)
		if (rows[i].coll == coll && rows[i].algo == algo)
			return &rows[i];
	return NULL;
}

int cs_cost_defined(cs_coll_t coll, cs_algo_t algo)
{
	return row_of(coll, algo) != NULL;
}

cs_algo_t cs_cost_default_algo(cs_coll_t coll)
{
	static const cs_algo_t order[] = {CS_ALGO_RING, CS_ALGO_PAIRWISE,
					  CS_ALGO_DIRECT};
	size_t i;

	for (i = 0; i < sizeof order / sizeof order[0]; i++)
		if (row_of(coll, order[i]))
			return order[i];
	return CS_NUM_ALGOS;
}

const char *cs_cost_formula(cs_coll_t coll, cs_algo_t algo)
{
	const struct row *r = row_of(coll, algo);

	return r ? r->text : NULL;
}

/* ceil(lg P) for P >= 1, exactly (no floating-point log). */
static int ceil_lg(int P)
{
	int L = 0;

	while ((1L << L) < P)
		L++;
	return L;
}

static double term_at(enum term t, int P)
{
	switch (t) {
	case T0: return 0;
	case T1: return 1;
	case T2: return 2;
	case TP1: return P - 1;
	case T2P1: return 2.0 * (P - 1);
	case TL: return ceil_lg(P);
	case T2L: return 2.0 * ceil_lg(P);
	case TQ: return (double)(P - 1) / P;
	case T2Q: return 2.0 * (P - 1) / P;
	}
	return 0;
}

cs_status_t cs_cost_coef(cs_coll_t coll, cs_algo_t algo, int P,
			 cs_cost_coef_t *c)
{
	const struct row *r = row_of(coll, algo);

	if (!c)
		return cs_error(CS_ERR_INVALID, "cs_cost_coef: no output");
	if (P < 1 || P > (1 << 20))
		return cs_error(CS_ERR_INVALID, "ranks %d out of range "
				"(1 to %d)", P, 1 << 20);
	if (!r)
		return cs_error(CS_ERR_UNDEFINED, "the model has no %s "
				"algorithm for %s", cs_algo_name(algo),
				cs_coll_name(coll));
	if (r->pow2 && (P & (P - 1)))
		return cs_error(CS_ERR_UNDEFINED, "%s %s needs a power-of-two "
				"number of ranks, not %d", cs_coll_name(coll),
				cs_algo_name(algo), P);
	/* one rank moves nothing: every formula is 0 there */
	c->a = P == 1 ? 0 : term_at(r->a, P);
	c->b = P == 1 ? 0 : term_at(r->b, P);
	c->g = P == 1 ? 0 : term_at(r->g, P);
	return CS_OK;
}

double cs_cost_eval(const cs_cost_coef_t *c, const cs_cost_params_t *m,
		    double n)
{
	return c->a * m->alpha + c->b * n * m->beta + c->g * n * m->gamma;
}

cs_status_t cs_cost_time(cs_coll_t coll, cs_algo_t algo, int P, double n,
			 const cs_cost_params_t *m, double *seconds)
{
	cs_cost_coef_t c;
	cs_status_t st;

	if (!m || !seconds || !(n >= 0) || !isfinite(n))
		return cs_error(CS_ERR_INVALID, "cs_cost_time: bad arguments");
	if ((st = cs_cost_coef(coll, algo, P, &c)) != CS_OK)
		return st;
	*seconds = cs_cost_eval(&c, m, n);
	return CS_OK;
}

/* ---- nccl-tests' conventions ---------------------------------------------- */

uint64_t cs_nccl_size_per_count(cs_coll_t c, cs_dtype_t d, int P)
{
	uint64_t es = cs_dtype_size(d);

	switch (c) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
		return es * (uint64_t)(P > 0 ? P : 1);
	case CS_COLL_ALLREDUCE:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS:
		break;
	}
	return es;
}

double cs_nccl_busbw_factor(cs_coll_t c, int P)
{
	double p = P > 0 ? P : 1;

	switch (c) {
	case CS_COLL_ALLREDUCE:
		return 2.0 * (p - 1) / p;
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
		return (p - 1) / p;
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS:
		break;
	}
	return 1.0;
}
