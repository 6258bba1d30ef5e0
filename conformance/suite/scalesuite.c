/*
 * scalesuite.c - the `scale` suite's case list (scalesuite.h).
 *
 * Implementations break at sizes their authors did not try: a byte offset
 * kept in 32 bits wraps once a buffer passes 2^31 bytes, an element count
 * kept in an int once it passes 2^31 elements, a vector loop mishandles
 * the tail of a count no vector width divides, a chunking by P the count
 * P does not divide. Each class makes the call's count the least one that
 * crosses its boundary, odd and not a multiple of P; which buffer crosses
 * depends on the collective (allgather's receive buffer holds P blocks).
 * Such cases need gigabytes per rank: the worker skips, with the reason,
 * a case the machine's free memory cannot hold (base/memest.h).
 */
#include <stdlib.h>
#include <string.h>
#include "csref/catalog.h"
#include "suite/scalesuite.h"

static const char *const class_names[CS_NUM_SCALE_CLASSES] = {
	"bytes", "elements", "shard"};

const char *cs_scale_class_name(cs_scale_class_t k)
{
	return (unsigned)k < CS_NUM_SCALE_CLASSES ? class_names[k] : "?";
}

/* Elements of the largest buffer of any rank at count 1 (the buffers grow
 * linearly with the count; the root's are the largest): alltoallv as
 * uniform alltoall. */
static size_t largest_at_one(cs_coll_t coll, int P)
{
	cs_case_t c;
	size_t s, r;

	if (coll == CS_COLL_ALLTOALLV)
		return (size_t)P;
	memset(&c, 0, sizeof c);
	c.coll = coll;
	c.dtype = CS_DTYPE_INT8;
	c.op = cs_coll_reduces(coll) ? CS_OP_SUM : CS_OP_NONE;
	c.mode = CS_MODE_RANDOM;
	c.nranks = P;
	c.root = P - 1;
	c.count = 1;
	s = cs_case_send_count(&c, c.root);
	r = cs_case_recv_count(&c, c.root);
	return s > r ? s : r ? r : 1;
}

/* The class's count for dtype d (scalesuite.h, cs_scale_count). */
static size_t class_count(cs_coll_t coll, cs_scale_class_t k, int P,
			  cs_dtype_t d)
{
	size_t L = largest_at_one(coll, P), size = cs_dtype_size(d), n;

	switch (k) {
	case CS_SCALE_BYTES: /* L n size > 2^31 */
		n = ((size_t)1 << 31) / (L * size) + 1;
		break;
	case CS_SCALE_ELEMENTS: /* L n > 2^31 */
		n = ((size_t)1 << 31) / L + 1;
		break;
	case CS_SCALE_SHARD: /* n size > 2^32 */
		n = ((size_t)1 << 32) / size + 1;
		break;
	case CS_NUM_SCALE_CLASSES:
	default:
		return 0;
	}
	while (n % 2 == 0 || (P > 1 && n % (size_t)P == 0))
		n++;
	return n;
}

size_t cs_scale_count(cs_coll_t coll, cs_scale_class_t k, int P)
{
	if ((unsigned)coll >= CS_NUM_COLLS || P < 1)
		return 0;
	return class_count(coll, k, P,
			   k == CS_SCALE_ELEMENTS ? CS_DTYPE_INT8 : CS_DTYPE_FLOAT32);
}

/* The values of a mask (0: just dflt) among 0..n-1, into v; how many. */
static int levels(uint32_t mask, int n, int dflt, int *v)
{
	int i, k = 0;

	if (!mask) {
		v[0] = dflt;
		return 1;
	}
	for (i = 0; i < n; i++)
		if (mask & (1u << i))
			v[k++] = i;
	return k;
}

/* What every case of one (world, f) shares. */
struct ctx {
	int world;
	const cs_filter_t *f;
	cs_hcase_t *out; /* NULL: count only */
	size_t n;
	cs_status_t st;
};

