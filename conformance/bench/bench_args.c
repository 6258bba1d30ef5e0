/*
 * bench_args.c - `collspec bench`'s options (bench.h): the usage, the
 * parse and its checks, the message sizes, and the run options that make
 * a worker's cases. nccl-tests' short flags (-b -e -f -n -w -c) keep
 * their meaning there; the defaults are sized for a CPU.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "csref/cost.h"
#include "base/cli_parse.h"

static const char usage[] =
"usage: collspec bench [--backend L] --coll C [--dtype T] [--op O]\n"
"         [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [-c 0|1]\n"
"         [--inplace 0|1|both] [--ranks L] [--ompi-alg L] [--timeout S]\n"
"         [--json FILE] [--csv FILE] [--plot FILE.svg|png] [--quiet]\n"
"\n"
"Time one collective over message sizes MIN to MAX bytes (times FACTOR\n"
"each step; suffixes K M G), in place and out of place, on each backend\n"
"of L (a comma list: one series each). Per size: the time of a call (the\n"
"largest over the ranks, mean and percentiles over ITERS iterations after\n"
"WARMUP), algbw and busbw (nccl-tests' factors), the wait spread (per\n"
"iteration, slowest minus fastest rank) and #wrong, the elements of the\n"
"last iteration that fail the harness's full check (-c 0: not checked,\n"
"-1). Runs under the driver of `collspec run` (--timeout per size).\n"
"\n"
"  --backend L      backends, comma list (default mpi)\n"
"  --backend-opt S  the backend's option string\n"
"  --coll C         the collective (required)\n"
"  --dtype T        element type (default float32)\n"
"  --op O           reduction op (default sum; none without reduction)\n"
"  -b, -e BYTES     smallest, largest size (default 8, 1M)\n"
"  -f N             size factor, at least 2 (default 2)\n"
"  -n N, -w N       timed and warm-up iterations (default 20, 5)\n"
"  -c 0|1           check the last iteration (default 1)\n"
"  --inplace X      0, 1 or both (default both)\n"
"  --ranks L        world sizes: 4, 2-8, 2,4,8 (default 2)\n"
"  --ompi-alg L     Open MPI coll_tuned algorithm numbers: a series\n"
"                   \"mpi/alg=K\" each, for the mpi backend\n"
"  --timeout S      seconds per message size before a hang (default 120)\n"
"  --mpiexec PATH   the launcher\n"
"  --json, --csv F  the records (conformance/base/bench_rec.h has the fields)\n"
"  --plot F         a plot of busbw against size (.svg or .png)\n"
"  --quiet          no table\n";

enum {
	O_BACKEND = 256, O_BOPT, O_COLL, O_DTYPE, O_OP, O_INPLACE, O_RANKS,
	O_ALG, O_TIMEOUT, O_JSON, O_CSV, O_PLOT, O_QUIET, O_VERBOSE,
	O_MPIEXEC, O_RESULTS, O_FIRST, O_OUT, O_SERIES
};

static const struct option longopts[] = {
	{"backend", required_argument, 0, O_BACKEND},
	{"backend-opt", required_argument, 0, O_BOPT},
	{"coll", required_argument, 0, O_COLL},
	{"dtype", required_argument, 0, O_DTYPE},
	{"op", required_argument, 0, O_OP},
	{"inplace", required_argument, 0, O_INPLACE},
	{"ranks", required_argument, 0, O_RANKS},
	{"ompi-alg", required_argument, 0, O_ALG},
	{"timeout", required_argument, 0, O_TIMEOUT},
	{"json", required_argument, 0, O_JSON},
	{"csv", required_argument, 0, O_CSV},
	{"plot", required_argument, 0, O_PLOT},
	{"quiet", no_argument, 0, O_QUIET},
	{"verbose", no_argument, 0, O_VERBOSE},
	{"mpiexec", required_argument, 0, O_MPIEXEC},
	{"results", required_argument, 0, O_RESULTS},
	{"first", required_argument, 0, O_FIRST},
	{"bench-out", required_argument, 0, O_OUT},
	{"series", required_argument, 0, O_SERIES},
	{"help", no_argument, 0, 'h'},
	{0, 0, 0, 0}
};

static cs_status_t bad(const char *opt, const char *why)
{
	return cs_error(CS_ERR_INVALID, "%s: %s", opt, why);
}

/* BYTES: digits with an optional K, M or G (powers of 1024), at most
 * 2^40 (a terabyte per message is past any use of this command). */
