/*
 * grid.c - the process grid of the parallelism patterns (csref/grid.h):
 * parsing a --grid text, the row-major
 * rank <-> coordinates map, and the comm_split colour and key of a group.
 */
#include <stdio.h>
#include <string.h>
#include "csref/grid.h"

#define GRID_SIZE_MAX 65536 /* one axis; as --ranks bounds a world */
#define GRID_RANKS_CAP 2147483648LL /* products saturate here (> INT_MAX) */

#define AXIS_NAME_(ID, name, ...) #name,
static const char *const axis_names[CS_NUM_AXES] = {
	CS_GRID_AXIS_LIST(AXIS_NAME_)
};
#undef AXIS_NAME_

/* Contract in csref/grid.h. */
const char *cs_grid_axis_name(cs_grid_axis_t a)
{
	return (unsigned)a < CS_NUM_AXES ? axis_names[a] : NULL;
}

/* The axis named by s[0..len), or CS_NUM_AXES for none. */
static cs_grid_axis_t axis_by_name(const char *s, size_t len)
{
	int a;

	for (a = 0; a < CS_NUM_AXES; a++)
		if (strlen(axis_names[a]) == len &&
		    strncmp(axis_names[a], s, len) == 0)
			return (cs_grid_axis_t)a;
	return CS_NUM_AXES;
}

/* A size: 1 .. GRID_SIZE_MAX in decimal digits only. */
static cs_status_t parse_size(const char *spec, const char *item,
			      const char *s, int *out)
{
	long v = 0;
	const char *p;

	if (!*s)
		return cs_error(CS_ERR_INVALID, "--grid '%s': item '%s' has no "
				"size after its axis (expected e.g. dp2)", spec,
				item);
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return cs_error(CS_ERR_INVALID, "--grid '%s': item "
					"'%s': size '%s' is not a number "
					"(decimal digits only)", spec, item, s);
		if (v <= GRID_SIZE_MAX) /* stop growing: no overflow */
			v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > GRID_SIZE_MAX)
		return cs_error(CS_ERR_INVALID, "--grid '%s': item '%s': size "
				"must be from 1 to %d", spec, item,
				GRID_SIZE_MAX);
	*out = (int)v;
	return CS_OK;
}

/* One AXIS SIZE item, appended to g; *product is the running product of the
 * sizes, saturated at GRID_RANKS_CAP. */
static cs_status_t parse_item(const char *spec, const char *item,
			      cs_grid_t *g, long long *product)
{
	size_t len = 0;
	cs_grid_axis_t a;
	cs_status_t st;
	int i, size = 0;

	while (item[len] >= 'a' && item[len] <= 'z')
		len++;
	a = axis_by_name(item, len);
	if (a == CS_NUM_AXES)
		return cs_error(CS_ERR_INVALID, "--grid '%s': unknown axis in "
				"'%s' (axes: dp, tp, pp, sp, cp, ep)", spec,
				item);
	for (i = 0; i < g->ndims; i++)
		if (g->axis[i] == a)
			return cs_error(CS_ERR_INVALID, "--grid '%s': axis %s "
					"is listed twice (each may appear "
					"once)", spec, axis_names[a]);
	if ((st = parse_size(spec, item, item + len, &size)) != CS_OK)
		return st;
	g->axis[g->ndims] = a;
	g->size[g->ndims++] = size;
	*product *= size;
	if (*product > GRID_RANKS_CAP)
		*product = GRID_RANKS_CAP;
	return CS_OK;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_parse(const char *spec, int world, cs_grid_t *out)
{
	char item[CS_GRID_SPEC_MAX + 1];
	cs_grid_t g = { 0 };
	long long product = 1;
	const char *p, *comma;
	cs_status_t st;

	if (!out || world < 1)
		return cs_error(CS_ERR_INVALID, "--grid: needs a world of 1 or "
				"more ranks (got %d) and a grid to fill", world);
	if (!spec || !*spec)
		return cs_error(CS_ERR_INVALID, "--grid: empty; expected a comma "
				"list of axes and sizes such as pp2,dp2,tp2");
	if (strlen(spec) > CS_GRID_SPEC_MAX)
		return cs_error(CS_ERR_INVALID, "--grid: %zu bytes, more than "
				"the %d accepted", strlen(spec),
				CS_GRID_SPEC_MAX);
	for (p = spec;; p = comma + 1) {
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0)
			return cs_error(CS_ERR_INVALID, "--grid '%s': empty "
					"item", spec);
		if (g.ndims == CS_NUM_AXES) /* 7th item: one axis repeats */
			return cs_error(CS_ERR_INVALID, "--grid '%s': more "
					"items than the %d axes", spec,
					CS_NUM_AXES);
		memcpy(item, p, len);
		item[len] = '\0';
		if ((st = parse_item(spec, item, &g, &product)) != CS_OK)
			return st;
		if (!comma)
			break;
	}
	if (product != world)
		return product == GRID_RANKS_CAP ?
			cs_error(CS_ERR_INVALID, "--grid: %s is more than %d "
				 "ranks, the world has %d", spec, 2147483647,
				 world) :
			cs_error(CS_ERR_INVALID, "--grid: %s is %lld ranks, "
				 "the world has %d", spec, product, world);
	g.world = world;
	*out = g;
	return CS_OK;
}

