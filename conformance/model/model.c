/*
 * model.c - `collspec model`: the dispatch to --fit and --train and the
 * table of the cost model
 * (csref/cost.h) over collectives, algorithms, world sizes and sizes.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/commands.h"
#include "base/cli_parse.h"
#include "model/model.h"

static const char model_usage[] =
"usage: collspec model [--coll L] [--algo L] [--ranks L] [--bytes L]\n"
"                      [--alpha US] [--bw GBPS] [--gamma-bw GBPS] [--json]\n"
"       collspec model --fit BENCH.json [--holdout K] [--plain | --algo A]\n"
"                      [--json]\n"
"       collspec model --train [options]   (collspec model --train --help)\n"
"\n"
"The alpha-beta-gamma cost of each collective and algorithm (docs/model.md):\n"
"T = a(P) alpha + b(P) n beta + g(P) n gamma, n the call's size in bytes as\n"
"nccl-tests counts it (allgather, reducescatter, alltoall: the whole buffer\n"
"of P blocks).\n"
"\n"
"  --coll L      collectives (default allreduce,allgather,reducescatter,\n"
"                broadcast,reduce,alltoall; sendrecv too)\n"
"  --algo L      ring tree rd rhd binomial direct pairwise linear (default\n"
"                all; a pair the model lacks is skipped, rd and rhd need P\n"
"                a power of two)\n"
"  --ranks L     world sizes: 8, 2-16, 2,4,8 (default 8)\n"
"  --bytes L     sizes n, k/m/g = 2^10/2^20/2^30 (default 1m)\n"
"  --alpha US    latency alpha in microseconds (default 1)\n"
"  --bw GBPS     link bandwidth 1/beta in GB/s, 10^9 B/s (default 10)\n"
"  --gamma-bw GBPS  reduction speed 1/gamma in GB/s (default 100; inf: free)\n"
"  --json        one object per line: coll algo nranks bytes alpha_us\n"
"                bw_GBps gamma_GBps a b g time_us formula\n"
"\n"
"--fit reads collspec bench --json lines and fits alpha and beta per series\n"
"and collective (collspec model --fit --help).\n";

/* ---- the table -------------------------------------------------------- */

#define MAX_BYTES 64

struct table_args {
	int colls[CS_NUM_COLLS], ncoll;
	int algos[CS_NUM_ALGOS], nalgo;
	int ranks[CS_MAX_SIZES], nranks;
	double bytes[MAX_BYTES];
	int nbytes, json;
	cs_model_machine_t mm;
};

/* A comma list of names (each by parse) into out[0..*n). */
static cs_status_t parse_names(const char *opt, const char *arg,
			       cs_status_t (*parse)(const char *, int *),
			       int *out, int max, int *n)
{
	char buf[CS_CLI_MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;

	if (!*arg || strlen(arg) > CS_CLI_MAX_LIST || strstr(arg, ",,") ||
	    arg[0] == ',' || arg[strlen(arg) - 1] == ',')
		return cs_error(CS_ERR_INVALID, "%s '%s': expected a comma list "
				"of names", opt, arg);
	snprintf(buf, sizeof buf, "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return cs_error(CS_ERR_INVALID, "%s: at most %d names",
					opt, max);
		if ((st = parse(tok, &out[*n])) != CS_OK)
			return st;
		(*n)++;
	}
	return CS_OK;
}

static cs_status_t algo_name(const char *s, int *v)
{
	cs_algo_t a;
	cs_status_t st = cs_algo_parse(s, &a);

	*v = (int)a;
	return st;
}

/* --bytes: a comma list of cs_parse_count sizes. */
static cs_status_t parse_bytes(const char *arg, double *out, int *n)
{
	char buf[CS_CLI_MAX_LIST + 1], *tok, *save = NULL;
	size_t v;

	if (!*arg || strlen(arg) > CS_CLI_MAX_LIST || strstr(arg, ",,") ||
	    arg[0] == ',' || arg[strlen(arg) - 1] == ',')
		return cs_error(CS_ERR_INVALID, "--bytes '%s': expected a comma "
				"list of sizes", arg);
	snprintf(buf, sizeof buf, "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_BYTES)
			return cs_error(CS_ERR_INVALID, "--bytes: at most %d "
					"sizes", MAX_BYTES);
		if (cs_parse_count(tok, &v) != CS_OK ||
		    v > (size_t)1 << 50)
			return cs_error(CS_ERR_INVALID, "--bytes '%s': expected "
					"sizes from 0 to 2^50, digits with k, m "
					"or g", tok);
		out[(*n)++] = (double)v;
	}
	return CS_OK;
}

static void table_defaults(struct table_args *a)
{
	static const cs_coll_t dflt[] = {
		CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER,
		CS_COLL_BROADCAST, CS_COLL_REDUCE, CS_COLL_ALLTOALL};
	int i;

	memset(a, 0, sizeof *a);
	for (i = 0; i < (int)(sizeof dflt / sizeof dflt[0]); i++)
		a->colls[a->ncoll++] = (int)dflt[i];
	for (i = 0; i < CS_NUM_ALGOS; i++)
		a->algos[a->nalgo++] = i;
	a->ranks[a->nranks++] = 8;
	a->bytes[a->nbytes++] = 1048576;
	cs_model_machine_defaults(&a->mm);
}

