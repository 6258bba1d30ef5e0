/*
 * fuzz_count.c - counts: cs_parse_count on one count, and --count lists
 * through cs_run_parse_args, against a model of the grammar.
 *
 * The grammar (collspec run --help, docs/running.md): a count is one or
 * more decimal digits, then at most one suffix k/K, m/M or g/G (times
 * 1024, 1024^2, 1024^3); it is an error (CS_ERR_OVERFLOW) when the value
 * does not fit in a size_t, and a syntax error (CS_ERR_INVALID) when it is
 * not of that form. A --count list is one or more counts separated by
 * commas, no item empty, at most 32 of them.
 */
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "fuzz.h"

#define MAX_COUNTS ((int)(sizeof ((cs_filter_t *)0)->counts / sizeof(size_t)))

/*
 * The model of one count in s[0..len): 0 and the value, -1 for a syntax
 * error, -2 when it does not fit. Digits are accumulated exactly in 128
 * bits, saturating at 2^80, far above SIZE_MAX.
 */
static int model_count(const char *s, size_t len, size_t *out)
{
	/* (the cap, shifted by 30 bits at most, stays below 2^128) */
	unsigned __int128 v = 0, cap = (unsigned __int128)1 << 80;
	size_t i = 0, digits = 0;
	int shift = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > cap)
			v = cap;
	}
	if (digits == 0)
		return -1;
	if (i < len && strchr("kK", s[i]))
		shift = 10, i++;
	else if (i < len && strchr("mM", s[i]))
		shift = 20, i++;
	else if (i < len && strchr("gG", s[i]))
		shift = 30, i++;
	if (i != len || memchr(s, '\0', len))
		return -1;
	v <<= shift;
	if (v > (unsigned __int128)SIZE_MAX)
		return -2;
	*out = (size_t)v;
	return 0;
}

static void one_count(const char *s)
{
	size_t got = 0, want = 0;
	cs_status_t st = cs_parse_count(s, &got);
	int m = model_count(s, strlen(s), &want);

	CS_FUZZ_CHECK(m != 0 || (st == CS_OK && got == want),
		      "count '%s': want %zu, got status %d value %zu", s, want,
		      st, got);
	CS_FUZZ_CHECK(m != -1 || st == CS_ERR_INVALID,
		      "count '%s': a syntax error, got status %d value %zu", s,
		      st, got);
	CS_FUZZ_CHECK(m != -2 || st == CS_ERR_OVERFLOW,
		      "count '%s': overflows, got status %d value %zu", s, st,
		      got);
}

/* The model of a --count list: the number of counts (into want[]), or -1
 * when the list is refused. */
static int model_list(const char *s, size_t *want)
{
	const char *p = s, *comma;
	size_t len;
	int n = 0;

	if (strlen(s) >= 1024) /* run.c's limit on one list */
		return -1;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (n == MAX_COUNTS || model_count(p, len, &want[n]) != 0)
			return -1;
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

static void count_list(const char *s)
{
	size_t want[MAX_COUNTS];
	char *argv[] = {"run", "--count", (char *)s, NULL};
	cs_run_opts_t o;
	int rc = cs_run_parse_args(3, argv, &o), n = model_list(s, want), i;

	free(o.wargs);
	CS_FUZZ_CHECK((rc == 0) == (n >= 0), "--count '%s': model says %s, "
		      "cs_run_parse_args returned %d", s, n >= 0 ? "valid" :
		      "invalid", rc);
	if (rc)
		return;
	CS_FUZZ_CHECK(o.f.ncounts == n, "--count '%s': %d counts, want %d", s,
		      o.f.ncounts, n);
	for (i = 0; i < n; i++)
		CS_FUZZ_CHECK(o.f.counts[i] == want[i], "--count '%s': count %d "
			      "is %zu, want %zu", s, i, o.f.counts[i], want[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = cs_fuzz_str(data, size);

	if (!s)
		return 0;
	one_count(s);
	count_list(s);
	free(s);
	return 0;
}
