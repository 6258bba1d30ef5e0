/*
 * test_catalog_abi.c - the catalog's enumerator values are plugin ABI, and
 * the facts arith.h generates from the catalog's columns are right.
 *
 * ABI: a plugin compiled against spec/cs_catalog.h receives these numbers
 * (backend.h). Every value below is written by hand from the catalog's
 * order when the ABI was fixed; reordering, inserting or removing a line
 * of an X-macro list changes one of them and fails this test. New entries
 * go at the end of a list (their values are then pinned here too).
 *
 * Columns: cs_size_of, cs_is_float, cs_is_signed_int and cs_fmt_of are
 * compared with tables written by hand from the formats' definitions
 * (IEEE 754 binary16/32/64, bfloat16, OCP FP8 E4M3 and E5M2), and every
 * float row's prec, emin, emax, ebits, fn and bytes are checked against
 * each other (they describe one encoding).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "csref/arith.h"
#include "csref/catalog.h"

static void test_coll_values(void **state)
{
	(void)state;
	assert_int_equal(CS_COLL_ALLREDUCE, 0);
	assert_int_equal(CS_COLL_ALLGATHER, 1);
	assert_int_equal(CS_COLL_REDUCESCATTER, 2);
	assert_int_equal(CS_COLL_ALLTOALL, 3);
	assert_int_equal(CS_COLL_ALLTOALLV, 4);
	assert_int_equal(CS_COLL_BROADCAST, 5);
	assert_int_equal(CS_COLL_REDUCE, 6);
	assert_int_equal(CS_COLL_GATHER, 7);
	assert_int_equal(CS_COLL_SCATTER, 8);
	assert_int_equal(CS_COLL_SENDRECV, 9);
	assert_true(CS_NUM_COLLS >= 10); /* counts grow; not ABI */
}

static void test_dtype_values(void **state)
{
	(void)state;
	assert_int_equal(CS_DTYPE_INT8, 0);
	assert_int_equal(CS_DTYPE_UINT8, 1);
	assert_int_equal(CS_DTYPE_INT32, 2);
	assert_int_equal(CS_DTYPE_UINT32, 3);
	assert_int_equal(CS_DTYPE_INT64, 4);
	assert_int_equal(CS_DTYPE_UINT64, 5);
	assert_int_equal(CS_DTYPE_FLOAT16, 6);
	assert_int_equal(CS_DTYPE_BFLOAT16, 7);
	assert_int_equal(CS_DTYPE_FLOAT32, 8);
	assert_int_equal(CS_DTYPE_FLOAT64, 9);
	assert_int_equal(CS_DTYPE_FLOAT8_E4M3, 10);
	assert_int_equal(CS_DTYPE_FLOAT8_E5M2, 11);
	assert_true(CS_NUM_DTYPES >= 12);
}

static void test_op_mode_kind_values(void **state)
{
	(void)state;
	assert_int_equal(CS_OP_SUM, 0);
	assert_int_equal(CS_OP_PROD, 1);
	assert_int_equal(CS_OP_MAX, 2);
	assert_int_equal(CS_OP_MIN, 3);
	assert_int_equal(CS_OP_AVG, 4);
	assert_int_equal(CS_OP_PREMULSUM, 5);
	assert_true(CS_NUM_OPS >= 6);
	assert_int_equal(CS_MODE_EXACT, 0);
	assert_int_equal(CS_MODE_RANDOM, 1);
	assert_int_equal(CS_MODE_SPECIAL, 2);
	assert_true(CS_NUM_MODES >= 3);
	/* the kind numbers are public too (cs_catalog.h's macros) */
	assert_int_equal(CS_KIND_SINT, 0);
	assert_int_equal(CS_KIND_UINT, 1);
	assert_int_equal(CS_KIND_FLOAT, 2);
}

/* What each of today's dtypes is, by hand: size, float?, signed int?,
 * exponent field width, stored mantissa bits, FN encoding. */
