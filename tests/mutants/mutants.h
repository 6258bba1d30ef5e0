/*
 * mutants.h - the deliberately broken implementations the conformance
 * harness must catch (issue 7, "proof by mutants").
 *
 * Two correct bases implement all ten collectives: base_rpp.c (one rank per
 * process, data moved through the bootstrap callbacks) and base_ip.c (all
 * ranks in one process). A mutant is one of them compiled with
 * -DCS_MUTANT=MUT_<NAME>: each fault is a compile-time constant condition,
 * MUTANT(NAME), so every mutant is a different binary and the base
 * (CS_MUTANT undefined, MUT_NONE) contains no fault at all.
 *
 * The list below names every mutant with the base it is built on; what
 * each breaks is said where the fault is, and tests/mutants/CMakeLists.txt
 * and docs/reliability.md ("Mutants") say how each is caught.
 */
#ifndef CS_MUTANTS_H
#define CS_MUTANTS_H

#define MU_LIST(X)                                                           \
	X(NONE)                                                              \
	/* one rank per process (base_rpp.c) */                              \
	X(AR_TAIL) X(RS_CHUNK) X(AG_ORDER) X(SC_SHARD) X(A2AV_SHARD)         \
	X(BC_ROOT) X(GA_ROOT) X(AR_ALIAS) X(A2A_ALIAS) X(AG_OVERRUN)         \
	X(SR_UNDERRUN) X(BC_SHORT) X(RD_CLOBBER) X(AR_FP16ACC)               \
	X(RS_BF16INT8) X(AR_TRUNCATE) X(AR_RANKROUND) X(AR_NONDET)           \
	X(AR_2ND_STALE) X(A2A_2ND_ZEROS) X(RS_2ND_CLOBBER)                   \
	X(BC_2ND_OVERRUN) X(SR_SUBCOMM) X(GA_HANG) X(SC_CRASH) X(AR_FORGE)   \
	X(PAT_SPLIT_WORLD) X(PAT_BLOCK_REV) X(AR_RD_SWAP) X(AR_RD_PROMISE)   \
	X(AR_ZERO_FLIP)                                                      \
	X(AR_FAR_AFTER) X(AR_FAR_READ)                                       \
	/* all ranks in one process (base_ip.c) */                           \
	X(IP_SPLIT_ORDER) X(IP_BC_CHUNK) X(IP_GA_TAIL) X(IP_A2AV_PACKED)     \
	X(IP_RD_ROOT) X(IP_A2A_ALIAS) X(IP_RS_UNDERRUN) X(IP_AG_CLOBBER)     \
	X(IP_SC_CLOBBER) X(IP_RD_F64ACC) X(IP_AR_RANKROUND) X(IP_RD_NONDET)  \
	X(IP_SR_2ND_STALE) X(IP_AR_SUBCOMM) X(IP_A2A_HANG) X(IP_A2AV_CRASH)  \
	X(IP_PAT_SPLIT_WORLD) X(IP_PAT_BLOCK_REV) X(IP_AR_FAR_BEFORE)

#define MU_ENUM_(name) MUT_##name,
enum mu_mutant { MU_LIST(MU_ENUM_) MU_NUM };
#undef MU_ENUM_

#ifndef CS_MUTANT
#define CS_MUTANT MUT_NONE
#endif

/* 1 when this binary is mutant `name` (a constant: dead code otherwise). */
#define MUTANT(name) (CS_MUTANT == MUT_##name)

#endif /* CS_MUTANTS_H */
