/*
 * explain_steps.h - the teaching pictures of issue 21 that explain.c
 * dispatches to:
 *   --algo NAME --steps  an algorithm step by step, drawn from the very
 *                        schedules the kernels and gpu-sim run
 *                        (csgpu/sched.h) or, for the classic CPU
 *                        algorithms of the cost model, from
 *                        csgpu/sched_classic.h (explain_steps.c);
 *   --inplace            the in-place buffer layouts, NCCL's and MPI's,
 *                        with the root, alltoallv's displacements and gaps
 *                        and reducescatter's unspecified blocks
 *                        (explain_inplace.c).
 * Text to stdout; with --svg FILE one SVG picture as well.
 */
#ifndef CS_EXPLAIN_STEPS_H
#define CS_EXPLAIN_STEPS_H

#include "csref/a2av.h"
#include "csref/case.h"
#include "csref/status.h"

/* The options, zeroed by the caller before parsing. */
struct cs_steps_opts {
	const char *algo; /* --algo NAME, or NULL */
	int steps;        /* --steps */
	int inplace;      /* --inplace */
	int count_set;    /* --count was given (else a default per picture) */
	int ranks_set;    /* --ranks was given (else 4) */
};

/* The lines `collspec explain --help` adds for these options. */
extern const char cs_steps_usage[];

/*
 * Look at the option at argv[0] (argc: the arguments left, >= 1).
 * Returns the number of arguments it consumed (1 for --steps and
 * --inplace, 2 for --algo NAME), 0 when argv[0] is none of these (notes
 * --count and --ranks without consuming them), or -1 with the reason in
 * cs_last_error() (--algo without a name).
 */
int cs_steps_opt(struct cs_steps_opts *o, int argc, char **argv);

/*
 * Run what o asks for on case c (coll, nranks, count, root from explain's
 * options; the alltoallv matrix from pattern), writing the SVG to svg
 * when not NULL. Returns -1 when o asks for neither --steps nor
 * --inplace (explain goes on with its own output), else the exit status:
 * 0, or 2 after printing "collspec explain: REASON" to stderr (an
 * unknown algorithm, one that does not run c's collective, P out of its
 * range, --algo without --steps, both --steps and --inplace).
 */
int cs_steps_run(const struct cs_steps_opts *o, const cs_case_t *c,
		 cs_a2av_pattern_t pattern, const char *svg);

/* explain_inplace.c: --inplace on case c; CS_OK or an error (reason in
 * cs_last_error()). */
cs_status_t cs_explain_inplace(const cs_case_t *c, cs_a2av_pattern_t pattern,
			       const char *svg);

#endif /* CS_EXPLAIN_STEPS_H */
