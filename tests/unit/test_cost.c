/*
 * test_cost.c - the cost model (csref/cost.h) and `collspec model --fit`'s
 * reader and fit (conformance/model/model.h): formulas against cases worked by
 * hand (the numbers in the comments, not the formulas under test), the
 * limits every formula must meet, the fit on synthetic bench lines made
 * from known alpha and beta with deterministic noise, and the reader's
 * errors on malformed lines.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "csref/cost.h"
#include "model/model.h"

#define US 1e-6

/* alpha 1 us, 10 GB/s (beta 1e-10 s/B), reductions free or 100 GB/s */
static const cs_cost_params_t m0 = {1e-6, 1e-10, 0};
static const cs_cost_params_t mg = {1e-6, 1e-10, 1e-11};

static double t_of(cs_coll_t c, cs_algo_t a, int P, double n,
		   const cs_cost_params_t *m)
{
	double t = -1;
	cs_status_t st = cs_cost_time(c, a, P, n, m, &t);

	if (st != CS_OK)
		fail_msg("%s %s P=%d: %s", cs_coll_name(c), cs_algo_name(a), P,
			 cs_last_error());
	return t;
}

#define NEAR(got, want_us) \
	assert_true(fabs((got) - (want_us) * US) <= 1e-9 * (want_us) * US)

/* ---- formulas against hand-worked cases ------------------------------- */

static void test_allreduce_by_hand(void **state)
{
	(void)state;
	/* ring, the case, P 4, 1 MB: 2*3*1 us + 2*3/4*1e6*1e-10 s =
	 * 6 + 150 = 156 us; with gamma 1e-11: + 3/4*1e6*1e-11 = 7.5 us */
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_RING, 4, 1e6, &m0), 156);
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_RING, 4, 1e6, &mg), 163.5);
	/* Rabenseifner P 8, 8 MB, alpha 2 us: 2*3*2 = 12 us + 2*7/8*8e6*1e-10
	 * = 1400 us */
	{
		cs_cost_params_t m = {2e-6, 1e-10, 0};

		NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_RHD, 8, 8e6, &m), 1412);
	}
	/* recursive doubling P 8, 1 MB, gamma: 3 steps of 1 + 100 + 10 */
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_RD, 8, 1e6, &mg), 333);
	/* double binary tree P 8: 2*3 levels of 1 us + 2*100 us + 10 */
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_TREE, 8, 1e6, &mg), 216);
	/* P 5: ceil(lg 5) = 3 levels, the same */
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_TREE, 5, 1e6, &m0), 206);
	/* binomial reduce + broadcast P 2: 2 (1 + 100) + 10 */
	NEAR(t_of(CS_COLL_ALLREDUCE, CS_ALGO_BINOMIAL, 2, 1e6, &mg), 212);
}

static void test_gather_scatter_by_hand(void **state)
{
	(void)state;
	/* allgather of 8 MB in all on 8 ranks: ring 7 steps of 1 MB:
	 * 7 + 7*100 = 707 us; recursive doubling 3 steps: 3 + 700 */
	NEAR(t_of(CS_COLL_ALLGATHER, CS_ALGO_RING, 8, 8e6, &m0), 707);
	NEAR(t_of(CS_COLL_ALLGATHER, CS_ALGO_RD, 8, 8e6, &m0), 703);
	/* reducescatter of 16 MB on 16 ranks by halving: 4 steps (4 us),
	 * 15 MB sent (1500 us), 15 MB reduced at 100 GB/s (150 us) */
	NEAR(t_of(CS_COLL_REDUCESCATTER, CS_ALGO_RHD, 16, 16e6, &mg), 1654);
	/* the ring: 15 steps, the same bytes */
	NEAR(t_of(CS_COLL_REDUCESCATTER, CS_ALGO_RING, 16, 16e6, &mg), 1665);
	/* alltoall, 1 MB per peer on 4 ranks (n = 4 MB): 3 MB leave the
	 * rank (300 us); pairwise 3 start-ups, direct 1 */
	NEAR(t_of(CS_COLL_ALLTOALL, CS_ALGO_PAIRWISE, 4, 4e6, &m0), 303);
	NEAR(t_of(CS_COLL_ALLTOALL, CS_ALGO_DIRECT, 4, 4e6, &m0), 301);
	NEAR(t_of(CS_COLL_SENDRECV, CS_ALGO_DIRECT, 2, 1e6, &m0), 101);
}

