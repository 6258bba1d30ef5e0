/*
 * forge.c - the forged-hash attack (see forge.h).
 *
 * The checker of commit b16a62d had the ranks of allreduce, allgather and
 * broadcast verify disjoint slices of the receive range against the oracle
 * and compare a hash of the whole range across ranks for the rest. That
 * hash runs h = (h ^ w) * p; h ^= h >> 29 over the 8-byte words, then
 * h = (h ^ byte) * p over the tail, then mixes h ^ length. Every step is
 * invertible (p is odd; the shift-xor undoes itself in three terms), so
 * from the state the correct buffer ends in, the state any suffix must
 * start from is computed backwards, and one word w joins it to the state
 * the forged prefix ends in.
 */
#include <stdint.h>
#include <string.h>
#include "forge.h"
#include "csref/catalog.h"

#define H_SEED 0xcbf29ce484222325ull /* cs_exec_hash's starting state */
#define H_MUL 0x100000001b3ull

/* The multiplicative inverse of H_MUL modulo 2^64 (Newton's iteration). */
static uint64_t mul_inverse(void)
{
	uint64_t x = H_MUL;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - H_MUL * x;
	return x;
}

/* y = x ^ (x >> 29) solved for x. */
static uint64_t unshift(uint64_t y)
{
	return y ^ (y >> 29) ^ (y >> 58);
}

static uint64_t word(const unsigned char *b, size_t k)
{
	uint64_t w;

	memcpy(&w, b + 8 * k, 8);
	return w;
}

/* The state after words [0, k) of b, from the seed. */
static uint64_t forward(const unsigned char *b, size_t k)
{
	uint64_t h = H_SEED;
	size_t i;

	for (i = 0; i < k; i++) {
		h = (h ^ word(b, i)) * H_MUL;
		h ^= h >> 29;
	}
	return h;
}

/* The state after all n bytes of b (before the final mix). */
static uint64_t state_of(const unsigned char *b, size_t n)
{
	uint64_t h = forward(b, n / 8);
	size_t i;

	for (i = n / 8 * 8; i < n; i++)
		h = (h ^ b[i]) * H_MUL;
	return h;
}

/* The state that must follow word k of b for b to end in state h. */
static uint64_t backward(const unsigned char *b, size_t n, size_t k,
			 uint64_t h)
{
	uint64_t inv = mul_inverse();
	size_t i;

	for (i = n; i > n / 8 * 8; i--)
		h = (h * inv) ^ b[i - 1];
	for (i = n / 8; i > k + 1; i--)
		h = (unshift(h) * inv) ^ word(b, i - 1);
	return h;
}

void mu_forge(cs_dtype_t d, const void *mine, void *r, size_t count, int rank,
	      int P)
{
	size_t es = cs_dtype_size(d), n = count * es, q = (size_t)rank, k;
	size_t lo = count / (size_t)P * q + (q < count % (size_t)P ? q :
					     count % (size_t)P);
	size_t end = lo + count / (size_t)P + (q < count % (size_t)P);
	unsigned char *b = r;
	uint64_t target, w;

	if (P < 2)
		return;
	lo *= es;
	end *= es;
	/* the fix-up word: the first whole word outside the share */
	k = lo >= 8 ? 0 : (end + 7) / 8;
	if (k >= n / 8)
		return;
	target = state_of(b, n);
	memcpy(b, mine, lo);
	memcpy(b + end, (const unsigned char *)mine + end, n - end);
	w = (unshift(backward(b, n, k, target)) * mul_inverse()) ^
	    forward(b, k);
	memcpy(b + 8 * k, &w, 8);
}
