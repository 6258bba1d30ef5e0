/*
 * test_expect.c - known defects as data: the expectations file parser
 * (conformance/report/expect.c: fields, lines, every malformed input an error
 * naming file and line), which cases an entry selects and what it does to
 * a result (expect_apply.c: XFAIL, XPASS, the re-run line, the detail),
 * the report's verdicts, exit codes and JUnit with --expect (report.c),
 * and the failure signatures (failsig.c). One file for the feature, its
 * stages in the order a result meets them, hence over 500 lines.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "csref/a2av.h"
#include "base/names.h"
#include "report/report.h"
#include "base/result.h"
#include "report/expect.h"
#include "report/failsig.h"

static cs_expect_t *parse_ok(const char *text)
{
	cs_expect_t *x = NULL;
	cs_status_t st = cs_expect_parse("t.txt", text, strlen(text), &x);

	if (st != CS_OK)
		fail_msg("unexpected error: %s", cs_last_error());
	assert_non_null(x);
	return x;
}

/* text must be refused with a message that starts with want (file and
 * line) and holds what. */
static void parse_bad(const char *text, const char *want, const char *what)
{
	cs_expect_t *x = (cs_expect_t *)1;
	cs_status_t st = cs_expect_parse("t.txt", text, strlen(text), &x);

	if (st == CS_OK)
		fail_msg("accepted: %s", text);
	assert_int_equal(st, CS_ERR_INVALID);
	assert_null(x);
	if (strncmp(cs_last_error(), want, strlen(want)) ||
	    !strstr(cs_last_error(), what))
		fail_msg("for %s: message '%s', wanted '%s...%s'", text,
			 cs_last_error(), want, what);
}

/* ---- the parser ----------------------------------------------------------- */

static const char good_file[] =
	"# comment\n"
	"\n"
	"avx  --backend mpi --ranks 1-3,8 --coll allreduce,reduce\n"
	"     # a comment inside an entry\n"
	"\t--dtype int8,uint8 --op=sum,avg --count 7,1k --inplace 1\n"
	"     --check value --finding f-1.md --reason 'op/avx: \"sat\" sums'\n"
	"\r\n"
	"nan --mode special --comm halves --root 2 --misalign 0 --seed 0x10 "
	"--a2av-pattern sparse --check value,nanrule --finding g.md "
	"--reason \"it's NaN\"\n";

static void test_parse_fields(void **state)
{
	cs_expect_t *x = parse_ok(good_file);
	const cs_expect_entry_t *a = &x->e[0], *b = &x->e[1];

	(void)state;
	assert_int_equal(x->n, 2);
	assert_string_equal(x->path, "t.txt");
	assert_string_equal(a->name, "avx");
	assert_int_equal(a->line, 3);
	assert_string_equal(a->backend, "mpi");
	assert_int_equal(a->nranges, 2);
	assert_int_equal(a->ranks[0][0], 1);
	assert_int_equal(a->ranks[0][1], 3);
	assert_int_equal(a->ranks[1][0], 8);
	assert_int_equal(a->ranks[1][1], 8);
	assert_int_equal(a->f.colls, (1u << CS_COLL_ALLREDUCE) |
					     (1u << CS_COLL_REDUCE));
	assert_int_equal(a->f.dtypes, (1u << CS_DTYPE_INT8) |
					      (1u << CS_DTYPE_UINT8));
	assert_int_equal(a->f.ops, (1u << CS_OP_SUM) | (1u << CS_OP_AVG));
	assert_int_equal(a->f.ncounts, 2);
	assert_int_equal(a->f.counts[0], 7);
	assert_int_equal(a->f.counts[1], 1024);
	assert_int_equal(a->f.inplace, 1);
	assert_int_equal(a->f.root, -1);
	assert_int_equal(a->f.misalign, -1);
	assert_int_equal(a->f.has_seed, 0);
	assert_int_equal(a->checks, 1u << 4); /* "value" */
	assert_string_equal(cs_expect_check_name(4), "value");
	assert_string_equal(a->finding, "f-1.md");
	assert_string_equal(a->reason, "op/avx: \"sat\" sums");

	assert_string_equal(b->name, "nan");
	assert_int_equal(b->line, 8);
	assert_string_equal(b->backend, "");
	assert_int_equal(b->nranges, 0);
	assert_int_equal(b->f.modes, 1u << CS_MODE_SPECIAL);
	assert_int_equal(b->f.comms, 1u << CS_COMM_HALVES);
	assert_int_equal(b->f.a2av, 1u << CS_A2AV_SPARSE);
	assert_int_equal(b->f.root, 2);
	assert_int_equal(b->f.misalign, 0);
	assert_int_equal(b->f.inplace, -1);
	assert_int_equal(b->f.has_seed, 1);
	assert_int_equal(b->f.seed, 16);
	/* value nanrule (bitidentity between them is 6) */
	assert_int_equal(b->checks, (1u << 4) | (1u << 7));
	assert_string_equal(b->reason, "it's NaN");
	cs_expect_free(x);
}

