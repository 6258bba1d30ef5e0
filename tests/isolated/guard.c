/*
 * guard.c - inputs that end where readable memory ends (guard.h).
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "guard.h"

void guard_init(guard_t *g, size_t cap)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	g->readable = (cap + page - 1) / page * page;
	g->map_len = g->readable + page;
	g->base = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->base == MAP_FAILED)
		ck_abort_msg("guard: mmap of %zu bytes failed", g->map_len);
	if (mprotect(g->base + g->readable, page, PROT_NONE) != 0)
		ck_abort_msg("guard: mprotect failed");
}

void guard_free(guard_t *g)
{
	munmap(g->base, g->map_len);
	g->base = NULL;
}

char *guard_place(guard_t *g, const void *data, size_t len)
{
	char *at;

	ck_assert_uint_le(len, g->readable);
	at = g->base + g->readable - len;
	memcpy(at, data, len);
	return at;
}

char *guard_place_str(guard_t *g, const char *s, size_t len)
{
	char *at;

	ck_assert_uint_lt(len, g->readable);
	at = g->base + g->readable - len - 1;
	memcpy(at, s, len);
	at[len] = '\0';
	return at;
}
