/*
 * collspec.h - internal interfaces between the parts of the collspec
 * binary that are not in harness.h: backends and their loader, buffers
 * and checks, reporters, and the subcommands.
 */
#ifndef CS_COLLSPEC_H
#define CS_COLLSPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "harness.h"
#include "collspec/backend.h"
#include "csref/compare.h"
#include "csref/stats.h"
#include "checks.h"

/* ---- names.c: extras of harness.h's names ------------------------------- */

const char *cs_commvar_desc(cs_commvar_t v);
const char *cs_a2av_desc(cs_a2av_pattern_t p);
cs_status_t cs_verdict_parse(const char *s, cs_verdict_t *out);

/*
 * One command line that re-runs exactly case hc at world size `world` on
 * backend `backend` ("ref", "plugin:PATH") from suite `suite`: single-valued
 * filters for every field that names the case, each argument quoted for a
 * POSIX shell, the line printable ASCII and UTF-8 only. Returns the length
 * it needs, as snprintf does; when that does not fit in n, buf is "" (a
 * cut line would re-run another case). CS_REPRO_MAX bytes always fit for
 * what the command line accepts (harness.h).
 */
int cs_repro_format(const cs_hcase_t *hc, int world, const char *backend,
		    const char *backend_opt, const char *suite, char *buf,
		    size_t n);

/* ---- backend.c: the backend table and plugin loader --------------------- */

/* The built-in backends, instances of the plugin ABI's struct. */
const cs_backend_t *cs_backend_ref(void);
const cs_backend_t *cs_backend_mpi(void);
/* libcsgpu's schedules on the CPU (backend_gpusim.c), always built. */
const cs_backend_t *cs_backend_gpusim(void);
/* libcsgpu's kernels (backend_gpu.c); NULL when built without CUDA. */
const cs_backend_t *cs_backend_gpu(void);

/*
 * Resolve a --backend value: "ref", "mpi", "nccl", "nccl-local" (when
 * built) or "plugin:PATH" (dlopen'ed and checked: symbol present, ABI
 * version and struct size equal to this harness's). On failure returns CS_ERR_INVALID / CS_ERR_UNSUPPORTED with a
 * message that names the problem (and both versions on a mismatch).
 */
cs_status_t cs_backend_load(const char *spec, const cs_backend_t **out);

/* Check a backend struct against this harness's ABI (origin names it in
 * messages); its name must hold 1 to CS_BACKEND_NAME_MAX bytes. */
cs_status_t cs_backend_validate(const cs_backend_t *b, const char *origin);

/* What the driver learns of a backend without running its code itself. */
typedef struct cs_backend_info {
	char name[CS_BACKEND_NAME_MAX + 1];
	int proc_model;  /* cs_proc_model_t */
	int mem_kind;    /* cs_mem_kind_t */
	int fault;       /* on failure, 1: the plugin crashed, exited or hung
			    while loading (a FAIL of the run), 0: refused */
} cs_backend_info_t;

/*
 * Load backend spec as cs_backend_load does and describe it in *info; a
 * plugin is loaded in a child process (fork), killed after timeout
 * seconds, so that a constructor or entry point that crashes or blocks
 * cannot take this process with it. Returns CS_OK, or an error with a
 * message: info->fault tells a plugin that crashed, exited or did not
 * finish loading in time ("plugin PATH crashed while loading (signal 11,
 * Segmentation fault), in ...") from one refused (no file, no symbol, ABI
 * mismatch). The calling process must not have started MPI or threads.
 */
cs_status_t cs_backend_probe(const char *spec, double timeout,
			     cs_backend_info_t *info);

/*
 * 1 for a backend that declares CS_BACKEND_F_OWN_DEVICES (built in or
 * plugin alike; the nccl ones do): it looks for CUDA devices itself, in
 * init or init_all, and says what it lacks by the ABI's device statuses;
 * for every other device-memory backend the harness counts the devices
 * first and calls no init without one.
 */
int cs_backend_finds_devices(const cs_backend_t *b);

/* When status rc of b's init or init_all is one of the ABI's device
 * statuses (CS_BACKEND_ERR_NODEV, CS_BACKEND_ERR_FEWDEV): the SKIP reason
 * of every case (valid until b's next call); else NULL (an error). */
const char *cs_backend_init_skip(const cs_backend_t *b, int rc);

/* A row of the backend table, for the docs (doctable.h): the built-in
 * backends in their table's order, then plugin:PATH, whether this
 * collspec has them or not. Strings are static; needs is NULL when
 * building it needs nothing more than collspec does. */
