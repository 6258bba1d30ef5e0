/*
 * main.c - the collspec binary: the subcommand table, which drives the
 * dispatch, the usage text and the "unknown command" error, and
 * `collspec list`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/check_registry.h"
#include "csref/a2av.h"
#include "backends/registry.h"
#include "base/cli_parse.h"
#include "base/commands.h"
#include "base/names.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "csref/pattern.h"
#include "explain/doctable.h"

static int cmd_doc_table(int argc, char **argv);

/*
 * The subcommands. run is called with argv[0] the command's name and
 * returns the exit status (0 ok, 1 failures, 2 usage or environment
 * error). A hidden command (a maintainer's) is left out of the usage
 * text and the docs but runs like the others.
 */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args;    /* what follows the name on a command line */
	const char *summary; /* one line, for the usage text and the docs */
	int hidden;
} commands[] = {
	{"run", cs_cmd_run, "[options]",
	 "run conformance cases on a backend and report verdicts", 0},
	{"list", cs_cmd_list, "[--suite NAME --ranks SPEC]",
	 "print the catalog: collectives, dtypes, ops, modes, backends, checks",
	 0},
	{"selfcheck", cs_cmd_selfcheck, "[-v]",
	 "check the oracle against independent step-by-step evaluation", 0},
	{"explain", cs_cmd_explain, "COLL [options]",
	 "show what a collective computes, with a worked example", 0},
	{"bench", cs_cmd_bench, "--coll C [options]",
	 "time a collective over message sizes, each checked (nccl-tests' flags)",
	 0},
	{"model", cs_cmd_model, "[--coll --algo --ranks --bytes | --fit F | --train]",
	 "cost model: time per algorithm, fit to bench output, training comms",
	 0},
	{"doc-table", cmd_doc_table, "TABLE",
	 "print a Markdown table of the docs from the registries", 1},
};

