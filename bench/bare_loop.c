/*
 * bare_loop.c - the baseline of `collspec bench`'s harness overhead
 * (issue 11, docs/bench-compare.md): the same MPI call on the same sizes,
 * timed the same way, with nothing of the harness around it.
 *
 *   mpiexec -n P bare_loop --coll C [--dtype T] [--op O] [-b MIN] [-e MAX]
 *           [-f FACTOR] [-n ITERS] [-w WARMUP] [--inplace 0|1|both]
 *           [--sync harness|mpi|none]
 *
 * The flags and defaults are bench's (-b 8 -e 1M -f 2 -n 20 -w 5, both
 * in-place choices). A size of B bytes is count = B / (blocks x dtype
 * size) elements (at least 1; blocks is P for the collectives whose
 * nccl-tests size is the whole gathered or scattered buffer), the count
 * bench runs too. Per size and in-place choice: WARMUP untimed calls,
 * then ITERS timed ones, each after a barrier; each rank times its own
 * call with MPI_Wtime. The iteration's time is the largest over the
 * ranks; time is their mean, p50 and p99 their nearest-rank percentiles,
 * spread the mean of (slowest - fastest rank). The barrier (--sync):
 *   harness  (default) the one bench's worker passes before each call
 *            (conformance/worker/rgroup_mpi.c): every rank's word up to rank 0
 *            point to point, the go back down a binomial tree, each wait
 *            a short spin then sleeps of 10 us doubling to 500 us, which
 *            leaves the cores to the other ranks when there are more ranks
 *            than cores; so that the comparison is of the call alone
 *   mpi      MPI_Barrier, which spins
 *   none     no barrier: calls back to back, as a pipeline issues them.
 * The calls are those of bench's mpi backend
 * (conformance/backends/mpi/backend_mpi_coll.c), MPI_IN_PLACE where it uses it; the
 * buffers hold ones and are not checked (#wrong is -1, as bench -c 0).
 *
 * The table has bench's columns (size, count, type, redop, then per
 * in-place choice time algbw busbw #wrong p50 p99 spread), so that
 * scripts/bench-compare.sh reads both alike. Only MPI's predefined types
 * and ops: float16, bfloat16, fp8, avg and premulsum need the harness's
 * user-defined ones and are refused. Bad arguments: a message, exit 2.
 *
 * About 600 lines, over the house's 500: one program that stands for
 * "the bare call", kept in one file so that it reads top to bottom
 * (arguments, the call, the timing, the table, main).
 */
#define _DEFAULT_SOURCE /* getopt_long */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/cli_parse.h"
#include "gpu_metrics.h"
#include "worker/mpiwait.h"

#define MAX_BYTES ((uint64_t)1 << 40)
#define MAX_ITERS 1000000L
#define MAX_SIZES 64

typedef struct opts {
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;
	uint64_t minb, maxb, factor;
	int iters, warmup;
	int inplace; /* 0, 1, or -1 both */
	int sync; /* SYNC_* */
	int help;
} opts_t;

enum { SYNC_NONE, SYNC_MPI, SYNC_HARNESS };
static const char *const sync_names[] = {"none", "mpi", "harness"};

/* One call's arguments. */
typedef struct call {
	cs_coll_t coll;
	MPI_Datatype type;
	MPI_Op op;
	int count, rank, size, inplace;
	char *s, *r;
} call_t;

static const char usage[] =
	"usage: mpiexec -n P bare_loop --coll C [--dtype T] [--op O]\n"
	"         [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
	"         [--inplace 0|1|both] [--sync harness|mpi|none]\n"
	"The bare MPI call of `collspec bench --backend mpi`, timed as bench\n"
	"times it, for the harness-overhead figure (docs/bench-compare.md).\n";

/* ---- arguments ---------------------------------------------------------- */

/* MPI's predefined type of d; MPI_DATATYPE_NULL when it has none. */
static MPI_Datatype mpi_type(cs_dtype_t d)
{
	if (d == CS_DTYPE_INT8) return MPI_INT8_T;
	if (d == CS_DTYPE_UINT8) return MPI_UINT8_T;
	if (d == CS_DTYPE_INT32) return MPI_INT32_T;
	if (d == CS_DTYPE_UINT32) return MPI_UINT32_T;
	if (d == CS_DTYPE_INT64) return MPI_INT64_T;
	if (d == CS_DTYPE_UINT64) return MPI_UINT64_T;
	if (d == CS_DTYPE_FLOAT32) return MPI_FLOAT;
	if (d == CS_DTYPE_FLOAT64) return MPI_DOUBLE;
	return MPI_DATATYPE_NULL;
}

