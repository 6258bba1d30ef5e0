/*
 * hcase.c - the harness case's helpers (hcase.h): filters, and the
 * pattern of a pattern case.
 */
#include <stdio.h>
#include <string.h>
#include "base/hcase.h"

void cs_filter_init(cs_filter_t *f)
{
	memset(f, 0, sizeof *f);
	f->inplace = -1;
	f->root = -1;
	f->misalign = -1;
}

const cs_pattern_t *cs_hcase_pattern(const cs_hcase_t *hc)
{
	return hc->pattern > 0 ? cs_pattern_at((size_t)hc->pattern - 1)
			       : NULL;
}

const char *cs_hcase_variant(const cs_hcase_t *hc)
{
	const cs_pattern_t *p = cs_hcase_pattern(hc);
	if (!p || hc->pvariant < 0 || hc->pvariant >= p->nvariants)
		return "?";
	return p->variants[hc->pvariant];
}

void cs_hcase_pattern_label(const cs_hcase_t *hc, char *buf, size_t n)
{
	const cs_pattern_t *p = cs_hcase_pattern(hc);
	snprintf(buf, n, "pattern %s/%s", p ? p->name : "?",
		 cs_hcase_variant(hc));
}
