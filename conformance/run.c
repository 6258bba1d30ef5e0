/*
 * run.c - `collspec run`: argument parsing, the driver launch mode, and the
 * worker: the process (one per rank, under mpiexec or srun) that runs each
 * case on its backend, checks it and merges the ranks' verdicts on rank 0.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mpi.h>
#include <omp.h>
#include "collspec.h"
#include "backend_nccl.h"
#include "csgpu/device.h"
#include "driver.h"
#include "hx.h"

#define MAX_SIZES CS_MAX_SIZES
#define DEFAULT_TIMEOUT 120.0
#define MAX_TIMEOUT 86400.0 /* one day per case */
#define MAX_LIST 1023       /* bytes of one comma list (--coll, --count...) */

static const char run_usage[] =
"usage: collspec run [options]\n"
"\n"
"Run conformance cases on a backend and check every result.\n"
"Under mpiexec/srun every process is one rank; with --ranks (outside a\n"
"launcher) collspec launches mpiexec itself for each world size and turns a\n"
"crash or hang into a FAIL of the case that caused it.\n"
"\n"
"what to test:\n"
"  --backend NAME       one of the backends `collspec list` shows, or\n"
"                       plugin:PATH (default ref)\n"
"  --backend-opt STR    option string given to the backend's init (at\n"
"                       most %d bytes, no control characters)\n"
"  --suite NAME         quick | full (default quick)\n"
"  --ranks SPEC         world sizes: 4, 1-8, 2,4,8 (driver mode)\n"
"filters (comma lists; default: the whole suite):\n"
"  --coll L  --dtype L  --op L  --mode L  --comm L  --a2av-pattern L\n"
"  --count L            element counts (suffixes k, m, g: powers of 1024)\n"
"  --inplace 0|1  --root N  --misalign N\n"
"  --seed N             decimal, or hexadecimal with 0x (0 to 2^64-1)\n"
"checking:\n"
"  --repeat N           call each case N times on the same inputs, with a\n"
"                       call on fresh inputs between each two (default 2)\n"
"reports:\n"
"  --json FILE          JSON Lines, one object per case\n"
"  --junit FILE         JUnit XML (valid also when the run is cut short)\n"
"  --quiet, -q          table rows only for warnings and failures\n"
"  -v, --verbose        more detail (-vv, or repeated, for more)\n"
"  --fail-on-warn       warnings make the exit code 1\n"
"  --expect FILE        known failures (docs/expectations/README.md): a\n"
"                       listed failure is XFAIL, a listed pass XPASS (fails)\n"
"driver:\n"
"  --timeout S          seconds a case may run before it is a hang\n"
"                       (default %g, at most %g)\n"
"  --first K            start at case K of every world size\n"
"  --mpiexec PATH       the launcher (default: the build's MPI's mpiexec,\n"
"                       else mpiexec from PATH)\n"
"worker protocol (used by the driver):\n"
"  --results FILE\n"
"\n"
"exit status: 0 nothing failed (and not everything skipped), 1 failures,\n"
"2 usage or environment error\n";

