/*
 * explain_steps.c - `collspec explain COLL --algo NAME --steps`: one
 * algorithm step by step, every op taken from the schedule functions the
 * CUDA kernels and gpu-sim call (csg_nops and csg_get_op of
 * csgpu/sched.h), or for the classic CPU algorithms from
 * csgpu/sched_classic.h; nothing here restates an algorithm.
 *
 * The picture runs the plan (one channel, one slice, out of place) on
 * tokens, in lockstep like the symbolic checker: every slot of every
 * rank's RECV and TMP holds nothing yet, the contributions of a
 * reduction ("r0+r1+r2", runs of four or more ranks as "r0-r7"), or for
 * data movement the input element it carries ("r1[3]": rank 1's send
 * element 3). After each step: the ops of every rank, then the state.
 * At the end: how many elements each rank sent (elements other ranks
 * read from its buffers; the model is pull) and received, the busiest
 * rank's counts over the cost model's n, and the cost model's b(P)
 * beside them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csgpu/sched.h"
#include "csgpu/sched_classic.h"
#include "csref/cost.h"
#include "explain/explain_steps.h"

const char cs_steps_usage[] =
"\n"
"--algo NAME --steps draws algorithm NAME step by step from the schedules\n"
"the kernels run (gpu/include/csgpu/sched.h: ring tree direct pairwise) or\n"
"the classic ones of the cost model (csgpu/sched_classic.h: rd rhd\n"
"binomial; rabenseifner is rhd allreduce): per step who reads what from\n"
"whom, and every rank's buffers. Default 4 ranks, a count of one element\n"
"per chunk; P at most 16. --inplace draws the in-place layouts instead\n"
"(NCCL's and MPI's, the root, alltoallv's displacements and gaps).\n";

/* ---- the algorithms ------------------------------------------------------ */

static const struct algo_row {
	const char *name;
	int classic; /* 0: csg_algo_t, 1: csg_classic_t */
	int id;
	cs_algo_t cost; /* the cost model's name for it */
} algos[] = {
	{"ring", 0, CSG_ALGO_RING, CS_ALGO_RING},
	{"tree", 0, CSG_ALGO_TREE, CS_ALGO_TREE},
	{"direct", 0, CSG_ALGO_DIRECT, CS_ALGO_DIRECT},
	{"pairwise", 0, CSG_ALGO_PAIRWISE, CS_ALGO_PAIRWISE},
	{"rd", 1, CSG_CL_RD, CS_ALGO_RD},
	{"rhd", 1, CSG_CL_RHD, CS_ALGO_RHD},
	{"rabenseifner", 1, CSG_CL_RHD, CS_ALGO_RHD},
	{"binomial", 1, CSG_CL_BINOMIAL, CS_ALGO_BINOMIAL},
};
#define NALGOS (sizeof algos / sizeof algos[0])

static int row_serves(const struct algo_row *a, cs_coll_t c)
{
	if (!strcmp(a->name, "rabenseifner"))
		return c == CS_COLL_ALLREDUCE;
	return a->classic ? csg_cl_supports((csg_classic_t)a->id, c)
			  : csg_algo_supports((csg_algo_t)a->id, c);
}

/* "ring tree" for coll c, or every name when c is CS_NUM_COLLS. */
static void algo_list(cs_coll_t c, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < NALGOS && at < len; i++)
		if (c == CS_NUM_COLLS || row_serves(&algos[i], c))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? " " : "", algos[i].name);
}

/* The colls algorithm a serves, "allreduce broadcast". */
static void coll_list(const struct algo_row *a, char *buf, size_t len)
{
	size_t at = 0;
	int c;

	buf[0] = 0;
	for (c = 0; c < CS_NUM_COLLS && at < len; c++)
		if (row_serves(a, (cs_coll_t)c))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? " " : "",
					       cs_coll_name((cs_coll_t)c));
}

/* ---- the schedule -------------------------------------------------------- */

struct sched {
	const struct algo_row *a;
	csg_plan_t p;
	size_t *vm; /* alltoallv: cnt, sdis, rdis (3 P*P) */
};

static int sch_steps(const struct sched *s)
{
	return s->a->classic
		? csg_cl_base_steps((csg_classic_t)s->a->id, &s->p)
		: csg_base_steps(&s->p);
}

