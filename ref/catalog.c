/* catalog.c - tables generated from spec/cs_catalog.h, and name parsing. */
#include <stdio.h>
#include <string.h>
#include "csref/catalog.h"

struct coll_info { const char *name, *desc; int rooted, reduces; };
struct dtype_info {
	const char *name, *nccl;
	size_t size;
	int kind, prec, emin, emax;
};
struct named { const char *name, *desc; };

#define COLL_ROW(ID, name, rooted, reduces, desc) {#name, desc, rooted, reduces},
static const struct coll_info colls[] = {CS_COLL_LIST(COLL_ROW)};
#define DTYPE_ROW(ID, name, bytes, kind, prec, emin, emax, ebits, fn, nccl, \
		  mpi)                                                        \
	{#name, #nccl, bytes, kind, prec, emin, emax},
static const struct dtype_info dtypes[] = {CS_DTYPE_LIST(DTYPE_ROW)};
#define NAMED_ROW(ID, name, desc) {#name, desc},
static const struct named ops[] = {CS_OP_LIST(NAMED_ROW)};
static const struct named modes[] = {CS_MODE_LIST(NAMED_ROW)};

#define IN(x, n) ((unsigned)(x) < (unsigned)(n))

const char *cs_coll_name(cs_coll_t c) { return IN(c, CS_NUM_COLLS) ? colls[c].name : "?"; }
const char *cs_coll_desc(cs_coll_t c) { return IN(c, CS_NUM_COLLS) ? colls[c].desc : "?"; }
int cs_coll_rooted(cs_coll_t c) { return IN(c, CS_NUM_COLLS) && colls[c].rooted; }
int cs_coll_reduces(cs_coll_t c) { return IN(c, CS_NUM_COLLS) && colls[c].reduces; }

const char *cs_dtype_name(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].name : "?"; }
const char *cs_dtype_nccl_name(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].nccl : "?"; }
size_t cs_dtype_size(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].size : 0; }
int cs_dtype_kind(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].kind : -1; }
int cs_dtype_is_float(cs_dtype_t d) { return cs_dtype_kind(d) == CS_KIND_FLOAT; }
int cs_dtype_prec(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].prec : 0; }
int cs_dtype_emin(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].emin : 0; }
int cs_dtype_emax(cs_dtype_t d) { return IN(d, CS_NUM_DTYPES) ? dtypes[d].emax : 0; }

const char *cs_op_name(cs_op_t o)
{
	if (o == CS_OP_NONE)
		return "none";
	return IN(o, CS_NUM_OPS) ? ops[o].name : "?";
}

const char *cs_op_desc(cs_op_t o)
{
	if (o == CS_OP_NONE)
		return "no reduction";
	return IN(o, CS_NUM_OPS) ? ops[o].desc : "?";
}

const char *cs_mode_name(cs_mode_t m) { return IN(m, CS_NUM_MODES) ? modes[m].name : "?"; }
const char *cs_mode_desc(cs_mode_t m) { return IN(m, CS_NUM_MODES) ? modes[m].desc : "?"; }

/* Find name among n names spaced `stride` bytes apart; on failure set an
 * error listing the valid names. */
static cs_status_t parse_name(const char *what, const char *name,
			      const void *table, size_t stride, int n, int *out)
{
	char list[512];
	size_t used = 0;
	int i;

	for (i = 0; name && i < n; i++) {
		const char *cand = *(const char *const *)((const char *)table + i * stride);
		if (strcmp(cand, name) == 0) {
			*out = i;
			return CS_OK;
		}
	}
	list[0] = '\0';
	for (i = 0; i < n && used < sizeof list; i++) {
		const char *cand = *(const char *const *)((const char *)table + i * stride);
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
					 i ? " " : "", cand);
	}
	return cs_error(CS_ERR_INVALID, "unknown %s '%s'; valid %ss: %s", what,
			name ? name : "(null)", what, list);
}

cs_status_t cs_coll_parse(const char *name, cs_coll_t *out)
{
	int i = 0;
	cs_status_t st = parse_name("collective", name, colls, sizeof colls[0],
				    CS_NUM_COLLS, &i);
	*out = (cs_coll_t)i;
	return st;
}

cs_status_t cs_dtype_parse(const char *name, cs_dtype_t *out)
{
	int i = 0;
	cs_status_t st = parse_name("dtype", name, dtypes, sizeof dtypes[0],
				    CS_NUM_DTYPES, &i);
	*out = (cs_dtype_t)i;
	return st;
}

cs_status_t cs_op_parse(const char *name, cs_op_t *out)
{
	int i = 0;
	cs_status_t st;

	if (name && strcmp(name, "none") == 0) {
		*out = CS_OP_NONE;
		return CS_OK;
	}
	st = parse_name("op", name, ops, sizeof ops[0], CS_NUM_OPS, &i);
	*out = (cs_op_t)i;
	return st;
}

cs_status_t cs_mode_parse(const char *name, cs_mode_t *out)
{
	int i = 0;
	cs_status_t st = parse_name("mode", name, modes, sizeof modes[0],
				    CS_NUM_MODES, &i);
	*out = (cs_mode_t)i;
	return st;
}
