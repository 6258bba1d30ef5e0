/*
 * ring_plugin.c - an example collspec backend plugin, meant to be copied:
 * ring allreduce, allgather and reducescatter over MPI point-to-point, on
 * host memory, one rank per process.
 *
 * What a plugin is: a shared object that exports one function,
 * collspec_backend(), returning a cs_backend_t (collspec/backend.h) that
 * says what the plugin is (memory kind, process model) and holds pointers
 * to its functions. Run it with
 *
 *     collspec run --backend plugin:/path/to/libring_plugin.so --ranks 1-8
 *
 * The algorithms (P ranks, the buffer cut into P blocks, one per rank):
 *   reduce-scatter phase: P-1 steps; at each step a rank sends one block
 *       to the next rank and folds the block it receives from the previous
 *       rank into its own copy of that block. Afterwards rank r holds block
 *       r reduced over all ranks.
 *   allgather phase: P-1 steps; each rank passes on the finished block it
 *       received last, until every rank holds every block.
 *   allreduce = reduce-scatter phase, then allgather phase.
 * Each block is moved in slices of at most RING_SLICE bytes (MPI counts are
 * int, and slices are how a real implementation would pipeline).
 *
 * Arithmetic: this example reduces the integer dtypes, float32 and float64
 * with every op; float16, bfloat16 and the float8 types are declined in
 * supports() with a reason, so the harness reports those cases as SKIP.
 * What it knows of a dtype (size, signedness, float format) comes from the
 * catalog's columns (CS_DTYPE_LIST in cs_catalog.h), not from a list of
 * dtype names.
 * Every element is combined in 64 bits (integers, wrapping modulo 2^64 and
 * then truncated to their width, which is the wrap modulo 2^bits the spec
 * asks for) or in double (floats; a float32 sum or product computed in
 * double and rounded to float is the correctly rounded float operation).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collspec/backend.h"

#define RING_SLICE ((size_t)1 << 20) /* bytes per message */
#define RING_TAG 0x5249

/* Export only the entry point (the build hides everything else). */
#define RING_EXPORT __attribute__((visibility("default")))

/* A communicator of this plugin: an MPI communicator of its own. */
struct ring_comm {
	MPI_Comm comm;
	int rank, size;
};

/* Set when this plugin called MPI_Init itself (no MPI channel given). */
static int ring_own_mpi;

/* The message of the last failure (the harness calls from one thread). */
static char ring_err[512];

static int ring_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ring_err, sizeof ring_err, fmt, ap);
	va_end(ap);
	return code;
}

/* 0 for MPI_SUCCESS, else the MPI error code, with its text recorded. */
static int ring_mpi(int err, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (err == MPI_SUCCESS)
		return 0;
	MPI_Error_string(err, text, &len);
	return ring_fail(err, "%s failed: %s", call, text);
}

/* ---- element arithmetic -------------------------------------------------- */

/* What this example needs to know of each dtype, from the catalog's
 * columns (spec/cs_catalog.h): a new catalog line needs no edit here. */
struct ring_dtype {
	const char *name;
	size_t size;    /* bytes per element */
	int kind, prec; /* CS_KIND_*; a float's precision in bits */
};