#define ENTRY_TAIL " --check value --finding f.md --reason r"

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want, *what;
	} bad[] = {
		{"", "t.txt: no entry", "no entry"},
		{"# only a comment\n\n", "t.txt: no entry", "no entry"},
		{"a --dtype int9" ENTRY_TAIL, "t.txt:1:", "unknown dtype 'int9'"},
		{"\n\na --frob 1" ENTRY_TAIL, "t.txt:3:",
		 "unknown option '--frob'"},
		{"a --dtype int8 --finding f.md --reason r\n", "t.txt:1:",
		 "has no --check"},
		{"a --dtype int8 --check value --reason r\n", "t.txt:1:",
		 "has no --finding"},
		{"a --dtype int8 --check value --finding f.md\n", "t.txt:1:",
		 "has no --reason"},
		{"a" ENTRY_TAIL "\n", "t.txt:1:", "no case filter"},
		{"a --dtype int8 --dtype int32" ENTRY_TAIL, "t.txt:1:",
		 "--dtype given twice"},
		{"a --dtype int8" ENTRY_TAIL "\na --dtype int8" ENTRY_TAIL,
		 "t.txt:2:", "'a' already used on line 1"},
		{"  --dtype int8" ENTRY_TAIL, "t.txt:1:", "no entry is open"},
		{"a --dtype int8" ENTRY_TAIL "\n\n  --op sum\n", "t.txt:3:",
		 "no entry is open"},
		{"a --dtype int8 --check value --finding f.md --reason 'r\n",
		 "t.txt:1:", "does not end on its line"},
		{"a --dtype int8" ENTRY_TAIL "\nb --dtype \x01" ENTRY_TAIL,
		 "t.txt:2:", "byte 0x01 at column 11"},
		{"a --dtype int8" ENTRY_TAIL " \xff\n", "t.txt:1:",
		 "byte 0xff"},
		{"a --dtype int8,,uint8" ENTRY_TAIL, "t.txt:1:", "empty item"},
		{"a --dtype int8 --check value --finding ../f.md --reason r",
		 "t.txt:1:", "--finding '../f.md'"},
		{"--dtype int8" ENTRY_TAIL, "t.txt:1:", "starts with its name"},
		{"a --dtype int8 --check valu --finding f.md --reason r",
		 "t.txt:1:", "unknown check 'valu'"},
		{"a --dtype int8 --check value --finding f.md --reason ''",
		 "t.txt:1:", "--reason: 1 to 200 bytes"},
		{"a --inplace 2" ENTRY_TAIL, "t.txt:1:", "--inplace '2'"},
		{"a --root -1" ENTRY_TAIL, "t.txt:1:", "--root '-1'"},
		{"a --seed 0x" ENTRY_TAIL, "t.txt:1:", "--seed '0x'"},
		{"a --seed 18446744073709551616" ENTRY_TAIL, "t.txt:1:",
		 "--seed"},
		{"a --ranks 0" ENTRY_TAIL, "t.txt:1:", "--ranks"},
		{"a --ranks 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33"
		 ENTRY_TAIL, "t.txt:1:", "at most 16 ranges"},
		{"a --count 1x" ENTRY_TAIL, "t.txt:1:", "--count"},
		{"a --dtype" , "t.txt:1:", "--dtype needs a value"},
		{"a int8" ENTRY_TAIL, "t.txt:1:", "expected an option"},
		{"a --dtype int8" ENTRY_TAIL "\n  \n b", "t.txt:3:",
		 "no entry is open"},
		{"a --backend-opt algo=ring," ENTRY_TAIL, "t.txt:1:",
		 "--backend-opt: an empty word"},
		{"a --backend-opt ,algo=ring" ENTRY_TAIL, "t.txt:1:",
		 "--backend-opt: an empty word"},
		{"a --backend-opt a,,b" ENTRY_TAIL, "t.txt:1:",
		 "--backend-opt: an empty word"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		parse_bad(bad[i].text, bad[i].want, bad[i].what);
}

/* Every bound is an error, never a cut or an overrun. */
static void test_parse_bounds(void **state)
{
	size_t n = CS_EXPECT_ENTRY_MAX + 2000, i;
	char *big = malloc(n + 64);
	cs_expect_t *x = NULL;

	(void)state;
	assert_non_null(big);
	/* an entry longer than CS_EXPECT_ENTRY_MAX, over continuation lines */
	strcpy(big, "a --dtype int8" ENTRY_TAIL "\n");
	for (i = strlen(big); i + 1003 < n; i += 1003) {
		memcpy(big + i, "  ", 2);
		memset(big + i + 2, 'w', 1000);
		big[i + 1002] = '\n';
	}
	big[i] = '\0';
	parse_bad(big, "t.txt:", "longer than 4096 bytes");
	/* more words than an entry holds */
	strcpy(big, "a");
	for (i = 0; i < 200; i++)
		strcat(big, " w");
	parse_bad(big, "t.txt:1:", "more than 128 words");
	/* a name of 64 bytes */
	memset(big, 'n', 64);
	strcpy(big + 64, " --dtype int8" ENTRY_TAIL);
	parse_bad(big, "t.txt:1:", "entry name");
	/* a file larger than the limit */
	assert_int_equal(cs_expect_parse("t.txt", big, CS_EXPECT_FILE_MAX + 1,
					 &x), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "larger than"));
	free(big);
	/* a path with a control byte, or none */
	assert_int_equal(cs_expect_parse("a\nb", "", 0, &x), CS_ERR_INVALID);
	assert_int_equal(cs_expect_parse("", "", 0, &x), CS_ERR_INVALID);
}