static void test_rooted_by_hand(void **state)
{
	(void)state;
	/* broadcast of 1 MB on 8 ranks: binomial 3 rounds of 101 us; linear
	 * on 5: 4 messages of 101 us; two-tree 3 levels + 100 us; chain 7 +
	 * 100; scatter + allgather 2*3 + 2*7/8*100 = 6 + 175 */
	NEAR(t_of(CS_COLL_BROADCAST, CS_ALGO_BINOMIAL, 8, 1e6, &m0), 303);
	NEAR(t_of(CS_COLL_BROADCAST, CS_ALGO_LINEAR, 5, 1e6, &m0), 404);
	NEAR(t_of(CS_COLL_BROADCAST, CS_ALGO_TREE, 8, 1e6, &m0), 103);
	NEAR(t_of(CS_COLL_BROADCAST, CS_ALGO_RING, 8, 1e6, &m0), 107);
	NEAR(t_of(CS_COLL_BROADCAST, CS_ALGO_RHD, 8, 1e6, &m0), 181);
	/* reduce of 1 MB: binomial on 4, 2 rounds of 1 + 100 + 10; linear
	 * on 3: 2 messages of the same; Rabenseifner on 4: 2*2 + 2*3/4*100 +
	 * 3/4*10 = 4 + 150 + 7.5 */
	NEAR(t_of(CS_COLL_REDUCE, CS_ALGO_BINOMIAL, 4, 1e6, &mg), 222);
	NEAR(t_of(CS_COLL_REDUCE, CS_ALGO_LINEAR, 3, 1e6, &mg), 222);
	NEAR(t_of(CS_COLL_REDUCE, CS_ALGO_RHD, 4, 1e6, &mg), 161.5);
	NEAR(t_of(CS_COLL_REDUCE, CS_ALGO_TREE, 4, 1e6, &mg), 112);
	NEAR(t_of(CS_COLL_REDUCE, CS_ALGO_RING, 4, 1e6, &mg), 113);
}

/* The ring's beta coefficient is nccl-tests' bus bandwidth factor
 * (PERFORMANCE.md): at P 8 allreduce 2*7/8, allgather and reducescatter
 * 7/8, broadcast and reduce 1. */
static void test_busbw_factor(void **state)
{
	cs_cost_coef_t c;

	(void)state;
	assert_int_equal(cs_cost_coef(CS_COLL_ALLREDUCE, CS_ALGO_RING, 8, &c),
			 CS_OK);
	assert_true(c.b == 1.75);
	assert_int_equal(cs_cost_coef(CS_COLL_ALLGATHER, CS_ALGO_RING, 8, &c),
			 CS_OK);
	assert_true(c.b == 0.875);
	assert_int_equal(cs_cost_coef(CS_COLL_REDUCESCATTER, CS_ALGO_RING, 8,
				      &c), CS_OK);
	assert_true(c.b == 0.875);
	assert_int_equal(cs_cost_coef(CS_COLL_BROADCAST, CS_ALGO_RING, 8, &c),
			 CS_OK);
	assert_true(c.b == 1);
}

/* ---- limits ------------------------------------------------------------ */

/* Every formula: 0 at P 1; at P >= 2 non-negative, and non-decreasing in
 * n and in each of alpha, beta, gamma. */
