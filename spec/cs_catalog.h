/*
 * cs_catalog.h - the one machine-readable catalog of CollSpec.
 *
 * Every enumeration in the project (CLI names, case matrix, reports, GPU
 * template instantiations, the element arithmetic's per-dtype facts, the
 * MPI backend's datatype map, the example plugin's dtype table) is
 * generated from the X-macro lists below. Adding a dtype or an op is one
 * line here; the build then fails (with -Wswitch-enum, on in our builds) at
 * every switch that must decide what the new entry means, beginning with
 * its arithmetic in ref/include/csref/arith.h. tests/unit/catalog_extend.cmake
 * shows it: it adds a dtype and an op to a scratch copy of this file and
 * expects the build to fail, naming the places.
 *
 * Plugin ABI: the enumerators' VALUES (CS_COLL_*, CS_DTYPE_*, CS_OP_*,
 * CS_MODE_*: the position of each line in its list, from 0) are part of
 * the backend plugin ABI (conformance/include/collspec/backend.h). A
 * plugin compiled against this header receives these numbers from any
 * harness of the same ABI version. Add new entries at the END of a list;
 * never reorder, remove or insert lines (tests/unit/test_catalog_abi.c pins
 * every value), and bump CS_BACKEND_ABI_VERSION if a value must change.
 * The CS_NUM_* counts are not ABI: they grow with the lists.
 *
 * This header is plain C with no dependencies so that C, CUDA C and the
 * plugin ABI can all include it.
 */
#ifndef CS_CATALOG_H
#define CS_CATALOG_H

/*
 * Collectives: X(ID, name, rooted, reduces, "meaning")
 *   rooted  - 1 when the call takes a root rank
 *   reduces - 1 when the call combines values with a reduction op
 * The normative meaning of each is in spec/collectives.md.
 */
#define CS_COLL_LIST(X)                                                        \
  X(ALLREDUCE, allreduce, 0, 1,                                                \
    "every rank gets the elementwise reduction of all ranks' inputs")          \
  X(ALLGATHER, allgather, 0, 0,                                                \
    "every rank gets all ranks' inputs, concatenated in rank order")           \
  X(REDUCESCATTER, reducescatter, 0, 1,                                        \
    "rank r gets block r of the elementwise reduction")                        \
  X(ALLTOALL, alltoall, 0, 0,                                                  \
    "block j of rank i's input becomes block i of rank j's output")            \
  X(ALLTOALLV, alltoallv, 0, 0,                                                \
    "alltoall with per-pair counts and displacements")                         \
  X(BROADCAST, broadcast, 1, 0, "every rank gets the root's input")            \
  X(REDUCE, reduce, 1, 1, "the root gets the elementwise reduction")           \
  X(GATHER, gather, 1, 0,                                                      \
    "the root gets all ranks' inputs, concatenated in rank order")             \
  X(SCATTER, scatter, 1, 0, "rank r gets block r of the root's input")         \
  X(SENDRECV, sendrecv, 0, 0,                                                  \
    "rank r sends to r+1 and receives rank r-1's input (mod P)")

/*
 * Kinds of element type.
 */
#define CS_KIND_SINT 0  /* two's-complement signed integer */
#define CS_KIND_UINT 1  /* unsigned integer */
#define CS_KIND_FLOAT 2 /* binary floating point */

/*
 * Dtypes: X(ID, name, bytes, kind, prec, emin, emax, ebits, fn, nccl, mpi)
 *   bytes - storage size of one element
 *   kind  - CS_KIND_SINT, CS_KIND_UINT or CS_KIND_FLOAT (signedness, and
 *           whether the bits are a binary floating-point encoding)
 *   prec  - precision p in bits including the implicit bit (0 for integers);
 *           the unit roundoff is u = 2^-p; the stored mantissa is p-1 bits
 *   emin  - exponent of the smallest normal number, 2^emin
 *   emax  - exponent of the largest binade, max finite = (2 - 2^(1-p)) 2^emax
 *           except float8_e4m3, whose top mantissa pattern is NaN
 *   ebits - width of the exponent field (0 for integers);
 *           bytes * 8 == 1 + ebits + prec - 1 for every float
 *   fn    - 1 for an OCP "FN" encoding (no infinities, NaN only with every
 *           exponent and mantissa bit set), 0 for IEEE-style encodings
 *   nccl  - the ncclDataType_t enumerator with the same meaning
 *   mpi   - the predefined MPI datatype the mpi backend uses for it, or
 *           MPI_DATATYPE_NULL where MPI has none (the backend then reduces a
 *           contiguous byte type with user-defined ops); C-named aliases
 *           (MPI_INT, MPI_UNSIGNED_LONG, ...) are the backend's ctypes option
 * The nccl and mpi columns are tokens, expanded only where nccl.h or mpi.h
 * is included. Formats and conversions are specified in spec/numerics.md.
 */
