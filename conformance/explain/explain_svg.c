/*
 * explain_svg.c - the worked example of `collspec explain` as an SVG
 * picture (explain_svg.h): the data first (inputs, the oracle's outputs),
 * then where each output came from, then the drawing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "explain/explain_svg.h"
#include "base/names.h"
#include "csref/gen.h"
#include "csref/oracle.h"
#include "csref/reduce.h"

#define SRC_NONE (-1) /* no single source was found */
#define SRC_ALL (-2)  /* a reduction over every rank */

/* Geometry, in SVG user units (pixels). */
#define CELL_H 22
#define CHAR_W 7
#define ROW_PITCH 48
#define LEFT 64
#define TOP 78
#define PANEL_GAP 56

/* Where one received element came from: element idx of rank `rank`'s send
 * buffer, or (SRC_ALL) element idx of every rank's, reduced. */
struct src {
	int rank;
	size_t idx;
};

/* The example: every rank's input and output, and each output's source. */
struct ex {
	const cs_case_t *c;
	int P;
	size_t ns[CS_SVG_MAX_RANKS], nr[CS_SVG_MAX_RANKS];
	uint64_t *in[CS_SVG_MAX_RANKS], *out[CS_SVG_MAX_RANKS];
	struct src *from[CS_SVG_MAX_RANKS];
	int cellw;
};

/* Distinct hues, one per rank (P <= 16). */
static const char *const palette[CS_SVG_MAX_RANKS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
	"#8c6d31", "#843c39", "#7b4173", "#3182bd",
};

static void ex_free(struct ex *e)
{
	int r;

	for (r = 0; r < e->P; r++) {
		free(e->in[r]);
		free(e->out[r]);
		free(e->from[r]);
	}
}

/* Every rank's send elements (the generator) and receive elements (the
 * oracle), as bit patterns. */
static cs_status_t ex_load(struct ex *e)
{
	cs_golden_t *g;
	cs_status_t st;
	size_t i;
	int r;

	for (r = 0; r < e->P; r++) {
		e->ns[r] = cs_case_send_count(e->c, r);
		e->nr[r] = cs_case_recv_count(e->c, r);
		e->in[r] = calloc(e->ns[r] + 1, sizeof *e->in[r]);
		e->out[r] = calloc(e->nr[r] + 1, sizeof *e->out[r]);
		e->from[r] = calloc(e->nr[r] + 1, sizeof *e->from[r]);
		g = calloc(e->nr[r] + 1, sizeof *g);
		if (!e->in[r] || !e->out[r] || !e->from[r] || !g) {
			free(g);
			return cs_error(CS_ERR_NOMEM, "out of memory");
		}
		for (i = 0; i < e->ns[r]; i++)
			e->in[r][i] = cs_gen_input(e->c, r, i);
		st = e->nr[r] ? cs_oracle_expect(e->c, r, 0, e->nr[r], NULL, g)
			      : CS_OK;
		for (i = 0; i < e->nr[r]; i++)
			e->out[r][i] = g[i].bits;
		free(g);
		if (st != CS_OK)
			return st;
	}
	return CS_OK;
}

/* Data movement: the one send element (q, i) whose bits equal v. */
static struct src find_move(const struct ex *e, uint64_t v)
{
	struct src s = {SRC_NONE, 0};
	int q, hits = 0;
	size_t i;

	for (q = 0; q < e->P; q++)
		for (i = 0; i < e->ns[q]; i++)
			if (e->in[q][i] == v && hits++ == 0) {
				s.rank = q;
				s.idx = i;
			}
	if (hits != 1)
		s.rank = SRC_NONE;
	return s;
}

/* Raw element i of a buffer of dtype size `size`, as bits. */
static uint64_t elem_bits(const unsigned char *buf, size_t i, size_t size)
{
	uint8_t b8;
	uint16_t b16;
	uint32_t b32;
	uint64_t b64;

	switch (size) {
	case 1: memcpy(&b8, buf + i, 1); return b8;
	case 2: memcpy(&b16, buf + 2 * i, 2); return b16;
	case 4: memcpy(&b32, buf + 4 * i, 4); return b32;
	default: memcpy(&b64, buf + 8 * i, 8); return b64;
	}
}

