/*
 * genbits.h - the generator's random-bits path as host+device functions
 * (CS_HD): the stream constants, the mixing function and the value of one
 * element of a case whose inputs are plain random bits of the dtype
 * (random mode with an integer dtype, or with no op: ref/gen.c's
 * random_bits cases). ref/gen.c computes those inputs with these very
 * functions, and the device check (csref/dcheck.h) recomputes them where
 * the data is, so the two cannot drift apart.
 */
#ifndef CSREF_GENBITS_H
#define CSREF_GENBITS_H

#include <stdint.h>
#include "csref/arith.h"

#define CS_GEN_GOLD 0x9e3779b97f4a7c15ull  /* per-stream multiplier */
#define CS_GEN_RANKG 0xd1b54a32d192ed03ull /* per-rank multiplier */
#define CS_GEN_SALT_SCALAR 0x2545f4914f6cdd1dull

/* splitmix64's finalizer: every hash of the generators. */
CS_HD uint64_t cs_genbits_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Rank `rank`'s element `index` of a random-bits case of stream `base`
 * (mix(case key ^ P * CS_GEN_GOLD)), masked to the dtype's bits (mask). */
CS_HD uint64_t cs_genbits_at(uint64_t base, int rank, uint64_t index,
			     uint64_t mask)
{
	return cs_genbits_mix(cs_genbits_mix(base ^ index) +
			      ((uint64_t)rank + 1) * CS_GEN_RANKG) & mask;
}

/* Rank `rank`'s PREMULSUM scalar in a random-mode integer case. */
CS_HD uint64_t cs_genbits_scalar(uint64_t base, int rank, uint64_t mask)
{
	return cs_genbits_mix(base ^ CS_GEN_SALT_SCALAR ^
			      ((uint64_t)rank + 1) * CS_GEN_RANKG) & mask;
}

#endif /* CSREF_GENBITS_H */
