/*
 * explain_svg.h - `collspec explain COLL --svg FILE`: the worked example of
 * explain.c drawn as an SVG picture, for the teaching pages
 * (docs/collectives/, made by scripts/gen-pages.sh).
 *
 * One row per rank in two panels, the send buffers before the call and the
 * receive buffers after it, one cell per element holding the value the
 * generator (send) or the oracle (receive) gives. Colours say where each
 * value comes from: a cell is tinted with the colour of the rank whose send
 * element it is, and a reduced element carries one stripe per rank it
 * combines. The sources are found by looking each received value up among
 * the inputs (data movement) or among the reductions of the inputs'
 * columns (reducing collectives), never from a second statement of what
 * the collective does; a value with no single source is left untinted.
 * Under each run of receive cells: its source ("r1 [0-3]", or "sum [4-7]"
 * for a reduction); under each run of send cells: the ranks it goes to
 * (none where no received value was traced to it).
 */
#ifndef CS_EXPLAIN_SVG_H
#define CS_EXPLAIN_SVG_H

#include <stdio.h>
#include "csref/case.h"
#include "csref/status.h"

/*
 * Write the picture of case c to the file at path (created or truncated).
 * c must be valid (cs_case_validate), with at most CS_SVG_MAX_RANKS ranks;
 * alltoallv's count matrix stays the caller's. Returns CS_OK, CS_ERR_IO
 * (the file cannot be written; the message names it), CS_ERR_NOMEM, or the
 * oracle's error.
 */
#define CS_SVG_MAX_RANKS 16
cs_status_t cs_explain_svg(const cs_case_t *c, const char *path);

/* s as XML character data: &, < and > escaped, bytes outside printable
 * ASCII left out (the pictures' labels are ASCII). */
void cs_svg_text(FILE *f, const char *s);

/* <text x y class>s</text> and a newline. */
void cs_svg_text_at(FILE *f, int x, int y, const char *cls, const char *s);

#endif /* CS_EXPLAIN_SVG_H */