static void test_load(void **state)
{
	char path[64];
	cs_expect_t *x = NULL;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "test_expect_%d.txt", (int)getpid());
	assert_int_equal(cs_expect_load(path, &x), CS_ERR_IO);
	assert_non_null(strstr(cs_last_error(), path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(good_file, f);
	fclose(f);
	assert_int_equal(cs_expect_load(path, &x), CS_OK);
	assert_int_equal(x->n, 2);
	assert_string_equal(x->path, path);
	cs_expect_free(x);
	remove(path);
}

/* ---- matching ------------------------------------------------------------- */

static cs_result_t result(cs_coll_t coll, cs_dtype_t dt, cs_op_t op,
			  cs_verdict_t v, const char *check)
{
	cs_result_t r;

	memset(&r, 0, sizeof r);
	r.hc.c.coll = coll;
	r.hc.c.dtype = dt;
	r.hc.c.op = cs_coll_reduces(coll) ? op : CS_OP_NONE;
	r.hc.c.mode = CS_MODE_RANDOM;
	r.hc.c.nranks = 4;
	r.hc.c.count = 7;
	r.hc.c.seed = 1;
	r.hc.comm = CS_COMM_WORLD;
	r.hc.a2av_pattern = CS_A2AV_UNIFORM;
	r.verdict = v;
	snprintf(r.backend, sizeof r.backend, "mpi");
	snprintf(r.check, sizeof r.check, "%s", check);
	snprintf(r.reason, sizeof r.reason, "%s", v == CS_V_FAIL ? "wrong" : "");
	snprintf(r.repro, sizeof r.repro, "collspec run --ranks 4");
	return r;
}

/* Does entry text (one entry) select r's case? */
static int selects(const char *filters, const cs_result_t *r)
{
	char text[512];
	cs_expect_t *x;
	int m;

	snprintf(text, sizeof text, "e %s" ENTRY_TAIL "\n", filters);
	x = parse_ok(text);
	m = cs_expect_case_matches(&x->e[0], r);
	cs_expect_free(x);
	return m;
}

static void test_matching(void **state)
{
	cs_result_t ar = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				CS_V_FAIL, "value");
	cs_result_t ag = result(CS_COLL_ALLGATHER, CS_DTYPE_INT8, CS_OP_SUM,
				CS_V_FAIL, "value");
	cs_result_t a2 = result(CS_COLL_ALLTOALLV, CS_DTYPE_INT8, CS_OP_SUM,
				CS_V_FAIL, "value");
	cs_result_t rd = result(CS_COLL_REDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				CS_V_FAIL, "value");

	(void)state;
	rd.hc.c.root = 3;
	assert_true(selects("--coll allreduce", &ar));
	assert_false(selects("--coll reduce", &ar));
	assert_true(selects("--dtype uint8,int8", &ar));
	assert_false(selects("--dtype uint8", &ar));
	/* --op drops the collectives that do not reduce, unless 'none' */
	assert_true(selects("--op sum", &ar));
	assert_false(selects("--op sum", &ag));
	assert_true(selects("--op sum,none", &ag));
	assert_false(selects("--op none", &ar));
	/* --a2av-pattern restricts alltoallv only */
	assert_true(selects("--a2av-pattern sparse", &ar));
	assert_false(selects("--a2av-pattern sparse", &a2));
	assert_true(selects("--a2av-pattern uniform", &a2));
	/* --root restricts rooted collectives only */
	assert_true(selects("--root 2", &ar));
	assert_false(selects("--root 2", &rd));
	assert_true(selects("--root 3", &rd));
	/* world sizes, counts, the fixed fields, the backend's name */
	assert_true(selects("--ranks 1-4", &ar));
	assert_true(selects("--ranks 2,4,8", &ar));
	assert_false(selects("--ranks 1-3,5-8", &ar));
	assert_true(selects("--count 1,7", &ar));
	assert_false(selects("--count 8", &ar));
	assert_true(selects("--inplace 0 --misalign 0 --seed 1", &ar));
	assert_false(selects("--inplace 1", &ar));
	assert_false(selects("--misalign 1", &ar));
	assert_false(selects("--seed 2", &ar));
	assert_true(selects("--mode random --comm world", &ar));
	assert_false(selects("--mode exact", &ar));
	assert_false(selects("--comm halves", &ar));
	assert_true(selects("--backend mpi", &ar));
	assert_false(selects("--backend ref", &ar));
	assert_false(selects("--backend mp", &ar));
}

