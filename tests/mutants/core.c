/*
 * core.c - what each rank of a collective receives, from every rank's
 * staged input (see core.h). Reductions fold the ranks' prepared inputs
 * in rank order with csref's step arithmetic, so every rank that receives
 * a result computes the same bits; the faults of the mutants that break
 * the arithmetic or the layout are here, each under MUTANT(NAME).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "mutants.h"
#include "csref/arith.h"
#include "csref/catalog.h"
#include "csref/reduce.h"

/* PAT_BLOCK_REV, IP_PAT_BLOCK_REV: the blocks of allgather, alltoall and
 * alltoallv land in reverse rank order, and reducescatter gives rank r
 * block P-1-r (spec/patterns.md 7.2) */
#define BLOCK_REV (MUTANT(PAT_BLOCK_REV) || MUTANT(IP_PAT_BLOCK_REV))

size_t mu_send_elems(cs_coll_t coll, size_t count, int nranks, int root,
		     int rank, const size_t *sc, const size_t *sd)
{
	size_t P = (size_t)nranks, end = 0;
	int d;

	switch (coll) {
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
		return P * count;
	case CS_COLL_SCATTER:
		return rank == root ? P * count : 0;
	case CS_COLL_BROADCAST:
		return rank == root ? count : 0;
	case CS_COLL_ALLTOALLV:
		for (d = 0; d < nranks; d++)
			if (sc[d] && sd[d] + sc[d] > end)
				end = sd[d] + sc[d];
		return end;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return count;
	}
}

/* ---- reductions ---------------------------------------------------------- */

/* The rank folded in at step k of rank r's reduction. */
static int fold_rank(const struct mu_call *c, int r, int k)
{
	int P = c->nranks;
	int ar = c->coll == CS_COLL_ALLREDUCE, rd = c->coll == CS_COLL_REDUCE;

	/* AR_RANKROUND: each rank starts from its own input, so ranks round
	 * the same sum differently */
	if (MUTANT(AR_RANKROUND) && ar)
		return (r + k) % P;
	/* IP_AR_RANKROUND: odd ranks fold in reverse order */
	if (MUTANT(IP_AR_RANKROUND) && ar && r % 2)
		return P - 1 - k;
	/* AR_NONDET, IP_RD_NONDET: the association changes with every call
	 * (the same on every rank of one call) */
	if ((MUTANT(AR_NONDET) && ar) || (MUTANT(IP_RD_NONDET) && rd))
		return (int)((c->ncall + (unsigned long)k) % (unsigned long)P);
	return k;
}

/* The rank count avg divides by. */
static int avg_ranks(const struct mu_call *c)
{
	/* IP_AR_SUBCOMM: allreduce averages over the world's size, also in a
	 * communicator split from it */
	if (MUTANT(IP_AR_SUBCOMM) && c->coll == CS_COLL_ALLREDUCE)
		return c->world;
	return c->nranks;
}

/* x rounded to dtype `via` and back to d. */
static uint64_t through(cs_dtype_t d, cs_dtype_t via, uint64_t x)
{
	double v = cs_to_f64(via, cs_from_f64(via, cs_to_f64(d, x), 0));

	return cs_from_f64(d, v, 0);
}

/* The accumulator as a narrower store holds it (precision-loss mutants). */
static void acc_store(const struct mu_call *c, void *acc, size_t n)
{
	cs_dtype_t via;
	size_t i;

	/* AR_FP16ACC: allreduce accumulates float32 in a float16 buffer */
	if (MUTANT(AR_FP16ACC) && c->coll == CS_COLL_ALLREDUCE &&
	    c->d == CS_DTYPE_FLOAT32)
		via = CS_DTYPE_FLOAT16;
	/* IP_RD_F64ACC: reduce accumulates float64 in a float32 buffer */
	else if (MUTANT(IP_RD_F64ACC) && c->coll == CS_COLL_REDUCE &&
		 c->d == CS_DTYPE_FLOAT64)
		via = CS_DTYPE_FLOAT32;
	else
		return;
	for (i = 0; i < n; i++)
		cs_store(c->d, acc, i,
			 through(c->d, via, cs_load(c->d, acc, i)));
}