static void test_limits(void **state)
{
	static const double ns[] = {0, 1, 1000, 1e6, 1e9};
	cs_cost_params_t big = {2e-6, 2e-10, 2e-11};
	int c, a, P, k;
	double t, prev;

	(void)state;
	for (c = 0; c < CS_NUM_COLLS; c++)
		for (a = 0; a < CS_NUM_ALGOS; a++) {
			if (!cs_cost_defined((cs_coll_t)c, (cs_algo_t)a))
				continue;
			assert_non_null(cs_cost_formula((cs_coll_t)c,
							(cs_algo_t)a));
			assert_int_equal(cs_cost_time((cs_coll_t)c,
				(cs_algo_t)a, 1, 1e9, &mg, &t), CS_OK);
			assert_true(t == 0);
			for (P = 2; P <= 64; P *= 2) {
				prev = -1;
				for (k = 0; k < 5; k++) {
					t = t_of((cs_coll_t)c, (cs_algo_t)a, P,
						 ns[k], &mg);
					assert_true(t >= prev);
					assert_true(t_of((cs_coll_t)c,
						(cs_algo_t)a, P, ns[k], &big) >=
						t);
					prev = t;
				}
				assert_true(prev > 0);
			}
		}
}

static void test_errors(void **state)
{
	cs_cost_coef_t c;
	cs_algo_t a;

	(void)state;
	/* rd and rhd need a power of two */
	assert_int_equal(cs_cost_coef(CS_COLL_ALLREDUCE, CS_ALGO_RD, 6, &c),
			 CS_ERR_UNDEFINED);
	assert_non_null(strstr(cs_last_error(), "power-of-two"));
	assert_int_equal(cs_cost_coef(CS_COLL_ALLREDUCE, CS_ALGO_RHD, 12, &c),
			 CS_ERR_UNDEFINED);
	assert_int_equal(cs_cost_coef(CS_COLL_ALLTOALL, CS_ALGO_RING, 4, &c),
			 CS_ERR_UNDEFINED);
	assert_int_equal(cs_cost_coef(CS_COLL_ALLREDUCE, CS_ALGO_RING, 0, &c),
			 CS_ERR_INVALID);
	assert_int_equal(cs_algo_parse("ringg", &a), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "pairwise"));
	assert_int_equal(cs_algo_parse("rhd", &a), CS_OK);
	assert_int_equal(a, CS_ALGO_RHD);
	assert_int_equal(cs_cost_default_algo(CS_COLL_ALLTOALL),
			 CS_ALGO_PAIRWISE);
}

/* ---- the fit ------------------------------------------------------------ */

#define ALPHA 5e-6      /* the machine the synthetic bench ran on */
#define BETA 8e-11      /* 12.5 GB/s */
#define NSIZES 13       /* 8 B * 4^k, k = 0..12: 8 B to 128 MiB */
#define EPS 0.01        /* noise: every time off by at most 1% */

static double eps_now; /* the noise of the current test, EPS or 0 */

/* The relative noise of point i: +-eps, +-eps/2 in turn. */
static double noise(int i)
{
	static const double s[4] = {1, -1, 0.5, -0.5};

	return eps_now * s[i % 4];
}

/* Ring allreduce on P ranks by hand: 2(P-1) alpha + 2(P-1)/P n beta. */
static double ring_time(int P, double n)
{
	return 2.0 * (P - 1) * ALPHA + 2.0 * (P - 1) / P * n * BETA;
}

/* One bench line (conformance/base/bench_rec.h's 22 keys). */
static void bench_line(FILE *f, const char *series, const char *coll, int P,
		       double bytes, double t_us)
{
	fprintf(f, "{\"series\":\"%s\",\"backend\":\"mpi\",\"coll\":\"%s\","
		"\"dtype\":\"float32\",\"op\":\"sum\",\"inplace\":0,"
		"\"nranks\":%d,\"bytes\":%.0f,\"count\":%.0f,\"iters\":20,"
		"\"warmup\":5,\"time_us\":%.17g,\"min_us\":1,\"p50_us\":1,"
		"\"p90_us\":1,\"p99_us\":1,\"max_us\":1,\"algbw_GBps\":1,"
		"\"busbw_GBps\":1,\"wait_spread_us\":0.5,\"wrong\":0,"
		"\"checked\":1}\n", series, coll, P, bytes, bytes / 4, t_us);
}

