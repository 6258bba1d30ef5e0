/*
 * bench_gpu.c - libcsgpu's collectives on the local GPU(s), reported like
 * nccl-tests: per size and algorithm the time (CUDA events, mean over the
 * timed iterations after warm-up), algbw = size / time, busbw = algbw x
 * nccl-tests' factor, the schedule's memory traffic per second on the
 * busiest device and its ratio to the copy bandwidth measured on device 0
 * in the same run; with two or more GPUs and one rank per GPU, NCCL's
 * allreduce beside it. Figures only: nothing is asserted
 * (docs/gpu-bench.md says what each column means).
 *
 *   bench_gpu [--ranks P] [--algo ring|tree|direct|pairwise|auto|all,...]
 *             [--coll C,...] [--dtype float32,bfloat16,...] [-b 1K]
 *             [-e 1G] [-f 2] [-n iters] [-w warmup] [--time-limit S]
 *             [--json FILE]
 *
 * Exit status: 0 when every row ran (also without a device: it says "no
 * CUDA device"), 1 when a call failed, 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strtok_r */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "csref/catalog.h"
#include "csgpu/coll.h"
#include "csgpu/device.h"
#include "bench_gpu.h"
#include "gpu_metrics.h"

#define GB_MAX_SIZES 64
#define GB_RESERVE ((size_t)512 << 20) /* left free on a device: runtime */

static const char gb_usage[] =
"usage: bench_gpu [options]\n"
"  --ranks P          ranks (default: 8 virtual ranks on one GPU; one per\n"
"                     GPU with two or more GPUs)\n"
"  --algo L           ring,tree,direct,pairwise,auto or all (default\n"
"                     ring,tree); each collective runs those it has\n"
"  --coll L           collectives (default allreduce)\n"
"  --dtype L          element types (default float32,bfloat16)\n"
"  -b, --minbytes N   smallest size, bytes per rank (default 1K)\n"
"  -e, --maxbytes N   largest size (default 1G); suffixes K, M, G\n"
"  -f, --stepfactor F size factor between rows (default 2)\n"
"  -n, --iters N      timed iterations per row (default 20)\n"
"  -w, --warmup N     warm-up iterations per row (default 5)\n"
"  --time-limit S     stop starting rows after S seconds (default: none)\n"
"  --json FILE        also write every figure as JSON\n";

typedef struct gb_opts {
	int P;                 /* 0: the default */
	unsigned algos;        /* bit a: csg_algo_t a is run */
	int ncoll, ndtype;
	cs_coll_t coll[CS_NUM_COLLS];
	cs_dtype_t dtype[CS_NUM_DTYPES];
	size_t minb, maxb;
	size_t factor;
	int iters, warmup;
	double time_limit;     /* seconds; 0: none */
	const char *json;
} gb_opts_t;

typedef struct gb_bench {
	gb_opts_t o;
	int P, ndev, nused;    /* devices seen, devices holding ranks */
	int per_dev, sms;      /* ranks on the busiest device, its SMs */
	csg_world_t *w;
	cudaStream_t stream[CSG_MAX_RANKS];   /* per device used */
	cudaEvent_t ev0[CSG_MAX_RANKS], ev1[CSG_MAX_RANKS];
	void *send[CSG_MAX_RANKS], *recv[CSG_MAX_RANKS];
	size_t cap;            /* bytes of each send and recv buffer */
	double copy_bw;        /* bytes read + written per second */
	gb_nccl_t *nccl;
	FILE *json;
	int nrows, failed, stopped;
	struct timespec t0;
} gb_bench_t;

/* ---- options ------------------------------------------------------------ */

static int gb_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "bench_gpu: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", gb_usage);
	return 2;
}

/* The algorithms' names, as csgpu/sched.h lists them. */
static const char *const gb_algo_names[CSG_NUM_ALGOS] = {
#define GB_ALGO_NAME_(ID, name, desc) name,
	CSG_ALGO_LIST(GB_ALGO_NAME_)
#undef GB_ALGO_NAME_
};

/* Set the bit of each algorithm named in the comma list s ("all": every
 * algorithm but auto). */