/* a + b rounded toward zero (AR_TRUNCATE). */
static uint64_t add_trunc(cs_dtype_t d, uint64_t a, uint64_t b)
{
	double x = cs_to_f64(d, a) + cs_to_f64(d, b);
	uint64_t r = cs_step(d, CS_OP_SUM, a, b);

	/* a magnitude rounded up is one encoding above the truncated one */
	if (!isnan(x) && !isinf(x) && fabs(cs_to_f64(d, r)) > fabs(x))
		r--;
	return r;
}

void mu_step(const struct mu_call *c, void *acc, const void *in, size_t n)
{
	size_t i;

	/* AR_TRUNCATE: allreduce sums of float32, float16 and bfloat16 round
	 * toward zero at every step instead of to nearest */
	if (MUTANT(AR_TRUNCATE) && c->coll == CS_COLL_ALLREDUCE &&
	    cs_step_op(c->op) == CS_OP_SUM &&
	    (c->d == CS_DTYPE_FLOAT32 || c->d == CS_DTYPE_FLOAT16 ||
	     c->d == CS_DTYPE_BFLOAT16)) {
		for (i = 0; i < n; i++)
			cs_store(c->d, acc, i,
				 add_trunc(c->d, cs_load(c->d, acc, i),
					   cs_load(c->d, in, i)));
		return;
	}
	cs_reduce_bufs(c->d, c->op, acc, in, n);
	acc_store(c, acc, n);
}

/* RS_BF16INT8: a bfloat16 contribution sent as int8 steps of its block's
 * largest magnitude / 127, and turned back into bfloat16. */
static void quantize(const struct mu_call *c, void *x, size_t n)
{
	cs_dtype_t d = c->d;
	double amax = 0, v;
	size_t i;

	if (!(MUTANT(RS_BF16INT8) && c->coll == CS_COLL_REDUCESCATTER &&
	      d == CS_DTYPE_BFLOAT16))
		return;
	for (i = 0; i < n; i++)
		if ((v = fabs(cs_to_f64(d, cs_load(d, x, i)))) > amax)
			amax = v;
	for (i = 0; i < n && amax > 0; i++) {
		v = rint(cs_to_f64(d, cs_load(d, x, i)) / amax * 127);
		cs_store(d, x, i, cs_from_f64(d, v * amax / 127, 0));
	}
}

void mu_contribution(const struct mu_call *c, int q, size_t off, size_t n,
		     void *dst)
{
	size_t es = cs_dtype_size(c->d);

	cs_op_prepare(c->d, c->op, avg_ranks(c), c->scalar[q], dst,
		      c->in[q] + off * es, n);
	quantize(c, dst, n);
}

void mu_finish(const struct mu_call *c, void *acc, size_t n)
{
	cs_op_finish(c->d, c->op, avg_ranks(c), acc, n);
}

/* out[0..n) = elements [off, off+n) reduced over every rank, as rank r
 * computes them. */
static int fold(const struct mu_call *c, int r, size_t off, size_t n,
		void *out)
{
	unsigned char *tmp = malloc(n * cs_dtype_size(c->d) + 1);
	int k;

	if (!tmp)
		return 1;
	mu_contribution(c, fold_rank(c, r, 0), off, n, out);
	acc_store(c, out, n);
	for (k = 1; k < c->nranks; k++) {
		mu_contribution(c, fold_rank(c, r, k), off, n, tmp);
		mu_step(c, out, tmp, n);
	}
	mu_finish(c, out, n);
	free(tmp);
	return 0;
}

/* Recursive doubling as MPICH makes it */
#define RD_SWAP (MUTANT(AR_RD_SWAP) || MUTANT(AR_RD_PROMISE))