#define RING_DTYPE_(ID, name, bytes, kind, prec, ...)                         \
	[CS_DTYPE_##ID] = { #name, (bytes), (kind), (prec) },
static const struct ring_dtype ring_dt[CS_NUM_DTYPES] = {
	CS_DTYPE_LIST(RING_DTYPE_)
};
#undef RING_DTYPE_

static int ring_is_float(cs_dtype_t d)
{
	return ring_dt[d].kind == CS_KIND_FLOAT;
}

static int ring_is_signed(cs_dtype_t d)
{
	return ring_dt[d].kind == CS_KIND_SINT;
}

/* The dtypes this example can reduce: integers of 1, 2, 4 or 8 bytes and
 * the floats that are C's float or double. */
static int ring_can_reduce(cs_dtype_t d)
{
	size_t n = ring_dt[d].size;

	if (!ring_is_float(d))
		return n == 1 || n == 2 || n == 4 || n == 8;
	return (n == sizeof(float) && ring_dt[d].prec == FLT_MANT_DIG) ||
	       (n == sizeof(double) && ring_dt[d].prec == DBL_MANT_DIG);
}

/* One element as a number: u for integers (signed ones sign-extended),
 * f for floats. */
typedef union ring_val {
	uint64_t u;
	double f;
} ring_val_t;

/* Element i of buf (a dtype ring_can_reduce accepts). */
static ring_val_t ring_load(cs_dtype_t d, const void *buf, size_t i)
{
	size_t n = ring_dt[d].size;
	const unsigned char *p = (const unsigned char *)buf + i * n;
	ring_val_t v = { 0 };
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	float f;

	if (ring_is_float(d)) {
		if (n == sizeof(float)) {
			memcpy(&f, p, n);
			v.f = f;
		} else {
			memcpy(&v.f, p, n);
		}
		return v;
	}
	switch (n) {
	case 1: memcpy(&u8, p, 1); v.u = u8; break;
	case 2: memcpy(&u16, p, 2); v.u = u16; break;
	case 4: memcpy(&u32, p, 4); v.u = u32; break;
	default: memcpy(&v.u, p, 8); break;
	}
	if (ring_is_signed(d) && n < 8 && (v.u >> (8 * n - 1)))
		v.u |= ~(uint64_t)0 << (8 * n); /* sign-extended */
	return v;
}

/* Store v as element i of buf: integers keep their low bits (the wrap),
 * float rounds to nearest, ties to even. */
static void ring_store(cs_dtype_t d, void *buf, size_t i, ring_val_t v)
{
	size_t n = ring_dt[d].size;
	unsigned char *p = (unsigned char *)buf + i * n;
	uint8_t u8 = (uint8_t)v.u;
	uint16_t u16 = (uint16_t)v.u;
	uint32_t u32 = (uint32_t)v.u;
	float f;

	if (ring_is_float(d)) {
		if (n == sizeof(float)) {
			f = (float)v.f;
			memcpy(p, &f, n);
		} else {
			memcpy(p, &v.f, n);
		}
		return;
	}
	switch (n) {
	case 1: memcpy(p, &u8, 1); break;
	case 2: memcpy(p, &u16, 2); break;
	case 4: memcpy(p, &u32, 4); break;
	default: memcpy(p, &v.u, 8); break;
	}
}

/* a op b. avg and premulsum combine contributions by summing. max and min
 * use fmax/fmin for floats: a NaN is ignored unless both are NaN. Every op
 * is listed: a new catalog op fails to compile here (-Wswitch-enum) until
 * it is given its arithmetic. */
static ring_val_t ring_combine(cs_dtype_t d, cs_op_t op, ring_val_t a,
			       ring_val_t b)
{
	int fl = ring_is_float(d), sg = ring_is_signed(d);

	switch (op) {
	case CS_OP_SUM:
	case CS_OP_AVG:
	case CS_OP_PREMULSUM:
		if (fl)
			a.f += b.f;
		else
			a.u += b.u;
		return a;
	case CS_OP_PROD:
		if (fl)
			a.f *= b.f;
		else
			a.u *= b.u;
		return a;
	case CS_OP_MAX:
		if (fl)
			a.f = fmax(a.f, b.f);
		else if (sg ? (int64_t)b.u > (int64_t)a.u : b.u > a.u)
			a = b;
		return a;
	case CS_OP_MIN:
		if (fl)
			a.f = fmin(a.f, b.f);
		else if (sg ? (int64_t)b.u < (int64_t)a.u : b.u < a.u)
			a = b;
		return a;
	case CS_NUM_OPS: /* not an op: supports() refused the case */
		break;
	}
	return a;
}

/* dst[i] = dst[i] op src[i] for n elements. */
static void ring_reduce(cs_dtype_t d, cs_op_t op, void *dst, const void *src,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ring_store(d, dst, i, ring_combine(d, op, ring_load(d, dst, i),
						   ring_load(d, src, i)));
}

/* premulsum: multiply this rank's own contribution by its scalar first. */
static void ring_premul(cs_dtype_t d, void *buf, size_t n, const void *scalar)
{
	ring_val_t s = ring_load(d, scalar, 0);
	size_t i;

	for (i = 0; i < n; i++)
		ring_store(d, buf, i, ring_combine(d, CS_OP_PROD,
						   ring_load(d, buf, i), s));
}

/* avg: the finished sum divided by P (integers: C division, truncating
 * toward zero, of the wrapped sum read as the dtype's value). */
static void ring_divide(cs_dtype_t d, void *buf, size_t n, int P)
{
	ring_val_t v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = ring_load(d, buf, i);
		if (ring_is_float(d))
			v.f /= P;
		else if (ring_is_signed(d))
			v.u = (uint64_t)((int64_t)v.u / P);
		else
			v.u /= (uint64_t)P;
		ring_store(d, buf, i, v);
	}
}

