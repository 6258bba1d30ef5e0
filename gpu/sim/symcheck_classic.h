/*
 * symcheck_classic.h - the symbolic checker (symcheck.h) run on the
 * classic CPU algorithms of csgpu/sched_classic.h: rd, rhd, binomial.
 */
#ifndef CSGPU_SYMCHECK_CLASSIC_H
#define CSGPU_SYMCHECK_CLASSIC_H

#include <stddef.h>
#include "csgpu/sched_classic.h"
#include "symcheck.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The schedule of classic algorithm *a as a csg_sched_src_t for
 * csg_symcheck_ex (ctx points at a, which must outlive the source).
 */
csg_sched_src_t csg_classic_src(const csg_classic_t *a);

/*
 * Prove plan p (made by csg_cl_plan_init) under classic algorithm a, all
 * its channels: csg_symcheck_ex with csg_classic_src. Returns what
 * csg_symcheck_ex returns; msg as there.
 */
int csg_symcheck_classic(csg_classic_t a, const csg_plan_t *p, char *msg,
			 size_t len);

/* The name of a ("rd", "rhd", "binomial"), NULL when out of range. */
const char *csg_classic_name(csg_classic_t a);

#ifdef __cplusplus
}
#endif
#endif /* CSGPU_SYMCHECK_CLASSIC_H */
