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
 */
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/reduce.h"
#include "mpi_userops.h"

#define MPIB_TAG 0x4353

struct mpib_comm {
	MPI_Comm comm;
	int rank, size;
};

#define MC(c) ((struct mpib_comm *)(c))

/* Byte types of the dtypes MPI lacks, and user ops over them (one per
 * dtype and step op: mpi_userops.h). */
static MPI_Datatype user_type[CS_NUM_DTYPES];
static MPI_Op user_op[CS_NUM_DTYPES][CS_NUM_OPS];
static int mpib_users;
static char mpib_err[MPI_MAX_ERROR_STRING + 128];
static int mpib_errcode;

/* Record a message for error_string and return code. */
static int fail(int code, const char *msg)
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
static int mpi_check(int rc, const char *call)
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

static MPI_Datatype mtype(cs_dtype_t d)
{
	return mpib_type[d];
}

/* The MPI op of one reduction step of op on dtype d. */
static MPI_Op mop(cs_dtype_t d, cs_op_t op)
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
	mpi_check(rc, "MPI_Type_contiguous");
	if (rc == MPI_SUCCESS)
		rc = mpi_check(MPI_Type_commit(&user_type[d]),
			       "MPI_Type_commit");
	for (o = 0; o < CS_NUM_OPS && rc == MPI_SUCCESS; o++) {
		MPI_User_function *fn = cs_mpi_userop(d, (cs_op_t)o);

		if (fn)
			rc = mpi_check(MPI_Op_create(fn, /*commute=*/1,
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
		return fail(MPI_ERR_NO_MEM, "mpi backend: out of memory");
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
	int rc = mpi_check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN),
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
		return fail(MPI_ERR_COMM, "the mpi backend needs an MPI "
			    "bootstrap channel");
	if ((rc = make_users()) != MPI_SUCCESS || (rc = set_types(options)))
		return rc;
	rc = mpi_check(MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm, &comm),
		       "MPI_Comm_dup");
	if (rc || (rc = errors_return(comm)))
		return rc;
	return wrap(comm, out);
}

static int mpib_split(cs_bcomm_t c, int color, int key,
		      const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc = mpi_check(MPI_Comm_split(MC(c)->comm, color, key, &comm),
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

/* ---- reductions ------------------------------------------------------------ */

/* Does op need each rank's input pre-multiplied first? */
static int needs_prep(cs_dtype_t d, cs_op_t op)
{
	return op == CS_OP_PREMULSUM || (op == CS_OP_AVG && cs_is_float(d));
}

static uint64_t scalar_bits(cs_dtype_t d, const void *scalar)
{
	return scalar ? cs_load(d, scalar, 0) : 0;
}

/*
 * The buffer to hand MPI as this rank's input of n elements: s itself, or
 * a prepared copy (*tmp, to free), or, when prepare may overwrite s (the
 * caller says so with in_place_ok), s prepared in place.
 */
static int prepared_input(const void *s, size_t n, cs_dtype_t d, cs_op_t op,
			  int P, const void *scalar, int in_place_ok,
			  const void **src, void **tmp)
{
	*tmp = NULL;
	*src = s;
	if (!needs_prep(d, op))
		return 0;
	if (in_place_ok) {
		cs_op_prepare(d, op, P, scalar_bits(d, scalar), (void *)s, s, n);
		return 0;
	}
	*tmp = malloc(n ? n * cs_dtype_size(d) : 1);
	if (!*tmp)
		return fail(MPI_ERR_NO_MEM, "mpi backend: out of memory for a "
			    "pre-multiplied copy");
	cs_op_prepare(d, op, P, scalar_bits(d, scalar), *tmp, s, n);
	*src = *tmp;
	return 0;
}

static int mpib_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			  cs_op_t op, const void *scalar, cs_bcomm_t c,
			  void *stream)
{
	struct mpib_comm *m = c;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, count, d, op, m->size, scalar, s == r, &src,
				&tmp);

	if (rc)
		return rc;
	rc = MPI_Allreduce(s == r ? MPI_IN_PLACE : src, r, (int)count, mtype(d),
			   mop(d, op), m->comm);
	if (mpi_check(rc, "MPI_Allreduce") == MPI_SUCCESS)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

/* In place: the input is the whole buffer s, the result lands at s and
 * is moved to block rank, where the convention wants it. */
static int mpib_reducescatter(const void *s, void *r, size_t count,
			      cs_dtype_t d, cs_op_t op, const void *scalar,
			      cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t es = cs_dtype_size(d), all = count * (size_t)m->size;
	int inplace = r == (const char *)s + (size_t)m->rank * count * es;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, all, d, op, m->size, scalar, inplace, &src,
				&tmp);

	if (rc)
		return rc;
	if (inplace)
		rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, (void *)s, (int)count,
					      mtype(d), mop(d, op), m->comm);
	else
		rc = MPI_Reduce_scatter_block(src, r, (int)count, mtype(d),
					      mop(d, op), m->comm);
	if (mpi_check(rc, "MPI_Reduce_scatter_block") == MPI_SUCCESS && inplace)
		memmove(r, s, count * es);
	if (rc == MPI_SUCCESS)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

