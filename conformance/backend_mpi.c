/*
 * backend_mpi.c - the `mpi` backend: the MPI library's own collectives
 * (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Bcast, MPI_Reduce, MPI_Gather, MPI_Scatter,
 * MPI_Sendrecv) behind the plugin ABI's struct.
 *
 * Native MPI datatypes and ops are used where MPI has them; float16,
 * bfloat16 and the fp8 types are contiguous byte types reduced by
 * user-defined ops, bit-commutative (mpi_userops.h). AVG and PREMULSUM are
 * emulated the way NCCL computes them: PREMULSUM and float AVG
 * pre-multiply a copy of the input (cs_op_prepare) and sum; integer AVG
 * sums and then divides (cs_op_finish). In-place calls use MPI_IN_PLACE.
 * Counts above INT_MAX need MPI-4 large-count calls, which an MPI-3
 * library lacks: such cases are skipped with that reason.
 *
 * Datatypes: by default each dtype travels as the catalog's mpi column
 * says (spec/cs_catalog.h: MPI_INT8_T ... MPI_UINT64_T, MPI_FLOAT,
 * MPI_DOUBLE). `--backend-opt ctypes=N` (N = 1 or 2) uses instead the
 * C-named predefined type of the same size and kind, so that an MPI's
 * handling of MPI_INT, MPI_UNSIGNED_LONG, ... is tested too: the N-th of
 * signed char, short, int, long, long long (unsigned likewise; float,
 * double) whose size is the dtype's, or the last such where there are
 * fewer. On LP64, ctypes=1 gives MPI_SIGNED_CHAR, MPI_INT, MPI_LONG (and
 * the unsigned ones), ctypes=2 MPI_LONG_LONG for the 64-bit dtypes.
 *
 * Errors: the backend's communicators return MPI errors
 * (MPI_ERRORS_RETURN); every function returns the ABI's status (0, or an
 * MPI error code) and error_string names the failed MPI call and quotes
 * MPI_Error_string.
 *
 * This file holds the backend's table, its types and ops, communicators
 * and errors; the collectives are in backend_mpi_coll.c, and
 * backend_mpi_impl.h is what the two share.
 */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backend_mpi_impl.h"
#include "backends.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/reduce.h"
#include "mpi_userops.h"

#define MC(c) ((struct mpib_comm *)(c))

/* Byte types of the dtypes MPI lacks, and user ops over them (one per
 * dtype and step op: mpi_userops.h). */
static MPI_Datatype user_type[CS_NUM_DTYPES];
static MPI_Op user_op[CS_NUM_DTYPES][CS_NUM_OPS];
static int mpib_users;
static char mpib_err[MPI_MAX_ERROR_STRING + 128];
static int mpib_errcode;

/* Record a message for error_string and return code. */
int cs_mpib_fail(int code, const char *msg)
{
	snprintf(mpib_err, sizeof mpib_err, "%s", msg);
	mpib_errcode = code;
	return code;
}

/*
 * rc, the status of MPI call `call`, unchanged; when it is an error, the
 * message for error_string names the call and gives the MPI library's own
 * text for rc (MPI_Error_string), on one line.
 */
int cs_mpib_check(int rc, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;
	char *p;

	if (rc == MPI_SUCCESS)
		return rc;
	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof text, "(no text from MPI_Error_string)");
	snprintf(mpib_err, sizeof mpib_err, "%s failed: %s (MPI error %d)",
		 call, text, rc);
	for (p = mpib_err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	mpib_errcode = rc;
	return rc;
}

#define MPIB_NATIVE_(ID, name, bytes, kind, prec, emin, emax, ebits, fn,      \
		     nccl, mpi)                                                \
	case CS_DTYPE_##ID:                                                    \
		return (mpi);

/* The catalog's predefined MPI type of dtype d, or MPI_DATATYPE_NULL. */
static MPI_Datatype native_type(cs_dtype_t d)
{
	switch (d) {
	CS_DTYPE_LIST(MPIB_NATIVE_)
	case CS_NUM_DTYPES: /* not a dtype */
		break;
	}
	return MPI_DATATYPE_NULL;
}
#undef MPIB_NATIVE_

/* A C-named predefined MPI type and what the C type is. */
struct mpib_ctype {
	MPI_Datatype type;
	size_t size;
	int kind, prec; /* CS_KIND_*; prec: the float's mantissa digits */
};

/*
 * The C-named type the ctypes=n option gives dtype d (see the top of this
 * file), or MPI_DATATYPE_NULL when no C type has d's size and kind (and,
 * for floats, precision). In the order the option counts them.
 */