typedef struct cs_backend_row {
	const char *name, *runs, *model, *needs;
} cs_backend_row_t;

/* Row i into *row: 1, or 0 past the last row. */
int cs_backend_row(size_t i, cs_backend_row_t *row);

/* The names `--backend` accepts, for --help and `list`: one line per
 * built-in backend (its description, or what building it needs) and one
 * for plugins. */
void cs_backend_print_list(FILE *out);

/* 1 when spec names a built-in backend (built or not) or is plugin:PATH. */
int cs_backend_known(const char *spec);

/* The names --backend accepts, space-separated ("ref mpi ... plugin:PATH"),
 * from the same table (a static string). */
const char *cs_backend_names(void);

/* Bootstrap over an MPI communicator (the harness's channel). The returned
 * object holds its own duplicate of comm; free with cs_boot_free. */
typedef struct cs_mpiboot cs_mpiboot_t;
cs_status_t cs_boot_create(const void *mpi_comm, cs_mpiboot_t **out);
const cs_bootstrap_t *cs_boot_get(const cs_mpiboot_t *b);
void cs_boot_free(cs_mpiboot_t *b);

/* ---- check.c: buffers and the checks a rank makes on its own --------- */

/* Bytes of guard pattern before and after every buffer. */
#define CS_GUARD_BYTES 64

/* One buffer with guard bytes on both sides. */
typedef struct cs_gbuf {
	unsigned char *alloc; /* what malloc returned */
	unsigned char *data;  /* element 0 (after the guard and misalignment) */
	size_t elems;         /* elements between the guards */
	size_t pre;           /* bytes from alloc to data */
	size_t bytes;         /* bytes from alloc, guards included */
	unsigned char *dev;   /* CS_MEM_CUDA: the device copy of alloc's bytes
				 (data at dev + pre), else NULL */
} cs_gbuf_t;

/* One rank's execution of one case on one communicator. */
typedef struct cs_exec {
	cs_case_t c;           /* nranks = communicator size, root inside it */
	int rank;              /* rank in the communicator */
	int inplace, misalign;
	int nbuf;              /* 1 in place (buf[0] only), else 2 */
	cs_gbuf_t buf[2];      /* [0] send buffer, [1] receive buffer */
	size_t so, ro;         /* send offset in buf[0], receive offset in the
				  receive buffer (buf[nbuf-1]), elements */
	size_t send_n, recv_n; /* significant elements */
	int send_free;         /* in place: the send range outside the receive
				  range may be overwritten (reducescatter) */
	size_t *a2av;          /* P*P matrix, then 4*P layout entries */
	size_t *sc, *sd, *rc, *rd;
	unsigned char scalar[8]; /* PREMULSUM scalar, dtype bits */
	int device;            /* CUDA device of the buffers' device copies */
	void *stream;          /* the stream handed to the backend, or NULL */
	uint64_t seed0;        /* the case's own seed (inputs of call 0) */
	int call, ncalls;      /* this call's index, the calls of the case */
	unsigned char *first;  /* the bytes call 0 received (determinism) */
	unsigned char **kept;  /* per call: its received bytes when they differ
				  from call 0's (cs_exec_keep), else NULL */
	unsigned char *img[2][2]; /* [set][buffer]: the buffers' bytes as
				  cs_exec_fill left them, for the case's own
				  inputs (set 0) and the latest fresh ones (1) */
	uint64_t img_seed[2];  /* the seed each set was filled from */
	int img_ok[2];         /* the set holds a complete image */
	int share_root;        /* reduce, gather: every rank checks a share of
				  the root's result (cs_exec_check_root_share)
				  instead of the root checking it alone */
	int result_of;         /* the comm rank whose result is being checked */
} cs_exec_t;

/* A rank's own verdict for one case, gathered to rank 0 and merged. */
typedef struct cs_local {
	int verdict;           /* cs_verdict_t */
	int prio;              /* order of the check that set it (lower first) */
	int rank;              /* world rank */
	int comm_rank;         /* rank in the communicator */
	char check[32];
	char reason[256];
	char detail[1536];
	uint64_t obs[CS_NUM_OBS];
	uint64_t elems, bytes;
	double seconds;
	cs_stats_t stats;      /* random-mode float reductions: the statistics
				  of the elements this rank checked against
				  the oracle (merged over ranks and judged by
				  cs_result_merge) */
} cs_local_t;

