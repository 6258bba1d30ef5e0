/*
 * exec.h - one rank's buffers for one case (exec.c): layout, allocation
 * with guards, device copies, the inputs of each call, and the backend
 * call on them. The checks that read them are check.h's.
 */
#ifndef CS_EXEC_H
#define CS_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "collspec/backend.h"
#include "suite/suite.h"

/* Bytes of guard pattern at least before and after every buffer. */
#define CS_GUARD_BYTES 64

/*
 * One buffer with guard bytes on both sides, in a span of whole pages
 * between two inaccessible pages (check/guardpage.h). Element 0 sits
 * misalign elements past a 64-byte boundary. Every byte of the span
 * outside the elements is guard pattern, and one side is tight against
 * its inaccessible page: the start (pre = CS_GUARD_BYTES + misalignment)
 * or the end (post = CS_GUARD_BYTES plus the up to 63 bytes that keep
 * element 0's alignment); the rest of the page is guard on the other side.
 */
typedef struct cs_gbuf {
	unsigned char *alloc; /* the span's first byte (cs_gpage_map) */
	unsigned char *data;  /* element 0 (after the guard and misalignment) */
	size_t elems;         /* elements between the guards */
	size_t pre;           /* bytes from alloc to data */
	size_t post;          /* bytes from the elements' end to the span's */
	size_t bytes;         /* bytes from alloc, guards included: the span */
	int tight_end;        /* 1: post is tight against the page after,
				 0: pre against the page before */
	unsigned char *dev;   /* CS_MEM_CUDA: the device copy of alloc's bytes
				 (data at dev + pre), else NULL */
} cs_gbuf_t;

/* One rank's execution of one case on one communicator. */
typedef struct cs_exec {
	cs_case_t c;           /* nranks = communicator size, root inside it */
	int rank;              /* rank in the communicator */
	int world_rank;        /* rank in the world (cs_exec_setup_at) */
	int inplace, misalign;
	int nbuf;              /* 1 in place (buf[0] only), else 2 */
	cs_gbuf_t buf[2];      /* [0] send buffer, [1] receive buffer */
	size_t so, ro;         /* send offset in buf[0], receive offset in the
				  receive buffer (buf[nbuf-1]), elements */
	size_t send_n, recv_n; /* significant elements */
	int send_free;         /* in place: the send range outside the receive
				  range may be overwritten (reducescatter) */
	size_t *a2av;          /* P*P matrix, then 4*P layout entries */
	size_t *sc, *sd, *rc, *rd;
	unsigned char scalar[8]; /* PREMULSUM scalar, dtype bits */
	int device;            /* CUDA device of the buffers' device copies */
	void *stream;          /* the stream handed to the backend, or NULL */
	uint64_t seed0;        /* the case's own seed (inputs of call 0) */
	int call, ncalls;      /* this call's index, the calls of the case */
	unsigned char *first;  /* the bytes call 0 received (determinism) */
	unsigned char **kept;  /* per call: its received bytes when they differ
				  from call 0's (cs_exec_keep), else NULL */
	unsigned char *img[2][2]; /* [set][buffer]: the buffers' bytes as
				  cs_exec_fill left them, for the case's own
				  inputs (set 0) and the latest fresh ones (1) */
	uint64_t img_seed[2];  /* the seed each set was filled from */
	int img_ok[2];         /* the set holds a complete image */
	int share_root;        /* reduce, gather: every rank checks a share of
				  the root's result (cs_exec_check_root_share)
				  instead of the root checking it alone */
	int result_of;         /* the comm rank whose result is being checked */
	int dcheck;            /* where the values are checked first
				  (check/dcheck.h: enum cs_dcheck_where) */
} cs_exec_t;

/*
 * Lay out and allocate rank `rank`'s buffers for case hc run on a
 * communicator of P ranks: the root is taken modulo P and the alltoallv
 * matrix is built for P. Returns CS_ERR_NOMEM or CS_ERR_OVERFLOW with a
 * message; e is then freed.
 */
cs_status_t cs_exec_setup(cs_exec_t *e, const cs_hcase_t *hc, int P, int rank);

/* cs_exec_setup for the rank of world rank world_rank: which side of each
 * buffer lies against its inaccessible page depends on it (so that ranks
 * alone in a split communicator differ too), and a fault names it.
 * cs_exec_setup takes world_rank = rank. */
cs_status_t cs_exec_setup_at(cs_exec_t *e, const cs_hcase_t *hc, int P,
			     int rank, int world_rank);
void cs_exec_free(cs_exec_t *e);

/*
 * For a CS_MEM_CUDA backend: give e's buffers device copies on CUDA device
 * dev, of the same bytes (guards and misalignment included, so the element
 * pointers sit at the same offsets), and the stream the calls are made on
 * (e keeps it, does not own it). The backend is then handed the device
 * pointers; cs_exec_put and cs_exec_get move the bytes. On failure e is
 * left as it was (host only), with a message.
 */
cs_status_t cs_exec_to_device(cs_exec_t *e, int dev, void *stream);

/*
 * The calls of one case (--repeat N makes 2N - 1 of them, on the same
 * buffers): even calls use the case's own inputs, so each even call after
 * the first must give the bits of the first (determinism); odd calls use
 * fresh inputs, drawn from a seed derived from the case's and the call's
 * index, so a result cached from an earlier call is wrong. Makes e's next
 * call call k of n: sets the seed (and premulsum scalar) its inputs and
 * expected values come from. Messages then name the call.
 */
void cs_exec_set_call(cs_exec_t *e, int k, int n);

/* The case of call k of e (its inputs' seed), into *c; e is unchanged. */
void cs_exec_call_case(const cs_exec_t *e, int k, cs_case_t *c);

/* 1 when call k uses fresh inputs (odd k), 0 when the case's own. */
int cs_exec_call_fresh(int k);

/* 1 when the current call's results go into the statistics: random-mode
 * inputs (their model), once per set of inputs (call 0 and the fresh
 * calls), not again for a same-input call whose bits changed. */
int cs_exec_stats_call(const cs_exec_t *e);

/* Fill guards, canaries and this rank's input, for the inputs of the call
 * e is set to (cs_exec_set_call). The first fill of a set of inputs
 * generates the bytes and keeps an image of them; a later fill of the same
 * inputs copies the image, and the layout checks compare with it. */
void cs_exec_fill(cs_exec_t *e);

/* Copy every buffer, guards included, to its device copy (put) or back
 * (get). No-ops for host buffers. */
cs_status_t cs_exec_put(const cs_exec_t *e);
cs_status_t cs_exec_get(cs_exec_t *e);

/* The host pointers the checks read (also the pointers handed to a host
 * backend). */
void *cs_exec_sendp(const cs_exec_t *e);
void *cs_exec_recvp(const cs_exec_t *e);

/* Call the backend's collective for e, on its device copies and stream when
 * it has them. Returns its status; a collective the backend does not
 * implement returns -1 (the caller skips first). */
int cs_exec_call(const cs_exec_t *e, const cs_backend_t *b, cs_bcomm_t comm);

/* The patterns a buffer holds outside the rank's input: guard byte k
 * before (after = 0) or after the elements, and the canary of element
 * position p (dtype d's bits) where the collective must not write. */
unsigned char cs_exec_guard_byte(size_t k, int after);
uint64_t cs_exec_canary_bits(cs_dtype_t d, size_t p);

/* Element 0 of buffer bi as cs_exec_fill left it for the current call's
 * inputs, or NULL when no image was kept (out of memory). */
const unsigned char *cs_exec_image(const cs_exec_t *e, int bi);

#endif /* CS_EXEC_H */
