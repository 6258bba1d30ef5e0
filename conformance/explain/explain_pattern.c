/*
 * explain_pattern.c - `collspec explain --grid G` and `collspec explain
 * --pattern NAME` (explain_pattern.h): each picture is filled from the
 * code the patterns run, never from a second statement of it (the grid
 * is explain_grid.c's):
 *   pp      the 1F1B timetable cs_pat_1f1b_ticks; the bubble is counted
 *           from the drawn cells;
 *   tp_mlp, tp_col, sp   the pattern run on the simulator (cs_psim_run):
 *           rank 0's logged calls, placed at f / g by what they do;
 *   ring    cs_pat_ring_chunks and cs_pat_ring_source;
 *   moe     cs_moe_routing, the routing the pattern computes.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/grid.h"
#include "csref/moe_routing.h"
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/psim.h"
#include "explain/explain_pattern.h"

static const char usage[] =
"usage: collspec explain --grid G [--ranks N] [--svg FILE]\n"
"       collspec explain --pattern pp|tp_mlp|tp_col|sp|ring|moe [--ranks P]\n"
"                        [--micro-batches M] [--variant V] [--svg FILE]\n"
"\n"
"--grid G: the process grid G (a --grid text such as pp2,dp2,tp2; or a\n"
"pattern name: that pattern's default grid at --ranks N, default 8):\n"
"every rank's coordinate on every axis, its group on every axis.\n"
"--pattern NAME: a picture of the pattern, from the code it runs: pp the\n"
"1F1B timeline of P stages (4) and M micro-batches (8) with its bubble;\n"
"tp_mlp, tp_col, sp the collectives f and g of tensor parallelism on P\n"
"ranks (2); ring the zig-zag chunks of ring attention on P ranks (4);\n"
"moe the routing, drops and dispatch counts on P ranks (4) of variant V\n"
"(a2av-pos-cf1-z1). --svg FILE also draws the picture.\n";

struct px {
	const char *grid, *pattern, *svg, *variant;
	int ranks, mb;
};

/* ---- pp: the 1F1B timeline ----------------------------------------------- */

static cs_status_t pp_pic(const struct px *x, cs_pic_t *p)
{
	int P = x->ranks ? x->ranks : 4, M = x->mb ? x->mb : 8, nt, s, j, t;
	int *tick = malloc(sizeof(int) * (size_t)(P > 0 ? P : 1) * 2 *
			   (size_t)(M > 0 ? M : 1));
	long idle = 0;
	cs_status_t st;
	char buf[200];

	if (!tick)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	if ((st = cs_pat_1f1b_ticks(P, M, tick, &nt)) != CS_OK)
		goto out_free;
	if (nt > CS_PIC_MAX_COLS || P > CS_PIC_MAX_ROWS) {
		st = cs_error(CS_ERR_INVALID, "--pattern pp: %d ticks; a "
			      "picture shows at most %d", nt, CS_PIC_MAX_COLS);
		goto out_free;
	}
	snprintf(p->title, sizeof p->title, "pp: 1F1B, %d stages, %d "
		 "micro-batches, one tick per forward or backward", P, M);
	p->nrows = P, p->ncols = nt;
	for (t = 0; t < nt; t++)
		snprintf(p->col[t], CS_PIC_TEXT, "%d", t);
	for (s = 0; s < P; s++) {
		snprintf(p->row[s], CS_PIC_TEXT, "stage %d", s);
		for (t = 0; t < nt; t++)
			p->tint[s][t] = -1;
		for (j = 0; j < 2 * M; j++) {
			t = tick[s * 2 * M + j];
			snprintf(p->cell[s][t], CS_PIC_TEXT, "%c%d",
				 j < M ? 'F' : 'B', j % M);
			p->tint[s][t] = j % M;
		}
		for (t = 0; t < nt; t++)
			idle += p->cell[s][t][0] == 0;
	}
	snprintf(buf, sizeof buf, "bubble: %ld idle of %d x %d slots = %.4f; "
		 "(p-1)/(m+p-1) = %d/%d = %.4f", idle, P, nt,
		 (double)idle / ((double)P * nt), P - 1, M + P - 1,
		 (double)(P - 1) / (M + P - 1));
	cs_pic_note(p, "%s", buf);
	cs_pic_note(p, "%s",
		    "F j / B j: the forward / backward of micro-batch j; "
		    "an empty cell is a stage idle in that tick");
out_free:
	free(tick);
	return st;
}

