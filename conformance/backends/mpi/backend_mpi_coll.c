/*
 * backend_mpi_coll.c - the `mpi` backend's collectives (backend_mpi.c
 * holds the table, types, ops and communicators; its top comment says how
 * dtypes and ops map to MPI): reductions, with AVG and PREMULSUM emulated
 * by pre-multiplying a copy of the input (cs_op_prepare) or dividing the
 * sum (cs_op_finish), then data movement. In-place calls use MPI_IN_PLACE.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/mpi/backend_mpi_impl.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/reduce.h"

/* Short names for backend_mpi.c's helpers (backend_mpi_impl.h), so that
 * each MPI call below fits its lines. */
static MPI_Datatype mtype(cs_dtype_t d)
{
	return cs_mpib_type(d);
}

static MPI_Op mop(cs_dtype_t d, cs_op_t op)
{
	return cs_mpib_op(d, op);
}

static int mpi_check(int rc, const char *call)
{
	return cs_mpib_check(rc, call);
}

static int fail(int code, const char *msg)
{
	return cs_mpib_fail(code, msg);
}

/* A reduction's call: n elements of d from s (MPI_IN_PLACE or a buffer)
 * reduced with op into r (at root for a reduce), region the bytes it
 * writes here. */
static struct cs_mpib_call red_call(enum cs_mpib_kind k, const void *s,
				    void *r, size_t n, cs_dtype_t d, cs_op_t op,
				    int root, struct mpib_comm *m,
				    void *region, size_t bytes)
{
	struct cs_mpib_call c = {.kind = k, .s = s, .r = r, .rn = (int)n,
				 .rt = mtype(d), .op = mop(d, op), .root = root,
				 .comm = m->comm, .region = region,
				 .region_bytes = bytes};
	return c;
}

/* A data movement's call: sn elements of st from s, rn of d into r. */
static struct cs_mpib_call move_call(enum cs_mpib_kind k, const void *s,
				     int sn, MPI_Datatype st, void *r, int rn,
				     cs_dtype_t d, int root,
				     struct mpib_comm *m, size_t bytes)
{
	struct cs_mpib_call c = {.kind = k, .s = s, .sn = sn, .st = st,
				 .r = r, .rn = rn, .rt = mtype(d), .root = root,
				 .comm = m->comm, .region = r,
				 .region_bytes = bytes};
	return c;
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

int cs_mpib_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t c,
		      void *stream)
{
	struct mpib_comm *m = c;
	struct cs_mpib_call c_;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, count, d, op, m->size, scalar, s == r, &src,
				&tmp);

	if (rc)
		return rc;
	c_ = red_call(CS_MPIB_ALLREDUCE, s == r ? MPI_IN_PLACE : src, r, count,
		      d, op, 0, m, r, count * cs_dtype_size(d));
	rc = cs_mpib_call(&c_);
	if (rc == MPI_SUCCESS)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

/* In place: the input is the whole buffer s, the result lands at s and
 * is moved to block rank, where the convention wants it. */
int cs_mpib_reducescatter(const void *s, void *r, size_t count,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t es = cs_dtype_size(d), all = count * (size_t)m->size;
	int inplace = r == (const char *)s + (size_t)m->rank * count * es;
	struct cs_mpib_call c_;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, all, d, op, m->size, scalar, inplace, &src,
				&tmp);

	if (rc)
		return rc;
	if (inplace)
		c_ = red_call(CS_MPIB_REDUCE_SCATTER_BLOCK, MPI_IN_PLACE,
			      (void *)s, count, d, op, 0, m, (void *)s, all * es);
	else
		c_ = red_call(CS_MPIB_REDUCE_SCATTER_BLOCK, src, r, count, d,
			      op, 0, m, r, count * es);
	rc = cs_mpib_call(&c_);
	if (rc == MPI_SUCCESS && inplace)
		memmove(r, s, count * es);
	if (rc == MPI_SUCCESS)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

int cs_mpib_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		   void *stream)
{
	struct mpib_comm *m = c;
	int at_root = m->rank == root, inplace = at_root && s == r;
	struct cs_mpib_call c_;
	const void *src;
	void *tmp;
	int rc = prepared_input(s, count, d, op, m->size, scalar, inplace, &src,
				&tmp);

	if (rc)
		return rc;
	c_ = red_call(CS_MPIB_REDUCE, inplace ? MPI_IN_PLACE : src,
		      at_root ? r : NULL, count, d, op, root, m, r,
		      at_root ? count * cs_dtype_size(d) : 0);
	rc = cs_mpib_call(&c_);
	if (rc == MPI_SUCCESS && at_root)
		cs_op_finish(d, op, m->size, r, count);
	free(tmp);
	return rc;
}

/* ---- data movement ----------------------------------------------------------- */

int cs_mpib_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t es = cs_dtype_size(d), bytes = count * (size_t)m->size * es;
	struct cs_mpib_call c_;

	if (s == (const char *)r + (size_t)m->rank * count * es)
		c_ = move_call(CS_MPIB_ALLGATHER, MPI_IN_PLACE, 0,
			       MPI_DATATYPE_NULL, r, (int)count, d, 0, m, bytes);
	else
		c_ = move_call(CS_MPIB_ALLGATHER, s, (int)count, mtype(d), r,
			       (int)count, d, 0, m, bytes);
	return cs_mpib_call(&c_);
}

