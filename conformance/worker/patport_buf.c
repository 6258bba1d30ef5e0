/*
 * patport_buf.c - the pattern port's staged buffers (patport_impl.h): each
 * call's send and receive ranges between guard bytes, the receive range
 * filled with canaries, device copies for a CUDA backend; and the checks
 * of what a call left in them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csgpu/device.h"
#include "csref/arith.h"
#include "check/exec.h"
#include "worker/patport_impl.h"

/* ---- staging ------------------------------------------------------------ */

static int cuda(const cs_patport_t *p)
{
	return p->w->b->mem_kind == CS_MEM_CUDA;
}

static void fill_guards(unsigned char *h, size_t bytes, size_t tail)
{
	for (size_t k = 0; k < CS_GUARD_BYTES; k++)
		h[k] = cs_exec_guard_byte(k, 0);
	for (size_t k = 0; k < tail; k++)
		h[CS_GUARD_BYTES + bytes + k] = cs_exec_guard_byte(k, 1);
}

static int guards_ok(const unsigned char *h, size_t bytes, size_t tail)
{
	for (size_t k = 0; k < CS_GUARD_BYTES; k++)
		if (h[k] != cs_exec_guard_byte(k, 0))
			return 0;
	for (size_t k = 0; k < tail; k++)
		if (h[CS_GUARD_BYTES + bytes + k] != cs_exec_guard_byte(k, 1))
			return 0;
	return 1;
}

/* The guard after a buffer of `bytes` for a group of P in a world of W:
 * CS_GUARD_BYTES, plus (ceil(W/P) - 1) * bytes. A call that goes to the
 * whole world instead of its group (spec/patterns.md 7.1) reads and writes
 * up to W/P times the group's buffer; with the room it lands in the guard
 * and is a clean FAIL `guard`, not a corrupted heap (a crash or, inside
 * malloc, a hang). 0 when that overflows. */
static size_t tail_of(size_t bytes, int P, int W)
{
	size_t k = (size_t)((W + P - 1) / P), t;
	if (__builtin_mul_overflow(bytes, k - 1, &t) ||
	    __builtin_add_overflow(t, (size_t)CS_GUARD_BYTES, &t))
		return 0;
	return t;
}

void cs_patport_stage_free(cs_patport_t *p, int i)
{
	stage_t *s = &p->st[i];
	if (s->sd)
		cs_dev_free(p->w->dev[i], s->sd);
	if (s->rd)
		cs_dev_free(p->w->dev[i], s->rd);
	free(s->sh);
	free(s->rh);
	memset(s, 0, sizeof *s);
}

/* Local rank i's buffers for call q. 1 when staged. */
int cs_patport_stage(cs_patport_t *p, int i, const qcall_t *q)
{
	stage_t *s = &p->st[i];
	cs_dtype_t d = q->c.dtype;
	size_t w = cs_dtype_size(d), G = CS_GUARD_BYTES;
	int P = p->rk[i].P, W = p->w->g->world;
	s->sbytes = q->sext * w;
	s->rbytes = q->rext * w;
	s->stail = tail_of(s->sbytes, P, W);
	s->rtail = tail_of(s->rbytes, P, W);
	if (!s->stail || !s->rtail)
		return 0;
	s->sh = malloc(G + s->sbytes + s->stail);
	s->rh = malloc(G + s->rbytes + s->rtail);
	if (!s->sh || !s->rh)
		return 0;
	fill_guards(s->sh, s->sbytes, s->stail);
	fill_guards(s->rh, s->rbytes, s->rtail);
	memcpy(s->sh + G, q->send, s->sbytes);
	for (size_t e = 0; e < q->rext; e++)
		cs_store(d, s->rh + G, e, cs_exec_canary_bits(d, e));
	if (!cuda(p))
		return 1;
	int dev = p->w->dev[i];
	size_t sall = G + s->sbytes + s->stail, rall = G + s->rbytes + s->rtail;
	return cs_dev_alloc(dev, sall, &s->sd) == CS_OK &&
	       cs_dev_alloc(dev, rall, &s->rd) == CS_OK &&
	       cs_dev_put(dev, s->sd, s->sh, sall) == CS_OK &&
	       cs_dev_put(dev, s->rd, s->rh, rall) == CS_OK;
}