/* ---- tensor parallelism: f and g from the simulator's log ---------------- */

/* The first phase's calls of world rank 0 as the pattern makes them. */
static cs_status_t tp_calls(const char *name, int P, cs_psim_out_t *out)
{
	const cs_pattern_t *pat = cs_pattern_find(name);
	cs_grid_t g;
	char spec[16];

	snprintf(spec, sizeof spec, "tp%d", P);
	cs_status_t st = cs_grid_parse(spec, P, &g);
	if (st != CS_OK)
		return st;
	return cs_psim_run(pat, 0, pat->dtypes[0], 1, &g, CS_PSIM_OK, out);
}

/* Where a call goes: reductions sum partial results, so a forward one
 * sits at the row-parallel output (g) and a backward one at the
 * column-parallel input's gradient (f); data movement gathers split
 * tensors: forward at the column input of a block with sequence-split
 * input (f), or at the split output of a lone column linear, backward at
 * the output's gradient (g). Returns the column. */
static int tp_place(int lone_col, const cs_psim_rec_t *c, int fcol, int gcol)
{
	int reduces = cs_coll_reduces(c->coll);

	if (c->phase == CS_PHASE_FWD)
		return reduces || lone_col ? gcol : fcol;
	return reduces ? fcol : gcol;
}

static cs_status_t tp_pic(const struct px *x, cs_pic_t *p)
{
	static const char *const mlp[] = {"X", "f", "XW1_r", "ReLU", "W2_r",
					  "g", "Z"};
	static const char *const col[] = {"X", "in", "XW_r", "out", "Y"};
	int lone = !strcmp(x->pattern, "tp_col"), P = x->ranks ? x->ranks : 2;
	const char *const *chain = lone ? col : mlp;
	int n = lone ? 5 : 7, fcol = 1, gcol = lone ? 3 : 5, i, k;
	cs_psim_out_t out;
	char buf[200], calls[200] = "";
	size_t o = 0;
	cs_status_t st = tp_calls(x->pattern, P, &out);

	if (st != CS_OK)
		return st;
	if (cs_psim_nfailed(&out)) { /* its calls would not be the pattern's */
		cs_psim_free(&out);
		return cs_error(CS_ERR_INTERNAL, "--pattern %s: the pattern "
				"failed its own check on the simulator at tp%d",
				x->pattern, P);
	}
	snprintf(p->title, sizeof p->title, "%s on tp%d: %s, rank 0's calls "
		 "as the pattern makes them", x->pattern, P, lone ?
		 "a column-parallel linear" : "column- then row-parallel");
	p->nrows = 2, p->ncols = n;
	snprintf(p->row[0], CS_PIC_TEXT, "forward");
	snprintf(p->row[1], CS_PIC_TEXT, "backward");
	for (i = 0; i < n; i++) {
		snprintf(p->col[i], CS_PIC_TEXT, "%s", chain[i]);
		for (k = 0; k < 2; k++) {
			int comm = i == fcol || i == gcol;
			snprintf(p->cell[k][i], CS_PIC_TEXT, "%s%s",
				 k && !comm ? "d" : "",
				 comm ? "identity" : chain[i]);
			p->tint[k][i] = -1;
		}
	}
	for (i = 0; i < (int)out.nlog; i++) {
		const cs_psim_rec_t *c = &out.log[i];
		if (c->world_rank != 0 || c->phase > CS_PHASE_BWD)
			continue;
		k = c->phase == CS_PHASE_BWD;
		int at = tp_place(lone, c, fcol, gcol);
		snprintf(p->cell[k][at], CS_PIC_TEXT, "%s%s%s",
			 cs_coll_name(c->coll), cs_coll_reduces(c->coll) ?
			 "-" : "", cs_coll_reduces(c->coll) ?
			 cs_op_name(c->op) : "");
		p->tint[k][at] = k;
		if (o < sizeof calls) /* a longer list is cut */
			o += (size_t)snprintf(calls + o, sizeof calls - o,
					      "%s%s %s count %zu", o ? "; " : "",
					      cs_pphase_name(c->phase),
					      cs_coll_name(c->coll), c->count);
	}
	cs_psim_free(&out);
	for (i = 0; i < 2; i++) {
		int at = i ? gcol : fcol;
		snprintf(buf, sizeof buf, "%s: forward %s, backward %s",
			 chain[at], p->cell[0][at], p->cell[1][at]);
		cs_pic_note(p, "%s", buf);
	}
	cs_pic_note(p, "rank 0's calls: %s", calls);
	cs_pic_note(p, "%s",
		    "_r: rank r's slice of a weight split over the tp "
		    "group; d: the gradient flowing back");
	return CS_OK;
}

