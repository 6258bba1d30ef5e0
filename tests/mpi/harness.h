/*
 * harness.h - one checked call of the MPI reference, for the MPI tests.
 *
 * A run fixes a case (csref/case.h), the input source, the buffer
 * placement and the communicator. t_run_exec allocates the buffers with
 * guard bytes on both sides, fills the inputs, calls the reference and
 * checks, on the calling rank:
 *  - the status is CS_OK;
 *  - every element of the receive range equals an expectation the test
 *    computes itself (the rank-order left fold for reductions, the source
 *    element for data movement; alltoallv gaps keep their contents);
 *  - for generated inputs, every element also passes the pure oracle
 *    (cs_oracle_expect + cs_compare_range);
 *  - every other byte of every buffer, guards included, is unchanged (so
 *    out-of-place send buffers, non-root receive buffers and in-place
 *    remainders are untouched);
 *  - allreduce: the result is bitwise the same on every rank of the
 *    communicator.
 */
#ifndef CS_TESTS_MPI_HARNESS_H
#define CS_TESTS_MPI_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "csref/case.h"

/* Where the inputs come from. */
enum t_src {
	T_SRC_EXACT,  /* cs_gen_fill, exact mode; oracle checked */
	T_SRC_RANDOM, /* cs_gen_fill, random mode; oracle checked */
	T_SRC_LOCAL,  /* this test's own hash of (rank, index): never all zero */
	T_NUM_SRC
};

/* How the buffers are placed (csref/mpiref.h names each in-place form). */
enum t_place {
	T_OUT,    /* separate send and receive buffers */
	T_IN,     /* NCCL's in-place form; sendbuf == recvbuf for alltoall(v),
		     gather, scatter and sendrecv */
	T_IN_MPI, /* gather/scatter only: the root's block in place, as with
		     MPI_IN_PLACE */
	T_NUM_PLACE
};

typedef struct t_run {
	cs_case_t c;       /* c.nranks is the size of comm */
	enum t_src src;
	enum t_place place;
	MPI_Comm comm;
	const char *comm_name;
} t_run_t;

/* Bits of rank's input element i and PREMULSUM scalar for this run. */
uint64_t t_input(const t_run_t *t, int rank, size_t i);
uint64_t t_scalar(const t_run_t *t, int rank);

/*
 * Run and check one call on the calling rank. Returns the number of
 * failures found here (0 when all is well) and prints each, with the case,
 * on stderr. Collective over t->comm.
 */
int t_run_exec(const t_run_t *t);

/* Describe a run in one line (for messages). */
void t_run_format(const t_run_t *t, char *buf, size_t n);

/* Rank count cap on printed failures per process. */
#define T_MAX_PRINTS 30

#endif /* CS_TESTS_MPI_HARNESS_H */
