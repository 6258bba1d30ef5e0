/*
 * backend_mpi_types.c - the `mpi` backend's types, ops and errors
 * (backend_mpi_impl.h): the MPI type each dtype travels as (native,
 * C-named with ctypes=N, or a byte type), the MPI op of each reduction
 * step (predefined, or a user op from mpi_userops.h), and the message of
 * the last failed call for error_string.
 */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/mpi/backend_mpi_impl.h"
#include "backends/mpi/mpi_userops.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/reduce.h"

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
/*
 * MPICH's error strings are a stack, outermost call first, one line each
 * ("Other MPI error, error stack:\nMPI_X(...) failed\n...\nMPIR_X_impl
 * (5491)....: User set collective algorithm is not usable ..."): the cause
 * is the last line, past any cut of the reason. Such a text becomes its
 * class and that line's message; any other text is left as it is.
 */
static void innermost(char *text, size_t n)
{
	char *stack = strstr(text, "error stack:"), *last, *msg, out[512];
	size_t k;

	if (!stack)
		return;
	for (last = text + strlen(text); last > stack && (last[-1] == '\n' ||
						       last[-1] == ' ');)
		*--last = '\0';
	last = strrchr(stack, '\n');
	msg = last ? strstr(last, ": ") : NULL;
	if (!msg || !msg[2])
		return;
	*stack = '\0';
	snprintf(out, sizeof out, "%.*s: %s", (int)strcspn(text, ","), text,
		 msg + 2);
	k = strlen(out) < n ? strlen(out) : n - 1;
	memcpy(text, out, k);
	text[k] = '\0';
}

int cs_mpib_check(int rc, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;
	char *p;

	if (rc == MPI_SUCCESS)
		return rc;
	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof text, "(no text from MPI_Error_string)");
	innermost(text, sizeof text);
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
 * Parse the backend options (cs_mpib_parse_opts), set the api and the type
 * of every dtype: the native one, the C-named one, or the user byte type.
 */
static int set_types(const char *options)
{
	struct cs_mpib_opts opts;
	int n, d;

	if (cs_mpib_parse_opts(options, &opts, mpib_err, sizeof mpib_err))
		return mpib_errcode = MPI_ERR_ARG;
	n = opts.ctypes;
	cs_mpib_set_api(opts.api);
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

int cs_mpib_teardown(void)
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

int cs_mpib_setup(const char *options)
{
	int rc = make_users();

	return rc != MPI_SUCCESS ? rc : set_types(options);
}

const char *cs_mpib_error_text(int err)
{
	static char buf[MPI_MAX_ERROR_STRING + 64];
	int len = 0;

	if (mpib_err[0] && err == mpib_errcode)
		return mpib_err;
	if (MPI_Error_string(err, buf, &len) != MPI_SUCCESS)
		snprintf(buf, sizeof buf, "MPI error %d", err);
	return buf;
}
