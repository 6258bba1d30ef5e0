/*
 * pkern.c - the patterns' local arithmetic (csref/pkern.h): one fixed
 * loop per output element in the accumulation type, one rounding.
 */
#include <math.h>
#include "csref/arith.h"
#include "csref/pkern.h"

/* How a dtype accumulates. */
enum acc { ACC_F32, ACC_F64, ACC_INT };

static enum acc acc_of(cs_dtype_t d)
{
	if (!cs_dtype_is_float(d))
		return ACC_INT;
	return cs_dtype_size(d) == 8 ? ACC_F64 : ACC_F32;
}

double cs_pk_get(cs_dtype_t d, const void *buf, size_t i)
{
	uint64_t b = cs_load(d, buf, i);
	if (cs_is_float(d))
		return cs_to_f64(d, b);
	return (double)cs_int_value(d, b);
}

/* The integer x wrapped to d's width, as bits. */
static uint64_t int_bits(cs_dtype_t d, int64_t x)
{
	return (uint64_t)x & cs_bits_mask(d);
}

void cs_pk_set(cs_dtype_t d, void *buf, size_t i, double x)
{
	if (cs_is_float(d)) {
		cs_store(d, buf, i, cs_from_f64(d, x, 0));
		return;
	}
	int64_t v = (isfinite(x) && fabs(x) < 9.2e18) ? (int64_t)x : 0;
	cs_store(d, buf, i, int_bits(d, v));
}

double cs_pk_round(cs_dtype_t d, double x)
{
	uint64_t b = 0;
	cs_pk_set(d, &b, 0, x);
	return cs_pk_get(d, &b, 0);
}

/* Element (i, l) of op(A) with op(A) of k columns, stored m x k or, when
 * transposed, k x m. */
static inline size_t at(size_t i, size_t l, size_t rows, size_t cols, int t)
{
	return t ? l * rows + i : i * cols + l;
}

void cs_pk_matmul(cs_dtype_t d, size_t m, size_t n, size_t k, const void *A,
		  int ta, const void *B, int tb, void *C)
{
	enum acc acc = acc_of(d);
#pragma omp parallel for schedule(static) if (m * n * k > 65536)
	for (size_t ij = 0; ij < m * n; ij++) {
		size_t i = ij / n, j = ij % n;
		if (acc == ACC_INT) {
			uint64_t s = 0; /* wrapped: modulo 2^64, then 2^bits */
			for (size_t l = 0; l < k; l++) {
				int64_t a = cs_int_value(
				    d, cs_load(d, A, at(i, l, m, k, ta)));
				int64_t b = cs_int_value(
				    d, cs_load(d, B, at(l, j, k, n, tb)));
				s += (uint64_t)a * (uint64_t)b;
			}
			cs_store(d, C, ij, s & cs_bits_mask(d));
		} else if (acc == ACC_F64) {
			double s = 0;
			for (size_t l = 0; l < k; l++)
				s += cs_pk_get(d, A, at(i, l, m, k, ta)) *
				     cs_pk_get(d, B, at(l, j, k, n, tb));
			cs_pk_set(d, C, ij, s);
		} else {
			float s = 0;
			for (size_t l = 0; l < k; l++)
				s += (float)cs_pk_get(d, A, at(i, l, m, k, ta)) *
				     (float)cs_pk_get(d, B, at(l, j, k, n, tb));
			cs_pk_set(d, C, ij, (double)s);
		}
	}
}

void cs_pk_relu(cs_dtype_t d, void *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cs_pk_get(d, x, i) < 0)
			cs_pk_set(d, x, i, 0);
}

void cs_pk_relu_bwd(cs_dtype_t d, void *g, const void *pre, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(cs_pk_get(d, pre, i) > 0))
			cs_pk_set(d, g, i, 0);
}

/* a + b in the accumulation type, rounded once to d. */
static void add_into(cs_dtype_t d, void *y, size_t i, double b)
{
	enum acc acc = acc_of(d);
	double a = cs_pk_get(d, y, i);
	if (acc == ACC_INT) {
		uint64_t s = (uint64_t)(int64_t)a + (uint64_t)(int64_t)b;
		cs_store(d, y, i, s & cs_bits_mask(d));
	} else if (acc == ACC_F64) {
		cs_pk_set(d, y, i, a + b);
	} else {
		cs_pk_set(d, y, i, (double)((float)a + (float)b));
	}
}

void cs_pk_add_rowbias(cs_dtype_t d, void *Y, const void *b, size_t rows,
		       size_t cols)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			add_into(d, Y, i * cols + j, cs_pk_get(d, b, j));
}

void cs_pk_colsum(cs_dtype_t d, const void *G, size_t rows, size_t cols,
		  void *db)
{
	enum acc acc = acc_of(d);
	for (size_t j = 0; j < cols; j++) {
		if (acc == ACC_INT) {
			uint64_t s = 0;
			for (size_t i = 0; i < rows; i++)
				s += (uint64_t)cs_int_value(
				    d, cs_load(d, G, i * cols + j));
			cs_store(d, db, j, s & cs_bits_mask(d));
		} else if (acc == ACC_F64) {
			double s = 0;
			for (size_t i = 0; i < rows; i++)
				s += cs_pk_get(d, G, i * cols + j);
			cs_pk_set(d, db, j, s);
		} else {
			float s = 0;
			for (size_t i = 0; i < rows; i++)
				s += (float)cs_pk_get(d, G, i * cols + j);
			cs_pk_set(d, db, j, (double)s);
		}
	}
}