static int sch_nops(const struct sched *s, int r, int t)
{
	return s->a->classic ? csg_cl_nops((csg_classic_t)s->a->id, &s->p, r, t)
			     : csg_nops(&s->p, r, t);
}

static csg_op_t sch_op(const struct sched *s, int r, int t, int i)
{
	return s->a->classic
		? csg_cl_get_op((csg_classic_t)s->a->id, &s->p, r, t, 0, i)
		: csg_get_op(&s->p, r, t, 0, i);
}

/* The alltoallv matrix of case c in the plan's form. */
static cs_status_t build_vmat(const cs_case_t *c, struct sched *s)
{
	size_t P = (size_t)c->nranks, q, r, *sc, *sd, *rc, *rd;

	s->vm = calloc(7 * P * P + 1, sizeof *s->vm);
	if (!s->vm)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	sc = s->vm + 3 * P * P;
	sd = sc + P;
	rc = sd + P;
	rd = rc + P;
	for (q = 0; q < P; q++) {
		cs_a2av_layout(c, (int)q, sc, sd, rc, rd);
		for (r = 0; r < P; r++) {
			s->vm[q * P + r] = sc[r];
			s->vm[P * P + q * P + r] = sd[r];
			/* rank q receives from r at rd[r] */
			s->vm[2 * P * P + q * P + r] = rd[r];
		}
	}
	return CS_OK;
}

/* The plan of c under algorithm a; CS_OK or the reason. */
static cs_status_t make_sched(const cs_case_t *c, const struct algo_row *a,
			      struct sched *s)
{
	csg_vmat_t v = {NULL, NULL, NULL};
	size_t PP = (size_t)c->nranks * (size_t)c->nranks;
	char colls[128];
	cs_status_t st;
	int rc;

	s->a = a;
	s->vm = NULL;
	if (!row_serves(a, c->coll)) {
		coll_list(a, colls, sizeof colls);
		algo_list(c->coll, colls + 64, 64);
		return cs_error(CS_ERR_INVALID, "--algo %s does not run %s (it "
				"runs %s); algorithms for %s: %s", a->name,
				cs_coll_name(c->coll), colls,
				cs_coll_name(c->coll), colls + 64);
	}
	if (c->coll == CS_COLL_ALLTOALLV) {
		if ((st = build_vmat(c, s)) != CS_OK)
			return st;
		v.cnt = s->vm;
		v.sdis = s->vm + PP;
		v.rdis = s->vm + 2 * PP;
	}
	if (a->classic) {
		rc = csg_cl_plan_init(&s->p, c->coll, (csg_classic_t)a->id,
				      c->nranks, c->root, 0, c->count, 1, 1);
		if (rc == CSG_CL_ENOTPOW2)
			return cs_error(CS_ERR_INVALID, "--algo %s needs P a "
					"power of two (P=%d; "
					"gpu/include/csgpu/sched_classic.h "
					"refuses the others)", a->name,
					c->nranks);
	} else {
		rc = csg_plan_init(&s->p, c->coll, (csg_algo_t)a->id,
				   c->nranks, c->root, 0, c->count, 4, 1, 1, v);
	}
	if (rc)
		return cs_error(CS_ERR_INVALID, "no plan for %s by %s at P=%d "
				"root %d", cs_coll_name(c->coll), a->name,
				c->nranks, c->root);
	return CS_OK;
}

/* ---- tokens ------------------------------------------------------------------ */

struct tok {
	uint64_t mask;  /* reductions: the contributing ranks */
	uint32_t oidx;  /* data movement: the input element */
	int16_t orank;  /* data movement: its rank */
	uint8_t set;
	uint8_t written; /* written in the step being drawn */
};

struct run {
	const cs_case_t *c;
	struct sched s;
	int P, reduces, use_tmp, cw; /* cw: widest cell */
	size_t cap;                   /* elements per buffer */
	size_t *nrecv, *ntmp;          /* per rank: cells shown */
	unsigned char *gap;            /* alltoallv: P*cap, 1 = a gap cell */
	struct tok *t;                 /* [P][3][cap] */
	size_t *sent;                  /* per rank: sent, then received */
	FILE *svg;
	double y;                      /* svg: the next row's top */
};