/* ---- the ring ------------------------------------------------------------ */

/* Block b of n elements cut into P blocks: the first n % P blocks have one
 * element more. */
static void ring_block(size_t n, int P, int b, size_t *off, size_t *len)
{
	size_t base = n / (size_t)P, extra = n % (size_t)P, ub = (size_t)b;

	*off = ub * base + (ub < extra ? ub : extra);
	*len = base + (ub < extra ? 1 : 0);
}

static int ring_mod(int a, int P)
{
	return ((a % P) + P) % P;
}

static size_t ring_slices(size_t bytes)
{
	return (bytes + RING_SLICE - 1) / RING_SLICE;
}

/*
 * One ring step: send sbytes at sbuf to the next rank while receiving
 * rbytes from the previous rank into rbuf, each in slices. Both sides of a
 * link agree on the size (it is the same block), so on the slices too.
 */
static int ring_exchange(const struct ring_comm *c, const void *sbuf,
			 size_t sbytes, void *rbuf, size_t rbytes)
{
	size_t ns = ring_slices(sbytes), nr = ring_slices(rbytes), k, len;
	int next = ring_mod(c->rank + 1, c->size);
	int prev = ring_mod(c->rank - 1, c->size);
	MPI_Request *req = malloc((ns + nr + 1) * sizeof *req);
	/* real statuses, not MPI_STATUSES_IGNORE: MPICH defines that as
	 * (MPI_Status *)1, which GCC 12 reports as a stringop-overflow */
	MPI_Status *stat = malloc((ns + nr + 1) * sizeof *stat);
	int rc = 0;

	if (!req || !stat) {
		free(req);
		free(stat);
		return ring_fail(MPI_ERR_NO_MEM, "ring: out of memory");
	}
	for (k = 0; k < nr && !rc; k++) {
		len = rbytes - k * RING_SLICE < RING_SLICE ? rbytes - k * RING_SLICE
							   : RING_SLICE;
		rc = ring_mpi(MPI_Irecv((char *)rbuf + k * RING_SLICE, (int)len,
					MPI_BYTE, prev, RING_TAG, c->comm,
					&req[k]), "MPI_Irecv");
	}
	for (k = 0; k < ns && !rc; k++) {
		len = sbytes - k * RING_SLICE < RING_SLICE ? sbytes - k * RING_SLICE
							   : RING_SLICE;
		rc = ring_mpi(MPI_Isend((const char *)sbuf + k * RING_SLICE,
					(int)len, MPI_BYTE, next, RING_TAG,
					c->comm, &req[nr + k]), "MPI_Isend");
	}
	if (!rc)
		rc = ring_mpi(MPI_Waitall((int)(nr + ns), req, stat),
			      "MPI_Waitall");
	free(req);
	free(stat);
	return rc;
}

/*
 * Reduce-scatter phase over buf (n elements, this rank's contribution
 * already prepared in it), using tmp (one block) for what arrives. Rank r
 * ends with block r reduced over every rank; other blocks hold partials.
 */
static int ring_reduce_scatter_phase(const struct ring_comm *c, cs_dtype_t d,
				     cs_op_t op, char *buf, size_t n, char *tmp)
{
	size_t es = ring_dt[d].size, soff, slen, roff, rlen;
	int k, sb, rb, rc;

	for (k = 0; k < c->size - 1; k++) {
		/* step k: pass block r-k-1 on to the next rank ... */
		sb = ring_mod(c->rank - k - 1, c->size);
		/* ... and take block r-k-2, which the previous rank passes */
		rb = ring_mod(c->rank - k - 2, c->size);
		ring_block(n, c->size, sb, &soff, &slen);
		ring_block(n, c->size, rb, &roff, &rlen);
		rc = ring_exchange(c, buf + soff * es, slen * es, tmp, rlen * es);
		if (rc)
			return rc;
		/* fold our contribution in: block rb now has k+2 ranks' */
		ring_reduce(d, op, buf + roff * es, tmp, rlen);
	}
	return 0;
}

/*
 * Allgather phase over buf (n elements), where this rank's block r is
 * final: after it every block is, on every rank.
 */