static int mpib_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		       cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		       void *stream)
{
	struct mpib_comm *m = c;
	int at_root = m->rank == root, inplace = at_root && s == r;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, count, d, op, m->size, scalar, inplace, &src,
				&tmp);

	if (rc)
		return rc;
	rc = MPI_Reduce(inplace ? MPI_IN_PLACE : src, at_root ? r : NULL,
			(int)count, mtype(d), mop(d, op), root, m->comm);
	if (mpi_check(rc, "MPI_Reduce") == MPI_SUCCESS && at_root)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

/* ---- data movement ----------------------------------------------------------- */

static int mpib_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			  cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t es = cs_dtype_size(d);
	int rc;

	if (s == (const char *)r + (size_t)m->rank * count * es)
		rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r,
				   (int)count, mtype(d), m->comm);
	else
		rc = MPI_Allgather(s, (int)count, mtype(d), r, (int)count,
				   mtype(d), m->comm);
	return mpi_check(rc, "MPI_Allgather");
}

static int mpib_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	int rc;

	if (s == r)
		rc = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r,
				  (int)count, mtype(d), m->comm);
	else
		rc = MPI_Alltoall(s, (int)count, mtype(d), r, (int)count,
				  mtype(d), m->comm);
	return mpi_check(rc, "MPI_Alltoall");
}

/* size_t counts and displacements as MPI's ints: true, or false when
 * one is above INT_MAX. */
static bool to_ints_ok(const size_t *a, int *out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (a[i] > INT_MAX)
			return false;
		out[i] = (int)a[i];
	}
	return true;
}

/* Elements a send layout spans. */
static size_t span_of(const size_t *cnt, const size_t *disp, int n)
{
	size_t end = 0;
	int i;

	for (i = 0; i < n; i++)
		if (cnt[i] && disp[i] + cnt[i] > end)
			end = disp[i] + cnt[i];
	return end;
}

/*
 * In place, MPI_Alltoallv takes the send layout from the receive one, so
 * MPI_IN_PLACE is used when every rank's layouts agree; otherwise the send
 * blocks are copied aside and the call is made out of place.
 */
static int alltoallv_inplace(const size_t *sc, const size_t *sd, void *r,
			     const int *ia, cs_dtype_t d, struct mpib_comm *m)
{
	int P = m->size, same = 1, all = 0, i, rc;
	const int *isc = ia, *isd = ia + P, *irc = ia + 2 * P, *ird = ia + 3 * P;
	size_t bytes = span_of(sc, sd, P) * cs_dtype_size(d);
	void *tmp;

	for (i = 0; i < P; i++)
		same &= isc[i] == irc[i] && isd[i] == ird[i];
	rc = MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, m->comm);
	if (mpi_check(rc, "MPI_Allreduce (of the in-place layouts)"))
		return rc;
	if (all)
		return mpi_check(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL,
					       MPI_DATATYPE_NULL, r, irc, ird,
					       mtype(d), m->comm),
				 "MPI_Alltoallv");
	tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return fail(MPI_ERR_NO_MEM, "mpi backend: out of memory for an "
			    "in-place alltoallv copy");
	memcpy(tmp, r, bytes);
	rc = MPI_Alltoallv(tmp, isc, isd, mtype(d), r, irc, ird, mtype(d),
			   m->comm);
	free(tmp);
	return mpi_check(rc, "MPI_Alltoallv");
}

