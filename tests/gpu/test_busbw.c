/*
 * test_busbw.c - bench_gpu's arithmetic (bench/gpu_metrics.h) on the CPU:
 * nccl-tests' bus-bandwidth factors and size conventions, and the memory
 * traffic of libcsgpu's schedules, against values derived by hand from
 * what each algorithm must move (docs/gpu-bench.md, "Memory traffic"),
 * not from the schedule code. Needs no device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "gpu_metrics.h"

static const csg_vmat_t no_v = { NULL, NULL, NULL };

/* A plan of csg_plan_init that must be accepted. */
static csg_plan_t plan(cs_coll_t coll, csg_algo_t algo, int P, int inplace,
		       size_t n, size_t esize, int nchan, int nslices)
{
	csg_plan_t p;

	assert_int_equal(csg_plan_init(&p, coll, algo, P, 0, inplace, n, esize,
				       nchan, nslices, no_v), 0);
	return p;
}

/* ---- busbw factors: nccl-tests' table ----------------------------------- */

static void test_factor_values(void **state)
{
	(void)state;
	/* 2(P-1)/P, (P-1)/P and 1 at P where they are exact in binary */
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 8) == 1.75);
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 2) == 1.0);
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 1) == 0.0);
	assert_true(gb_busbw_factor(CS_COLL_ALLGATHER, 8) == 0.875);
	assert_true(gb_busbw_factor(CS_COLL_REDUCESCATTER, 4) == 0.75);
	assert_true(gb_busbw_factor(CS_COLL_ALLTOALL, 2) == 0.5);
	assert_true(gb_busbw_factor(CS_COLL_GATHER, 4) == 0.75);
	assert_true(gb_busbw_factor(CS_COLL_SCATTER, 1) == 0.0);
	assert_true(gb_busbw_factor(CS_COLL_BROADCAST, 8) == 1.0);
	assert_true(gb_busbw_factor(CS_COLL_REDUCE, 3) == 1.0);
	assert_true(gb_busbw_factor(CS_COLL_SENDRECV, 5) == 1.0);
	/* 4/3 and 2/3 are not exact: within one rounding of the quotient
	 * (half an ulp, below 2^-52 relative) */
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 3) > 4.0 / 3 * (1 - 0x1p-52));
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 3) < 4.0 / 3 * (1 + 0x1p-52));
	assert_true(gb_busbw_factor(CS_COLL_ALLGATHER, 3) > 2.0 / 3 * (1 - 0x1p-52));
	assert_true(gb_busbw_factor(CS_COLL_ALLGATHER, 3) < 2.0 / 3 * (1 + 0x1p-52));
}

static void test_factor_refused(void **state)
{
	(void)state;
	assert_true(gb_busbw_factor(CS_COLL_ALLTOALLV, 8) == -1.0);
	assert_true(gb_busbw_factor(CS_NUM_COLLS, 8) == -1.0);
	assert_true(gb_busbw_factor(CS_COLL_ALLREDUCE, 0) == -1.0);
}

/* ---- sizes ------------------------------------------------------------- */

static void test_sizes(void **state)
{
	size_t s, r;

	(void)state;
	/* 1 MiB of float32: 2^18 elements; allgather over 8: 2^15 each */
	assert_int_equal(gb_count_of(CS_COLL_ALLREDUCE, 8, 1 << 20, 4), 262144);
	assert_int_equal(gb_count_of(CS_COLL_ALLGATHER, 8, 1 << 20, 4), 32768);
	assert_int_equal(gb_count_of(CS_COLL_ALLTOALL, 8, 1 << 20, 4), 32768);
	assert_int_equal(gb_size_of(CS_COLL_ALLGATHER, 8, 32768, 4), 1 << 20);
	assert_int_equal(gb_size_of(CS_COLL_BROADCAST, 8, 32768, 4), 131072);
	/* 1000 bytes of bfloat16 over 3 blocks: 166 per block, 996 bytes */
	assert_int_equal(gb_count_of(CS_COLL_REDUCESCATTER, 3, 1000, 2), 166);
	assert_int_equal(gb_size_of(CS_COLL_REDUCESCATTER, 3, 166, 2), 996);
	assert_int_equal(gb_count_of(CS_COLL_ALLTOALLV, 3, 1000, 2), 0);
	assert_int_equal(gb_count_of(CS_COLL_ALLREDUCE, 3, 1000, 0), 0);

	assert_int_equal(gb_buffer_elems(CS_COLL_ALLGATHER, 4, 10, &s, &r), CS_OK);
	assert_int_equal(s, 10);
	assert_int_equal(r, 40);
	assert_int_equal(gb_buffer_elems(CS_COLL_REDUCESCATTER, 4, 10, &s, &r),
			 CS_OK);
	assert_int_equal(s, 40);
	assert_int_equal(r, 10);
	assert_int_equal(gb_buffer_elems(CS_COLL_ALLTOALL, 4, 10, &s, &r), CS_OK);
	assert_int_equal(s, 40);
	assert_int_equal(r, 40);
	assert_int_equal(gb_buffer_elems(CS_COLL_ALLREDUCE, 4, 10, &s, &r), CS_OK);
	assert_int_equal(s, 10);
	assert_int_equal(r, 10);
	assert_int_equal(gb_buffer_elems(CS_COLL_ALLTOALLV, 4, 10, &s, &r),
			 CS_ERR_INVALID);
	assert_int_equal(s, 0);
	assert_int_equal(r, 0);
}

