/*
 * guard.h - bytes placed at the very end of readable memory, followed by a
 * page that cannot be read, for the fork-mode tests of tests/isolated: a
 * parser that reads one byte past what it was given dies of SIGSEGV on
 * the spot (one failed test in its own process) instead of reading
 * whatever follows in a heap buffer and passing by luck.
 */
#ifndef CS_TEST_GUARD_H
#define CS_TEST_GUARD_H

#include <stddef.h>

/* A region of at least cap readable bytes before an unreadable page. */
typedef struct guard {
	char *base; /* the mapping: readable pages, then the guard page */
	size_t readable;
	size_t map_len;
} guard_t;

/* Map a region for inputs of up to cap bytes; aborts the test (Check's
 * ck_abort) when the mapping fails. Free with guard_free. */
void guard_init(guard_t *g, size_t cap);
void guard_free(guard_t *g);

/* Copy data[0..len) so that its last byte is the last readable byte, and
 * return where it starts (len <= the cap of guard_init). */
char *guard_place(guard_t *g, const void *data, size_t len);

/* The same for the C string s[0..len) and its NUL: the NUL is the last
 * readable byte. */
char *guard_place_str(guard_t *g, const char *s, size_t len);

#endif