#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static const struct command *command_named(const char *name)
{
	size_t i;

	for (i = 0; i < NUM_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char usage_head[] =
"usage: collspec COMMAND [options]\n"
"\n"
"CollSpec checks collective communication implementations against what\n"
"each collective means, for every shape, dtype, reduction op and rank count.\n"
"\n"
"commands:\n";

static const char usage_tail[] =
"\n"
"`collspec COMMAND --help` describes each command.\n"
"example: collspec run --backend mpi --ranks 1-8\n";

/* The usage text: its list of commands from the table. */
static void print_usage(FILE *out)
{
	size_t i;

	fputs(usage_head, out);
	for (i = 0; i < NUM_COMMANDS; i++)
		if (!commands[i].hidden)
			fprintf(out, "  %-10s %s\n", commands[i].name,
				commands[i].summary);
	fputs(usage_tail, out);
}

/* "run list ...": the commands a user may type (the hidden ones too are
 * accepted, but not offered). */
static void print_command_names(FILE *out)
{
	size_t i;
	int first = 1;

	for (i = 0; i < NUM_COMMANDS; i++)
		if (!commands[i].hidden) {
			fprintf(out, "%s%s", first ? "" : " ",
				commands[i].name);
			first = 0;
		}
}

static const char list_usage[] =
"usage: collspec list [--suite quick|full --ranks SPEC]\n"
"\n"
"Print the catalog: collectives with their meaning, dtypes with size and\n"
"format, reduction ops, input data modes, communicator variants, alltoallv\n"
"patterns, backends, suites and the checks a result can name. With\n"
"--suite and --ranks, also the number of cases the suite has at each world\n"
"size.\n";

static void list_colls(void)
{
	int i;

	printf("collectives:\n");
	for (i = 0; i < CS_NUM_COLLS; i++)
		printf("  %-14s %s%s%s\n", cs_coll_name((cs_coll_t)i),
		       cs_coll_desc((cs_coll_t)i),
		       cs_coll_rooted((cs_coll_t)i) ? " [root]" : "",
		       cs_coll_reduces((cs_coll_t)i) ? " [op]" : "");
}

static void list_dtypes(void)
{
	int i;

	printf("\ndtypes:\n");
	for (i = 0; i < CS_NUM_DTYPES; i++) {
		cs_dtype_t d = (cs_dtype_t)i;
		printf("  %-12s %zu byte%s  %-18s ", cs_dtype_name(d),
		       cs_dtype_size(d), cs_dtype_size(d) > 1 ? "s" : " ",
		       cs_dtype_nccl_name(d));
		if (cs_dtype_is_float(d))
			printf("binary float, p=%d bits, normals 2^%d..2^%d\n",
			       cs_dtype_prec(d), cs_dtype_emin(d), cs_dtype_emax(d));
		else
			printf("%s integer, %s\n", cs_dtype_kind(d) == CS_KIND_SINT
			       ? "signed" : "unsigned", cs_dtype_kind(d) == CS_KIND_SINT
			       ? "two's complement, wraps" : "wraps modulo 2^bits");
	}
}

/* The check names a result can carry (check_registry.h), most serious first. */
static void list_checks(void)
{
	const cs_check_info_t *c;
	char verdicts[64];
	size_t i;

	printf("\nchecks (a result's `check`; docs/running.md section 8):\n");
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		cs_check_verdicts_text(c, verdicts, sizeof verdicts);
		printf("  %-12s %-13s set by %s\n", c->name, verdicts,
		       c->setter);
	}
}

static void list_rest(void)
{
	int i;

	printf("\nreduction ops:\n");
	for (i = 0; i < CS_NUM_OPS; i++)
		printf("  %-12s %s\n", cs_op_name((cs_op_t)i), cs_op_desc((cs_op_t)i));
	printf("\ninput data modes:\n");
	for (i = 0; i < CS_NUM_MODES; i++)
		printf("  %-12s %s\n", cs_mode_name((cs_mode_t)i),
		       cs_mode_desc((cs_mode_t)i));
	printf("\ncommunicator variants:\n");
	for (i = 0; i < CS_NUM_COMMVARS; i++)
		printf("  %-12s %s\n", cs_commvar_name((cs_commvar_t)i),
		       cs_commvar_desc((cs_commvar_t)i));
	printf("\nalltoallv patterns:\n");
	for (i = 0; i < CS_NUM_A2AV; i++)
		printf("  %-12s %s\n", cs_a2av_name((cs_a2av_pattern_t)i),
		       cs_a2av_desc((cs_a2av_pattern_t)i));
	printf("\nbackends:\n");
	cs_backend_print_list(stdout);
	list_checks();
}

/* The suite registry: name and purpose, then how the cases are chosen. */
static void list_suites(void)
{
	const cs_suite_info_t *si;
	size_t i;

	printf("\nsuites:\n");
	for (i = 0; (si = cs_suite_at(i)) != NULL; i++)
		printf("  %-12s %s\n  %-12s cases: %s\n", si->name, si->desc, "",
		       si->cases);
}

/* The pattern registry (csref/pattern.h): what --pattern and --variant
 * take. */
static void list_patterns(void)
{
	const cs_pattern_t *p;
	size_t i;
	int k;

	printf("\nparallelism patterns (--suite patterns, spec/patterns.md):\n");
	for (i = 0; (p = cs_pattern_at(i)) != NULL; i++) {
		printf("  %-12s on %s: %s\n  %-12s variants:", p->name,
		       cs_grid_axis_name(p->axis), p->desc, "");
		for (k = 0; k < p->nvariants; k++)
			printf(" %s", p->variants[k]);
		printf("; dtypes:");
		for (k = 0; k < p->ndtypes; k++)
			printf(" %s", cs_dtype_name(p->dtypes[k]));
		printf("\n");
	}
}

/* Case counts of a suite at world sizes sizes[0..ns). */
static int list_suite(const char *suite, const int *sizes, int ns)
{
	cs_filter_t f;
	cs_hcase_t *cases;
	size_t n, total = 0;
	int i;

	cs_filter_init(&f);
	printf("\nsuite %s:\n", suite);
	for (i = 0; i < ns; i++) {
		if (cs_suite_build(suite, sizes[i], &f, &cases, &n) != CS_OK) {
			fprintf(stderr, "collspec list: %s\n", cs_last_error());
			return 2;
		}
		free(cases);
		printf("  %4d ranks: %zu cases\n", sizes[i], n);
		total += n;
	}
	printf("  total: %zu cases\n", total);
	return 0;
}

int cs_cmd_list(int argc, char **argv)
{
	const char *suite = NULL, *ranks = NULL;
	int sizes[CS_MAX_SIZES], ns = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(list_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
			suite = argv[++i];
		} else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
			ranks = argv[++i];
		} else {
			fprintf(stderr, "collspec list: unexpected argument '%s' "
				"(see collspec list --help)\n", argv[i]);
			return 2;
		}
	}
	/* every argument is checked before anything is printed */
	if (suite && cs_suite_check_name(suite) != CS_OK) {
		fprintf(stderr, "collspec list: %s\n", cs_last_error());
		return 2;
	}
	if ((suite || ranks) && cs_parse_ranks(ranks ? ranks : "1-8", sizes,
					       CS_MAX_SIZES, &ns) != CS_OK) {
		fprintf(stderr, "collspec list: %s\n", cs_last_error());
		return 2;
	}
	list_colls();
	list_dtypes();
	list_rest();
	list_suites();
	list_patterns();
	if (suite || ranks)
		return list_suite(suite ? suite : "quick", sizes, ns);
	return 0;
}