/* ---- traffic: ring allreduce ------------------------------------------
 * Each rank, per channel: reduce-scatter, P-1 ops of one chunk with two
 * sources (3 chunk-lengths each: two reads, one write), then all-gather,
 * P-1 copies (2 each). With count = P x chunk: 5(P-1)/P x bytes per rank.
 * For any count, summed over ranks: the reduce-scatter of rank r covers
 * every chunk but one (r's own), so each chunk is covered by P-1 ranks,
 * and likewise the all-gather: 5(P-1) x bytes in all. */

static void test_ring_allreduce_per_rank(void **state)
{
	/* count = P x nchan x nslices x 100: every chunk and slice is even */
	csg_plan_t p1 = plan(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 8, 0, 8192, 4,
			     1, 1);
	csg_plan_t p2 = plan(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 8, 0, 9600, 4,
			     3, 4);
	int r;

	(void)state;
	for (r = 0; r < 8; r++) {
		assert_int_equal(gb_traffic_rank(&p1, r, 4), 5 * 7 * 32768 / 8);
		assert_int_equal(gb_traffic_rank(&p2, r, 4), 5 * 7 * 38400 / 8);
	}
	assert_int_equal(gb_traffic(&p1, 4), 5 * 7 * 32768);
	assert_int_equal(gb_traffic(&p2, 4), 5 * 7 * 38400);
}

static void test_ring_allreduce_any_count(void **state)
{
	static const struct {
		int P, nchan, nslices, inplace;
		size_t n, esize;
	} c[] = {
		{ 7, 2, 3, 0, 1000, 4 }, /* count % P != 0 */
		{ 8, 1, 1, 0, 3, 4 },    /* count < P */
		{ 8, 4, 2, 0, 3, 2 },    /* count < channels x P */
		{ 2, 1, 1, 1, 1001, 2 }, /* in place: the same ops */
		{ 64, 5, 7, 0, 100003, 8 },
		{ 5, 2, 2, 0, 0, 4 },    /* count 0: nothing */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		csg_plan_t p = plan(CS_COLL_ALLREDUCE, CSG_ALGO_RING, c[i].P,
				    c[i].inplace, c[i].n, c[i].esize,
				    c[i].nchan, c[i].nslices);

		assert_int_equal(gb_traffic(&p, c[i].esize),
				 5 * (uint64_t)(c[i].P - 1) * c[i].n *
					 c[i].esize);
	}
}

/* P = 1: one local op, one read and one write of the whole buffer. */
static void test_single_rank(void **state)
{
	csg_plan_t ar = plan(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 1, 0, 1000, 4,
			     2, 3);
	csg_plan_t ag = plan(CS_COLL_ALLGATHER, CSG_ALGO_RING, 1, 0, 1000, 4,
			     2, 3);
	csg_plan_t agi = plan(CS_COLL_ALLGATHER, CSG_ALGO_RING, 1, 1, 1000, 4,
			      2, 3);

	(void)state;
	assert_int_equal(gb_traffic(&ar, 4), 2 * 4000);
	assert_int_equal(gb_traffic(&ag, 4), 2 * 4000);
	assert_int_equal(gb_traffic(&agi, 4), 0); /* in place: nothing moves */
}

/* ---- traffic: ring allgather ------------------------------------------
 * Every rank ends with P blocks of sendcount n in its receive buffer; out
 * of place each is written once and read once from where it lies: 2 x P x
 * n x esize = 2 x size per rank. In place, the own block is already there:
 * 2 x (P-1) x n x esize. The ring moves exactly this. */

