/*
 * failsig.c - failure signatures (failsig.h): each FAIL or XFAIL result
 * keyed by the families of its collective, dtype, op and check, counted,
 * and printed as one line per signature in the report's summary.
 */
#include <stdlib.h>
#include <string.h>
#include "base/check_registry.h"
#include "base/names.h"
#include "base/result.h"
#include "report/expect.h"
#include "report/failsig.h"

#define CHECK_OTHER_BIT 31

static const char *const coll_fam[CS_SIG_NCOLLF] = {"reducing",
						    "data movement"};
static const char *const dtype_fam[CS_SIG_NDTYPEF] = {
	"8-bit int", "32/64-bit int", "fp8", "16-bit float", "32/64-bit float"};
static const char *const op_fam[CS_SIG_NOPF] = {"sum-like", "prod",
						"max/min", "no op"};
static const char *const check_fam[CS_SIG_NCHECKF] = {
	"values", "memory", "identity", "crash/hang", "error", "other"};

const char *cs_failsig_family_name(int part, int family)
{
	static const char *const *names[4] = {coll_fam, dtype_fam, op_fam,
					      check_fam};
	static const int n[4] = {CS_SIG_NCOLLF, CS_SIG_NDTYPEF, CS_SIG_NOPF,
				 CS_SIG_NCHECKF};

	if (part < 0 || part > 3 || family < 0 || family >= n[part])
		return "?";
	return names[part][family];
}

/* Integers and floats by storage size: 8-bit ints saturate or wrap in
 * their own ways, fp8 and 16-bit floats round and overflow in theirs. */
static int dtype_family(cs_dtype_t d)
{
	size_t size = cs_dtype_size(d);

	if (!cs_dtype_is_float(d))
		return size == 1 ? CS_SIG_DT_INT8 : CS_SIG_DT_WIDEINT;
	if (size == 1)
		return CS_SIG_DT_FP8;
	return size == 2 ? CS_SIG_DT_FP16 : CS_SIG_DT_WIDEFP;
}

/* sum, avg and premulsum are one sum (the mpi backend builds the last two
 * on MPI_SUM); prod; max and min; no op (data movement). */
static int op_family(int op)
{
	if (op == CS_OP_NONE || op < 0 || op > CS_NUM_OPS)
		return CS_SIG_OP_NONE;
	switch ((cs_op_t)op) {
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
		return CS_SIG_OP_SUMLIKE;
	case CS_OP_PROD:
		return CS_SIG_OP_PROD;
	case CS_OP_MAX:
	case CS_OP_MIN:
		return CS_SIG_OP_MAXMIN;
	case CS_NUM_OPS:
		break;
	}
	return CS_SIG_OP_NONE;
}

/* The check registry's family of each check (check_registry.h): the same values
 * as this file's CS_SIG_CK_*. */
_Static_assert(CS_SIG_CK_VALUES == (int)CS_CHECKF_VALUES &&
	       CS_SIG_CK_MEMORY == (int)CS_CHECKF_MEMORY &&
	       CS_SIG_CK_IDENTITY == (int)CS_CHECKF_IDENTITY &&
	       CS_SIG_CK_CRASH == (int)CS_CHECKF_CRASH &&
	       CS_SIG_CK_ERROR == (int)CS_CHECKF_ERROR &&
	       CS_SIG_CK_OTHER == (int)CS_CHECKF_OTHER &&
	       CS_SIG_NCHECKF == (int)CS_CHECK_NFAMILIES,
	       "failsig.h's check families follow check_registry.h's");

static int check_family(const char *check)
{
	const cs_check_info_t *c = cs_check_find(check);

	return c ? (int)c->family : CS_SIG_CK_OTHER;
}

void cs_failsig_key(const cs_result_t *r, cs_failsig_key_t *k)
{
	const cs_case_t *c = &r->hc.c;

	k->coll = (unsigned)c->coll < CS_NUM_COLLS && cs_coll_reduces(c->coll)
			  ? CS_SIG_COLL_REDUCING : CS_SIG_COLL_MOVING;
	k->dtype = (unsigned)c->dtype < CS_NUM_DTYPES ? dtype_family(c->dtype)
						       : CS_SIG_DT_WIDEINT;
	k->op = op_family((int)c->op);
	k->check = check_family(r->check);
}

static int check_bit(const char *check)
{
	int i;

	for (i = 0; i < cs_expect_nchecks() && i < CHECK_OTHER_BIT; i++)
		if (!strcmp(cs_expect_check_name(i), check))
			return i;
	return CHECK_OTHER_BIT;
}

