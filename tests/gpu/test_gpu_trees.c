/*
 * test_gpu_trees.c - which ranks the double binary tree of csgpu/sched.h
 * makes inner nodes (docs/gpu.md, "Binary and double binary trees"), read
 * from the schedule's own neighbour function csg_tree_nbr_ at root 0:
 *   - no rank is an inner node of both trees, for any P;
 *   - even P: every rank is an inner node of exactly one tree (tree 1's
 *     inner nodes are tree 0's leaves and the other way round);
 *   - odd P: exactly one rank, (P-1)/2, is a leaf of both trees.
 * Worked by hand: P = 3, tree 0 is 0 -> {1, 2}, tree 1 (v = 2 - r) is
 * 2 -> {1, 0}: rank 1 is a leaf of both. P = 4, tree 0 inner {0, 1},
 * tree 1 (v = 3 - r) inner {3, 2}.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "csgpu/sched.h"

#define MAX_P 64

/* 1 when rank r has a child in tree `tree` of the allreduce plan over P. */
static int inner(int P, int tree, int r)
{
	csg_plan_t p = {.coll = CS_COLL_ALLREDUCE, .algo = CSG_ALGO_TREE,
			.P = P, .root = 0};

	return csg_tree_nbr_(&p, tree, r, 1) >= 0 ||
	       csg_tree_nbr_(&p, tree, r, 2) >= 0;
}

/* The ranks that are leaves of both trees at P, into both[]; their count. */
static int leaves_of_both(int P, int *both)
{
	int n = 0;

	for (int r = 0; r < P; r++) {
		int i0 = inner(P, 0, r), i1 = inner(P, 1, r);

		if (i0 && i1)
			fail_msg("P = %d: rank %d is inner in both trees", P,
				 r);
		if (!i0 && !i1)
			both[n++] = r;
	}
	return n;
}

static void test_hand_worked(void **state)
{
	int both[MAX_P];

	(void)state;
	assert_int_equal(leaves_of_both(3, both), 1);
	assert_int_equal(both[0], 1);
	assert_true(inner(4, 0, 0) && inner(4, 0, 1));
	assert_true(inner(4, 1, 3) && inner(4, 1, 2));
	assert_int_equal(leaves_of_both(4, both), 0);
}

static void test_every_p(void **state)
{
	int both[MAX_P];

	(void)state;
	for (int P = 1; P <= MAX_P; P++) {
		int n = leaves_of_both(P, both);

		if (P % 2 == 0 && n != 0)
			fail_msg("P = %d: %d ranks are leaves of both trees "
				 "(first %d), expected none", P, n, both[0]);
		if (P % 2 == 1 && (n != 1 || both[0] != (P - 1) / 2))
			fail_msg("P = %d: %d ranks are leaves of both trees "
				 "(first %d), expected rank %d alone", P, n,
				 n ? both[0] : -1, (P - 1) / 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_every_p),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
