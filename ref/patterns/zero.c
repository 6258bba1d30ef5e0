/*
 * zero.c - the engine of ZeRO-1, ZeRO-2, ZeRO-3 (spec/patterns.md section
 * 5.2) and FSDP (section 5.3) over the MLP of mlp.h, with SGD or Adam on
 * the owner's shard (zero.h). The patterns themselves are p_zero.c and
 * p_fsdp.c.
 *
 * The flat parameter vector is cut into units (one unit of all N
 * parameters for ZeRO; (W1, b1) and (W2, b2) for FSDP), each padded with
 * +0 to a multiple of P (cs_pat_padded); group rank r owns block r of
 * every unit and its optimizer state. One training step:
 *   zero1  bwd allreduce avg of the padded gradient; update; opt allgather
 *          (variants ar-*; rs-* run zero2's step, p_zero.c)
 *   zero2  bwd reducescatter avg;                    update; opt allgather
 *   zero3  fwd allgather; bwd allgather, reducescatter avg; update
 *   fsdp   as zero3 per unit: fwd units 0, 1; bwd units 1, 0
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/golden.h"
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"
#include "mlp.h"
#include "zero.h"

enum { B = 4, H = CS_ZERO_H, F = CS_ZERO_F }; /* section 5.1, N = 17 */
enum { T_P, T_X, T_C };         /* input tensors */
enum { MAXU = 2 };              /* FSDP's two units */
enum { V_SGD, V_ADAM };         /* optimizer: variant % 2 (zero.h) */
typedef cs_zero_kind_t kind_t;
#define K_Z1 CS_ZERO_1
#define K_Z2 CS_ZERO_2
#define K_Z3 CS_ZERO_3
#define K_FSDP CS_ZERO_FSDP

static const cs_mlp_t mlp = {B, H, F};

/* One unit: flat parameters [off, off + n), padded to npad = P s. */
typedef struct unit {
	size_t off, n, s, npad;
} unit_t;

/* One local rank: the serial mirror of its instance, then its own
 * buffers. */
typedef struct rk {
	int P, r, nu;
	unit_t u[MAXU];
	/* mirror */
	void *p, *x, *c, *g;    /* [N], [P][B H] twice, [P][N] */
	void *ppad[MAXU];       /* [npad]: the padded parameters */
	void *gpad[MAXU];       /* [P][npad]: rank q's padded gradient */
	void *work;
	/* the rank's own work */
	void *pf, *pb, *A, *dA, *Y, *gl;          /* [N] [N] [B F]x2 [B H] [N] */
	void *gat_f[MAXU], *gat_b[MAXU], *gsend[MAXU], *red[MAXU], *fin[MAXU];
	void *upd[MAXU], *want[MAXU];             /* [s] */
	char *arena;
} rk_t;

/* ---- layout ----------------------------------------------------------- */

/* Units of kind k over a group of P. */
static int units(kind_t k, int P, unit_t *u)
{
	size_t N0 = cs_mlp_off(&mlp, CS_MLP_W2), N = cs_mlp_numel(&mlp);
	int nu = k == K_FSDP ? 2 : 1;
	for (int i = 0; i < nu; i++) {
		cs_pat_shard_t sh;
		u[i].off = i == 0 ? 0 : N0;
		u[i].n = k != K_FSDP ? N : i == 0 ? N0 : N - N0;
		if (cs_pat_padded((int64_t)u[i].n, P, 0, &sh) != CS_OK)
			return 0;
		u[i].s = (size_t)sh.s;
		u[i].npad = (size_t)sh.n_pad;
	}
	return nu;
}

/* Carve the next `bytes` from base at *at (base NULL: only count). */
static void *take(char *base, size_t *at, size_t bytes)
{
	void *r = base ? base + *at : NULL;
	*at += (bytes + 15) & ~(size_t)15;
	return r;
}

