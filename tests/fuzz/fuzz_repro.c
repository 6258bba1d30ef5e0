/*
 * fuzz_repro.c - re-run lines: the command cs_repro_format writes for a
 * case, split into words as a shell does and parsed by cs_run_parse_args.
 *
 * Input, first byte even: any text, taken as a re-run line ("collspec run
 * ARGS", or just ARGS); it is split and parsed, which must not crash or
 * leak.
 * First byte odd: the round trip. The next bytes pick a world size W
 * (1..16), a case of the quick suite at W, a seed and a count for it, and
 * the backend and --backend-opt strings (any bytes but NUL, separated by a
 * NUL). When the command line accepts that backend and option (a run
 * could report a case with them), the case's re-run line must split into
 * words, start with "collspec run", parse, name that backend, option,
 * suite and world size, and its filters must select exactly that case from
 * the quick suite.
 */
#include <stdlib.h>
#include <string.h>
#include "base/repro.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "fuzz.h"

#define MAX_W 16

/* The quick suite at world size W (1..MAX_W), built once. */
static const cs_hcase_t *quick_suite(int W, size_t *n)
{
	static cs_hcase_t *cases[MAX_W + 1];
	static size_t ncases[MAX_W + 1];

	if (!cases[W] &&
	    cs_suite_build("quick", W, NULL, &cases[W], &ncases[W]) != CS_OK)
		cs_fuzz_fail("the quick suite at %d ranks: %s", W,
			     cs_last_error());
	*n = ncases[W];
	return cases[W];
}

/*
 * Split line into words (*argc, *argv: the caller frees them with
 * cs_fuzz_free_words after it is done with o, which points into them) and
 * parse the words after "collspec" into o; *rc is what the parser
 * returned. 0, or -1 when the line does not split.
 */
static int parse_line(const char *line, cs_run_opts_t *o, int *rc, int *argc,
		      char ***argv)
{
	char **a;
	int skip = 0;

	if (cs_fuzz_split(line, argc, argv))
		return -1;
	if (*argc > 0 && !strcmp((*argv)[0], "collspec"))
		skip = 1;
	if (*argc > skip && !strcmp((*argv)[skip], "run")) {
		*rc = cs_run_parse_args(*argc - skip, *argv + skip, o);
		return 0;
	}
	/* words without "run": parse them as run's arguments */
	*rc = 2;
	a = calloc((size_t)*argc + 2, sizeof *a);
	if (a) {
		a[0] = "run";
		memcpy(a + 1, *argv, (size_t)*argc * sizeof *a);
		*rc = cs_run_parse_args(*argc + 1, a, o);
	}
	free(a);
	return 0;
}

static void any_line(const uint8_t *data, size_t size)
{
	static cs_run_opts_t o;
	char *line = cs_fuzz_str(data, size), **argv;
	int rc, argc;

	o.wargs = NULL;
	if (line && parse_line(line, &o, &rc, &argc, &argv) == 0) {
		free(o.wargs);
		cs_fuzz_free_words(argc, argv);
	}
	free(line);
}