static MPI_Datatype c_named_type(cs_dtype_t d, int n)
{
	const struct mpib_ctype all[] = {
		{MPI_SIGNED_CHAR, sizeof(signed char), CS_KIND_SINT, 0},
		{MPI_SHORT, sizeof(short), CS_KIND_SINT, 0},
		{MPI_INT, sizeof(int), CS_KIND_SINT, 0},
		{MPI_LONG, sizeof(long), CS_KIND_SINT, 0},
		{MPI_LONG_LONG, sizeof(long long), CS_KIND_SINT, 0},
		{MPI_UNSIGNED_CHAR, sizeof(unsigned char), CS_KIND_UINT, 0},
		{MPI_UNSIGNED_SHORT, sizeof(unsigned short), CS_KIND_UINT, 0},
		{MPI_UNSIGNED, sizeof(unsigned), CS_KIND_UINT, 0},
		{MPI_UNSIGNED_LONG, sizeof(unsigned long), CS_KIND_UINT, 0},
		{MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long),
		 CS_KIND_UINT, 0},
		{MPI_FLOAT, sizeof(float), CS_KIND_FLOAT, FLT_MANT_DIG},
		{MPI_DOUBLE, sizeof(double), CS_KIND_FLOAT, DBL_MANT_DIG},
	};
	MPI_Datatype t = MPI_DATATYPE_NULL;
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0] && n > 0; i++)
		if (all[i].size == cs_dtype_size(d) &&
		    all[i].kind == cs_dtype_kind(d) &&
		    all[i].prec == cs_dtype_prec(d)) {
			t = all[i].type;
			n--;
		}
	return t;
}

/* The type each dtype travels as in this run (set by mpib_init). */
static MPI_Datatype mpib_type[CS_NUM_DTYPES];

MPI_Datatype cs_mpib_type(cs_dtype_t d)
{
	return mpib_type[d];
}

/* The MPI op of one reduction step of op on dtype d. */
MPI_Op cs_mpib_op(cs_dtype_t d, cs_op_t op)
{
	cs_op_t step = cs_step_op(op);

	if (native_type(d) == MPI_DATATYPE_NULL)
		return user_op[d][step];
	switch (step) {
	case CS_OP_SUM:
	case CS_OP_AVG:       /* cs_step_op made it SUM */
	case CS_OP_PREMULSUM: /* likewise */
		return MPI_SUM;
	case CS_OP_PROD: return MPI_PROD;
	case CS_OP_MAX: return MPI_MAX;
	case CS_OP_MIN: return MPI_MIN;
	case CS_NUM_OPS: /* CS_OP_NONE: no reduction */
		break;
	}
	return MPI_OP_NULL;
}

/*
 * Parse the backend options ("" or "ctypes=0|1|2") and set the type of
 * every dtype: the native one, the C-named one, or the user byte type.
 */
static int set_types(const char *options)
{
	int n = 0, d;

	if (options && *options) {
		if (strcmp(options, "ctypes=0") && strcmp(options, "ctypes=1") &&
		    strcmp(options, "ctypes=2")) {
			snprintf(mpib_err, sizeof mpib_err, "bad backend option "
				 "'%.200s' (valid: ctypes=0|1|2)", options);
			return mpib_errcode = MPI_ERR_ARG;
		}
		n = options[7] - '0';
	}
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		MPI_Datatype t = native_type((cs_dtype_t)d);

		if (t == MPI_DATATYPE_NULL)
			t = user_type[d];
		else if (n && c_named_type((cs_dtype_t)d, n) != MPI_DATATYPE_NULL)
			t = c_named_type((cs_dtype_t)d, n);
		mpib_type[d] = t;
	}
	return 0;
}

static int no_userop(cs_dtype_t d, cs_op_t op)
{
	snprintf(mpib_err, sizeof mpib_err, "mpi backend: no user op for %s "
		 "on %s", cs_op_name(op), cs_dtype_name(d));
	mpib_errcode = MPI_ERR_OP;
	return MPI_ERR_OP;
}

/* The byte type of dtype d and its user ops, created commutative: every
 * function of mpi_userops.h is bit-commutative. */
static int make_user_dtype(cs_dtype_t d)
{
	int o, rc;

	rc = MPI_Type_contiguous((int)cs_dtype_size(d), MPI_BYTE, &user_type[d]);
	cs_mpib_check(rc, "MPI_Type_contiguous");
	if (rc == MPI_SUCCESS)
		rc = cs_mpib_check(MPI_Type_commit(&user_type[d]),
				   "MPI_Type_commit");
	for (o = 0; o < CS_NUM_OPS && rc == MPI_SUCCESS; o++) {
		MPI_User_function *fn = cs_mpi_userop(d, (cs_op_t)o);

		if (fn)
			rc = cs_mpib_check(MPI_Op_create(fn, /*commute=*/1,
							 &user_op[d][o]),
					   "MPI_Op_create");
		else if (cs_step_op((cs_op_t)o) == (cs_op_t)o)
			rc = no_userop(d, (cs_op_t)o);
	}
	return rc;
}