/* --backend-opt: each of the entry's words is a whole word of the run's
 * option list; an entry without it holds for every run. */
static void test_backend_opt(void **state)
{
	cs_expect_t *x = parse_ok("ring --backend-opt algo=ring" ENTRY_TAIL "\n"
				  "two --backend-opt algo=bcube,api=x"
				  ENTRY_TAIL "\n"
				  "any --coll allreduce" ENTRY_TAIL "\n");
	const cs_expect_entry_t *ring = &x->e[0], *two = &x->e[1];
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
			       CS_V_FAIL, "value");

	(void)state;
	assert_string_equal(ring->backend_opt, "algo=ring");
	assert_true(cs_expect_opt_matches(ring, "algo=ring"));
	assert_true(cs_expect_opt_matches(ring, "allgather=allgatherv,algo=ring"));
	assert_true(cs_expect_opt_matches(ring, "algo=ring,allgather=allgatherv"));
	assert_false(cs_expect_opt_matches(ring, NULL));
	assert_false(cs_expect_opt_matches(ring, ""));
	assert_false(cs_expect_opt_matches(ring, "algo=ring_chunked"));
	assert_false(cs_expect_opt_matches(ring, "algo=rin"));
	assert_false(cs_expect_opt_matches(ring, "xalgo=ring"));
	assert_true(cs_expect_opt_matches(two, "api=x,algo=bcube"));
	assert_false(cs_expect_opt_matches(two, "algo=bcube"));
	assert_false(cs_expect_opt_matches(two, "api=x"));
	assert_true(cs_expect_opt_matches(&x->e[2], NULL));
	assert_true(cs_expect_opt_matches(&x->e[2], "algo=ring"));
	/* applied: the run's option decides whether `ring` claims r */
	cs_expect_set_run_opt(x, "algo=ring_chunked");
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[2]);
	assert_int_equal(x->e[0].matched, 0);
	r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM, CS_V_FAIL,
		   "value");
	cs_expect_set_run_opt(x, "algo=ring");
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[0]);
	assert_int_equal(x->e[0].matched, 1);
	cs_expect_free(x);
}

/* --mpi-alg: an entry of a forced algorithm claims only runs forcing it. */
static void test_mpi_alg(void **state)
{
	cs_expect_t *x = parse_ok("sv --mpi-alg ibroadcast=tsp_ring"
				  ENTRY_TAIL "\n"
				  "any --coll allreduce" ENTRY_TAIL "\n");
	const cs_expect_entry_t *sv = &x->e[0];
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM,
			       CS_V_FAIL, "value");

	(void)state;
	assert_string_equal(sv->mpi_alg, "ibroadcast=tsp_ring");
	assert_true(cs_expect_alg_matches(sv, "ibroadcast=tsp_ring"));
	assert_true(cs_expect_alg_matches(sv,
					  "ireduce=tsp_tree,ibroadcast=tsp_ring"));
	assert_false(cs_expect_alg_matches(sv, NULL));
	assert_false(cs_expect_alg_matches(sv, "ibroadcast=tsp_tree"));
	assert_false(cs_expect_alg_matches(sv, "ibroadcast=tsp_rin"));
	assert_true(cs_expect_alg_matches(&x->e[1], NULL));
	/* its run's option is --backend-opt's business, not this one's */
	assert_true(cs_expect_opt_matches(sv, NULL));
	cs_expect_set_run_alg(x, "ibroadcast=tsp_tree");
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[1]);
	assert_int_equal(x->e[0].matched, 0);
	r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_SUM, CS_V_FAIL,
		   "value");
	cs_expect_set_run_alg(x, "ibroadcast=tsp_ring");
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[0]);
	assert_int_equal(x->e[0].matched, 1);
	cs_expect_free(x);
	/* a value that is no list of COLL=ALG words is refused */
	parse_bad("x --mpi-alg tsp_ring" ENTRY_TAIL "\n", "t.txt:1:",
		  "--mpi-alg");
	parse_bad("x --mpi-alg ibroadcast=tsp_ring," ENTRY_TAIL "\n",
		  "t.txt:1:", "--mpi-alg");
}

/* ---- applying ------------------------------------------------------------- */

static const char apply_file[] =
	"avx --backend mpi --dtype int8 --op sum --check value,crash\n"
	"    --finding avx.md --reason 'saturating sums'\n"
	"maxf --dtype float32 --op max --check nanrule --finding nan.md "
	"--reason 'no NaN rule'\n";

