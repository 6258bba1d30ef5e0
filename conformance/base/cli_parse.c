/*
 * cli_parse.c - the small parsers of collspec's command lines: counts with
 * k/m/g suffixes, bounded integers, seeds, timeouts, rank lists, comma
 * lists of catalog names into bit masks. Each accepts exactly the text its
 * contract (cli_parse.h) describes and names the problem otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "csref/pattern.h"

cs_status_t cs_parse_count(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	if (!s || *s < '0' || *s > '9') /* strtoull would take " -1" */
		return cs_error(CS_ERR_INVALID, "count '%s': not a number",
				s ? s : "");
	v = strtoull(s, &end, 10);
	if (end == s)
		return cs_error(CS_ERR_INVALID, "count '%s': not a number", s);
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	else if (*end == 'g' || *end == 'G')
		shift = 30, end++;
	if (*end)
		return cs_error(CS_ERR_INVALID, "count '%s': unexpected '%s'", s,
				end);
	if (errno == ERANGE || v > (SIZE_MAX >> shift))
		return cs_error(CS_ERR_OVERFLOW, "count '%s' does not fit in a "
				"size_t", s);
	*out = (size_t)v << shift;
	return CS_OK;
}

/* A decimal integer from lo >= 0 to hi: digits only (no sign, no space). */
cs_status_t cs_parse_int(const char *what, const char *s, long lo, long hi,
			     long *out)
{
	char *end;
	long v = 0;

	errno = 0;
	if (s && *s >= '0' && *s <= '9')
		v = strtol(s, &end, 10);
	if (!s || *s < '0' || *s > '9' || *end || errno || v < lo || v > hi)
		return cs_error(CS_ERR_INVALID, "%s '%s': expected an integer "
				"from %ld to %ld (decimal digits only)", what,
				s ? s : "", lo, hi);
	*out = v;
	return CS_OK;
}

/* --seed: decimal, or hexadecimal after 0x; digits only, 0 to 2^64-1. */
cs_status_t cs_parse_seed(const char *s, uint64_t *out)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	const char *set = hex ? "0123456789abcdefABCDEF" : "0123456789";
	unsigned long long v;

	errno = 0;
	if (!*digits || strspn(digits, set) != strlen(digits))
		return cs_error(CS_ERR_INVALID, "--seed '%s': expected a decimal "
				"number, or a hexadecimal one after 0x (digits "
				"only: no sign, no space)", s);
	v = strtoull(digits, NULL, hex ? 16 : 10);
	if (errno == ERANGE)
		return cs_error(CS_ERR_INVALID, "--seed '%s': above 2^64-1", s);
	*out = v;
	return CS_OK;
}

/* --timeout: seconds, finite, above 0 and at most CS_CLI_MAX_TIMEOUT. */
cs_status_t cs_parse_timeout(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = (*s >= '0' && *s <= '9') || *s == '.' ? strtod(s, &end) : 0;
	if (v > 0 && v <= CS_CLI_MAX_TIMEOUT && !*end && !errno) {
		*out = v;
		return CS_OK;
	}
	return cs_error(CS_ERR_INVALID, "--timeout '%s': expected seconds above "
			"0 and at most %g (one day)", s, CS_CLI_MAX_TIMEOUT);
}

/* --backend and --backend-opt: bounded, one line of printable bytes, so
 * that the re-run line carries them whole (result.h). */
int cs_list_has(const char *list, const char *w, size_t n)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");

		if (len == n && !strncmp(list, w, n))
			return 1;
		list += len + (list[len] == ',');
	}
	return 0;
}

cs_status_t cs_check_text(const char *what, const char *s, size_t max)
{
	size_t i, len = strlen(s);

	if (len > max)
		return cs_error(CS_ERR_INVALID, "%s: %zu bytes, more than the "
				"%zu this collspec accepts", what, len, max);
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return cs_error(CS_ERR_INVALID, "%s: control character "
					"0x%02x at byte %zu; only printable "
					"characters are accepted", what,
					(unsigned char)s[i], i);
	return CS_OK;
}

/* One item of a --ranks list: "N" or "A-B". */
static cs_status_t ranks_item(const char *item, int *sizes, int max, int *n)
{
	const char *dash = strchr(item, '-');
	char a[256]; /* a whole list fits (cs_parse_ranks) */
	long lo, hi, v;

	if (dash && (size_t)(dash - item) < sizeof a) {
		memcpy(a, item, (size_t)(dash - item));
		a[dash - item] = '\0';
		if (cs_parse_int("--ranks range start", a, 1, 65536, &lo) ||
		    cs_parse_int("--ranks range end", dash + 1, 1, 65536, &hi))
			return cs_error(CS_ERR_INVALID, "--ranks: malformed range "
					"'%s' (expected A-B with 1 <= A <= B)", item);
	} else if (cs_parse_int("--ranks", item, 1, 65536, &lo) == CS_OK) {
		hi = lo;
	} else {
		return cs_error(CS_ERR_INVALID, "--ranks: '%s' is not a rank count "
				"(1 or more) or a range A-B", item);
	}
	if (lo > hi)
		return cs_error(CS_ERR_INVALID, "--ranks: malformed range '%s' "
				"(start above end)", item);
	for (v = lo; v <= hi; v++) {
		int i;

		if (*n == max)
			return cs_error(CS_ERR_INVALID, "--ranks: more than %d "
					"world sizes", max);
		for (i = 0; i < *n; i++)
			if (sizes[i] == (int)v)
				return cs_error(CS_ERR_INVALID, "--ranks: world "
						"size %ld is listed twice (each "
						"may appear once)", v);
		sizes[(*n)++] = (int)v;
	}
	return CS_OK;
}