/* Points of ring allreduce at P 2, 4, 8 and NSIZES sizes, noisy. */
static int ring_points(double *x1, double *x2, double *y)
{
	int P, k, i = 0;

	for (P = 2; P <= 8; P *= 2)
		for (k = 0; k < NSIZES; k++, i++) {
			double n = 8.0 * pow(4, k);

			x1[i] = 2.0 * (P - 1);
			x2[i] = 2.0 * (P - 1) / P * n;
			y[i] = ring_time(P, n) * (1 + noise(i));
		}
	return i;
}

/* No noise: exact. With noise of at most EPS per point: the smallest
 * sizes (time ~ alpha) pin alpha and the largest (time ~ n beta) pin
 * beta to about EPS each, since the weights make every point count by
 * its relative error; 2 EPS allows for the coupling of the two. */
static void test_fit_recovers(void **state)
{
	double x1[3 * NSIZES], x2[3 * NSIZES], y[3 * NSIZES], a, b;
	int k;

	(void)state;
	eps_now = 0;
	k = ring_points(x1, x2, y);
	assert_int_equal(cs_cost_fit(x1, x2, y, (size_t)k, &a, &b), CS_OK);
	assert_true(fabs(a / ALPHA - 1) < 1e-9 && fabs(b / BETA - 1) < 1e-9);
	eps_now = EPS;
	k = ring_points(x1, x2, y);
	assert_int_equal(cs_cost_fit(x1, x2, y, (size_t)k, &a, &b), CS_OK);
	assert_true(fabs(a / ALPHA - 1) <= 2 * EPS);
	assert_true(fabs(b / BETA - 1) <= 2 * EPS);
	/* the plain line t = a + b n through two points */
	x1[0] = x1[1] = 1;
	x2[0] = 0;
	x2[1] = 1000;
	y[0] = 3;
	y[1] = 5;
	assert_int_equal(cs_cost_fit(x1, x2, y, 2, &a, &b), CS_OK);
	assert_true(fabs(a - 3) < 1e-12 && fabs(b - 0.002) < 1e-15);
	/* one size only cannot separate alpha from beta */
	assert_int_equal(cs_cost_fit(x1, x1, y, 2, &a, &b), CS_ERR_INVALID);
	assert_int_equal(cs_cost_fit(x1, x2, y, 1, &a, &b), CS_ERR_INVALID);
	y[1] = 0;
	assert_int_equal(cs_cost_fit(x1, x2, y, 2, &a, &b), CS_ERR_INVALID);
}

/* A bench file of two series: "mpi" allreduce (ring, noisy), "ref"
 * alltoall (pairwise, exact), and P 1 lines, which are left out. */
static void write_bench(const char *path, double eps)
{
	FILE *f = fopen(path, "w");
	int P, k, i = 0;

	assert_non_null(f);
	eps_now = eps;
	for (P = 1; P <= 8; P *= 2)
		for (k = 0; k < NSIZES; k++, i++) {
			double n = 8.0 * pow(4, k);

			bench_line(f, "mpi", "allreduce", P, n, P == 1 ? 1 :
				   ring_time(P, n) * (1 + noise(i)) * 1e6);
			/* pairwise: 3 alpha + 3/4 n beta on 4 ranks */
			if (P == 4)
				bench_line(f, "ref", "alltoall", P, n,
					   (3 * ALPHA + 0.75 * n * BETA) * 1e6);
		}
	fputs("\n", f);
	fclose(f);
}

