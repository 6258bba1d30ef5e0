/*
 * catalog.h - names, properties and parsing of the catalog's entries.
 *
 * All tables are generated from spec/cs_catalog.h.
 */
#ifndef CSREF_CATALOG_H
#define CSREF_CATALOG_H

#include <stddef.h>
#include "cs_catalog.h"
#include "csref/status.h"

/* "No op": the op field of a case for a collective that does not reduce. */
#define CS_OP_NONE CS_NUM_OPS

#ifdef __cplusplus
extern "C" {
#endif

const char *cs_coll_name(cs_coll_t c);   /* "allreduce"; "?" if out of range */
const char *cs_coll_desc(cs_coll_t c);   /* one-line meaning */
int cs_coll_rooted(cs_coll_t c);         /* 1 if the call takes a root */
int cs_coll_reduces(cs_coll_t c);        /* 1 if the call takes an op */

const char *cs_dtype_name(cs_dtype_t d);
const char *cs_dtype_nccl_name(cs_dtype_t d); /* "ncclFloat16" */
size_t cs_dtype_size(cs_dtype_t d);           /* bytes per element */
int cs_dtype_kind(cs_dtype_t d);              /* CS_KIND_* */
int cs_dtype_is_float(cs_dtype_t d);
int cs_dtype_prec(cs_dtype_t d);              /* p, 0 for integers */
int cs_dtype_emin(cs_dtype_t d);
int cs_dtype_emax(cs_dtype_t d);

const char *cs_op_name(cs_op_t o);            /* "none" for CS_OP_NONE */
const char *cs_op_desc(cs_op_t o);
const char *cs_mode_name(cs_mode_t m);
const char *cs_mode_desc(cs_mode_t m);

/*
 * Parse a name into an enumerator. On an unknown name returns
 * CS_ERR_INVALID and cs_last_error() reads e.g.
 *   unknown dtype 'fp17'; valid dtypes: int8 uint8 ... float8_e5m2
 * cs_op_parse also accepts "none" (CS_OP_NONE).
 */
cs_status_t cs_coll_parse(const char *name, cs_coll_t *out);
cs_status_t cs_dtype_parse(const char *name, cs_dtype_t *out);
cs_status_t cs_op_parse(const char *name, cs_op_t *out);
cs_status_t cs_mode_parse(const char *name, cs_mode_t *out);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_CATALOG_H */