/* Add the cases of (coll, dtype, count): each op and mode, each comm. */
static void add(struct ctx *x, cs_coll_t coll, cs_dtype_t d, size_t count)
{
	const cs_filter_t *f = x->f;
	int ops[CS_NUM_OPS + 1], modes[CS_NUM_MODES], comms[CS_NUM_COMMVARS];
	int a2av[CS_NUM_A2AV];
	int no, nm, nc, i, j, k;
	cs_status_t st;

	if (cs_coll_reduces(coll)) {
		no = levels(f->ops & ((1u << CS_NUM_OPS) - 1), CS_NUM_OPS,
			    CS_OP_SUM, ops);
		if (f->ops && !(f->ops & ((1u << CS_NUM_OPS) - 1)))
			no = 0; /* only "none" asked for */
	} else {
		no = !f->ops || (f->ops & (1u << CS_OP_NONE));
		ops[0] = CS_OP_NONE;
	}
	nm = levels(f->modes, CS_NUM_MODES, CS_MODE_RANDOM, modes);
	nc = levels(f->comms, CS_NUM_COMMVARS, CS_COMM_WORLD, comms);
	levels(f->a2av, CS_NUM_A2AV, CS_A2AV_UNIFORM, a2av);
	for (i = 0; i < no; i++)
		for (j = 0; j < nm; j++)
			for (k = 0; k < nc; k++) {
				cs_hcase_t hc;

				memset(&hc, 0, sizeof hc);
				hc.c.coll = coll;
				hc.c.dtype = d;
				hc.c.op = (cs_op_t)ops[i];
				hc.c.mode = (cs_mode_t)modes[j];
				hc.c.nranks = x->world;
				hc.c.root = !cs_coll_rooted(coll) ? 0
					    : f->root >= 0 ? f->root
							   : x->world - 1;
				hc.c.count = count;
				hc.c.seed = f->has_seed ? f->seed : 1;
				hc.inplace = f->inplace > 0;
				hc.comm = (cs_commvar_t)comms[k];
				hc.misalign = f->misalign > 0 ? f->misalign : 0;
				hc.a2av_pattern = (cs_a2av_pattern_t)a2av[0];
				if (hc.c.root >= x->world)
					continue;
				st = coll == CS_COLL_ALLTOALLV
					     ? CS_OK
					     : cs_case_validate(&hc.c);
				if (st != CS_OK) {
					/* an op the dtype lacks is left out;
					 * an overflow is the caller's error */
					if (st == CS_ERR_OVERFLOW && x->st == CS_OK)
						x->st = CS_ERR_OVERFLOW;
					continue;
				}
				hc.index = x->n;
				if (x->out)
					x->out[x->n] = hc;
				x->n++;
			}
}

/* Visit every case in order: collective, then class (or count), then
 * dtype, op, mode, communicator. */
static void visit(struct ctx *x)
{
	const cs_filter_t *f = x->f;
	int colls[CS_NUM_COLLS], dtypes[CS_NUM_DTYPES], nco, nd, i, j, k;

	if (f->colls)
		nco = levels(f->colls, CS_NUM_COLLS, 0, colls);
	else
		for (nco = 0; nco < CS_NUM_COLLS; nco++)
			colls[nco] = nco;
	nd = f->dtypes ? levels(f->dtypes, CS_NUM_DTYPES, 0, dtypes) : 0;
	for (i = 0; i < nco; i++) {
		cs_coll_t coll = (cs_coll_t)colls[i];

		if (f->ncounts) {
			int dd[2] = {CS_DTYPE_FLOAT32, CS_DTYPE_INT8};
			int *ds = nd ? dtypes : dd, m = nd ? nd : 2;
			for (k = 0; k < f->ncounts; k++)
				for (j = 0; j < m; j++)
					add(x, coll, (cs_dtype_t)ds[j], f->counts[k]);
			continue;
		}
		for (k = 0; k < CS_NUM_SCALE_CLASSES; k++) {
			int dflt = k == CS_SCALE_ELEMENTS ? CS_DTYPE_INT8
							  : CS_DTYPE_FLOAT32;
			int *ds = nd ? dtypes : &dflt, m = nd ? nd : 1;
			for (j = 0; j < m; j++) {
				cs_dtype_t d = (cs_dtype_t)ds[j];
				size_t cnt = class_count(coll, (cs_scale_class_t)k,
							 x->world, d);
				/* a 1-byte dtype crosses 2^31 bytes and 2^31
				 * elements at the same count: one case */
				if (nd && k == CS_SCALE_ELEMENTS &&
				    cnt == class_count(coll, CS_SCALE_BYTES,
						       x->world, d))
					continue;
				add(x, coll, d, cnt);
			}
		}
	}
}

cs_status_t cs_scalesuite_build(int world, const cs_filter_t *f,
				cs_hcase_t **out, size_t *n)
{
	struct ctx x = {world, f, NULL, 0, CS_OK};

	*out = NULL;
	*n = 0;
	if (world < 1)
		return cs_error(CS_ERR_INVALID, "suite scale: world size %d",
				world);
	visit(&x);
	if (x.st != CS_OK)
		return cs_error(x.st, "suite scale: a --count makes a buffer "
				"size overflow");
	if (!x.n)
		return CS_OK;
	if (!(x.out = malloc(x.n * sizeof *x.out)))
		return cs_error(CS_ERR_NOMEM, "suite scale: out of memory for "
				"%zu cases", x.n);
	x.n = 0;
	visit(&x);
	*out = x.out;
	*n = x.n;
	return CS_OK;
}