void cs_failsigs_add(cs_failsigs_t *s, const cs_result_t *r)
{
	const cs_case_t *c = &r->hc.c;
	cs_failsig_row_t *row;
	cs_failsig_key_t k;

	if (r->verdict != CS_V_FAIL && r->verdict != CS_V_XFAIL)
		return;
	cs_failsig_key(r, &k);
	row = &s->row[k.coll][k.dtype][k.op][k.check];
	if (r->verdict == CS_V_FAIL)
		row->fail++;
	else
		row->xfail++;
	if ((unsigned)c->coll < CS_NUM_COLLS)
		row->colls |= 1u << c->coll;
	if ((unsigned)c->dtype < CS_NUM_DTYPES)
		row->dtypes |= 1u << c->dtype;
	if ((unsigned)c->op <= CS_OP_NONE)
		row->ops |= 1u << c->op;
	row->checks |= 1u << check_bit(r->check);
	s->total++;
}

/* ---- printing ------------------------------------------------------------- */

struct sorted {
	const cs_failsig_row_t *row;
	cs_failsig_key_t k;
	size_t order; /* position in the table: ties keep it */
};

static int by_cases(const void *a, const void *b)
{
	const struct sorted *x = a, *y = b;
	size_t nx = x->row->fail + x->row->xfail;
	size_t ny = y->row->fail + y->row->xfail;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The members seen, "allreduce reduce / int8 uint8 / sum avg / value". */
static void print_members(const cs_failsig_row_t *row, FILE *out)
{
	int i;

	fputs("              ", out);
	for (i = 0; i < CS_NUM_COLLS; i++)
		if ((row->colls >> i) & 1u)
			fprintf(out, " %s", cs_coll_name((cs_coll_t)i));
	fputs(" /", out);
	for (i = 0; i < CS_NUM_DTYPES; i++)
		if ((row->dtypes >> i) & 1u)
			fprintf(out, " %s", cs_dtype_name((cs_dtype_t)i));
	fputs(" /", out);
	for (i = 0; i <= CS_OP_NONE; i++)
		if ((row->ops >> i) & 1u)
			fprintf(out, " %s", cs_op_name((cs_op_t)i));
	fputs(" /", out);
	for (i = 0; i < CHECK_OTHER_BIT; i++)
		if ((row->checks >> i) & 1u)
			fprintf(out, " %s", cs_expect_check_name(i));
	if ((row->checks >> CHECK_OTHER_BIT) & 1u)
		fputs(" other", out);
	fputc('\n', out);
}

void cs_failsigs_print(const cs_failsigs_t *s, int with_xfail, FILE *out)
{
	struct sorted v[CS_SIG_NCOLLF * CS_SIG_NDTYPEF * CS_SIG_NOPF *
			CS_SIG_NCHECKF];
	size_t n = 0, i;
	cs_failsig_key_t k;

	if (!s->total)
		return;
	for (k.coll = 0; k.coll < CS_SIG_NCOLLF; k.coll++)
	for (k.dtype = 0; k.dtype < CS_SIG_NDTYPEF; k.dtype++)
	for (k.op = 0; k.op < CS_SIG_NOPF; k.op++)
	for (k.check = 0; k.check < CS_SIG_NCHECKF; k.check++) {
		const cs_failsig_row_t *row =
			&s->row[k.coll][k.dtype][k.op][k.check];
		if (row->fail + row->xfail == 0)
			continue;
		v[n].row = row;
		v[n].k = k;
		v[n].order = n;
		n++;
	}
	qsort(v, n, sizeof v[0], by_cases);
	fprintf(out, "\nfailure signatures (%s by collective, dtype, op and "
		"check family; the members seen below each):\n  %6s %s "
		"signature\n", with_xfail ? "FAIL and XFAIL" : "FAIL", "fail",
		with_xfail ? " xfail" : "");
	for (i = 0; i < n; i++) {
		fprintf(out, "  %6zu ", v[i].row->fail);
		if (with_xfail)
			fprintf(out, "%6zu ", v[i].row->xfail);
		fprintf(out, "%s, %s, %s, %s\n",
			cs_failsig_family_name(0, v[i].k.coll),
			cs_failsig_family_name(1, v[i].k.dtype),
			cs_failsig_family_name(2, v[i].k.op),
			cs_failsig_family_name(3, v[i].k.check));
		print_members(v[i].row, out);
	}
}
