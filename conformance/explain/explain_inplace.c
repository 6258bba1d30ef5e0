/*
 * explain_inplace.c - `collspec explain COLL --inplace`: where the input
 * and the result of an in-place call sit in each rank's one buffer, by
 * NCCL's pointer rule and by MPI's MPI_IN_PLACE form, side by side where
 * they differ (spec/collectives.md §2 and §3.2): the root's block of
 * gather and scatter, reducescatter's unspecified blocks and MPI's other
 * layout, alltoallv's displacements with the gaps nobody writes, and the
 * collectives NCCL has no in-place form for.
 *
 * Every cell of a rank's buffer gets a role and two labels, what it holds
 * before the call and after it:
 *   in   an input that the result overwrites (or equals);
 *   out  written by the call, its contents before do not matter;
 *   kept an input the call reads and leaves as it was;
 *   unsp an input whose contents are unspecified on return;
 *   gap  between alltoallv blocks: nobody reads or writes it.
 * Labels: r1[3] = rank 1's input element 3 (its send element, wherever
 * the in-place layout puts it), r0-r3[5] = the reduction over ranks 0..3
 * of their element 5, ? = unspecified, . = anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/names.h"
#include "explain/explain_steps.h"
#include "explain/explain_steps_impl.h"

enum role { RO_IN, RO_OUT, RO_KEPT, RO_UNSP, RO_GAP };

static const char *const role_name[] = {"in", "out", "kept", "unsp", "gap"};
static const char *const role_fill[] = {"#90be6d", "#8ecae6", "#e9ecef",
					"#f4978e", "#bdbdbd"};

struct cell {
	enum role role;
	char before[48], after[48];
};

/* The two forms. */
enum form { F_NCCL, F_MPI };

struct lay {
	const cs_case_t *c;
	size_t *sc, *sd, *rc, *rd; /* alltoallv layout of one rank */
};

/* "r0-r3[i]" (or "r0[i]" at P = 1): the reduction of element i. */
static void red_label(int P, size_t i, char *buf, size_t len)
{
	if (P == 1)
		snprintf(buf, len, "r0[%zu]", i);
	else
		snprintf(buf, len, "r0-r%d[%zu]", P - 1, i);
}

static void set(struct cell *x, enum role ro, const char *b, const char *a)
{
	x->role = ro;
	snprintf(x->before, sizeof x->before, "%s", b);
	snprintf(x->after, sizeof x->after, "%s", a);
}

/* Input element i of rank q. */
static void in_label(int q, size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "r%d[%zu]", q, i);
}

/* The cells of rank r's buffer under form f; returns how many, or -1
 * when the form has no in-place call (NCCL's alltoall, ...), 0 when the
 * rank has no buffer in the call. */