/* red[j] = the reduction of column j of the inputs, ranks folded in order
 * 0, 1, ..., P-1 with the library's arithmetic (csref/reduce.h), for the
 * n columns every rank sends. */
static cs_status_t reduce_columns(const struct ex *e, size_t n, uint64_t *red)
{
	const cs_case_t *c = e->c;
	size_t w = cs_dtype_size(c->dtype), j;
	unsigned char *acc = malloc(n * w + 1), *buf = malloc(n * w + 1);
	int q;

	if (!acc || !buf) {
		free(acc);
		free(buf);
		return cs_error(CS_ERR_NOMEM, "out of memory");
	}
	for (q = 0; q < e->P; q++) {
		cs_gen_fill(c, q, buf, 0, n);
		cs_op_prepare(c->dtype, c->op, e->P, cs_gen_scalar(c, q),
			      q ? buf : acc, buf, n);
		if (q)
			cs_reduce_bufs(c->dtype, c->op, acc, buf, n);
	}
	cs_op_finish(c->dtype, c->op, e->P, acc, n);
	for (j = 0; j < n; j++)
		red[j] = elem_bits(acc, j, w);
	free(acc);
	free(buf);
	return CS_OK;
}

/* Reductions: the one column j whose reduction has bits v. */
static struct src find_column(const uint64_t *red, size_t n, uint64_t v)
{
	struct src s = {SRC_NONE, 0};
	size_t j;
	int hits = 0;

	for (j = 0; j < n; j++)
		if (red[j] == v && hits++ == 0)
			s.idx = j;
	s.rank = hits == 1 ? SRC_ALL : SRC_NONE;
	return s;
}

/* Each received element's source (struct src). */
static cs_status_t ex_trace(struct ex *e)
{
	size_t n = e->ns[0], i;
	uint64_t *red = NULL;
	cs_status_t st = CS_OK;
	int r;

	if (cs_coll_reduces(e->c->coll)) {
		/* every rank sends the same count to a reduction */
		if (!(red = calloc(n + 1, sizeof *red)))
			return cs_error(CS_ERR_NOMEM, "out of memory");
		st = reduce_columns(e, n, red);
	}
	for (r = 0; r < e->P && st == CS_OK; r++)
		for (i = 0; i < e->nr[r]; i++)
			e->from[r][i] = red ? find_column(red, n, e->out[r][i])
					    : find_move(e, e->out[r][i]);
	free(red);
	return st;
}

/* ---- drawing ------------------------------------------------------------ */

/* Contract in explain_svg.h. */
void cs_svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			fputc(*s, f);
	}
}

/* Contract in explain_svg.h. */
void cs_svg_text_at(FILE *f, int x, int y, const char *cls, const char *s)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x, y, cls);
	cs_svg_text(f, s);
	fputs("</text>\n", f);
}

/* The widest value decides every cell's width. */
static int cell_width(const struct ex *e)
{
	char s[64];
	size_t i, len = 4;
	int r;

	for (r = 0; r < e->P; r++) {
		for (i = 0; i < e->ns[r]; i++) {
			cs_format_value(e->c->dtype, e->in[r][i], s, sizeof s);
			len = strlen(s) > len ? strlen(s) : len;
		}
		for (i = 0; i < e->nr[r]; i++) {
			cs_format_value(e->c->dtype, e->out[r][i], s, sizeof s);
			len = strlen(s) > len ? strlen(s) : len;
		}
	}
	return (int)len * CHAR_W + 12;
}

/* One cell: tinted with rank `tint`'s colour, or striped with every
 * rank's (SRC_ALL), or plain (SRC_NONE). */
static void cell(FILE *f, const struct ex *e, int x, int y, int tint,
		 uint64_t v)
{
	char s[64];
	int q, sw = e->cellw / e->P;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"%s\" fill-opacity=\"0.3\" stroke=\"#444\"/>\n", x, y,
		e->cellw, CELL_H, tint >= 0 ? palette[tint] : "#ffffff");
	if (tint == SRC_ALL)
		for (q = 0; q < e->P; q++)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
				"height=\"4\" fill=\"%s\"/>\n", x + q * sw,
				y + CELL_H - 4, sw, palette[q]);
	cs_format_value(e->c->dtype, v, s, sizeof s);
	cs_svg_text_at(f, x + e->cellw / 2, y + 15, "v", s);
}

