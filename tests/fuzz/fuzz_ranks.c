/*
 * fuzz_ranks.c - world-size lists: cs_parse_ranks, and --ranks through
 * cs_run_parse_args, against a model of the grammar.
 *
 * The grammar (collspec run --help): a comma list, no item empty, of items
 * N or A-B where N, A and B are decimal numbers from 1 to 65536 and
 * A <= B; the list is shorter than 256 bytes and names at most
 * CS_MAX_SIZES world sizes in all (ranges expanded), each at most once, in
 * the order given.
 */
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "run/run_args.h"
#include "fuzz.h"

/* A decimal number from 1 to 65536 in s[0..len), or -1. */
static long model_num(const char *s, size_t len)
{
	long v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
		if (v > 65536)
			return -1;
	}
	return v >= 1 ? v : -1;
}

/* One item into want[*n..] (seen[v]: v is listed already); -1 when it is
 * refused. */
static int model_item(const char *s, size_t len, int *want, int *n,
		      unsigned char *seen)
{
	const char *dash = memchr(s, '-', len);
	long lo, hi, v;

	if (dash) {
		lo = model_num(s, (size_t)(dash - s));
		hi = model_num(dash + 1, len - (size_t)(dash - s) - 1);
	} else {
		lo = hi = model_num(s, len);
	}
	if (lo < 0 || hi < 0 || lo > hi)
		return -1;
	for (v = lo; v <= hi; v++) {
		if (*n == CS_MAX_SIZES || seen[v])
			return -1;
		seen[v] = 1;
		want[(*n)++] = (int)v;
	}
	return 0;
}

/* The model of a list: the number of sizes (into want[]), or -1. */
static int model_ranks(const char *s, int *want)
{
	static unsigned char seen[65537];
	const char *p = s, *comma;
	size_t len;
	int n = 0;

	if (!*s || strlen(s) >= 256)
		return -1;
	memset(seen, 0, sizeof seen);
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (model_item(p, len, want, &n, seen))
			return -1;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

static void compare(const char *how, const char *s, int rc, const int *got,
		    int ngot, const int *want, int nwant)
{
	int i;

	CS_FUZZ_CHECK((rc == 0) == (nwant >= 0), "%s '%s': the model says %s, "
		      "the parser returned %d", how, s, nwant >= 0 ? "valid" :
		      "invalid", rc);
	if (rc)
		return;
	CS_FUZZ_CHECK(ngot == nwant, "%s '%s': %d sizes, want %d", how, s, ngot,
		      nwant);
	for (i = 0; i < nwant; i++)
		CS_FUZZ_CHECK(got[i] == want[i], "%s '%s': size %d is %d, want "
			      "%d", how, s, i, got[i], want[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int want[CS_MAX_SIZES], got[CS_MAX_SIZES];
	static cs_run_opts_t o;
	char *s = cs_fuzz_str(data, size), *opt;
	char *argv[3] = {"run", NULL, NULL};
	int n, ngot = 0, rc;

	if (!s)
		return 0;
	n = model_ranks(s, want);
	rc = cs_parse_ranks(s, got, CS_MAX_SIZES, &ngot);
	compare("cs_parse_ranks", s, rc, got, ngot, want, n);
	/* the same list as --ranks=LIST */
	opt = malloc(strlen(s) + sizeof "--ranks=");
	if (opt) {
		strcpy(opt, "--ranks=");
		strcat(opt, s);
		argv[1] = opt;
		rc = cs_run_parse_args(2, argv, &o);
		free(o.wargs);
		compare("--ranks=", s, rc, o.sizes, o.nsizes, want, n);
	}
	free(opt);
	free(s);
	return 0;
}
