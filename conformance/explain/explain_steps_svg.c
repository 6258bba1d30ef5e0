/*
 * explain_steps_svg.c - the picture of `collspec explain COLL --algo NAME
 * --steps --svg FILE` (explain_steps_run.c runs the steps): one band per
 * step, a row per rank with its recv (and tmp) cells, each cell labelled
 * with what it holds as the text prints it and filled by it (a reduction
 * greener the more ranks it holds, a moved element the colour of its
 * rank, a gap grey), the cells the step writes framed thick; the step's
 * ops to the right.
 */
#include <stdio.h>
#include <string.h>
#include "explain/explain_steps_impl.h"
#include "explain/explain_svg.h"

static const char *const palette[8] = {"#8ecae6", "#ffb703", "#90be6d",
	"#f4978e", "#cdb4db", "#f9c74f", "#a8dadc", "#e9c46a"};

/* The fill of a cell: a reduction greener the more ranks it holds, a
 * moved element the colour of its rank, a gap grey. */
static void cell_fill(const struct cs_st_run *w, const struct cs_st_tok *x,
		      int gap, char *buf, size_t len)
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

double cs_st_cells_x(const struct cs_st_run *w, int b)
{
	double x = 70;

	if (b == CSG_TMP)
		x += (double)w->nrecv[w->P] * (w->cw * CS_ST_CH + 8) + 30;
	return x;
}

static void svg_cells(struct cs_st_run *w, int r, int b, size_t n)
{
	double cw = w->cw * CS_ST_CH + 8, x0 = cs_st_cells_x(w, b);
	char txt[96], fill[32];
	struct cs_st_tok *x;
	size_t i;
	int gap;

	for (i = 0; i < n; i++) {
		x = cs_st_slot(w, r, b, i);
		gap = b == CSG_RECV && w->gap && w->gap[(size_t)r * w->cap + i];
		cell_fill(w, x, gap, fill, sizeof fill);
		fprintf(w->svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
			"stroke-width=\"%s\"/>\n", x0 + (double)i * cw, w->y,
			cw, CS_ST_ROW - 2, fill, x->written ? "#000" : "#999",
			x->written ? "2" : "0.7");
		if (gap)
			snprintf(txt, sizeof txt, "gap");
		else
			cs_st_tok_text(w, x, txt, sizeof txt);
		fprintf(w->svg, "<text x=\"%.1f\" y=\"%.1f\">", x0 +
			(double)i * cw + 4, w->y + 13);
		cs_svg_text(w->svg, txt);
		fputs("</text>\n", w->svg);
	}
}

/* The x of the ops column. */
static double ops_x(const struct cs_st_run *w)
{
	return cs_st_cells_x(w, CSG_TMP) + (w->use_tmp ? (double)w->ntmp[w->P] *
		(w->cw * CS_ST_CH + 8) + 30 : 0);
}

void cs_st_svg_open(struct cs_st_run *w, int T)
{
	const cs_case_t *c = w->c;
	const char *a = w->s.a->name;
	size_t opw = 46; /* the heading of the ops column */
	int t, k, extra = 0;
	double width, height;
	char title[160];

	k = snprintf(title, sizeof title, "%s by %s, P=%d, count %zu",
		     cs_coll_name(c->coll), a, w->P, c->count);
	if (cs_coll_rooted(c->coll) && k > 0 && (size_t)k < sizeof title)
		snprintf(title + k, sizeof title - (size_t)k, ", root %d",
			 c->root);

	for (t = 0; t < T; t++)
		if ((k = cs_st_count_ops(w, t, &opw)) > w->P)
			extra += k - w->P;
	width = ops_x(w) + (double)opw * CS_ST_CH + 10;
	if (width < 20 + (double)strlen(title) * (CS_ST_CH + 0.6))
		width = 20 + (double)strlen(title) * (CS_ST_CH + 0.6);
	height = 60 + (T + 1) * ((w->P + 1) * CS_ST_ROW + 10) +
		 extra * CS_ST_ROW;
	fprintf(w->svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		width, height);
	fprintf(w->svg, "<text x=\"10\" y=\"16\" font-weight=\"bold\">%s"
		"</text>\n", title);
	fprintf(w->svg, "<text x=\"%.1f\" y=\"40\">recv</text>\n",
		cs_st_cells_x(w, CSG_RECV));
	if (w->use_tmp)
		fprintf(w->svg, "<text x=\"%.1f\" y=\"40\">tmp</text>\n",
			cs_st_cells_x(w, CSG_TMP));
	fprintf(w->svg, "<text x=\"%.1f\" y=\"40\">ops of the step (thick: "
		"the cells they write)</text>\n", ops_x(w));
	w->y = 48;
}

/* Draw the ops of step t beside its band. */
static void svg_ops(struct cs_st_run *w, int t)
{
	char txt[512];
	csg_op_t o;
	int r, i, line = 0;

	for (r = 0; r < w->P; r++)
		for (i = 0; i < cs_st_nops(&w->s, r, t); i++) {
			o = cs_st_op(&w->s, r, t, i);
			if (!o.nsrc || !o.n)
				continue;
			cs_st_op_text(&o, txt, sizeof txt);
			fprintf(w->svg, "<text x=\"%.1f\" y=\"%.1f\" "
				"fill=\"#333\">r%d: ", ops_x(w), w->y + 13 +
				CS_ST_ROW * line++, r);
			cs_svg_text(w->svg, txt);
			fputs("</text>\n", w->svg);
		}
}

/* The svg band of step t (-1: before the first step). */
void cs_st_svg_step(struct cs_st_run *w, int t, int nops)
{
	int r;

	fprintf(w->svg, "<text x=\"10\" y=\"%.1f\" font-weight=\"bold\">",
		w->y + 14);
	if (t < 0)
		fprintf(w->svg, "before step 0");
	else
		fprintf(w->svg, "step %d: %s", t, cs_st_step_kind(w, t));
	fputs("</text>\n", w->svg);
	w->y += CS_ST_ROW;
	if (t >= 0)
		svg_ops(w, t);
	for (r = 0; r < w->P; r++) {
		fprintf(w->svg, "<text x=\"10\" y=\"%.1f\">r%d</text>\n",
			w->y + 13, r);
		svg_cells(w, r, CSG_RECV, w->nrecv[r]);
		if (w->use_tmp)
			svg_cells(w, r, CSG_TMP, w->ntmp[r]);
		w->y += CS_ST_ROW;
	}
	if (nops > w->P)
		w->y += CS_ST_ROW * (nops - w->P);
	w->y += 10;
}