#define CS_DTYPE_LIST(X)                                                       \
  X(INT8, int8, 1, CS_KIND_SINT, 0, 0, 0, 0, 0, ncclInt8, MPI_INT8_T)          \
  X(UINT8, uint8, 1, CS_KIND_UINT, 0, 0, 0, 0, 0, ncclUint8, MPI_UINT8_T)      \
  X(INT32, int32, 4, CS_KIND_SINT, 0, 0, 0, 0, 0, ncclInt32, MPI_INT32_T)      \
  X(UINT32, uint32, 4, CS_KIND_UINT, 0, 0, 0, 0, 0, ncclUint32, MPI_UINT32_T)  \
  X(INT64, int64, 8, CS_KIND_SINT, 0, 0, 0, 0, 0, ncclInt64, MPI_INT64_T)      \
  X(UINT64, uint64, 8, CS_KIND_UINT, 0, 0, 0, 0, 0, ncclUint64, MPI_UINT64_T)  \
  X(FLOAT16, float16, 2, CS_KIND_FLOAT, 11, -14, 15, 5, 0, ncclFloat16,        \
    MPI_DATATYPE_NULL)                                                         \
  X(BFLOAT16, bfloat16, 2, CS_KIND_FLOAT, 8, -126, 127, 8, 0, ncclBfloat16,    \
    MPI_DATATYPE_NULL)                                                         \
  X(FLOAT32, float32, 4, CS_KIND_FLOAT, 24, -126, 127, 8, 0, ncclFloat32,      \
    MPI_FLOAT)                                                                 \
  X(FLOAT64, float64, 8, CS_KIND_FLOAT, 53, -1022, 1023, 11, 0, ncclFloat64,   \
    MPI_DOUBLE)                                                                \
  X(FLOAT8_E4M3, float8_e4m3, 1, CS_KIND_FLOAT, 4, -6, 8, 4, 1,                \
    ncclFloat8e4m3, MPI_DATATYPE_NULL)                                         \
  X(FLOAT8_E5M2, float8_e5m2, 1, CS_KIND_FLOAT, 3, -14, 15, 5, 0,              \
    ncclFloat8e5m2, MPI_DATATYPE_NULL)

/*
 * Reduction ops: X(ID, name, "meaning")
 * Per-dtype arithmetic and error bounds are in spec/numerics.md.
 */
#define CS_OP_LIST(X)                                                          \
  X(SUM, sum, "elementwise sum")                                               \
  X(PROD, prod, "elementwise product")                                         \
  X(MAX, max, "elementwise maximum")                                           \
  X(MIN, min, "elementwise minimum")                                           \
  X(AVG, avg, "elementwise sum divided by the number of ranks")               \
  X(PREMULSUM, premulsum,                                                      \
    "each rank's input multiplied by that rank's scalar, then summed")

/*
 * Input data modes: X(ID, name, "meaning") - see spec/numerics.md, "Inputs".
 */
#define CS_MODE_LIST(X)                                                        \
  X(EXACT, exact, "values whose every partial result is representable")       \
  X(RANDOM, random, "realistic distributions, checked with the error bound")  \
  X(SPECIAL, special, "NaN, infinities, signed zeros, subnormals, extremes")

/* Enumerations generated from the lists. Their values are plugin ABI (see
 * the top of this file): line k of a list is the value k. */
#define CS_CATALOG_ENUM_(ID, ...) CS_COLL_##ID,
typedef enum cs_coll { CS_COLL_LIST(CS_CATALOG_ENUM_) CS_NUM_COLLS } cs_coll_t;
#undef CS_CATALOG_ENUM_
#define CS_CATALOG_ENUM_(ID, ...) CS_DTYPE_##ID,
typedef enum cs_dtype {
  CS_DTYPE_LIST(CS_CATALOG_ENUM_) CS_NUM_DTYPES
} cs_dtype_t;
#undef CS_CATALOG_ENUM_
#define CS_CATALOG_ENUM_(ID, ...) CS_OP_##ID,
typedef enum cs_op { CS_OP_LIST(CS_CATALOG_ENUM_) CS_NUM_OPS } cs_op_t;
#undef CS_CATALOG_ENUM_
#define CS_CATALOG_ENUM_(ID, ...) CS_MODE_##ID,
typedef enum cs_mode { CS_MODE_LIST(CS_CATALOG_ENUM_) CS_NUM_MODES } cs_mode_t;
#undef CS_CATALOG_ENUM_

#endif /* CS_CATALOG_H */