/* The pointers the backend gets. */
const void *cs_patport_sendp(const cs_patport_t *p, int i)
{
	const stage_t *s = &p->st[i];
	return (const unsigned char *)(s->sd ? s->sd : s->sh) + CS_GUARD_BYTES;
}

void *cs_patport_recvp(const cs_patport_t *p, int i)
{
	const stage_t *s = &p->st[i];
	return (unsigned char *)(s->rd ? s->rd : s->rh) + CS_GUARD_BYTES;
}

/* ---- checks after the call ------------------------------------------------ */

/* alltoallv: element e of the receive extent lies in a block. */
static int in_block(const qcall_t *q, int P, size_t e)
{
	for (int b = 0; b < P; b++)
		if (e >= cs_qc(q, 3)[b] && e - cs_qc(q, 3)[b] < cs_qc(q, 2)[b])
			return 1;
	return 0;
}

/* alltoallv: the receive blocks copied to the pattern; the elements
 * between them (no block) must still hold their canaries. */
static void copy_blocks(cs_patport_t *p, int i, const qcall_t *q, int k)
{
	int P = p->rk[i].P;
	cs_dtype_t d = q->c.dtype;
	size_t w = cs_dtype_size(d);
	const unsigned char *r = p->st[i].rh + CS_GUARD_BYTES;

	for (size_t e = 0; e < q->rext; e++) {
		if (in_block(q, P, e)) {
			memcpy((char *)q->c.recv + e * w, r + e * w, w);
		} else if (cs_load(d, r, e) != cs_exec_canary_bits(d, e)) {
			cs_pchk_fail(&p->chk[i], "untouched", "alltoallv (call "
				     "%d) wrote element %zu, between its "
				     "receive blocks", k, e);
			return;
		}
	}
}

/* Local rank i's call q: status, guards, send buffer; results copied to
 * the pattern. */
void cs_patport_check_one(cs_patport_t *p, int i, const qcall_t *q, int k)
{
	stage_t *s = &p->st[i];
	const cs_backend_t *b = p->w->b;
	size_t G = CS_GUARD_BYTES;
	cs_pcheck_t *chk = &p->chk[i];
	const char *coll = cs_coll_name(q->c.coll);
	const char *ph = cs_pphase_name(q->c.phase);

	if (p->rc[i]) {
		cs_pchk_fail(chk, "error", "%s (call %d, %s) failed: %s", coll,
			     k, ph, b->error_string(p->var->comm[i], p->rc[i]));
		return;
	}
	if (s->sd && (cs_dev_get(p->w->dev[i], s->sh, s->sd,
				 G + s->sbytes + s->stail) != CS_OK ||
		      cs_dev_get(p->w->dev[i], s->rh, s->rd,
				 G + s->rbytes + s->rtail) != CS_OK)) {
		cs_pchk_fail(chk, "harness", "%s (call %d): copying the "
			     "buffers back from the device failed", coll, k);
		return;
	}
	if (!guards_ok(s->rh, s->rbytes, s->rtail) ||
	    !guards_ok(s->sh, s->sbytes, s->stail)) {
		cs_pchk_fail(chk, "guard", "%s (call %d, %s) wrote outside its "
			     "buffers (guard bytes changed)", coll, k, ph);
		return;
	}
	if (memcmp(s->sh + G, q->send, s->sbytes) != 0) {
		cs_pchk_fail(chk, "sendbuf", "%s (call %d, %s) modified its "
			     "send buffer", coll, k, ph);
		return;
	}
	if (q->c.coll != CS_COLL_ALLTOALLV) {
		memcpy(q->c.recv, s->rh + G, s->rbytes);
		return;
	}
	copy_blocks(p, i, q, k);
}