/* acc = acc op in where the first operand wins what IEEE 754 leaves open:
 * two NaNs give acc's NaN (its payload and sign), a max/min tie of +0 and
 * -0 gives acc's zero (RD_SWAP); the rest as cs_step. */
static void first_wins(const struct mu_call *c, void *acc, const void *in,
		       size_t n)
{
	cs_fmt_t f = cs_fmt_of(c->d);
	uint64_t a, b, sign = cs_fmt_sign(f);
	int maxmin = c->op == CS_OP_MAX || c->op == CS_OP_MIN;

	for (size_t i = 0; i < n; i++) {
		a = cs_load(c->d, acc, i);
		b = cs_load(c->d, in, i);
		if (cs_fmt_isnan(f, a) && cs_fmt_isnan(f, b))
			continue;
		if (maxmin && ((a | b) & ~sign) == 0)
			continue;
		cs_store(c->d, acc, i, cs_step(c->d, cs_step_op(c->op), a, b));
	}
}

/*
 * RD_SWAP: out[0..n) = elements [off, off+n) over the ranks lo..lo+size-1
 * as rank r of that block computes them in recursive doubling (size a
 * power of two): its half's partial, then its partner's (as the partner
 * computed it) combined with its own first. Partners so compute a op b
 * and b op a in the same association: values alike, bits apart where
 * first_wins decides. 0, or 1 when out of memory.
 */
static int rd_fold(const struct mu_call *c, int r, int lo, int size,
		   size_t off, size_t n, void *out)
{
	int half = size / 2, low = r < lo + half, bad;
	unsigned char *tmp;

	if (size == 1) {
		mu_contribution(c, lo, off, n, out);
		return 0;
	}
	if (!(tmp = malloc(n * cs_dtype_size(c->d) + 1)))
		return 1;
	bad = rd_fold(c, r, low ? lo : lo + half, half, off, n, out) ||
	      rd_fold(c, low ? r + half : r - half, low ? lo + half : lo, half,
		      off, n, tmp);
	if (!bad)
		first_wins(c, out, tmp, n);
	free(tmp);
	return bad;
}

/* AR_ZERO_FLIP: allreduce max/min of floats: rank r writes -0 for every
 * +0 result outside the share of the elements it verifies itself
 * (conformance/check/check.c, check_slice), where no rank's value check
 * looks at its bits. */
static void zero_flip(const struct mu_call *c, int r, void *out)
{
	size_t P = (size_t)c->nranks, n = c->count, q = (size_t)r, lo, end;
	uint64_t sign = cs_fmt_sign(cs_fmt_of(c->d));

	if (!(c->op == CS_OP_MAX || c->op == CS_OP_MIN) || !cs_is_float(c->d))
		return;
	lo = n / P * q + (q < n % P ? q : n % P);
	end = lo + n / P + (q < n % P);
	for (size_t i = 0; i < n; i++)
		if ((i < lo || i >= end) && cs_load(c->d, out, i) == 0)
			cs_store(c->d, out, i, sign);
}

/* Accesses far outside an allreduce's receive range, beyond the harness's
 * guard bytes (the guard pages catch them). */
static void far_access(const struct mu_call *c, void *out)
{
	unsigned char *o = out;
	size_t end = c->count * cs_dtype_size(c->d);

	/* AR_FAR_AFTER: the byte 64 past the receive range is flipped */
	if (MUTANT(AR_FAR_AFTER))
		o[end + 64] ^= 0xffu;
	/* AR_FAR_READ: the byte 256 past the receive range is read (a
	 * vector load that runs over); nothing is written */
	if (MUTANT(AR_FAR_READ))
		(void)*(volatile unsigned char *)(o + end + 256);
	/* IP_AR_FAR_BEFORE: the byte 128 before the receive range is
	 * flipped */
	if (MUTANT(IP_AR_FAR_BEFORE))
		o[-128] ^= 0xffu;
}