static struct tok *slot(struct run *w, int r, int b, size_t i)
{
	return &w->t[((size_t)r * 3 + (size_t)b) * w->cap + i];
}

/* The text of token x into buf. */
static void tok_text(const struct run *w, const struct tok *x, char *buf,
		     size_t len)
{
	size_t at = 0;
	int r, e;

	if (!x->set) {
		snprintf(buf, len, ".");
		return;
	}
	if (!w->reduces) {
		snprintf(buf, len, "r%d[%u]", x->orank, (unsigned)x->oidx);
		return;
	}
	buf[0] = 0;
	for (r = 0; r < w->P && at < len; r = e) {
		if (!(x->mask >> r & 1)) {
			e = r + 1;
			continue;
		}
		for (e = r; e < w->P && (x->mask >> e & 1); e++)
			;
		if (e - r >= 4)
			at += (size_t)snprintf(buf + at, len - at, "%sr%d-r%d",
					       at ? "+" : "", r, e - 1);
		else
			for (; r < e && at < len; r++)
				at += (size_t)snprintf(buf + at, len - at,
						       "%sr%d", at ? "+" : "", r);
	}
}

static const char *const bufname[3] = {"send", "recv", "tmp"};

/* One op as text: "recv[3:4] <- r3.send[3:4] pre + r0.send[3:4] pre". */
static void op_text(const csg_op_t *o, char *buf, size_t len)
{
	size_t at;
	int m;

	at = (size_t)snprintf(buf, len, "%s[%zu:%zu] <-", bufname[o->dst.buf],
			      o->dst.off, o->dst.off + o->n);
	for (m = 0; m < o->nsrc && at < len; m++)
		at += (size_t)snprintf(buf + at, len - at, "%s r%d.%s[%zu:%zu]%s",
				       m ? " +" : "", o->src[m].rank,
				       bufname[o->src[m].buf], o->src[m].off,
				       o->src[m].off + o->n,
				       o->pre[m] >= 0 ? " pre" : "");
	if (o->post && at < len)
		snprintf(buf + at, len - at, " post");
}

/* Check that op o stays inside the buffers (the checker proves the
 * schedules; this guards the drawing against a stale build). */
static int op_fits(const struct run *w, const csg_op_t *o)
{
	int m;

	if (o->dst.rank < 0 || o->dst.rank >= w->P || o->dst.off + o->n > w->cap)
		return 0;
	for (m = 0; m < o->nsrc; m++)
		if (o->src[m].rank < 0 || o->src[m].rank >= w->P ||
		    o->src[m].buf < 0 || o->src[m].buf > 2 ||
		    o->src[m].off + o->n > w->cap)
			return 0;
	return 1;
}

/* Element j of op o's result. */
static struct tok op_elem(struct run *w, const csg_op_t *o, size_t j)
{
	struct tok res, *x;
	int m;

	memset(&res, 0, sizeof res);
	for (m = 0; m < o->nsrc; m++) {
		x = slot(w, o->src[m].rank, o->src[m].buf, o->src[m].off + j);
		if (!x->set)
			continue; /* the checker proves this never happens */
		if (!res.set) {
			res = *x;
		} else {
			res.mask |= x->mask;
		}
	}
	res.written = 1;
	return res;
}

/* ---- svg ---------------------------------------------------------------------- */

#define SV_ROW 20.0
#define SV_CH 6.7 /* px per character of the 11px monospace font */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

static const char *const palette[8] = {"#8ecae6", "#ffb703", "#90be6d",
	"#f4978e", "#cdb4db", "#f9c74f", "#a8dadc", "#e9c46a"};

/* The fill of a cell: a reduction greener the more ranks it holds, a
 * moved element the colour of its rank, a gap grey. */
static void cell_fill(const struct run *w, const struct tok *x, int gap,
		      char *buf, size_t len)
{
	int k = 0, r;

	if (gap) {
		snprintf(buf, len, "#d9d9d9");
	} else if (!x->set) {
		snprintf(buf, len, "#ffffff");
	} else if (!w->reduces) {
		snprintf(buf, len, "%s", palette[x->orank % 8]);
	} else {
		for (r = 0; r < w->P; r++)
			k += (int)(x->mask >> r & 1);
		snprintf(buf, len, "hsl(130,45%%,%d%%)",
			 92 - 40 * k / (w->P > 1 ? w->P : 1));
	}
}