static int gb_parse_algos(char *s, unsigned *out)
{
	char *save = NULL, *t;
	int a;

	*out = 0;
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "all")) {
			*out |= (1u << CSG_NUM_ALGOS) - 1 - (1u << CSG_ALGO_AUTO);
			continue;
		}
		for (a = 0; a < CSG_NUM_ALGOS; a++)
			if (!strcmp(t, gb_algo_names[a]))
				break;
		if (a == CSG_NUM_ALGOS)
			return gb_usage_error("unknown algorithm '%s' (ring, "
					      "tree, direct, pairwise, auto, all)",
					      t);
		*out |= 1u << a;
	}
	return *out ? 0 : gb_usage_error("%s", "empty --algo list");
}

static int gb_parse_colls(char *s, gb_opts_t *o)
{
	char *save = NULL, *t;

	o->ncoll = 0;
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->ncoll == CS_NUM_COLLS ||
		    cs_coll_parse(t, &o->coll[o->ncoll]) != CS_OK)
			return gb_usage_error("%s", cs_last_error());
		if (gb_busbw_factor(o->coll[o->ncoll], 2) < 0)
			return gb_usage_error("%s has no nccl-tests size", t);
		o->ncoll++;
	}
	return o->ncoll ? 0 : gb_usage_error("%s", "empty --coll list");
}

static int gb_parse_dtypes(char *s, gb_opts_t *o)
{
	char *save = NULL, *t;

	o->ndtype = 0;
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->ndtype == CS_NUM_DTYPES ||
		    cs_dtype_parse(t, &o->dtype[o->ndtype]) != CS_OK)
			return gb_usage_error("%s", cs_last_error());
		o->ndtype++;
	}
	return o->ndtype ? 0 : gb_usage_error("%s", "empty --dtype list");
}

/* An integer option in min..max. */
static int gb_parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v < min || v > max)
		return gb_usage_error("'%s' is not a count in range", s);
	*out = (int)v;
	return 0;
}

static int gb_parse_bytes(const char *s, size_t *out)
{
	if (gb_parse_size(s, out) != CS_OK || *out == 0)
		return gb_usage_error("'%s' is not a size (e.g. 1K, 64M, 1G)",
				      s);
	return 0;
}

static int gb_parse_seconds(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	if (*s < '0' || *s > '9' || *end || !(*out >= 0 && *out <= 1e6))
		return gb_usage_error("'%s' is not seconds", s);
	return 0;
}

static void gb_defaults(gb_opts_t *o)
{
	memset(o, 0, sizeof *o);
	o->algos = 1u << CSG_ALGO_RING | 1u << CSG_ALGO_TREE;
	o->ncoll = 1;
	o->coll[0] = CS_COLL_ALLREDUCE;
	o->ndtype = 2;
	o->dtype[0] = CS_DTYPE_FLOAT32;
	o->dtype[1] = CS_DTYPE_BFLOAT16;
	o->minb = 1 << 10;
	o->maxb = (size_t)1 << 30;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
}

/* One option with its value v; 0, or the exit status of a usage error. */
static int gb_option(gb_opts_t *o, const char *a, char *v)
{
	int f = 2, rc;

	if (!strcmp(a, "--ranks"))
		return gb_parse_int(v, 1, CSG_MAX_RANKS, &o->P);
	if (!strcmp(a, "--algo"))
		return gb_parse_algos(v, &o->algos);
	if (!strcmp(a, "--coll"))
		return gb_parse_colls(v, o);
	if (!strcmp(a, "--dtype"))
		return gb_parse_dtypes(v, o);
	if (!strcmp(a, "-b") || !strcmp(a, "--minbytes"))
		return gb_parse_bytes(v, &o->minb);
	if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes"))
		return gb_parse_bytes(v, &o->maxb);
	if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
		rc = gb_parse_int(v, 2, 1024, &f);
		o->factor = (size_t)f;
		return rc;
	}
	if (!strcmp(a, "-n") || !strcmp(a, "--iters"))
		return gb_parse_int(v, 1, 1000000, &o->iters);
	if (!strcmp(a, "-w") || !strcmp(a, "--warmup"))
		return gb_parse_int(v, 0, 1000000, &o->warmup);
	if (!strcmp(a, "--time-limit"))
		return gb_parse_seconds(v, &o->time_limit);
	if (!strcmp(a, "--json")) {
		o->json = v;
		return 0;
	}
	return gb_usage_error("unknown option '%s'", a);
}

