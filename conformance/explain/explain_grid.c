/*
 * explain_grid.c - `collspec explain --grid G` (explain_pattern.h): the
 * process grid of spec/patterns.md section 2 as a table, every rank's
 * coordinate on every axis and its group on every axis, from csref/grid.h
 * (cs_grid_parse or the pattern's cs_pattern_default_grid, cs_grid_coords,
 * cs_grid_group, cs_grid_split).
 */
#include <stdio.h>
#include "csref/grid.h"
#include "csref/pattern.h"
#include "explain/explain_pattern.h"

/* The product of the sizes written in spec (0 when there are none or it
 * is beyond 2^16), for cs_grid_parse's world. */
static int grid_world(const char *spec)
{
	long w = 1, v = -1;
	const char *s;

	for (s = spec; *s; s++) {
		if (*s >= '0' && *s <= '9')
			v = (v < 0 ? 0 : v) * 10 + (*s - '0');
		if ((*s == ',' || !s[1]) && v >= 0) {
			w *= v, v = -1;
			if (w > 65536)
				return 0;
		}
		if (v > 65536)
			return 0;
	}
	return (int)w;
}

static cs_status_t grid_of(const char *spec, int ranks, cs_grid_t *g)
{
	const cs_pattern_t *pat = cs_pattern_find(spec);

	if (pat)
		return cs_pattern_default_grid(pat, ranks ? ranks : 8, g);
	if (ranks)
		return cs_grid_parse(spec, ranks, g);
	if (grid_world(spec) < 1)
		return cs_error(CS_ERR_INVALID, "--grid '%s': its sizes make "
				"more than 65536 ranks", spec);
	return cs_grid_parse(spec, grid_world(spec), g);
}

/* "0,4": the group of rank r over axis a, in group order. */
static cs_status_t group_text(const cs_grid_t *g, cs_grid_axis_t a, int r,
			      char *s, size_t n, int *color)
{
	int ranks[CS_PIC_MAX_ROWS], k, i, key;
	size_t o = 0;
	cs_status_t st = cs_grid_group(g, CS_AXIS_BIT(a), r, ranks,
				       CS_PIC_MAX_ROWS, &k);

	if (st == CS_OK)
		st = cs_grid_split(g, a, r, color, &key);
	for (i = 0; st == CS_OK && i < k && o < n; i++)
		o += (size_t)snprintf(s + o, n - o, "%s%d", i ? "," : "",
				      ranks[i]);
	return st;
}

cs_status_t cs_pic_grid(const char *spec, int ranks, cs_pic_t *p)
{
	cs_grid_t g;
	char text[CS_GRID_SPEC_MAX + 1], strides[160];
	int c[CS_NUM_AXES], i, r, color;
	size_t o = 0;
	cs_status_t st;

	if ((st = grid_of(spec, ranks, &g)) != CS_OK)
		return st;
	if (g.world > CS_PIC_MAX_ROWS)
		return cs_error(CS_ERR_INVALID, "--grid: %d ranks; a picture "
				"shows at most %d", g.world, CS_PIC_MAX_ROWS);
	cs_grid_format(&g, text, sizeof text);
	snprintf(p->title, sizeof p->title, "grid %s: %d ranks", text,
		 g.world);
	p->nrows = g.world;
	p->ncols = 2 * g.ndims;
	for (i = g.ndims - 1; i >= 0; i--) {
		snprintf(p->col[i], CS_PIC_TEXT, "%s",
			 cs_grid_axis_name(g.axis[i]));
		snprintf(p->col[g.ndims + i], CS_PIC_TEXT, "%s_group",
			 cs_grid_axis_name(g.axis[i]));
	}
	for (i = 0; i < g.ndims; i++) {
		int s = 1, j;
		for (j = i + 1; j < g.ndims; j++)
			s *= g.size[j];
		o += (size_t)snprintf(strides + o, sizeof strides - o,
				      "%s %s %d", i ? "," : "",
				      cs_grid_axis_name(g.axis[i]), s);
	}
	for (r = 0; r < g.world && st == CS_OK; r++) {
		snprintf(p->row[r], CS_PIC_TEXT, "rank %d", r);
		if ((st = cs_grid_coords(&g, r, c)) != CS_OK)
			break;
		for (i = 0; i < g.ndims && st == CS_OK; i++) {
			snprintf(p->cell[r][i], CS_PIC_TEXT, "%d",
				 c[g.axis[i]]);
			p->tint[r][i] = c[g.axis[i]];
			st = group_text(&g, g.axis[i], r,
					p->cell[r][g.ndims + i], CS_PIC_TEXT,
					&color);
			p->tint[r][g.ndims + i] = color;
		}
	}
	cs_pic_note(p,
		    "strides:%s (rank = sum of coordinate x stride; the last "
		    "axis listed varies fastest)", strides);
	cs_pic_note(p, "%s",
		    "a group of an axis: the ranks that differ from a rank "
		    "on that axis only (comm_split colour: its lowest rank)");
	return st;
}
