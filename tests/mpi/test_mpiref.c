/*
 * test_mpiref.c - the MPI reference (ref/mpi) against the test's own
 * expectation and the pure oracle, under mpiexec at any rank count.
 *
 * For every collective, dtype and op (reducing collectives), at counts
 * 0, 1, P-1, P+1, 1000 and 1021 (prime), in place and out of place, each
 * call runs on one of three communicators (MPI_COMM_WORLD, odd/even ranks,
 * world in reversed order), with one of three input sources (generated
 * exact, generated random, local hash) and a root that varies; the three
 * rotate so that every (dtype, op) meets every communicator and source.
 * --full runs the whole product instead. harness.h lists what each call
 * checks.
 *
 * Usage: test_mpiref [--chunk BYTES] [--piece BYTES] [--full] [--only NAME]
 * --chunk and --piece set cs_mpiref_set_tuning (small values exercise the
 * pipelines and message splitting at small counts); --only runs the CMocka
 * tests whose name matches the glob NAME (e.g. '*alltoallv').
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <mpi.h>
#include "csref/gen.h"
#include "csref/mpiref.h"
#include "harness.h"

enum { NCOMM = 3, NCOUNT = 6 };

static MPI_Comm comms[NCOMM];
static const char *comm_names[NCOMM] = {"world", "odd/even split",
					"reversed world"};
static int full;

static size_t count_at(int ci, int P)
{
	const size_t fixed[NCOUNT] = {0, 1, (size_t)P - 1, (size_t)P + 1, 1000,
				      1021};
	return fixed[ci];
}

static int places_of(cs_coll_t c)
{
	return (c == CS_COLL_GATHER || c == CS_COLL_SCATTER) ? T_NUM_PLACE : 2;
}

/* alltoallv: counts in [0, count], some zero, gaps of 0..2 elements. */
static void a2av_matrix(t_run_t *t, size_t *m)
{
	size_t P = (size_t)t->c.nranks, k;

	for (k = 0; k < P * P; k++)
		m[k] = cs_mix64(t->c.seed ^ (k * 0x51ed27)) % (t->c.count + 1);
	t->c.a2av_counts = m;
	t->c.a2av_gap = t->c.seed % 3;
}

/* One call; n numbers the runs so comm, source and root rotate. */
static int one(cs_coll_t coll, cs_dtype_t d, cs_op_t op, int ci, int place,
	       int comm, int src, unsigned long n)
{
	t_run_t t;
	size_t *m = NULL;
	int P, bad;

	memset(&t, 0, sizeof t);
	MPI_Comm_size(comms[comm], &P);
	t.c.coll = coll;
	t.c.dtype = d;
	t.c.op = op;
	t.c.mode = src == T_SRC_EXACT ? CS_MODE_EXACT : CS_MODE_RANDOM;
	t.c.nranks = P;
	t.c.root = cs_coll_rooted(coll) ? (int)((n / 9) % (unsigned long)P) : 0;
	t.c.count = count_at(ci, P);
	t.c.seed = 1 + n;
	t.src = src;
	t.place = place;
	t.comm = comms[comm];
	t.comm_name = comm_names[comm];
	if (coll == CS_COLL_ALLTOALLV) {
		m = malloc(sizeof(size_t) * (size_t)P * (size_t)P);
		if (!m)
			abort();
		a2av_matrix(&t, m);
	}
	bad = t_run_exec(&t);
	free(m);
	return bad;
}

/* Rotating cover (default) or the whole product (--full) of communicator,
 * source and root for one (collective, dtype, op, count, placement). */
