/*
 * a2av.c - the alltoallv count matrices (csref/a2av.h).
 */
#include <stdint.h>
#include "csref/a2av.h"
#include "csref/gen.h"

/* A hash of two words (the matrices' only source of variation). */
static uint64_t hash2(uint64_t a, uint64_t b)
{
	return cs_mix64(a ^ cs_mix64(b + 0x9e3779b97f4a7c15ull));
}

static size_t sat_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* The count pattern p gives pair (s, d) of P ranks; h is the pair's hash,
 * off the pattern's seeded residue, span the range of uneven's counts. */
static size_t pair_count(cs_a2av_pattern_t p, int P, size_t count, int s,
			 int d, uint64_t h, unsigned off, size_t span)
{
	switch (p) {
	case CS_A2AV_UNEVEN:
		return (size_t)(h % span);
	case CS_A2AV_ZEROROWS:
		return ((unsigned)s + off) % 3 == 1 ||
		       ((unsigned)d + off) % 3 == 2 ? 0 : count;
	case CS_A2AV_SPARSE:
		return h % (uint64_t)P == 0 ? sat_mul(count, (size_t)P) : 0;
	case CS_A2AV_UNIFORM:
	case CS_NUM_A2AV: /* not a pattern: uniform's counts (csref/a2av.h) */
		break;
	}
	return count;
}

/* Contract in csref/a2av.h. */
void cs_a2av_matrix(cs_a2av_pattern_t p, int P, size_t count, uint64_t seed,
		    size_t *M)
{
	uint64_t key = hash2(seed, 0x613261762d6d6174ull + (uint64_t)p);
	size_t span = count <= (SIZE_MAX - 1) / 2 ? 2 * count + 1 : SIZE_MAX;
	unsigned off = (unsigned)(key % 3);
	int s, d;

	if (P < 1 || !M)
		return;
	for (s = 0; s < P; s++)
		for (d = 0; d < P; d++) {
			uint64_t h = hash2(key, (uint64_t)s * (uint64_t)P +
						(uint64_t)d);

			M[(size_t)s * (size_t)P + (size_t)d] =
				pair_count(p, P, count, s, d, h, off, span);
		}
}