/* Lay out every buffer of rank k in base; the bytes it takes. */
static size_t carve(rk_t *k, size_t w, char *base)
{
	size_t at = 0, N = cs_mlp_numel(&mlp), P = (size_t)k->P;
	size_t bh = (size_t)B * H * w, bf = (size_t)B * F * w;
	k->p = take(base, &at, N * w);
	k->x = take(base, &at, P * bh);
	k->c = take(base, &at, P * bh);
	k->g = take(base, &at, P * N * w);
	k->work = take(base, &at, cs_mlp_work_numel(&mlp) * w);
	k->pf = take(base, &at, N * w);
	k->pb = take(base, &at, N * w);
	k->A = take(base, &at, bf);
	k->dA = take(base, &at, bf);
	k->Y = take(base, &at, bh);
	k->gl = take(base, &at, N * w);
	for (int i = 0; i < k->nu; i++) {
		size_t np = k->u[i].npad * w, s = k->u[i].s * w;
		k->ppad[i] = take(base, &at, np);
		k->gpad[i] = take(base, &at, P * np);
		k->gat_f[i] = take(base, &at, np);
		k->gat_b[i] = take(base, &at, np);
		k->gsend[i] = take(base, &at, np);
		k->red[i] = take(base, &at, np);
		k->fin[i] = take(base, &at, np);
		k->upd[i] = take(base, &at, s);
		k->want[i] = take(base, &at, s);
	}
	return at;
}

/* dst [npad] = unit u of the flat vector src, then +0 padding. */
static void pad(cs_dtype_t d, const unit_t *u, const void *src, void *dst)
{
	size_t w = cs_dtype_size(d);
	memset(dst, 0, u->npad * w);
	memcpy(dst, (const char *)src + u->off * w, u->n * w);
}

/* The inverse: unit u's real elements of src [npad] into the flat dst. */
static void unpad(cs_dtype_t d, const unit_t *u, const void *src, void *dst)
{
	size_t w = cs_dtype_size(d);
	memcpy((char *)dst + u->off * w, src, u->n * w);
}

static void *at_(void *buf, size_t i, size_t w)
{
	return (char *)buf + i * w;
}

/* Build local rank i's instance mirror: inputs, every rank's gradient. */
static int rk_make(const cs_pctx_t *x, int i, kind_t kind, rk_t *k)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), N = cs_mlp_numel(&mlp), bh = (size_t)B * H;
	int inst = x->rank[i].inst;
	memset(k, 0, sizeof *k);
	k->P = x->rank[i].P;
	k->r = x->rank[i].r;
	k->nu = units(kind, k->P, k->u);
	if (!k->nu || !(k->arena = calloc(1, carve(k, w, NULL))))
		return 0;
	carve(k, w, k->arena);
	cs_pat_fill(x, inst, T_P, 0, k->p, N);
	for (int q = 0; q < k->P; q++) {
		void *xq = at_(k->x, q * bh, w), *cq = at_(k->c, q * bh, w);
		void *gq = at_(k->g, q * N, w);
		cs_pat_fill(x, inst, T_X, q, xq, bh);
		cs_pat_fill(x, inst, T_C, q, cq, bh);
		cs_mlp_grad(d, &mlp, k->p, xq, cq, k->work, gq);
		for (int u = 0; u < k->nu; u++)
			pad(d, &k->u[u], gq, at_(k->gpad[u], q * k->u[u].npad, w));
	}
	for (int u = 0; u < k->nu; u++)
		pad(d, &k->u[u], k->p, k->ppad[u]);
	return 1;
}

/* ---- the update and its end-to-end checks ----------------------------- */

static void update(const cs_pctx_t *x, size_t n, const void *w,
		   const void *g, void *out)
{
	if (x->variant % 2 == V_ADAM)
		cs_mlp_adam(x->dtype, n, w, g, out);
	else
		cs_mlp_sgd(x->dtype, n, w, g, out);
}

/* How far an updated float parameter may be from w given the exact mean
 * gradient S and its bound Bv (section 5.2): SGD, |w' - X| within the
 * end-to-end bound, X = w - lr S; Adam, |w' - w| <= lr (1 + 2^-20) +
 * 2u (|w| + lr), the most one step from zero state moves it. Returns the
 * error minus the bound (> 0: outside). */
static double e2e_excess(const cs_pctx_t *x, double w, double S, double Bv,
			 double got)
{
	cs_dtype_t d = x->dtype;
	double u = cs_unit_roundoff(d), eta = cs_underflow_unit(d);
	double lr = cs_mlp_lr(d);
	if (x->variant % 2 == V_ADAM)
		return fabs(got - w) -
		       (lr * (1 + 0x1p-20) + 2 * u * (fabs(w) + lr));
	double X = w - lr * S;
	double bound = (1 + u) * (lr * Bv + u * lr * (fabs(S) + Bv) + eta) +
		       u * fabs(X);
	/* X is evaluated in double: allow its own rounding */
	return fabs(got - X) - (bound + 0x1p-52 * fabs(X));
}