/* ---- ring attention: the zig-zag chunks ---------------------------------- */

static cs_status_t ring_pic(const struct px *x, cs_pic_t *p)
{
	int P = x->ranks ? x->ranks : 4, r, i, q[2], k[2], src, work;
	cs_status_t st;

	if (P < 1 || P + 2 > CS_PIC_MAX_COLS || P > CS_PIC_MAX_ROWS)
		return cs_error(CS_ERR_INVALID, "--pattern ring: --ranks from "
				"1 to %d", CS_PIC_MAX_ROWS);
	snprintf(p->title, sizeof p->title, "ring attention on cp%d: the "
		 "sequence in %d chunks, causal, load-balanced", P, 2 * P);
	p->nrows = P, p->ncols = P + 2;
	snprintf(p->col[0], CS_PIC_TEXT, "Q chunks");
	for (i = 0; i < P; i++)
		snprintf(p->col[1 + i], CS_PIC_TEXT, "step %d KV", i);
	snprintf(p->col[P + 1], CS_PIC_TEXT, "blocks");
	for (r = 0; r < P; r++) {
		if ((st = cs_pat_ring_chunks(P, r, q)) != CS_OK)
			return st;
		snprintf(p->row[r], CS_PIC_TEXT, "rank %d", r);
		snprintf(p->cell[r][0], CS_PIC_TEXT, "c%d,c%d", q[0], q[1]);
		p->tint[r][0] = r;
		work = 0;
		for (i = 0; i < P; i++) {
			if ((st = cs_pat_ring_source(P, r, i, &src)) != CS_OK ||
			    (st = cs_pat_ring_chunks(P, src, k)) != CS_OK)
				return st;
			snprintf(p->cell[r][1 + i], CS_PIC_TEXT, "c%d,c%d",
				 k[0], k[1]);
			p->tint[r][1 + i] = src;
			/* causal: a query chunk sees key chunks not after it;
			 * the diagonal block is half of a full one */
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
					work += k[b] < q[a] ? 2 : k[b] == q[a];
		}
		snprintf(p->cell[r][P + 1], CS_PIC_TEXT, "%g", work / 2.0);
		p->tint[r][P + 1] = -1;
	}
	cs_pic_note(p, "%s",
		    "rank r holds query chunks r and 2P-1-r; at step i it "
		    "holds the K, V of rank (r - i) mod P (colour: that rank)");
	cs_pic_note(p, "%s",
		    "blocks: the causal query x key blocks a rank computes "
		    "(a diagonal block counts half): the same on every rank");
	return CS_OK;
}

/* ---- MoE: routing, drops, dispatch --------------------------------------- */

static int variant_of(const cs_pattern_t *pat, const char *name)
{
	for (int v = 0; v < pat->nvariants; v++)
		if (!strcmp(pat->variants[v], name))
			return v;
	return -1;
}

