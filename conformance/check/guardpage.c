/*
 * guardpage.c - spans of host memory between two inaccessible pages, and
 * the registry of the buffers they hold (guardpage.h).
 *
 * The registry is a fixed table, so that a signal handler can read it
 * without locks or allocation: a slot is free while its `lo` is 0; a
 * label fills the slot's fields, then publishes `lo` (release), and a
 * lookup reads `lo` first (acquire).
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check/guardpage.h"

/* Buffers named at once: two per rank of a case, for 2048 local ranks. */
#define GPAGE_SLOTS 4096

struct slot {
	uintptr_t lo;          /* the span's first byte; 0: free */
	size_t bytes;          /* the span's bytes */
	uintptr_t d0, d1;      /* the elements: [d0, d1) */
	size_t elems;
	int world_rank, rank;
	const char *what;
};

static struct slot slots[GPAGE_SLOTS];

size_t cs_gpage_size(void)
{
	static size_t page;

	if (!page) {
		long p = sysconf(_SC_PAGESIZE);

		page = p > 0 ? (size_t)p : 4096;
	}
	return page;
}

unsigned char *cs_gpage_map(size_t bytes)
{
	size_t pg = cs_gpage_size();
	unsigned char *m;

	if (!bytes || bytes % pg || bytes > SIZE_MAX - 2 * pg) {
		cs_error(CS_ERR_INVALID, "guard-page span of %zu bytes: not a "
			 "positive multiple of the page (%zu)", bytes, pg);
		return NULL;
	}
	m = mmap(NULL, bytes + 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED) {
		cs_error(CS_ERR_NOMEM, "cannot map %zu bytes for a buffer "
			 "between guard pages", bytes + 2 * pg);
		return NULL;
	}
	if (mprotect(m + pg, bytes, PROT_READ | PROT_WRITE) != 0) {
		munmap(m, bytes + 2 * pg);
		cs_error(CS_ERR_NOMEM, "cannot make %zu bytes between guard "
			 "pages writable", bytes);
		return NULL;
	}
	return m + pg;
}

int cs_gpage_label(const unsigned char *span, size_t bytes,
		   const unsigned char *data, size_t data_bytes, size_t elems,
		   int world_rank, int rank, const char *what)
{
	size_t i;

	for (i = 0; i < GPAGE_SLOTS; i++) {
		struct slot *s = &slots[i];

		if (__atomic_load_n(&s->lo, __ATOMIC_ACQUIRE))
			continue;
		s->bytes = bytes;
		s->d0 = (uintptr_t)data;
		s->d1 = (uintptr_t)data + data_bytes;
		s->elems = elems;
		s->world_rank = world_rank;
		s->rank = rank;
		s->what = what;
		__atomic_store_n(&s->lo, (uintptr_t)span, __ATOMIC_RELEASE);
		return 1;
	}
	return 0;
}

void cs_gpage_unmap(unsigned char *span, size_t bytes)
{
	size_t pg = cs_gpage_size(), i;

	if (!span)
		return;
	for (i = 0; i < GPAGE_SLOTS; i++)
		if (__atomic_load_n(&slots[i].lo, __ATOMIC_ACQUIRE) ==
		    (uintptr_t)span)
			__atomic_store_n(&slots[i].lo, 0, __ATOMIC_RELEASE);
	munmap(span - pg, bytes + 2 * pg);
}

int cs_gpage_find(const void *addr, cs_gpage_hit_t *hit)
{
	uintptr_t a = (uintptr_t)addr, pg = cs_gpage_size();
	size_t i;

	for (i = 0; i < GPAGE_SLOTS; i++) {
		const struct slot *s = &slots[i];
		uintptr_t lo = __atomic_load_n(&s->lo, __ATOMIC_ACQUIRE);

		if (!lo || a < lo - pg || a >= lo + s->bytes + pg ||
		    (a >= lo && a < lo + s->bytes))
			continue;
		hit->world_rank = s->world_rank;
		hit->rank = s->rank;
		hit->what = s->what;
		hit->elems = s->elems;
		hit->side = a < lo ? CS_GPAGE_BEFORE : CS_GPAGE_AFTER;
		hit->distance = a < lo ? s->d0 - a : a - s->d1;
		return 1;
	}
	return 0;
}
