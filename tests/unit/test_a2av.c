/*
 * test_a2av.c - the alltoallv count matrices (ref/a2av.c, csref/a2av.h):
 * each pattern's shape, stated in the header, checked on the matrix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "csref/a2av.h"

static void test_uniform_uneven(void **state)
{
	size_t M[64], M2[64], k;
	int zero = 0, over = 0;

	(void)state;
	cs_a2av_matrix(CS_A2AV_UNIFORM, 8, 10, 1, M);
	for (k = 0; k < 64; k++)
		assert_int_equal(M[k], 10);
	cs_a2av_matrix(CS_A2AV_UNEVEN, 8, 10, 1, M);
	cs_a2av_matrix(CS_A2AV_UNEVEN, 8, 10, 1, M2);
	assert_memory_equal(M, M2, sizeof M);
	for (k = 0; k < 64; k++) {
		assert_in_range(M[k], 0, 20);
		zero += M[k] < 10;
		over += M[k] > 10;
	}
	assert_true(zero > 0 && over > 0);
	cs_a2av_matrix(CS_A2AV_UNEVEN, 8, 10, 2, M2);
	assert_memory_not_equal(M, M2, sizeof M);
}

/* Whole rows (senders) and whole columns (receivers) of zeros, some. */
static void test_zerorows(void **state)
{
	size_t M[64];
	int zr = 0, zc = 0, s, d;

	(void)state;
	cs_a2av_matrix(CS_A2AV_ZEROROWS, 8, 10, 1, M);
	for (s = 0; s < 8; s++) {
		int row = 1, col = 1;
		for (d = 0; d < 8; d++) {
			row &= M[s * 8 + d] == 0;
			col &= M[d * 8 + s] == 0;
			assert_true(M[s * 8 + d] == 0 || M[s * 8 + d] == 10);
		}
		zr += row;
		zc += col;
	}
	assert_true(zr > 0 && zc > 0 && zr < 8 && zc < 8);
}

/* Mostly zero, the rest P*count; saturated where that overflows. */
static void test_sparse(void **state)
{
	size_t M[64], k;
	int zero = 0;

	(void)state;
	cs_a2av_matrix(CS_A2AV_SPARSE, 8, 10, 1, M);
	for (k = 0; k < 64; k++) {
		zero += M[k] == 0;
		assert_true(M[k] == 0 || M[k] == 80);
	}
	assert_true(zero > 32 && zero < 64);
	cs_a2av_matrix(CS_A2AV_SPARSE, 8, SIZE_MAX / 4, 1, M);
	for (k = 0; k < 64; k++)
		assert_true(M[k] == 0 || M[k] == SIZE_MAX);
}

/* Count 0 is 0 everywhere; a value that is not a pattern is uniform; P < 1
 * or no matrix writes nothing. */
static void test_edges(void **state)
{
	size_t M[64], k;
	int p;

	(void)state;
	for (p = 0; p < CS_NUM_A2AV; p++) {
		cs_a2av_matrix((cs_a2av_pattern_t)p, 8, 0, 3, M);
		for (k = 0; k < 64; k++)
			assert_int_equal(M[k], 0);
	}
	cs_a2av_matrix(CS_NUM_A2AV, 8, 7, 3, M);
	for (k = 0; k < 64; k++)
		assert_int_equal(M[k], 7);
	M[0] = 12345;
	cs_a2av_matrix(CS_A2AV_UNIFORM, 0, 7, 3, M);
	assert_int_equal(M[0], 12345);
	cs_a2av_matrix(CS_A2AV_UNIFORM, 8, 7, 3, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_uneven),
		cmocka_unit_test(test_zerorows),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