static cs_status_t parse_bytes(const char *opt, const char *s, uint64_t *out)
{
	char buf[32];
	size_t n = strlen(s), v;

	if (n == 0 || n >= sizeof buf)
		return bad(opt, "a size in bytes expected (e.g. 8, 64K, 1M)");
	memcpy(buf, s, n + 1);
	buf[n - 1] = (char)tolower((unsigned char)buf[n - 1]);
	if (cs_parse_count(buf, &v) != CS_OK || v > ((size_t)1 << 40))
		return cs_error(CS_ERR_INVALID, "%s '%s': a size in bytes from 0 "
				"to 1T expected (digits, then K, M or G)", opt, s);
	*out = v;
	return CS_OK;
}

static cs_status_t parse_long(const char *opt, const char *s, long lo, long hi,
			      long *v)
{
	return cs_parse_int(opt, s, lo, hi, v);
}

/* --backend L: split in place into o->backends. */
static cs_status_t parse_backends(cs_bench_opts_t *o, const char *s)
{
	char *p, *save = NULL;

	free(o->list_buf);
	if (!(o->list_buf = strdup(s)))
		return cs_error(CS_ERR_NOMEM, "out of memory");
	o->nbackends = 0;
	if (!*s || s[strlen(s) - 1] == ',' || strstr(s, ",,") || *s == ',')
		return bad("--backend", "an empty name in the list");
	for (p = strtok_r(o->list_buf, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		if (o->nbackends == CS_BENCH_MAX_SERIES)
			return bad("--backend", "too many backends (32 at most)");
		if (cs_check_text("--backend", p, CS_BACKEND_MAX) != CS_OK)
			return CS_ERR_INVALID;
		o->backends[o->nbackends++] = p;
	}
	return CS_OK;
}

/* --ompi-alg L: algorithm numbers 0..99, comma separated. */
static cs_status_t parse_algs(cs_bench_opts_t *o, const char *s)
{
	const char *p = s;

	o->nalgs = 0;
	for (;;) {
		char item[16];
		size_t n = strcspn(p, ",");
		long v;

		if (n == 0 || n >= sizeof item)
			return bad("--ompi-alg", "a comma list of algorithm "
				   "numbers expected (e.g. 1,2,3)");
		memcpy(item, p, n);
		item[n] = '\0';
		if (parse_long("--ompi-alg", item, 0, 99, &v) != CS_OK)
			return CS_ERR_INVALID;
		if (o->nalgs == CS_BENCH_MAX_SERIES)
			return bad("--ompi-alg", "too many algorithms (32)");
		o->algs[o->nalgs++] = (int)v;
		if (!p[n])
			return CS_OK;
		p += n + 1;
	}
}

static cs_status_t parse_inplace(cs_bench_opts_t *o, const char *s)
{
	if (!strcmp(s, "0") || !strcmp(s, "1"))
		o->inplace = s[0] - '0';
	else if (!strcmp(s, "both"))
		o->inplace = -1;
	else
		return bad("--inplace", "0, 1 or both expected");
	return CS_OK;
}

/* One option c with argument a. */
static cs_status_t take(cs_bench_opts_t *o, int c, const char *a, int *opset)
{
	long v;
	int e;

	switch (c) {
	case O_BACKEND: return parse_backends(o, a);
	case O_BOPT:
		o->backend_opt = a;
		return cs_check_text("--backend-opt", a, CS_BACKEND_OPT_MAX);
	case O_COLL: return cs_coll_parse(a, &o->coll);
	case O_DTYPE: return cs_dtype_parse(a, &o->dtype);
	case O_OP: *opset = 1; return cs_op_parse(a, &o->op);
	case 'b': return parse_bytes("-b", a, &o->minb);
	case 'e': return parse_bytes("-e", a, &o->maxb);
	case 'f':
		e = parse_long("-f", a, 2, 1 << 20, &v);
		o->factor = (uint64_t)v;
		return e;
	case 'n':
		e = parse_long("-n", a, 1, CS_BENCH_MAX_ITERS, &v);
		o->iters = (int)v;
		return e;
	case 'w':
		e = parse_long("-w", a, 0, CS_BENCH_MAX_ITERS, &v);
		o->warmup = (int)v;
		return e;
	case 'c':
		e = parse_long("-c", a, 0, 1, &v);
		o->check = (int)v;
		return e;
	case O_INPLACE: return parse_inplace(o, a);
	case O_RANKS: return cs_parse_ranks(a, o->sizes, CS_MAX_SIZES, &o->nsizes);
	case O_ALG: return parse_algs(o, a);
	case O_TIMEOUT: return cs_parse_timeout(a, &o->timeout);
	case O_JSON: o->json = a; return CS_OK;
	case O_CSV: o->csv = a; return CS_OK;
	case O_PLOT: o->plot = a; return CS_OK;
	case O_QUIET: o->quiet = 1; return CS_OK;
	case O_VERBOSE: o->verbose = 1; return CS_OK;
	case O_MPIEXEC: o->mpiexec = a; return CS_OK;
	case O_RESULTS: o->results = a; return CS_OK;
	case O_FIRST:
		e = parse_long("--first", a, 0, 1L << 30, &v);
		o->first = (size_t)v;
		return e;
	case O_OUT: o->bench_out = a; return CS_OK;
	case O_SERIES:
		o->series = a;
		return strlen(a) < sizeof ((cs_bench_rec_t *)0)->series
			       ? CS_OK : bad("--series", "too long");
	default: return cs_error(CS_ERR_INVALID, "unknown option");
	}
}

static void defaults(cs_bench_opts_t *o)
{
	static const char *mpi = "mpi";

	memset(o, 0, sizeof *o);
	o->backends[0] = mpi;
	o->nbackends = 1;
	o->coll = CS_NUM_COLLS;
	o->dtype = CS_DTYPE_FLOAT32;
	o->op = CS_OP_SUM;
	o->minb = 8;
	o->maxb = 1 << 20;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
	o->check = 1;
	o->inplace = -1;
	o->sizes[0] = 2;
	o->nsizes = 1;
	o->timeout = 120;
}

/* The checks across options. */
static cs_status_t check_all(cs_bench_opts_t *o, int opset)
{
	if (o->coll == CS_NUM_COLLS)
		return cs_error(CS_ERR_INVALID, "--coll is required (e.g. "
				"--coll allreduce)");
	if (!cs_coll_reduces(o->coll)) {
		if (opset && o->op != CS_OP_NONE)
			return cs_error(CS_ERR_INVALID, "--op: %s does not "
					"reduce (drop --op)",
					cs_coll_name(o->coll));
		o->op = CS_OP_NONE;
	} else if (o->op == CS_OP_NONE) {
		return cs_error(CS_ERR_INVALID, "--op: %s reduces: it needs an "
				"op, not 'none'", cs_coll_name(o->coll));
	}
	if (o->minb > o->maxb)
		return bad("-b/-e", "the smallest size is above the largest");
	if (cs_bench_byte_sizes(o, NULL, 0) > CS_BENCH_MAX_SIZES)
		return cs_error(CS_ERR_INVALID, "-b %llu -e %llu -f %llu makes "
				"more than %d sizes: raise -f or narrow the "
				"range", (unsigned long long)o->minb,
				(unsigned long long)o->maxb,
				(unsigned long long)o->factor,
				CS_BENCH_MAX_SIZES);
	if (o->plot && !(strlen(o->plot) > 4 &&
			 (!strcmp(o->plot + strlen(o->plot) - 4, ".svg") ||
			  !strcmp(o->plot + strlen(o->plot) - 4, ".png"))))
		return bad("--plot", "the file name must end in .svg or .png");
	if (o->results && !o->bench_out)
		return bad("--results", "a worker needs --bench-out FILE");
	return CS_OK;
}

cs_status_t cs_bench_parse_args(int argc, char **argv, cs_bench_opts_t *o)
{
	int c, opset = 0;
	cs_status_t st = CS_OK;

	defaults(o);
	optind = 0; /* glibc: reset */
	opterr = 0;
	while (st == CS_OK &&
	       (c = getopt_long(argc, argv, "+b:e:f:n:w:c:h", longopts,
				NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			o->help = 1;
			return CS_OK;
		}
		if (c == '?' || c == ':') {
			st = cs_error(CS_ERR_INVALID, "unknown option or missing "
				      "value: '%s'", argv[optind - 1]);
			break;
		}
		st = take(o, c, optarg, &opset);
	}
	if (st == CS_OK && optind < argc)
		st = cs_error(CS_ERR_INVALID, "unexpected argument '%s'",
			      argv[optind]);
	if (st == CS_OK)
		st = check_all(o, opset);
	if (st != CS_OK)
		fprintf(stderr, "collspec bench: %s\n(collspec bench --help "
			"lists the options)\n", cs_last_error());
	return st;
}

int cs_bench_byte_sizes(const cs_bench_opts_t *o, uint64_t *bytes, int max)
{
	uint64_t b = o->minb;
	int n = 0;

	for (;;) {
		if (n < max)
			bytes[n] = b;
		n++;
		if (b == 0 || b > o->maxb / o->factor || n > CS_BENCH_MAX_SIZES)
			return n; /* (b == 0: one size, as -b 0 -e 0) */
		b *= o->factor;
	}
}

cs_status_t cs_bench_run_opts(const cs_bench_opts_t *o, int P,
			      cs_run_opts_t *ro)
{
	uint64_t bytes[CS_BENCH_MAX_SIZES];
	uint64_t per = cs_nccl_size_per_count(o->coll, o->dtype, P);
	int n = cs_bench_byte_sizes(o, bytes, CS_BENCH_MAX_SIZES), i, k;

	memset(ro, 0, sizeof *ro);
	if (n > CS_BENCH_MAX_SIZES)
		return cs_error(CS_ERR_INVALID, "too many message sizes");
	cs_filter_init(&ro->f);
	ro->backend = o->nbackends ? o->backends[0] : "mpi";
	ro->backend_opt = o->backend_opt;
	ro->suite = "full";
	ro->timeout = o->timeout;
	ro->results = o->results;
	ro->mpiexec = o->mpiexec;
	ro->first = o->first;
	ro->repeat = 1;
	ro->quiet = 1;
	ro->out = stdout;
	ro->f.colls = 1u << o->coll;
	ro->f.dtypes = 1u << o->dtype;
	ro->f.ops = 1u << o->op;
	ro->f.modes = 1u << CS_MODE_EXACT;
	ro->f.comms = 1u << CS_COMM_WORLD;
	ro->f.a2av = 1u << CS_A2AV_UNIFORM;
	ro->f.inplace = o->inplace;
	ro->f.root = cs_coll_rooted(o->coll) ? 0 : -1;
	ro->f.misalign = 0;
	ro->f.has_seed = 1;
	ro->f.seed = 1;
	for (i = 0; i < n; i++) {
		size_t c = (size_t)(bytes[i] / per);
		c = c ? c : 1;
		for (k = 0; k < ro->f.ncounts && ro->f.counts[k] != c; k++)
			;
		if (k == ro->f.ncounts)
			ro->f.counts[ro->f.ncounts++] = c;
	}
	return CS_OK;
}
