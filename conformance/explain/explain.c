/*
 * explain.c - `collspec explain COLL`: what a collective computes, its
 * buffer shapes and in-place rule, and a worked example with the oracle's
 * own numbers (int32, exact mode) for every rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/a2av.h"
#include "csref/case.h"
#include "check/check.h"
#include "base/cli_parse.h"
#include "base/commands.h"
#include "explain/explain_svg.h"
#include "explain/explain_pattern.h"
#include "explain/explain_steps.h"
#include "base/names.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/oracle.h"

#define EX_MAX_RANKS 16
#define EX_MAX_COUNT 64

static const char explain_usage[] =
"usage: collspec explain COLL [--ranks P] [--count N] [--op OP] [--root R]\n"
"                             [--a2av-pattern NAME] [--dtype T] [--svg FILE]\n"
"\n"
"Print what collective COLL computes, its buffer shapes and in-place rule,\n"
"then a worked example: every rank's input and output as the oracle\n"
"computes them (default: 3 ranks, count 4, int32, exact data mode, op sum,\n"
"root 0). P is at most 16 and N at most 64.\n"
"\n"
"--svg FILE also draws the example into FILE as an SVG picture: ranks as\n"
"rows, every element a cell with its value, coloured by the rank it comes\n"
"from, each block labelled with its source and its destinations.\n";

struct coll_text {
	const char *shapes, *inplace, *nccl, *mpi;
};

static const struct coll_text texts[CS_NUM_COLLS] = {
	[CS_COLL_ALLREDUCE] = {"send = count, recv = count on every rank",
		"sendbuff == recvbuff", "ncclAllReduce", "MPI_Allreduce"},
	[CS_COLL_ALLGATHER] = {"send = count, recv = P*count; block q of recv "
		"is rank q's send", "sendbuff == recvbuff + rank*count",
		"ncclAllGather", "MPI_Allgather"},
	[CS_COLL_REDUCESCATTER] = {"send = P*count, recv = count; rank r gets "
		"block r of the reduction", "recvbuff == sendbuff + rank*count "
		"(the other blocks of sendbuff are left unspecified; MPI's "
		"MPI_IN_PLACE has another layout: every input in recvbuf, the "
		"result in its first count elements)",
		"ncclReduceScatter", "MPI_Reduce_scatter_block"},
	[CS_COLL_ALLTOALL] = {"send = recv = P*count; block j of rank i's send "
		"becomes block i of rank j's recv", "sendbuff == recvbuff (not in "
		"NCCL; as if every block were read before any is written)",
		"ncclAlltoAll (NCCL 2.28 and later; before, grouped "
		"ncclSend/ncclRecv)", "MPI_Alltoall"},
	[CS_COLL_ALLTOALLV] = {"per-pair counts M[src][dst]; blocks in peer "
		"order with displacements; gaps between blocks stay untouched",
		"sendbuff == recvbuff (not in NCCL; all sends read before any "
		"receive lands)",
		"grouped ncclSend/ncclRecv (NCCL has no alltoallv call)",
		"MPI_Alltoallv"},
	[CS_COLL_BROADCAST] = {"send = count (root only), recv = count on "
		"every rank", "sendbuff == recvbuff (on the root)", "ncclBroadcast",
		"MPI_Bcast"},
	[CS_COLL_REDUCE] = {"send = count, recv = count (root only; untouched "
		"elsewhere)", "sendbuff == recvbuff (on the root)", "ncclReduce",
		"MPI_Reduce"},
	[CS_COLL_GATHER] = {"send = count, recv = P*count (root only; "
		"untouched elsewhere)", "sendbuff == recvbuff + root*count (on the "
		"root)", "ncclGather (NCCL 2.28 and later; before, grouped "
		"ncclSend/ncclRecv)", "MPI_Gather"},
	[CS_COLL_SCATTER] = {"send = P*count (root only), recv = count; rank r "
		"gets block r", "recvbuff == sendbuff + root*count (on the root)",
		"ncclScatter (NCCL 2.28 and later; before, grouped "
		"ncclSend/ncclRecv)", "MPI_Scatter"},
	[CS_COLL_SENDRECV] = {"send = recv = count; rank r's recv is rank "
		"(r-1) mod P's send", "sendbuff == recvbuff (not in NCCL; a shift "
		"in place)",
		"ncclSend + ncclRecv", "MPI_Sendrecv"},
};

struct ex_opts {
	cs_case_t c;
	cs_a2av_pattern_t pattern;
	const char *svg; /* --svg FILE, or NULL */
};