static void test_fit_file(void **state)
{
	char path[] = "/tmp/test_cost_XXXXXX";
	cs_model_fit_t fits[4];
	size_t n;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_bench(path, EPS);
	assert_int_equal(cs_model_fit_file(path, 0, 0, CS_ALGO_RING, 3, fits,
					   4, &n), CS_OK);
	assert_int_equal(n, 2);
	assert_string_equal(fits[0].series, "mpi");
	assert_int_equal(fits[0].algo, CS_ALGO_RING);
	/* 13 sizes: the 3rd, 6th, 9th, 12th held out, at P 2, 4, 8 */
	assert_int_equal(fits[0].held, 12);
	assert_int_equal(fits[0].used, 27);
	assert_int_equal(fits[0].pmin, 1);
	assert_true(fabs(fits[0].alpha_s / ALPHA - 1) <= 2 * EPS);
	assert_true(fabs(fits[0].beta_s / BETA - 1) <= 2 * EPS);
	/* a held-out time is off by its noise (EPS) and the fit's error
	 * (2 EPS at most on each term) */
	assert_true(fits[0].max_err <= 3 * EPS);
	assert_true(fits[0].max_err >= fits[0].mean_err);
	assert_int_equal(fits[1].algo, CS_ALGO_PAIRWISE);
	assert_true(fabs(fits[1].alpha_s / ALPHA - 1) < 1e-9);
	assert_true(fits[1].max_err < 1e-9);
	/* no holdout: every size fitted; plain: t = alpha + beta n */
	assert_int_equal(cs_model_fit_file(path, 1, 0, CS_ALGO_RING, 0, fits,
					   4, &n), CS_OK);
	assert_int_equal(fits[0].held, 0);
	assert_int_equal(fits[0].used, 39);
	assert_true(fits[1].plain);
	/* the plain line of the alltoall: intercept 3 alpha, slope 3/4 beta */
	assert_true(fabs(fits[1].alpha_s / (3 * ALPHA) - 1) < 1e-9);
	assert_true(fabs(fits[1].beta_s / (0.75 * BETA) - 1) < 1e-9);
	unlink(path);
}

/* ---- the reader --------------------------------------------------------- */

static const char good[] =
	"{\"series\":\"mpi/alg=2\",\"backend\":\"mpi\",\"coll\":\"allgather\","
	"\"dtype\":\"bfloat16\",\"op\":\"none\",\"inplace\":1,\"nranks\":4,"
	"\"bytes\":4096,\"count\":512,\"iters\":20,\"warmup\":5,"
	"\"time_us\":12.5,\"min_us\":11,\"p50_us\":12,\"p90_us\":13,"
	"\"p99_us\":14,\"max_us\":15,\"algbw_GBps\":0.32768,"
	"\"busbw_GBps\":0.24576,\"wait_spread_us\":1.5e-1,\"wrong\":-1,"
	"\"checked\":0}";

static void test_read_good(void **state)
{
	cs_bench_rec_t r;

	(void)state;
	assert_int_equal(cs_bench_rec_parse(good, &r), CS_OK);
	assert_string_equal(r.series, "mpi/alg=2");
	assert_int_equal(r.coll, CS_COLL_ALLGATHER);
	assert_int_equal(r.dtype, CS_DTYPE_BFLOAT16);
	assert_int_equal(r.op, CS_OP_NONE);
	assert_int_equal(r.inplace, 1);
	assert_int_equal(r.nranks, 4);
	assert_true(r.bytes == 4096 && r.count == 512);
	assert_true(r.time_us == 12.5 && r.max_us == 15);
	assert_true(r.wait_spread_us == 0.15 && r.busbw_GBps == 0.24576);
	assert_true(r.wrong == -1 && r.checked == 0);
	/* a record of an earlier release: no check_us, read as -1 */
	assert_true(r.check_us == -1);
}

/* check_us, the checked call's checks, when the record has it */
static void test_read_check_us(void **state)
{
	char line[sizeof good + 32];
	cs_bench_rec_t r;

	(void)state;
	snprintf(line, sizeof line, "%.*s,\"check_us\":250.5}",
		 (int)(sizeof good - 2), good);
	assert_int_equal(cs_bench_rec_parse(line, &r), CS_OK);
	assert_true(r.check_us == 250.5 && r.checked == 0);
	snprintf(line, sizeof line, "%.*s,\"check_us\":-2}",
		 (int)(sizeof good - 2), good);
	assert_int_not_equal(cs_bench_rec_parse(line, &r), CS_OK);
	assert_non_null(strstr(cs_last_error(), "check_us"));
}

/* good with the first `from` replaced by `to`, then parsed: must fail
 * with a message holding `msg`. */