/* ---- doc-table: the docs' tables (doctable.h) ---------------------------- */

static void doc_table_commands(FILE *out)
{
	static const char *const head[3] = {"command", "arguments",
					    "what it does"};
	char name[48], args[96];
	const char *cell[3] = {name, args, NULL};
	size_t i;

	cs_md_header(out, 3, head);
	for (i = 0; i < NUM_COMMANDS; i++) {
		if (commands[i].hidden)
			continue;
		snprintf(name, sizeof name, "`collspec %s`", commands[i].name);
		snprintf(args, sizeof args, "`%s`", commands[i].args);
		cell[2] = commands[i].summary;
		cs_md_row(out, 3, cell);
	}
}

/* The tables `collspec doc-table NAME` prints. */
static const struct doc_table {
	const char *name;
	void (*print)(FILE *out);
} doc_tables[] = {
	{"backends", cs_doc_table_backends},
	{"checks", cs_doc_table_checks},
	{"commands", doc_table_commands},
	{"suites", cs_doc_table_suites},
	{"expect-checks", cs_doc_table_expect_checks},
};

#define NUM_DOC_TABLES (sizeof doc_tables / sizeof doc_tables[0])

static void doc_table_names(FILE *out)
{
	size_t i;

	for (i = 0; i < NUM_DOC_TABLES; i++)
		fprintf(out, " %s", doc_tables[i].name);
}

static const char doc_table_usage[] =
"usage: collspec doc-table TABLE\n"
"\n"
"Print the Markdown table TABLE of the docs from collspec's registries (a\n"
"maintainer command: scripts/doc-tables.sh puts them into the docs).\n"
"tables:";

static int cmd_doc_table(int argc, char **argv)
{
	const char *name = argc == 2 ? argv[1] : "";
	size_t i;

	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		fputs(doc_table_usage, stdout);
		doc_table_names(stdout);
		fputc('\n', stdout);
		return 0;
	}
	for (i = 0; i < NUM_DOC_TABLES; i++)
		if (!strcmp(name, doc_tables[i].name)) {
			doc_tables[i].print(stdout);
			return 0;
		}
	fprintf(stderr, "collspec doc-table: expected one table name; valid "
		"tables:");
	doc_table_names(stderr);
	fputs(" (see collspec doc-table --help)\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct command *c;

	if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		print_usage(cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if ((c = command_named(cmd)) != NULL)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "collspec: unknown command '%s'; valid commands: ",
		cmd);
	print_command_names(stderr);
	fputs(" (see collspec --help)\n", stderr);
	return 2;
}