/* "to r0,r2" or "to all" for the destination mask m (not 0). */
static void dest_label(const struct ex *e, unsigned m, char *s, size_t n)
{
	size_t len;
	int q;

	if (m == (1u << e->P) - 1 && e->P > 1) {
		snprintf(s, n, "to all");
		return;
	}
	snprintf(s, n, "to");
	for (q = 0; q < e->P; q++)
		if (m & (1u << q)) {
			len = strlen(s);
			snprintf(s + len, n - len, "%sr%d",
				 len > 2 ? "," : " ", q);
		}
}

/* The ranks whose receive buffers hold send element (q, i). */
static unsigned dest_mask(const struct ex *e, int q, size_t i)
{
	unsigned m = 0;
	size_t k;
	int r;

	for (r = 0; r < e->P; r++)
		for (k = 0; k < e->nr[r]; k++)
			if (e->from[r][k].idx == i &&
			    (e->from[r][k].rank == q ||
			     e->from[r][k].rank == SRC_ALL))
				m |= 1u << r;
	return m;
}

/* Rank q's send row, with a label under each run of elements that go to
 * the same ranks. */
static void send_row(FILE *f, const struct ex *e, int q, int x0, int y)
{
	char s[96];
	size_t i, j;
	unsigned m;

	for (i = 0; i < e->ns[q]; i++)
		cell(f, e, x0 + (int)i * e->cellw, y, q, e->in[q][i]);
	for (i = 0; i < e->ns[q]; i = j) {
		m = dest_mask(e, q, i);
		for (j = i + 1; j < e->ns[q] && dest_mask(e, q, j) == m; j++)
			;
		if (!m)
			continue; /* no traced destination */
		dest_label(e, m, s, sizeof s);
		cs_svg_text_at(f, x0 + (int)(i + j) * e->cellw / 2, y + CELL_H + 12,
			"l", s);
	}
}

/* Rank r's receive row, with a label under each run of elements from
 * consecutive elements of one source. */
static void recv_row(FILE *f, const struct ex *e, int r, int x0, int y)
{
	const struct src *fr = e->from[r];
	char s[96];
	size_t i, j;

	for (i = 0; i < e->nr[r]; i++)
		cell(f, e, x0 + (int)i * e->cellw, y, fr[i].rank, e->out[r][i]);
	for (i = 0; i < e->nr[r]; i = j) {
		for (j = i + 1; j < e->nr[r] && fr[j].rank == fr[i].rank &&
		     fr[j].rank != SRC_NONE && fr[j].idx == fr[i].idx + (j - i);
		     j++)
			;
		if (fr[i].rank == SRC_NONE)
			continue;
		if (fr[i].rank == SRC_ALL)
			snprintf(s, sizeof s, "%s [%zu", cs_op_name(e->c->op),
				 fr[i].idx);
		else
			snprintf(s, sizeof s, "r%d [%zu", fr[i].rank, fr[i].idx);
		if (j - i > 1)
			snprintf(s + strlen(s), sizeof s - strlen(s), "-%zu",
				 fr[j - 1].idx);
		strncat(s, "]", sizeof s - strlen(s) - 1);
		cs_svg_text_at(f, x0 + (int)(i + j) * e->cellw / 2, y + CELL_H + 12,
			"l", s);
	}
}

static size_t widest(const size_t *n, int P)
{
	size_t m = 0;
	int r;

	for (r = 0; r < P; r++)
		m = n[r] > m ? n[r] : m;
	return m;
}