#define SAME(field)                                                            \
	CS_FUZZ_CHECK(got->field == want->field, "re-run line '%s' selects "   \
		      "a case whose " #field " differs", line)

static void same_case(const cs_hcase_t *got, const cs_hcase_t *want,
		      const char *line)
{
	SAME(c.coll);
	SAME(c.dtype);
	SAME(c.op);
	SAME(c.mode);
	SAME(c.nranks);
	SAME(c.root);
	SAME(c.count);
	SAME(c.seed);
	SAME(c.a2av_gap);
	SAME(inplace);
	SAME(comm);
	SAME(misalign);
	SAME(a2av_pattern);
}

/* The line parsed into o selects exactly case want at world size W. */
static void selects(const cs_run_opts_t *o, const cs_hcase_t *want, int W,
		    const char *line)
{
	cs_hcase_t *got = NULL;
	size_t n = 0;

	CS_FUZZ_CHECK(o->nsizes == 1 && o->sizes[0] == W, "re-run line '%s' "
		      "does not name world size %d alone", line, W);
	CS_FUZZ_CHECK(!strcmp(o->suite, "quick"), "re-run line '%s' names "
		      "suite '%s'", line, o->suite);
	CS_FUZZ_CHECK(cs_suite_build(o->suite, W, &o->f, &got, &n) == CS_OK,
		      "re-run line '%s': the suite does not build: %s", line,
		      cs_last_error());
	CS_FUZZ_CHECK(n == 1, "re-run line '%s' selects %zu cases", line, n);
	same_case(&got[0], want, line);
	free(got);
}

/* 1 when `collspec run --backend be --backend-opt opt` parses. */
static int accepted(const char *be, const char *opt)
{
	static cs_run_opts_t o;
	char *argv[] = {"run", "--backend", (char *)be, "--backend-opt",
			(char *)opt, NULL};
	int rc = cs_run_parse_args(5, argv, &o);

	free(o.wargs);
	return rc == 0;
}

/* Round trip of case hc at W on backend be with option opt. */
static void round_trip(const cs_hcase_t *hc, int W, const char *be,
		       const char *opt)
{
	static cs_run_opts_t o;
	int len = cs_repro_format(hc, W, be, opt, "quick", NULL, 0), rc = -1;
	int argc;
	char *line, **argv;

	CS_FUZZ_CHECK(len > 0, "cs_repro_format returned %d", len);
	line = malloc((size_t)len + 1);
	if (!line)
		return;
	CS_FUZZ_CHECK(cs_repro_format(hc, W, be, opt, "quick", line,
				      (size_t)len + 1) == len,
		      "cs_repro_format: two lengths for one line");
	CS_FUZZ_CHECK(!strncmp(line, "collspec run ", 13), "re-run line '%s' "
		      "does not start with 'collspec run'", line);
	o.wargs = NULL;
	CS_FUZZ_CHECK(parse_line(line, &o, &rc, &argc, &argv) == 0,
		      "re-run line '%s' is not one shell command", line);
	CS_FUZZ_CHECK(rc == 0, "re-run line '%s' does not parse (%d)", line, rc);
	CS_FUZZ_CHECK(!strcmp(o.backend, be), "re-run line '%s' names backend "
		      "'%s', want '%s'", line, o.backend, be);
	CS_FUZZ_CHECK(!strcmp(o.backend_opt, opt), "re-run line '%s' names "
		      "--backend-opt '%s', want '%s'", line, o.backend_opt, opt);
	selects(&o, hc, W, line);
	free(o.wargs);
	cs_fuzz_free_words(argc, argv);
	free(line);
}

/* Bytes d[0..n) as an unsigned number (little-endian, missing bytes 0). */
static uint64_t take(const uint8_t **d, size_t *size, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n && *size; i++, (*size)--)
		v |= (uint64_t)*(*d)++ << (8 * i);
	return v;
}

static void case_line(const uint8_t *d, size_t size)
{
	const cs_hcase_t *cases;
	cs_hcase_t hc;
	size_t n, k;
	char *be, *opt;
	uint64_t count;
	int W = 1 + (int)(take(&d, &size, 1) % MAX_W);

	cases = quick_suite(W, &n);
	k = take(&d, &size, 2) % n;
	hc = cases[k];
	if (take(&d, &size, 1) & 1) /* another seed */
		hc.c.seed = take(&d, &size, 8);
	count = take(&d, &size, 4);
	if (count & 1) /* another count, below 2^31 */
		hc.c.count = (size_t)(count >> 1);
	be = cs_fuzz_str(d, size);
	k = be ? strlen(be) + 1 : size;
	opt = cs_fuzz_str(d + (k < size ? k : size), k < size ? size - k : 0);
	if (be && opt && accepted(be, opt))
		round_trip(&hc, W, be, opt);
	free(opt);
	free(be);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		case_line(data + 1, size - 1);
	else
		any_line(data + 1, size - 1);
	return 0;
}
