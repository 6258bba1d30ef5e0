/*
 * test_gpu_functor_tpl.cu - the C++ reduction functor cs_gpu_functor<D, O>
 * exactly as the kernels instantiate it (nvcc, __host__ __device__), run
 * on the host for every catalog dtype x op, against the reference buffer
 * arithmetic of csref/reduce.h (bit for bit, except that a NaN from float
 * arithmetic may be any NaN: cs_test_same). Needs no device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include <cmocka.h>
}
#include "csgpu/functor.h"
#include "csref/catalog.h"
#include "csref/reduce.h"
#include "gpu_test_pairs.h"

enum { N = 70000 }; /* > 65536: every 8-bit pair, then random ones */

static const int nranks_list[] = { 1, 3, 8 };

static void fail_elem(const char *what, cs_dtype_t d, cs_op_t op, size_t i,
		      uint64_t got, uint64_t want)
{
	fail_msg("%s %s %s, element %zu: functor gave 0x%llx, reference 0x%llx",
		 what, cs_dtype_name(d), cs_op_name(op), i,
		 (unsigned long long)got, (unsigned long long)want);
}

/* f(a[i], b[i]) against cs_reduce_bufs; f.pre(a[i]) against
 * cs_op_prepare; f.post(a[i]) against cs_op_finish. */
template <cs_dtype_t D, cs_op_t O>
static void check_functor(const void *a, const void *b, void *r,
			  int nranks, uint64_t scalar)
{
	typedef typename cs_gpu_functor<D, O>::elem_t elem_t;
	const cs_gpu_functor<D, O> f(nranks, scalar);
	const elem_t *x = (const elem_t *)a, *y = (const elem_t *)b;
	const elem_t *want = (const elem_t *)r;
	size_t size = cs_dtype_size(D), i;

	assert_int_equal(sizeof(elem_t), size);
	assert_int_equal((int)cs_gpu_dtype<D>::size, (int)size);
	memcpy(r, a, N * size);
	cs_reduce_bufs(D, O, r, b, N);
	for (i = 0; i < N; i++)
		if (!cs_test_same(D, O, f(x[i], y[i]), want[i]))
			fail_elem("step", D, O, i, f(x[i], y[i]), want[i]);
	cs_op_prepare(D, O, nranks, scalar, r, a, N);
	for (i = 0; i < N; i++)
		if (!cs_test_same(D, O, f.pre(x[i]), want[i]))
			fail_elem("pre", D, O, i, f.pre(x[i]), want[i]);
	memcpy(r, a, N * size);
	cs_op_finish(D, O, nranks, r, N);
	for (i = 0; i < N; i++)
		if (f.post(x[i]) != want[i])
			fail_elem("post", D, O, i, f.post(x[i]), want[i]);
}

/* Every op of dtype D, each with several rank counts and scalars. */
template <cs_dtype_t D>
static void check_dtype(void *a, void *b, void *r)
{
	uint64_t pat[CS_TEST_MAX_PATTERNS];
	size_t np = cs_test_patterns(D, pat), k;

	cs_test_fill_pairs(D, a, b, N, 3000 + D);
	for (k = 0; k < sizeof nranks_list / sizeof nranks_list[0]; k++) {
		uint64_t scalar = pat[(k * 5 + 4) % np];
#define CHECK_OP_(ID, ...)                                                  \
	check_functor<D, CS_OP_##ID>(a, b, r, nranks_list[k], scalar);
		CS_OP_LIST(CHECK_OP_)
#undef CHECK_OP_
	}
}

static void test_functor_all_dtype_op(void **state)
{
	void *a = malloc(N * 8), *b = malloc(N * 8), *r = malloc(N * 8);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(r);
#define CHECK_DTYPE_(ID, ...) check_dtype<CS_DTYPE_##ID>(a, b, r);
	CS_DTYPE_LIST(CHECK_DTYPE_)
#undef CHECK_DTYPE_
	free(a);
	free(b);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functor_all_dtype_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