/* ---- small parsers ------------------------------------------------------- */

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
static cs_status_t parse_int(const char *what, const char *s, long lo, long hi,
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
static cs_status_t parse_seed(const char *s, uint64_t *out)
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

/* --timeout: seconds, finite, above 0 and at most MAX_TIMEOUT. */
static cs_status_t parse_timeout(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = (*s >= '0' && *s <= '9') || *s == '.' ? strtod(s, &end) : 0;
	if (v > 0 && v <= MAX_TIMEOUT && !*end && !errno) {
		*out = v;
		return CS_OK;
	}
	return cs_error(CS_ERR_INVALID, "--timeout '%s': expected seconds above "
			"0 and at most %g (one day)", s, MAX_TIMEOUT);
}

/* --backend and --backend-opt: bounded, one line of printable bytes, so
 * that the re-run line carries them whole (harness.h). */
static cs_status_t check_text(const char *what, const char *s, size_t max)
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
		if (parse_int("--ranks range start", a, 1, 65536, &lo) ||
		    parse_int("--ranks range end", dash + 1, 1, 65536, &hi))
			return cs_error(CS_ERR_INVALID, "--ranks: malformed range "
					"'%s' (expected A-B with 1 <= A <= B)", item);
	} else if (parse_int("--ranks", item, 1, 65536, &lo) == CS_OK) {
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
	static cs_status_t fn(const char *s, int *v)                          \
	{                                                                     \
		type x;                                                       \
		cs_status_t st = parse(s, &x);                                \
		*v = (int)x;                                                  \
		return st;                                                    \
	}
NAME_PARSER(p_coll, cs_coll_t, cs_coll_parse)
NAME_PARSER(p_dtype, cs_dtype_t, cs_dtype_parse)
NAME_PARSER(p_op, cs_op_t, cs_op_parse)
NAME_PARSER(p_mode, cs_mode_t, cs_mode_parse)
NAME_PARSER(p_comm, cs_commvar_t, cs_commvar_parse)
NAME_PARSER(p_a2av, cs_a2av_pattern_t, cs_a2av_parse)
#undef NAME_PARSER

typedef cs_status_t (*name_parser_t)(const char *s, int *v);

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
static cs_status_t parse_mask(const char *arg, name_parser_t one,
			      uint32_t *mask)
{
	char buf[MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;
	int v;

	if (!*arg || strlen(arg) > MAX_LIST)
		return cs_error(CS_ERR_INVALID, "a list of names must hold 1 to "
				"%d bytes; got %zu", MAX_LIST, strlen(arg));
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

static cs_status_t parse_counts(const char *arg, cs_filter_t *f)
{
	char buf[MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;

	if (!*arg || strlen(arg) > MAX_LIST)
		return cs_error(CS_ERR_INVALID, "--count: the list must hold 1 "
				"to %d bytes; got %zu", MAX_LIST, strlen(arg));
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

/* ---- the option table ---------------------------------------------------- */

enum opt_id {
	O_BACKEND, O_BACKEND_OPT, O_SUITE, O_COLL, O_DTYPE, O_OP, O_MODE,
	O_COUNT, O_INPLACE, O_COMM, O_ROOT, O_MISALIGN, O_A2AV, O_SEED,
	O_TIMEOUT, O_JSON, O_JUNIT, O_RANKS, O_RESULTS, O_FIRST, O_MPIEXEC,
	O_FAIL_ON_WARN, O_QUIET, O_VERBOSE, O_REPEAT, O_EXPECT, O_HELP
};

struct opt {
	const char *name;
	int has_arg;
	enum opt_id id;
	int worker; /* handed to the workers in driver mode */
};

static const struct opt opt_table[] = {
	{"--backend", 1, O_BACKEND, 1}, {"--backend-opt", 1, O_BACKEND_OPT, 1},
	{"--suite", 1, O_SUITE, 1}, {"--coll", 1, O_COLL, 1},
	{"--dtype", 1, O_DTYPE, 1}, {"--op", 1, O_OP, 1},
	{"--mode", 1, O_MODE, 1}, {"--count", 1, O_COUNT, 1},
	{"--inplace", 1, O_INPLACE, 1}, {"--comm", 1, O_COMM, 1},
	{"--root", 1, O_ROOT, 1}, {"--misalign", 1, O_MISALIGN, 1},
	{"--a2av-pattern", 1, O_A2AV, 1}, {"--seed", 1, O_SEED, 1},
	{"--timeout", 1, O_TIMEOUT, 0}, {"--json", 1, O_JSON, 0},
	{"--junit", 1, O_JUNIT, 0}, {"--ranks", 1, O_RANKS, 0},
	{"--results", 1, O_RESULTS, 0}, {"--first", 1, O_FIRST, 0},
	{"--mpiexec", 1, O_MPIEXEC, 0}, {"--fail-on-warn", 0, O_FAIL_ON_WARN, 0},
	{"--quiet", 0, O_QUIET, 0}, {"-q", 0, O_QUIET, 0},
	{"--verbose", 0, O_VERBOSE, 1},
	{"--repeat", 1, O_REPEAT, 1},
	{"--expect", 1, O_EXPECT, 0}, /* applied by the report */
	{"--help", 0, O_HELP, 0}, {"-h", 0, O_HELP, 0},
};

static cs_status_t apply_filter_opt(cs_run_opts_t *o, enum opt_id id,
				    const char *v)
{
	cs_filter_t *f = &o->f;
	long x;
	cs_status_t st;

	switch ((int)id) { /* int: the filter options only, apply_opt's go there */
	case O_COLL: return parse_mask(v, p_coll, &f->colls);
	case O_DTYPE: return parse_mask(v, p_dtype, &f->dtypes);
	case O_OP: return parse_mask(v, p_op, &f->ops);
	case O_MODE: return parse_mask(v, p_mode, &f->modes);
	case O_COMM: return parse_mask(v, p_comm, &f->comms);
	case O_A2AV: return parse_mask(v, p_a2av, &f->a2av);
	case O_COUNT: return parse_counts(v, f);
	case O_INPLACE:
		st = parse_int("--inplace", v, 0, 1, &x);
		f->inplace = (int)x;
		return st;
	case O_ROOT:
		st = parse_int("--root", v, 0, 65535, &x);
		f->root = (int)x;
		return st;
	case O_MISALIGN:
		st = parse_int("--misalign", v, 0, 64, &x);
		f->misalign = (int)x;
		return st;
	case O_SEED:
		f->has_seed = 1;
		return parse_seed(v, &f->seed);
	default:
		break;
	}
	return cs_error(CS_ERR_INTERNAL, "internal: option %d is not a case "
			"filter", (int)id);
}

static cs_status_t apply_opt(cs_run_opts_t *o, enum opt_id id, const char *v)
{
	long x;
	cs_status_t st = CS_OK;

	switch ((int)id) { /* int: the filter options are apply_filter_opt's */
	case O_BACKEND:
		st = check_text("--backend", v, CS_BACKEND_MAX);
		o->backend = v;
		break;
	case O_BACKEND_OPT:
		st = check_text("--backend-opt", v, CS_BACKEND_OPT_MAX);
		o->backend_opt = v;
		break;
	case O_SUITE: o->suite = v; break;
	case O_TIMEOUT: st = parse_timeout(v, &o->timeout); break;
	case O_JSON: o->json = v; break;
	case O_JUNIT: o->junit = v; break;
	case O_RANKS: st = cs_parse_ranks(v, o->sizes, MAX_SIZES, &o->nsizes); break;
	case O_RESULTS: o->results = v; break;
	case O_FIRST:
		st = parse_int("--first", v, 0, LONG_MAX, &x);
		o->first = (size_t)x;
		break;
	case O_MPIEXEC: o->mpiexec = v; break;
	case O_EXPECT: o->expect = v; break;
	case O_FAIL_ON_WARN: o->fail_on_warn = 1; break;
	case O_QUIET: o->quiet = 1; break;
	case O_VERBOSE: o->verbose++; break;
	case O_REPEAT:
		st = parse_int("--repeat", v, 1, 100, &x);
		o->repeat = (int)x;
		break;
	default: st = apply_filter_opt(o, id, v); break;
	}
	return st;
}

static const struct opt *find_opt(const char *arg, const char **inline_val)
{
	size_t i, len;

	*inline_val = NULL;
	for (i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++) {
		len = strlen(opt_table[i].name);
		if (strncmp(arg, opt_table[i].name, len) != 0)
			continue;
		if (arg[len] == '\0')
			return &opt_table[i];
		if (arg[len] == '=' && opt_table[i].has_arg) {
			*inline_val = arg + len + 1;
			return &opt_table[i];
		}
	}
	return NULL;
}

/* How many 'v's in -v, -vv, -vvv...; 0 for any other argument. */
static int verbose_flags(const char *arg)
{
	size_t n = strlen(arg);

	if (n < 2 || arg[0] != '-' || strspn(arg + 1, "v") != n - 1)
		return 0;
	return (int)(n - 1);
}

/* Contract in collspec.h. */
int cs_run_parse_args(int argc, char **argv, cs_run_opts_t *o)
{
	int i, nv;

	memset(o, 0, sizeof *o);
	cs_filter_init(&o->f);
	o->backend = "ref";
	o->backend_opt = "";
	o->suite = "quick";
	o->timeout = DEFAULT_TIMEOUT;
	o->repeat = 2;
	o->wargs = calloc((size_t)argc * 2 + 1, sizeof *o->wargs);
	if (!o->wargs)
		return 2;
	for (i = 1; i < argc; i++) {
		const char *v;
		const struct opt *op = find_opt(argv[i], &v);

		if ((nv = verbose_flags(argv[i])) > 0) {
			o->verbose += nv;
			o->wargs[o->nwargs++] = argv[i];
			continue;
		}
		if (!op) {
			fprintf(stderr, "collspec run: unknown option '%s' (see "
				"collspec run --help)\n", argv[i]);
			return 2;
		}
		if (op->id == O_HELP) {
			printf(run_usage, CS_BACKEND_OPT_MAX, DEFAULT_TIMEOUT,
			       MAX_TIMEOUT);
			return -1;
		}
		if (op->has_arg && !v) {
			if (i + 1 >= argc) {
				fprintf(stderr, "collspec run: %s needs a value\n",
					op->name);
				return 2;
			}
			v = argv[++i];
		}
		if (apply_opt(o, op->id, v ? v : "") != CS_OK) {
			fprintf(stderr, "collspec run: %s\n", cs_last_error());
			return 2;
		}
		if (op->worker) {
			o->wargs[o->nwargs++] = (char *)op->name;
			if (op->has_arg)
				o->wargs[o->nwargs++] = (char *)v;
		}
	}
	return 0;
}

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

int cs_run_validate(const cs_run_opts_t *o, int P)
{
	size_t es = 1;
	int d, i;

	if (!distinct_outputs(o))
		return 2;
	if (strcmp(o->suite, "quick") && strcmp(o->suite, "full")) {
		fprintf(stderr, "collspec run: unknown suite '%s'; valid suites: "
			"quick full\n", o->suite);
		return 2;
	}
	if (!cs_backend_known(o->backend)) {
		fprintf(stderr, "collspec run: unknown backend '%s'; valid "
			"backends: %s\n", o->backend, cs_backend_names());
		return 2;
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
			return 2;
		}
	}
	return 0;
}

/* True when this process was started by an MPI launcher. Decided once,
 * at the first call (cs_cmd_run makes it before MPI_Init, which sets some
 * of these variables in a process started without a launcher). */
static int inside_launch(void)
{
	static int launched = -1;

	if (launched < 0)
		launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
			   getenv("PMIX_RANK") ||
			   (getenv("SLURM_PROCID") && getenv("SLURM_STEP_ID"));
	return launched;
}

void cs_run_report_opts(const cs_run_opts_t *o, cs_report_opts_t *ro)
{
	memset(ro, 0, sizeof *ro);
	ro->json = o->json;
	ro->junit = o->junit;
	ro->backend = o->backend;
	ro->suite = o->suite;
	ro->quiet = o->quiet;
	ro->verbose = o->verbose;
	ro->fail_on_warn = o->fail_on_warn;
	ro->expect = o->expect;
	/* under a launcher stdout may be a forwarded pseudo-terminal */
	ro->out = o->out ? o->out : stdout;
	ro->progress = !o->quiet && isatty(fileno(ro->out)) && !inside_launch();
}

/* ---- the worker ------------------------------------------------------------ */

/* One communicator variant: the harness's MPI side and the backend's. */
struct vcomm {
	int ready;        /* 0 not built yet, 1 usable, -1 cases are skipped */
	MPI_Comm comm;
	int rank, size;
	cs_mpiboot_t *boot;
	cs_bcomm_t bcomm;
	char why[256];    /* ready == -1: the skip reason */
};

struct worker {
	const cs_run_opts_t *o;
	const cs_backend_t *b;
	int wrank, wsize;
	int init_called;    /* the backend's init was called here */
	struct vcomm vc[CS_NUM_COMMVARS];
	cs_report_t *rep;   /* rank 0, NULL in results mode */
	FILE *results;      /* rank 0 with --results */
	char backend_name[64];
	/* CS_MEM_CUDA backends */
	char nodev[128];    /* non-empty: every case is SKIP with this reason */
	int dev;            /* the device the backend's init left current */
	void *stream;       /* the harness's stream on it */
};

/* 1 on every rank when ok is true on every rank. */
static int all_ok(int ok)
{
	int all = 0;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	return all;
}

/* The lowest rank whose ok is false prints msg; returns all_ok(ok). */
static int agree(int ok, int wrank, const char *msg)
{
	int me = ok ? INT_MAX : wrank, first = 0;

	MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok && first == wrank)
		fprintf(stderr, "collspec run: %s\n", msg);
	return first == INT_MAX;
}

/* Split the world for variant v, for the harness and for the backend.
 * Collective over the world. */
static void build_vcomm(struct worker *w, cs_commvar_t v)
{
	struct vcomm *vc = &w->vc[v];
	const cs_backend_t *b = w->b;
	int color, key, ok, rc = 0;

	cs_commvar_split(v, w->wrank, w->wsize, &color, &key);
	MPI_Comm_split(MPI_COMM_WORLD, color, key, &vc->comm);
	MPI_Comm_rank(vc->comm, &vc->rank);
	MPI_Comm_size(vc->comm, &vc->size);
	vc->ready = 1;
	if (w->nodev[0]) { /* the backend did not start: nothing to split */
		vc->ready = -1;
		snprintf(vc->why, sizeof vc->why, "%s", w->nodev);
		return;
	}
	if (!b->comm_split) {
		vc->ready = -1;
		snprintf(vc->why, sizeof vc->why, "backend '%s' has no comm_split: "
			 "communicator variant '%s' needs it", b->name,
			 cs_commvar_name(v));
		return;
	}
	ok = cs_boot_create(&vc->comm, &vc->boot) == CS_OK;
	if (ok)
		rc = b->comm_split(w->vc[CS_COMM_WORLD].bcomm, color, key,
				   cs_boot_get(vc->boot), &vc->bcomm);
	snprintf(vc->why, sizeof vc->why, "backend comm_split failed: %s",
		 ok ? b->error_string(w->vc[CS_COMM_WORLD].bcomm, rc)
		    : cs_last_error());
	if (!all_ok(ok && rc == 0)) {
		vc->ready = -1;
		if (ok && rc == 0)
			snprintf(vc->why, sizeof vc->why, "backend comm_split "
				 "failed on another rank");
	}
}

static struct vcomm *get_vcomm(struct worker *w, cs_commvar_t v)
{
	if (!w->vc[v].ready)
		build_vcomm(w, v);
	return &w->vc[v];
}

/* 0 when this rank can run the case, 1 (skip, reason set) otherwise. */
static int precheck(const struct worker *w, const struct vcomm *vc,
		    const cs_hcase_t *hc, char *reason, size_t n)
{
	const cs_backend_t *b = w->b;

	if (w->nodev[0]) {
		snprintf(reason, n, "%s", w->nodev);
		return 1;
	}
	if (vc->ready < 0) {
		snprintf(reason, n, "%s", vc->why);
		return 1;
	}
	return cs_backend_takes(b, vc->bcomm, hc, vc->size, reason, n);
}

/* Call the backend and wait for completion; FAIL "error" on a failure. */
static int call_backend(const struct worker *w, const struct vcomm *vc,
			const cs_exec_t *e, cs_local_t *l)
{
	const cs_backend_t *b = w->b;
	char reason[256];
	int rc = cs_exec_call(e, b, vc->bcomm);

	if (rc == 0)
		rc = b->synchronize(vc->bcomm, e->stream);
	if (rc == 0)
		return 0;
	snprintf(reason, sizeof reason, "rank %d: call %d of %d returned error "
		 "%d: %s", w->wrank, e->call + 1, e->ncalls, rc,
		 b->error_string(vc->bcomm, rc));
	cs_local_set(l, CS_V_FAIL, "error", reason, NULL);
	return rc;
}

/* Copy e's buffers to the device (put) or back; FAIL "harness" when that
 * fails. 0 on success. No-op for host buffers. */
static int move(const struct worker *w, cs_exec_t *e, cs_local_t *l, int put)
{
	char reason[256];

	if ((put ? cs_exec_put(e) : cs_exec_get(e)) == CS_OK)
		return 0;
	snprintf(reason, sizeof reason, "rank %d: %s", w->wrank,
		 cs_last_error());
	cs_local_set(l, CS_V_FAIL, "harness", reason, NULL);
	return -1;
}

/*
 * Cross-rank bitwise identity of what each of the case's first `made`
 * calls received, checked once after the last call: every rank fingerprints the
 * bytes it kept of each call (cs_exec_kept) under a key that comm rank 0
 * draws then, and that reaches every other rank after its own calls
 * returned (khash.c); the fingerprints are compared call by call.
 * Collective over vc: one broadcast and one allgather per case.
 */
static void check_identity(const struct vcomm *vc, const cs_exec_t *e,
			   int made, cs_local_t *l)
{
	size_t K = (size_t)made, P = (size_t)vc->size, n, k, q;
	cs_khash_t key = {{0, 0}}, *mine, *all, *col;
	const void *bytes;

	mine = calloc(K + P * K + P, sizeof *mine);
	if (!mine)
		MPI_Abort(MPI_COMM_WORLD, 2);
	all = mine + K;
	col = all + P * K;
	if (vc->rank == 0 && cs_khash_key(&key) != CS_OK)
		key.h[0] = 0; /* no key: a key is never 0 */
	cs_hx_bcast(key.h, sizeof key.h, 0, vc->comm);
	for (k = 0; k < K; k++)
		if ((bytes = cs_exec_kept(e, (int)k, &n)) != NULL)
			cs_khash(&key, bytes, n, &mine[k]);
	cs_hx_allgather(mine, K * sizeof *mine, all, vc->comm);
	for (k = 0; k < K && key.h[0]; k++) {
		for (q = 0; q < P; q++)
			col[q] = all[q * K + k];
		cs_identity_verdict(col, vc->size, (int)k, e->ncalls, l);
	}
	if (!key.h[0])
		cs_local_set(l, CS_V_FAIL, "harness", "the identity check could "
			     "not draw its key (no random bytes)", NULL);
	free(mine);
}

/*
 * reduce, gather: the root sends what it received to every rank, and each
 * checks its share of it against the oracle (the root alone would take P
 * times as long while the others wait). Nothing to check when the root's
 * call failed, or when its bytes are call 1's on the same inputs. The copy
 * is made by the harness, after the call. Collective over vc.
 */
static void check_root_share(const struct vcomm *vc, cs_exec_t *e,
			     cs_local_t *l, int same, int failed)
{
	int root = e->c.root, skip = vc->rank == root && (failed || same);
	size_t n = cs_case_recv_count(&e->c, root) * cs_dtype_size(e->c.dtype);
	unsigned char *buf = vc->rank == root ? cs_exec_recvp(e) : NULL;

	cs_hx_bcast(&skip, sizeof skip, root, vc->comm);
	if (skip)
		return;
	if (!buf && !(buf = malloc(n ? n : 1)))
		MPI_Abort(MPI_COMM_WORLD, 2);
	cs_hx_bcast(buf, n, root, vc->comm);
	cs_exec_check_root_share(e, buf, l);
	if (vc->rank != root)
		free(buf);
}

/*
 * Call k of the case's n on every rank, checked in full by this rank:
 * inputs, the call, every check of cs_exec_check_call; what it received is
 * kept for the identity check after the last call. No synchronisation
 * beyond the backend's own, except on the first call (a barrier for the
 * timing) and for device memory (inputs in place on every rank, or no
 * call). Returns 1 when the case cannot go on (inputs not in place).
 */
static int one_call(const struct worker *w, const struct vcomm *vc,
		    cs_exec_t *e, cs_local_t *l, int k, int n)
{
	double t0;
	int failed, any, same;

	cs_exec_set_call(e, k, n);
	cs_exec_fill(e);
	failed = move(w, e, l, 1) != 0;
	if (k == 0 || w->stream) {
		any = cs_hx_any(failed, MPI_COMM_WORLD);
		if (any)
			return 1;
	}
	t0 = MPI_Wtime();
	failed = call_backend(w, vc, e, l) != 0;
	if (k == 0)
		l->seconds = MPI_Wtime() - t0;
	failed = failed || move(w, e, l, 0) != 0;
	same = failed ? 0 : cs_exec_check_call(e, l);
	if (e->share_root)
		check_root_share(vc, e, l, same, failed);
	if (cs_coll_same_everywhere(e->c.coll))
		cs_exec_keep(e, l);
	return 0;
}

/* The case's calls (--repeat N: 2N - 1 of them), all made whatever the
 * earlier ones gave, then the identity of every call across ranks. */
static void execute(const struct worker *w, const struct vcomm *vc,
		    cs_exec_t *e, cs_local_t *l)
{
	int k, n = 2 * w->o->repeat - 1;

	e->share_root = (e->c.coll == CS_COLL_REDUCE ||
			 e->c.coll == CS_COLL_GATHER) && vc->size > 1;
	for (k = 0; k < n; k++)
		if (one_call(w, vc, e, l, k, n))
			break;
	if (k > 0 && cs_coll_same_everywhere(e->c.coll))
		check_identity(vc, e, k, l);
}

/* ---- merging the ranks' verdicts ------------------------------------------ */

static void merge(const struct worker *w, const cs_hcase_t *hc,
		  const cs_local_t *l, cs_result_t *res)
{
	cs_local_t *all = NULL;

	if (w->wrank == 0) {
		all = malloc((size_t)w->wsize * sizeof *all);
		if (!all)
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	cs_hx_gather(l, sizeof *l, all, 0, MPI_COMM_WORLD);
	if (w->wrank == 0)
		cs_result_merge(w->o, w->backend_name, hc, all, w->wsize, res);
	free(all);
}

/* One case on every rank; rank 0 ends with the merged result. */
static void run_case(const struct worker *w, struct vcomm *vc,
		     const cs_hcase_t *hc, cs_result_t *res)
{
	cs_exec_t e;
	cs_local_t l;
	char reason[256] = "";
	int code, all;

	cs_local_init(&l, w->wrank, vc->rank);
	code = precheck(w, vc, hc, reason, sizeof reason);
	if (code == 0 && cs_exec_setup(&e, hc, vc->size, vc->rank) != CS_OK) {
		snprintf(reason, sizeof reason, "rank %d: %s", w->wrank,
			 cs_last_error());
		code = 2;
	}
	if (code == 0 && w->stream &&
	    cs_exec_to_device(&e, w->dev, w->stream) != CS_OK) {
		snprintf(reason, sizeof reason, "rank %d: %s", w->wrank,
			 cs_last_error());
		cs_exec_free(&e);
		code = 2;
	}
	all = cs_hx_max(code, MPI_COMM_WORLD);
	if (all == 0)
		execute(w, vc, &e, &l);
	else if (code == 2)
		cs_local_set(&l, CS_V_FAIL, "harness", reason, NULL);
	else if (code == 1 || all == 1)
		cs_local_set(&l, CS_V_SKIP, "skip", reason, NULL);
	if (code == 0)
		cs_exec_free(&e);
	merge(w, hc, &l, res);
}

static void announce(struct worker *w, const cs_hcase_t *hc)
{
	if (w->wrank != 0)
		return;
	if (w->rep)
		cs_report_start(w->rep, hc);
	cs_results_start(w->results, hc, w->backend_name);
}

static void run_cases(struct worker *w, const cs_hcase_t *cases, size_t n)
{
	cs_result_t res;
	size_t i;

	for (i = 0; i < n; i++) {
		if (cases[i].index < w->o->first)
			continue;
		announce(w, &cases[i]);
		run_case(w, get_vcomm(w, cases[i].comm), &cases[i], &res);
		if (w->wrank != 0)
			continue;
		cs_results_line(w->results, &res);
		if (w->rep)
			cs_report_add(w->rep, &res);
	}
}

/* ---- worker set-up and tear-down ------------------------------------------ */

/* OpenMP threads per rank: the node's cores shared among its ranks, unless
 * the user chose with OMP_NUM_THREADS. */
static void set_threads(void)
{
	MPI_Comm node;
	int local = 1, t;

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
			    MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &local);
	MPI_Comm_free(&node);
	if (getenv("OMP_NUM_THREADS"))
		return;
	t = omp_get_num_procs() / local;
	omp_set_num_threads(t < 1 ? 1 : t);
}

/*
 * Device-memory backends: `why` is NULL when this rank has the devices it
 * needs, else the reason. When any rank has one, every case is SKIP, with
 * the reason of the lowest such rank. Collective; returns 1 then.
 */
static int no_device(struct worker *w, const char *why)
{
	int me = why ? w->wrank : INT_MAX, first = INT_MAX;

	MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == INT_MAX)
		return 0;
	if (why)
		snprintf(w->nodev, sizeof w->nodev, "%s", why);
	MPI_Bcast(w->nodev, (int)sizeof w->nodev, MPI_CHAR, first,
		  MPI_COMM_WORLD);
	return 1;
}

/* After a device-memory backend's init: the device it made current, and
 * the harness's stream on it. */
static int start_device(struct worker *w)
{
	int ok = cs_dev_current(&w->dev) == CS_OK &&
		 cs_dev_stream_create(w->dev, &w->stream) == CS_OK;

	return agree(ok, w->wrank, cs_last_error());
}

/* Load the backend and create its world communicator; 1 when the run can
 * go on (possibly with every case skipped for want of a device). */
static int start_backend(struct worker *w)
{
	struct vcomm *vc = &w->vc[CS_COMM_WORLD];
	int ok, rc = -1, cuda;

	ok = cs_backend_load(w->o->backend, &w->b) == CS_OK;
	if (!agree(ok, w->wrank, cs_last_error()))
		return 0;
	snprintf(w->backend_name, sizeof w->backend_name, "%s", w->b->name);
	cuda = w->b->mem_kind == CS_MEM_CUDA;
	if (cuda && !cs_backend_finds_devices(w->b) &&
	    no_device(w, cs_dev_count() == 0 ? CS_NODEV_SKIP : NULL))
		return 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &vc->comm);
	MPI_Comm_rank(vc->comm, &vc->rank);
	MPI_Comm_size(vc->comm, &vc->size);
	vc->ready = 1;
	/* the message, whole, in cs_last_error() (the backend's string may
	 * be long) */
	ok = cs_boot_create(&vc->comm, &vc->boot) == CS_OK;
	if (ok) {
		rc = w->b->init(cs_boot_get(vc->boot), w->o->backend_opt,
				&vc->bcomm);
		w->init_called = 1;
		if (rc)
			cs_error(CS_ERR_UNSUPPORTED, "backend '%s' failed to "
				 "initialise: %s", w->b->name,
				 w->b->error_string(NULL, rc));
	}
	if (cuda && no_device(w, ok && rc ? cs_backend_init_skip(w->b, rc)
					  : NULL))
		return 1;
	if (!agree(ok && rc == 0, w->wrank, cs_last_error()))
		return 0;
	return !cuda || start_device(w);
}

static void stop_backend(struct worker *w)
{
	int v;

	for (v = CS_NUM_COMMVARS - 1; v >= 0; v--) {
		struct vcomm *vc = &w->vc[v];
		if (!vc->ready)
			continue;
		if (vc->bcomm && w->b->comm_free)
			w->b->comm_free(vc->bcomm);
		cs_boot_free(vc->boot);
		MPI_Comm_free(&vc->comm);
	}
	cs_dev_stream_destroy(w->dev, w->stream);
	if (w->init_called && w->b->finalize)
		w->b->finalize();
}

/* Rank 0's outputs: the report (not in results mode) and results file. */
static int open_outputs(struct worker *w)
{
	const cs_run_opts_t *o = w->o;
	cs_report_opts_t ro;
	int ok = 1;

	/* (a worker the driver started reports through the results file
	 * only: the driver prints the table) */
	if (w->wrank == 0 && (!o->results || o->json || o->junit)) {
		cs_run_report_opts(o, &ro);
		ok = cs_report_open(&ro, &w->rep) == CS_OK;
	}
	if (ok && w->wrank == 0 && o->results) {
		w->results = fopen(o->results, "a");
		if (!w->results)
			ok = cs_error(CS_ERR_IO, "cannot write the results file "
				      "'%s': %s", o->results, strerror(errno)) == 0;
	}
	return agree(ok, w->wrank, cs_last_error());
}

static int size_listed(const cs_run_opts_t *o, int W)
{
	int i;

	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] == W)
			return 1;
	return o->nsizes == 0;
}

