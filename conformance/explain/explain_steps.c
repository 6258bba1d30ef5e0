/*
 * explain_steps.c - `collspec explain COLL --algo NAME --steps` and
 * `--inplace`: the options, the algorithm names, the plan. The steps are
 * run and printed by explain_steps_run.c and drawn by explain_steps_svg.c
 * (explain_steps_text.c writes tokens and ops for both);
 * every op comes from the schedule functions the CUDA kernels and gpu-sim
 * call (csg_nops and csg_get_op of csgpu/sched.h), or for the classic CPU
 * algorithms from csgpu/sched_classic.h; nothing here restates an
 * algorithm. --inplace is explain_inplace.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/names.h"
#include "explain/explain_steps.h"
#include "explain/explain_steps_impl.h"

const char cs_steps_usage[] =
"\n"
"--algo NAME --steps draws algorithm NAME step by step from the schedules\n"
"the kernels run (gpu/include/csgpu/sched.h: ring tree direct pairwise) or\n"
"the classic ones of the cost model (csgpu/sched_classic.h: rd rhd\n"
"binomial; rabenseifner is rhd allreduce): per step who reads what from\n"
"whom, and every rank's buffers. Default 4 ranks, a count of one element\n"
"per chunk; P at most 16. --inplace draws the in-place layouts instead\n"
"(NCCL's and MPI's, the root, alltoallv's displacements and gaps).\n";

/* ---- the algorithms ------------------------------------------------------ */

static const struct cs_st_algo algos[] = {
	{"ring", 0, CSG_ALGO_RING, CS_ALGO_RING},
	{"tree", 0, CSG_ALGO_TREE, CS_ALGO_TREE},
	{"direct", 0, CSG_ALGO_DIRECT, CS_ALGO_DIRECT},
	{"pairwise", 0, CSG_ALGO_PAIRWISE, CS_ALGO_PAIRWISE},
	{"rd", 1, CSG_CL_RD, CS_ALGO_RD},
	{"rhd", 1, CSG_CL_RHD, CS_ALGO_RHD},
	{"rabenseifner", 1, CSG_CL_RHD, CS_ALGO_RHD},
	{"binomial", 1, CSG_CL_BINOMIAL, CS_ALGO_BINOMIAL},
};
#define NALGOS (sizeof algos / sizeof algos[0])

static int row_serves(const struct cs_st_algo *a, cs_coll_t c)
{
	if (!strcmp(a->name, "rabenseifner"))
		return c == CS_COLL_ALLREDUCE;
	return a->classic ? csg_cl_supports((csg_classic_t)a->id, c)
			  : csg_algo_supports((csg_algo_t)a->id, c);
}

/* "ring tree" for coll c, or every name when c is CS_NUM_COLLS. */
static void algo_list(cs_coll_t c, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < NALGOS && at < len; i++)
		if (c == CS_NUM_COLLS || row_serves(&algos[i], c))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? " " : "", algos[i].name);
}

/* The colls algorithm a serves, "allreduce broadcast". */
static void coll_list(const struct cs_st_algo *a, char *buf, size_t len)
{
	size_t at = 0;
	int c;

	buf[0] = 0;
	for (c = 0; c < CS_NUM_COLLS && at < len; c++)
		if (row_serves(a, (cs_coll_t)c))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? " " : "",
					       cs_coll_name((cs_coll_t)c));
}

/* The alltoallv matrix of case c in the plan's form. */
static cs_status_t build_vmat(const cs_case_t *c, struct cs_st_sched *s)
{
	size_t P = (size_t)c->nranks, q, r, *sc, *sd, *rc, *rd;

	s->vm = calloc(7 * P * P + 1, sizeof *s->vm);
	if (!s->vm)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	sc = s->vm + 3 * P * P;
	sd = sc + P;
	rc = sd + P;
	rd = rc + P;
	for (q = 0; q < P; q++) {
		cs_a2av_layout(c, (int)q, sc, sd, rc, rd);
		for (r = 0; r < P; r++) {
			s->vm[q * P + r] = sc[r];
			s->vm[P * P + q * P + r] = sd[r];
			/* rank q receives from r at rd[r] */
			s->vm[2 * P * P + q * P + r] = rd[r];
		}
	}
	return CS_OK;
}

/* The plan of c under algorithm a; CS_OK or the reason. */
static cs_status_t make_sched(const cs_case_t *c, const struct cs_st_algo *a,
			      struct cs_st_sched *s)
{
	csg_vmat_t v = {NULL, NULL, NULL};
	size_t PP = (size_t)c->nranks * (size_t)c->nranks;
	char colls[128];
	cs_status_t st;
	int rc;