static long fill(struct lay *L, enum form f, int r, struct cell *x)
{
	const cs_case_t *c = L->c;
	size_t n = c->count, P = (size_t)c->nranks, i, b, k, at;
	int root = c->root, q;
	char in[48], out[48];

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		for (i = 0; i < n; i++) {
			in_label(r, i, in, sizeof in);
			red_label(c->nranks, i, out, sizeof out);
			set(&x[i], RO_IN, in, out);
		}
		return (long)n;
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		if (c->coll == CS_COLL_GATHER && r != root) {
			for (i = 0; i < n; i++) {
				in_label(r, i, in, sizeof in);
				set(&x[i], RO_KEPT, in, in);
			}
			return (long)n; /* a send buffer only */
		}
		for (b = 0; b < P; b++)
			for (i = 0; i < n; i++) {
				in_label((int)b, i, out, sizeof out);
				set(&x[b * n + i], (int)b == r ? RO_IN : RO_OUT,
				    (int)b == r ? out : ".", out);
			}
		return (long)(P * n);
	case CS_COLL_REDUCESCATTER:
		/* NCCL: result in block r; MPI: result in block 0 */
		for (b = 0; b < P; b++)
			for (i = 0; i < n; i++) {
				int res = f == F_NCCL ? (int)b == r : b == 0;

				in_label(r, b * n + i, in, sizeof in);
				red_label(c->nranks, (size_t)r * n + i, out,
					  sizeof out);
				set(&x[b * n + i], res ? RO_IN : RO_UNSP, in,
				    res ? out : "?");
			}
		return (long)(P * n);
	case CS_COLL_ALLTOALL:
		if (f == F_NCCL)
			return -1;
		for (b = 0; b < P; b++)
			for (i = 0; i < n; i++) {
				in_label(r, b * n + i, in, sizeof in);
				in_label((int)b, (size_t)r * n + i, out,
					 sizeof out);
				set(&x[b * n + i], RO_IN, in, out);
			}
		return (long)(P * n);
	case CS_COLL_ALLTOALLV:
		if (f == F_NCCL)
			return -1;
		/* the harness's in-place layout: sends at the send
		 * displacements, receives at the receive ones */
		cs_a2av_layout(c, r, L->sc, L->sd, L->rc, L->rd);
		at = 0;
		for (q = 0; q < c->nranks; q++) {
			k = L->sd[q] + L->sc[q] + c->a2av_gap;
			if (k > at)
				at = k;
			k = L->rd[q] + L->rc[q] + c->a2av_gap;
			if (k > at)
				at = k;
		}
		for (i = 0; i < at; i++)
			set(&x[i], RO_GAP, ".", ".");
		for (q = 0; q < c->nranks; q++)
			for (i = 0; i < L->sc[q]; i++) {
				in_label(r, L->sd[q] + i, in, sizeof in);
				set(&x[L->sd[q] + i], RO_KEPT, in, in);
			}
		for (q = 0; q < c->nranks; q++) {
			size_t sd[64], sc[64], rc[64], rd[64];

			/* what q sends to r: from q's layout */
			cs_a2av_layout(c, q, sc, sd, rc, rd);
			for (i = 0; i < L->rc[q]; i++) {
				struct cell *y = &x[L->rd[q] + i];
				int kept = y->role == RO_KEPT;

				snprintf(in, sizeof in, "%s",
					 kept ? y->before : ".");
				in_label(q, sd[r] + i, out, sizeof out);
				set(y, kept ? RO_IN : RO_OUT, in, out);
			}
		}
		return (long)at;
	case CS_COLL_BROADCAST:
		for (i = 0; i < n; i++) {
			in_label(root, i, out, sizeof out);
			set(&x[i], r == root ? RO_IN : RO_OUT,
			    r == root ? out : ".", out);
		}
		return (long)n;
	case CS_COLL_REDUCE:
		for (i = 0; i < n; i++) {
			in_label(r, i, in, sizeof in);
			red_label(c->nranks, i, out, sizeof out);
			set(&x[i], r == root ? RO_IN : RO_KEPT, in,
			    r == root ? out : in);
		}
		return (long)n;
	case CS_COLL_SCATTER:
		if (r != root) {
			for (i = 0; i < n; i++) {
				in_label(root, (size_t)r * n + i, out,
					 sizeof out);
				set(&x[i], RO_OUT, ".", out);
			}
			return (long)n;
		}
		for (b = 0; b < P; b++)
			for (i = 0; i < n; i++) {
				in_label(root, b * n + i, in, sizeof in);
				set(&x[b * n + i], (int)b == r ? RO_IN : RO_KEPT,
				    in, in);
			}
		return (long)(P * n);
	case CS_COLL_SENDRECV:
		if (f == F_NCCL)
			return -1;
		for (i = 0; i < n; i++) {
			in_label(r, i, in, sizeof in);
			in_label((r + c->nranks - 1) % c->nranks, i, out,
				 sizeof out);
			set(&x[i], RO_IN, in, out);
		}
		return (long)n;
	case CS_NUM_COLLS:
	default:
		break;
	}
	return -1;
}

/* The pointer rule of each form, and whether the two layouts differ. */
struct rule {
	const char *nccl, *mpi;
	int differ;
};