static void bad_line(const char *from, const char *to, const char *msg)
{
	char line[2048];
	const char *at = strstr(good, from);
	cs_bench_rec_t r;

	assert_non_null(at);
	snprintf(line, sizeof line, "%.*s%s%s", (int)(at - good), good, to,
		 at + strlen(from));
	if (cs_bench_rec_parse(line, &r) != CS_ERR_INVALID)
		fail_msg("accepted: %s", line);
	if (!strstr(cs_last_error(), msg))
		fail_msg("'%s' for %s: expected '%s'", cs_last_error(), line,
			 msg);
}

static void test_read_bad(void **state)
{
	(void)state;
	bad_line("\"checked\":0", "\"checked\":0,\"x\":1", "unknown key \"x\"");
	bad_line(",\"checked\":0", "", "key \"checked\" missing");
	bad_line("\"wrong\":-1", "\"wrong\":-1,\"wrong\":2", "twice");
	bad_line("\"nranks\":4", "\"nranks\":\"4\"", "expected a number");
	bad_line("\"series\":\"mpi/alg=2\"", "\"series\":3",
		 "expected a string");
	bad_line("\"nranks\":4", "\"nranks\":0", "\"nranks\"");
	bad_line("\"nranks\":4", "\"nranks\":4.5", "not an integer");
	bad_line("\"time_us\":12.5", "\"time_us\":12.", "bad number");
	bad_line("\"time_us\":12.5", "\"time_us\":1e999", "not finite");
	bad_line("\"coll\":\"allgather\"", "\"coll\":\"allgatherr\"",
		 "unknown");
	bad_line("\"checked\":0}", "\"checked\":0} x", "text after");
	bad_line("\"checked\":0}", "\"checked\":0", "expected ',' or '}'");
	bad_line("{", "[", "expected '{'");
	bad_line("\"checked\":0}", "\"checked\":\"0}", "unterminated");
	bad_line("\"backend\":\"mpi\"", "\"backend\":\"mpi\\q\"", "escape");
	bad_line("\"backend\":\"mpi\"", "\"backend\":\"m\\u0000\"", "escape");
	bad_line("\"backend\":\"mpi\"", "\"backend\":\"" "0123456789012345"
		 "6789012345678901234567890123456789012345678901234567890123"
		 "456789\"", "longer than 63");
}

/* A malformed line in a file: the file and the line are named. */
static void test_fit_file_errors(void **state)
{
	char path[] = "/tmp/test_cost_XXXXXX";
	cs_model_fit_t fits[2];
	size_t n;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	bench_line(f, "mpi", "allreduce", 2, 8, 10);
	fputs("{\"series\":\"mpi\"}\n", f);
	fclose(f);
	assert_int_equal(cs_model_fit_file(path, 0, 0, CS_ALGO_RING, 3, fits,
					   2, &n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), ":2: "));
	assert_non_null(strstr(cs_last_error(), "missing"));
	/* one size at one P only: no group can be fitted (at two P the
	 * ring's coefficients would separate alpha from beta) */
	f = fopen(path, "w");
	bench_line(f, "mpi", "allreduce", 2, 8, 10);
	bench_line(f, "mpi", "allreduce", 2, 8, 11);
	fclose(f);
	assert_int_equal(cs_model_fit_file(path, 0, 0, CS_ALGO_RING, 0, fits,
					   2, &n), CS_ERR_INVALID);
	assert_int_equal(cs_model_fit_file("/nonexistent/b.json", 0, 0,
					   CS_ALGO_RING, 3, fits, 2, &n),
			 CS_ERR_IO);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce_by_hand),
		cmocka_unit_test(test_gather_scatter_by_hand),
		cmocka_unit_test(test_rooted_by_hand),
		cmocka_unit_test(test_busbw_factor),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fit_recovers),
		cmocka_unit_test(test_fit_file),
		cmocka_unit_test(test_read_good),
		cmocka_unit_test(test_read_check_us),
		cmocka_unit_test(test_read_bad),
		cmocka_unit_test(test_fit_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