/* Everything before the first case; 1 when the run can go on. */
static int worker_prepare(struct worker *w, cs_hcase_t **cases, size_t *n)
{
	const cs_run_opts_t *o = w->o;
	char msg[256];
	int ok;

	snprintf(msg, sizeof msg, "launched with %d ranks, but --ranks does not "
		 "list %d", w->wsize, w->wsize);
	if (!agree(size_listed(o, w->wsize), w->wrank, msg))
		return 0;
	ok = w->wrank != 0 || cs_run_validate(o, w->wsize) == 0;
	if (!all_ok(ok)) /* rank 0 printed why */
		return 0;
	ok = cs_suite_build(o->suite, w->wsize, &o->f, cases, n) == CS_OK;
	if (!agree(ok, w->wrank, cs_last_error()))
		return 0;
	if (!agree(*n > 0, w->wrank, "no case of the suite matches the "
		   "filters"))
		return 0;
	return open_outputs(w) && start_backend(w);
}

static size_t count_from(const cs_hcase_t *cases, size_t n, size_t first)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += cases[i].index >= first;
	return k;
}

static int run_worker(const cs_run_opts_t *o)
{
	struct worker w;
	cs_hcase_t *cases = NULL;
	size_t n = 0;
	int code = 2;

	memset(&w, 0, sizeof w);
	w.o = o;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		fprintf(stderr, "collspec run: MPI_Init failed\n");
		return 2;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &w.wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &w.wsize);
	set_threads();
	if (worker_prepare(&w, &cases, &n)) {
		if (w.rep)
			cs_report_set_total(w.rep, count_from(cases, n, o->first));
		run_cases(&w, cases, n);
		code = w.rep ? cs_report_close(w.rep) : 0;
		w.rep = NULL;
	}
	if (w.rep)
		cs_report_abort(w.rep, "the run could not start");
	if (w.results)
		fclose(w.results);
	MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
	stop_backend(&w);
	free(cases);
	MPI_Finalize();
	return code;
}