static int allreduce(const struct mu_call *c, int r, void *out)
{
	size_t n = c->count, es = cs_dtype_size(c->d);
	int P = c->nranks;

	/* AR_RD_SWAP, AR_RD_PROMISE: floats at a power-of-two P reduce by
	 * recursive doubling (rd_fold), with avg's and premulsum's steps
	 * around it as fold's */
	if (RD_SWAP && cs_is_float(c->d) && P > 1 && (P & (P - 1)) == 0) {
		if (rd_fold(c, r, 0, P, 0, n, out))
			return 1;
		mu_finish(c, out, n);
		return 0;
	}
	if (MUTANT(AR_ZERO_FLIP)) {
		if (fold(c, r, 0, n, out))
			return 1;
		zero_flip(c, r, out);
		return 0;
	}

	/* AR_TAIL: the loop stops one element short; the last element keeps
	 * the rank's own input */
	if (MUTANT(AR_TAIL) && n > 0) {
		memcpy((unsigned char *)out + (n - 1) * es,
		       c->in[r] + (n - 1) * es, es);
		n--;
	}
	if (fold(c, r, 0, n, out))
		return 1;
	far_access(c, out);
	return 0;
}

static int reducescatter(const struct mu_call *c, int r, void *out)
{
	size_t n = c->count, off = (size_t)r * n;
	unsigned char *o = out;
	int rc;

	/* RS_CHUNK: block r is taken to start at r*(n-1) */
	if (MUTANT(RS_CHUNK) && n > 0)
		off = (size_t)r * (n - 1);
	if (BLOCK_REV)
		off = (size_t)(c->nranks - 1 - r) * n;
	rc = fold(c, r, off, n, out);
	/* IP_RS_UNDERRUN: a halo element is also written before the block */
	if (MUTANT(IP_RS_UNDERRUN) && n > 0)
		memcpy(o - cs_dtype_size(c->d), o, cs_dtype_size(c->d));
	return rc;
}

/* The rank that receives a reduce or a gather. */
static int dest_root(const struct mu_call *c)
{
	/* GA_ROOT: gather delivers to rank 0 whatever the root */
	if (MUTANT(GA_ROOT) && c->coll == CS_COLL_GATHER)
		return 0;
	/* IP_RD_ROOT: reduce delivers to the rank after the root */
	if (MUTANT(IP_RD_ROOT) && c->coll == CS_COLL_REDUCE)
		return (c->root + 1) % c->nranks;
	return c->root;
}

/* ---- data movement ------------------------------------------------------- */

/* Block q of an allgather or gather: in[q][0..n) at out + q*n. */
static void gather_blocks(const struct mu_call *c, unsigned char *out)
{
	size_t es = cs_dtype_size(c->d), b = c->count * es, P = c->nranks;
	size_t q, len;

	for (q = 0; q < P; q++) {
		size_t from = q;
		/* AG_ORDER: allgather lays the blocks out in reverse rank
		 * order */
		if ((MUTANT(AG_ORDER) || BLOCK_REV) &&
		    c->coll == CS_COLL_ALLGATHER)
			from = P - 1 - q;
		len = b;
		/* IP_GA_TAIL: gather copies the last rank's block one element
		 * short */
		if (MUTANT(IP_GA_TAIL) && c->coll == CS_COLL_GATHER &&
		    q == P - 1 && b)
			len -= es;
		memcpy(out + q * b, c->in[from], len);
	}
	/* AG_OVERRUN: allgather copies in units of 8 elements, rounding the
	 * receive range up */
	if (MUTANT(AG_OVERRUN) && c->coll == CS_COLL_ALLGATHER) {
		size_t n = P * c->count, up = (n + 7) / 8 * 8;
		memset(out + n * es, 0, (up - n) * es);
	}
}