static const struct rule rules[CS_NUM_COLLS] = {
	[CS_COLL_ALLREDUCE] = {"sendbuff == recvbuff", "MPI_Allreduce with "
		"sendbuf = MPI_IN_PLACE: the input is read from recvbuf", 0},
	[CS_COLL_ALLGATHER] = {"sendbuff == recvbuff + rank*count: block "
		"rank already holds the input", "MPI_Allgather with sendbuf = "
		"MPI_IN_PLACE: the input is read from recvbuf + rank*count", 0},
	[CS_COLL_REDUCESCATTER] = {"recvbuff == sendbuff + rank*count: the "
		"result lands in block rank; the other blocks are unspecified "
		"on return", "MPI_Reduce_scatter_block with sendbuf = "
		"MPI_IN_PLACE: all inputs in recvbuf, the result in its FIRST "
		"count elements (block 0)", 1},
	[CS_COLL_ALLTOALL] = {NULL, "MPI_Alltoall with sendbuf = "
		"MPI_IN_PLACE: every block read from recvbuf and replaced "
		"there", 1},
	[CS_COLL_ALLTOALLV] = {NULL, "sendbuf == recvbuf as the harness "
		"calls it: send blocks read at the send displacements, receive "
		"blocks written at the receive ones, gaps untouched (MPI's "
		"MPI_IN_PLACE takes the receive counts and displacements for "
		"both directions: this layout when M is symmetric)", 1},
	[CS_COLL_BROADCAST] = {"sendbuff == recvbuff on the root",
		"MPI_Bcast has one buffer: always in place", 0},
	[CS_COLL_REDUCE] = {"sendbuff == recvbuff on the root (the other "
		"ranks have a send buffer only)", "MPI_Reduce with sendbuf = "
		"MPI_IN_PLACE on the root", 0},
	[CS_COLL_GATHER] = {"sendbuff == recvbuff + root*count on the root",
		"MPI_Gather with sendbuf = MPI_IN_PLACE on the root", 0},
	[CS_COLL_SCATTER] = {"recvbuff == sendbuff + root*count on the root; "
		"the root's other blocks keep their contents", "MPI_Scatter "
		"with recvbuf = MPI_IN_PLACE on the root", 0},
	[CS_COLL_SENDRECV] = {NULL, "MPI_Sendrecv_replace: one buffer, sent "
		"then replaced", 1},
};

#define CELL_W 78.0
#define ROW_H 18.0

/* Print (and draw at *y) form f of every rank. */
static cs_status_t show_form(struct lay *L, enum form f, FILE *svg,
			     double x0, double *y, struct cell *x,
			     const char *title)
{
	const cs_case_t *c = L->c;
	const char *rule = f == F_NCCL ? rules[c->coll].nccl
				       : rules[c->coll].mpi;
	long n, i;
	int r, half;

	printf("\n%s: %s\n", f == F_NCCL ? "NCCL" : "MPI",
	       rule ? rule : "no in-place form");
	if (svg) {
		fprintf(svg, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">"
			"%s</text>\n", x0, *y + 12, title);
		*y += ROW_H + 4;
	}
	if (!rule) {
		if (svg)
			fprintf(svg, "<text x=\"%.1f\" y=\"%.1f\">no in-place "
				"form</text>\n", x0, *y + 12);
		return CS_OK;
	}
	for (r = 0; r < c->nranks; r++) {
		n = fill(L, f, r, x);
		for (half = 0; half < 2; half++) {
			printf("  r%-2d %-6s", r, half ? "after" : "before");
			for (i = 0; i < n; i++)
				printf(" %-4s %-12s", half ? "" : role_name[x[i].role],
				       half ? x[i].after : x[i].before);
			printf("\n");
			if (!svg)
				continue;
			fprintf(svg, "<text x=\"%.1f\" y=\"%.1f\">r%d %s</text>\n",
				x0, *y + 13, r, half ? "after" : "before");
			for (i = 0; i < n; i++) {
				fprintf(svg, "<rect x=\"%.1f\" y=\"%.1f\" "
					"width=\"%.1f\" height=\"%.1f\" "
					"fill=\"%s\" stroke=\"#666\" "
					"stroke-width=\"0.6\"/>\n<text x=\"%.1f\" "
					"y=\"%.1f\">%s</text>\n", x0 + 80 +
					(double)i * CELL_W, *y, CELL_W, ROW_H - 2,
					role_fill[x[i].role], x0 + 84 +
					(double)i * CELL_W, *y + 12,
					half ? x[i].after : x[i].before);
			}
			*y += ROW_H;
		}
		if (svg)
			*y += 4;
	}
	return CS_OK;
}

