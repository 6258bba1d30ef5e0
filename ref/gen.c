/* gen.c - deterministic input generators (see csref/gen.h). STUB */
#include "csref/gen.h"
uint64_t cs_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}
uint64_t cs_gen_input(const cs_case_t *c, int rank, size_t index) { return 0; }
uint64_t cs_gen_scalar(const cs_case_t *c, int rank) { return 0; }
void cs_gen_fill(const cs_case_t *c, int rank, void *buf, size_t lo, size_t n) {}