static void broadcast(const struct mu_call *c, unsigned char *out)
{
	size_t es = cs_dtype_size(c->d), b = c->count * es, k, chunk = 256 * es;
	const unsigned char *src = c->in[c->root];

	if (MUTANT(BC_SHORT) && b) {
		/* BC_SHORT: the last element is left unwritten */
		memcpy(out, src, b - es);
	} else if (MUTANT(IP_BC_CHUNK)) {
		/* IP_BC_CHUNK: copies whole 256-element chunks only: the
		 * chunk count is one short whenever a partial chunk remains */
		for (k = 0; k < b / chunk; k++)
			memcpy(out + k * chunk, src + k * chunk, chunk);
	} else {
		memcpy(out, src, b);
	}
	/* BC_2ND_OVERRUN: on buffers it has seen before, one element more */
	if (MUTANT(BC_2ND_OVERRUN) && c->again)
		memset(out + b, 0, es);
}

static void scatter(const struct mu_call *c, int r, unsigned char *out)
{
	size_t b = c->count * cs_dtype_size(c->d), blk = (size_t)r;

	/* SC_SHARD: rank r receives block r+1 */
	if (MUTANT(SC_SHARD))
		blk = (blk + 1) % (size_t)c->nranks;
	memcpy(out, c->in[c->root] + blk * b, b);
}

static void alltoall(const struct mu_call *c, int r, unsigned char *out)
{
	size_t b = c->count * cs_dtype_size(c->d), q, P = (size_t)c->nranks;

	for (q = 0; q < P; q++)
		memcpy(out + (BLOCK_REV ? P - 1 - q : q) * b,
		       c->in[q] + (size_t)r * b, b);
	/* A2A_2ND_ZEROS: on buffers it has seen before, zeros */
	if (MUTANT(A2A_2ND_ZEROS) && c->again)
		memset(out, 0, b * (size_t)c->nranks);
}

static void alltoallv(const struct mu_call *c, int r, const size_t *rd,
		      unsigned char *out)
{
	size_t es = cs_dtype_size(c->d), at = 0, from;
	int s;

	for (s = 0; s < c->nranks; s++) {
		size_t n = c->sc[s][r], to = rd[s];
		from = c->sd[s][r];
		/* A2AV_SHARD: reads the sender's block at the displacement
		 * this rank sends to that sender with (a symmetric layout
		 * taken for granted) */
		if (MUTANT(A2AV_SHARD))
			from = c->sd[r][s];
		/* IP_A2AV_PACKED: receive blocks packed, the gaps ignored */
		if (MUTANT(IP_A2AV_PACKED))
			to = at;
		if (BLOCK_REV)
			to = rd[c->nranks - 1 - s];
		at += n;
		memcpy(out + to * es, c->in[s] + from * es, n * es);
	}
}

static void sendrecv(const struct mu_call *c, int r, unsigned char *out)
{
	size_t es = cs_dtype_size(c->d), b = c->count * es;
	int P = c->nranks, src = (r + P - 1) % P;

	/* SR_SUBCOMM: the source is worked out from the world rank */
	if (MUTANT(SR_SUBCOMM) && c->wrank >= 0)
		src = (c->wrank + P - 1) % P;
	/* SR_UNDERRUN: the copy lands one element early */
	if (MUTANT(SR_UNDERRUN) && b)
		out -= es;
	memcpy(out, c->in[src], b);
}

int mu_result(const struct mu_call *c, int r, const size_t *rd, void *out)
{
	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		return allreduce(c, r, out);
	case CS_COLL_REDUCESCATTER:
		return reducescatter(c, r, out);
	case CS_COLL_REDUCE:
		return r == dest_root(c) ? fold(c, r, 0, c->count, out) : 0;
	case CS_COLL_ALLGATHER:
		gather_blocks(c, out);
		return 0;
	case CS_COLL_GATHER:
		if (r == dest_root(c))
			gather_blocks(c, out);
		return 0;
	case CS_COLL_BROADCAST:
		broadcast(c, out);
		return 0;
	case CS_COLL_SCATTER:
		scatter(c, r, out);
		return 0;
	case CS_COLL_ALLTOALL:
		alltoall(c, r, out);
		return 0;
	case CS_COLL_ALLTOALLV:
		alltoallv(c, r, rd, out);
		return 0;
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		sendrecv(c, r, out);
		return 0;
	}
}