static void test_apply_xfail(void **state)
{
	cs_expect_t *x = parse_ok(apply_file);
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
			       CS_V_FAIL, "value");
	const cs_expect_entry_t *e;

	(void)state;
	snprintf(r.detail, sizeof r.detail, "rank 0 index 3: expected -128 "
		 "got 127");
	e = cs_expect_apply(x, &r);
	assert_ptr_equal(e, &x->e[0]);
	assert_int_equal(r.verdict, CS_V_XFAIL);
	assert_string_equal(r.check, "value");   /* kept */
	assert_string_equal(r.reason, "wrong");  /* kept */
	assert_string_equal(r.detail, "known failure avx (t.txt:1): "
			    "saturating sums; finding docs/findings/avx.md\n"
			    "rank 0 index 3: expected -128 got 127");
	assert_string_equal(r.repro, "collspec run --ranks 4 --expect t.txt");
	assert_int_equal(x->e[0].xfail, 1);
	assert_int_equal(x->e[0].xpass, 0);
	/* a crash of a listed case, listed too */
	r = result(CS_COLL_REDUCE, CS_DTYPE_INT8, CS_OP_SUM, CS_V_FAIL, "crash");
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[0]);
	assert_int_equal(r.verdict, CS_V_XFAIL);
	assert_int_equal(x->e[0].xfail, 2);
	/* applied once only: an XFAIL stays as it is */
	assert_null(cs_expect_apply(x, &r));
	assert_int_equal(x->e[0].xfail, 2);
	cs_expect_free(x);
}

/* An entry describes a defect: a selected case that passes stays a pass;
 * the entry is XPASS when it selected cases and none failed by its check,
 * neither when it selected none. */
static void test_apply_xpass(void **state)
{
	cs_expect_t *x = parse_ok(apply_file);
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32, CS_OP_MAX,
			       CS_V_PASS, "");
	cs_result_t info = result(CS_COLL_REDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				  CS_V_INFO, "profile");
	cs_result_t fail = result(CS_COLL_REDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				  CS_V_FAIL, "value");
	char why[1024];

	(void)state;
	assert_null(cs_expect_apply(x, &r));
	assert_int_equal(r.verdict, CS_V_PASS);
	assert_string_equal(r.repro, "collspec run --ranks 4");
	assert_null(cs_expect_apply(x, &info));
	assert_int_equal(info.verdict, CS_V_INFO);
	assert_int_equal(x->e[0].matched, 1);
	assert_int_equal(x->e[1].matched, 1);
	assert_int_equal(x->e[0].shown + x->e[1].shown, 0);
	/* a pass beside a failure: the defect shows, no XPASS */
	assert_ptr_equal(cs_expect_apply(x, &fail), &x->e[0]);
	assert_int_equal(x->e[0].shown, 1);
	assert_int_equal(cs_expect_finish(x), 1);
	assert_int_equal(x->e[0].xpass, 0);
	assert_int_equal(x->e[1].xpass, 1);
	cs_expect_xpass_reason(x, &x->e[1], why, sizeof why);
	assert_string_equal(why, "entry maxf (t.txt:3, check nanrule) "
			    "selected 1 cases of this run and none failed by "
			    "its check: the defect no longer shows, or the "
			    "entry selects the wrong cases; finding "
			    "docs/findings/nan.md");
	cs_expect_free(x);
	/* an entry that selected no case is neither */
	x = parse_ok(apply_file);
	assert_int_equal(cs_expect_finish(x), 0);
	cs_expect_free(x);
}

/* A case two entries select counts for both: the second entry's defect
 * shows in a case the first turned into XFAIL. */
static void test_apply_overlap(void **state)
{
	cs_expect_t *x = parse_ok("a --dtype int8 --check value --finding a.md "
				  "--reason 'one'\n"
				  "b --op sum --check value,guard --finding b.md "
				  "--reason 'two'\n");
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
			       CS_V_FAIL, "value");
	cs_result_t g = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
			       CS_V_FAIL, "guard");

	(void)state;
	assert_ptr_equal(cs_expect_apply(x, &r), &x->e[0]);
	assert_int_equal(x->e[1].shown, 1);
	assert_int_equal(x->e[1].xfail, 0);
	/* the first selecting entry that lists the check decides */
	assert_ptr_equal(cs_expect_apply(x, &g), &x->e[1]);
	assert_int_equal(g.verdict, CS_V_XFAIL);
	assert_int_equal(cs_expect_finish(x), 0);
	cs_expect_free(x);
}

/* --shows sometimes: a defect that shows in some of its cases only (the
 * data, the timing) is never XPASS; it still turns a failure into XFAIL.
 * The same entry without it is XPASS on the same results. */
