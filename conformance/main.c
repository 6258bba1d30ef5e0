/*
 * main.c - the collspec binary: subcommand dispatch and `collspec list`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collspec.h"

static const char main_usage[] =
"usage: collspec COMMAND [options]\n"
"\n"
"CollSpec checks collective communication implementations against what\n"
"each collective means, for every shape, dtype, reduction op and rank count.\n"
"\n"
"commands:\n"
"  run        run conformance cases on a backend and report verdicts\n"
"  list       print the catalog: collectives, dtypes, ops, modes, backends\n"
"  selfcheck  check the oracle against independent step-by-step evaluation\n"
"  explain    show what a collective computes, with a worked example\n"
"\n"
"`collspec COMMAND --help` describes each command.\n"
"example: collspec run --backend mpi --ranks 1-8\n";

static const char list_usage[] =
"usage: collspec list [--suite quick|full --ranks SPEC]\n"
"\n"
"Print the catalog: collectives with their meaning, dtypes with size and\n"
"format, reduction ops, input data modes, communicator variants, alltoallv\n"
"patterns, backends and suites. With --suite and --ranks, also the number\n"
"of cases the suite has at each world size.\n";

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
	if (suite || ranks)
		return list_suite(suite ? suite : "quick", sizes, ns);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		fputs(main_usage, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "run"))
		return cs_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cs_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "selfcheck"))
		return cs_cmd_selfcheck(argc - 1, argv + 1);
	if (!strcmp(cmd, "explain"))
		return cs_cmd_explain(argc - 1, argv + 1);
	fprintf(stderr, "collspec: unknown command '%s'; valid commands: run list "
		"selfcheck explain (see collspec --help)\n", cmd);
	return 2;
}
