/*
 * patport_impl.h - the pattern port's state (patcase.h), shared by
 * patport.c (queue, calls, agreement, log) and patport_buf.c (the staged
 * buffers and the checks of what a call left in them).
 */
#ifndef CS_PATPORT_IMPL_H
#define CS_PATPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "worker/patcase.h"

typedef struct qcall {
	cs_pcall_t c;
	void *send;     /* the send data's copy */
	size_t *counts; /* alltoallv: sendcounts, sdispls, recvcounts,
			   rdispls, `stride` entries each: the group's P,
			   then zeros up to the world's size, so that an
			   implementation that takes the world for the
			   group (spec/patterns.md 7.1) reads zeros, not
			   the next array */
	size_t stride;
	size_t se, re;  /* send and receive elements (spec 3.1: alltoallv's
			   are the sums of its counts) */
	size_t sext, rext; /* the buffers' extents in elements (alltoallv:
			      the largest displacement + count) */
} qcall_t;

/* One rank's staged buffers: [guard | data | guard], host and device. */
typedef struct stage {
	unsigned char *sh, *rh; /* host */
	void *sd, *rd;          /* device (CUDA backends), else NULL */
	size_t sbytes, rbytes;  /* data bytes */
	size_t stail, rtail;    /* bytes of guard after the data: at least
				   CS_GUARD_BYTES, more when the world holds
				   several groups (see patport_buf.c) */
} stage_t;

struct cs_patport {
	cs_pport_t port;
	cs_worker_t *w;
	const struct cs_wvar *var;
	const cs_prank_t *rk;
	cs_pcheck_t *chk;
	int n;
	qcall_t **q;
	int *nq, cap;
	cs_patrec_t **rec;
	size_t *nrec, *reccap;
	stage_t *st;
	int *rc;
	int *bitcall;  /* per local rank: 1 + the first allreduce call whose
			  bits differed from group rank 0's (values alike),
			  0 none (cs_patport_bits_verdict) */
};

/* alltoallv's arrays of call q: which = 0 sendcounts, 1 sdispls,
 * 2 recvcounts, 3 rdispls. */
static inline size_t *cs_qc(const qcall_t *q, int which)
{
	return q->counts + (size_t)which * q->stride;
}

/* alltoallv: the largest pair count of call q in a group of P. */
static inline size_t cs_qc_max_pair(const qcall_t *q, int P)
{
	size_t m = 0;
	for (int k = 0; k < P; k++) {
		m = cs_qc(q, 0)[k] > m ? cs_qc(q, 0)[k] : m;
		m = cs_qc(q, 2)[k] > m ? cs_qc(q, 2)[k] : m;
	}
	return m;
}

/* Local rank i's buffers for call q: staged with guards and canaries
 * (device copies for a CUDA backend). 1 when staged. */
int cs_patport_stage(cs_patport_t *p, int i, const qcall_t *q);
void cs_patport_stage_free(cs_patport_t *p, int i);

/* The pointers the backend gets for local rank i. */
const void *cs_patport_sendp(const cs_patport_t *p, int i);
void *cs_patport_recvp(const cs_patport_t *p, int i);

/* After call k: local rank i's status, guard bytes, send buffer and (for
 * alltoallv) the gaps between receive blocks; its results copied to the
 * pattern. Failures go to p->chk[i]. */
void cs_patport_check_one(cs_patport_t *p, int i, const qcall_t *q, int k);

/* After allreduce call k: every group rank's result the same values as
 * group rank 0's (FAIL identity into p->chk), and the same bits (noted in
 * p->bitcall), compared in full (an exchange within the group:
 * collective). */
void cs_patport_check_identity(cs_patport_t *p, int k);

#endif /* CS_PATPORT_IMPL_H */