static const struct want {
	cs_dtype_t d;
	int size, isf, sgn, ebits, mbits, fn;
} want[] = {
	{ CS_DTYPE_INT8, 1, 0, 1, 0, 0, 0 },
	{ CS_DTYPE_UINT8, 1, 0, 0, 0, 0, 0 },
	{ CS_DTYPE_INT32, 4, 0, 1, 0, 0, 0 },
	{ CS_DTYPE_UINT32, 4, 0, 0, 0, 0, 0 },
	{ CS_DTYPE_INT64, 8, 0, 1, 0, 0, 0 },
	{ CS_DTYPE_UINT64, 8, 0, 0, 0, 0, 0 },
	{ CS_DTYPE_FLOAT16, 2, 1, 0, 5, 10, 0 },
	{ CS_DTYPE_BFLOAT16, 2, 1, 0, 8, 7, 0 },
	{ CS_DTYPE_FLOAT32, 4, 1, 0, 8, 23, 0 },
	{ CS_DTYPE_FLOAT64, 8, 1, 0, 11, 52, 0 },
	{ CS_DTYPE_FLOAT8_E4M3, 1, 1, 0, 4, 3, 1 },
	{ CS_DTYPE_FLOAT8_E5M2, 1, 1, 0, 5, 2, 0 },
};

static void test_generated_facts(void **state)
{
	size_t i;

	(void)state;
	assert_int_equal(sizeof want / sizeof want[0], CS_NUM_DTYPES);
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct want *w = &want[i];
		cs_fmt_t f = cs_fmt_of(w->d);

		assert_int_equal(cs_size_of(w->d), w->size);
		assert_int_equal(cs_dtype_size(w->d), (size_t)w->size);
		assert_int_equal(cs_is_float(w->d), w->isf);
		assert_int_equal(cs_dtype_is_float(w->d), w->isf);
		assert_int_equal(cs_is_signed_int(w->d), w->sgn);
		assert_int_equal(f.ebits, w->ebits);
		assert_int_equal(f.mbits, w->mbits);
		assert_int_equal(f.fn, w->fn);
	}
	/* not a dtype: the neutral answers, never another dtype's */
	assert_int_equal(cs_size_of(CS_NUM_DTYPES), 0);
	assert_int_equal(cs_is_float(CS_NUM_DTYPES), 0);
	assert_int_equal(cs_is_signed_int(CS_NUM_DTYPES), 0);
}

/* Every float row describes one encoding: its columns must agree. */
static void test_float_columns_agree(void **state)
{
	int d;

	(void)state;
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		cs_fmt_t f = cs_fmt_of((cs_dtype_t)d);
		int bias, top;

		if (!cs_dtype_is_float((cs_dtype_t)d)) {
			assert_int_equal(cs_dtype_prec((cs_dtype_t)d), 0);
			continue;
		}
		bias = (1 << (f.ebits - 1)) - 1;
		/* the largest exponent field of a finite number: all ones is
		 * Inf/NaN, except in FN encodings (NaN is one pattern) */
		top = (1 << f.ebits) - 2 + f.fn;
		print_message("%s: ebits %d mbits %d fn %d\n",
			      cs_dtype_name((cs_dtype_t)d), f.ebits, f.mbits,
			      f.fn);
		assert_int_equal(8 * cs_dtype_size((cs_dtype_t)d),
				 1 + f.ebits + f.mbits);
		assert_int_equal(cs_dtype_prec((cs_dtype_t)d), f.mbits + 1);
		assert_int_equal(cs_dtype_emin((cs_dtype_t)d), 1 - bias);
		assert_int_equal(cs_dtype_emax((cs_dtype_t)d), top - bias);
	}
}

/* Sign extension follows the size column (cs_int_value). */
static void test_int_value(void **state)
{
	(void)state;
	assert_true(cs_int_value(CS_DTYPE_INT8, 0xff) == -1);
	assert_true(cs_int_value(CS_DTYPE_UINT8, 0xff) == 255);
	assert_true(cs_int_value(CS_DTYPE_INT32, 0x80000000u) == INT32_MIN);
	assert_true(cs_int_value(CS_DTYPE_UINT32, 0x80000000u) == 0x80000000);
	assert_true(cs_int_value(CS_DTYPE_INT64, ~(uint64_t)0) == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coll_values),
		cmocka_unit_test(test_dtype_values),
		cmocka_unit_test(test_op_mode_kind_values),
		cmocka_unit_test(test_generated_facts),
		cmocka_unit_test(test_float_columns_agree),
		cmocka_unit_test(test_int_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
