/*
 * khash.c - the keyed fingerprint that carries the cross-rank identity
 * check between processes (spec/collectives.md, "Identity").
 *
 * A fingerprint is two polynomial hashes over GF(p), p = 2^61 - 1, of the
 * bytes cut into 7-byte words (each below p), with keys drawn from the
 * operating system's random source after every rank's call has returned.
 * For two different byte strings of L words, a fingerprint collides for at
 * most L of the p - 1 possible values of each key (a nonzero polynomial of
 * degree L has at most L roots), so with independent uniform keys the
 * probability is at most (L / (p - 1))^2: below 10^-20 for any buffer this
 * harness can allocate. An implementation cannot aim at a key it cannot
 * see, unlike an unkeyed hash, which can be inverted step by step.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "check/khash.h"

#define P61 ((UINT64_C(1) << 61) - 1)

__extension__ typedef unsigned __int128 u128;

/* a * b mod p, for a, b < p. */
static uint64_t mulmod(uint64_t a, uint64_t b)
{
	u128 x = (u128)a * b;
	uint64_t s = ((uint64_t)x & P61) + (uint64_t)(x >> 61);

	s = (s & P61) + (s >> 61);
	return s >= P61 ? s - P61 : s;
}

/* a + b mod p, for a, b < p. */
static uint64_t addmod(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;

	return s >= P61 ? s - P61 : s;
}

/* 1 on a little-endian machine (a constant the compiler folds). */
static int little_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* Bytes [i, i+7) of p (fewer at the end: n - i of them), as a number. */
static uint64_t word7(const unsigned char *p, size_t i, size_t n)
{
	uint64_t w = 0;
	size_t k, m = n - i < 7 ? n - i : 7;

	if (i + 8 <= n && little_endian()) {
		memcpy(&w, p + i, 8); /* bytes i..i+6 are the low 56 bits */
		return w & ((UINT64_C(1) << 56) - 1);
	}
	for (k = 0; k < m; k++)
		w |= (uint64_t)p[i + k] << (8 * k);
	return w;
}

cs_status_t cs_khash_key(cs_khash_t *key)
{
	uint64_t r[2];
	int i = 0;

	while (i < 2) {
		ssize_t got = getrandom(r, sizeof r, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof r)
			return cs_error(CS_ERR_IO, "cannot draw the identity "
					"check's key: getrandom: %s",
					got < 0 ? strerror(errno) : "short read");
		for (; i < 2; i++) {
			uint64_t k = r[i] & P61;
			if (k == 0 || k == P61)
				break; /* draw again */
			key->h[i] = k;
		}
	}
	return CS_OK;
}

void cs_khash(const cs_khash_t *key, const void *buf, size_t n,
	      cs_khash_t *out)
{
	const unsigned char *p = buf;
	uint64_t h0 = 0, h1 = 0, w;
	size_t i;

	for (i = 0; i < n; i += 7) {
		w = word7(p, i, n);
		h0 = addmod(mulmod(h0, key->h[0]), w);
		h1 = addmod(mulmod(h1, key->h[1]), w);
	}
	/* the length as the last coefficient: strings of different lengths
	 * give different polynomials too */
	w = (uint64_t)n & P61;
	out->h[0] = addmod(mulmod(h0, key->h[0]), w);
	out->h[1] = addmod(mulmod(h1, key->h[1]), w);
}
