/*
 * mpi_userops.h - the reduction functions of the `mpi` backend's
 * user-defined MPI ops: one per dtype that MPI has no datatype for
 * (float16, bfloat16, float8_e4m3, float8_e5m2) and per step op (sum,
 * prod, max, min; avg and premulsum reduce with sum, csref/reduce.h).
 *
 * Each has MPI_User_function's signature and sets, for i < *len,
 * inout[i] = in[i] OP inout[i], on elements of its dtype. The datatype
 * argument is not read (each function knows its dtype), so the functions
 * need no MPI runtime: a test calls them as MPI would.
 *
 * Every function is bit-commutative: in = a, inout = b and in = b,
 * inout = a leave the same bits in inout. The backend creates the ops
 * commutative (MPI_Op_create(fn, 1, ...)), which allows the library to
 * apply them with the operands in either order on different ranks, so
 * anything less would give ranks different bits (identity FAILs) that
 * are this backend's, not the library's. The rule per op:
 *  - sum, prod: cs_step, which is commutative as it stands: the exact
 *    sum or product of two values does not depend on their order, nor
 *    does the sign IEEE gives an exact zero (+0 for a sum unless both are
 *    -0, the exclusive or of the signs for a product), and rounding it to
 *    the dtype is a function of that value; the one order-dependent part of
 *    IEEE arithmetic, which NaN's payload propagates, does not arise since
 *    every NaN result is the canonical NaN.
 *  - max, min: the largest (smallest) input in a total order of the bit
 *    patterns: numbers by value, with -0 below +0; every NaN below (max)
 *    or above (min) every number, so a NaN is kept only when both inputs
 *    are NaNs (the ignore rule of spec/numerics.md, as cs_step); between
 *    two NaNs, the one whose bits are larger as an unsigned integer.
 *    Being a total order's maximum, max and min are also associative: the
 *    result of a reduction is one input, whatever the order and grouping.
 */
#ifndef CS_MPI_USEROPS_H
#define CS_MPI_USEROPS_H

#include <mpi.h>
#include "csref/catalog.h"

/*
 * The reduction function of the user op for step op `op` on dtype d; NULL
 * when there is none (d has a native MPI datatype here, or op is avg or
 * premulsum, which are not step ops). The function is static and lives as
 * long as the program.
 */
MPI_User_function *cs_mpi_userop(cs_dtype_t d, cs_op_t op);

#endif /* CS_MPI_USEROPS_H */
