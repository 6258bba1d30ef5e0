/*
 * run_args.c - `collspec run`'s command line: the usage text, the option
 * table, parsing into cs_run_opts_t (with the worker arguments the driver
 * hands on). The checks that need no MPI are worker/validate.c's.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/cli_parse.h"
#include "base/mpialg.h"
#include "backends/registry.h"
#include "report/report.h"
#include "base/result.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "csref/grid.h"

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
"  --suite NAME         quick | full | patterns | scale (default quick)\n"
"  --mpi-alg SPEC       (--backend mpi) the MPI library's own algorithm or\n"
"                       component: COLL=ALG[,...], iCOLL=ALG for the\n"
"                       nonblocking calls, component=NAME (Open MPI);\n"
"                       --mpi-alg list prints what this library has\n"
"  --ranks SPEC         world sizes: 4, 1-8, 2,4,8 (driver mode)\n"
"filters (comma lists; default: the whole suite):\n"
"  --coll L  --dtype L  --op L  --mode L  --comm L  --a2av-pattern L\n"
"  --count L            element counts (suffixes k, m, g: powers of 1024)\n"
"  --inplace 0|1  --root N  --misalign N\n"
"  --seed N             decimal, or hexadecimal with 0x (0 to 2^64-1)\n"
"parallelism patterns (--suite patterns, spec/patterns.md):\n"
"  --pattern L          patterns (collspec list shows them)\n"
"  --variant NAME       one variant of the selected patterns\n"
"  --grid G             process grid, e.g. dp2,tp2,pp2 (axes dp tp pp sp\n"
"                       cp ep; first listed varies slowest); its product\n"
"                       must be every world size (default: per pattern)\n"
"  --comm-log FILE      every call of every rank, JSON Lines\n"
"checking:\n"
"  --repeat N           call each case N times on the same inputs, with a\n"
"                       call on fresh inputs between each two (default 2;\n"
"                       suite scale: 1, to keep memory within 3x the\n"
"                       buffers)\n"
"reports:\n"
"  --json FILE          JSON Lines, one object per case\n"
"  --junit FILE         JUnit XML (valid also when the run is cut short)\n"
"  --quiet, -q          table rows only for warnings and failures\n"
"  -v, --verbose        more detail (-vv, or repeated, for more)\n"
"  --fail-on-warn       warnings make the exit code 1\n"
"  --expect FILE        known defects (docs/expectations/README.md): a\n"
"                       listed failure is XFAIL; an entry whose cases all\n"
"                       passed is XPASS (fails)\n"
"driver:\n"
"  --timeout S          seconds a case may run before it is a hang\n"
"                       (default %g; suite scale: 3600; at most %g)\n"
"  --first K            start at case K of every world size\n"
"  --mpiexec PATH       the launcher (default: the build's MPI's mpiexec,\n"
"                       else mpiexec from PATH)\n"
"worker protocol (used by the driver):\n"
"  --results FILE\n"
"\n"
"exit status: 0 nothing failed (and not everything skipped), 1 failures,\n"
"2 usage or environment error\n";


/* ---- the option table ---------------------------------------------------- */

enum opt_id {
	O_BACKEND, O_BACKEND_OPT, O_SUITE, O_COLL, O_DTYPE, O_OP, O_MODE,
	O_COUNT, O_INPLACE, O_COMM, O_ROOT, O_MISALIGN, O_A2AV, O_SEED,
	O_TIMEOUT, O_JSON, O_JUNIT, O_RANKS, O_RESULTS, O_FIRST, O_MPIEXEC,
	O_FAIL_ON_WARN, O_QUIET, O_VERBOSE, O_REPEAT, O_EXPECT, O_HELP,
	O_PATTERN, O_VARIANT, O_GRID, O_COMM_LOG, O_MPI_ALG
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
	{"--pattern", 1, O_PATTERN, 1}, {"--variant", 1, O_VARIANT, 1},
	{"--grid", 1, O_GRID, 1}, {"--comm-log", 1, O_COMM_LOG, 1},
	{"--mpi-alg", 1, O_MPI_ALG, 1},
	{"--help", 0, O_HELP, 0}, {"-h", 0, O_HELP, 0},
};