static int gb_parse_args(int argc, char **argv, gb_opts_t *o)
{
	int i, rc;

	gb_defaults(o);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("%s", gb_usage);
			return -1;
		}
		if (i + 1 == argc)
			return gb_usage_error("option '%s' needs a value",
					      argv[i]);
		if ((rc = gb_option(o, argv[i], argv[i + 1])) != 0)
			return rc;
		i++;
	}
	if (o->minb > o->maxb)
		return gb_usage_error("%s", "-b is above -e");
	return 0;
}

/* ---- small helpers ---------------------------------------------------- */

static double gb_elapsed(const gb_bench_t *b)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - b->t0.tv_sec) +
	       1e-9 * (double)(t.tv_nsec - b->t0.tv_nsec);
}

/* A CUDA call's error as a status; prints nothing. */
static cs_status_t gb_cuda(cudaError_t e, const char *what)
{
	return cs_gpu_error(e, what);
}

/* The sizes of the sweep: minb, minb x f, ... up to maxb. */
static int gb_sizes(const gb_opts_t *o, size_t *size)
{
	size_t s = o->minb;
	int n = 0;

	while (n < GB_MAX_SIZES && s <= o->maxb) {
		size[n++] = s;
		if (s > SIZE_MAX / o->factor)
			break;
		s *= o->factor;
	}
	return n;
}

/* ---- timing ------------------------------------------------------------- */

/* One call to time; ctx is what it needs. */
typedef cs_status_t (*gb_call_fn)(gb_bench_t *b, void *ctx);

/*
 * Mean microseconds of one call: `warmup` calls, then `iters` calls
 * between events recorded on the streams of devices 0..ndev-1; the
 * elapsed time is the longest of those devices'.
 */
static cs_status_t gb_time(gb_bench_t *b, int ndev, gb_call_fn fn, void *ctx,
			   double *usec)
{
	float ms, worst = 0;
	cs_status_t st;
	int i, d;

	for (i = 0; i < b->o.warmup; i++)
		if ((st = fn(b, ctx)) != CS_OK)
			return st;
	for (d = 0; d < ndev; d++)
		if ((st = gb_cuda(cudaEventRecord(b->ev0[d], b->stream[d]),
				  "cudaEventRecord")) != CS_OK)
			return st;
	for (i = 0; i < b->o.iters; i++)
		if ((st = fn(b, ctx)) != CS_OK)
			return st;
	for (d = 0; d < ndev; d++) {
		if ((st = gb_cuda(cudaEventRecord(b->ev1[d], b->stream[d]),
				  "cudaEventRecord")) != CS_OK ||
		    (st = gb_cuda(cudaEventSynchronize(b->ev1[d]),
				  "the timed calls")) != CS_OK ||
		    (st = gb_cuda(cudaEventElapsedTime(&ms, b->ev0[d],
						       b->ev1[d]),
				  "cudaEventElapsedTime")) != CS_OK)
			return st;
		worst = ms > worst ? ms : worst;
	}
	*usec = 1e3 * (double)worst / b->o.iters;
	return CS_OK;
}

/* ---- the copy bandwidth of device 0 -------------------------------------- */

typedef struct gb_copy {
	void *dst, *src;
	size_t bytes;
} gb_copy_t;

static cs_status_t gb_memcpy_call(gb_bench_t *b, void *ctx)
{
	gb_copy_t *c = ctx;

	return gb_cuda(cudaMemcpyAsync(c->dst, c->src, c->bytes,
				       cudaMemcpyDeviceToDevice, b->stream[0]),
		       "cudaMemcpyAsync");
}

