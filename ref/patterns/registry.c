/*
 * registry.c - the patterns there are, in spec/patterns.md section 6's
 * order (csref/pattern.h). Each pattern is one const cs_pattern_t defined
 * in its own file of ref/patterns/.
 */
#include <string.h>
#include "csref/pattern.h"

extern const cs_pattern_t cs_pattern_dp;
extern const cs_pattern_t cs_pattern_zero1;
extern const cs_pattern_t cs_pattern_zero2;
extern const cs_pattern_t cs_pattern_zero3;
extern const cs_pattern_t cs_pattern_fsdp;
extern const cs_pattern_t cs_pattern_tp_col;
extern const cs_pattern_t cs_pattern_tp_mlp;
extern const cs_pattern_t cs_pattern_sp;
extern const cs_pattern_t cs_pattern_ulysses;
extern const cs_pattern_t cs_pattern_ring;
extern const cs_pattern_t cs_pattern_moe;
extern const cs_pattern_t cs_pattern_pp;

static const cs_pattern_t *const all[] = {
	&cs_pattern_dp,
	&cs_pattern_zero1,
	&cs_pattern_zero2,
	&cs_pattern_zero3,
	&cs_pattern_fsdp,
	&cs_pattern_tp_col,
	&cs_pattern_tp_mlp,
	&cs_pattern_sp,
	&cs_pattern_ulysses,
	&cs_pattern_ring,
	&cs_pattern_moe,
	&cs_pattern_pp,
};

const cs_pattern_t *cs_pattern_at(size_t i)
{
	return i < sizeof all / sizeof all[0] ? all[i] : NULL;
}

const cs_pattern_t *cs_pattern_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

int cs_pattern_index(const cs_pattern_t *pat)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i] == pat)
			return (int)i;
	return -1;
}