/* Check n updated float parameters got[] of unit u block q on rank k:
 * their weights are ppad[u] from `lo` = q s, their gradients the P
 * padded gradients there. Integers: bitwise against the update of the
 * exact mean. */
static void check_e2e(const cs_pctx_t *x, cs_pcheck_t *kc, const rk_t *k,
		      int u, size_t lo, size_t n, const void *got)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), bad = 0, first = 0;
	uint64_t xs[CS_PAT_MAX_GROUP], one = 0, want = 0;
	double ex = 0;
	for (size_t j = 0; j < n; j++) {
		cs_golden_t gd;
		const void *wp = at_(k->ppad[u], lo + j, w);
		for (int q = 0; q < k->P; q++)
			xs[q] = cs_load(d, k->gpad[u],
					(size_t)q * k->u[u].npad + lo + j);
		cs_golden_reduce(d, CS_OP_AVG, k->P, xs, NULL, 0, &gd);
		if (!cs_dtype_is_float(d)) {
			cs_store(d, &one, 0, gd.bits);
			update(x, 1, wp, &one, &want);
			if (cs_load(d, got, j) == cs_load(d, &want, 0))
				continue;
			ex = 1;
		} else {
			ex = e2e_excess(x, cs_pk_get(d, wp, 0),
					gd.s_hi + gd.s_lo, gd.bound,
					cs_pk_get(d, got, j));
			if (!(ex > 0))
				continue;
		}
		if (bad++ == 0)
			first = j;
	}
	kc->elems += n;
	if (bad)
		cs_pchk_fail(kc, "value", "updated parameters of unit %d, "
			     "flat padded index %zu: %zu of %zu outside the "
			     "end-to-end bound (first beyond it by %.3g)", u,
			     lo + first, bad, n, ex);
}

/* ---- the steps --------------------------------------------------------- */

/* Queue an allgather of unit u's shard `send` into recv on local rank i. */
static cs_status_t q_gather(const cs_pctx_t *x, int i, const rk_t *k, int u,
			    const void *send, void *recv, cs_pphase_t ph)
{
	cs_pcall_t c = {.coll = CS_COLL_ALLGATHER, .dtype = x->dtype,
			.op = CS_OP_NONE, .count = k->u[u].s, .send = send,
			.recv = recv, .phase = ph};
	return cs_pport_call(x->port, i, &c);
}

/* Queue the averaging of unit u's padded gradient on local rank i:
 * allreduce (zero1) or reducescatter into red[u]. */
static cs_status_t q_reduce(const cs_pctx_t *x, int i, const rk_t *k, int u,
			    kind_t kind)
{
	int ar = kind == K_Z1;
	cs_pcall_t c = {.coll = ar ? CS_COLL_ALLREDUCE : CS_COLL_REDUCESCATTER,
			.dtype = x->dtype, .op = CS_OP_AVG,
			.count = ar ? k->u[u].npad : k->u[u].s,
			.send = k->gsend[u], .recv = k->red[u],
			.phase = CS_PHASE_BWD};
	return cs_pport_call(x->port, i, &c);
}

/* Check (a): the averaged gradient against the P local gradients, over
 * the whole padded unit (zero1) or block r. */
static void check_reduced(const cs_pctx_t *x, int i, const rk_t *k, int u,
			  kind_t kind)
{
	size_t w = cs_dtype_size(x->dtype), np = k->u[u].npad;
	size_t lo = kind == K_Z1 ? 0 : (size_t)k->r * k->u[u].s;
	size_t n = kind == K_Z1 ? np : k->u[u].s;
	const void *xs[CS_PAT_MAX_GROUP];
	for (int q = 0; q < k->P; q++)
		xs[q] = at_(k->gpad[u], (size_t)q * np + lo, w);
	cs_pchk_reduced(&x->chk[i], "averaged gradient", x->dtype, CS_OP_AVG,
			k->P, xs, k->red[u], n);
}

/* Check (b): rank r's update of its block, bitwise the serial update of
 * (w_r, the gradient it received), and the end-to-end bound. */
static void do_update(const cs_pctx_t *x, int i, rk_t *k, int u, kind_t kind)
{
	size_t w = cs_dtype_size(x->dtype), s = k->u[u].s, lo = k->r * s;
	const void *g = kind == K_Z1 ? at_(k->red[u], lo, w) : k->red[u];
	const void *wr = at_(k->ppad[u], lo, w);
	update(x, s, wr, g, k->upd[u]);
	/* the mirror: the same function on the same received bits */
	memcpy(k->want[u], g, s * w);
	update(x, s, wr, k->want[u], k->want[u]);
	cs_pchk_bits(&x->chk[i], "updated shard", x->dtype, k->upd[u],
		     k->want[u], s);
	check_e2e(x, &x->chk[i], k, u, lo, s, k->upd[u]);
}