/* ---- driver mode ------------------------------------------------------------ */

struct dsink {
	cs_report_t *rep;      /* NULL once closed (a signal stopped the run) */
	const cs_run_opts_t *o;
	const char *name;      /* the backend's name */
};

/* Results from the driver: fill what a crash or hang result lacks. */
static void driver_sink(const cs_result_t *r, void *ctx)
{
	struct dsink *d = ctx;
	cs_result_t *tmp = malloc(sizeof *tmp);

	if (!tmp) {
		fprintf(stderr, "collspec run: out of memory: the result of case "
			"#%zu is lost\n", r->hc.index);
		return;
	}
	*tmp = *r;
	if (!tmp->repro[0])
		cs_run_repro(d->o, &tmp->hc, tmp->hc.c.nranks, tmp->repro,
			     sizeof tmp->repro);
	if (!tmp->backend[0])
		snprintf(tmp->backend, sizeof tmp->backend, "%s", d->name);
	cs_report_add(d->rep, tmp);
	free(tmp);
}

/* Cases the sweep will run, over all world sizes (0 on a suite error). */
/* Why the filters select nothing: name the first combination the spec does
 * not define (an op on a collective that does not reduce, a root on one
 * that has none, a root beyond every rank count), else say so plainly. */
static void explain_empty(const cs_run_opts_t *o)
{
	const cs_filter_t *f = &o->f;
	uint32_t want_ops = f->ops ? f->ops : ~0u;
	int c, maxp = 0, i;

	for (i = 0; i < o->nsizes; i++)
		maxp = o->sizes[i] > maxp ? o->sizes[i] : maxp;
	for (c = 0; c < CS_NUM_COLLS; c++) {
		if (f->colls && !(f->colls & (1u << c)))
			continue;
		if (!cs_coll_reduces(c) && !(want_ops & (1u << CS_OP_NONE))) {
			fprintf(stderr, "collspec run: %s does not reduce: --op "
				"does not apply to it (drop --op, or give --op none)\n",
				cs_coll_name(c));
			return;
		}
		if (cs_coll_reduces(c) && !(want_ops & ((1u << CS_NUM_OPS) - 1))) {
			fprintf(stderr, "collspec run: %s reduces: it needs an op "
				"(sum prod max min avg premulsum), not 'none'\n",
				cs_coll_name(c));
			return;
		}
		if (f->root >= 0 && !cs_coll_rooted(c)) {
			fprintf(stderr, "collspec run: %s has no root: --root does "
				"not apply to it\n", cs_coll_name(c));
			return;
		}
		if (f->root >= maxp && cs_coll_rooted(c)) {
			fprintf(stderr, "collspec run: root %d is out of range for "
				"%d ranks\n", f->root, maxp);
			return;
		}
	}
	fprintf(stderr, "collspec run: no case of the suite matches the "
		"filters at the --ranks given\n");
}