static cs_status_t gb_kernel_call(gb_bench_t *b, void *ctx)
{
	gb_copy_t *c = ctx;

	return gb_copy_kernel(c->dst, c->src, c->bytes, 4 * b->sms,
			      b->stream[0]);
}

/* Free bytes of device d, less what is left for the runtime. */
static size_t gb_free_bytes(int d)
{
	size_t fr = 0, total = 0;

	if (cs_dev_set(d) != CS_OK || cudaMemGetInfo(&fr, &total) != cudaSuccess)
		return 0;
	return fr > GB_RESERVE ? fr - GB_RESERVE : 0;
}

/* Time cudaMemcpyAsync and the copy kernel over the largest size that fits
 * twice on device 0; keep the larger bandwidth (read + write bytes/s). */
static cs_status_t gb_copy_bw(gb_bench_t *b, size_t maxb)
{
	gb_copy_t c = { NULL, NULL, maxb };
	double t_cpy = 0, t_ker = 0;
	cs_status_t st;

	while (c.bytes > b->o.minb && 2 * c.bytes > gb_free_bytes(0))
		c.bytes /= 2;
	if ((st = cs_dev_alloc(0, c.bytes, &c.src)) != CS_OK ||
	    (st = cs_dev_alloc(0, c.bytes, &c.dst)) != CS_OK ||
	    (st = cs_dev_set(0)) != CS_OK ||
	    (st = gb_cuda(cudaMemset(c.src, 0x3c, c.bytes), "cudaMemset")) !=
		    CS_OK ||
	    (st = gb_time(b, 1, gb_memcpy_call, &c, &t_cpy)) != CS_OK ||
	    (st = gb_time(b, 1, gb_kernel_call, &c, &t_ker)) != CS_OK)
		goto out_free;
	b->copy_bw = 2.0 * (double)c.bytes / (1e-6 * (t_cpy < t_ker ? t_cpy
								    : t_ker));
	printf("# copy bandwidth of device 0 (%zu bytes; read + write): "
	       "cudaMemcpyAsync %.1f GB/s, copy kernel %.1f GB/s; "
	       "used: %.1f GB/s\n", c.bytes, 2e-3 * (double)c.bytes / t_cpy,
	       2e-3 * (double)c.bytes / t_ker, 1e-9 * b->copy_bw);
	if (b->json)
		fprintf(b->json, "\"copy\":{\"bytes\":%zu,\"memcpy_GBps\":%.4f,"
			"\"kernel_GBps\":%.4f,\"used_GBps\":%.4f},\n", c.bytes,
			2e-3 * (double)c.bytes / t_cpy,
			2e-3 * (double)c.bytes / t_ker, 1e-9 * b->copy_bw);
out_free:
	cs_dev_free(0, c.dst);
	cs_dev_free(0, c.src);
	return st;
}

/* ---- set-up ------------------------------------------------------------------ */

/* Streams and events on every device that holds ranks. */
static cs_status_t gb_streams(gb_bench_t *b)
{
	cs_status_t st;
	int d;

	for (d = 0; d < b->nused; d++) {
		void *s = NULL;

		if ((st = cs_dev_stream_create(d, &s)) != CS_OK)
			return st;
		b->stream[d] = s;
		if ((st = cs_dev_set(d)) != CS_OK ||
		    (st = gb_cuda(cudaEventCreate(&b->ev0[d]),
				  "cudaEventCreate")) != CS_OK ||
		    (st = gb_cuda(cudaEventCreate(&b->ev1[d]),
				  "cudaEventCreate")) != CS_OK)
			return st;
	}
	return CS_OK;
}

/* Free every rank's send and receive buffers. */
static void gb_free_buffers(gb_bench_t *b)
{
	int r, d;

	for (r = 0; r < b->P; r++) {
		d = cs_dev_of_rank(r, b->ndev);
		cs_dev_free(d, b->send[r]);
		cs_dev_free(d, b->recv[r]);
		b->send[r] = b->recv[r] = NULL;
	}
	b->cap = 0;
}