static void print_elems(const cs_case_t *c, const uint64_t *v, size_t n)
{
	char s[64];
	size_t i;

	printf("[");
	for (i = 0; i < n; i++) {
		cs_format_value(c->dtype, v[i], s, sizeof s);
		printf("%s%s", i ? " " : "", s);
	}
	printf("]\n");
}

/* Print one rank's input and output. */
static cs_status_t example_rank(const cs_case_t *c, int r)
{
	size_t ns = cs_case_send_count(c, r), nr = cs_case_recv_count(c, r), i;
	uint64_t *v = calloc(ns + nr + 1, sizeof *v);
	cs_golden_t *g = calloc(nr + 1, sizeof *g);
	cs_status_t st = CS_OK;

	if (!v || !g) {
		st = cs_error(CS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < ns; i++)
		v[i] = cs_gen_input(c, r, i);
	printf("  rank %d  send ", r);
	if (ns)
		print_elems(c, v, ns);
	else
		printf("(not significant on this rank)\n");
	if (nr && (st = cs_oracle_expect(c, r, 0, nr, NULL, g)) != CS_OK)
		goto out_free;
	for (i = 0; i < nr; i++)
		v[i] = g[i].bits;
	printf("          recv ");
	if (nr)
		print_elems(c, v, nr);
	else
		printf("(not significant on this rank)\n");
out_free:
	free(v);
	free(g);
	return st;
}

/* Print the case x describes, rank by rank. */
static cs_status_t worked_example(struct ex_opts *x)
{
	cs_case_t *c = &x->c;
	size_t *M = NULL, P = (size_t)c->nranks;
	char name[160];
	cs_status_t st = CS_OK;
	int r;

	if (c->coll == CS_COLL_ALLTOALLV) {
		M = malloc(P * P * sizeof *M);
		if (!M)
			return cs_error(CS_ERR_NOMEM, "out of memory");
		cs_a2av_matrix(x->pattern, c->nranks, c->count, c->seed, M);
		c->a2av_counts = M;
	}
	if ((st = cs_case_validate(c)) != CS_OK) {
		free(M);
		return st;
	}
	cs_case_format(c, name, sizeof name);
	printf("\nworked example (%s):\n", name);
	if (M) {
		printf("  count matrix M[src][dst] (pattern %s):\n",
		       cs_a2av_name(x->pattern));
		for (r = 0; r < c->nranks; r++) {
			size_t q;
			printf("   ");
			for (q = 0; q < P; q++)
				printf(" %4zu", M[(size_t)r * P + q]);
			printf("\n");
		}
	}
	for (r = 0; r < c->nranks && st == CS_OK; r++)
		st = example_rank(c, r);
	if (st == CS_OK && x->svg)
		st = cs_explain_svg(c, x->svg);
	free(M);
	return st;
}

static cs_status_t explain_opt(struct ex_opts *x, const char *opt, const char *v)
{
	size_t n;
	int sizes[2], ns;
	cs_status_t st = CS_OK;

	if (!strcmp(opt, "--ranks")) {
		st = cs_parse_ranks(v, sizes, 2, &ns);
		if (st == CS_OK && (ns != 1 || sizes[0] > EX_MAX_RANKS))
			st = cs_error(CS_ERR_INVALID, "--ranks: one rank count "
				      "from 1 to %d", EX_MAX_RANKS);
		x->c.nranks = sizes[0];
	} else if (!strcmp(opt, "--count")) {
		st = cs_parse_count(v, &n);
		if (st == CS_OK && n > EX_MAX_COUNT)
			st = cs_error(CS_ERR_INVALID, "--count: at most %d for "
				      "an example", EX_MAX_COUNT);
		x->c.count = n;
	} else if (!strcmp(opt, "--op")) {
		st = cs_op_parse(v, &x->c.op);
	} else if (!strcmp(opt, "--dtype")) {
		st = cs_dtype_parse(v, &x->c.dtype);
	} else if (!strcmp(opt, "--root")) {
		x->c.root = atoi(v);
	} else if (!strcmp(opt, "--a2av-pattern")) {
		st = cs_a2av_parse(v, &x->pattern);
	} else if (!strcmp(opt, "--svg")) {
		x->svg = v;
		if (!*v)
			st = cs_error(CS_ERR_INVALID, "--svg: an empty file name");
	} else {
		st = cs_error(CS_ERR_INVALID, "unknown option '%s' (see collspec "
			      "explain --help)", opt);
	}
	return st;
}

static void describe(cs_coll_t coll)
{
	const struct coll_text *t = &texts[coll];

	printf("%s: %s\n\n", cs_coll_name(coll), cs_coll_desc(coll));
	printf("  shapes    %s\n", t->shapes);
	printf("  in place  %s\n", t->inplace);
	printf("  root      %s\n", cs_coll_rooted(coll) ? "yes" : "no");
	printf("  op        %s\n", cs_coll_reduces(coll)
	       ? "sum prod max min avg premulsum" : "none (data movement)");
	printf("  NCCL      %s\n  MPI       %s\n", t->nccl, t->mpi);
	printf("  count 0 is legal and writes nothing; the normative text is "
	       "spec/collectives.md\n");
}

int cs_cmd_explain(int argc, char **argv)
{
	struct ex_opts x;
	struct cs_steps_opts sx = {0};
	cs_coll_t coll;
	int i;

	/* issue 21: the process grid and the parallelism pictures
	 * (explain_pattern.c); --help prints their usage after COLL's */
	if (argc >= 2 && (!strcmp(argv[1], "--grid") ||
			  !strcmp(argv[1], "--pattern")))
		return cs_explain_pattern_main(argc, argv);
	if (argc >= 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs(explain_usage, stdout);
		fputs(cs_steps_usage, stdout);
		fputs("\n", stdout);
		return cs_explain_pattern_main(argc, argv);
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(explain_usage, argc < 2 ? stderr : stdout);
		fputs(cs_steps_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (cs_coll_parse(argv[1], &coll) != CS_OK) {
		fprintf(stderr, "collspec explain: %s\n", cs_last_error());
		return 2;
	}
	memset(&x, 0, sizeof x);
	x.c.coll = coll;
	x.c.dtype = CS_DTYPE_INT32;
	x.c.op = cs_coll_reduces(coll) ? CS_OP_SUM : CS_OP_NONE;
	x.c.mode = CS_MODE_EXACT;
	x.c.nranks = 3;
	x.c.count = 4;
	x.c.seed = 1;
	x.pattern = CS_A2AV_UNEVEN;
	for (i = 2; i < argc; i += 2) {
		/* --algo, --steps, --inplace: explain_steps.h (issue 21) */
		int used = cs_steps_opt(&sx, argc - i, argv + i);

		if (used < 0) {
			fprintf(stderr, "collspec explain: %s\n", cs_last_error());
			return 2;
		}
		if (used) {
			i += used - 2;
			continue;
		}
		if (i + 1 >= argc ||
		    explain_opt(&x, argv[i], argv[i + 1]) != CS_OK) {
			fprintf(stderr, "collspec explain: %s\n", i + 1 >= argc
				? "an option needs a value" : cs_last_error());
			return 2;
		}
	}
	if (!cs_coll_reduces(coll))
		x.c.op = CS_OP_NONE;
	if ((i = cs_steps_run(&sx, &x.c, x.pattern, x.svg)) >= 0)
		return i;
	describe(coll);
	if (worked_example(&x) != CS_OK) {
		fprintf(stderr, "collspec explain: %s\n", cs_last_error());
		return 2;
	}
	return 0;
}
