/*
 * worker.h - the worker: the process that runs the cases of one world size
 * on a backend, checks every call and merges the ranks' verdicts.
 *
 * There is one worker for both process models; the ranks it drives and how
 * it reaches the others are a cs_rgroup_t (rgroup.h): one rank per process
 * under mpiexec, or every rank in this process for a backend that drives
 * them all. One case flows through, in order:
 *
 *   suite.c    the case (cs_hcase_t)
 *   exec.c     each local rank's buffers: laid out, allocated, filled,
 *              placed on the device (cs_exec_t)
 *   worker.c   the backend's call on every local rank
 *   check.c    each rank's checks of what it received
 *   worker.c   the checks across ranks (identity, the root's shares)
 *   verdict.c  the ranks' verdicts merged into one cs_result_t
 *   report.c   the reports: JSON Lines (report.c), the table
 *              (report_table.c), JUnit (report_junit.c)
 *
 * worker_start.c sets the run up (outputs, the backend, its communicators)
 * and tears it down.
 */
#ifndef CS_WORKER_H
#define CS_WORKER_H

#include <stdio.h>
#include "check/exec.h"
#include "check/khash.h"
#include "base/names.h"
#include "report/report.h"
#include "base/result.h"
#include "base/options.h"
#include "suite/suite.h"
#include "check/verdict.h"
#include "worker/rgroup.h"
#include "csref/grid.h"

/*
 * Run the cases of o's suite for the world size of g on backend b (NULL:
 * o->backend, loaded here), with reports from the process that drives
 * world rank 0. Collective over g.
 * Returns `collspec run`'s exit status for this world size (0 nothing
 * failed, 1 failures, 2 the run could not start: the reason printed on
 * stderr by the lowest rank that saw it); the same on every rank.
 */
int cs_worker_run(const cs_run_opts_t *o, cs_rgroup_t *g,
		  const cs_backend_t *b);

/* ---- shared by worker.c and worker_start.c ------------------------------ */

/* One communicator variant, per local rank. */
struct cs_wvar {
	int ready;        /* 0 not built, 1 usable, -1 its cases are skipped */
	cs_bcomm_t *comm; /* the backend's communicator */
	int *rank, *size; /* the rank in its group, the group's size */
	char why[256];    /* ready == -1: the skip reason */
	cs_commvar_t slot; /* its groups' slot in the rank group (rgroup.h) */
	int borrowed;     /* comm[] are the world's (not freed with it) */
};

typedef struct cs_worker {
	const cs_run_opts_t *o;
	const cs_backend_t *b;
	cs_rgroup_t *g;
	int n;              /* local ranks: g->nlocal */
	int init_called;    /* the backend's init (or init_all) was called */
	struct cs_wvar var[CS_NUM_COMMVARS];
	/* the pattern suite's groups, one per grid axis (made on first use,
	 * again when the grid changes), and the grid each was made for */
	struct cs_wvar axis[CS_RG_AXES];
	char axis_grid[CS_RG_AXES][CS_GRID_SPEC_MAX + 1];
	FILE *comm_log;     /* the leader, with --comm-log */
	char nodev[256];    /* non-empty: every case is SKIP with this reason */
	int *dev;           /* device memory: local rank i's CUDA device */
	void **stream;      /* device memory: the harness's stream on it */
	cs_exec_t *e;       /* per local rank: the case running */
	cs_local_t *l;      /* per local rank: its verdict */
	/* scratch, allocated before the first case so that no exchange
	 * between ranks can be cut short by an allocation failing */
	int *flag;          /* per local rank: for agreements */
	int *same, *failed; /* per local rank: of the call being checked */
	cs_local_t *all;    /* the leader: every rank's verdict (= l when all
			       ranks are local) */
	cs_khash_t *fp;     /* the identity check's keys and fingerprints */
	void **ptr;         /* per local rank: a buffer to exchange */
	cs_result_t *res;   /* the leader: the case's merged result */
	void *share;        /* a non-root of reduce or gather, ranks in
			       processes: the copy of the root's result
			       (allocated with the case's buffers) */
	cs_report_t *rep;   /* the leader (world rank 0's process), NULL in
			       results-only mode */
	FILE *results;      /* the leader, with --results */
	char backend_name[64];
	double mem_avail;   /* the machine's free memory at the start, bytes
			       (base/memest.h; 0: unknown) */
	int rss;            /* measure each case's peak memory (suite scale) */
} cs_worker_t;

/* Everything before the first case: validation, the suite's cases for
 * this world size (*cases, *n: the caller frees), the outputs, the
 * backend (w->b, loaded from o->backend unless set) and its world
 * communicators. 1 when the run can go on
 * (possibly with every case skipped for want of a device). Collective. */
int cs_worker_start(cs_worker_t *w, cs_hcase_t **cases, size_t *n);

/* One case on every rank w drives: buffers, calls (--repeat), every
 * check, the merge; res is written on the leader only. Collective. */
void cs_worker_case(cs_worker_t *w, const cs_hcase_t *hc, cs_result_t *res);

/* Variant v's communicators, made on first use (collective: every rank
 * asks for the same variants in the same order). */
struct cs_wvar *cs_worker_var(cs_worker_t *w, cs_commvar_t v);

/* The communicators of the groups of grid axis a (pattern suite), made on
 * first use and again when the grid differs from the last one's
 * (collective: every rank asks for the same axes and grids in the same
 * order). An axis whose group is the whole world uses the world's
 * communicators, unsplit (spec/patterns.md section 2.3). */
struct cs_wvar *cs_worker_axis(cs_worker_t *w, const cs_grid_t *grid,
			       cs_grid_axis_t a);

/* Free the communicators, streams and scratch; finalize the backend. */
void cs_worker_stop(cs_worker_t *w);

/* 1 on every rank when ok is 1 on every rank; otherwise the lowest world
 * rank whose ok is 0 prints "collspec run: msg" (unless msg is NULL: it
 * said why already). Collective. */
int cs_worker_agree(cs_worker_t *w, int ok, const char *msg);

#endif /* CS_WORKER_H */