/* One option of the table at argv[*i]; -1 after an error message. */
static int table_opt(int argc, char **argv, int *i, struct table_args *a)
{
	const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	cs_status_t st;
	int r;

	if ((r = cs_model_machine_opt(argc, argv, i, &a->mm)) != 0)
		return r;
	if (!strcmp(o, "--json")) {
		a->json = 1;
		return 1;
	}
	if (!v || (strcmp(o, "--coll") && strcmp(o, "--algo") &&
		   strcmp(o, "--ranks") && strcmp(o, "--bytes"))) {
		fprintf(stderr, "collspec model: unexpected argument '%s'%s "
			"(see collspec model --help)\n", o,
			v ? "" : " or a value missing");
		return -1;
	}
	if (!strcmp(o, "--coll"))
		st = parse_names(o, v, cs_name_coll, a->colls, CS_NUM_COLLS,
				 &a->ncoll);
	else if (!strcmp(o, "--algo"))
		st = parse_names(o, v, algo_name, a->algos, CS_NUM_ALGOS,
				 &a->nalgo);
	else if (!strcmp(o, "--ranks"))
		st = cs_parse_ranks(v, a->ranks, CS_MAX_SIZES, &a->nranks);
	else
		st = parse_bytes(v, a->bytes, &a->nbytes);
	if (st != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return -1;
	}
	*i += 1;
	return 1;
}

static void print_row(const struct table_args *a, cs_coll_t coll,
		      cs_algo_t algo, int P, double n,
		      const cs_cost_coef_t *c, double t)
{
	const char *f = cs_cost_formula(coll, algo);

	if (a->json)
		printf("{\"coll\":\"%s\",\"algo\":\"%s\",\"nranks\":%d,"
		       "\"bytes\":%.0f,\"alpha_us\":%.10g,\"bw_GBps\":%.10g,"
		       "\"gamma_GBps\":%.10g,\"a\":%.10g,\"b\":%.10g,"
		       "\"g\":%.10g,\"time_us\":%.10g,\"formula\":\"%s\"}\n",
		       cs_coll_name(coll), cs_algo_name(algo), P, n,
		       a->mm.alpha_us, a->mm.bw_GBps,
		       isinf(a->mm.gamma_GBps) ? 0 : a->mm.gamma_GBps,
		       c->a, c->b, c->g, t * 1e6, f);
	else
		printf("%-13s %-8s %5d %12.0f %14.3f  %s\n", cs_coll_name(coll),
		       cs_algo_name(algo), P, n, t * 1e6, f);
}

/* Every (coll, algo, P, n) the model defines; 0 rows is an error. */
static int print_table(const struct table_args *a)
{
	cs_cost_params_t m = cs_model_params(&a->mm);
	cs_cost_coef_t c;
	int ci, ai, ri, bi, rows = 0;

	if (!a->json)
		printf("# alpha %g us, bw %g GB/s, gamma-bw %g GB/s\n"
		       "%-13s %-8s %5s %12s %14s  %s\n", a->mm.alpha_us,
		       a->mm.bw_GBps, a->mm.gamma_GBps, "coll", "algo", "P",
		       "bytes", "time_us", "formula");
	for (ci = 0; ci < a->ncoll; ci++)
		for (ai = 0; ai < a->nalgo; ai++)
			for (ri = 0; ri < a->nranks; ri++) {
				cs_coll_t coll = (cs_coll_t)a->colls[ci];
				cs_algo_t algo = (cs_algo_t)a->algos[ai];

				if (cs_cost_coef(coll, algo, a->ranks[ri],
						 &c) != CS_OK)
					continue;
				for (bi = 0; bi < a->nbytes; bi++, rows++)
					print_row(a, coll, algo, a->ranks[ri],
						  a->bytes[bi], &c,
						  cs_cost_eval(&c, &m,
							       a->bytes[bi]));
			}
	if (rows)
		return 0;
	/* nothing defined: say why for the first combination asked */
	cs_cost_coef((cs_coll_t)a->colls[0], (cs_algo_t)a->algos[0],
		     a->ranks[0], &c);
	fprintf(stderr, "collspec model: nothing to print: %s\n",
		cs_last_error());
	return 2;
}

static int has_arg(int argc, char **argv, const char *opt)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], opt))
			return 1;
	return 0;
}

int cs_cmd_model(int argc, char **argv)
{
	struct table_args a;
	int i, r;

	if (has_arg(argc, argv, "--fit") && has_arg(argc, argv, "--train")) {
		fprintf(stderr, "collspec model: --fit and --train exclude "
			"each other\n");
		return 2;
	}
	if (has_arg(argc, argv, "--fit"))
		return cs_model_fit_main(argc, argv);
	if (has_arg(argc, argv, "--train"))
		return cs_model_train_main(argc, argv);
	if (has_arg(argc, argv, "--help") || has_arg(argc, argv, "-h")) {
		fputs(model_usage, stdout);
		return 0;
	}
	table_defaults(&a);
	for (i = 1; i < argc; i++)
		if ((r = table_opt(argc, argv, &i, &a)) < 0)
			return 2;
	return print_table(&a);
}
