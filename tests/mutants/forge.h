/*
 * forge.h - the forged-hash attack of mutant AR_FORGE (issue 7, part 1).
 */
#ifndef CS_MUTANT_FORGE_H
#define CS_MUTANT_FORGE_H

#include <stddef.h>
#include "collspec/backend.h"

/*
 * Turn r, the correct allreduce result of count elements of dtype d on
 * rank `rank` of P, into a forgery: only the share of the elements that
 * rank verified itself under the checker of commit b16a62d stays right,
 * the rest becomes the rank's own input `mine`, and one 64-bit word
 * outside the share is set so that that checker's unkeyed hash of the
 * receive range (cs_hash_bytes) equals the hash of the correct result.
 * Leaves r correct when P < 2 or no whole word lies outside the share.
 */
void mu_forge(cs_dtype_t d, const void *mine, void *r, size_t count, int rank,
	      int P);

#endif /* CS_MUTANT_FORGE_H */
