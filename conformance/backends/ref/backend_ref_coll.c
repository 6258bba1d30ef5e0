/*
 * backend_ref_coll.c - the `ref` backend's collectives: each the
 * reference's own (csref/mpiref.h) on the backend's communicator, its
 * status recorded for error_string (which is here too).
 */
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends/ref/backend_ref_impl.h"
#include "csref/arith.h"
#include "csref/mpiref.h"

/* The message of the last failure: cs_last_error() at the time. */
static char ref_err[1024];

int cs_refb_status(cs_status_t st)
{
	if (st != CS_OK)
		snprintf(ref_err, sizeof ref_err, "%s: %s", cs_status_string(st),
			 cs_last_error());
	return st;
}

const char *cs_refb_error_string(cs_bcomm_t c, int err)
{
	return ref_err[0] ? ref_err : cs_status_string(err);
}

static uint64_t scalar_bits(cs_dtype_t d, const void *scalar)
{
	return scalar ? cs_load(d, scalar, 0) : 0;
}

int cs_refb_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_op_t op, const void *scalar, cs_bcomm_t c,
		      void *stream)
{
	return cs_refb_status(cs_mpiref_allreduce(s, r, count, d, op,
						  scalar_bits(d, scalar), RC(c)));
}

int cs_refb_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
		      cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_allgather(s, r, count, d, RC(c)));
}

int cs_refb_reducescatter(const void *s, void *r, size_t count,
			  cs_dtype_t d, cs_op_t op, const void *scalar,
			  cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_reducescatter(s, r, count, d, op,
						      scalar_bits(d, scalar), RC(c)));
}

int cs_refb_alltoall(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_alltoall(s, r, count, d, RC(c)));
}

int cs_refb_alltoallv(const void *s, const size_t *sc, const size_t *sd,
		      void *r, const size_t *rc, const size_t *rd,
		      cs_dtype_t d, cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_alltoallv(s, sc, sd, r, rc, rd, d, RC(c)));
}

int cs_refb_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
		      int root, cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_broadcast(s, r, count, d, root, RC(c)));
}

int cs_refb_reduce(const void *s, void *r, size_t count, cs_dtype_t d,
		   cs_op_t op, const void *scalar, int root, cs_bcomm_t c,
		   void *stream)
{
	return cs_refb_status(cs_mpiref_reduce(s, r, count, d, op,
					       scalar_bits(d, scalar), root, RC(c)));
}

int cs_refb_gather(const void *s, void *r, size_t count, cs_dtype_t d,
		   int root, cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_gather(s, r, count, d, root, RC(c)));
}

int cs_refb_scatter(const void *s, void *r, size_t count, cs_dtype_t d,
		    int root, cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_scatter(s, r, count, d, root, RC(c)));
}

int cs_refb_sendrecv(const void *s, void *r, size_t count, cs_dtype_t d,
		     cs_bcomm_t c, void *stream)
{
	return cs_refb_status(cs_mpiref_sendrecv(s, r, count, d, RC(c)));
}
