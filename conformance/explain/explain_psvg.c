/*
 * explain_psvg.c - a picture of `collspec explain --grid/--pattern`
 * (explain_pattern.h's table): its notes, and the picture as an SVG: the
 * title, a heading per column, a label per row, every cell a box with its
 * text, tinted by its colour index, and the notes under the table.
 */
#include <errno.h>
#include <string.h>
#include "explain/explain_pattern.h"
#include "explain/explain_svg.h"

#define CHAR_W 7
#define ROW_H 22
#define TOP 52

void cs_pic_note(cs_pic_t *p, const char *fmt, const char *s)
{
	/* a note longer than its buffer is cut (the return value read) */
	if (p->nnotes < CS_PIC_MAX_NOTES &&
	    snprintf(p->note[p->nnotes], sizeof p->note[0], fmt, s) >= 0)
		p->nnotes++;
}

/* Distinct hues, repeated past sixteen. */
static const char *const hue[16] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
	"#8c6d31", "#843c39", "#7b4173", "#3182bd",
};

/* The widest text of column c (its heading or a cell), in pixels. */
static int col_width(const cs_pic_t *p, int c)
{
	size_t w = strlen(p->col[c]);
	int r;

	for (r = 0; r < p->nrows; r++)
		if (strlen(p->cell[r][c]) > w)
			w = strlen(p->cell[r][c]);
	return (int)(w < 2 ? 2 : w) * CHAR_W + 10;
}

static void draw(FILE *f, const cs_pic_t *p)
{
	int x0 = 0, x, W, H, r, c, n, cw[CS_PIC_MAX_COLS];

	for (r = 0; r < p->nrows; r++)
		if ((int)strlen(p->row[r]) * CHAR_W + 16 > x0)
			x0 = (int)strlen(p->row[r]) * CHAR_W + 16;
	for (W = x0, c = 0; c < p->ncols; c++)
		W += cw[c] = col_width(p, c);
	for (n = 0; n < p->nnotes; n++)
		if ((int)strlen(p->note[n]) * CHAR_W + 16 > W)
			W = (int)strlen(p->note[n]) * CHAR_W + 16;
	if ((int)strlen(p->title) * 8 + 16 > W) /* the title is 13px bold */
		W = (int)strlen(p->title) * 8 + 16;
	W += 8;
	H = TOP + p->nrows * ROW_H + 12 + p->nnotes * 16 + 8;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="
		"\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n<title>", W, H, W, H);
	cs_svg_text(f, p->title);
	fputs("</title>\n<style>text{font-family:monospace;font-size:11px}"
	      ".c{text-anchor:middle}.h{font-size:13px;font-weight:bold}"
	      ".k{fill:#333}</style>\n<rect width=\"100%\" height=\"100%\" "
	      "fill=\"#fff\"/>\n", f);
	cs_svg_text_at(f, 8, 18, "h", p->title);
	for (x = x0, c = 0; c < p->ncols; x += cw[c++])
		cs_svg_text_at(f, x + cw[c] / 2, TOP - 8, "c", p->col[c]);
	for (r = 0; r < p->nrows; r++) {
		int y = TOP + r * ROW_H;
		cs_svg_text_at(f, 8, y + 15, "t", p->row[r]);
		for (x = x0, c = 0; c < p->ncols; x += cw[c++]) {
			int t = p->tint[r][c];
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
				"height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\""
				" stroke=\"#999\"/>\n", x, y, cw[c], ROW_H,
				t >= 0 ? hue[t % 16] : "#ffffff");
			cs_svg_text_at(f, x + cw[c] / 2, y + 15, "c", p->cell[r][c]);
		}
	}
	for (n = 0; n < p->nnotes; n++)
		cs_svg_text_at(f, 8, TOP + p->nrows * ROW_H + 24 + n * 16, "k",
			p->note[n]);
	fputs("</svg>\n", f);
}

cs_status_t cs_pic_svg(const cs_pic_t *p, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return cs_error(CS_ERR_IO, "--svg: cannot write '%s': %s", path,
				strerror(errno));
	draw(f, p);
	if (ferror(f) | fclose(f))
		return cs_error(CS_ERR_IO, "--svg: writing '%s' failed", path);
	return CS_OK;
}