static void moe_fill(const cs_moe_routing_t *ro, cs_pic_t *p)
{
	int s, j, n = ro->tau * ro->k;

	for (s = 0; s < ro->P; s++) {
		snprintf(p->row[s], CS_PIC_TEXT, "rank %d", s);
		for (j = 0; j < n; j++) {
			int e = ro->expert[s * n + j];
			int kept = ro->pos[s * n + j] >= 0;
			snprintf(p->cell[s][j], CS_PIC_TEXT, "e%d%s", e,
				 kept ? "" : "x");
			p->tint[s][j] = kept ? e / ro->e : -1;
		}
		for (j = 0; j < ro->P; j++) {
			snprintf(p->cell[s][n + j], CS_PIC_TEXT, "%lld",
				 (long long)ro->m[s * ro->P + j]);
			p->tint[s][n + j] = j;
		}
	}
}

static cs_status_t moe_pic(const struct px *x, cs_pic_t *p)
{
	const cs_pattern_t *pat = cs_pattern_find("moe");
	const char *vn = x->variant ? x->variant : "a2av-pos-cf1-z1";
	int P = x->ranks ? x->ranks : 4, v = variant_of(pat, vn), j, n;
	long long kept = 0, routed = 0;
	cs_moe_routing_t ro;
	cs_grid_t g;
	char spec[16], buf[200];
	cs_status_t st;

	if (v < 0)
		return cs_error(CS_ERR_INVALID, "--variant '%s': not a variant "
				"of moe (collspec list names them)", vn);
	snprintf(spec, sizeof spec, "ep%d", P);
	if ((st = cs_grid_parse(spec, P, &g)) != CS_OK ||
	    (st = cs_moe_routing(v, pat->dtypes[0], 1, &g, 0, &ro)) != CS_OK)
		return st;
	n = ro.tau * ro.k;
	if (P > CS_PIC_MAX_ROWS || n + P > CS_PIC_MAX_COLS) {
		cs_moe_routing_free(&ro);
		return cs_error(CS_ERR_INVALID, "--pattern moe: --ranks at "
				"most %d", CS_PIC_MAX_ROWS);
	}
	snprintf(p->title, sizeof p->title, "moe %s on ep%d: %d tokens per "
		 "rank, top-%d of %d experts (%d per rank), capacity %lld",
		 vn, P, ro.tau, ro.k, ro.E, ro.e, (long long)ro.C);
	p->nrows = P, p->ncols = n + P;
	for (j = 0; j < n; j++)
		snprintf(p->col[j], CS_PIC_TEXT, "t%d.%d", j / ro.k, j % ro.k);
	for (j = 0; j < P; j++)
		snprintf(p->col[n + j], CS_PIC_TEXT, "to r%d", j);
	moe_fill(&ro, p);
	for (j = 0; j < P * ro.E; j++)
		kept += ro.kept[j], routed += ro.routed[j];
	snprintf(buf, sizeof buf, "%lld of %lld assignments kept, %lld "
		 "dropped over capacity %lld per (rank, expert)", kept, routed,
		 routed - kept, (long long)ro.C);
	cs_pic_note(p, "%s", buf);
	cs_pic_note(p, "%s",
		    "tN.j: token N's j-th choice, eI its expert (colour: "
		    "the rank expert I lives on), x: dropped");
	cs_pic_note(p, "%s", ro.pad ? "dispatch: alltoall of C rows per (rank, "
		    "expert) block, padded; combine: the same back" :
		    "dispatch: alltoallv, rank s sends 'to rD' rows to rank D; "
		    "combine: alltoallv with the transposed counts");
	cs_moe_routing_free(&ro);
	return CS_OK;
}

/* ---- printing and the command line -------------------------------------- */

