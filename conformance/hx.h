/*
 * hx.h - the harness's own exchanges during a case, point to point only
 * (hx.c says why). Each is collective over comm: every rank of comm calls
 * it with the same n and root. Errors abort the job (MPI's default
 * handler on the harness's communicators): they are environment errors.
 */
#ifndef CS_HX_H
#define CS_HX_H

#include <stddef.h>
#include <mpi.h>

/* n bytes of buf from root to every rank of comm. */
void cs_hx_bcast(void *buf, size_t n, int root, MPI_Comm comm);

/* n bytes of send from every rank into recv[rank * n] at root (recv is
 * only written at root). */
void cs_hx_gather(const void *send, size_t n, void *recv, int root,
		  MPI_Comm comm);

/* n bytes of send from every rank into recv[rank * n] on every rank. */
void cs_hx_allgather(const void *send, size_t n, void *recv, MPI_Comm comm);

/* The largest v of the ranks of comm, on every rank. */
int cs_hx_max(int v, MPI_Comm comm);

/* 1 on every rank when flag is non-zero on some rank of comm, else 0. */
int cs_hx_any(int flag, MPI_Comm comm);

#endif /* CS_HX_H */