static void gb_teardown(gb_bench_t *b)
{
	int d;

	gb_free_buffers(b);
	gb_nccl_close(b->nccl);
	csg_world_destroy(b->w);
	for (d = 0; d < b->nused; d++) {
		if (cs_dev_set(d) == CS_OK) {
			if (b->ev0[d])
				cudaEventDestroy(b->ev0[d]);
			if (b->ev1[d])
				cudaEventDestroy(b->ev1[d]);
		}
		cs_dev_stream_destroy(d, b->stream[d]);
	}
}

/* JSON string of a device name (printable ASCII; anything else as '?'). */
static void gb_json_name(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s >= 0x20 && *s < 0x7f ? *s : '?', f);
	fputc('"', f);
}

static cs_status_t gb_setup(gb_bench_t *b)
{
	struct cudaDeviceProp prop;
	cs_status_t st;

	b->P = b->o.P ? b->o.P : b->ndev >= 2 ? b->ndev : 8;
	if (b->P > CSG_MAX_RANKS)
		b->P = CSG_MAX_RANKS;
	b->nused = b->P < b->ndev ? b->P : b->ndev;
	b->per_dev = (b->P + b->nused - 1) / b->nused;
	if ((st = gb_cuda(cudaGetDeviceProperties(&prop, 0),
			  "cudaGetDeviceProperties")) != CS_OK)
		return st;
	b->sms = prop.multiProcessorCount;
	printf("# bench_gpu: %d ranks on %d of %d devices (%d on the busiest); "
	       "device 0: %s, %d SMs, %.1f GiB\n", b->P, b->nused, b->ndev,
	       b->per_dev, prop.name, b->sms,
	       (double)prop.totalGlobalMem / (1 << 30));
	if (b->json) {
		fprintf(b->json, "\"ranks\":%d,"
			"\"devices\":%d,\"devices_used\":%d,\"device0\":",
			b->P, b->ndev, b->nused);
		gb_json_name(b->json, prop.name);
		fprintf(b->json, ",\"sms\":%d,\"iters\":%d,\"warmup\":%d,\n",
			b->sms, b->o.iters, b->o.warmup);
	}
	if ((st = csg_world_create(b->P, &b->w)) != CS_OK ||
	    (st = gb_streams(b)) != CS_OK)
		return st;
	return gb_copy_bw(b, b->o.maxb);
}

/* NCCL's allreduce as a yardstick: two or more GPUs, one rank on each. */
static void gb_nccl_setup(gb_bench_t *b)
{
	int i, ar = 0;

	for (i = 0; i < b->o.ncoll; i++)
		ar |= b->o.coll[i] == CS_COLL_ALLREDUCE;
	if (!ar || b->ndev < 2 || b->P != b->ndev) {
		printf("# NCCL: not compared (%s)\n",
		       !ar ? "no allreduce" : b->ndev < 2 ? "one GPU"
							  : "not one rank per GPU");
		return;
	}
	if (gb_nccl_open(b->ndev, &b->nccl) != CS_OK) {
		printf("# NCCL: not compared (%s)\n", cs_last_error());
		b->nccl = NULL;
		return;
	}
	printf("# NCCL: allreduce over the same %d GPUs, same buffers\n",
	       b->ndev);
}

/* ---- buffers ---------------------------------------------------------- */

/* The largest size of the sweep whose send, receive and scratch buffers
 * (3 x size per rank) fit on every device used. */
static size_t gb_fit(const gb_bench_t *b, const size_t *size, int nsize)
{
	size_t fr = SIZE_MAX, f;
	int d, i;

	for (d = 0; d < b->nused; d++)
		if ((f = gb_free_bytes(d)) < fr)
			fr = f;
	for (i = nsize - 1; i >= 0; i--)
		if (size[i] <= fr / 3 / (size_t)b->per_dev)
			return size[i];
	return 0;
}

/* Every rank's send and receive buffers of cap bytes (send filled with
 * 0x3c bytes: about 0.0115 in float32 and bfloat16, so sums stay small;
 * recv with zeros). The previous ones must have been freed. */