/* Memory this machine has for the workers (MemAvailable), in bytes; 0 when
 * unknown. */
static double mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	double kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/*
 * A case whose buffers cannot fit in this machine's memory, with all P ranks
 * of the launch on it, is refused before anything runs: otherwise the
 * kernel kills a rank and the harness would blame the implementation
 * ("crash"). Estimate per rank: below, plus the oracle's working block.
 */
static int fits_in_memory(const cs_hcase_t *cases, size_t n, int P,
			  int repeat)
{
	double avail = mem_available(), worst = 0;
	size_t i, k = 0;

	for (i = 0; avail > 0 && i < n; i++) {
		const cs_case_t *c = &cases[i].c;
		/* the root holds the largest buffers; alltoallv pairs reach
		 * 2*count (its matrix is built later) */
		double recv = c->coll == CS_COLL_ALLTOALLV
				      ? (double)c->count * P * 2.0
				      : (double)cs_case_recv_count(c, c->root);
		double elems = c->coll == CS_COLL_ALLTOALLV
				       ? recv * 2.0
				       : (double)cs_case_send_count(c, c->root) +
						 recv;
		/* the buffers, their images for the case's own and the fresh
		 * inputs, and copies of what the calls received (call 1's,
		 * each fresh call's, the root's for a shared check) */
		double need = (elems * 3.0 + recv * (repeat + 1.0)) *
				      (double)cs_dtype_size(c->dtype) + 64e6;
		if (need > worst) {
			worst = need;
			k = i;
		}
	}
	if (avail <= 0 || worst * P <= 0.9 * avail)
		return 1;
	fprintf(stderr, "collspec run: case #%zu (%s %s, count %zu) needs about "
		"%.1f GiB at %d ranks on this machine, which has %.1f GiB "
		"available: use a smaller --count\n", k,
		cs_coll_name(cases[k].c.coll), cs_dtype_name(cases[k].c.dtype),
		cases[k].c.count, worst * P / 1073741824.0, P,
		avail / 1073741824.0);
	return 0;
}