static double cells_x(const struct run *w, int b)
{
	double x = 70;

	if (b == CSG_TMP)
		x += (double)w->nrecv[w->P] * (w->cw * SV_CH + 8) + 30;
	return x;
}

static void svg_cells(struct run *w, int r, int b, size_t n)
{
	double cw = w->cw * SV_CH + 8, x0 = cells_x(w, b);
	char txt[96], fill[32];
	struct tok *x;
	size_t i;
	int gap;

	for (i = 0; i < n; i++) {
		x = slot(w, r, b, i);
		gap = b == CSG_RECV && w->gap && w->gap[(size_t)r * w->cap + i];
		cell_fill(w, x, gap, fill, sizeof fill);
		fprintf(w->svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
			"stroke-width=\"%s\"/>\n", x0 + (double)i * cw, w->y,
			cw, SV_ROW - 2, fill, x->written ? "#000" : "#999",
			x->written ? "2" : "0.7");
		if (gap)
			snprintf(txt, sizeof txt, "gap");
		else
			tok_text(w, x, txt, sizeof txt);
		fprintf(w->svg, "<text x=\"%.1f\" y=\"%.1f\">", x0 +
			(double)i * cw + 4, w->y + 13);
		xml_text(w->svg, txt);
		fputs("</text>\n", w->svg);
	}
}

/* ---- one step ----------------------------------------------------------------- */

struct pend {
	int r, b;
	size_t i;
	struct tok t;
};

/* Gather the writes of step t (lockstep: every read before any write). */
static cs_status_t step_writes(struct run *w, int t, struct pend **out,
			       size_t *nout)
{
	struct pend *pd = NULL, *np;
	size_t n = 0, capn = 0, j;
	csg_op_t o;
	int r, i, m;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < sch_nops(&w->s, r, t); i++) {
			o = sch_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			if (!op_fits(w, &o)) {
				free(pd);
				return cs_error(CS_ERR_INTERNAL, "rank %d step "
						"%d op %d leaves the buffers",
						r, t, i);
			}
			for (m = 0; m < o.nsrc; m++)
				if (o.src[m].rank != r) {
					w->sent[o.src[m].rank] += o.n;
					w->sent[w->P + r] += o.n;
				}
			if (n + o.n > capn) {
				capn = 2 * (n + o.n);
				if (!(np = realloc(pd, capn * sizeof *pd))) {
					free(pd);
					return cs_error(CS_ERR_NOMEM, "out of "
							"memory");
				}
				pd = np;
			}
			for (j = 0; j < o.n; j++) {
				pd[n].r = r;
				pd[n].b = o.dst.buf;
				pd[n].i = o.dst.off + j;
				pd[n++].t = op_elem(w, &o, j);
			}
		}
	*out = pd;
	*nout = n;
	return CS_OK;
}

/* Print (and draw) the ops of step t. */
static void print_ops(struct run *w, int t, int draw)
{
	char txt[512];
	csg_op_t o;
	int r, i, line = 0;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < sch_nops(&w->s, r, t); i++) {
			o = sch_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			op_text(&o, txt, sizeof txt);
			if (!draw) {
				printf("  r%d: %s\n", r, txt);
				continue;
			}
			fprintf(w->svg, "<text x=\"%.1f\" y=\"%.1f\" "
				"fill=\"#333\">r%d: ", cells_x(w, CSG_TMP) +
				(w->use_tmp ? (double)w->ntmp[w->P] *
				 (w->cw * SV_CH + 8) + 30 : 0), w->y + 13 +
				SV_ROW * line++, r);
			xml_text(w->svg, txt);
			fputs("</text>\n", w->svg);
		}
}