static cs_status_t gb_buffers(gb_bench_t *b, size_t cap)
{
	cs_status_t st;
	int r, d;

	for (r = 0; r < b->P; r++) {
		d = cs_dev_of_rank(r, b->ndev);
		if ((st = cs_dev_alloc(d, cap, &b->send[r])) != CS_OK ||
		    (st = cs_dev_alloc(d, cap, &b->recv[r])) != CS_OK ||
		    (st = cs_dev_set(d)) != CS_OK ||
		    (st = gb_cuda(cudaMemset(b->send[r], 0x3c, cap),
				  "cudaMemset")) != CS_OK ||
		    (st = gb_cuda(cudaMemset(b->recv[r], 0, cap),
				  "cudaMemset")) != CS_OK)
			return st;
	}
	b->cap = cap;
	return CS_OK;
}

/* ---- one row ------------------------------------------------------------ */

typedef struct gb_row {
	cs_coll_t coll;
	cs_dtype_t dtype;
	csg_algo_t algo;
	size_t size, n;        /* nccl-tests' size; the count argument */
	double nccl_us;        /* 0: no NCCL figure */
	csg_call_t call;
	void *rs[CSG_MAX_RANKS]; /* stream of each rank */
} gb_row_t;

static cs_status_t gb_csg_call(gb_bench_t *b, void *ctx)
{
	gb_row_t *row = ctx;

	return csg_run(b->w, &row->call, row->rs);
}

static cs_status_t gb_nccl_call(gb_bench_t *b, void *ctx)
{
	gb_row_t *row = ctx;

	return gb_nccl_allreduce(b->nccl, row->dtype, row->n,
				 (const void *const *)b->send, b->recv,
				 (void *const *)b->stream);
}

/* The call of the row: every rank out of place, op sum, root 0; the
 * runtime chooses channels and slices. */
static void gb_row_call(gb_bench_t *b, gb_row_t *row)
{
	csg_call_t *c = &row->call;
	int r;

	memset(c, 0, sizeof *c);
	c->coll = row->coll;
	c->dtype = row->dtype;
	c->op = CS_OP_SUM;
	c->algo = row->algo;
	c->n = row->n;
	for (r = 0; r < b->P; r++) {
		c->send[r] = b->send[r];
		c->recv[r] = b->recv[r];
		row->rs[r] = b->stream[cs_dev_of_rank(r, b->ndev)];
	}
}

static void gb_print_header(const gb_bench_t *b, cs_coll_t coll)
{
	printf("#\n# %12s %12s %11s %8s %11s %11s %11s %13s %7s", "size(B)",
	       "count", "type", "algo", "time(us)", "algbw(GB/s)",
	       "busbw(GB/s)", "traffic(GB/s)", "/copy");
	if (b->nccl && coll == CS_COLL_ALLREDUCE)
		printf(" %11s %11s %11s", "nccl(us)", "nccl_busbw", "busbw/nccl");
	printf("\n");
}

/* The algo column: the name, or for auto "a:" and what auto ran. */
static const char *gb_algo_label(csg_algo_t asked, csg_algo_t ran)
{
	static char label[32];

	if (asked != CSG_ALGO_AUTO)
		return gb_algo_names[asked];
	snprintf(label, sizeof label, "a:%s", gb_algo_names[ran]);
	return label;
}