static void test_ring_allgather(void **state)
{
	csg_plan_t oop = plan(CS_COLL_ALLGATHER, CSG_ALGO_RING, 8, 0, 1000, 2,
			      3, 2);
	csg_plan_t inp = plan(CS_COLL_ALLGATHER, CSG_ALGO_RING, 8, 1, 1000, 2,
			      3, 2);
	int r;

	(void)state;
	for (r = 0; r < 8; r++) {
		assert_int_equal(gb_traffic_rank(&oop, r, 2), 2 * 8 * 1000 * 2);
		assert_int_equal(gb_traffic_rank(&inp, r, 2), 2 * 7 * 1000 * 2);
	}
	assert_int_equal(gb_traffic(&oop, 2), 8 * 2 * 8 * 1000 * 2);
	assert_int_equal(gb_traffic(&inp, 2), 8 * 2 * 7 * 1000 * 2);
}

/* ---- traffic: double binary tree allreduce ------------------------------
 * Per half h of the data: going up, each of the P nodes reads its input
 * and each child's partial and writes one (P + (P-1) reads, P writes);
 * going down, each of the P-1 non-roots reads its parent's and writes
 * (2(P-1)). (5P-3) x h per half, whatever the tree's shape, so (5P-3) x
 * bytes in all. */

static void test_tree_allreduce(void **state)
{
	csg_plan_t a = plan(CS_COLL_ALLREDUCE, CSG_ALGO_TREE, 5, 0, 1001, 4,
			    1, 1);
	csg_plan_t b = plan(CS_COLL_ALLREDUCE, CSG_ALGO_TREE, 8, 0, 4096, 4,
			    3, 5);
	csg_plan_t c = plan(CS_COLL_ALLREDUCE, CSG_ALGO_TREE, 2, 0, 7, 2, 1,
			    2);

	(void)state;
	assert_int_equal(gb_traffic(&a, 4), (5 * 5 - 3) * 4004);
	assert_int_equal(gb_traffic(&b, 4), (5 * 8 - 3) * 16384);
	assert_int_equal(gb_traffic(&c, 2), (5 * 2 - 3) * 14);
}

/* ---- per device: rank r on device r mod ndev --------------------------- */

static void test_traffic_dev(void **state)
{
	csg_plan_t p = plan(CS_COLL_ALLREDUCE, CSG_ALGO_RING, 8, 0, 8192, 4,
			    1, 1);
	uint64_t one = 5 * 7 * 32768 / 8; /* per rank, derived above */
	int d;

	(void)state;
	assert_int_equal(gb_traffic_dev(&p, 4, 1, 0), 8 * one);
	for (d = 0; d < 8; d++)
		assert_int_equal(gb_traffic_dev(&p, 4, 8, d), one);
	assert_int_equal(gb_traffic_dev(&p, 4, 3, 0), 3 * one); /* 0 3 6 */
	assert_int_equal(gb_traffic_dev(&p, 4, 3, 2), 2 * one); /* 2 5 */
	assert_int_equal(gb_traffic_dev(&p, 4, 3, 3), 0);
	assert_int_equal(gb_traffic_dev(&p, 4, 0, 0), 0);
	assert_int_equal(gb_traffic_dev(NULL, 4, 1, 0), 0);
	assert_int_equal(gb_traffic_rank(&p, 8, 4), 0);
	assert_int_equal(gb_traffic_rank(&p, -1, 4), 0);
	assert_int_equal(gb_traffic(NULL, 4), 0);
}

/* ---- byte counts --------------------------------------------------------- */

static void test_parse_size(void **state)
{
	static const char *bad[] = { "", "K", "-1", "+1", " 1", "1X", "1KB",
				     "1 K", "0x10" };
	size_t v, i;

	(void)state;
	assert_int_equal(gb_parse_size("1K", &v), CS_OK);
	assert_int_equal(v, 1024);
	assert_int_equal(gb_parse_size("64m", &v), CS_OK);
	assert_int_equal(v, 64 << 20);
	assert_int_equal(gb_parse_size("1G", &v), CS_OK);
	assert_int_equal(v, (size_t)1 << 30);
	assert_int_equal(gb_parse_size("4096", &v), CS_OK);
	assert_int_equal(v, 4096);
	assert_int_equal(gb_parse_size("0", &v), CS_OK);
	assert_int_equal(v, 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(gb_parse_size(bad[i], &v), CS_ERR_INVALID);
	assert_int_equal(gb_parse_size(NULL, &v), CS_ERR_INVALID);
	assert_int_equal(gb_parse_size("99999999999999999999", &v),
			 CS_ERR_OVERFLOW);
	assert_int_equal(gb_parse_size("17179869184G", &v), CS_ERR_OVERFLOW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_factor_values),
		cmocka_unit_test(test_factor_refused),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_ring_allreduce_per_rank),
		cmocka_unit_test(test_ring_allreduce_any_count),
		cmocka_unit_test(test_single_rank),
		cmocka_unit_test(test_ring_allgather),
		cmocka_unit_test(test_tree_allreduce),
		cmocka_unit_test(test_traffic_dev),
		cmocka_unit_test(test_parse_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