/* Print the state after a step: every rank's recv (and tmp). */
static void print_state(struct run *w)
{
	char txt[96];
	size_t i;
	int r, b;

	printf("  state:\n");
	for (r = 0; r < w->P; r++)
		for (b = CSG_RECV; b <= CSG_TMP; b++) {
			size_t n = b == CSG_RECV ? w->nrecv[r] : w->ntmp[r];

			if (b == CSG_TMP && !w->use_tmp)
				continue;
			printf("    r%-2d %-4s", r, bufname[b]);
			if (!n)
				printf(" (none on this rank)");
			for (i = 0; i < n; i++) {
				if (b == CSG_RECV && w->gap &&
				    w->gap[(size_t)r * w->cap + i])
					snprintf(txt, sizeof txt, "_");
				else
					tok_text(w, slot(w, r, b, i), txt,
						 sizeof txt);
				printf(" %-*s", w->cw, txt);
			}
			printf("\n");
		}
}

/* "reduce" when some op of step t folds two or more sources, else
 * "copy". */
static const char *step_kind(const struct run *w, int t)
{
	int r, i;
	csg_op_t o;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < sch_nops(&w->s, r, t); i++) {
			o = sch_op(&w->s, r, t, i);
			if (o.nsrc > 1 && o.n)
				return "reduce";
		}
	return "copy";
}

/* The svg band of step t (-1: before the first step). */
static void draw_step(struct run *w, int t, int nops)
{
	int r;

	fprintf(w->svg, "<text x=\"10\" y=\"%.1f\" font-weight=\"bold\">",
		w->y + 14);
	if (t < 0)
		fprintf(w->svg, "before step 0");
	else
		fprintf(w->svg, "step %d: %s", t, step_kind(w, t));
	fputs("</text>\n", w->svg);
	w->y += SV_ROW;
	if (t >= 0)
		print_ops(w, t, 1);
	for (r = 0; r < w->P; r++) {
		fprintf(w->svg, "<text x=\"10\" y=\"%.1f\">r%d</text>\n",
			w->y + 13, r);
		svg_cells(w, r, CSG_RECV, w->nrecv[r]);
		if (w->use_tmp)
			svg_cells(w, r, CSG_TMP, w->ntmp[r]);
		w->y += SV_ROW;
	}
	if (nops > w->P)
		w->y += SV_ROW * (nops - w->P);
	w->y += 10;
}

/* Ops of step t with something to do; *width: the longest op line. */
static int count_ops(const struct run *w, int t, size_t *width)
{
	int r, i, n = 0;
	char txt[512];
	csg_op_t o;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < sch_nops(&w->s, r, t); i++) {
			o = sch_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			n++;
			op_text(&o, txt, sizeof txt);
			if (strlen(txt) + 5 > *width)
				*width = strlen(txt) + 5;
		}
	return n;
}

/* ---- the run -------------------------------------------------------------------- */

/* Reset the tokens: send inputs, everything else empty. */
static void reset(struct run *w)
{
	size_t i, ns;
	int r;

	memset(w->t, 0, (size_t)w->P * 3 * w->cap * sizeof *w->t);
	memset(w->sent, 0, 2 * (size_t)w->P * sizeof *w->sent);
	for (r = 0; r < w->P; r++) {
		ns = cs_case_send_count(w->c, r);
		for (i = 0; i < ns && i < w->cap; i++) {
			struct tok *x = slot(w, r, CSG_SEND, i);

			x->set = 1;
			x->mask = (uint64_t)1 << r;
			x->orank = (int16_t)r;
			x->oidx = (uint32_t)i;
		}
	}
}

/* Run every step; out: 0 measure only, 1 print and draw. */
static cs_status_t run_all(struct run *w, int out)
{
	int T = sch_steps(&w->s), t, r, b;
	struct pend *pd = NULL;
	size_t n = 0, j, i, opw = 0;
	char txt[96];
	cs_status_t st;

	reset(w);
	if (out && w->svg)
		draw_step(w, -1, 0);
	for (t = 0; t < T; t++) {
		if ((st = step_writes(w, t, &pd, &n)) != CS_OK)
			return st;
		for (r = 0; r < w->P; r++)
			for (b = CSG_RECV; b <= CSG_TMP; b++)
				for (i = 0; i < w->cap; i++)
					slot(w, r, b, i)->written = 0;
		for (j = 0; j < n; j++) {
			*slot(w, pd[j].r, pd[j].b, pd[j].i) = pd[j].t;
			if (pd[j].b == CSG_TMP)
				w->use_tmp = 1;
			tok_text(w, &pd[j].t, txt, sizeof txt);
			if ((int)strlen(txt) > w->cw)
				w->cw = (int)strlen(txt);
		}
		free(pd);
		if (!out)
			continue;
		printf("\nstep %d: %s\n", t, step_kind(w, t));
		print_ops(w, t, 0);
		print_state(w);
		if (w->svg)
			draw_step(w, t, count_ops(w, t, &opw));
	}
	return CS_OK;
}