static int ring_allgather_phase(const struct ring_comm *c, size_t es,
				char *buf, size_t n)
{
	size_t soff, slen, roff, rlen;
	int k, sb, rb, rc;

	for (k = 0; k < c->size - 1; k++) {
		/* step k: pass on block r-k (our own at step 0, then the one
		 * received last) and receive block r-k-1 straight in place */
		sb = ring_mod(c->rank - k, c->size);
		rb = ring_mod(c->rank - k - 1, c->size);
		ring_block(n, c->size, sb, &soff, &slen);
		ring_block(n, c->size, rb, &roff, &rlen);
		rc = ring_exchange(c, buf + soff * es, slen * es, buf + roff * es,
				   rlen * es);
		if (rc)
			return rc;
	}
	return 0;
}

/* The reduce-scatter phase with its preparation (premulsum) and finish
 * (avg on this rank's block, so that every rank gets the same bits). */
static int ring_reduce_blocks(const struct ring_comm *c, cs_dtype_t d,
			      cs_op_t op, const void *scalar, char *buf,
			      size_t n)
{
	size_t es = ring_dt[d].size, off, len, boff, blen;
	char *tmp;
	int rc;

	if (op == CS_OP_PREMULSUM)
		ring_premul(d, buf, n, scalar);
	ring_block(n, c->size, 0, &off, &len); /* block 0 is the largest */
	tmp = malloc(len * es + 1);
	if (!tmp)
		return ring_fail(MPI_ERR_NO_MEM, "ring: out of memory");
	rc = ring_reduce_scatter_phase(c, d, op, buf, n, tmp);
	free(tmp);
	ring_block(n, c->size, c->rank, &boff, &blen);
	if (!rc && op == CS_OP_AVG)
		ring_divide(d, buf + boff * es, blen, c->size);
	return rc;
}

/* ---- the collectives ----------------------------------------------------- */

static int ring_allreduce(const void *sendbuff, void *recvbuff, size_t count,
			  cs_dtype_t dtype, cs_op_t op, const void *scalar,
			  cs_bcomm_t comm, void *stream)
{
	const struct ring_comm *c = comm;
	size_t es = ring_dt[dtype].size;
	int rc;

	(void)stream;
	/* work in the receive buffer; in place it already holds the input */
	if (sendbuff != recvbuff)
		memcpy(recvbuff, sendbuff, count * es);
	rc = ring_reduce_blocks(c, dtype, op, scalar, recvbuff, count);
	if (rc)
		return rc;
	return ring_allgather_phase(c, es, recvbuff, count);
}

static int ring_reducescatter(const void *sendbuff, void *recvbuff,
			      size_t recvcount, cs_dtype_t dtype, cs_op_t op,
			      const void *scalar, cs_bcomm_t comm, void *stream)
{
	const struct ring_comm *c = comm;
	size_t es = ring_dt[dtype].size, n = (size_t)c->size * recvcount;
	char *work = malloc(n * es + 1);
	int rc;

	(void)stream;
	/* the send buffer must stay untouched: reduce in a copy of it */
	if (!work)
		return ring_fail(MPI_ERR_NO_MEM, "ring: out of memory");
	memcpy(work, sendbuff, n * es);
	rc = ring_reduce_blocks(c, dtype, op, scalar, work, n);
	/* P blocks of recvcount: ours is at rank * recvcount */
	if (!rc)
		memmove(recvbuff, work + (size_t)c->rank * recvcount * es,
			recvcount * es);
	free(work);
	return rc;
}

static int ring_allgather(const void *sendbuff, void *recvbuff,
			  size_t sendcount, cs_dtype_t dtype, cs_bcomm_t comm,
			  void *stream)
{
	const struct ring_comm *c = comm;
	size_t es = ring_dt[dtype].size;
	char *own = (char *)recvbuff + (size_t)c->rank * sendcount * es;

	(void)stream;
	/* our block into its place (in place it is there already) */
	if (sendbuff != own)
		memcpy(own, sendbuff, sendcount * es);
	return ring_allgather_phase(c, es, recvbuff,
				    (size_t)c->size * sendcount);
}

/* ---- communicators ------------------------------------------------------- */

static int ring_wrap(MPI_Comm comm, cs_bcomm_t *out)
{
	struct ring_comm *c = malloc(sizeof *c);

	if (!c) {
		MPI_Comm_free(&comm);
		return ring_fail(MPI_ERR_NO_MEM, "ring: out of memory");
	}
	/* errors come back as codes rather than aborting the job */
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	c->comm = comm;
	MPI_Comm_rank(comm, &c->rank);
	MPI_Comm_size(comm, &c->size);
	*out = c;
	return 0;
}

/* No MPI channel from the harness: start MPI if needed and order
 * MPI_COMM_WORLD's processes by their bootstrap rank. */