int cs_mpib_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t bytes = count * (size_t)m->size * cs_dtype_size(d);
	struct cs_mpib_call c_;

	if (s == r)
		c_ = move_call(CS_MPIB_ALLTOALL, MPI_IN_PLACE, 0,
			       MPI_DATATYPE_NULL, r, (int)count, d, 0, m, bytes);
	else
		c_ = move_call(CS_MPIB_ALLTOALL, s, (int)count, mtype(d), r,
			       (int)count, d, 0, m, bytes);
	return cs_mpib_call(&c_);
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

/* MPI_Alltoallv from s (MPI_IN_PLACE: no send layout) with the layouts
 * ia (send counts, displacements, receive counts, displacements) into r,
 * whose recv_elems elements the call writes. */
static int a2av_call(const void *s, const int *ia, void *r, cs_dtype_t d,
		     struct mpib_comm *m, size_t recv_elems)
{
	int P = m->size, inplace = s == MPI_IN_PLACE;
	struct cs_mpib_call c_ = {
		.kind = CS_MPIB_ALLTOALLV, .s = s, .sc = inplace ? NULL : ia,
		.sd = inplace ? NULL : ia + P,
		.st = inplace ? MPI_DATATYPE_NULL : mtype(d), .r = r,
		.rc = ia + 2 * P, .rd = ia + 3 * P, .rt = mtype(d),
		.comm = m->comm, .region = r,
		.region_bytes = recv_elems * cs_dtype_size(d)};

	return cs_mpib_call(&c_);
}

/*
 * In place, MPI_Alltoallv takes the send layout from the receive one, so
 * MPI_IN_PLACE is used when every rank's layouts agree; otherwise the send
 * blocks are copied aside and the call is made out of place.
 */
static int alltoallv_inplace(const size_t *sc, const size_t *sd,
			     const size_t *rcnt, const size_t *rd, void *r,
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
		return a2av_call(MPI_IN_PLACE, ia, r, d, m,
				 span_of(rcnt, rd, P));
	tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return fail(MPI_ERR_NO_MEM, "mpi backend: out of memory for an "
			    "in-place alltoallv copy");
	memcpy(tmp, r, bytes);
	rc = a2av_call(tmp, ia, r, d, m, span_of(rcnt, rd, P));
	free(tmp);
	return rc;
}

int cs_mpib_alltoallv(const void *s, const size_t *sc, const size_t *sd,
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
		st = alltoallv_inplace(sc, sd, rc, rd, r, ia, d, m);
	else
		st = a2av_call(s, ia, r, d, m, span_of(rc, rd, P));
	free(ia);
	return st;
}

int cs_mpib_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	struct cs_mpib_call c_;

	if (m->rank == root && s != r && count)
		memcpy(r, s, count * cs_dtype_size(d));
	c_ = move_call(CS_MPIB_BCAST, NULL, 0, MPI_DATATYPE_NULL, r, (int)count,
		       d, root, m, count * cs_dtype_size(d));
	return cs_mpib_call(&c_);
}

int cs_mpib_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t bytes = count * cs_dtype_size(d), all = bytes * (size_t)m->size;
	char *mine = (char *)r + (size_t)root * bytes;
	struct cs_mpib_call c_;

	if (m->rank != root)
		c_ = move_call(CS_MPIB_GATHER, s, (int)count, mtype(d), NULL, 0,
			       d, root, m, 0);
	else if (s == r || s == mine) {
		if (s == r && root != 0 && count) /* input at the start */
			memmove(mine, r, bytes);
		c_ = move_call(CS_MPIB_GATHER, MPI_IN_PLACE, 0,
			       MPI_DATATYPE_NULL, r, (int)count, d, root, m,
			       all);
	} else {
		c_ = move_call(CS_MPIB_GATHER, s, (int)count, mtype(d), r,
			       (int)count, d, root, m, all);
	}
	return cs_mpib_call(&c_);
}

int cs_mpib_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		    int root, cs_bcomm_t c, void *stream)
{
	struct mpib_comm *m = c;
	size_t bytes = count * cs_dtype_size(d);
	const char *mine = (const char *)s + (size_t)root * bytes;
	struct cs_mpib_call c_;
	int rc;

	if (m->rank != root)
		c_ = move_call(CS_MPIB_SCATTER, NULL, 0, mtype(d), r,
			       (int)count, d, root, m, bytes);
	else if (r == mine || r == s) /* (MPI_IN_PLACE: nothing written) */
		c_ = move_call(CS_MPIB_SCATTER, s, (int)count, mtype(d),
			       MPI_IN_PLACE, 0, d, root, m, 0);
	else
		c_ = move_call(CS_MPIB_SCATTER, s, (int)count, mtype(d), r,
			       (int)count, d, root, m, bytes);
	if (m->rank == root && (r == mine || r == s))
		c_.rt = MPI_DATATYPE_NULL;
	rc = cs_mpib_call(&c_);
	if (rc == MPI_SUCCESS && m->rank == root && r == s && root != 0 &&
	    count)
		memmove(r, mine, bytes); /* the root's block to the start */
	return rc;
}

int cs_mpib_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
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