static size_t sweep_total(const cs_run_opts_t *o, size_t *ncases)
{
	cs_hcase_t *cases;
	size_t n, total = 0;
	int i;

	for (i = 0; i < o->nsizes; i++) {
		if (cs_suite_build(o->suite, o->sizes[i], &o->f, &cases, &n) !=
		    CS_OK) {
			fprintf(stderr, "collspec run: %s\n", cs_last_error());
			return 0;
		}
		if (!fits_in_memory(cases, n, o->sizes[i], o->repeat)) {
			free(cases);
			return 0;
		}
		ncases[i] = n;
		total += count_from(cases, n, o->first);
		free(cases);
	}
	if (!total)
		explain_empty(o);
	return total;
}

/* 1 when the launcher can be executed (a path, or a name on PATH). */
static int launcher_found(const char *name)
{
	char buf[PATH_MAX], *path, *dir, *save = NULL;
	const char *env = getenv("PATH");
	int found = 0;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!env || !(path = strdup(env)))
		return 0;
	for (dir = strtok_r(path, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof buf, "%s/%s", *dir ? dir : ".", name);
		found = access(buf, X_OK) == 0;
	}
	free(path);
	return found;
}

/*
 * Everything the driver checks before it writes or launches anything:
 * options, a non-empty sweep, the backend (a plugin is loaded in a child
 * process, under the --timeout), the launcher (unless the backend runs
 * every rank in the worker). 0, 2 (printed), or 1 when the plugin crashed,
 * exited or hung while loading (the message in cs_last_error()).
 */
