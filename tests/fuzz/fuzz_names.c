/*
 * fuzz_names.c - the name parsers (cs_coll_parse, cs_dtype_parse,
 * cs_op_parse, cs_mode_parse, cs_commvar_parse, cs_a2av_parse,
 * cs_verdict_parse) and the comma lists of --coll, --dtype, --op, --mode,
 * --comm and --a2av-pattern through cs_run_parse_args.
 *
 * The model is the list of names, enumerated from the name functions: a
 * parser accepts exactly those strings, and the value it returns is the
 * one whose name is the string. A list option accepts one or more names
 * separated by commas, no item empty, shorter than 1024 bytes, and sets
 * exactly the bits of the values named.
 *
 * Input: the first byte picks the parser, the rest (to a NUL) is the text.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/a2av.h"
#include "base/names.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "fuzz.h"

struct kind {
	const char *what, *opt;  /* opt: the run option, or NULL */
	int n;                   /* values 0..n-1 have names */
	const char *(*name)(int v);
	cs_status_t (*parse)(const char *s, int *v);
	size_t mask_off;         /* offset of the mask in cs_filter_t */
};

/* One signature for the name functions and parsers of each kind. */
#define KIND_FNS(k, type, namefn, parsefn)                                    \
	static const char *k##_name(int v) { return namefn((type)v); }        \
	static cs_status_t k##_parse(const char *s, int *v)                   \
	{                                                                     \
		type x = (type)0;                                             \
		cs_status_t st = parsefn(s, &x);                              \
		*v = (int)x;                                                  \
		return st;                                                    \
	}
KIND_FNS(coll, cs_coll_t, cs_coll_name, cs_coll_parse)
KIND_FNS(dtype, cs_dtype_t, cs_dtype_name, cs_dtype_parse)
KIND_FNS(op, cs_op_t, cs_op_name, cs_op_parse)
KIND_FNS(mode, cs_mode_t, cs_mode_name, cs_mode_parse)
KIND_FNS(comm, cs_commvar_t, cs_commvar_name, cs_commvar_parse)
KIND_FNS(a2av, cs_a2av_pattern_t, cs_a2av_name, cs_a2av_parse)
KIND_FNS(verdict, cs_verdict_t, cs_verdict_name, cs_verdict_parse)
#undef KIND_FNS

#define MASK(field) offsetof(cs_filter_t, field)
static const struct kind kinds[] = {
	{"collective", "--coll", CS_NUM_COLLS, coll_name, coll_parse,
	 MASK(colls)},
	{"dtype", "--dtype", CS_NUM_DTYPES, dtype_name, dtype_parse,
	 MASK(dtypes)},
	/* "none" (CS_OP_NONE) is an op name too */
	{"op", "--op", CS_OP_NONE + 1, op_name, op_parse, MASK(ops)},
	{"mode", "--mode", CS_NUM_MODES, mode_name, mode_parse, MASK(modes)},
	{"comm", "--comm", CS_NUM_COMMVARS, comm_name, comm_parse,
	 MASK(comms)},
	{"alltoallv pattern", "--a2av-pattern", CS_NUM_A2AV, a2av_name,
	 a2av_parse, MASK(a2av)},
	{"verdict", NULL, CS_NUM_VERDICTS, verdict_name, verdict_parse, 0},
};
#undef MASK
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The value named s[0..len), or -1. */
static int model_name(const struct kind *k, const char *s, size_t len)
{
	int v;

	for (v = 0; v < k->n; v++)
		if (strlen(k->name(v)) == len && !memcmp(k->name(v), s, len))
			return v;
	return -1;
}

static void one_name(const struct kind *k, const char *s)
{
	int want = model_name(k, s, strlen(s)), got = -1;
	cs_status_t st = k->parse(s, &got);

	CS_FUZZ_CHECK((st == CS_OK) == (want >= 0), "%s '%s': the model says "
		      "%s, the parser returned %d", k->what, s, want >= 0 ?
		      "valid" : "invalid", st);
	CS_FUZZ_CHECK(st != CS_OK || got == want, "%s '%s': parsed as %d, "
		      "want %d", k->what, s, got, want);
}

/* The mask a list names, or -1 when it is refused. */
static long long model_list(const struct kind *k, const char *s)
{
	const char *p = s, *comma;
	long long mask = 0;
	size_t len;
	int v;

	if (strlen(s) >= 1024)
		return -1;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if ((v = model_name(k, p, len)) < 0)
			return -1;
		mask |= 1ll << v;
		if (!comma)
			return mask;
		p = comma + 1;
	}
}

static void name_list(const struct kind *k, const char *s)
{
	char *argv[] = {"run", (char *)k->opt, (char *)s, NULL};
	long long want = model_list(k, s);
	cs_run_opts_t o;
	uint32_t got;
	int rc = cs_run_parse_args(3, argv, &o);

	free(o.wargs);
	CS_FUZZ_CHECK((rc == 0) == (want >= 0), "%s '%s': the model says %s, "
		      "cs_run_parse_args returned %d", k->opt, s, want >= 0 ?
		      "valid" : "invalid", rc);
	if (rc)
		return;
	memcpy(&got, (const char *)&o.f + k->mask_off, sizeof got);
	CS_FUZZ_CHECK(got == (uint32_t)want, "%s '%s': mask 0x%x, want 0x%llx",
		      k->opt, s, (unsigned)got, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kind *k;
	char *s;

	if (size < 1)
		return 0;
	k = &kinds[data[0] % NKINDS];
	s = cs_fuzz_str(data + 1, size - 1);
	if (!s)
		return 0;
	one_name(k, s);
	if (k->opt)
		name_list(k, s);
	free(s);
	return 0;
}
