/* test_catalog.c - the generated catalog tables and name parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "csref/catalog.h"

static void test_names_roundtrip(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < CS_NUM_COLLS; i++) {
		cs_coll_t c;
		assert_int_equal(cs_coll_parse(cs_coll_name(i), &c), CS_OK);
		assert_int_equal(c, i);
	}
	for (i = 0; i < CS_NUM_DTYPES; i++) {
		cs_dtype_t d;
		assert_int_equal(cs_dtype_parse(cs_dtype_name(i), &d), CS_OK);
		assert_int_equal(d, i);
	}
	for (i = 0; i < CS_NUM_OPS; i++) {
		cs_op_t o;
		assert_int_equal(cs_op_parse(cs_op_name(i), &o), CS_OK);
		assert_int_equal(o, i);
	}
	for (i = 0; i < CS_NUM_MODES; i++) {
		cs_mode_t m;
		assert_int_equal(cs_mode_parse(cs_mode_name(i), &m), CS_OK);
		assert_int_equal(m, i);
	}
}

static void test_catalog_counts(void **state)
{
	(void)state;
	/* The spec's catalog: 10 collectives, 12 dtypes, 6 ops, 3 modes. */
	assert_int_equal(CS_NUM_COLLS, 10);
	assert_int_equal(CS_NUM_DTYPES, 12);
	assert_int_equal(CS_NUM_OPS, 6);
	assert_int_equal(CS_NUM_MODES, 3);
	assert_string_equal(cs_dtype_nccl_name(CS_DTYPE_BFLOAT16), "ncclBfloat16");
	assert_int_equal(cs_dtype_size(CS_DTYPE_FLOAT8_E4M3), 1);
	assert_int_equal(cs_dtype_size(CS_DTYPE_UINT64), 8);
	assert_true(cs_coll_rooted(CS_COLL_SCATTER));
	assert_false(cs_coll_rooted(CS_COLL_SENDRECV));
	assert_true(cs_coll_reduces(CS_COLL_REDUCESCATTER));
	assert_false(cs_coll_reduces(CS_COLL_ALLTOALLV));
}

static void test_unknown_name_lists_valid(void **state)
{
	cs_dtype_t d;
	cs_coll_t c;
	cs_op_t o;

	(void)state;
	assert_int_equal(cs_dtype_parse("fp17", &d), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "'fp17'"));
	assert_non_null(strstr(cs_last_error(), "float8_e4m3"));
	assert_non_null(strstr(cs_last_error(), "int8 uint8"));
	assert_int_equal(cs_coll_parse("allreduse", &c), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "sendrecv"));
	assert_int_equal(cs_op_parse("mean", &o), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "premulsum"));
	assert_int_equal(cs_op_parse("none", &o), CS_OK);
	assert_int_equal(o, CS_OP_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_roundtrip),
		cmocka_unit_test(test_catalog_counts),
		cmocka_unit_test(test_unknown_name_lists_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
