/*
 * test_mpiref_large.c - the MPI reference beyond 2^31 elements (label
 * `large`, NP 2, about 8 GiB of memory in all).
 *
 *  - sendrecv, int8, count 2^31 + 5, out of place: 2048+ chunked exchanges
 *    whose offsets pass INT_MAX; the send buffer must be unchanged.
 *  - allgather, int8, sendcount 2^31 + 5, in place: every block is one
 *    message above INT_MAX bytes, cut into 1 GiB pieces.
 *
 * Every received element is compared with the generator (cs_gen_input),
 * guard bytes on both sides of each buffer are checked, and windows around
 * every 1 GiB piece boundary and at the end also go through the oracle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <mpi.h>
#include "csref/arith.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/mpiref.h"
#include "csref/oracle.h"

#define GUARD 64
#define BIG (((size_t)1 << 31) + 5)

/* A byte buffer of n bytes between two guards of a known pattern. */
static unsigned char *guarded_new(size_t n)
{
	unsigned char *base = malloc(n + 2 * GUARD);
	int i;

	if (!base)
		return NULL;
	for (i = 0; i < GUARD; i++) {
		base[i] = (unsigned char)(0xa5 ^ i);
		base[GUARD + n + i] = (unsigned char)(0x5a ^ i);
	}
	return base + GUARD;
}

static int guards_intact(const unsigned char *p, size_t n)
{
	int i;

	for (i = 0; i < GUARD; i++)
		if (p[i - GUARD] != (unsigned char)(0xa5 ^ i) ||
		    p[n + i] != (unsigned char)(0x5a ^ i))
			return 0;
	return 1;
}

/* Elements j of buf that differ from input element src_index(j) of rank
 * src_rank(j): for allgather j / n and j % n, for a plain copy (q, j). */
static size_t count_wrong(const cs_case_t *c, const unsigned char *buf,
			  size_t len, size_t n, int fixed_rank)
{
	size_t wrong = 0;
	long long j;

#pragma omp parallel for schedule(static) reduction(+ : wrong)
	for (j = 0; j < (long long)len; j++) {
		size_t k = (size_t)j;
		int q = fixed_rank >= 0 ? fixed_rank : (int)(k / n);

		wrong += buf[k] != (unsigned char)cs_gen_input(c, q, k % n);
	}
	return wrong;
}

/* The oracle on [lo, lo + m) of rank's receive buffer. */
static size_t oracle_wrong(const cs_case_t *c, int rank, const void *buf,
			   size_t lo, size_t m)
{
	cs_golden_t *g = malloc(m * sizeof *g);
	cs_cmp_summary_t s;

	assert_non_null(g);
	cs_cmp_summary_init(&s);
	assert_int_equal(cs_oracle_expect(c, rank, lo, m, NULL, g), CS_OK);
	cs_compare_range(c->dtype, g, (const unsigned char *)buf + lo, m, lo, &s);
	free(g);
	return s.n_wrong;
}

/* Windows of 4096 around every 1 GiB boundary of each block and at the
 * end of the receive buffer. */
static size_t oracle_windows(const cs_case_t *c, int rank, const void *buf,
			     size_t len, size_t block)
{
	const size_t w = 4096, gib = (size_t)1 << 30;
	size_t b, k, wrong = 0;

	for (b = 0; b < len; b += block)
		for (k = gib; k < block; k += gib)
			wrong += oracle_wrong(c, rank, buf, b + k - w,
					      len - (b + k - w) < 2 * w ?
					      len - (b + k - w) : 2 * w);
	return wrong + oracle_wrong(c, rank, buf, len - w, w);
}

/* Sum a local failure count over all ranks. */
static size_t agree(size_t bad)
{
	unsigned long long mine = bad, all = 0;

	MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	return (size_t)all;
}

static void test_sendrecv_large(void **state)
{
	cs_case_t c = {CS_COLL_SENDRECV, CS_DTYPE_INT8, CS_OP_NONE,
		       CS_MODE_RANDOM, 2, 0, BIG, 7, NULL, 0};
	unsigned char *s, *r;
	size_t bad = 0;
	int me;

	(void)state;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	assert_int_equal(cs_case_validate(&c), CS_OK);
	s = guarded_new(BIG);
	r = guarded_new(BIG);
	assert_true(agree(!s || !r) == 0);
	cs_gen_fill(&c, me, s, 0, BIG);
	memset(r, 0xee, BIG);
	bad += cs_mpiref_sendrecv(s, r, BIG, c.dtype, MPI_COMM_WORLD) != CS_OK;
	bad += !guards_intact(s, BIG) || !guards_intact(r, BIG);
	bad += count_wrong(&c, r, BIG, BIG, 1 - me);
	bad += count_wrong(&c, s, BIG, BIG, me); /* send buffer unchanged */
	bad += oracle_windows(&c, me, r, BIG, BIG);
	if (bad)
		fprintf(stderr, "rank %d: sendrecv of 2^31+5 int8: %zu failures\n",
			me, bad);
	free(s - GUARD);
	free(r - GUARD);
	assert_true(agree(bad) == 0);
}

static void test_allgather_large(void **state)
{
	cs_case_t c = {CS_COLL_ALLGATHER, CS_DTYPE_INT8, CS_OP_NONE,
		       CS_MODE_RANDOM, 2, 0, BIG, 11, NULL, 0};
	unsigned char *r;
	size_t bad = 0;
	int me;

	(void)state;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	assert_int_equal(cs_case_validate(&c), CS_OK);
	r = guarded_new(2 * BIG);
	assert_true(agree(!r) == 0);
	memset(r, 0xee, 2 * BIG);
	cs_gen_fill(&c, me, r + (size_t)me * BIG, 0, BIG);
	bad += cs_mpiref_allgather(r + (size_t)me * BIG, r, BIG, c.dtype,
				   MPI_COMM_WORLD) != CS_OK;
	bad += !guards_intact(r, 2 * BIG);
	bad += count_wrong(&c, r, 2 * BIG, BIG, -1);
	bad += oracle_windows(&c, me, r, 2 * BIG, BIG);
	if (bad)
		fprintf(stderr, "rank %d: allgather of 2^31+5 int8: %zu failures\n",
			me, bad);
	free(r - GUARD);
	assert_true(agree(bad) == 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sendrecv_large),
		cmocka_unit_test(test_allgather_large),
	};
	int rank, P, failed, any;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	if (P != 2) {
		if (rank == 0)
			fprintf(stderr, "test_mpiref_large runs on 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	if (rank != 0 && !freopen("/dev/null", "w", stdout))
		return 2;
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any ? 1 : 0;
}