void cs_local_init(cs_local_t *l, int world_rank, int comm_rank);

/* Record a verdict from check `check` when it is worse than (or as bad as
 * but from an earlier check than) the one held. detail may be NULL. */
void cs_local_set(cs_local_t *l, cs_verdict_t v, const char *check,
		  const char *reason, const char *detail);

/* Order in which checks' verdicts are preferred (for a known name).
 * checks.h's cs_check_priority gives the same order from the registry. */
int cs_check_prio(const char *check);

/*
 * Lay out and allocate rank `rank`'s buffers for case hc run on a
 * communicator of P ranks: the root is taken modulo P and the alltoallv
 * matrix is built for P. Returns CS_ERR_NOMEM or CS_ERR_OVERFLOW with a
 * message; e is then freed.
 */
cs_status_t cs_exec_setup(cs_exec_t *e, const cs_hcase_t *hc, int P, int rank);
void cs_exec_free(cs_exec_t *e);

/*
 * For a CS_MEM_CUDA backend: give e's buffers device copies on CUDA device
 * dev, of the same bytes (guards and misalignment included, so the element
 * pointers sit at the same offsets), and the stream the calls are made on
 * (e keeps it, does not own it). The backend is then handed the device
 * pointers; cs_exec_put and cs_exec_get move the bytes. On failure e is
 * left as it was (host only), with a message.
 */
cs_status_t cs_exec_to_device(cs_exec_t *e, int dev, void *stream);

/*
 * The calls of one case (--repeat N makes 2N - 1 of them, on the same
 * buffers): even calls use the case's own inputs, so each even call after
 * the first must give the bits of the first (determinism); odd calls use
 * fresh inputs, drawn from a seed derived from the case's and the call's
 * index, so a result cached from an earlier call is wrong. Makes e's next
 * call call k of n: sets the seed (and premulsum scalar) its inputs and
 * expected values come from. Messages then name the call.
 */
void cs_exec_set_call(cs_exec_t *e, int k, int n);

/* 1 when call k uses fresh inputs (odd k), 0 when the case's own. */
int cs_exec_call_fresh(int k);

/* Fill guards, canaries and this rank's input, for the inputs of the call
 * e is set to (cs_exec_set_call). The first fill of a set of inputs
 * generates the bytes and keeps an image of them; a later fill of the same
 * inputs copies the image, and the layout checks compare with it. */
void cs_exec_fill(cs_exec_t *e);

/* Copy every buffer, guards included, to its device copy (put) or back
 * (get). No-ops for host buffers. */
cs_status_t cs_exec_put(const cs_exec_t *e);
cs_status_t cs_exec_get(cs_exec_t *e);

/* The host pointers the checks read (also the pointers handed to a host
 * backend). */
void *cs_exec_sendp(const cs_exec_t *e);
void *cs_exec_recvp(const cs_exec_t *e);

/* The checks a rank makes alone after the call: guards, send buffer,
 * untouched regions (cs_exec_check_layout), and the value of every
 * received element against the oracle (cs_exec_check_values; for
 * collectives that give every rank the same result, each rank verifies its
 * share and the identity check carries it to the others). cs_exec_check
 * makes both. */
void cs_exec_check_layout(const cs_exec_t *e, cs_local_t *l);
void cs_exec_check_values(const cs_exec_t *e, cs_local_t *l);
void cs_exec_check(const cs_exec_t *e, cs_local_t *l);

/*
 * Every check of this rank after call e->call: the layout checks always;
 * the values against the oracle on call 0 and on every fresh-input call;
 * on a later call with call 0's inputs, the received bytes against call
 * 0's (kept in e->first): equal bytes carry call 0's value verdict, others
 * are WARN "determinism" and get the value check of their own. With
 * e->share_root the values are left to cs_exec_check_root_share. Returns
 * 1 when call 0's value verdict holds for these bytes, else 0.
 */
int cs_exec_check_call(cs_exec_t *e, cs_local_t *l);

/*
 * With e->share_root (reduce, gather, in a worker whose ranks are
 * processes): check this rank's share of the root's receive range, got
 * being the root's element 0 as the root received it (a copy sent by the
 * harness), so the oracle's work is split among the ranks instead of left
 * to the root. Messages name the root and the rank that checked.
 */
void cs_exec_check_root_share(cs_exec_t *e, const void *got, cs_local_t *l);