/* Check (c), zero1 and zero2: the gathered unit fin[u]. Block r is the
 * rank's own update, bitwise; the padding is +0; block q != r holds rank
 * q's update: bitwise the update of block q of the allreduced gradient
 * every zero1 rank received (allreduce results are identical across the
 * group), and for zero2, which never sees block q's gradient, within the
 * end-to-end bound (integers: bitwise). */
static void check_gathered(const cs_pctx_t *x, int i, rk_t *k, int u,
			   kind_t kind)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), s = k->u[u].s, n = k->u[u].n;
	cs_pcheck_t *kc = &x->chk[i];
	cs_pchk_bits(kc, "gathered parameters, own block", d,
		     at_(k->fin[u], (size_t)k->r * s, w), k->upd[u], s);
	cs_pchk_bits(kc, "gathered parameters, padding", d,
		     at_(k->fin[u], n, w), at_(k->ppad[u], n, w),
		     k->u[u].npad - n);
	for (int q = 0; q < k->P; q++) {
		size_t lo = (size_t)q * s, m = lo < n ? n - lo : 0;
		m = m < s ? m : s;
		if (q == k->r || m == 0)
			continue;
		if (kind == K_Z2) {
			check_e2e(x, kc, k, u, lo, m, at_(k->fin[u], lo, w));
			continue;
		}
		update(x, m, at_(k->ppad[u], lo, w), at_(k->red[u], lo, w),
		       k->want[u]);
		cs_pchk_bits(kc, "gathered parameters, another rank's block",
			     d, at_(k->fin[u], lo, w), k->want[u], m);
	}
}

/* Make the queued calls; 0 when they failed (the port set the verdicts:
 * the pattern stops without another call). */
static int made(const cs_pctx_t *x, cs_status_t st)
{
	return st == CS_OK && cs_pport_run(x->port) == CS_OK;
}

/* zero1, zero2: replicated parameters, the averaged gradient's owner
 * block updated, the updated blocks gathered (phase opt). */
static cs_status_t replicated_step(const cs_pctx_t *x, rk_t *k, kind_t kind)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), bh = (size_t)B * H;
	cs_status_t st = CS_OK;
	for (int i = 0; i < x->nlocal && st == CS_OK; i++) {
		rk_t *ki = &k[i];
		cs_mlp_grad(d, &mlp, ki->p, at_(ki->x, ki->r * bh, w),
			    at_(ki->c, ki->r * bh, w), ki->work, ki->gl);
		pad(d, &ki->u[0], ki->gl, ki->gsend[0]);
		st = q_reduce(x, i, ki, 0, kind);
	}
	if (!made(x, st))
		return st;
	for (int i = 0; i < x->nlocal && st == CS_OK; i++) {
		check_reduced(x, i, &k[i], 0, kind);
		do_update(x, i, &k[i], 0, kind);
		st = q_gather(x, i, &k[i], 0, k[i].upd[0], k[i].fin[0],
			      CS_PHASE_OPT);
	}
	if (!made(x, st))
		return st;
	for (int i = 0; i < x->nlocal; i++)
		check_gathered(x, i, &k[i], 0, kind);
	return CS_OK;
}

/* Whether unit u holds parameter tensor t. */
static int holds(const unit_t *u, int t)
{
	size_t off = cs_mlp_off(&mlp, t);
	return off >= u->off && off < u->off + u->n;
}

/* Gather unit u's parameters on every local rank into buf[u] (gat_f or
 * gat_b), check them bitwise (movement) and unflatten them into flat. */
static cs_status_t gather_unit(const cs_pctx_t *x, rk_t *k, int u,
			       int fwd, int *ok)
{
	size_t w = cs_dtype_size(x->dtype);
	cs_status_t st = CS_OK;
	for (int i = 0; i < x->nlocal && st == CS_OK; i++)
		st = q_gather(x, i, &k[i], u,
			      at_(k[i].ppad[u], (size_t)k[i].r * k[i].u[u].s, w),
			      fwd ? k[i].gat_f[u] : k[i].gat_b[u],
			      fwd ? CS_PHASE_FWD : CS_PHASE_BWD);
	if (!(*ok = made(x, st)))
		return st;
	for (int i = 0; i < x->nlocal; i++) {
		void *got = fwd ? k[i].gat_f[u] : k[i].gat_b[u];
		cs_pchk_bits(&x->chk[i], fwd ? "parameters (forward allgather)"
					     : "parameters (backward allgather)",
			     x->dtype, got, k[i].ppad[u], k[i].u[u].npad);
		unpad(x->dtype, &k[i].u[u], got, fwd ? k[i].pf : k[i].pb);
	}
	return CS_OK;
}