/* 1 when a and b, n elements of d reduced with op, hold the same values
 * (spec/numerics.md section 5.1): equal bits, a NaN against any NaN, and
 * (every op but prod, whose zero sign is the product of the signs) +0
 * against -0. Sound here without the golden's element-by-element say
 * (check/identity.c): every rank's pattern checks its own whole result
 * against the serial mirror, with the reduction's bound. */
static int same_values(cs_dtype_t d, cs_op_t op, const unsigned char *a,
		       const unsigned char *b, size_t n)
{
	cs_fmt_t f = cs_fmt_of(d);
	uint64_t x, y, sign = cs_fmt_sign(f);

	if (!cs_is_float(d))
		return memcmp(a, b, n * cs_dtype_size(d)) == 0;
	for (size_t j = 0; j < n; j++) {
		x = cs_load(d, a, j);
		y = cs_load(d, b, j);
		if (x == y || (cs_fmt_isnan(f, x) && cs_fmt_isnan(f, y)))
			continue;
		if (op == CS_OP_PROD || ((x | y) & ~sign) != 0)
			return 0;
	}
	return 1;
}

/* Group rank r's result grp[r] against group rank 0's: FAIL identity when
 * the values differ, else bitidentity noted (cs_patport_bits_verdict)
 * when the bits do. */
static void compare_one(cs_patport_t *p, int i, const qcall_t *q, int k,
			const unsigned char *grp, size_t nb)
{
	int r = p->rk[i].r;
	const unsigned char *mine = grp + (size_t)r * nb;

	if (r == 0 || memcmp(mine, grp, nb) == 0)
		return;
	if (!same_values(q->c.dtype, q->c.op, mine, grp,
			 nb / cs_dtype_size(q->c.dtype)))
		cs_pchk_fail(&p->chk[i], "identity", "allreduce (call %d) gave "
			     "group rank %d a result whose values differ from "
			     "group rank 0's", k, r);
	else if (!p->bitcall[i])
		p->bitcall[i] = k + 1;
}

/* Allreduce: every group rank's result the same values as group rank 0's,
 * and the same bits (patcase.h, cs_patport_bits_verdict), compared in
 * full (every rank's whole result travels to its group: the patterns'
 * allreduces are a few hundred elements, so no fingerprint, and no
 * fingerprint to forge). The ranks agree first on the size (the same
 * call everywhere) and on the memory, so that the exchange is made by all
 * or by none. */
void cs_patport_check_identity(cs_patport_t *p, int k)
{
	cs_worker_t *w = p->w;
	size_t W = (size_t)w->g->world, L = (size_t)p->n;
	size_t nb = p->st[0].rbytes;
	unsigned char *mine = NULL, *all = NULL;
	int most, ok;

	for (int i = 0; i < p->n; i++)
		w->flag[i] = nb > INT_MAX ? INT_MAX : (int)nb;
	most = w->g->ops->max(w->g, w->flag);
	if ((size_t)most == nb && nb <= INT_MAX) {
		mine = malloc(L * nb + 1);
		all = malloc(L * W * nb + 1);
	}
	ok = cs_worker_agree(w, mine && all, NULL);
	for (int i = 0; !ok && i < p->n; i++)
		cs_pchk_fail(&p->chk[i], "harness", "allreduce (call %d): the "
			     "ranks could not compare their results", k);
	for (int i = 0; ok && i < p->n; i++)
		memcpy(mine + (size_t)i * nb, p->st[i].rh + CS_GUARD_BYTES, nb);
	if (ok)
		w->g->ops->allgather(w->g, p->var->slot, mine, nb, all);
	for (int i = 0; ok && i < p->n; i++)
		compare_one(p, i, p->q[i] + k, k, all + (size_t)i * W * nb, nb);
	free(mine);
	free(all);
}
