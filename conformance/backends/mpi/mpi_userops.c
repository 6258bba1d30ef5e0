/*
 * mpi_userops.c - the `mpi` backend's user-defined reduction functions,
 * bit-commutative (see mpi_userops.h for the rule of each op).
 */
#include <stdint.h>
#include "backends/mpi/mpi_userops.h"
#include "csref/arith.h"

/* Position of a number's bits in value order, -0 just below +0 (the
 * encodings are sign-magnitude and, without NaNs, monotone in value). */
static int64_t value_key(uint64_t b, uint64_t sign)
{
	return (b & sign) ? -(int64_t)(b & ~sign) - 1 : (int64_t)b;
}

/* The larger (want_max) or smaller of a and b in the total order of
 * mpi_userops.h: NaNs lose to numbers; of two NaNs, the larger bits. */
static uint64_t pick(cs_dtype_t d, int want_max, uint64_t a, uint64_t b)
{
	cs_fmt_t f = cs_fmt_of(d);
	int na = cs_fmt_isnan(f, a), nb = cs_fmt_isnan(f, b);
	int64_t ka, kb;

	if (na && nb)
		return a > b ? a : b;
	if (na || nb)
		return na ? b : a;
	ka = value_key(a, cs_fmt_sign(f));
	kb = value_key(b, cs_fmt_sign(f));
	return (want_max ? ka > kb : ka < kb) ? a : b;
}

/* inout[i] = in[i] OP inout[i] for i < len. */
static void apply(cs_dtype_t d, cs_op_t op, const void *in, void *inout,
		  int len)
{
	int i;

#pragma omp parallel for if (len > 65536) schedule(static)
	for (i = 0; i < len; i++) {
		uint64_t a = cs_load(d, in, (size_t)i);
		uint64_t b = cs_load(d, inout, (size_t)i);

		if (op == CS_OP_MAX || op == CS_OP_MIN)
			b = pick(d, op == CS_OP_MAX, a, b);
		else
			b = cs_step(d, op, a, b);
		cs_store(d, inout, (size_t)i, b);
	}
}

/* The four MPI_User_functions of one dtype: NAME_sum, NAME_prod, ... */
#define CS_USEROP_FN(NAME, D, OP, op)                                         \
	static void NAME##_##op(void *in, void *inout, int *len,              \
				MPI_Datatype *dt)                             \
	{                                                                     \
		apply(D, CS_OP_##OP, in, inout, *len);                        \
	}
#define CS_USEROP_FNS(NAME, D)                                                \
	CS_USEROP_FN(NAME, D, SUM, sum)                                       \
	CS_USEROP_FN(NAME, D, PROD, prod)                                     \
	CS_USEROP_FN(NAME, D, MAX, max)                                       \
	CS_USEROP_FN(NAME, D, MIN, min)

CS_USEROP_FNS(f16, CS_DTYPE_FLOAT16)
CS_USEROP_FNS(bf16, CS_DTYPE_BFLOAT16)
CS_USEROP_FNS(e4m3, CS_DTYPE_FLOAT8_E4M3)
CS_USEROP_FNS(e5m2, CS_DTYPE_FLOAT8_E5M2)

#define CS_USEROP_ROW(NAME, D)                                                \
	[D] = { [CS_OP_SUM] = NAME##_sum, [CS_OP_PROD] = NAME##_prod,         \
		[CS_OP_MAX] = NAME##_max, [CS_OP_MIN] = NAME##_min }

static MPI_User_function *const userops[CS_NUM_DTYPES][CS_NUM_OPS] = {
	CS_USEROP_ROW(f16, CS_DTYPE_FLOAT16),
	CS_USEROP_ROW(bf16, CS_DTYPE_BFLOAT16),
	CS_USEROP_ROW(e4m3, CS_DTYPE_FLOAT8_E4M3),
	CS_USEROP_ROW(e5m2, CS_DTYPE_FLOAT8_E5M2),
};

MPI_User_function *cs_mpi_userop(cs_dtype_t d, cs_op_t op)
{
	if ((unsigned)d >= CS_NUM_DTYPES || (unsigned)op >= CS_NUM_OPS)
		return NULL;
	return userops[d][op];
}