/*
 * Keep what call e->call received until the case ends, for an identity
 * check made after all calls (cs_exec_kept): call 0's bytes are already
 * kept; a later call's only when they differ from call 0's. FAIL "harness"
 * in l when out of memory.
 */
void cs_exec_keep(cs_exec_t *e, cs_local_t *l);

/* The bytes call k (a call already made) received, as kept (n: their
 * size); NULL when they could not be kept (no memory). */
const void *cs_exec_kept(const cs_exec_t *e, int k, size_t *n);

/* The received range's bytes and their size. */
const void *cs_exec_recv_bytes(const cs_exec_t *e, size_t *n);

/* ---- khash.c: the keyed fingerprint of the identity check ---------------- */

/* Two values below 2^61 - 1: a key, or a fingerprint. */
typedef struct cs_khash {
	uint64_t h[2];
} cs_khash_t;

/* Draw a key from the operating system's random source (never from the
 * case's seed: the implementation under test must not know it). Fails with
 * CS_ERR_IO, and a message, when no random bytes can be had. */
cs_status_t cs_khash_key(cs_khash_t *key);

/* The fingerprint of buf[0..n) under key: two different strings collide
 * with probability at most (ceil(n/7) / (2^61 - 2))^2 over the key. */
void cs_khash(const cs_khash_t *key, const void *buf, size_t n,
	      cs_khash_t *out);

/* Call the backend's collective for e, on its device copies and stream when
 * it has them. Returns its status; a collective the backend does not
 * implement returns -1 (the caller skips first). */
int cs_exec_call(const cs_exec_t *e, const cs_backend_t *b, cs_bcomm_t comm);

/* Render bits of dtype d for a message ("1.5 (0x3e00)", "-7"). */
void cs_format_value(cs_dtype_t d, uint64_t bits, char *buf, size_t n);

/* ---- report.c ------------------------------------------------------------ */

typedef struct cs_report_opts {
	const char *json;      /* JSON Lines path or NULL */
	const char *junit;     /* JUnit XML path or NULL */
	const char *backend;   /* for the header */
	const char *suite;
	const char *expect;    /* expectations file (--expect) or NULL: the
				  report loads it and applies it to every
				  result it is given (expect.h) */
	int quiet, verbose, fail_on_warn;
	int progress;          /* 1: draw a progress line (stdout is a tty) */
	FILE *out;             /* the human report (stdout) */
} cs_report_opts_t;

typedef struct cs_report cs_report_t;

/* Open the report files (emptying them once both are open). Fails with
 * CS_ERR_IO naming an unwritable path (or a JUnit path that cannot be
 * rewritten in place: a pipe) before anything is written, leaving both
 * files as they were (a file it had to create is removed again); with o->expect, first reads that
 * file, and fails as cs_expect_load does (naming file, line and problem)
 * before any report file is touched. */
cs_status_t cs_report_open(const cs_report_opts_t *o, cs_report_t **out);
void cs_report_set_total(cs_report_t *r, size_t total);
/* A case is about to run (progress line). */
void cs_report_start(cs_report_t *r, const cs_hcase_t *hc);
/* One final result: table row, JSON line, JUnit testcase, tallies; with
 * expectations, after cs_expect_apply (XFAIL, XPASS). */
void cs_report_add(cs_report_t *r, const cs_result_t *res);
/* Print summary, profile, expectations, failure signatures and totals,
 * close the files and free r. Returns the exit code: 0, or 1 on failures
 * or XPASS (warnings with fail_on_warn), or when every case was skipped
 * (XFAIL is not a failure); 2 when a write to a report failed (each
 * file's first failure is said on stderr as it happens, naming the
 * file). */
int cs_report_close(cs_report_t *r);
/* The run stopped with an environment error: close the files with an error
 * entry so that no partial report claims success, free r. */
void cs_report_abort(cs_report_t *r, const char *why);
/* The run failed as a whole before any case (check "load": the plugin
 * crashed or hung while loading): a FAIL entry of that check with reason
 * why in both files, then close and free r. Returns the exit code: 1, or 2
 * when a report could not be written. */
int cs_report_fail_run(cs_report_t *r, const char *check, const char *why);

/* ---- run.c and the subcommands ------------------------------------------ */

#define CS_MAX_SIZES 1024