static int make_users(void)
{
	int d, rc = MPI_SUCCESS;

	if (mpib_users++)
		return 0;
	for (d = 0; d < CS_NUM_DTYPES && rc == MPI_SUCCESS; d++)
		if (native_type((cs_dtype_t)d) == MPI_DATATYPE_NULL)
			rc = make_user_dtype((cs_dtype_t)d);
	return rc;
}

static int mpib_finalize(void)
{
	int d, o;

	if (!mpib_users)
		return 0;
	mpib_users = 0;
	for (d = 0; d < CS_NUM_DTYPES; d++) {
		if (user_type[d] != MPI_DATATYPE_NULL && user_type[d])
			MPI_Type_free(&user_type[d]);
		for (o = 0; o < CS_NUM_OPS; o++)
			if (user_op[d][o] != MPI_OP_NULL && user_op[d][o])
				MPI_Op_free(&user_op[d][o]);
	}
	return 0;
}

/* ---- communicators --------------------------------------------------------- */

static int wrap(MPI_Comm comm, cs_bcomm_t *out)
{
	struct mpib_comm *c = malloc(sizeof *c);

	if (!c) {
		MPI_Comm_free(&comm);
		return cs_mpib_fail(MPI_ERR_NO_MEM, "mpi backend: out of "
				    "memory");
	}
	c->comm = comm;
	MPI_Comm_rank(comm, &c->rank);
	MPI_Comm_size(comm, &c->size);
	*out = c;
	return 0;
}

/* MPI errors on the backend's communicators come back as return codes
 * (reported as `error` with the library's message), not as an abort. */
static int errors_return(MPI_Comm comm)
{
	int rc = cs_mpib_check(MPI_Comm_set_errhandler(comm,
							MPI_ERRORS_RETURN),
			       "MPI_Comm_set_errhandler");

	if (rc)
		MPI_Comm_free(&comm);
	return rc;
}

static int mpib_init(const cs_bootstrap_t *world, const char *options,
		     cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc;

	if (!world->mpi_comm)
		return cs_mpib_fail(MPI_ERR_COMM, "the mpi backend needs an "
				    "MPI bootstrap channel");
	if ((rc = make_users()) != MPI_SUCCESS || (rc = set_types(options)))
		return rc;
	rc = cs_mpib_check(MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm,
					 &comm), "MPI_Comm_dup");
	if (rc || (rc = errors_return(comm)))
		return rc;
	return wrap(comm, out);
}

static int mpib_split(cs_bcomm_t c, int color, int key,
		      const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc = cs_mpib_check(MPI_Comm_split(MC(c)->comm, color, key, &comm),
			       "MPI_Comm_split");

	if (rc || (rc = errors_return(comm)))
		return rc;
	return wrap(comm, out);
}

static int mpib_free(cs_bcomm_t c)
{
	MPI_Comm_free(&MC(c)->comm);
	free(c);
	return 0;
}

static int mpib_supports(cs_bcomm_t c, const cs_backend_query_t *q,
			 char *reason, size_t len)
{
	size_t most = q->count;

	if (q->coll == CS_COLL_ALLTOALLV) /* displacements span P blocks */
		most = q->count > (size_t)INT_MAX / 4 ? (size_t)INT_MAX + 1
						     : 4 * q->count * (size_t)q->nranks;
	if (most <= INT_MAX)
		return 1;
	snprintf(reason, len, "count above INT_MAX: this MPI (version %d.%d) "
		 "has no large-count (_c) calls", MPI_VERSION, MPI_SUBVERSION);
	return 0;
}

static int mpib_sync(cs_bcomm_t c, void *stream)
{
	return 0; /* blocking calls */
}

static const char *mpib_error_string(cs_bcomm_t c, int err)
{
	static char buf[MPI_MAX_ERROR_STRING + 64];
	int len = 0;

	if (mpib_err[0] && err == mpib_errcode)
		return mpib_err;
	if (MPI_Error_string(err, buf, &len) != MPI_SUCCESS)
		snprintf(buf, sizeof buf, "MPI error %d", err);
	return buf;
}

static const cs_backend_t mpi_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "mpi",
	.description = "the MPI library's own collectives (user-defined "
		       "types and ops where MPI has none)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = mpib_init,
	.comm_split = mpib_split,
	.comm_free = mpib_free,
	.finalize = mpib_finalize,
	.supports = mpib_supports,
	.allreduce = cs_mpib_allreduce,
	.allgather = cs_mpib_allgather,
	.reducescatter = cs_mpib_reducescatter,
	.alltoall = cs_mpib_alltoall,
	.alltoallv = cs_mpib_alltoallv,
	.broadcast = cs_mpib_broadcast,
	.reduce = cs_mpib_reduce,
	.gather = cs_mpib_gather,
	.scatter = cs_mpib_scatter,
	.sendrecv = cs_mpib_sendrecv,
	.synchronize = mpib_sync,
	.error_string = mpib_error_string,
};

const cs_backend_t *cs_backend_mpi(void)
{
	return &mpi_backend;
}
