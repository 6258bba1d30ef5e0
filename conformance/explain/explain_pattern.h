/*
 * explain_pattern.h - `collspec explain --grid G` and `collspec explain
 * --pattern NAME` (issue 21): the process grid (which rank sits where on
 * every axis, and its groups) and a picture of one parallelism pattern
 * (the 1F1B timeline, tensor parallelism's f and g, ring attention's
 * zig-zag chunks, MoE dispatch with drops), each computed by the code the
 * pattern runs (csref/grid.h, csref/patterns.h, csref/psim.h,
 * csref/moe_routing.h), printed as a table and, with --svg FILE, drawn.
 *
 * A picture is a table: rows with labels, columns with headings, each
 * cell a short text and a colour index (-1: none). explain_grid.c and
 * explain_pattern.c fill it; explain_psvg.c adds notes and draws it.
 */
#ifndef CS_EXPLAIN_PATTERN_H
#define CS_EXPLAIN_PATTERN_H

#include <stdio.h>
#include "csref/status.h"

#define CS_PIC_MAX_ROWS 64
#define CS_PIC_MAX_COLS 160
#define CS_PIC_MAX_NOTES 12
#define CS_PIC_TEXT 32

typedef struct cs_pic {
	char title[160];
	int nrows, ncols, nnotes;
	char row[CS_PIC_MAX_ROWS][CS_PIC_TEXT];  /* row labels */
	char col[CS_PIC_MAX_COLS][CS_PIC_TEXT];  /* column headings */
	char cell[CS_PIC_MAX_ROWS][CS_PIC_MAX_COLS][CS_PIC_TEXT];
	int tint[CS_PIC_MAX_ROWS][CS_PIC_MAX_COLS]; /* colour, -1 none */
	char note[CS_PIC_MAX_NOTES][256];        /* lines under the table */
} cs_pic_t;

/* Append a note, fmt with one %s for s, cut at the note's size. */
void cs_pic_note(cs_pic_t *pic, const char *fmt, const char *s);

/* The grid spec (a --grid text, or a pattern's name: its default grid at
 * ranks, 8 when 0) into pic (explain_grid.c). CS_ERR_INVALID naming the
 * problem. */
cs_status_t cs_pic_grid(const char *spec, int ranks, cs_pic_t *pic);

/* Write pic to path as an SVG (created or truncated). CS_OK or CS_ERR_IO
 * naming the file. */
cs_status_t cs_pic_svg(const cs_pic_t *pic, const char *path);

/* `collspec explain --grid ...` or `--pattern ...`: argv[1] is the one
 * or the other. Returns the exit status (0, or 2 after a message). */
int cs_explain_pattern_main(int argc, char **argv);

#endif /* CS_EXPLAIN_PATTERN_H */
