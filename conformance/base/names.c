/*
 * names.c - the names of the harness's enumerations (names.h): one table
 * per enumeration, from its X-macro list, read both ways.
 */
#include <stdio.h>
#include <string.h>
#include "base/names.h"

struct hname {
	const char *name, *desc;
};

#define CS_HNAME_(ID, name, desc) {#name, desc},
static const struct hname commvars[] = {CS_COMMVAR_LIST(CS_HNAME_)};
static const struct hname a2avs[] = {CS_A2AV_LIST(CS_HNAME_)};
#undef CS_HNAME_

/* in cs_verdict_t's order (names.h says what each means) */
static const struct hname verdicts[CS_NUM_VERDICTS] = {
	{"PASS", NULL}, {"INFO", NULL}, {"SKIP", NULL}, {"WARN", NULL},
	{"FAIL", NULL}, {"XFAIL", NULL}, {"XPASS", NULL}};

const char *cs_commvar_name(cs_commvar_t v)
{
	return (unsigned)v < CS_NUM_COMMVARS ? commvars[v].name : "?";
}

const char *cs_commvar_desc(cs_commvar_t v)
{
	return (unsigned)v < CS_NUM_COMMVARS ? commvars[v].desc : "?";
}

const char *cs_a2av_name(cs_a2av_pattern_t p)
{
	return (unsigned)p < CS_NUM_A2AV ? a2avs[p].name : "?";
}

const char *cs_a2av_desc(cs_a2av_pattern_t p)
{
	return (unsigned)p < CS_NUM_A2AV ? a2avs[p].desc : "?";
}

const char *cs_verdict_name(cs_verdict_t v)
{
	return (unsigned)v < CS_NUM_VERDICTS ? verdicts[v].name : "?";
}

/* Index of name in table[0..n), or an error listing the valid names. */
static cs_status_t find_name(const char *what, const char *name,
			     const struct hname *table, int n, int *out)
{
	char list[256];
	size_t used = 0;
	int i;

	for (i = 0; name && i < n; i++) {
		if (strcmp(table[i].name, name) == 0) {
			*out = i;
			return CS_OK;
		}
	}
	list[0] = '\0';
	for (i = 0; i < n && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used,
					 "%s%s", i ? " " : "", table[i].name);
	return cs_error(CS_ERR_INVALID, "unknown %s '%s'; valid %ss: %s", what,
			name ? name : "(null)", what, list);
}

cs_status_t cs_commvar_parse(const char *s, cs_commvar_t *out)
{
	int i = 0;
	cs_status_t st = find_name("comm variant", s, commvars,
				   CS_NUM_COMMVARS, &i);

	if (st == CS_OK)
		*out = (cs_commvar_t)i;
	return st;
}

cs_status_t cs_a2av_parse(const char *s, cs_a2av_pattern_t *out)
{
	int i = 0;
	cs_status_t st = find_name("alltoallv pattern", s, a2avs, CS_NUM_A2AV,
				   &i);

	if (st == CS_OK)
		*out = (cs_a2av_pattern_t)i;
	return st;
}

cs_status_t cs_verdict_parse(const char *s, cs_verdict_t *out)
{
	int i = 0;
	cs_status_t st = find_name("verdict", s, verdicts, CS_NUM_VERDICTS, &i);

	if (st == CS_OK)
		*out = (cs_verdict_t)i;
	return st;
}