/* The XML prologue, the style, the case and the panels' headings. */
static void draw_head(FILE *f, const struct ex *e, int W, int H, int rx)
{
	char name[160];

	cs_case_format(e->c, name, sizeof name);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="
		"\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n<title>", W, H, W, H);
	cs_svg_text(f, name);
	fputs("</title>\n<style>text{font-family:monospace;font-size:11px}"
	      ".v{text-anchor:middle}.l{text-anchor:middle;font-size:9px;"
	      "fill:#333}.k{font-size:9px;fill:#333}.h{font-size:13px;"
	      "font-weight:bold}.n{fill:#888}</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
	cs_svg_text_at(f, 8, 18, "h", name);
	cs_svg_text_at(f, 8, 36, "t", cs_coll_desc(e->c->coll));
	cs_svg_text_at(f, LEFT, TOP - 12, "h", "send (before the call)");
	cs_svg_text_at(f, rx, TOP - 12, "h", "recv (after the call)");
}

/* One row per rank: its label, its send cells, its receive cells. */
static void draw_rows(FILE *f, const struct ex *e, int rx)
{
	char lab[24];
	int r, y;

	for (r = 0; r < e->P; r++) {
		y = TOP + r * ROW_PITCH;
		snprintf(lab, sizeof lab, "rank %d", r);
		cs_svg_text_at(f, 8, y + 15, "t", lab);
		if (e->ns[r])
			send_row(f, e, r, LEFT, y);
		else
			cs_svg_text_at(f, LEFT, y + 15, "n", "(not significant)");
		if (e->nr[r])
			recv_row(f, e, r, rx, y);
		else
			cs_svg_text_at(f, rx, y + 15, "n", "(not significant)");
	}
}

/* The colour of each rank, and what the colours and labels mean. */
static void draw_legend(FILE *f, const struct ex *e)
{
	int y = TOP + e->P * ROW_PITCH + 8, r;
	char lab[24];

	for (r = 0; r < e->P; r++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/>\n", 8 + r * 56, y, palette[r]);
		snprintf(lab, sizeof lab, "r%d", r);
		cs_svg_text_at(f, 24 + r * 56, y + 10, "t", lab);
	}
	if (cs_coll_reduces(e->c->coll)) {
		cs_svg_text_at(f, 8, y + 28, "k", "colour: the rank of an input; a "
			"result has a stripe per rank combined");
		cs_svg_text_at(f, 8, y + 40, "k", "under a result: the elements "
			"reduced; under an input: where its reduction goes");
	} else {
		cs_svg_text_at(f, 8, y + 28, "k", "colour: the rank whose input a "
			"value is");
		cs_svg_text_at(f, 8, y + 40, "k", "under a result: its source rank "
			"and elements; under an input: where it goes");
	}
}

/* The whole picture: the panels side by side, the legend below. */
static void draw(FILE *f, const struct ex *e)
{
	int rx = LEFT + (int)widest(e->ns, e->P) * e->cellw + PANEL_GAP;
	int W = rx + (int)widest(e->nr, e->P) * e->cellw + 16;
	int H = TOP + e->P * ROW_PITCH + 64;

	draw_head(f, e, W < 480 ? 480 : W, H, rx);
	draw_rows(f, e, rx);
	draw_legend(f, e);
	fputs("</svg>\n", f);
}

cs_status_t cs_explain_svg(const cs_case_t *c, const char *path)
{
	struct ex e;
	cs_status_t st;
	FILE *f;

	if (!c || !path || c->nranks < 1 || c->nranks > CS_SVG_MAX_RANKS)
		return cs_error(CS_ERR_INVALID, "--svg: a picture takes 1 to "
				"%d ranks", CS_SVG_MAX_RANKS);
	memset(&e, 0, sizeof e);
	e.c = c;
	e.P = c->nranks;
	if ((st = ex_load(&e)) != CS_OK || (st = ex_trace(&e)) != CS_OK)
		goto out_free;
	e.cellw = cell_width(&e);
	if (!(f = fopen(path, "w"))) {
		st = cs_error(CS_ERR_IO, "--svg: cannot write '%s': %s", path,
			      strerror(errno));
		goto out_free;
	}
	draw(f, &e);
	if (ferror(f) | fclose(f))
		st = cs_error(CS_ERR_IO, "--svg: writing '%s' failed", path);
out_free:
	ex_free(&e);
	return st;
}
