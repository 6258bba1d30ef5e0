/*
 * khash.h - the keyed fingerprint of the identity check (khash.c).
 */
#ifndef CS_KHASH_H
#define CS_KHASH_H

#include <stddef.h>
#include <stdint.h>
#include "csref/status.h"

/* Two values below 2^61 - 1: a key, or a fingerprint. */
typedef struct cs_khash {
	uint64_t h[2];
} cs_khash_t;

/* Draw a key from the operating system's random source (never from the
 * case's seed: the implementation under test must not know it). Fails with
 * CS_ERR_IO, and a message, when no random bytes can be had. */
cs_status_t cs_khash_key(cs_khash_t *key);

/* The fingerprint of buf[0..n) under key: two different strings collide
 * with probability at most (ceil(n/7) / (2^61 - 2))^2 over the key. */
void cs_khash(const cs_khash_t *key, const void *buf, size_t n,
	      cs_khash_t *out);

#endif /* CS_KHASH_H */