static int mpib_alltoallv(const void *s, const size_t *sc, const size_t *sd,
			  void *r, const size_t *rc, const size_t *rd,
			  cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	int P = m->size, *ia = malloc(4 * (size_t)P * sizeof *ia), st;

	if (!ia)
		return fail(MPI_ERR_NO_MEM, "mpi backend: out of memory");
	if (!to_ints_ok(sc, ia, P) || !to_ints_ok(sd, ia + P, P) ||
	    !to_ints_ok(rc, ia + 2 * P, P) || !to_ints_ok(rd, ia + 3 * P, P)) {
		free(ia);
		return fail(MPI_ERR_COUNT, "alltoallv count or displacement "
			    "above INT_MAX: this MPI has no large-count calls");
	}
	if (s == r)
		st = alltoallv_inplace(sc, sd, r, ia, d, m);
	else
		st = mpi_check(MPI_Alltoallv(s, ia, ia + P, mtype(d), r,
					     ia + 2 * P, ia + 3 * P, mtype(d),
					     m->comm), "MPI_Alltoallv");
	free(ia);
	return st;
}

static int mpib_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			  int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;

	if (m->rank == root && s != r && count)
		memcpy(r, s, count * cs_dtype_size(d));
	return mpi_check(MPI_Bcast(r, (int)count, mtype(d), root, m->comm),
			 "MPI_Bcast");
}

static int mpib_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		       int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t bytes = count * cs_dtype_size(d);
	char *mine = (char *)r + (size_t)root * bytes;
	int rc;

	if (m->rank != root)
		rc = MPI_Gather(s, (int)count, mtype(d), NULL, 0, mtype(d),
				root, m->comm);
	else if (s == r || s == mine) {
		if (s == r && root != 0 && count) /* input at the start */
			memmove(mine, r, bytes);
		rc = MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r,
				(int)count, mtype(d), root, m->comm);
	} else {
		rc = MPI_Gather(s, (int)count, mtype(d), r, (int)count,
				mtype(d), root, m->comm);
	}
	return mpi_check(rc, "MPI_Gather");
}

static int mpib_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
			int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t bytes = count * cs_dtype_size(d);
	const char *mine = (const char *)s + (size_t)root * bytes;
	int rc;

	if (m->rank != root)
		return mpi_check(MPI_Scatter(NULL, 0, mtype(d), r, (int)count,
					     mtype(d), root, m->comm),
				 "MPI_Scatter");
	if (r == mine || r == s)
		rc = MPI_Scatter(s, (int)count, mtype(d), MPI_IN_PLACE, 0,
				 MPI_DATATYPE_NULL, root, m->comm);
	else
		rc = MPI_Scatter(s, (int)count, mtype(d), r, (int)count,
				 mtype(d), root, m->comm);
	if (mpi_check(rc, "MPI_Scatter") == MPI_SUCCESS && r == s &&
	    root != 0 && count)
		memmove(r, mine, bytes); /* the root's block to the start */
	return rc;
}

static int mpib_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	int next = (m->rank + 1) % m->size;
	int prev = (m->rank + m->size - 1) % m->size;

	if (s == r)
		return mpi_check(MPI_Sendrecv_replace(r, (int)count, mtype(d),
						      next, MPIB_TAG, prev,
						      MPIB_TAG, m->comm,
						      MPI_STATUS_IGNORE),
				 "MPI_Sendrecv_replace");
	return mpi_check(MPI_Sendrecv(s, (int)count, mtype(d), next, MPIB_TAG,
				      r, (int)count, mtype(d), prev, MPIB_TAG,
				      m->comm, MPI_STATUS_IGNORE),
			 "MPI_Sendrecv");
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
	.allreduce = mpib_allreduce,
	.allgather = mpib_allgather,
	.reducescatter = mpib_reducescatter,
	.alltoall = mpib_alltoall,
	.alltoallv = mpib_alltoallv,
	.broadcast = mpib_broadcast,
	.reduce = mpib_reduce,
	.gather = mpib_gather,
	.scatter = mpib_scatter,
	.sendrecv = mpib_sendrecv,
	.synchronize = mpib_sync,
	.error_string = mpib_error_string,
};

const cs_backend_t *cs_backend_mpi(void)
{
	return &mpi_backend;
}
