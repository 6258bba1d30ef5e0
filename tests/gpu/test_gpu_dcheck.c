/*
 * test_gpu_dcheck.c - the value check where the data is on a CUDA device
 * (gpu/src/dcheck.cu) against the CPU grid executor (ref/dcheck.c), which
 * tests/unit/test_dcheck.c holds to the host oracle: for covered cases of
 * every map (data movement, integer reductions), on a device buffer
 * holding the oracle's bits and then with elements wrong at the places a
 * sloppy kernel would miss (the last element, the first of the grid's
 * last block, the last of its first block), the kernel's merged result
 * equals the executor's, field for field, for several grid shapes.
 * Without a device: prints "SKIP: no CUDA device" and exits 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csgpu/dcheck.h"
#include "csgpu/device.h"
#include "csref/arith.h"
#include "csref/case.h"
#include "csref/catalog.h"
#include "csref/dcheck.h"
#include "csref/oracle.h"

struct gcase {
	cs_coll_t coll;
	cs_dtype_t dtype;
	cs_op_t op;
	int P, rank, root;
	size_t count;
};

static const struct gcase gcases[] = {
	{CS_COLL_ALLGATHER, CS_DTYPE_UINT8, CS_OP_NONE, 8, 5, 0, 300001},
	{CS_COLL_ALLTOALL, CS_DTYPE_INT32, CS_OP_NONE, 4, 3, 0, 65537},
	{CS_COLL_BROADCAST, CS_DTYPE_FLOAT16, CS_OP_NONE, 3, 1, 2, 1000003},
	{CS_COLL_SCATTER, CS_DTYPE_BFLOAT16, CS_OP_NONE, 5, 4, 1, 7},
	{CS_COLL_SENDRECV, CS_DTYPE_FLOAT64, CS_OP_NONE, 6, 2, 0, 4099},
	{CS_COLL_ALLREDUCE, CS_DTYPE_INT64, CS_OP_PROD, 7, 6, 0, 262147},
	{CS_COLL_REDUCESCATTER, CS_DTYPE_UINT32, CS_OP_PREMULSUM, 4, 3, 0, 90001},
	{CS_COLL_REDUCE, CS_DTYPE_INT8, CS_OP_AVG, 5, 2, 2, 1025},
};

static void same_result(const cs_dcheck_res_t *a, const cs_dcheck_res_t *b)
{
	uint32_t k;

	assert_int_equal(a->checked, b->checked);
	assert_int_equal(a->wrong, b->wrong);
	assert_int_equal(a->nfirst, b->nfirst);
	for (k = 0; k < a->nfirst; k++)
		assert_int_equal(a->first[k], b->first[k]);
}

/* The kernel and the executor on the same bytes, for several grids. */
static void compare_grids(const cs_dcheck_desc_t *d, const void *host,
			  const void *dev, uint64_t n)
{
	static const uint64_t shapes[][2] = {{1, 1}, {3, 32}, {1024, 256},
					     {7, 256}, {0, 0}};
	cs_dcheck_res_t h, g;
	size_t s;

	for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		uint64_t B = shapes[s][0], T = shapes[s][1];
		if (!B)
			cs_dcheck_grid_shape(n, &B, &T);
		assert_int_equal(cs_dcheck_grid_host(d, host, 0, n, B, T, &h), 0);
		assert_int_equal(cs_dev_dcheck(0, NULL, d, dev, 0, n, B, T, &g),
				 CS_OK);
		same_result(&h, &g);
	}
}

static void one_case(const struct gcase *x)
{
	cs_case_t c = {0};
	cs_dcheck_desc_t d;
	cs_golden_t *g;
	unsigned char *buf;
	void *dev = NULL;
	uint64_t B, T, C, bad[3];
	size_t n, es, k;

	c.coll = x->coll;
	c.dtype = x->dtype;
	c.op = x->op;
	c.mode = CS_MODE_RANDOM;
	c.nranks = x->P;
	c.root = x->root;
	c.count = x->count;
	c.seed = 99;
	assert_int_equal(cs_case_validate(&c), CS_OK);
	assert_int_equal(cs_dcheck_desc_init(&c, x->rank, &d), 1);
	n = cs_case_recv_count(&c, x->rank);
	es = cs_dtype_size(c.dtype);
	g = malloc(sizeof *g * n);
	buf = malloc(n * es);
	assert_non_null(g);
	assert_non_null(buf);
	assert_int_equal(cs_oracle_expect(&c, x->rank, 0, n, NULL, g), CS_OK);
	for (k = 0; k < n; k++)
		cs_store(c.dtype, buf, k, g[k].bits);
	assert_int_equal(cs_dev_alloc(0, n * es, &dev), CS_OK);
	assert_int_equal(cs_dev_put(0, dev, buf, n * es), CS_OK);
	compare_grids(&d, buf, dev, n);
	cs_dcheck_grid_shape(n, &B, &T);
	C = (n + B - 1) / B;
	bad[0] = n - 1;
	bad[1] = C * (B - 1) < n ? C * (B - 1) : 0;
	bad[2] = C - 1 < n ? C - 1 : 0;
	for (k = 0; k < 3; k++)
		if (k == 0 || (bad[k] != bad[0] && (k < 2 || bad[2] != bad[1])))
			cs_store(c.dtype, buf, bad[k],
				 cs_load(c.dtype, buf, bad[k]) ^ 1);
	assert_int_equal(cs_dev_put(0, dev, buf, n * es), CS_OK);
	compare_grids(&d, buf, dev, n);
	cs_dev_free(0, dev);
	free(buf);
	free(g);
}

static void test_kernel_vs_executor(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof gcases / sizeof gcases[0]; i++)
		one_case(&gcases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_vs_executor),
	};

	if (cs_dev_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