cs_status_t cs_parse_ranks(const char *spec, int *sizes, int max, int *n)
{
	char buf[256], *tok, *save = NULL;
	cs_status_t st;

	*n = 0;
	if (!spec || !*spec)
		return cs_error(CS_ERR_INVALID, "--ranks: expected N, A-B or a "
				"comma list of them");
	if (strlen(spec) >= sizeof buf)
		return cs_error(CS_ERR_INVALID, "--ranks: %zu bytes, more "
				"than the %zu accepted", strlen(spec),
				sizeof buf - 1);
	snprintf(buf, sizeof buf, "%s", spec);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
		return cs_error(CS_ERR_INVALID, "--ranks '%s': empty item", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if ((st = ranks_item(tok, sizes, max, n)) != CS_OK)
			return st;
	return CS_OK;
}

/* Name parsers with one signature, for comma lists. */
#define NAME_PARSER(fn, type, parse)                                          \
	cs_status_t fn(const char *s, int *v)                                 \
	{                                                                     \
		type x;                                                       \
		cs_status_t st = parse(s, &x);                                \
		*v = (int)x;                                                  \
		return st;                                                    \
	}
NAME_PARSER(cs_name_coll, cs_coll_t, cs_coll_parse)
NAME_PARSER(cs_name_dtype, cs_dtype_t, cs_dtype_parse)
NAME_PARSER(cs_name_op, cs_op_t, cs_op_parse)
NAME_PARSER(cs_name_mode, cs_mode_t, cs_mode_parse)
NAME_PARSER(cs_name_comm, cs_commvar_t, cs_commvar_parse)
NAME_PARSER(cs_name_a2av, cs_a2av_pattern_t, cs_a2av_parse)
#undef NAME_PARSER

/* A pattern of the registry (csref/pattern.h), by name: its index. */
cs_status_t cs_name_pattern(const char *s, int *v)
{
	char list[256];
	size_t used = 0;
	const cs_pattern_t *p = cs_pattern_find(s);

	if (p) {
		*v = cs_pattern_index(p);
		return CS_OK;
	}
	list[0] = '\0';
	for (size_t i = 0; (p = cs_pattern_at(i)) && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used,
					 "%s%s", i ? " " : "", p->name);
	return cs_error(CS_ERR_INVALID, "unknown pattern '%s'; valid "
			"patterns: %s", s, list);
}

/* A comma list with an empty item (strtok_r would skip it, and "," would
 * select everything). */
static cs_status_t empty_item(const char *what, const char *arg)
{
	size_t len = strlen(arg);

	if (len && arg[0] != ',' && arg[len - 1] != ',' && !strstr(arg, ",,"))
		return CS_OK;
	return cs_error(CS_ERR_INVALID, "%s '%s': empty item", what, arg);
}

/* A comma list of names into a bit mask (0 stays "all" only when empty). */
cs_status_t cs_parse_mask(const char *arg, cs_name_parser_t one,
			      uint32_t *mask)
{
	char buf[CS_CLI_MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;
	int v;

	if (!*arg || strlen(arg) > CS_CLI_MAX_LIST)
		return cs_error(CS_ERR_INVALID, "a list of names must hold 1 to "
				"%d bytes; got %zu", CS_CLI_MAX_LIST, strlen(arg));
	if ((st = empty_item("list", arg)) != CS_OK)
		return st;
	snprintf(buf, sizeof buf, "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if ((st = one(tok, &v)) != CS_OK)
			return st;
		*mask |= 1u << v;
	}
	return CS_OK;
}

cs_status_t cs_parse_counts(const char *arg, cs_filter_t *f)
{
	char buf[CS_CLI_MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;

	if (!*arg || strlen(arg) > CS_CLI_MAX_LIST)
		return cs_error(CS_ERR_INVALID, "--count: the list must hold 1 "
				"to %d bytes; got %zu", CS_CLI_MAX_LIST, strlen(arg));
	if ((st = empty_item("--count", arg)) != CS_OK)
		return st;
	snprintf(buf, sizeof buf, "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (f->ncounts == (int)(sizeof f->counts / sizeof f->counts[0]))
			return cs_error(CS_ERR_INVALID, "--count: at most %zu "
					"counts", sizeof f->counts /
					sizeof f->counts[0]);
		if ((st = cs_parse_count(tok, &f->counts[f->ncounts])) != CS_OK)
			return st;
		f->ncounts++;
	}
	return CS_OK;
}