/* The options of `collspec run`, as parsed. */
typedef struct cs_run_opts {
	const char *backend, *backend_opt, *suite;
	cs_filter_t f;
	double timeout;
	const char *json, *junit, *results, *mpiexec;
	const char *expect; /* --expect FILE: known failures (expect.h) */
	size_t first; /* --first K: cases with index < K are not run */
	int sizes[CS_MAX_SIZES], nsizes;
	int fail_on_warn, quiet, verbose;
	int repeat;   /* --repeat N: calls per case (see docs/running.md) */
	char **wargs; /* worker arguments (driver mode) */
	int nwargs;
	FILE *out;    /* where the human report goes (the real stdout) */
} cs_run_opts_t;

/*
 * Parse run's arguments (argv[0] is "run") into o, which it initialises.
 * Returns 0, 2 on a usage error (message printed on stderr), or -1 after
 * --help (usage printed). o->wargs is malloc'ed in every case: the caller
 * frees it.
 */
int cs_run_parse_args(int argc, char **argv, cs_run_opts_t *o);

/* Checks that need no MPI: suite name, backend name, count sizes for the
 * largest world size P, and no two of --json, --junit, --results naming
 * the same file. Prints the message; returns 0 or 2. */
int cs_run_validate(const cs_run_opts_t *o, int P);

/* The report options of a run (human report to o->out). */
void cs_run_report_opts(const cs_run_opts_t *o, cs_report_opts_t *ro);

/* The all-ranks-in-one-process worker (inproc.c): runs the cases of world
 * size o->sizes[0] with every rank driven from this process, reporting as
 * the MPI worker does (--results protocol of driver.h, or the report).
 * Returns the exit status. */
int cs_run_inproc(const cs_run_opts_t *o);

/* ---- verdict.c: what both workers share ----------------------------------- */

/* (color, key) of world rank r of W in communicator variant v, as
 * MPI_Comm_split takes them. */
void cs_commvar_split(cs_commvar_t v, int r, int W, int *color, int *key);

/*
 * 0 when backend b takes case hc on communicator comm of nranks ranks, or
 * 1 with the SKIP reason in reason[0..n): a collective it does not
 * implement, or its supports() declining.
 */
int cs_backend_takes(const cs_backend_t *b, cs_bcomm_t comm,
		     const cs_hcase_t *hc, int nranks, char *reason, size_t n);

/* Collectives whose result is the same on every rank. */
int cs_coll_same_everywhere(cs_coll_t c);

/* Identity across the n ranks of one communicator, given each comm
 * rank's fingerprint of its received bits (fp[q]: the keyed fingerprint of
 * comm rank q, or in one process the lowest comm rank whose bits are
 * equal, in h[0]) after call k of ncalls: when some differ from comm
 * rank 0's, the first such rank, if it is l's, gets FAIL "identity". */
void cs_identity_verdict(const cs_khash_t *fp, int n, int k, int ncalls,
			 cs_local_t *l);

/*
 * The result of case hc from the n ranks' own verdicts all[0..n) (world
 * rank order): the worst verdict, the implementation profile, totals, and
 * the re-run command for world size n on o's backend.
 */
void cs_result_merge(const cs_run_opts_t *o, const char *backend_name,
		     const cs_hcase_t *hc, const cs_local_t *all, int n,
		     cs_result_t *res);

/* The re-run line of case hc at world size `world` for run options o:
 * cs_repro_format's, with --repeat when o's is not the default. Returns
 * the length it needs; buf is "" when that does not fit in n. */
int cs_run_repro(const cs_run_opts_t *o, const cs_hcase_t *hc, int world,
		 char *buf, size_t n);

/* The driver protocol (driver.h): one JSON line, flushed. f may be NULL. */
void cs_results_line(FILE *f, const cs_result_t *r);

/* The "start" line of case hc (check "start"). */
void cs_results_start(FILE *f, const cs_hcase_t *hc, const char *backend);

/* Parse "1-8", "2,4,8", "4" into sizes[0..*n) (at most max). */
cs_status_t cs_parse_ranks(const char *spec, int *sizes, int max, int *n);
/* Parse a count: decimal, optional k/K, m/M, g/G suffix (powers of 1024). */
cs_status_t cs_parse_count(const char *s, size_t *out);

/* The subcommands: argv[0] is the subcommand's name; each returns the
 * process exit status (0 ok, 1 failures, 2 usage or environment error). */
int cs_cmd_run(int argc, char **argv);
int cs_cmd_list(int argc, char **argv);
int cs_cmd_selfcheck(int argc, char **argv);
int cs_cmd_explain(int argc, char **argv);

#endif /* CS_COLLSPEC_H */