static int cover(cs_coll_t coll, cs_dtype_t d, cs_op_t op, int ci, int place,
		 unsigned long *n)
{
	int bad = 0, comm, src, reps;

	if (!full) {
		(*n)++;
		return one(coll, d, op, ci, place, (int)(*n % NCOMM),
			   (int)(*n / NCOMM % T_NUM_SRC), *n);
	}
	for (comm = 0; comm < NCOMM; comm++)
		for (src = 0; src < T_NUM_SRC; src++)
			for (reps = 0; reps < (cs_coll_rooted(coll) ? 4 : 1); reps++)
				bad += one(coll, d, op, ci, place, comm, src,
					   (*n += 9));
	return bad;
}

static void run_coll(cs_coll_t coll)
{
	int nops = cs_coll_reduces(coll) ? CS_NUM_OPS : 1;
	unsigned long n = 0;
	int d, o, ci, place, bad = 0, total = 0;

	for (d = 0; d < CS_NUM_DTYPES; d++)
		for (o = 0; o < nops; o++)
			for (ci = 0; ci < NCOUNT; ci++)
				for (place = 0; place < places_of(coll); place++)
					bad += cover(coll, d, cs_coll_reduces(coll) ?
						     (cs_op_t)o : CS_OP_NONE,
						     ci, place, &n);
	MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	assert_int_equal(total, 0);
}

