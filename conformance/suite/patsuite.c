/*
 * patsuite.c - the `patterns` suite's case list (patsuite.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite/patsuite.h"

/* 1 when case (pattern i, variant v, dtype d) passes the filter. */
static int kept(const cs_filter_t *f, size_t i, const cs_pattern_t *p,
		int v, cs_dtype_t d)
{
	char why[128];
	if (f->patterns && !(f->patterns & (1u << i)))
		return 0;
	if (f->variant[0] && strcmp(f->variant, p->variants[v]) != 0)
		return 0;
	if (f->dtypes && !(f->dtypes & (1u << d)))
		return 0;
	return !p->accepts || p->accepts(v, d, why, sizeof why);
}

/* Visit every kept case: count them (out NULL) or write them. */
static size_t visit(int world, const cs_filter_t *f, cs_hcase_t *out)
{
	size_t k = 0;
	const cs_pattern_t *p;
	for (size_t i = 0; (p = cs_pattern_at(i)) != NULL; i++)
		for (int v = 0; v < p->nvariants; v++)
			for (int t = 0; t < p->ndtypes; t++) {
				if (!kept(f, i, p, v, p->dtypes[t]))
					continue;
				if (out) {
					cs_hcase_t *hc = &out[k];
					memset(hc, 0, sizeof *hc);
					hc->c.coll = CS_NUM_COLLS;
					hc->c.op = CS_NUM_OPS;
					hc->c.dtype = p->dtypes[t];
					hc->c.nranks = world;
					hc->c.seed = f->has_seed ? f->seed : 1;
					hc->comm = CS_COMM_WORLD;
					hc->pattern = (int)i + 1;
					hc->pvariant = v;
					hc->index = k;
				}
				k++;
			}
	return k;
}

/* CS_OK when f->variant is "" or names a variant of a selected pattern. */
static cs_status_t variant_ok(const cs_filter_t *f)
{
	const cs_pattern_t *p;
	if (!f->variant[0])
		return CS_OK;
	for (size_t i = 0; (p = cs_pattern_at(i)) != NULL; i++) {
		if (f->patterns && !(f->patterns & (1u << i)))
			continue;
		for (int v = 0; v < p->nvariants; v++)
			if (!strcmp(p->variants[v], f->variant))
				return CS_OK;
	}
	return cs_error(CS_ERR_INVALID, "--variant %s: no selected pattern "
			"has that variant (see collspec list)",
			f->variant);
}

cs_status_t cs_patsuite_build(int world, const cs_filter_t *f,
			      cs_hcase_t **out, size_t *n)
{
	cs_status_t st = variant_ok(f);
	if (st != CS_OK)
		return st;
	*out = NULL;
	*n = visit(world, f, NULL);
	if (!*n)
		return CS_OK;
	*out = malloc(*n * sizeof **out);
	if (!*out)
		return cs_error(CS_ERR_NOMEM, "suite patterns: out of memory");
	visit(world, f, *out);
	return CS_OK;
}