static void test_apply_sometimes(void **state)
{
	static const char file[] =
		"rs --coll reducescatter --dtype int8 --check value "
		"--finding rs.md --reason 'race' --shows sometimes\n"
		"\n"
		"rs2 --coll reducescatter --dtype int8 --check value "
		"--finding rs.md --reason 'race' --shows always\n";
	cs_expect_t *x = parse_ok(file);
	cs_result_t pass = result(CS_COLL_REDUCESCATTER, CS_DTYPE_INT8,
				  CS_OP_SUM, CS_V_PASS, "");
	cs_result_t fail = result(CS_COLL_REDUCESCATTER, CS_DTYPE_INT8,
				  CS_OP_SUM, CS_V_FAIL, "value");

	(void)state;
	assert_int_equal(x->e[0].sometimes, 1);
	assert_int_equal(x->e[1].sometimes, 0);
	assert_null(cs_expect_apply(x, &pass));
	assert_int_equal(x->e[0].matched, 1);
	assert_int_equal(x->e[1].matched, 1);
	/* selected, none failed: only the entry without the option */
	assert_int_equal(cs_expect_finish(x), 1);
	assert_int_equal(x->e[0].xpass, 0);
	assert_int_equal(x->e[1].xpass, 1);
	cs_expect_free(x);
	/* a failure it selects is XFAIL as with any entry */
	x = parse_ok(file);
	assert_ptr_equal(cs_expect_apply(x, &fail), &x->e[0]);
	assert_int_equal(fail.verdict, CS_V_XFAIL);
	assert_int_equal(cs_expect_finish(x), 0);
	cs_expect_free(x);
	parse_bad("x --dtype int8 --shows often" ENTRY_TAIL "\n", "t.txt:1:",
		  "--shows 'often'");
}

static void test_apply_unchanged(void **state)
{
	cs_expect_t *x = parse_ok(apply_file);
	cs_result_t other = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				   CS_V_FAIL, "guard");
	cs_result_t skip = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				  CS_V_SKIP, "skip");
	cs_result_t notlisted = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT32,
				       CS_OP_SUM, CS_V_FAIL, "value");
	cs_result_t pass = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT32, CS_OP_SUM,
				  CS_V_PASS, "");
	cs_result_t ref = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
				 CS_V_FAIL, "value");

	(void)state;
	/* a listed case failing another check: FAIL, said in the detail */
	assert_null(cs_expect_apply(x, &other));
	assert_int_equal(other.verdict, CS_V_FAIL);
	assert_string_equal(other.detail, "listed as known failure avx "
			    "(t.txt:1) for check value crash, but this case "
			    "failed check guard");
	assert_string_equal(other.repro, "collspec run --ranks 4");
	assert_null(cs_expect_apply(x, &skip));
	assert_int_equal(skip.verdict, CS_V_SKIP);
	assert_null(cs_expect_apply(x, &notlisted));
	assert_int_equal(notlisted.verdict, CS_V_FAIL);
	assert_string_equal(notlisted.detail, "");
	assert_null(cs_expect_apply(x, &pass));
	assert_int_equal(pass.verdict, CS_V_PASS);
	snprintf(ref.backend, sizeof ref.backend, "ref"); /* avx: mpi only */
	assert_null(cs_expect_apply(x, &ref));
	assert_int_equal(ref.verdict, CS_V_FAIL);
	assert_int_equal(x->e[0].xfail + x->e[0].xpass, 0);
	cs_expect_free(x);
}

/* The --expect path is quoted for a shell; a line that would not fit is
 * left out, never cut; a long detail keeps whole lines and says so. */
static void test_apply_limits(void **state)
{
	const char *text = "a --dtype int8 --check value --finding f.md "
			   "--reason r\n";
	cs_expect_t *x = NULL;
	cs_result_t r = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM,
			       CS_V_FAIL, "value");
	size_t i, n;

	(void)state;
	assert_int_equal(cs_expect_parse("my dir/it's.txt", text, strlen(text),
					 &x), CS_OK);
	for (i = 0, n = 0; n + 40 < sizeof r.detail - 1; i++)
		n += (size_t)snprintf(r.detail + n, sizeof r.detail - n,
				      "rank 0 index %zu: expected 1 got 2\n",
				      i);
	cs_expect_apply(x, &r);
	assert_string_equal(r.repro, "collspec run --ranks 4 --expect "
			    "'my dir/it'\\''s.txt'");
	n = strlen(r.detail);
	assert_true(n < sizeof r.detail);
	assert_int_equal(strncmp(r.detail, "known failure a (my dir/it's.txt:1)",
				 35), 0);
	assert_string_equal(r.detail + n - 6, "\n[...]");
	assert_non_null(strstr(r.detail, "\nrank 0 index 0: expected 1 got 2\n"));
	/* the line before the mark is whole */
	assert_non_null(strstr(r.detail + n - 40, "got 2\n[...]"));
	/* no room left for the option: the line is emptied */
	r = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM, CS_V_FAIL,
		   "value");
	memset(r.repro, 'x', sizeof r.repro - 8);
	r.repro[sizeof r.repro - 8] = '\0';
	cs_expect_apply(x, &r);
	assert_int_equal(r.verdict, CS_V_XFAIL);
	assert_string_equal(r.repro, "");
	cs_expect_free(x);
}

/* ---- the report with --expect ----------------------------------------------- */