static cs_status_t apply_filter_opt(cs_run_opts_t *o, enum opt_id id,
				    const char *v)
{
	cs_filter_t *f = &o->f;
	long x;
	cs_status_t st;

	switch ((int)id) { /* int: the filter options only, apply_opt's go there */
	case O_COLL: return cs_parse_mask(v, cs_name_coll, &f->colls);
	case O_DTYPE: return cs_parse_mask(v, cs_name_dtype, &f->dtypes);
	case O_OP: return cs_parse_mask(v, cs_name_op, &f->ops);
	case O_MODE: return cs_parse_mask(v, cs_name_mode, &f->modes);
	case O_COMM: return cs_parse_mask(v, cs_name_comm, &f->comms);
	case O_A2AV: return cs_parse_mask(v, cs_name_a2av, &f->a2av);
	case O_COUNT: return cs_parse_counts(v, f);
	case O_INPLACE:
		st = cs_parse_int("--inplace", v, 0, 1, &x);
		f->inplace = (int)x;
		return st;
	case O_ROOT:
		st = cs_parse_int("--root", v, 0, 65535, &x);
		f->root = (int)x;
		return st;
	case O_MISALIGN:
		st = cs_parse_int("--misalign", v, 0, 64, &x);
		f->misalign = (int)x;
		return st;
	case O_SEED:
		f->has_seed = 1;
		return cs_parse_seed(v, &f->seed);
	case O_PATTERN: return cs_parse_mask(v, cs_name_pattern, &f->patterns);
	case O_VARIANT:
		if (!*v || strlen(v) >= sizeof f->variant)
			return cs_error(CS_ERR_INVALID, "--variant: a name of "
					"1 to %zu bytes", sizeof f->variant - 1);
		snprintf(f->variant, sizeof f->variant, "%s", v);
		return CS_OK;
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
		st = cs_check_text("--backend", v, CS_BACKEND_MAX);
		o->backend = v;
		break;
	case O_BACKEND_OPT:
		st = cs_check_text("--backend-opt", v, CS_BACKEND_OPT_MAX);
		o->backend_opt = v;
		break;
	case O_SUITE: o->suite = v; break;
	case O_TIMEOUT: st = cs_parse_timeout(v, &o->timeout); break;
	case O_JSON: o->json = v; break;
	case O_JUNIT: o->junit = v; break;
	case O_RANKS: st = cs_parse_ranks(v, o->sizes, MAX_SIZES, &o->nsizes); break;
	case O_RESULTS: o->results = v; break;
	case O_FIRST:
		st = cs_parse_int("--first", v, 0, LONG_MAX, &x);
		o->first = (size_t)x;
		break;
	case O_MPIEXEC: o->mpiexec = v; break;
	case O_EXPECT: o->expect = v; break;
	case O_GRID:
		st = cs_check_text("--grid", v, CS_GRID_SPEC_MAX);
		o->grid = v;
		break;
	case O_COMM_LOG: o->comm_log = v; break;
	case O_MPI_ALG:
		st = cs_check_text("--mpi-alg", v, CS_MPIALG_SPEC_MAX);
		o->mpi_alg = v;
		break;
	case O_FAIL_ON_WARN: o->fail_on_warn = 1; break;
	case O_QUIET: o->quiet = 1; break;
	case O_VERBOSE: o->verbose++; break;
	case O_REPEAT:
		st = cs_parse_int("--repeat", v, 1, 100, &x);
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

/* Contract in run_args.h. */
cs_status_t cs_run_parse_args(int argc, char **argv, cs_run_opts_t *o)
{
	const cs_suite_info_t *si;
	int i, nv;

	memset(o, 0, sizeof *o);
	cs_filter_init(&o->f);
	o->backend = "ref";
	o->backend_opt = "";
	o->suite = "quick";
	o->timeout = 0; /* not given: the suite's default, below */
	o->repeat = 0; /* not given: the suite's default, below */
	o->wargs = calloc((size_t)argc * 2 + 1, sizeof *o->wargs);
	if (!o->wargs)
		return cs_error(CS_ERR_NOMEM, "out of memory");
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
			return CS_ERR_INVALID;
		}
		if (op->id == O_HELP) {
			printf(run_usage, CS_BACKEND_OPT_MAX, DEFAULT_TIMEOUT,
			       CS_CLI_MAX_TIMEOUT);
			o->help = 1;
			return CS_OK;
		}
		if (op->has_arg && !v) {
			if (i + 1 >= argc) {
				fprintf(stderr, "collspec run: %s needs a value\n",
					op->name);
				return CS_ERR_INVALID;
			}
			v = argv[++i];
		}
		if (apply_opt(o, op->id, v ? v : "") != CS_OK) {
			fprintf(stderr, "collspec run: %s\n", cs_last_error());
			return CS_ERR_INVALID;
		}
		if (op->worker) {
			o->wargs[o->nwargs++] = (char *)op->name;
			if (op->has_arg)
				o->wargs[o->nwargs++] = (char *)v;
		}
	}
	/* the suite's defaults (an unknown suite is named by validation) */
	si = cs_suite_find(o->suite);
	if (!o->repeat)
		o->repeat = si ? si->repeat : 2;
	if (!o->timeout)
		o->timeout = si ? si->timeout : DEFAULT_TIMEOUT;
	return CS_OK;
}
