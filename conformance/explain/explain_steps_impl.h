/*
 * explain_steps_impl.h - what the files of `explain --steps` share
 * (explain_steps.c: options and the algorithm table; explain_steps_run.c:
 * the lockstep run on tokens and the text; explain_steps_svg.c: the
 * picture; explain_steps_text.c: tokens, ops and steps as text, which
 * both use). Private to conformance/explain/.
 */
#ifndef CS_EXPLAIN_STEPS_IMPL_H
#define CS_EXPLAIN_STEPS_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include "csgpu/sched.h"
#include "csgpu/sched_classic.h"
#include "csref/case.h"
#include "csref/cost.h"
#include "csref/status.h"

/* One algorithm name of --algo. */
struct cs_st_algo {
	const char *name;
	int classic; /* 0: csg_algo_t, 1: csg_classic_t */
	int id;
	cs_algo_t cost; /* the cost model's name for it */
};

/* The plan of one call under one algorithm, and its schedule functions:
 * sched.h's for the kernels' algorithms, sched_classic.h's for the
 * classic ones (one channel, one slice). */
struct cs_st_sched {
	const struct cs_st_algo *a;
	csg_plan_t p;
	size_t *vm; /* alltoallv: cnt, sdis, rdis (3 P*P) */
	const char *pattern; /* alltoallv: the matrix's pattern */
};

static inline int cs_st_steps(const struct cs_st_sched *s)
{
	return s->a->classic
		? csg_cl_base_steps((csg_classic_t)s->a->id, &s->p)
		: csg_base_steps(&s->p);
}

static inline int cs_st_nops(const struct cs_st_sched *s, int r, int t)
{
	return s->a->classic ? csg_cl_nops((csg_classic_t)s->a->id, &s->p, r, t)
			     : csg_nops(&s->p, r, t);
}

static inline csg_op_t cs_st_op(const struct cs_st_sched *s, int r, int t,
				int i)
{
	return s->a->classic
		? csg_cl_get_op((csg_classic_t)s->a->id, &s->p, r, t, 0, i)
		: csg_get_op(&s->p, r, t, 0, i);
}

struct cs_st_tok {
	uint64_t mask;  /* reductions: the contributing ranks */
	uint32_t oidx;  /* data movement: the input element */
	int16_t orank;  /* data movement: its rank */
	uint8_t set;
	uint8_t written; /* written in the step being drawn */
};

struct cs_st_run {
	const cs_case_t *c;
	struct cs_st_sched s;
	int P, reduces, use_tmp, cw; /* cw: widest cell */
	size_t cap;                   /* elements per buffer */
	size_t *nrecv, *ntmp;          /* per rank: cells shown */
	unsigned char *gap;            /* alltoallv: P*cap, 1 = a gap cell */
	struct cs_st_tok *t;           /* [P][3][cap] */
	size_t *sent;                  /* per rank: sent, then received */
	FILE *svg;
	double y;                      /* svg: the next row's top */
};

static inline struct cs_st_tok *cs_st_slot(struct cs_st_run *w, int r,
					   int b, size_t i)
{
	return &w->t[((size_t)r * 3 + (size_t)b) * w->cap + i];
}

/* The svg's row height and the px per character of its 11px monospace
 * font. */
#define CS_ST_ROW 20.0
#define CS_ST_CH 6.7

extern const char *const cs_st_bufname[3];

/* explain_steps_text.c */
/* Token x as a cell's text ("." "r0+r2" "r0-r7" "r1[3]") into buf. */
void cs_st_tok_text(const struct cs_st_run *w, const struct cs_st_tok *x,
		    char *buf, size_t len);
/* Op o as "recv[3:4] <- r3.send[3:4] pre + r0.send[3:4] pre post". */
void cs_st_op_text(const csg_op_t *o, char *buf, size_t len);
/* "reduce" when an op of step t folds two sources or more, else "copy". */
const char *cs_st_step_kind(const struct cs_st_run *w, int t);
/* The ops of step t that move data; *width grows to the longest line. */
int cs_st_count_ops(const struct cs_st_run *w, int t, size_t *width);
/* alltoallv: the count matrix of case c (made by pattern), its gap, and
 * every rank's send and receive displacements. */
void cs_st_print_a2av(const cs_case_t *c, const char *pattern);

/* explain_steps_run.c */
/* Run schedule s on case c: the text to stdout, the picture to svg when
 * not NULL. s stays the caller's. */
cs_status_t cs_st_draw(const cs_case_t *c, const struct cs_st_sched *s,
		       const char *svg);

/* explain_steps_svg.c */
/* The x of the first cell of buffer b (CSG_RECV or CSG_TMP). */
double cs_st_cells_x(const struct cs_st_run *w, int b);
/* Open the picture of T steps (w->svg open): size, title, headings. */
void cs_st_svg_open(struct cs_st_run *w, int T);
/* The band of step t (-1: the state before the first step), nops ops. */
void cs_st_svg_step(struct cs_st_run *w, int t, int nops);

#endif /* CS_EXPLAIN_STEPS_IMPL_H */