/* Print and record the figures of a row that ran in usec. */
static void gb_report(gb_bench_t *b, const gb_row_t *row, const csg_plan_t *p,
		      double usec)
{
	size_t es = cs_dtype_size(row->dtype);
	double sec = 1e-6 * usec, f = gb_busbw_factor(row->coll, b->P);
	double algbw = (double)row->size / sec, traffic = 0, t;
	double nbus = row->nccl_us > 0 ? f * row->size / (1e-6 * row->nccl_us)
				       : 0;
	int d;

	for (d = 0; d < b->nused; d++) /* the busiest device's */
		if ((t = (double)gb_traffic_dev(p, es, b->ndev, d)) > traffic)
			traffic = t;
	traffic /= sec;
	printf("  %12zu %12zu %11s %8s %11.2f %11.2f %11.2f %13.2f %7.3f",
	       row->size, row->size / es, cs_dtype_name(row->dtype),
	       gb_algo_label(row->algo, p->algo), usec, 1e-9 * algbw,
	       1e-9 * algbw * f, 1e-9 * traffic, traffic / b->copy_bw);
	if (b->nccl && nbus > 0)
		printf(" %11.2f %11.2f %11.3f", row->nccl_us, 1e-9 * nbus,
		       algbw * f / nbus);
	printf("\n");
	if (b->json)
		fprintf(b->json, "%s", b->nrows ? ",\n" : "");
	b->nrows++;
	if (!b->json)
		return;
	fprintf(b->json, "{\"coll\":\"%s\",\"dtype\":\"%s\",\"algo\":\"%s\","
		"\"algo_run\":\"%s\","
		"\"size\":%zu,\"count\":%zu,"
		"\"time_us\":%.3f,\"algbw_GBps\":%.4f,\"busbw_GBps\":%.4f,"
		"\"traffic_GBps\":%.4f,\"ratio_copy\":%.4f",
		cs_coll_name(row->coll), cs_dtype_name(row->dtype),
		gb_algo_names[row->algo], gb_algo_names[p->algo],
		row->size, row->size / es, usec,
		1e-9 * algbw, 1e-9 * algbw * f, 1e-9 * traffic,
		traffic / b->copy_bw);
	if (nbus > 0)
		fprintf(b->json, ",\"nccl_time_us\":%.3f,\"nccl_busbw_GBps\":"
			"%.4f,\"ratio_nccl\":%.4f", row->nccl_us, 1e-9 * nbus,
			algbw * f / nbus);
	fprintf(b->json, "}");
}

/*
 * Run one row: time it, and take for the traffic the plan csg_run
 * launches (csg_plan_of: the runtime's channels and slices; the traffic
 * does not depend on how the data is cut, see tests/gpu/test_busbw.c).
 */
static cs_status_t gb_row(gb_bench_t *b, gb_row_t *row)
{
	csg_plan_t p;
	double usec;
	cs_status_t st;

	gb_row_call(b, row);
	if ((st = csg_plan_of(b->w, &row->call, &p)) != CS_OK ||
	    (st = gb_time(b, b->nused, gb_csg_call, row, &usec)) != CS_OK ||
	    (st = csg_world_sync(b->w)) != CS_OK)
		return st;
	gb_report(b, row, &p, usec);
	return CS_OK;
}

/* ---- the sweep ---------------------------------------------------------- */

/* 1 (and a note, once) when the time limit is reached. */
static int gb_out_of_time(gb_bench_t *b)
{
	if (b->stopped)
		return 1;
	if (b->o.time_limit <= 0 || gb_elapsed(b) < b->o.time_limit)
		return 0;
	printf("# time limit of %g s reached: the remaining rows are not run\n",
	       b->o.time_limit);
	b->stopped = 1;
	return 1;
}

/* NCCL's time for the row's size, when it is compared (0 otherwise). */
static double gb_nccl_time(gb_bench_t *b, gb_row_t *row)
{
	double usec = 0;

	if (!b->nccl || row->coll != CS_COLL_ALLREDUCE)
		return 0;
	if (gb_time(b, b->nused, gb_nccl_call, row, &usec) != CS_OK) {
		printf("# NCCL %s %zu: %s\n", cs_dtype_name(row->dtype),
		       row->size, cs_last_error());
		return 0;
	}
	return usec;
}

/* Every algorithm of one size; *dead marks algorithms that failed. */
static void gb_size_rows(gb_bench_t *b, gb_row_t *row, unsigned *dead)
{
	int a;

	row->nccl_us = gb_nccl_time(b, row);
	for (a = 0; a < CSG_NUM_ALGOS; a++) {
		if (!(b->o.algos & 1u << a) || *dead & 1u << a ||
		    !csg_algo_supports((csg_algo_t)a, row->coll))
			continue;
		row->algo = (csg_algo_t)a;
		if (gb_row(b, row) != CS_OK) {
			printf("# %s %s %s at %zu bytes: %s; its larger sizes "
			       "are not run\n", cs_coll_name(row->coll),
			       cs_dtype_name(row->dtype), gb_algo_names[a],
			       row->size, cs_last_error());
			*dead |= 1u << a;
			b->failed = 1;
		}
	}
}

