/*
 * test_gpu_kernel_lookup.cu - which kernel libcsgpu's lookups
 * (gpu/src/lane_kernels.h) hand out, on the host, no device: the kernel
 * addresses are those of the host stubs.
 *   - every reducing collective an algorithm offers gets, for each
 *     (dtype, op), a kernel; ring and tree get the same one (each kernel
 *     is compiled once), and no two (dtype, op) share one;
 *   - every copying collective gets the kernel of its element size, the
 *     same for every algorithm and every dtype of that size, a different
 *     one for each size;
 *   - what an algorithm does not offer, and a bad dtype or op, get NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}
#include "cs_catalog.h"
#include "csgpu/sched.h"
#include "csref/catalog.h"
#include "lane_kernels.h"

/* The kernel of (coll, dtype, op) under algo, as runtime.cu picks it. */
static const void *kernel_of(csg_algo_t algo, cs_coll_t c, cs_dtype_t d,
			     cs_op_t op)
{
	switch (algo) {
	case CSG_ALGO_RING:
		return csg_ring_kernel(c, d, op);
	case CSG_ALGO_TREE:
		return csg_tree_kernel(c, d, op);
	case CSG_ALGO_DIRECT:
	case CSG_ALGO_PAIRWISE:
		if (c == CS_COLL_ALLTOALL || c == CS_COLL_ALLTOALLV)
			return csg_alltoall_kernel(c, d);
		return csg_direct_kernel(c, d);
	case CSG_ALGO_AUTO:
	case CSG_NUM_ALGOS:
	default:
		return NULL;
	}
}

static void test_reducing(void **state)
{
	const void *seen[CS_NUM_DTYPES * CS_NUM_OPS];
	int nseen = 0;

	(void)state;
	for (int d = 0; d < CS_NUM_DTYPES; d++) {
		for (int o = 0; o < CS_NUM_OPS; o++) {
			const void *k = NULL;

			for (int c = 0; c < CS_NUM_COLLS; c++) {
				if (!csg_reduces((cs_coll_t)c))
					continue;
				for (int a = 0; a < CSG_NUM_ALGOS; a++) {
					const void *g;

					if (a == CSG_ALGO_AUTO ||
					    !csg_algo_supports((csg_algo_t)a,
							       (cs_coll_t)c))
						continue;
					g = kernel_of((csg_algo_t)a,
						      (cs_coll_t)c,
						      (cs_dtype_t)d,
						      (cs_op_t)o);
					if (g == NULL)
						fail_msg("%s %s %s algo %d: no kernel",
							 cs_coll_name((cs_coll_t)c),
							 cs_dtype_name((cs_dtype_t)d),
							 cs_op_name((cs_op_t)o), a);
					if (k != NULL && g != k)
						fail_msg("%s %s %s algo %d: another kernel than the other collectives' and algorithms'",
							 cs_coll_name((cs_coll_t)c),
							 cs_dtype_name((cs_dtype_t)d),
							 cs_op_name((cs_op_t)o), a);
					k = g;
				}
			}
			assert_non_null(k);
			for (int i = 0; i < nseen; i++)
				if (seen[i] == k)
					fail_msg("%s %s: the kernel of an earlier (dtype, op)",
						 cs_dtype_name((cs_dtype_t)d),
						 cs_op_name((cs_op_t)o));
			seen[nseen++] = k;
		}
	}
	assert_int_equal(nseen, CS_NUM_DTYPES * CS_NUM_OPS);
}

static void test_copying(void **state)
{
	const void *by_size[9] = { NULL };

	(void)state;
	for (int c = 0; c < CS_NUM_COLLS; c++) {
		if (csg_reduces((cs_coll_t)c))
			continue;
		for (int a = 0; a < CSG_NUM_ALGOS; a++) {
			if (a == CSG_ALGO_AUTO ||
			    !csg_algo_supports((csg_algo_t)a, (cs_coll_t)c))
				continue;
			for (int d = 0; d < CS_NUM_DTYPES; d++) {
				size_t es = cs_size_of((cs_dtype_t)d);
				const void *g = kernel_of((csg_algo_t)a,
							  (cs_coll_t)c,
							  (cs_dtype_t)d,
							  CS_OP_SUM);

				assert_true(es >= 1 && es <= 8);
				if (g == NULL)
					fail_msg("%s %s algo %d: no kernel",
						 cs_coll_name((cs_coll_t)c),
						 cs_dtype_name((cs_dtype_t)d), a);
				if (by_size[es] != NULL && by_size[es] != g)
					fail_msg("%s %s algo %d: another kernel than for the other %zu-byte dtypes",
						 cs_coll_name((cs_coll_t)c),
						 cs_dtype_name((cs_dtype_t)d), a,
						 es);
				by_size[es] = g;
			}
		}
	}
	for (int i = 1; i <= 8; i++)
		for (int j = 1; j < i; j++)
			if (by_size[i] != NULL && by_size[i] == by_size[j])
				fail_msg("%d- and %d-byte elements share a kernel",
					 j, i);
}

static void test_refused(void **state)
{
	(void)state;
	/* what csgpu/sched.h says each algorithm does not offer */
	for (int c = 0; c < CS_NUM_COLLS; c++) {
		if (!csg_algo_supports(CSG_ALGO_RING, (cs_coll_t)c))
			assert_null(csg_ring_kernel((cs_coll_t)c,
						    CS_DTYPE_FLOAT32,
						    CS_OP_SUM));
		if (!csg_algo_supports(CSG_ALGO_TREE, (cs_coll_t)c))
			assert_null(csg_tree_kernel((cs_coll_t)c,
						    CS_DTYPE_FLOAT32,
						    CS_OP_SUM));
	}
	assert_null(csg_direct_kernel(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32));
	assert_null(csg_alltoall_kernel(CS_COLL_GATHER, CS_DTYPE_FLOAT32));
	assert_null(csg_lane_reduce_kernel(CS_NUM_DTYPES, CS_OP_SUM));
	assert_null(csg_lane_reduce_kernel(CS_DTYPE_FLOAT32, CS_NUM_OPS));
	assert_null(csg_lane_copy_kernel(CS_NUM_DTYPES));
	assert_null(csg_ring_kernel(CS_COLL_ALLREDUCE, CS_DTYPE_FLOAT32,
				    CS_NUM_OPS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reducing),
		cmocka_unit_test(test_copying),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
