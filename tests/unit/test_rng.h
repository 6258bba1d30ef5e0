/*
 * test_rng.h - the unit tests' own random numbers (splitmix64 over a
 * counter), for picking cases, counts and offsets; a test that includes
 * it gets its own state, seeded the same in every run (CS_TEST_RNG_SEED,
 * defined before the include, picks another seed).
 */
#ifndef CS_TEST_RNG_H
#define CS_TEST_RNG_H

#include <stdint.h>

#ifndef CS_TEST_RNG_SEED
#define CS_TEST_RNG_SEED 0x243f6a8885a308d3ull
#endif

static uint64_t rng_state = CS_TEST_RNG_SEED;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* CS_TEST_RNG_H */
