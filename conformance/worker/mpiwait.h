/*
 * mpiwait.h - how the harness waits for an MPI request (rgroup_mpi.c): the
 * ranks of a launch often share cores with the rank they wait for, so
 * after a short spin the wait sleeps. bench/bare_loop.c waits the same way,
 * so that its barrier costs what the harness's does.
 */
#ifndef CS_MPIWAIT_H
#define CS_MPIWAIT_H

#include <mpi.h>

/* Wait for r: 64 MPI_Test calls, then sleeps of 10 us doubling to 500 us
 * between tests. */
void cs_mpi_wait(MPI_Request *r);

#endif /* CS_MPIWAIT_H */
