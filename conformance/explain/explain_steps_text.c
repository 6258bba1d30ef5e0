/*
 * explain_steps_text.c - how `collspec explain --steps` writes a token, an
 * op and a step, shared by the text (explain_steps_run.c) and the picture
 * (explain_steps_svg.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_steps_impl.h"

/* The text of token x into buf. */
void cs_st_tok_text(const struct cs_st_run *w, const struct cs_st_tok *x,
		    char *buf, size_t len)
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

const char *const cs_st_bufname[3] = {"send", "recv", "tmp"};

/* One op as text: "recv[3:4] <- r3.send[3:4] pre + r0.send[3:4] pre". */
void cs_st_op_text(const csg_op_t *o, char *buf, size_t len)
{
	size_t at;
	int m;

	at = (size_t)snprintf(buf, len, "%s[%zu:%zu] <-", cs_st_bufname[o->dst.buf],
			      o->dst.off, o->dst.off + o->n);
	for (m = 0; m < o->nsrc && at < len; m++)
		at += (size_t)snprintf(buf + at, len - at, "%s r%d.%s[%zu:%zu]%s",
				       m ? " +" : "", o->src[m].rank,
				       cs_st_bufname[o->src[m].buf], o->src[m].off,
				       o->src[m].off + o->n,
				       o->pre[m] >= 0 ? " pre" : "");
	if (o->post && at < len)
		snprintf(buf + at, len - at, " post");
}

/* "reduce" when some op of step t folds two or more sources, else
 * "copy". */
const char *cs_st_step_kind(const struct cs_st_run *w, int t)
{
	int r, i;
	csg_op_t o;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < cs_st_nops(&w->s, r, t); i++) {
			o = cs_st_op(&w->s, r, t, i);
			if (o.nsrc > 1 && o.n)
				return "reduce";
		}
	return "copy";
}

/* Ops of step t with something to do; *width: the longest op line. */
int cs_st_count_ops(const struct cs_st_run *w, int t, size_t *width)
{
	int r, i, n = 0;
	char txt[512];
	csg_op_t o;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < cs_st_nops(&w->s, r, t); i++) {
			o = cs_st_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			n++;
			cs_st_op_text(&o, txt, sizeof txt);
			if (strlen(txt) + 5 > *width)
				*width = strlen(txt) + 5;
		}
	return n;
}

void cs_st_print_a2av(const cs_case_t *c, const char *pattern)
{
	size_t P = (size_t)c->nranks, q, r, *a = calloc(4 * P + 1, sizeof *a);

	printf("count matrix M[src][dst] (pattern %s), a gap of %zu after "
	       "every block:\n", pattern, c->a2av_gap);
	for (q = 0; q < P; q++) {
		printf("   ");
		for (r = 0; r < P; r++)
			printf(" %3zu", c->a2av_counts[q * P + r]);
		printf("\n");
	}
	if (!a)
		return;
	printf("displacements (cs_a2av_layout; the gaps between blocks are "
	       "never written):\n");
	for (r = 0; r < P; r++) {
		cs_a2av_layout(c, (int)r, a, a + P, a + 2 * P, a + 3 * P);
		printf("  r%zu send blocks at", r);
		for (q = 0; q < P; q++)
			printf(" %zu", a[P + q]);
		printf("; receive blocks at");
		for (q = 0; q < P; q++)
			printf(" %zu", a[3 * P + q]);
		printf("\n");
	}
	free(a);
}
