/*
 * model_machine.c - the machine options every mode of `collspec model`
 * shares (--alpha, --bw, --gamma-bw), the cost model's parameters they
 * give, and the number parser behind them (model.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"

void cs_model_machine_defaults(cs_model_machine_t *mm)
{
	mm->alpha_us = 1;
	mm->bw_GBps = 10;
	mm->gamma_GBps = 100;
}

cs_cost_params_t cs_model_params(const cs_model_machine_t *mm)
{
	cs_cost_params_t m;

	m.alpha = mm->alpha_us * 1e-6;
	m.beta = 1.0 / (mm->bw_GBps * 1e9);
	m.gamma = isinf(mm->gamma_GBps) ? 0 : 1.0 / (mm->gamma_GBps * 1e9);
	return m;
}

cs_status_t cs_model_parse_num(const char *opt, const char *s, double lo,
			       double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = s && *s ? strtod(s, &end) : NAN;
	if (!s || !*s || *end || errno == ERANGE || isnan(v) || v < lo ||
	    v > hi || (isinf(v) && !isinf(hi)))
		return cs_error(CS_ERR_INVALID, "%s '%s': expected a number "
				"from %g to %g", opt, s ? s : "", lo, hi);
	*out = v;
	return CS_OK;
}

int cs_model_machine_opt(int argc, char **argv, int *i,
			 cs_model_machine_t *mm)
{
	const char *o = argv[*i];
	double *dst = !strcmp(o, "--alpha") ? &mm->alpha_us :
		      !strcmp(o, "--bw") ? &mm->bw_GBps :
		      !strcmp(o, "--gamma-bw") ? &mm->gamma_GBps : NULL;
	double hi = dst == &mm->gamma_GBps ? INFINITY : 1e9;
	double lo = dst == &mm->alpha_us ? 0 : 1e-9;

	if (!dst)
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "collspec model: %s needs a value\n", o);
		return -1;
	}
	if (cs_model_parse_num(o, argv[*i + 1], lo, hi, dst) != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return -1;
	}
	*i += 1;
	return 1;
}
