/*
 * core.h - what each rank of a collective receives, computed from every
 * rank's input: the arithmetic and the layouts shared by the two mutant
 * bases (base_rpp.c, base_ip.c). Which faults are compiled in is chosen by
 * CS_MUTANT (mutants.h).
 */
#ifndef CS_MUTANT_CORE_H
#define CS_MUTANT_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "collspec/backend.h"

/* One call of a collective as every rank of a communicator makes it. */
struct mu_call {
	cs_coll_t coll;
	cs_dtype_t d;
	cs_op_t op;              /* CS_NUM_OPS where the call does not reduce */
	size_t count;            /* the call's count (unused by alltoallv) */
	int root;
	int nranks;              /* size of the communicator */
	int world;               /* size of the world it was split from */
	int wrank;               /* the caller's world rank (one rank per
				  * process; -1 when it computes for all) */
	unsigned long ncall;     /* calls made on this communicator before */
	int again;               /* 1: same buffers as the previous call */
	/* in[q]: rank q's input, staged (it never aliases a receive buffer);
	 * NULL where the input is not significant */
	const unsigned char *const *in;
	const uint64_t *scalar;  /* scalar[q]: rank q's PREMULSUM scalar bits */
	/* alltoallv: rank q's send counts and displacements, in elements */
	const size_t *const *sc;
	const size_t *const *sd;
};

/*
 * Elements of rank `rank`'s send buffer that the call reads: the extent a
 * transport stages. sc and sd are that rank's alltoallv send counts and
 * displacements (NULL for other collectives).
 */
size_t mu_send_elems(cs_coll_t coll, size_t count, int nranks, int root,
		     int rank, const size_t *sc, const size_t *sd);

/*
 * Write rank r's receive range, out (r's receive buffer as the call got
 * it), from c's inputs; rd is r's alltoallv receive displacements (NULL
 * for other collectives). Ranks that receive nothing (reduce and gather
 * away from the root) get nothing written. 0, or 1 when out of memory.
 */
int mu_result(const struct mu_call *c, int r, const size_t *rd, void *out);

/*
 * The pieces of a reduction, for a transport that folds step by step:
 * dst[0..n) = rank q's prepared contribution to elements [off, off+n)
 * (PREMULSUM scalar, float AVG's 1/P); acc = acc STEP in, elementwise; the
 * last step (integer AVG's division). c->in[q] must be set.
 */
void mu_contribution(const struct mu_call *c, int q, size_t off, size_t n,
		     void *dst);
void mu_step(const struct mu_call *c, void *acc, const void *in, size_t n);
void mu_finish(const struct mu_call *c, void *acc, size_t n);

#endif /* CS_MUTANT_CORE_H */