static void gb_dtype_rows(gb_bench_t *b, cs_coll_t coll, cs_dtype_t dt,
			  const size_t *size, int nsize, size_t fit)
{
	size_t es = cs_dtype_size(dt);
	unsigned dead = 0;
	gb_row_t row;
	int i;

	memset(&row, 0, sizeof row);
	row.coll = coll;
	row.dtype = dt;
	for (i = 0; i < nsize && !gb_out_of_time(b); i++) {
		if (size[i] > fit) {
			printf("# %zu bytes and above: not run (3 x size x %d "
			       "ranks do not fit in a device's free memory)\n",
			       size[i], b->per_dev);
			return;
		}
		row.n = gb_count_of(coll, b->P, size[i], es);
		row.size = gb_size_of(coll, b->P, row.n, es);
		if (row.n == 0)
			continue; /* below one element per block */
		gb_size_rows(b, &row, &dead);
	}
}

static void gb_sweep(gb_bench_t *b)
{
	size_t size[GB_MAX_SIZES], fit;
	int nsize = gb_sizes(&b->o, size), c, t;

	for (c = 0; c < b->o.ncoll && !gb_out_of_time(b); c++) {
		gb_free_buffers(b);
		fit = gb_fit(b, size, nsize);
		if (fit && gb_buffers(b, fit) != CS_OK) {
			printf("# %s: buffers of %zu bytes: %s\n",
			       cs_coll_name(b->o.coll[c]), fit, cs_last_error());
			b->failed = 1;
			continue;
		}
		printf("#\n# %s%s, out of place, %d ranks\n",
		       cs_coll_name(b->o.coll[c]),
		       cs_coll_reduces(b->o.coll[c]) ? ", op sum" : "", b->P);
		gb_print_header(b, b->o.coll[c]);
		for (t = 0; t < b->o.ndtype && !gb_out_of_time(b); t++)
			gb_dtype_rows(b, b->o.coll[c], b->o.dtype[t], size,
				      nsize, fit);
	}
}

int main(int argc, char **argv)
{
	gb_bench_t b;
	int rc;

	memset(&b, 0, sizeof b);
	clock_gettime(CLOCK_MONOTONIC, &b.t0);
	if ((rc = gb_parse_args(argc, argv, &b.o)) != 0)
		return rc < 0 ? 0 : rc;
	if (b.o.json && !(b.json = fopen(b.o.json, "w"))) {
		perror(b.o.json);
		return 2;
	}
	if ((b.ndev = cs_dev_count()) < 1) {
		printf("bench_gpu: no CUDA device\n");
		if (b.json) {
			fprintf(b.json, "{\"bench\":\"bench_gpu\",\"devices\":0,"
				"\"rows\":[],\"rows_run\":0,\"failed\":false}\n");
			fclose(b.json);
		}
		return 0;
	}
	if (b.json) /* every field below ends with a comma; "failed" last */
		fprintf(b.json, "{\"bench\":\"bench_gpu\",");
	if (gb_setup(&b) != CS_OK) {
		fprintf(stderr, "bench_gpu: %s\n", cs_last_error());
		b.failed = 1;
	} else {
		gb_nccl_setup(&b);
		if (b.json)
			fprintf(b.json, "\"rows\":[\n");
		gb_sweep(&b);
		if (b.json)
			fprintf(b.json, "\n],\"time_limit_reached\":%s,",
				b.stopped ? "true" : "false");
	}
	printf("# bench_gpu: %d rows in %.1f s%s\n", b.nrows, gb_elapsed(&b),
	       b.failed ? "; some calls failed (see above)" : "");
	if (b.json) {
		fprintf(b.json, "\"rows_run\":%d,\"failed\":%s}\n", b.nrows,
			b.failed ? "true" : "false");
		fclose(b.json);
	}
	gb_teardown(&b);
	return b.failed;
}