static int driver_preflight(const cs_run_opts_t *o, int pmax,
			    cs_backend_info_t *info, size_t *total,
			    size_t *ncases)
{
	if (cs_run_validate(o, pmax))
		return 2;
	*total = sweep_total(o, ncases);
	if (!*total)
		return 2;
	if (cs_backend_probe(o->backend, o->timeout, info) != CS_OK) {
		if (info->fault)
			return 1;
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		return 2;
	}
	if (info->proc_model != CS_PROC_ALL_IN_PROCESS &&
	    !launcher_found(o->mpiexec ? o->mpiexec
				       : cs_driver_default_launcher())) {
		fprintf(stderr, "collspec run: mpiexec not found: %s (install an "
			"MPI, or name the launcher with --mpiexec PATH)\n",
			o->mpiexec ? o->mpiexec : "no 'mpiexec' on PATH");
		return 2;
	}
	return 0;
}

/* A signal stops the sweep: the reports say so before the driver dies (or,
 * when the signal is ignored and the driver lives on, exits 2). */
static void driver_signal(int sig, void *ctx)
{
	struct dsink *d = ctx;
	char why[96];

	snprintf(why, sizeof why, "run stopped by signal %d (%s)", sig,
		 strsignal(sig));
	cs_report_abort(d->rep, why);
	d->rep = NULL;
}