static char exp_path[64], json_path[64], junit_path[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

/* A report with apply_file as --expect over results rs[0..n): exit code;
 * the table in out. */
static int report(const cs_result_t *rs, int n, char *out, size_t outn)
{
	cs_report_opts_t o;
	cs_report_t *rep;
	FILE *f = tmpfile();
	size_t got;
	int i, code;

	memset(&o, 0, sizeof o);
	o.backend = "mpi";
	o.suite = "quick";
	o.expect = exp_path;
	o.json = json_path;
	o.junit = junit_path;
	o.out = f;
	assert_int_equal(cs_report_open(&o, &rep), CS_OK);
	for (i = 0; i < n; i++)
		cs_report_add(rep, &rs[i]);
	code = cs_report_close(rep);
	rewind(f);
	got = fread(out, 1, outn - 1, f);
	out[got] = '\0';
	fclose(f);
	return code;
}

static void test_report_verdicts(void **state)
{
	cs_result_t rs[3] = {
		result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM, CS_V_FAIL,
		       "value"),
		result(CS_COLL_ALLREDUCE, CS_DTYPE_INT32, CS_OP_SUM, CS_V_PASS,
		       ""),
		result(CS_COLL_REDUCE, CS_DTYPE_FLOAT32, CS_OP_MAX, CS_V_PASS,
		       ""),
	};
	static char out[1 << 16];
	char *json, *xml, line[128];

	(void)state;
	snprintf(exp_path, sizeof exp_path, "test_expect_%d.txt", (int)getpid());
	snprintf(json_path, sizeof json_path, "test_expect_%d.jsonl",
		 (int)getpid());
	snprintf(junit_path, sizeof junit_path, "test_expect_%d.xml",
		 (int)getpid());
	write_file(exp_path, apply_file);
	/* a known failure and a plain pass: exit 0 */
	assert_int_equal(report(rs, 2, out, sizeof out), 0);
	assert_non_null(strstr(out, "XFAIL   value"));
	assert_non_null(strstr(out, "1 passed, 0 failed (0 xpass), 0 skipped, "
			       "0 warned (0 with info), 1 xfail in"));
	assert_non_null(strstr(out, "\n1 passed, 0 failed, 1 xfail\n"));
	json = slurp(json_path);
	assert_non_null(strstr(json, "\"verdict\":\"XFAIL\",\"check\":\"value\""));
	free(json);
	xml = slurp(junit_path);
	assert_non_null(strstr(xml, "tests=\"2\" failures=\"0\" errors=\"0\" "
			       "skipped=\"1\""));
	assert_non_null(strstr(xml, "<skipped type=\"xfail\" message=\"known "
			       "failure (value): wrong\">known failure avx"));
	free(xml);
	/* and an entry whose selected case passed: exit 1, the entry XPASS */
	assert_int_equal(report(rs, 3, out, sizeof out), 1);
	assert_null(strstr(out, "XPASS   expect"));  /* the case: a pass */
	assert_non_null(strstr(out, "2 passed, 1 failed (1 xpass)"));
	assert_non_null(strstr(out, "failed cases and XPASS entries (1):\n"
			       "  expect: entry maxf (test_expect_"));
	/* by finding: entries, cases, xfail, xpass, entries that matched
	 * nothing */
	snprintf(line, sizeof line, "\n  %-44s %7d %6d %6d %6d %9d\n",
		 "nan.md", 1, 1, 0, 1, 0);
	assert_non_null(strstr(out, line));
	json = slurp(json_path);
	assert_non_null(strstr(json, "{\"verdict\":\"XPASS\",\"check\":"
			       "\"expect\",\"expect_entry\":\"maxf\""));
	free(json);
	xml = slurp(junit_path);
	assert_non_null(strstr(xml, "failures=\"1\" errors=\"0\" skipped=\"1\""));
	assert_non_null(strstr(xml, "name=\"expect maxf\">\n    <failure "
			       "type=\"xpass\""));
	free(xml);
	remove(json_path);
	remove(junit_path);
	remove(exp_path);
}

/* A malformed file stops the run before any report file is touched. */
static void test_report_bad_file(void **state)
{
	cs_report_opts_t o;
	cs_report_t *rep = NULL;
	char *json;

	(void)state;
	snprintf(exp_path, sizeof exp_path, "test_expect_%d.txt", (int)getpid());
	snprintf(json_path, sizeof json_path, "test_expect_%d.jsonl",
		 (int)getpid());
	write_file(exp_path, "a --dtype int8 --check value --finding f.md\n");
	write_file(json_path, "old\n");
	memset(&o, 0, sizeof o);
	o.backend = "mpi";
	o.suite = "quick";
	o.expect = exp_path;
	o.json = json_path;
	assert_int_equal(cs_report_open(&o, &rep), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), ":1: entry 'a' has no --reason"));
	json = slurp(json_path);
	assert_string_equal(json, "old\n");
	free(json);
	remove(json_path);
	remove(exp_path);
}

/* ---- failure signatures ------------------------------------------------------ */