/* A grid as cs_grid_parse builds one (enough to keep
 * the arithmetic below in bounds). */
static int grid_ok(const cs_grid_t *g)
{
	return g && g->world >= 1 && g->ndims >= 1 && g->ndims <= CS_NUM_AXES;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_format(const cs_grid_t *g, char *buf, size_t n)
{
	size_t used = 0;
	int i, w;

	if (!buf || n == 0 || !grid_ok(g))
		return cs_error(CS_ERR_INVALID, "grid format: no grid or no "
				"buffer");
	buf[0] = '\0';
	for (i = 0; i < g->ndims; i++) {
		w = snprintf(buf + used, n - used, "%s%s%d", i ? "," : "",
			     axis_names[g->axis[i]], g->size[i]);
		if (w < 0 || (size_t)w >= n - used) {
			buf[0] = '\0';
			return cs_error(CS_ERR_INVALID, "grid format: %zu "
					"bytes are too few", n);
		}
		used += (size_t)w;
	}
	return CS_OK;
}

/* Contract in csref/grid.h. */
int cs_grid_axis_size(const cs_grid_t *g, cs_grid_axis_t a)
{
	int i;

	if (!grid_ok(g) || (unsigned)a >= CS_NUM_AXES)
		return 0;
	for (i = 0; i < g->ndims; i++)
		if (g->axis[i] == a)
			return g->size[i];
	return 1;
}

/* Row-major decomposition (last listed axis fastest); grid.h states it. */
static void coords_of(const cs_grid_t *g, int r, int coord[CS_NUM_AXES])
{
	int i;

	memset(coord, 0, CS_NUM_AXES * sizeof coord[0]);
	for (i = g->ndims - 1; i >= 0; i--) {
		coord[g->axis[i]] = r % g->size[i];
		r /= g->size[i];
	}
}

/* The inverse of coords_of; coordinates assumed in range. */
static int rank_of(const cs_grid_t *g, const int coord[CS_NUM_AXES])
{
	int i, r = 0;

	for (i = 0; i < g->ndims; i++)
		r = r * g->size[i] + coord[g->axis[i]];
	return r;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_coords(const cs_grid_t *g, int r, int coord[CS_NUM_AXES])
{
	if (!grid_ok(g) || !coord || r < 0 || r >= g->world)
		return cs_error(CS_ERR_INVALID, "grid coordinates: rank %d is "
				"not in the grid", r);
	coords_of(g, r, coord);
	return CS_OK;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_rank(const cs_grid_t *g, const int coord[CS_NUM_AXES],
			 int *rank)
{
	int a;

	if (!grid_ok(g) || !coord || !rank)
		return cs_error(CS_ERR_INVALID, "grid rank: no grid, "
				"coordinates or result");
	for (a = 0; a < CS_NUM_AXES; a++)
		if (coord[a] < 0 ||
		    coord[a] >= cs_grid_axis_size(g, (cs_grid_axis_t)a))
			return cs_error(CS_ERR_INVALID, "grid rank: coordinate "
					"%d on axis %s is outside 0..%d",
					coord[a], axis_names[a],
					cs_grid_axis_size(g,
						(cs_grid_axis_t)a) - 1);
	*rank = rank_of(g, coord);
	return CS_OK;
}

/* Contract in csref/grid.h. */
int cs_grid_group_size(const cs_grid_t *g, unsigned mask)
{
	int i, n = 1;

	if (!grid_ok(g) || (mask & ~CS_AXIS_ALL))
		return 0;
	for (i = 0; i < g->ndims; i++)
		if (mask & CS_AXIS_BIT(g->axis[i]))
			n *= g->size[i];
	return n;
}

/* Argument checks shared by the group functions. */
static cs_status_t group_args(const char *what, const cs_grid_t *g,
			      unsigned mask, int r)
{
	if (!grid_ok(g))
		return cs_error(CS_ERR_INVALID, "%s: no grid", what);
	if (mask & ~CS_AXIS_ALL)
		return cs_error(CS_ERR_INVALID, "%s: axis mask 0x%x holds bits "
				"that are not axes (0x%x)", what, mask,
				mask & ~CS_AXIS_ALL);
	if (r < 0 || r >= g->world)
		return cs_error(CS_ERR_INVALID, "%s: rank %d is not in a grid "
				"of %d ranks", what, r, g->world);
	return CS_OK;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_split_mask(const cs_grid_t *g, unsigned mask, int r,
			       int *color, int *key)
{
	int c[CS_NUM_AXES], i, k = 0;
	cs_status_t st;

	if ((st = group_args("grid split", g, mask, r)) != CS_OK)
		return st;
	if (!color || !key)
		return cs_error(CS_ERR_INVALID, "grid split: no colour or key "
				"to fill");
	coords_of(g, r, c);
	for (i = 0; i < g->ndims; i++)
		if (mask & CS_AXIS_BIT(g->axis[i])) {
			k = k * g->size[i] + c[g->axis[i]];
			c[g->axis[i]] = 0;
		}
	*color = rank_of(g, c);
	*key = k;
	return CS_OK;
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_split(const cs_grid_t *g, cs_grid_axis_t a, int r,
			  int *color, int *key)
{
	if ((unsigned)a >= CS_NUM_AXES)
		return cs_error(CS_ERR_INVALID, "grid split: %d is not an axis",
				(int)a);
	return cs_grid_split_mask(g, CS_AXIS_BIT(a), r, color, key);
}

/* Contract in csref/grid.h. */
cs_status_t cs_grid_group(const cs_grid_t *g, unsigned mask, int r,
			  int *ranks, int cap, int *n)
{
	int c[CS_NUM_AXES], i, k, size, rest;
	cs_status_t st;

	if ((st = group_args("grid group", g, mask, r)) != CS_OK)
		return st;
	if (!n || (!ranks && cap > 0))
		return cs_error(CS_ERR_INVALID, "grid group: no list to fill");
	size = cs_grid_group_size(g, mask);
	*n = size;
	if (cap < size)
		return cs_error(CS_ERR_INVALID, "grid group: %d ranks, room "
				"for %d", size, cap);
	coords_of(g, r, c);
	for (k = 0; k < size; k++) {
		/* member k: k's row-major digits on the masked axes */
		for (rest = k, i = g->ndims - 1; i >= 0; i--)
			if (mask & CS_AXIS_BIT(g->axis[i])) {
				c[g->axis[i]] = rest % g->size[i];
				rest /= g->size[i];
			}
		ranks[k] = rank_of(g, c);
	}
	return CS_OK;
}
