/*
 * guardpage.h - host memory between two inaccessible pages, and the
 * registry that names the buffer an address outside it belongs to
 * (guardpage.c).
 *
 * A span is whole pages, readable and writable, with one PROT_NONE page
 * right before it and one right after it: an access that runs off either
 * end of the span faults (SIGSEGV) instead of landing in other memory.
 * The registry maps each protected page to the buffer it guards (which
 * rank, which buffer, which side), so that a fault handler can turn the
 * faulting address into a verdict (worker/fault.c).
 */
#ifndef CS_GUARDPAGE_H
#define CS_GUARDPAGE_H

#include <stddef.h>
#include "csref/status.h"

/* The side of a buffer an access outside it fell on. */
typedef enum { CS_GPAGE_BEFORE, CS_GPAGE_AFTER } cs_gpage_side_t;

/* What the registry knows of a faulting address. */
typedef struct cs_gpage_hit {
	int world_rank;       /* the rank the buffer belongs to, in the world */
	int rank;             /* and in the case's communicator */
	const char *what;     /* "send buffer", "receive buffer", ... (static) */
	cs_gpage_side_t side;
	size_t distance;      /* bytes from the buffer's elements: an address
				 `distance` bytes past the last element's
				 end, or before element 0 */
	size_t elems;         /* the buffer's elements */
} cs_gpage_hit_t;

/* Bytes of a page on this machine. */
size_t cs_gpage_size(void);

/*
 * Map a span of `bytes` (a multiple of cs_gpage_size(), at least one
 * page) between two PROT_NONE pages. Returns the span's first byte, or
 * NULL with a message (CS_ERR_NOMEM) when the mapping fails. The span is
 * not in the registry until cs_gpage_label; cs_gpage_unmap frees it.
 */
unsigned char *cs_gpage_map(size_t bytes);

/*
 * Record in the registry that span (from cs_gpage_map, of `bytes`) holds
 * the buffer `what` of world rank world_rank (rank `rank` in its
 * communicator) (a static string) whose elements are
 * [data, data + data_bytes), elems elements. Returns 0 when the registry
 * is full (the span is then unnamed: a fault on its pages stays an
 * anonymous crash), 1 otherwise. Not thread-safe against another
 * cs_gpage_label or cs_gpage_unmap; safe against cs_gpage_find.
 */
int cs_gpage_label(const unsigned char *span, size_t bytes,
		   const unsigned char *data, size_t data_bytes, size_t elems,
		   int world_rank, int rank, const char *what);

/* Remove span from the registry and unmap it with its two pages; NULL
 * is a no-op. */
void cs_gpage_unmap(unsigned char *span, size_t bytes);

/*
 * Look addr up: 1 and *hit filled when it lies in a protected page of a
 * labelled span, else 0. Async-signal-safe (reads the registry only).
 */
int cs_gpage_find(const void *addr, cs_gpage_hit_t *hit);

#endif /* CS_GUARDPAGE_H */