/* Unit u's backward on local rank i from the gathered parameters, check
 * (d) on its gradient, and its reducescatter queued. */
static cs_status_t unit_backward(const cs_pctx_t *x, int i, rk_t *k, int u)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), bh = (size_t)B * H, N = cs_mlp_numel(&mlp);
	const unit_t *un = &k->u[u];
	const void *X = at_(k->x, k->r * bh, w), *C = at_(k->c, k->r * bh, w);
	if (holds(un, CS_MLP_W2))
		cs_mlp_backward_out(d, &mlp, k->pb, k->A, C, k->dA, k->gl);
	if (holds(un, CS_MLP_W1))
		cs_mlp_backward_in(d, &mlp, X, k->dA, k->gl);
	cs_pchk_bits(&x->chk[i], "local gradient from gathered parameters", d,
		     at_(k->gl, un->off, w),
		     at_(k->g, (size_t)k->r * N + un->off, w), un->n);
	pad(d, un, k->gl, k->gsend[u]);
	return q_reduce(x, i, k, u, K_Z3);
}

/* zero3, fsdp: sharded parameters gathered for the forward and again for
 * the backward, unit by unit; gradients reduce-scattered; no opt call. */
static cs_status_t sharded_step(const cs_pctx_t *x, rk_t *k)
{
	size_t w = cs_dtype_size(x->dtype), bh = (size_t)B * H;
	int nu = k[0].nu, ok = 1;
	cs_status_t st = CS_OK;
	for (int u = 0; u < nu && ok; u++)
		if ((st = gather_unit(x, k, u, 1, &ok)) != CS_OK)
			return st;
	if (!ok)
		return CS_OK;
	for (int i = 0; i < x->nlocal; i++)
		cs_mlp_forward(x->dtype, &mlp, k[i].pf,
			       at_(k[i].x, k[i].r * bh, w), k[i].A, k[i].Y);
	for (int u = nu - 1; u >= 0; u--) {
		if ((st = gather_unit(x, k, u, 0, &ok)) != CS_OK || !ok)
			return st;
		for (int i = 0; i < x->nlocal && st == CS_OK; i++)
			st = unit_backward(x, i, &k[i], u);
		if (!made(x, st))
			return st;
		for (int i = 0; i < x->nlocal; i++) {
			check_reduced(x, i, &k[i], u, K_Z3);
			do_update(x, i, &k[i], u, K_Z3);
		}
	}
	return CS_OK;
}

cs_status_t cs_zero_run(const cs_pctx_t *x, cs_zero_kind_t kind)
{
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	rk_t *k = calloc((size_t)L, sizeof *k);
	if (!k)
		return cs_error(CS_ERR_NOMEM, "%s: ranks", x->pat->name);
	for (int i = 0; i < L && st == CS_OK; i++)
		if (!rk_make(x, i, kind, &k[i]))
			st = cs_error(CS_ERR_NOMEM, "%s: instance",
				      x->pat->name);
	if (st == CS_OK)
		st = kind == K_Z1 || kind == K_Z2 ? replicated_step(x, k, kind)
						  : sharded_step(x, k);
	for (int i = 0; i < L; i++)
		free(k[i].arena);
	free(k);
	return st;
}

int cs_zero_accepts(int v, cs_dtype_t d, char *why, size_t len)
{
	if (v % 2 == V_ADAM && d != CS_DTYPE_FLOAT32) {
		snprintf(why, len, "adam runs float32 only (spec 5.2)");
		return 0;
	}
	return 1;
}

const cs_dtype_t cs_zero_dtypes[CS_ZERO_NDTYPES] = {
	CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16, CS_DTYPE_INT32};
const char *const cs_zero_variants[CS_ZERO_NVARIANTS] = {"sgd", "adam"};
const char *const cs_zero1_variants[CS_ZERO1_NVARIANTS] = {
	"ar-sgd", "ar-adam", "rs-sgd", "rs-adam"};