/* A case has started in a worker: the progress line. */
static void driver_start(const cs_result_t *r, void *ctx)
{
	struct dsink *d = ctx;

	cs_report_start(d->rep, &r->hc);
}

static void driver_opts(const cs_run_opts_t *o, int pmax, int inproc,
			const char *self, cs_driver_opts_t *d)
{
	memset(d, 0, sizeof *d);
	d->sizes = o->sizes;
	d->nsizes = o->nsizes;
	d->rmin = o->sizes[0];
	d->rmax = pmax;
	d->case_timeout = o->timeout;
	d->first = o->first;
	d->mpiexec = o->mpiexec;
	d->self = self;
	d->worker_args = o->wargs;
	d->nworker_args = o->nwargs;
	d->verbose = o->verbose;
	d->no_launcher = inproc;
	d->on_start = driver_start;
	d->on_signal = driver_signal;
}

/* The path of this executable into self[0..n); 0 or 2 (printed). */
static int find_self(char *self, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", self, n - 1);

	if (len <= 0 || (size_t)len >= n - 1) {
		fprintf(stderr, "collspec run: cannot find my own executable\n");
		return 2;
	}
	self[len] = '\0';
	return 0;
}

/* The sweep, reports open: the exit code. */
static int drive(const cs_run_opts_t *o, int pmax, const cs_backend_info_t *bi,
		 const char *self, size_t *ncases, struct dsink *sink)
{
	cs_driver_opts_t d;

	driver_opts(o, pmax, bi->proc_model == CS_PROC_ALL_IN_PROCESS, self, &d);
	d.ncases = ncases;
	if (cs_driver_run(&d, driver_sink, sink) == CS_OK)
		return cs_report_close(sink->rep);
	fprintf(stderr, "collspec run: %s\n", cs_last_error());
	cs_report_abort(sink->rep, cs_last_error()); /* (none after a signal) */
	return 2;
}

/* `run --ranks`: launch and supervise one worker set per world size (for
 * a backend that drives every rank, one launcher-less worker each). */
static int run_driver(const cs_run_opts_t *o)
{
	cs_backend_info_t bi;
	cs_report_opts_t ro;
	struct dsink sink = {NULL, o, NULL};
	size_t ncases[CS_MAX_SIZES], total = 0;
	char self[PATH_MAX], *loadfail = NULL;
	int i, pmax = 1, rc;

	for (i = 0; i < o->nsizes; i++)
		pmax = o->sizes[i] > pmax ? o->sizes[i] : pmax;
	rc = driver_preflight(o, pmax, &bi, &total, ncases);
	if (rc == 1 && !(loadfail = strdup(cs_last_error())))
		rc = 2;
	if (rc == 2 || find_self(self, sizeof self))
		return 2;
	sink.name = bi.name;
	cs_run_report_opts(o, &ro);
	if (cs_report_open(&ro, &sink.rep) != CS_OK) {
		fprintf(stderr, "collspec run: %s\n", cs_last_error());
		free(loadfail);
		return 2;
	}
	if (loadfail) { /* (said in the report) */
		rc = cs_report_fail_run(sink.rep, "load", loadfail);
		free(loadfail);
		return rc;
	}
	cs_report_set_total(sink.rep, total);
	return drive(o, pmax, &bi, self, ncases, &sink);
}

/*
 * The human report keeps the real stdout; anything else this process writes
 * to stdout (a backend's chatter) goes to stderr, so that it cannot garble
 * the report. Returns the report's stream (stdout when fd 1 is unusable).
 */
static FILE *claim_stdout(void)
{
	FILE *f;
	int fd;

	fflush(stdout);
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return stdout;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return stdout;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fclose(f);
		return stdout;
	}
	return f;
}

/* o's backend when it drives every rank from one process, else NULL. A
 * backend that does not load is left to the usual paths, which say why. */
static const cs_backend_t *backend_inproc(const cs_run_opts_t *o)
{
	const cs_backend_t *b;

	if (cs_backend_load(o->backend, &b) != CS_OK ||
	    b->proc_model != CS_PROC_ALL_IN_PROCESS)
		return NULL;
	return b;
}

/* Backend b drives every rank: (--results) the in-process worker of one
 * world size, which the driver starts. */
static int run_inproc(const cs_run_opts_t *o, const cs_backend_t *b)
{
	if (inside_launch() || !o->nsizes) {
		fprintf(stderr, "collspec run: backend '%s' drives every rank "
			"from one process: run it without mpiexec or srun, with "
			"the world sizes in --ranks (e.g. --ranks 1-4)\n",
			b->name);
		return 2;
	}
	if (o->nsizes != 1) {
		fprintf(stderr, "collspec run: --results runs one world size; "
			"--ranks lists %d\n", o->nsizes);
		return 2;
	}
	return cs_run_inproc(o);
}

/*
 * `collspec run`: parse, then drive (--ranks outside a launcher: the
 * backend's code is never run in this process) or work (under a launcher,
 * a single process, or a worker the driver started with --results).
 */
int cs_cmd_run(int argc, char **argv)
{
	cs_run_opts_t *o = malloc(sizeof *o);
	const cs_backend_t *b;
	int rc;

	if (!o)
		return 2;
	(void)inside_launch(); /* decide before anything calls MPI_Init */
	rc = cs_run_parse_args(argc, argv, o);
	if (rc == 0) {
		o->out = claim_stdout();
		if (o->nsizes && !inside_launch() && !o->results)
			rc = run_driver(o);
		else if ((b = backend_inproc(o)) != NULL)
			rc = run_inproc(o, b);
		else
			rc = run_worker(o);
	}
	free(o->wargs);
	free(o);
	return rc < 0 ? 0 : rc;
}
