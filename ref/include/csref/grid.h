/*
 * grid.h - the process grid of the parallelism patterns (issue 10): the
 * world's ranks laid out on named axes (data, tensor, pipeline, sequence,
 * context, expert parallelism), and the sub-communicator groups that a
 * pattern builds from it with comm_split. Plain arithmetic, no MPI: every
 * process computes the same grid, and any group, from the same text.
 *
 * A grid is an ordered list of (axis, size) pairs, each axis at most once,
 * every size >= 1, whose product is the world size. `--grid pp2,dp2,tp2`
 * names one. An axis that is not listed has size 1: every rank's
 * coordinate on it is 0 and its groups hold one rank each, so that a
 * pattern may ask any grid for its tp group.
 *
 * Rank layout (row-major, as torch's DeviceMesh lays out its mesh): the
 * FIRST axis listed varies slowest and the LAST axis listed varies fastest.
 * For listed axes a_0 .. a_{n-1} with sizes s_0 .. s_{n-1} and the
 * strides  stride_{n-1} = 1,  stride_i = s_{i+1} * stride_{i+1}:
 *   coordinates of world rank r:  c_i = (r / stride_i) % s_i
 *   rank of coordinates c:        r   = sum_i c_i * stride_i
 * Megatron-LM's default order "tp-cp-ep-dp-pp" names its fastest axis
 * first; the same layout here is written in reverse, "pp,dp,ep,cp,tp"
 * (tensor-parallel ranks adjacent, pipeline stages furthest apart). Any
 * other order is legal and gives another layout (`dp2,tp2,pp2` puts
 * pipeline neighbours adjacent). The default grid of each pattern is
 * spec/patterns.md's (section 2.5), made by the pattern suite.
 */
#ifndef CSREF_GRID_H
#define CSREF_GRID_H

#include <stddef.h>
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The axes: X(ID, name, parallelism). The enumerator values index the
 * coordinate arrays below and give each axis its bit in an axis mask. */
#define CS_GRID_AXIS_LIST(X)                                                   \
  X(DP, dp, "data")                                                            \
  X(TP, tp, "tensor")                                                          \
  X(PP, pp, "pipeline")                                                        \
  X(SP, sp, "sequence")                                                        \
  X(CP, cp, "context")                                                         \
  X(EP, ep, "expert")

#define CS_GRID_AXIS_ENUM_(ID, ...) CS_AXIS_##ID,
typedef enum cs_grid_axis {
  CS_GRID_AXIS_LIST(CS_GRID_AXIS_ENUM_) CS_NUM_AXES
} cs_grid_axis_t;
#undef CS_GRID_AXIS_ENUM_

/* The bit of axis a in an axis mask: CS_AXIS_BIT(CS_AXIS_DP) |
 * CS_AXIS_BIT(CS_AXIS_CP) is the dp x cp group (ZeRO with context
 * parallelism). */
#define CS_AXIS_BIT(a) (1u << (unsigned)(a))
#define CS_AXIS_ALL ((1u << CS_NUM_AXES) - 1u)

/* The longest --grid text cs_grid_parse accepts, in bytes. */
#define CS_GRID_SPEC_MAX 64

/* A grid. Fields are read-only to users; build one with cs_grid_parse or
 * a caller listing the axes. axis[0..ndims) in listed order (slowest
 * first). */
typedef struct cs_grid {
  int world;                   /* product of size[0..ndims) */
  int ndims;                   /* 1 .. CS_NUM_AXES */
  cs_grid_axis_t axis[CS_NUM_AXES];
  int size[CS_NUM_AXES];       /* size[i] of axis[i], >= 1 */
} cs_grid_t;

/* The axis's short name ("dp", ...) or NULL for a value that is not an
 * axis. */
const char *cs_grid_axis_name(cs_grid_axis_t a);

/*
 * Parse spec, a comma list of AXIS SIZE items (`pp2,dp2,tp2`, `ep4,dp2`,
 * `dp1`), into *out for a world of `world` ranks. Strict: lower-case axis
 * names, decimal digits only (no sign, no space, no empty item), at most
 * CS_GRID_SPEC_MAX bytes. CS_ERR_INVALID, with a message naming the item
 * and the problem, for: a NULL or empty spec, an empty item, an unknown
 * axis, a missing or non-numeric size, a size of 0, a repeated axis, a
 * product other than world ("dp2,tp2 is 4 ranks, the world has 8") or
 * world < 1. *out is written only on success; the caller owns it.
 */
cs_status_t cs_grid_parse(const char *spec, int world, cs_grid_t *out);

/*
 * Write the grid's text (the form cs_grid_parse reads back to an equal
 * grid) into buf[0..n), NUL-terminated. CS_ERR_INVALID when buf cannot
 * hold it (buf then holds "" if n > 0).
 */
cs_status_t cs_grid_format(const cs_grid_t *g, char *buf, size_t n);

/* Size of axis a on grid g: its listed size, 1 when not listed, 0 when a
 * is not an axis. */
int cs_grid_axis_size(const cs_grid_t *g, cs_grid_axis_t a);

/*
 * Coordinates of world rank r (0 <= r < g->world) by the layout rule
 * above, into coord[a] for every axis a (0 for an axis not listed); the
 * caller owns coord[CS_NUM_AXES]. CS_ERR_INVALID for r out of range.
 */
cs_status_t cs_grid_coords(const cs_grid_t *g, int r, int coord[CS_NUM_AXES]);

/*
 * The world rank at coordinates coord[CS_NUM_AXES] (indexed by axis; an
 * axis not listed must be 0). CS_ERR_INVALID when a coordinate is outside
 * 0 .. size-1.
 */
cs_status_t cs_grid_rank(const cs_grid_t *g, const int coord[CS_NUM_AXES],
                         int *rank);

/* Number of ranks in each group of the axes in mask (a product of their
 * sizes; 1 for mask 0), or 0 when mask holds a bit that is not an axis. */
int cs_grid_group_size(const cs_grid_t *g, unsigned mask);

/*
 * The group of rank r over the axes in mask: the ranks that differ from r
 * only in the coordinates of those axes. Gives the MPI_Comm_split colour
 * and key that build it on every rank:
 *   color = the lowest world rank of the group (r with the masked
 *           coordinates set to 0): equal across the group, distinct
 *           between groups, >= 0;
 *   key   = r's index in the group: its masked coordinates in the grid's
 *           row-major layout restricted to those axes (for one axis, the
 *           coordinate along it), so that the group's rank order is the
 *           axis order, which is also ascending world-rank order.
 * CS_ERR_INVALID for r out of range or a mask bit that is not an axis.
 */
cs_status_t cs_grid_split_mask(const cs_grid_t *g, unsigned mask, int r,
                               int *color, int *key);

/* cs_grid_split_mask for the one axis a (mask CS_AXIS_BIT(a)). */
cs_status_t cs_grid_split(const cs_grid_t *g, cs_grid_axis_t a, int r,
                          int *color, int *key);

/*
 * The world ranks of r's group over the axes in mask, in group order
 * (ranks[key] is the member with that key), into ranks[0..*n); the caller
 * owns ranks[0..cap). CS_ERR_INVALID for r out of range, a bad mask or
 * cap < cs_grid_group_size(g, mask) (*n then holds the size needed).
 */
cs_status_t cs_grid_group(const cs_grid_t *g, unsigned mask, int r,
                          int *ranks, int cap, int *n);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_GRID_H */
