/*
 * validate.c - a run's options checked before any case (validate.h): the
 * driver checks them before it launches anything, and every worker again
 * for its own world size.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "backends/registry.h"
#include "suite/suite.h"
#include "worker/validate.h"
#include "csref/grid.h"

/* path's directory made absolute (symbolic links resolved) and its last
 * component, malloc'ed; NULL when the directory does not resolve. */
static char *canonical_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *real, *out;
	size_t dlen = slash ? (size_t)(slash - path) : 0;

	if (dlen >= sizeof dir)
		return NULL;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	real = realpath(slash ? (dlen ? dir : "/") : ".", NULL);
	if (!real)
		return NULL;
	out = malloc(strlen(real) + strlen(path) + 2);
	if (out)
		sprintf(out, "%s/%s", real, slash ? slash + 1 : path);
	free(real);
	return out;
}

/* 1 when paths a and b name the same file: the same inode when both exist
 * (a character device, such as /dev/null, may be shared), the same
 * canonical path when neither does. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ca, *cb;
	int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0, same;

	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
		       !S_ISCHR(sa.st_mode);
	if (ea || eb)
		return 0;
	ca = canonical_path(a);
	cb = canonical_path(b);
	same = ca && cb ? !strcmp(ca, cb) : !strcmp(a, b);
	free(ca);
	free(cb);
	return same;
}

/* Two outputs of the run on one file would corrupt both: refused. */
static int distinct_outputs(const cs_run_opts_t *o)
{
	const char *path[3] = {o->json, o->junit, o->results};
	static const char *const opt[3] = {"--json", "--junit", "--results"};
	int i, j;

	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (path[i] && path[j] && same_file(path[i], path[j])) {
				fprintf(stderr, "collspec run: %s '%s' and %s "
					"'%s' are the same file: each report "
					"needs its own\n", opt[i], path[i],
					opt[j], path[j]);
				return 0;
			}
	return 1;
}

/* The pattern options: --suite patterns only; the grid fits every world
 * size of the run (P, and each of --ranks). */
static int pattern_opts_ok(const cs_run_opts_t *o, int P)
{
	const char *opt = o->grid ? "--grid" : o->comm_log ? "--comm-log"
		: o->f.patterns ? "--pattern" : o->f.variant[0] ? "--variant"
		: NULL;
	const cs_suite_info_t *si = cs_suite_find(o->suite);
	cs_grid_t g;
	int i;

	if (opt && si && si->kind != CS_SUITE_PATTERNS) {
		fprintf(stderr, "collspec run: %s applies to --suite patterns "
			"only\n", opt);
		return 0;
	}
	for (i = -1; o->grid && i < o->nsizes; i++)
		if (cs_grid_parse(o->grid, i < 0 ? P : o->sizes[i], &g) !=
		    CS_OK) {
			fprintf(stderr, "collspec run: %s\n",
				cs_last_error());
			return 0;
		}
	return 1;
}

int cs_run_opts_ok(const cs_run_opts_t *o, int P)
{
	size_t es = 1;
	int d, i;

	if (!distinct_outputs(o))
		return 0;
	if (cs_suite_check_name(o->suite) != CS_OK) {
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		return 0;
	}
	if (!pattern_opts_ok(o, P))
		return 0;
	if (!cs_backend_known(o->backend)) {
		fprintf(stderr, "collspec run: unknown backend '%s'; valid "
			"backends: %s\n", o->backend, cs_backend_names());
		return 0;
	}
	for (d = 0; d < CS_NUM_DTYPES; d++)
		if ((!o->f.dtypes || (o->f.dtypes >> d & 1)) &&
		    cs_dtype_size((cs_dtype_t)d) > es)
			es = cs_dtype_size((cs_dtype_t)d);
	for (i = 0; i < o->f.ncounts; i++) {
		size_t c = o->f.counts[i];
		if (c > SIZE_MAX / 2 / es / (size_t)P) {
			fprintf(stderr, "collspec run: --count %zu: %zu elements x "
				"%d ranks x %zu bytes overflows a buffer size\n",
				c, c, P, es);
			return 0;
		}
	}
	return 1;
}