static int ring_own_world(const cs_bootstrap_t *world, MPI_Comm *comm)
{
	int flag = 0, size = 0, rc;

	MPI_Initialized(&flag);
	if (!flag) {
		if ((rc = ring_mpi(MPI_Init(NULL, NULL), "MPI_Init")) != 0)
			return rc;
		ring_own_mpi = 1;
	}
	if ((rc = ring_mpi(MPI_Comm_split(MPI_COMM_WORLD, 0, world->rank, comm),
			   "MPI_Comm_split")) != 0)
		return rc;
	MPI_Comm_size(*comm, &size);
	if (size == world->nranks)
		return 0;
	MPI_Comm_free(comm);
	return ring_fail(MPI_ERR_OTHER, "MPI_COMM_WORLD has %d processes but "
			 "the harness's group has %d ranks", size, world->nranks);
}

static int ring_init(const cs_bootstrap_t *world, const char *options,
		     cs_bcomm_t *out)
{
	MPI_Comm comm;
	int rc;

	if (options && *options)
		return ring_fail(MPI_ERR_ARG, "the ring plugin takes no options "
				 "(got '%s')", options);
	if (world->mpi_comm)
		rc = ring_mpi(MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm,
					   &comm), "MPI_Comm_dup");
	else
		rc = ring_own_world(world, &comm);
	return rc ? rc : ring_wrap(comm, out);
}

/* The harness has split its own channel with the same color and key, so
 * the new group's ranks match its bootstrap's. */
static int ring_comm_split(cs_bcomm_t comm, int color, int key,
			   const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	const struct ring_comm *c = comm;
	MPI_Comm nc;
	int rc;

	(void)sub;
	rc = ring_mpi(MPI_Comm_split(c->comm, color, key, &nc),
		      "MPI_Comm_split");
	return rc ? rc : ring_wrap(nc, out);
}

static int ring_comm_free(cs_bcomm_t comm)
{
	struct ring_comm *c = comm;
	int rc = ring_mpi(MPI_Comm_free(&c->comm), "MPI_Comm_free");

	free(c);
	return rc;
}

static int ring_finalize(void)
{
	if (!ring_own_mpi)
		return 0;
	ring_own_mpi = 0;
	return ring_mpi(MPI_Finalize(), "MPI_Finalize");
}

/* ---- what the harness asks besides the calls ----------------------------- */

static int ring_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
			 char *reason, size_t len)
{
	int reduces = q->coll == CS_COLL_ALLREDUCE ||
		      q->coll == CS_COLL_REDUCESCATTER;

	(void)comm;
	/* a harness with a longer catalog may ask about entries this plugin
	 * was compiled without: decline them (backend.h) */
	if ((unsigned)q->dtype >= CS_NUM_DTYPES ||
	    (unsigned)q->coll >= CS_NUM_COLLS ||
	    (reduces && (unsigned)q->op >= CS_NUM_OPS)) {
		snprintf(reason, len, "dtype %d, op %d or collective %d is newer "
			 "than the catalog the ring example was built with",
			 (int)q->dtype, (int)q->op, (int)q->coll);
		return 0;
	}
	/* allgather only moves bytes: every dtype works */
	if (reduces && !ring_can_reduce(q->dtype)) {
		snprintf(reason, len, "the ring example has no %s arithmetic "
			 "(it reduces integers, float32 and float64)",
			 ring_dt[q->dtype].name);
		return 0;
	}
	return 1;
}

static int ring_synchronize(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	(void)stream;
	return 0; /* every call has finished when it returns */
}

static const char *ring_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	(void)err;
	return ring_err[0] ? ring_err : "unknown error";
}

static const cs_backend_t ring_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "ring-example",
	.description = "example plugin: ring allreduce, allgather and "
		       "reducescatter over MPI point-to-point",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = ring_init,
	.comm_split = ring_comm_split,
	.comm_free = ring_comm_free,
	.finalize = ring_finalize,
	.supports = ring_supports,
	.allreduce = ring_allreduce,
	.allgather = ring_allgather,
	.reducescatter = ring_reducescatter,
	/* the other collectives are NULL: the harness skips their cases */
	.synchronize = ring_synchronize,
	.error_string = ring_error_string,
};

/*
 * The entry point. The struct is returned whatever version the harness
 * asks for: when the versions differ the harness refuses it with a
 * message naming both, which is more useful than a bare NULL.
 */
RING_EXPORT const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &ring_backend;
}