static void print_pic(const cs_pic_t *p)
{
	int w[CS_PIC_MAX_COLS], r, c, lw = 4;

	printf("%s\n\n", p->title);
	for (r = 0; r < p->nrows; r++)
		lw = (int)strlen(p->row[r]) > lw ? (int)strlen(p->row[r]) : lw;
	for (c = 0; c < p->ncols; c++) {
		w[c] = (int)strlen(p->col[c]);
		for (r = 0; r < p->nrows; r++)
			if ((int)strlen(p->cell[r][c]) > w[c])
				w[c] = (int)strlen(p->cell[r][c]);
	}
	printf("%-*s", lw, "");
	for (c = 0; c < p->ncols; c++)
		printf("  %*s", w[c], p->col[c]);
	printf("\n");
	for (r = 0; r < p->nrows; r++) {
		printf("%-*s", lw, p->row[r]);
		for (c = 0; c < p->ncols; c++)
			printf("  %*s", w[c], p->cell[r][c][0] ? p->cell[r][c]
							     : ".");
		printf("\n");
	}
	printf("\n");
	for (r = 0; r < p->nnotes; r++)
		printf("%s\n", p->note[r]);
}

static cs_status_t px_opt(struct px *x, const char *o, const char *v)
{
	long n;

	if (!strcmp(o, "--grid"))
		x->grid = v;
	else if (!strcmp(o, "--pattern"))
		x->pattern = v;
	else if (!strcmp(o, "--svg"))
		x->svg = v;
	else if (!strcmp(o, "--variant"))
		x->variant = v;
	else if (!strcmp(o, "--ranks") || !strcmp(o, "--micro-batches")) {
		char *end;
		n = strtol(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || n < 1 || n > 64)
			return cs_error(CS_ERR_INVALID, "%s '%s': a number "
					"from 1 to 64", o, v);
		*(o[2] == 'r' ? &x->ranks : &x->mb) = (int)n;
	} else
		return cs_error(CS_ERR_INVALID, "unknown option '%s' (see "
				"collspec explain --help)", o);
	if (!*v)
		return cs_error(CS_ERR_INVALID, "%s: an empty value", o);
	return CS_OK;
}

static cs_status_t pattern_pic(const struct px *x, cs_pic_t *p)
{
	const char *n = x->pattern;

	if (!strcmp(n, "pp"))
		return pp_pic(x, p);
	if (!strcmp(n, "tp_mlp") || !strcmp(n, "tp_col") || !strcmp(n, "sp"))
		return tp_pic(x, p);
	if (!strcmp(n, "ring"))
		return ring_pic(x, p);
	if (!strcmp(n, "moe"))
		return moe_pic(x, p);
	return cs_error(CS_ERR_INVALID, "--pattern '%s': pictures exist for "
			"pp, tp_mlp, tp_col, sp, ring, moe (--grid NAME draws "
			"any pattern's grid)", n);
}

int cs_explain_pattern_main(int argc, char **argv)
{
	static cs_pic_t pic;
	struct px x;
	cs_status_t st = CS_OK;
	int i;

	memset(&x, 0, sizeof x);
	memset(&pic, 0, sizeof pic);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
	for (i = 1; i < argc && st == CS_OK; i += 2) {
		st = i + 1 < argc ? px_opt(&x, argv[i], argv[i + 1]) :
		     cs_error(CS_ERR_INVALID, "'%s' needs a value", argv[i]);
	}
	if (st == CS_OK && !x.grid == !x.pattern)
		st = cs_error(CS_ERR_INVALID, "give --grid or --pattern, "
			      "one of them");
	if (st == CS_OK && x.mb && !x.pattern)
		st = cs_error(CS_ERR_INVALID, "--micro-batches goes with "
			      "--pattern pp");
	if (st == CS_OK)
		st = x.grid ? cs_pic_grid(x.grid, x.ranks, &pic) :
		     pattern_pic(&x, &pic);
	if (st == CS_OK)
		print_pic(&pic);
	if (st == CS_OK && x.svg)
		st = cs_pic_svg(&pic, x.svg);
	if (st != CS_OK) {
		fprintf(stderr, "collspec explain: %s\n", cs_last_error());
		return 2;
	}
	return 0;
}