static void test_signatures(void **state)
{
	cs_failsigs_t *s = calloc(1, sizeof *s);
	cs_result_t r;
	cs_failsig_key_t k;
	char *buf = NULL, *a, *b;
	size_t n = 0;
	FILE *f;

	(void)state;
	assert_non_null(s);
	/* the families, from the catalog's properties */
	r = result(CS_COLL_REDUCESCATTER, CS_DTYPE_UINT8, CS_OP_AVG, CS_V_FAIL,
		   "value");
	cs_failsig_key(&r, &k);
	assert_string_equal(cs_failsig_family_name(0, k.coll), "reducing");
	assert_string_equal(cs_failsig_family_name(1, k.dtype), "8-bit int");
	assert_string_equal(cs_failsig_family_name(2, k.op), "sum-like");
	assert_string_equal(cs_failsig_family_name(3, k.check), "values");
	r = result(CS_COLL_GATHER, CS_DTYPE_FLOAT8_E4M3, CS_OP_SUM, CS_V_FAIL,
		   "hang");
	cs_failsig_key(&r, &k);
	assert_string_equal(cs_failsig_family_name(0, k.coll), "data movement");
	assert_string_equal(cs_failsig_family_name(1, k.dtype), "fp8");
	assert_string_equal(cs_failsig_family_name(2, k.op), "no op");
	assert_string_equal(cs_failsig_family_name(3, k.check), "crash/hang");
	r = result(CS_COLL_REDUCE, CS_DTYPE_BFLOAT16, CS_OP_PROD, CS_V_FAIL,
		   "guard");
	cs_failsig_key(&r, &k);
	assert_string_equal(cs_failsig_family_name(1, k.dtype), "16-bit float");
	assert_string_equal(cs_failsig_family_name(2, k.op), "prod");
	assert_string_equal(cs_failsig_family_name(3, k.check), "memory");
	assert_string_equal(cs_failsig_family_name(4, 0), "?");

	/* 3 failures of two defects and what is not a failure */
	r = result(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT64, CS_OP_MIN, CS_V_FAIL,
		   "nanrule");
	cs_failsigs_add(s, &r);
	r = result(CS_COLL_ALLREDUCE, CS_DTYPE_INT8, CS_OP_SUM, CS_V_XFAIL,
		   "value");
	cs_failsigs_add(s, &r);
	r = result(CS_COLL_REDUCE, CS_DTYPE_UINT8, CS_OP_PREMULSUM, CS_V_FAIL,
		   "value");
	cs_failsigs_add(s, &r);
	r = result(CS_COLL_REDUCE, CS_DTYPE_UINT8, CS_OP_PREMULSUM, CS_V_PASS,
		   "");
	cs_failsigs_add(s, &r);
	r.verdict = CS_V_XPASS;
	cs_failsigs_add(s, &r);
	assert_int_equal(s->total, 3);
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	cs_failsigs_print(s, 1, f);
	fclose(f);
	a = strstr(buf, "       1      1 reducing, 8-bit int, sum-like, values\n"
		   "               allreduce reduce / int8 uint8 / sum premulsum "
		   "/ value\n");
	b = strstr(buf, "       1      0 reducing, 32/64-bit float, max/min, "
		   "values\n               allreduce / float64 / min / nanrule\n");
	if (!a || !b || a > b) /* most cases first */
		fail_msg("signatures:\n%s", buf);
	free(buf);
	free(s);
}

/* Every file of docs/expectations/ but its README parses, and names
 * findings that docs/findings/ holds (once that folder exists). */
static void test_shipped_files(void **state)
{
	char path[1024];
	struct dirent *d;
	struct stat st;
	cs_expect_t *x;
	DIR *dir = opendir(CS_SOURCE_DIR "/docs/expectations");
	int files = 0, have_findings;
	size_t i;

	(void)state;
	assert_non_null(dir);
	have_findings = stat(CS_SOURCE_DIR "/docs/findings", &st) == 0;
	while ((d = readdir(dir)) != NULL) {
		size_t len = strlen(d->d_name);
		if (len < 5 || strcmp(d->d_name + len - 4, ".txt"))
			continue;
		snprintf(path, sizeof path, "%s/docs/expectations/%s",
			 CS_SOURCE_DIR, d->d_name);
		if (cs_expect_load(path, &x) != CS_OK)
			fail_msg("%s", cs_last_error());
		for (i = 0; have_findings && i < x->n; i++) {
			snprintf(path, sizeof path, "%s/docs/findings/%s",
				 CS_SOURCE_DIR, x->e[i].finding);
			if (stat(path, &st) != 0)
				fail_msg("%s, entry %s: no finding %s",
					 d->d_name, x->e[i].name, path);
		}
		cs_expect_free(x);
		files++;
	}
	closedir(dir);
	assert_true(files >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_bounds),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_backend_opt),
		cmocka_unit_test(test_mpi_alg),
		cmocka_unit_test(test_apply_xfail),
		cmocka_unit_test(test_apply_xpass),
		cmocka_unit_test(test_apply_sometimes),
		cmocka_unit_test(test_apply_overlap),
		cmocka_unit_test(test_apply_unchanged),
		cmocka_unit_test(test_apply_limits),
		cmocka_unit_test(test_report_verdicts),
		cmocka_unit_test(test_report_bad_file),
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_shipped_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