/* The cost model's n of the call, in elements: count, or count * P for
 * the collectives whose n is the whole vector (csref/cost.h). */
static size_t model_elems(const cs_case_t *c)
{
	if (c->coll == CS_COLL_ALLGATHER || c->coll == CS_COLL_REDUCESCATTER ||
	    c->coll == CS_COLL_ALLTOALL)
		return c->count * (size_t)c->nranks;
	return c->count;
}

/* Per rank the elements of a[0..P-1], and the busiest rank's count
 * over the cost model's n. */
static void print_counts(const struct run *w, const size_t *a,
			 const char *what, const char *busiest)
{
	size_t most = 0, n = model_elems(w->c);
	int r;

	printf("\nelements each rank %s, over all steps:\n ", what);
	for (r = 0; r < w->P; r++) {
		printf(" r%d %zu", r, a[r]);
		if (a[r] > most)
			most = a[r];
	}
	printf("\n%s: %zu elements", busiest, most);
	if (n && w->c->coll != CS_COLL_ALLTOALLV)
		printf(" = %.4g n (n = %zu elements, the cost model's n)",
		       (double)most / (double)n, n);
	printf("\n");
}

static void print_sent(struct run *w)
{
	cs_cost_coef_t cf;

	print_counts(w, w->sent, "sent (read from its buffers by other ranks)",
		     "busiest rank");
	print_counts(w, w->sent + w->P, "received (read from other ranks' "
		     "buffers)", "busiest receiver");
	if (cs_cost_coef(w->c->coll, w->s.a->cost, w->P, &cf) == CS_OK)
		printf("cost model (collspec model): b(P) = %.4g for %s %s at "
		       "P=%d\n", cf.b, cs_coll_name(w->c->coll),
		       cs_algo_name(w->s.a->cost), w->P);
	else
		printf("cost model (collspec model): no b(P) for %s %s\n",
		       cs_coll_name(w->c->coll), cs_algo_name(w->s.a->cost));
}

/* Cells shown and alltoallv's gap cells. */
static cs_status_t shape(struct run *w)
{
	size_t P = (size_t)w->P, ns, nr, *a, k;
	int r, q;

	w->cap = 1;
	w->nrecv = calloc(2 * (P + 1), sizeof *w->nrecv);
	if (!w->nrecv)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	w->ntmp = w->nrecv + P + 1;
	for (r = 0; r < w->P; r++) {
		ns = cs_case_send_count(w->c, r);
		nr = cs_case_recv_count(w->c, r);
		w->nrecv[r] = nr;
		w->ntmp[r] = ns;
		if (nr > w->nrecv[P])
			w->nrecv[P] = nr;
		if (ns > w->ntmp[P])
			w->ntmp[P] = ns;
		if (ns + 1 > w->cap)
			w->cap = ns + 1;
		if (nr + 1 > w->cap)
			w->cap = nr + 1;
	}
	if (w->c->coll != CS_COLL_ALLTOALLV)
		return CS_OK;
	if (!(w->gap = calloc(P * w->cap, 1)) ||
	    !(a = calloc(4 * P, sizeof *a)))
		return cs_error(CS_ERR_NOMEM, "out of memory");
	for (r = 0; r < w->P; r++) {
		cs_a2av_layout(w->c, r, a, a + P, a + 2 * P, a + 3 * P);
		for (q = 0; q < w->P; q++)
			for (k = 0; k < w->c->a2av_gap; k++)
				w->gap[(size_t)r * w->cap + a[3 * P + q] +
				       a[2 * P + q] + k] = 1;
	}
	free(a);
	return CS_OK;
}

static void free_run(struct run *w)
{
	free(w->s.vm);
	free(w->nrecv);
	free(w->gap);
	free(w->t);
	free(w->sent);
}

static void svg_open(struct run *w, double width, double height)
{
	fprintf(w->svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		width, height);
}