/* MPI's predefined op of o; MPI_OP_NULL when it has none. */
static MPI_Op mpi_op(cs_op_t o)
{
	if (o == CS_OP_SUM) return MPI_SUM;
	if (o == CS_OP_PROD) return MPI_PROD;
	if (o == CS_OP_MAX) return MPI_MAX;
	if (o == CS_OP_MIN) return MPI_MIN;
	return MPI_OP_NULL;
}

/* -b, -e: bytes, with bench's suffixes K M G (powers of 1024). */
static cs_status_t parse_bytes(const char *opt, const char *s, uint64_t *out)
{
	char buf[32];
	size_t i, v;

	for (i = 0; s[i] && i < sizeof buf - 1; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	if (s[i] || cs_parse_count(buf, &v) != CS_OK || v > MAX_BYTES)
		return cs_error(CS_ERR_INVALID, "%s '%s': a size in bytes "
				"from 0 to 1024G expected (e.g. 8, 64K, 1M)",
				opt, s);
	*out = v;
	return CS_OK;
}

static cs_status_t parse_inplace(const char *s, int *out)
{
	if (!strcmp(s, "0") || !strcmp(s, "1")) {
		*out = s[0] - '0';
		return CS_OK;
	}
	if (!strcmp(s, "both")) {
		*out = -1;
		return CS_OK;
	}
	return cs_error(CS_ERR_INVALID, "--inplace '%s': 0, 1 or both", s);
}

static cs_status_t parse_sync(const char *s, int *sync)
{
	int k;

	for (k = 0; k < 3; k++)
		if (!strcmp(s, sync_names[k])) {
			*sync = k;
			return CS_OK;
		}
	return cs_error(CS_ERR_INVALID, "--sync '%s': harness, mpi or none", s);
}

static cs_status_t take(opts_t *o, int c, const char *a, int *op_set)
{
	long v;
	cs_status_t st;

	switch (c) {
	case 'C': return cs_coll_parse(a, &o->coll);
	case 'D': return cs_dtype_parse(a, &o->dtype);
	case 'O': *op_set = 1; return cs_op_parse(a, &o->op);
	case 'I': return parse_inplace(a, &o->inplace);
	case 'S': return parse_sync(a, &o->sync);
	case 'b': return parse_bytes("-b", a, &o->minb);
	case 'e': return parse_bytes("-e", a, &o->maxb);
	case 'f':
		st = cs_parse_int("-f", a, 2, 1024, &v);
		o->factor = (uint64_t)v;
		return st;
	case 'n':
		st = cs_parse_int("-n", a, 1, MAX_ITERS, &v);
		o->iters = (int)v;
		return st;
	case 'w':
		st = cs_parse_int("-w", a, 0, MAX_ITERS, &v);
		o->warmup = (int)v;
		return st;
	default:
		return cs_error(CS_ERR_INVALID, "unknown option");
	}
}

/* What the options say together: a collective, an MPI type, an op that
 * fits the collective, a size range. */
static cs_status_t check_all(opts_t *o, int coll_set, int op_set)
{
	int reduces;

	if (!coll_set)
		return cs_error(CS_ERR_INVALID, "--coll is required");
	if (o->coll == CS_COLL_ALLTOALLV)
		return cs_error(CS_ERR_INVALID, "alltoallv has no nccl-tests "
				"size; not timed here");
	if (mpi_type(o->dtype) == MPI_DATATYPE_NULL)
		return cs_error(CS_ERR_INVALID, "--dtype %s has no predefined "
				"MPI type (int8 to uint64, float32, float64)",
				cs_dtype_name(o->dtype));
	reduces = o->coll == CS_COLL_ALLREDUCE || o->coll == CS_COLL_REDUCE ||
		  o->coll == CS_COLL_REDUCESCATTER;
	if (!op_set)
		o->op = reduces ? CS_OP_SUM : CS_OP_NONE;
	if (reduces && mpi_op(o->op) == MPI_OP_NULL)
		return cs_error(CS_ERR_INVALID, "--op %s: sum, prod, max or "
				"min (MPI's predefined ops)",
				cs_op_name(o->op));
	if (!reduces && o->op != CS_OP_NONE)
		return cs_error(CS_ERR_INVALID, "--op %s: %s does not reduce",
				cs_op_name(o->op), cs_coll_name(o->coll));
	if (o->minb > o->maxb)
		return cs_error(CS_ERR_INVALID, "-b %llu is above -e %llu",
				(unsigned long long)o->minb,
				(unsigned long long)o->maxb);
	return CS_OK;
}

static cs_status_t parse_args(int argc, char **argv, opts_t *o)
{
	static const struct option longopts[] = {
		{"coll", required_argument, 0, 'C'},
		{"dtype", required_argument, 0, 'D'},
		{"op", required_argument, 0, 'O'},
		{"inplace", required_argument, 0, 'I'},
		{"sync", required_argument, 0, 'S'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	static const char opts[] = ":b:e:f:n:w:h";
	int c, coll_set = 0, op_set = 0;
	cs_status_t st = CS_OK;

	*o = (opts_t){.dtype = CS_DTYPE_FLOAT32, .minb = 8, .maxb = 1 << 20,
		      .factor = 2, .iters = 20, .warmup = 5, .inplace = -1,
		      .sync = SYNC_HARNESS};
	opterr = 0;
	while (st == CS_OK &&
	       (c = getopt_long(argc, argv, opts, longopts, 0)) != -1) {
		if (c == 'h') {
			o->help = 1;
			return CS_OK;
		}
		if (c == '?' || c == ':')
			return cs_error(CS_ERR_INVALID, "%s '%s'",
					c == ':' ? "a value is needed after"
						 : "unknown option",
					argv[optind - 1]);
		coll_set |= c == 'C';
		st = take(o, c, optarg, &op_set);
	}
	if (st == CS_OK && optind < argc)
		st = cs_error(CS_ERR_INVALID, "unexpected argument '%s'",
			      argv[optind]);
	return st == CS_OK ? check_all(o, coll_set, op_set) : st;
}

/* ---- one call ----------------------------------------------------------- */

/* The call of bench's mpi backend for c (backend_mpi_coll.c), root 0. */
static int one_call(const call_t *c)
{
	const MPI_Comm W = MPI_COMM_WORLD;
	const MPI_Datatype t = c->type;
	int n = c->count, root0 = c->rank == 0;
	int next = (c->rank + 1) % c->size;
	int prev = (c->rank + c->size - 1) % c->size;
	/* the send argument: MPI_IN_PLACE in place (the count and type that
	 * go with it are then ignored, MPI 4.0 sections 6.9, 6.5) */
	void *s = c->inplace ? MPI_IN_PLACE : c->s;
	void *root_s = c->inplace && root0 ? MPI_IN_PLACE : c->s;
	void *root_r = c->inplace && root0 ? MPI_IN_PLACE : c->r;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		return MPI_Allreduce(s, c->r, n, t, c->op, W);
	case CS_COLL_REDUCESCATTER: /* in place: the input and result in s */
		return MPI_Reduce_scatter_block(s, c->inplace ? c->s : c->r, n,
						t, c->op, W);
	case CS_COLL_REDUCE:
		return MPI_Reduce(root_s, c->r, n, t, c->op, 0, W);
	case CS_COLL_ALLGATHER:
		return MPI_Allgather(s, n, t, c->r, n, t, W);
	case CS_COLL_ALLTOALL:
		return MPI_Alltoall(s, n, t, c->r, n, t, W);
	case CS_COLL_BROADCAST:
		return MPI_Bcast(c->r, n, t, 0, W);
	case CS_COLL_GATHER:
		return MPI_Gather(root_s, n, t, c->r, n, t, 0, W);
	case CS_COLL_SCATTER:
		return MPI_Scatter(c->s, n, t, root_r, n, t, 0, W);
	case CS_COLL_SENDRECV:
		if (c->inplace)
			return MPI_Sendrecv_replace(c->r, n, t, next, 7, prev,
						    7, W, MPI_STATUS_IGNORE);
		return MPI_Sendrecv(c->s, n, t, next, 7, c->r, n, t, prev, 7, W,
				    MPI_STATUS_IGNORE);
	case CS_COLL_ALLTOALLV: /* refused by check_all */
	case CS_NUM_COLLS:
		break;
	}
	return MPI_ERR_ARG;
}

/* ---- timing ------------------------------------------------------------- */


/* One int from rank `from` to rank `to`, waited for sleepily. */
static void sleepy_msg(int rank, int from, int to)
{
	MPI_Request r;
	int word = 0;

	if (rank == from)
		MPI_Isend(&word, 1, MPI_INT, to, 8, MPI_COMM_WORLD, &r);
	else
		MPI_Irecv(&word, 1, MPI_INT, from, 8, MPI_COMM_WORLD, &r);
	cs_mpi_wait(&r); /* as the harness waits */
}

/* The harness's barrier: up to rank 0 one rank at a time, then back down
 * a binomial tree (rank v receives from v - its lowest set bit, sends to
 * v + each lower power of two). */
static void sleepy_barrier(int rank, int P)
{
	int q, mask;

	for (q = 1; q < P; q++)
		if (rank == 0 || rank == q)
			sleepy_msg(rank, q, 0);
	for (mask = 1; mask < P; mask <<= 1)
		if (rank & mask) {
			sleepy_msg(rank, rank - mask, rank);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (rank + mask < P)
			sleepy_msg(rank, rank, rank + mask);
}

/* WARMUP untimed calls, then ITERS timed ones: this rank's times in t. */
static void time_calls(const opts_t *o, const call_t *c, double *t)
{
	double t0;
	int k;

	for (k = 0; k < o->warmup; k++)
		one_call(c);
	for (k = 0; k < o->iters; k++) {
		if (o->sync == SYNC_MPI)
			MPI_Barrier(MPI_COMM_WORLD);
		else if (o->sync == SYNC_HARNESS)
			sleepy_barrier(c->rank, c->size);
		t0 = MPI_Wtime();
		one_call(c);
		t[k] = MPI_Wtime() - t0;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile p of the n sorted values s. */
static double percentile(const double *s, int n, double p)
{
	int k = (int)ceil(p / 100.0 * n) - 1;

	return s[k < 0 ? 0 : k < n ? k : n - 1];
}

/* bench's columns of one in-place choice from every rank's times
 * (all[q * iters + k]); mx is scratch of iters doubles. */
static void print_cols(const opts_t *o, const double *all, int P,
		       uint64_t bytes, double *mx)
{
	double sum = 0, spread = 0, mean, algbw;
	int k, q;

	for (k = 0; k < o->iters; k++) {
		double hi = all[k], lo = hi;

		for (q = 1; q < P; q++) {
			double v = all[(size_t)q * o->iters + k];

			hi = v > hi ? v : hi;
			lo = v < lo ? v : lo;
		}
		mx[k] = hi * 1e6;
		sum += mx[k];
		spread += (hi - lo) * 1e6;
	}
	qsort(mx, (size_t)o->iters, sizeof *mx, cmp_double);
	mean = sum / o->iters;
	algbw = mean > 0 ? (double)bytes / mean / 1e3 : 0; /* GB/s */
	printf(" %9.2f %7.2f %7.2f %6d %9.2f %9.2f %8.2f", mean, algbw,
	       algbw * gb_busbw_factor(o->coll, P), -1,
	       percentile(mx, o->iters, 50), percentile(mx, o->iters, 99),
	       spread / o->iters);
}

/* One size, both in-place choices as asked: a table row on rank 0. */
static void run_size(const opts_t *o, call_t *c, uint64_t bytes, double *t,
		     double *all, double *mx)
{
	int ip;

	if (c->rank == 0)
		printf("  %12llu %12d %9s %6s", (unsigned long long)bytes,
		       c->count, cs_dtype_name(o->dtype), cs_op_name(o->op));
	for (ip = 0; ip < 2; ip++) {
		if (o->inplace >= 0 && o->inplace != ip) {
			if (c->rank == 0)
				printf(" %9s %7s %7s %6s %9s %9s %8s", "-", "-",
				       "-", "-", "-", "-", "-");
			continue;
		}
		c->inplace = ip;
		time_calls(o, c, t);
		MPI_Gather(t, o->iters, MPI_DOUBLE, all, o->iters, MPI_DOUBLE,
			   0, MPI_COMM_WORLD);
		if (c->rank == 0)
			print_cols(o, all, c->size, bytes, mx);
	}
	if (c->rank == 0) {
		putchar('\n');
		fflush(stdout);
	}
}

static void print_header(const opts_t *o, int P)
{
	const char *grp = "     time   algbw   busbw #wrong       p50       p99"
			  "   spread";
	const char *units = "      (us)  (GB/s)  (GB/s)             (us)      "
			    "(us)     (us)";

	printf("# series bare, %d ranks (%s %s, sync %s, %d iterations after "
	       "%d warm-up)\n", P, cs_coll_name(o->coll),
	       cs_dtype_name(o->dtype), sync_names[o->sync],
	       o->iters, o->warmup);
	printf("# %12s %12s %9s %6s      %-59s%s\n", "", "", "", "",
	       "out-of-place", "in-place");
	printf("# %12s %12s %9s %6s %s%s\n", "size", "count", "type", "redop",
	       grp, grp);
	printf("# %12s %12s %9s %6s %s%s\n", "(B)", "(elements)", "", "",
	       units, units);
}

/* ---- sizes and buffers -------------------------------------------------- */

/* bench's sizes: -b, times -f while at most -e, as element counts
 * (bytes / per, at least 1; a repeated count once) and their bytes.
 * Returns how many, or -1 when there are more than max. */
static int make_sizes(const opts_t *o, size_t per, size_t *counts,
		      uint64_t *bytes, int max)
{
	uint64_t b = o->minb;
	int n = 0;

	for (;;) {
		size_t count = b / per ? (size_t)(b / per) : 1;

		if (n == 0 || counts[n - 1] != count) {
			if (n == max)
				return -1;
			counts[n] = count;
			bytes[n++] = (uint64_t)count * per;
		}
		if (b == 0 || b > o->maxb / o->factor)
			return n;
		b *= o->factor;
	}
}

/* Element k of a buffer of dtype d (one mpi_type has) set to 1. */
static void put_one(char *p, size_t k, cs_dtype_t d)
{
	size_t es = cs_dtype_size(d);

	if (d == CS_DTYPE_FLOAT32)
		((float *)p)[k] = 1.0f;
	else if (d == CS_DTYPE_FLOAT64)
		((double *)p)[k] = 1.0;
	else if (es == 1)
		((uint8_t *)p)[k] = 1;
	else if (es == 4)
		((uint32_t *)p)[k] = 1;
	else
		((uint64_t *)p)[k] = 1;
}

/* Buffers for maxcount elements per block, filled with ones; 0 when
 * they cannot be had on some rank (every rank learns it). */
static int alloc_buffers(const opts_t *o, call_t *c, size_t maxcount)
{
	size_t es = cs_dtype_size(o->dtype), n = maxcount * (size_t)c->size;
	int ok = maxcount <= INT_MAX && n / (size_t)c->size == maxcount &&
		 n <= SIZE_MAX / es;
	int all;
	size_t i;

	c->s = ok ? malloc(n * es) : NULL;
	c->r = ok ? malloc(n * es) : NULL;
	ok = ok && c->s && c->r;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	for (i = 0; all && i < n; i++)
		put_one(c->s, i, o->dtype);
	if (all)
		memcpy(c->r, c->s, n * es);
	return all;
}

/* Times of one rank, of all ranks (rank 0), and scratch: 0 on failure. */
static int alloc_times(const opts_t *o, int P, double **t, double **all,
		       double **mx)
{
	*t = malloc((size_t)o->iters * sizeof **t);
	*all = malloc((size_t)o->iters * (size_t)P * sizeof **all);
	*mx = malloc((size_t)o->iters * sizeof **mx);
	return *t && *all && *mx;
}

/* Rank 0 says why (msg, if any), every rank stops with status rc. */
static int stop(int rank, int rc, const char *msg)
{
	if (rank == 0 && msg)
		fprintf(stderr, "bare_loop: %s\n", msg);
	MPI_Finalize();
	return rc;
}

int main(int argc, char **argv)
{
	size_t counts[MAX_SIZES];
	uint64_t bytes[MAX_SIZES];
	double *t = NULL, *all = NULL, *mx = NULL;
	call_t c = {0};
	char msg[200];
	int nsizes, i, ok;
	opts_t o;
	cs_status_t st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c.size);
	st = parse_args(argc, argv, &o);
	if (st == CS_OK && o.help) {
		if (c.rank == 0)
			fputs(usage, stdout);
		return stop(c.rank, 0, NULL);
	}
	if (st != CS_OK) {
		if (c.rank == 0)
			fputs(usage, stderr);
		return stop(c.rank, 2, cs_last_error());
	}
	nsizes = make_sizes(&o, gb_size_blocks(o.coll, c.size) *
				    cs_dtype_size(o.dtype),
			    counts, bytes, MAX_SIZES);
	if (nsizes < 0)
		return stop(c.rank, 2, "more than 64 message sizes: raise -f "
				       "or narrow -b to -e");
	if (!alloc_buffers(&o, &c, counts[nsizes - 1])) {
		snprintf(msg, sizeof msg, "-e %llu: %zu elements per block "
			 "do not fit MPI's int count or this memory",
			 (unsigned long long)o.maxb, counts[nsizes - 1]);
		return stop(c.rank, 2, msg);
	}
	ok = alloc_times(&o, c.size, &t, &all, &mx);
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (ok) {
		c.coll = o.coll;
		c.type = mpi_type(o.dtype);
		c.op = mpi_op(o.op);
		if (c.rank == 0)
			print_header(&o, c.size);
		for (i = 0; i < nsizes; i++) {
			c.count = (int)counts[i];
			run_size(&o, &c, bytes[i], t, all, mx);
		}
	}
	free(t);
	free(all);
	free(mx);
	free(c.s);
	free(c.r);
	return stop(c.rank, ok ? 0 : 2, ok ? NULL : "out of memory for the "
						    "times");
}
