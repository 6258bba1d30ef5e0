/*
 * bench.h - `collspec bench` (issue 11): the time, algorithm and bus
 * bandwidth of one collective over a range of message sizes, for one or
 * several series (a backend, or an MPI library's algorithm), each message
 * size's last call checked in full by the harness's checker.
 *
 * The command has two sides, like `collspec run`:
 *   bench.c       the command: options, then the series one after the
 *                 other, each run by the driver (driver.h: timeouts,
 *                 crash isolation) with `collspec bench --results ...` as
 *                 its worker; the records read back, printed and saved
 *   bench_args.c  the options (both sides), the sizes, the cases
 *   bench_run.c   the worker: per message size the timing loop, the
 *                 checked last call, the statistics, one record appended
 *                 to the side file (--bench-out)
 *   bench_out.c   the records: busbw factor, statistics, the table, JSON
 *                 lines and CSV (bench_rec.h fixes both forms), and the
 *                 JSON lines read back
 */
#ifndef CS_BENCH_H
#define CS_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include "base/bench_rec.h"
#include "csref/status.h"
#include "base/options.h"
#include "base/result.h"

#define CS_BENCH_MAX_SERIES 32 /* backends plus algorithms */
#define CS_BENCH_MAX_SIZES 32  /* message sizes (cs_filter_t's counts) */
#define CS_BENCH_MAX_ITERS 1000000

/* bench's options, as parsed (both sides). */
typedef struct cs_bench_opts {
	const char *backends[CS_BENCH_MAX_SERIES]; /* --backend, split */
	int nbackends;
	const char *backend_opt;
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;          /* CS_OP_NONE for a collective without op */
	uint64_t minb, maxb; /* -b, -e: bytes */
	uint64_t factor;     /* -f */
	int iters, warmup;   /* -n, -w */
	int check;           /* -c */
	int inplace;         /* --inplace: 0, 1, or -1 both */
	int algs[CS_BENCH_MAX_SERIES]; /* --ompi-alg */
	int nalgs;
	int sizes[CS_MAX_SIZES], nsizes; /* --ranks */
	double timeout;
	const char *json, *csv, *plot, *mpiexec;
	int quiet, verbose, help;
	/* the worker's side (set by the driver side) */
	const char *results;   /* --results FILE: this process is a worker */
	const char *bench_out; /* --bench-out FILE: records appended */
	const char *series;    /* --series NAME */
	size_t first;          /* --first K */
	char *list_buf;        /* the --backend list's copy (freed by caller) */
} cs_bench_opts_t;

/* Parse bench's arguments (argv[0] "bench") into o. CS_OK (also after
 * --help: o->help set, usage printed); CS_ERR_INVALID with the message
 * printed on stderr. The caller frees o->list_buf. */
cs_status_t cs_bench_parse_args(int argc, char **argv, cs_bench_opts_t *o);

/* The message sizes in bytes, -b to -e by -f: n (at most max) written. */
int cs_bench_byte_sizes(const cs_bench_opts_t *o, uint64_t *bytes, int max);

/* (The sizes and bus bandwidth factors are nccl-tests': csref/cost.h's
 * cs_nccl_size_per_count and cs_nccl_busbw_factor.) */

/*
 * The run options that make the worker's cases at world size P: one case
 * per (message size, in place), on the world communicator, root 0, exact
 * inputs, no misalignment, a fixed seed, the full suite filtered to them.
 * The count of a size is bytes / cs_nccl_size_per_count (at least 1;
 * repeated counts are run once). CS_ERR_INVALID when there are more sizes
 * than a filter holds.
 */
cs_status_t cs_bench_run_opts(const cs_bench_opts_t *o, int P,
			      cs_run_opts_t *ro);

/* The worker (`collspec bench --results F ...`): the exit status. */
int cs_bench_worker(const cs_bench_opts_t *o);

/* ---- records (bench_out.c) ---------------------------------------------- */

/* Statistics of one size into r from t[k * nranks + q], rank q's time of
 * iteration k (seconds), for `iters` iterations: per iteration the max
 * over ranks; mean, min, nearest-rank p50/p90/p99, max; algbw and busbw
 * from r->bytes, r->coll and r->nranks; wait_spread. */
void cs_bench_stats(cs_bench_rec_t *r, const double *t, int iters);

/* One record as its JSON line (no newline) into buf; the length needed. */
int cs_bench_rec_json(const cs_bench_rec_t *r, char *buf, size_t n);

/* A JSON line as written by cs_bench_rec_json back into r; CS_ERR_INVALID
 * naming the problem when it is not one. */
cs_status_t cs_bench_rec_from_json(const char *line, cs_bench_rec_t *r);

/* The CSV header line and one record's line (newline included). */
void cs_bench_csv_header(FILE *f);
void cs_bench_rec_csv(FILE *f, const cs_bench_rec_t *r);

/* Write n records as JSON lines or CSV to path; CS_ERR_IO on failure. */
cs_status_t cs_bench_write_json(const char *path, const cs_bench_rec_t *r,
				size_t n);
cs_status_t cs_bench_write_csv(const char *path, const cs_bench_rec_t *r,
			       size_t n);

/* The table of one series at one world size (records of that series and
 * nranks only), nccl-tests' layout: out of place, then in place. */
void cs_bench_table(FILE *f, const cs_bench_rec_t *r, size_t n,
		    const char *series, int nranks);

#endif /* CS_BENCH_H */