/* The alltoallv count matrix and the gap. */
static void print_matrix(const cs_case_t *c)
{
	size_t P = (size_t)c->nranks, q, r;

	printf("count matrix M[src][dst], a gap of %zu after every block:\n",
	       c->a2av_gap);
	for (q = 0; q < P; q++) {
		printf("   ");
		for (r = 0; r < P; r++)
			printf(" %3zu", c->a2av_counts[q * P + r]);
		printf("\n");
	}
}

/* The whole picture and text of case c under algorithm a. */
static cs_status_t steps(const cs_case_t *c, const struct algo_row *a,
			 const char *svg)
{
	struct run w;
	cs_status_t st;
	int T, t, extra = 0, k;
	double width, height;
	size_t opw = 40;

	memset(&w, 0, sizeof w);
	w.c = c;
	w.P = c->nranks;
	w.reduces = cs_coll_reduces(c->coll);
	w.cw = 5;
	if ((st = make_sched(c, a, &w.s)) != CS_OK || (st = shape(&w)) != CS_OK)
		goto out_free;
	w.t = calloc((size_t)w.P * 3 * w.cap, sizeof *w.t);
	w.sent = calloc(2 * (size_t)w.P, sizeof *w.sent);
	if (!w.t || !w.sent) {
		st = cs_error(CS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	if ((st = run_all(&w, 0)) != CS_OK)
		goto out_free;
	T = sch_steps(&w.s);
	printf("%s by %s at P=%d, count %zu: %d steps, each op taken from "
	       "%s\n", cs_coll_name(c->coll), a->name, w.P, c->count, T,
	       a->classic
	       ? "csg_cl_get_op (gpu/include/csgpu/sched_classic.h)"
	       : "csg_get_op (gpu/include/csgpu/sched.h), as the kernels "
		 "and gpu-sim run it");
	if (cs_coll_rooted(c->coll))
		printf("root %d\n", c->root);
	if (c->coll == CS_COLL_ALLTOALLV)
		print_matrix(c);
	printf("op: DST <- SRC + SRC: the rank writes its own DST from the "
	       "sources (any rank's), \"+\" the reduction; pre/post: the "
	       "op's pre (premulsum's scale) and post (avg's division)\n"
	       "cells: r0+r1 = the reduction of ranks 0 and 1 (r0-r7: ranks 0 "
	       "to 7), r1[3] = rank 1's send element 3, . = not written, "
	       "_ = a gap (never written)\n");
	if (svg) {
		if (!(w.svg = fopen(svg, "w"))) {
			st = cs_error(CS_ERR_IO, "--svg %s: cannot write", svg);
			goto out_free;
		}
		for (t = 0; t < T; t++)
			if ((k = count_ops(&w, t, &opw)) > w.P)
				extra += k - w.P;
		width = cells_x(&w, CSG_TMP) + (w.use_tmp ? (double)w.ntmp[w.P] *
			(w.cw * SV_CH + 8) + 30 : 0) + (double)opw * SV_CH + 10;
		height = 60 + (T + 1) * ((w.P + 1) * SV_ROW + 10) +
			 extra * SV_ROW;
		svg_open(&w, width, height);
		fprintf(w.svg, "<text x=\"10\" y=\"16\" font-weight=\"bold\">");
		fprintf(w.svg, "%s by %s, P=%d, count %zu (collspec explain %s "
			"--algo %s --steps)</text>\n", cs_coll_name(c->coll),
			a->name, w.P, c->count, cs_coll_name(c->coll), a->name);
		fprintf(w.svg, "<text x=\"%.1f\" y=\"40\">recv</text>\n",
			cells_x(&w, CSG_RECV));
		if (w.use_tmp)
			fprintf(w.svg, "<text x=\"%.1f\" y=\"40\">tmp"
				"</text>\n", cells_x(&w, CSG_TMP));
		fprintf(w.svg, "<text x=\"%.1f\" y=\"40\">ops of the step "
			"(thick: the cells they write)</text>\n",
			cells_x(&w, CSG_TMP) + (w.use_tmp ? (double)w.ntmp[w.P] *
			(w.cw * SV_CH + 8) + 30 : 0));
		w.y = 48;
	}
	st = run_all(&w, 1);
	print_sent(&w);
	if (w.svg) {
		fputs("</svg>\n", w.svg);
		if (fclose(w.svg) != 0 && st == CS_OK)
			st = cs_error(CS_ERR_IO, "--svg %s: write failed", svg);
	}
out_free:
	free_run(&w);
	return st;
}

/* ---- options --------------------------------------------------------------------- */

int cs_steps_opt(struct cs_steps_opts *o, int argc, char **argv)
{
	if (!strcmp(argv[0], "--steps")) {
		o->steps = 1;
		return 1;
	}
	if (!strcmp(argv[0], "--inplace")) {
		o->inplace = 1;
		return 1;
	}
	if (!strcmp(argv[0], "--algo")) {
		if (argc < 2 || !*argv[1]) {
			cs_error(CS_ERR_INVALID, "--algo needs a name");
			return -1;
		}
		o->algo = argv[1];
		return 2;
	}
	o->count_set |= !strcmp(argv[0], "--count");
	o->ranks_set |= !strcmp(argv[0], "--ranks");
	return 0;
}

/* One element per chunk: the count a picture starts from. */
static size_t default_count(const cs_case_t *c, const struct algo_row *a)
{
	if (c->coll != CS_COLL_ALLREDUCE)
		return 1;
	return a->classic || a->id == CSG_ALGO_RING ? (size_t)c->nranks : 2;
}

static int fail(void)
{
	fprintf(stderr, "collspec explain: %s\n", cs_last_error());
	return 2;
}

int cs_steps_run(const struct cs_steps_opts *o, const cs_case_t *c,
		 cs_a2av_pattern_t pattern, const char *svg)
{
	char names[160];
	cs_case_t cc = *c;
	size_t i, *M = NULL;
	cs_status_t st;

	if (!o->steps && !o->inplace) {
		if (o->algo)
			cs_error(CS_ERR_INVALID, "--algo %s needs --steps",
				 o->algo);
		return o->algo ? fail() : -1;
	}
	if (o->steps && o->inplace) {
		cs_error(CS_ERR_INVALID, "--steps and --inplace draw different "
			 "pictures: give one");
		return fail();
	}
	if (o->inplace && o->algo) {
		cs_error(CS_ERR_INVALID, "--algo goes with --steps, not "
			 "--inplace");
		return fail();
	}
	if (!o->ranks_set)
		cc.nranks = 4;
	if (o->steps && !o->algo) {
		algo_list(c->coll, names, sizeof names);
		cs_error(CS_ERR_INVALID, "--steps needs --algo NAME (for %s: "
			 "%s)", cs_coll_name(c->coll), names);
		return fail();
	}
	for (i = 0; o->algo && i < NALGOS && strcmp(algos[i].name, o->algo);
	     i++)
		;
	if (o->algo && i == NALGOS) {
		algo_list(CS_NUM_COLLS, names, sizeof names);
		cs_error(CS_ERR_INVALID, "--algo: unknown algorithm '%s' "
			 "(valid: %s)", o->algo, names);
		return fail();
	}
	if (cs_coll_rooted(c->coll) && (cc.root < 0 || cc.root >= cc.nranks)) {
		cs_error(CS_ERR_INVALID, "--root %d: out of range 0..%d",
			 cc.root, cc.nranks - 1);
		return fail();
	}
	if (!cs_coll_rooted(c->coll))
		cc.root = 0;
	if (!o->count_set)
		cc.count = o->inplace ? 2 : default_count(&cc, &algos[i]);
	cc.a2av_gap = 1;
	if (cc.coll == CS_COLL_ALLTOALLV) {
		M = malloc((size_t)cc.nranks * (size_t)cc.nranks * sizeof *M);
		if (!M) {
			cs_error(CS_ERR_NOMEM, "out of memory");
			return fail();
		}
		cs_a2av_matrix(pattern, cc.nranks, cc.count, cc.seed, M);
		cc.a2av_counts = M;
	}
	st = cs_case_validate(&cc);
	if (st == CS_OK)
		st = o->inplace ? cs_explain_inplace(&cc, pattern, svg)
				: steps(&cc, &algos[i], svg);
	free(M);
	return st == CS_OK ? 0 : fail();
}