cs_status_t cs_explain_inplace(const cs_case_t *c, cs_a2av_pattern_t pattern,
			       const char *svg)
{
	size_t P = (size_t)c->nranks, most = 0, k;
	struct lay L;
	struct cell *x = NULL;
	FILE *f = NULL;
	cs_status_t st = CS_OK;
	double y = 0, y0, width, height, mpi_x = 0;
	char rt[24];
	long cells = 0, mcells = 0;
	int r, q;

	memset(&L, 0, sizeof L);
	L.c = c;
	if (P > 64)
		return cs_error(CS_ERR_INVALID, "--inplace: at most 64 ranks");
	L.sc = calloc(4 * P, sizeof *L.sc);
	if (!L.sc)
		return cs_error(CS_ERR_NOMEM, "out of memory");
	L.sd = L.sc + P;
	L.rc = L.sd + P;
	L.rd = L.rc + P;
	/* the widest buffer: P*count, or alltoallv's extents */
	most = P * (c->count + 1);
	if (c->coll == CS_COLL_ALLTOALLV)
		for (r = 0; r < c->nranks; r++) {
			cs_a2av_layout(c, r, L.sc, L.sd, L.rc, L.rd);
			for (q = 0; q < c->nranks; q++) {
				k = L.sd[q] + L.sc[q] + L.rd[q] + L.rc[q] +
				    2 * c->a2av_gap;
				most = k > most ? k : most;
			}
		}
	if (!(x = calloc(most + 1, sizeof *x))) {
		st = cs_error(CS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	printf("%s in place at P=%d, count %zu\n", cs_coll_name(c->coll),
	       c->nranks, c->count);
	if (cs_coll_rooted(c->coll))
		printf("root %d\n", c->root);
	if (c->coll == CS_COLL_ALLTOALLV)
		cs_st_print_a2av(c, cs_a2av_name(pattern));
	printf("roles: in = an input the result overwrites, out = written, "
	       "kept = read and left as it was, unsp = unspecified on "
	       "return, gap = nobody reads or writes it\n"
	       "labels: r1[3] = rank 1's input element 3, r0-r3[5] = the "
	       "reduction of element 5 over ranks 0..3, ? = unspecified, . = "
	       "anything\n");
	if (svg) {
		if (!(f = fopen(svg, "w"))) {
			st = cs_error(CS_ERR_IO, "--svg %s: cannot write", svg);
			goto out_free;
		}
		rt[0] = 0;
		if (cs_coll_rooted(c->coll))
			snprintf(rt, sizeof rt, ", root %d", c->root);
		/* the panels side by side: NCCL's, then MPI's where it
		 * differs */
		for (r = 0; r < c->nranks; r++) {
			long a = fill(&L, F_NCCL, r, x), b = fill(&L, F_MPI, r, x);

			cells = a > cells ? a : cells;
			mcells = b > mcells ? b : mcells;
		}
		mpi_x = 10 + 80 + (double)cells * CELL_W + 30;
		if (mpi_x < 200)
			mpi_x = 200;
		width = rules[c->coll].differ
			? mpi_x + 80 + (double)mcells * CELL_W + 20
			: mpi_x;
		height = 60 + (ROW_H + 4) +
			 (double)c->nranks * (2 * ROW_H + 4);
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" "
			"font-size=\"11\">\n<rect width=\"100%%\" "
			"height=\"100%%\" fill=\"#fff\"/>\n<text x=\"10\" "
			"y=\"16\" font-weight=\"bold\">%s in place, P=%d, count "
			"%zu%s</text>\n", width, height, cs_coll_name(c->coll),
			c->nranks, c->count, rt);
		y = 26;
		for (r = 0; r < 5; r++)
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" "
				"height=\"12\" fill=\"%s\"/><text x=\"%.1f\" "
				"y=\"%.1f\">%s</text>\n", 10 + r * 80.0, y,
				role_fill[r], 28 + r * 80.0, y + 10,
				role_name[r]);
		y += 22;
	}
	y0 = y;
	show_form(&L, F_NCCL, f, 10, &y, x, rules[c->coll].differ
		  ? "NCCL" : "NCCL and MPI (the same layout)");
	y = y0;
	if (rules[c->coll].differ)
		show_form(&L, F_MPI, f, mpi_x, &y, x, "MPI");
	else
		printf("\nMPI: %s (the same layout)\n", rules[c->coll].mpi);
	if (f)
		fputs("</svg>\n", f);
	if (f && fclose(f) != 0)
		st = cs_error(CS_ERR_IO, "--svg %s: write failed", svg);
	f = NULL;
out_free:
	if (f)
		fclose(f);
	free(L.sc);
	free(x);
	return st;
}
