/*
 * model.h - `collspec model` (issue 11, docs/model.md): the cost model's
 * table (model.c), --fit of alpha and beta to collspec bench's JSON lines
 * (model_fit.c, with its reader of conformance/base/bench_rec.h's records) and
 * the training calculator --train (model_train.c).
 */
#ifndef CS_MODEL_H
#define CS_MODEL_H

#include <stddef.h>
#include "base/bench_rec.h"
#include "csref/cost.h"

/* --fit and --train, called by cs_cmd_model with the same argv. */
int cs_model_fit_main(int argc, char **argv);
int cs_model_train_main(int argc, char **argv);

/* The machine options every mode takes: --alpha US, --bw GBPS,
 * --gamma-bw GBPS (defaults 1 us, 10 GB/s, 100 GB/s; "inf" for a free
 * reduction). */
typedef struct cs_model_machine {
	double alpha_us, bw_GBps, gamma_GBps;
} cs_model_machine_t;

void cs_model_machine_defaults(cs_model_machine_t *mm);

/* When argv[*i] is one of the machine options, parse its value, advance
 * *i past it and return 1 (or -1 after printing an error naming the
 * option); 0 when it is not one of them. */
int cs_model_machine_opt(int argc, char **argv, int *i,
			 cs_model_machine_t *mm);

/* The model's parameters in seconds and seconds per byte. */
cs_cost_params_t cs_model_params(const cs_model_machine_t *mm);

/* A finite number from lo to hi (strtod's syntax, the whole text; "inf"
 * when hi is infinite); CS_ERR_INVALID naming opt otherwise. */
cs_status_t cs_model_parse_num(const char *opt, const char *s, double lo,
			       double hi, double *out);

/*
 * One line of collspec bench's --json (bench_rec.h: one object, the 23
 * keys each once, no other key, no trailing text) into *r. CS_ERR_INVALID
 * with a message naming the key or the column where it went wrong.
 */
cs_status_t cs_bench_rec_parse(const char *line, cs_bench_rec_t *r);

/* The fit of one (series, collective) of a bench file. */
typedef struct cs_model_fit {
	char series[64];
	cs_coll_t coll;
	int plain;            /* time = alpha + beta n, not a formula's */
	cs_algo_t algo;       /* the formula's algorithm (not plain) */
	int pmin, pmax;       /* world sizes of its records */
	size_t used, held;    /* records fitted, records held out */
	double alpha_s, beta_s;
	double mean_err, max_err; /* relative, on the held-out records */
} cs_model_fit_t;

/*
 * Fit every (series, collective) of the bench file path: every holdout-th
 * distinct size (1-based; 0: none) held out. fits[0..*n) receives at most
 * max; a group that cannot be fitted is reported on stderr and left out.
 * CS_ERR_IO / CS_ERR_INVALID (a malformed line: file and line named) /
 * CS_ERR_NOMEM; CS_ERR_INVALID too when no group could be fitted.
 */
cs_status_t cs_model_fit_file(const char *path, int plain, int algo_set,
			      cs_algo_t algo, int holdout,
			      cs_model_fit_t *fits, size_t max, size_t *n);

#endif /* CS_MODEL_H */