	s->a = a;
	s->vm = NULL;
	if (!row_serves(a, c->coll)) {
		coll_list(a, colls, sizeof colls);
		algo_list(c->coll, colls + 64, 64);
		return cs_error(CS_ERR_INVALID, "--algo %s does not run %s (it "
				"runs %s); algorithms for %s: %s", a->name,
				cs_coll_name(c->coll), colls,
				cs_coll_name(c->coll), colls + 64);
	}
	if (c->coll == CS_COLL_ALLTOALLV) {
		if ((st = build_vmat(c, s)) != CS_OK)
			return st;
		v.cnt = s->vm;
		v.sdis = s->vm + PP;
		v.rdis = s->vm + 2 * PP;
	}
	if (a->classic) {
		rc = csg_cl_plan_init(&s->p, c->coll, (csg_classic_t)a->id,
				      c->nranks, c->root, 0, c->count, 1, 1);
		if (rc == CSG_CL_ENOTPOW2)
			return cs_error(CS_ERR_INVALID, "--algo %s needs P a "
					"power of two (P=%d; "
					"gpu/include/csgpu/sched_classic.h "
					"refuses the others)", a->name,
					c->nranks);
	} else {
		rc = csg_plan_init(&s->p, c->coll, (csg_algo_t)a->id,
				   c->nranks, c->root, 0, c->count, 4, 1, 1, v);
	}
	if (rc)
		return cs_error(CS_ERR_INVALID, "no plan for %s by %s at P=%d "
				"root %d", cs_coll_name(c->coll), a->name,
				c->nranks, c->root);
	return CS_OK;
}

/* The steps of case c under algorithm a: the plan, then the run. */
static cs_status_t steps(const cs_case_t *c, const struct cs_st_algo *a,
			 cs_a2av_pattern_t pattern, const char *svg)
{
	struct cs_st_sched s;
	cs_status_t st = make_sched(c, a, &s);

	s.pattern = cs_a2av_name(pattern);
	if (st == CS_OK)
		st = cs_st_draw(c, &s, svg);
	free(s.vm);
	return st;
}

/* ---- options ------------------------------------------------------------- */

int cs_steps_opt(struct cs_steps_opts *o, int argc, char **argv)
{
	if (!strcmp(argv[0], "--steps")) {
		o->steps = 1;
		return 1;
	}
	if (!strcmp(argv[0], "--inplace")) {
		o->inplace = 1;
		return 1;
	}
	if (!strcmp(argv[0], "--algo")) {
		if (argc < 2 || !*argv[1]) {
			cs_error(CS_ERR_INVALID, "--algo needs a name");
			return -1;
		}
		o->algo = argv[1];
		return 2;
	}
	o->count_set |= !strcmp(argv[0], "--count");
	o->ranks_set |= !strcmp(argv[0], "--ranks");
	return 0;
}

/* One element per chunk: the count a picture starts from. */
static size_t default_count(const cs_case_t *c, const struct cs_st_algo *a)
{
	if (c->coll != CS_COLL_ALLREDUCE)
		return 1;
	return a->classic || a->id == CSG_ALGO_RING ? (size_t)c->nranks : 2;
}

static int fail(void)
{
	fprintf(stderr, "collspec explain: %s\n", cs_last_error());
	return 2;
}

int cs_steps_run(const struct cs_steps_opts *o, const cs_case_t *c,
		 cs_a2av_pattern_t pattern, const char *svg)
{
	char names[160];
	cs_case_t cc = *c;
	size_t i, *M = NULL;
	cs_status_t st;

	if (!o->steps && !o->inplace) {
		if (o->algo)
			cs_error(CS_ERR_INVALID, "--algo %s needs --steps",
				 o->algo);
		return o->algo ? fail() : -1;
	}
	if (o->steps && o->inplace) {
		cs_error(CS_ERR_INVALID, "--steps and --inplace draw different "
			 "pictures: give one");
		return fail();
	}
	if (o->inplace && o->algo) {
		cs_error(CS_ERR_INVALID, "--algo goes with --steps, not "
			 "--inplace");
		return fail();
	}
	if (!o->ranks_set)
		cc.nranks = 4;
	if (o->steps && !o->algo) {
		algo_list(c->coll, names, sizeof names);
		cs_error(CS_ERR_INVALID, "--steps needs --algo NAME (for %s: "
			 "%s)", cs_coll_name(c->coll), names);
		return fail();
	}
	for (i = 0; o->algo && i < NALGOS && strcmp(algos[i].name, o->algo);
	     i++)
		;
	if (o->algo && i == NALGOS) {
		algo_list(CS_NUM_COLLS, names, sizeof names);
		cs_error(CS_ERR_INVALID, "--algo: unknown algorithm '%s' "
			 "(valid: %s)", o->algo, names);
		return fail();
	}
	if (cs_coll_rooted(c->coll) && (cc.root < 0 || cc.root >= cc.nranks)) {
		cs_error(CS_ERR_INVALID, "--root %d: out of range 0..%d",
			 cc.root, cc.nranks - 1);
		return fail();
	}
	if (!cs_coll_rooted(c->coll))
		cc.root = 0;
	if (!o->count_set)
		cc.count = o->inplace ? 2 : default_count(&cc, &algos[i]);
	cc.a2av_gap = 1;
	if (cc.coll == CS_COLL_ALLTOALLV) {
		M = malloc((size_t)cc.nranks * (size_t)cc.nranks * sizeof *M);
		if (!M) {
			cs_error(CS_ERR_NOMEM, "out of memory");
			return fail();
		}
		cs_a2av_matrix(pattern, cc.nranks, cc.count, cc.seed, M);
		cc.a2av_counts = M;
	}
	st = cs_case_validate(&cc);
	if (st == CS_OK)
		st = o->inplace ? cs_explain_inplace(&cc, pattern, svg)
				: steps(&cc, &algos[i], pattern, svg);
	free(M);
	return st == CS_OK ? 0 : fail();
}