#define COLL_TEST(ID, name, ...)                                               \
	static void test_##name(void **state)                                  \
	{                                                                      \
		(void)state;                                                   \
		run_coll(CS_COLL_##ID);                                        \
	}
CS_COLL_LIST(COLL_TEST)
#undef COLL_TEST

/* ---- argument errors: found locally, before any message ---------------- */

#define EXPECT_ERR(call, code)                                                 \
	do {                                                                   \
		assert_int_equal((call), (code));                              \
		assert_true(strlen(cs_last_error()) > 0);                      \
	} while (0)

static void test_count_zero(void **state)
{
	MPI_Comm w = MPI_COMM_WORLD;
	cs_dtype_t d = CS_DTYPE_FLOAT32;
	size_t z[64] = {0};
	int P;

	(void)state;
	MPI_Comm_size(w, &P);
	assert_true(P <= 64);
	/* count 0: legal, NULL buffers, nothing touched, no message */
	assert_int_equal(cs_mpiref_allreduce(NULL, NULL, 0, d, CS_OP_SUM, 0, w), CS_OK);
	assert_int_equal(cs_mpiref_allgather(NULL, NULL, 0, d, w), CS_OK);
	assert_int_equal(cs_mpiref_reducescatter(NULL, NULL, 0, d, CS_OP_MAX, 0, w), CS_OK);
	assert_int_equal(cs_mpiref_alltoall(NULL, NULL, 0, d, w), CS_OK);
	assert_int_equal(cs_mpiref_alltoallv(NULL, z, z, NULL, z, z, d, w), CS_OK);
	assert_int_equal(cs_mpiref_broadcast(NULL, NULL, 0, d, P - 1, w), CS_OK);
	assert_int_equal(cs_mpiref_reduce(NULL, NULL, 0, d, CS_OP_AVG, 0, 0, w), CS_OK);
	assert_int_equal(cs_mpiref_gather(NULL, NULL, 0, d, 0, w), CS_OK);
	assert_int_equal(cs_mpiref_scatter(NULL, NULL, 0, d, 0, w), CS_OK);
	assert_int_equal(cs_mpiref_sendrecv(NULL, NULL, 0, d, w), CS_OK);
}

static void test_bad_arguments(void **state)
{
	MPI_Comm w = MPI_COMM_WORLD;
	cs_dtype_t d = CS_DTYPE_INT32;
	int32_t a[256], b[256];
	int P;

	(void)state;
	MPI_Comm_size(w, &P);
	assert_true(P <= 64);
	EXPECT_ERR(cs_mpiref_allreduce(a, b, 1, CS_NUM_DTYPES, CS_OP_SUM, 0, w),
		   CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_allreduce(a, b, 1, d, CS_NUM_OPS, 0, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_reduce(a, b, 1, d, (cs_op_t)-1, 0, 0, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_broadcast(a, b, 1, d, P, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_gather(a, b, 1, d, -1, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_scatter(a, b, 1, d, P, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_sendrecv(a, b, 1, d, MPI_COMM_NULL), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_alltoall(a, NULL, 1, d, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_allgather(NULL, b, 1, d, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_allreduce(a, b, (size_t)-1 / 2, d, CS_OP_SUM, 0, w),
		   CS_ERR_OVERFLOW);
	EXPECT_ERR(cs_mpiref_set_tuning(0, CS_MPIREF_PIECE_MAX + 1), CS_ERR_INVALID);
}

/* Overlapping buffers that are not the in-place pattern. */
static void test_bad_overlap(void **state)
{
	MPI_Comm w = MPI_COMM_WORLD;
	cs_dtype_t d = CS_DTYPE_INT32;
	size_t sc[64], sd[64], rc[64], rd[64];
	int32_t a[1024];
	int P, r, q;

	(void)state;
	MPI_Comm_size(w, &P);
	MPI_Comm_rank(w, &r);
	assert_true(P <= 64);
	EXPECT_ERR(cs_mpiref_allreduce(a, a + 1, 4, d, CS_OP_SUM, 0, w),
		   CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_sendrecv(a + 3, a, 4, d, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_alltoall(a, a + 1, 4, d, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_allgather(a + 4 * r + 1, a, 4, d, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_reducescatter(a, a + 4 * r + 1, 4, d, CS_OP_SUM, 0, w),
		   CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_reduce(a, a + 2, 4, d, CS_OP_SUM, 0, r, w),
		   CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_broadcast(a + 2, a, 4, d, r, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_gather(a + 1, a, 4, d, r, w), CS_ERR_INVALID);
	EXPECT_ERR(cs_mpiref_scatter(a, a + 1, 4, d, r, w), CS_ERR_INVALID);
	for (q = 0; q < P; q++) {
		sc[q] = rc[q] = 2;
		sd[q] = (size_t)q * 2;
		rd[q] = (size_t)q; /* receive blocks overlap each other */
	}
	if (P > 1)
		EXPECT_ERR(cs_mpiref_alltoallv(a, sc, sd, a + 512, rc, rd, d, w),
			   CS_ERR_INVALID);
	/* receive blocks disjoint, but each over a send block */
	EXPECT_ERR(cs_mpiref_alltoallv(a, sc, sd, a + 1, rc, sd, d, w),
		   CS_ERR_INVALID);
	rc[r] = 3; /* our block to ourselves: 2 sent, 3 expected */
	EXPECT_ERR(cs_mpiref_alltoallv(a, sc, sd, a + 512, rc, sd, d, w),
		   CS_ERR_INVALID);
}

static int parse_args(int argc, char **argv)
{
	size_t chunk = 0, piece = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--full"))
			full = 1;
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--piece") && i + 1 < argc)
			piece = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			cmocka_set_test_filter(argv[++i]);
		else
			return -1;
	}
	return cs_mpiref_set_tuning(chunk, piece) == CS_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_zero),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_bad_overlap),
#define COLL_ENTRY(ID, name, ...) cmocka_unit_test(test_##name),
		CS_COLL_LIST(COLL_ENTRY)
#undef COLL_ENTRY
	};
	int rank, P, failed, any;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	if (parse_args(argc, argv)) {
		if (rank == 0)
			fprintf(stderr, "usage: test_mpiref [--chunk BYTES] "
				"[--piece BYTES] [--full] [--only NAME]\n");
		MPI_Finalize();
		return 2;
	}
	if (rank != 0 && !freopen("/dev/null", "w", stdout))
		return 2; /* one copy of CMocka's report is enough */
	comms[0] = MPI_COMM_WORLD;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[1]);
	MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - rank, &comms[2]);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Comm_free(&comms[1]);
	MPI_Comm_free(&comms[2]);
	MPI_Finalize();
	return any ? 1 : 0;
}
