/*
 * symcheck.c - the symbolic checker of the schedules (symcheck.h).
 *
 * One plan, top to bottom: check the plan (check_plan), lay out every
 * rank's three buffers as storage areas with NCCL's in-place aliasing
 * (layout), read and check the peer lists (load_peers), run every channel
 * step by step (run_chan: all the reads of a step, then all its writes,
 * so that every read sees the state before the step, as in lockstep; the
 * hazard and peer checks are made at each access), then check every
 * rank's receive buffer (check_result).
 *
 * A slot that was never written holds its input token when it lies in
 * its rank's send buffer, nothing otherwise: the send buffers need no
 * filling, and untouched memory stays untouched (the slots of one plan
 * can take hundreds of megabytes at P = 64).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/catalog.h"
#include "symcheck.h"

#define MAX_SLICES 4096
#define MAX_CHANS 32767
#define MAX_OPS 64
#define MAX_ELEMS ((size_t)1 << 32)

/* Slot state bits. */
#define SL_WRITTEN 1u /* some op wrote it: the token below is valid */
#define SL_POST 2u    /* the token's post was applied */
#define SL_RMULTI 4u  /* read by two different accesses this step */

/* A token: what a slot holds. Data movement: ranks = {origin rank}, elem
 * = origin index, pre = 0, post = 0. */
struct tok {
	uint64_t ranks, pre;
	size_t elem;
	unsigned post;
};

/*
 * One element slot of one storage area. An access is one element of one
 * op of one slice of one rank in one step; it is named by the index of
 * the write it makes in the step's queue (struct pend). rstep and wstep
 * say in which step racc / racc2 and wacc were set (0: never). The
 * channel fields hold channel + 1 (0: none; rchan UINT16_MAX: several).
 */
struct slot {
	uint64_t ranks, pre;
	uint64_t touch, writers; /* ranks that read or wrote it / wrote it */
	uint32_t elem;
	uint32_t rstep, wstep;
	uint32_t racc, racc2, wacc;
	uint16_t rchan, wchan;
	uint8_t st;
};

#define CHAN_MANY UINT16_MAX

/* How a buffer name of a rank maps into its storage: area, first slot,
 * elements. */
struct view {
	int area;
	size_t base, len;
};

/* A write of the current step, applied after all its reads; also the
 * name of the access that makes it. */
struct pend {
	struct slot *sl;
	struct tok tk;
	int r, k, i, s, buf;
	size_t j, off;
};

struct ck {
	csg_plan_t p; /* the channel being run */
	csg_sched_src_t src;
	size_t gap;
	int P, reduces;
	uint64_t all;
	uint64_t peers[CSG_MAX_RANKS];
	struct view view[CSG_MAX_RANKS][3];
	size_t alen[CSG_MAX_RANKS][3];
	struct slot *area[CSG_MAX_RANKS][3];
	struct slot *slots;
	struct pend *pend;
	size_t npend, cap;
	uint32_t stamp;
	/* where the run is, for messages */
	int chan, t, s, k, r, i;
	size_t j;
	char *msg;
	size_t len;
};

static const char *const buf_name[3] = {"SEND", "RECV", "TMP"};

/* The lowest rank of a non-empty set. */
static int lowest(uint64_t set)
{
	int q = 0;

	while (!(set >> q & 1))
		q++;
	return q;
}

/* ---- messages ------------------------------------------------------------ */

int csg_plan_format(const csg_plan_t *p, char *buf, size_t len)
{
	static const char *const algo[] = {
#define CSG_ALGO_NAME_(ID, name, ...) name,
		CSG_ALGO_LIST(CSG_ALGO_NAME_)
#undef CSG_ALGO_NAME_
	};
	const char *a = (unsigned)p->algo < CSG_NUM_ALGOS ? algo[p->algo] : "?";

	return snprintf(buf, len, "%s/%s P=%d n=%zu root=%d %s nchan=%d "
			"nslices=%d", cs_coll_name(p->coll), a, p->P, p->n,
			p->root, p->inplace ? "in-place" : "out-of-place",
			p->nchan, p->nslices);
}

/* Write "PLAN: WHAT" into the caller's buffer; returns rc. */
static int say(struct ck *ck, int rc, const char *fmt, ...)
{
	size_t used;
	va_list ap;
	int w;

	if (!ck->msg || !ck->len)
		return rc;
	w = csg_plan_format(&ck->p, ck->msg, ck->len);
	used = w < 0 ? 0 : (size_t)w;
	if (used + 2 >= ck->len)
		return rc;
	memcpy(ck->msg + used, ": ", 3);
	used += 2;
	va_start(ap, fmt);
	vsnprintf(ck->msg + used, ck->len - used, fmt, ap);
	va_end(ap);
	return rc;
}

/* A violation at the current op: "channel c step t (slice k, base step
 * s) rank r op i [element j]: WHAT". */
static int fail_op(struct ck *ck, int with_elem, const char *fmt, ...)
{
	char what[1200], el[48] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (with_elem)
		snprintf(el, sizeof el, " element %zu", ck->j);
	return say(ck, CSG_SYM_VIOLATION, "channel %d step %d (slice %d, base "
		   "step %d) rank %d op %d%s: %s", ck->chan, ck->t, ck->k,
		   ck->s, ck->r, ck->i, el, what);
}

/* "{0-3,5}": a set of ranks. */
static void set_str(uint64_t set, char *b, size_t n)
{
	size_t u = 0;
	int q = 0, first = 1, e;

	u += (size_t)snprintf(b + u, n - u, "{");
	while (q < 64 && u < n) {
		if (!(set >> q & 1)) {
			q++;
			continue;
		}
		for (e = q; e + 1 < 64 && (set >> (e + 1) & 1); e++)
			;
		if (e == q)
			u += (size_t)snprintf(b + u, n - u, "%s%d",
					      first ? "" : ",", q);
		else
			u += (size_t)snprintf(b + u, n - u, "%s%d-%d",
					      first ? "" : ",", q, e);
		first = 0;
		q = e + 1;
	}
	if (u < n)
		snprintf(b + u, n - u, "}");
}

static void tok_str(const struct ck *ck, const struct tok *t, char *b,
		    size_t n)
{
	char rs[200], ps[200];

	if (!ck->reduces) {
		snprintf(b, n, "rank %d's element %zu",
			 t->ranks ? lowest(t->ranks) : -1, t->elem);
		return;
	}
	set_str(t->ranks, rs, sizeof rs);
	set_str(t->pre, ps, sizeof ps);
	snprintf(b, n, "element %zu of ranks %s, pre on %s%s", t->elem, rs, ps,
		 t->post ? ", post" : "");
}

/* An access (a queued write), for messages. */
static void acc_str(const struct pend *pn, char *b, size_t n)
{
	snprintf(b, n, "rank %d slice %d (base step %d) op %d element %zu",
		 pn->r, pn->k, pn->s, pn->i, pn->j);
}

/* ---- the plan and the buffers ------------------------------------------ */

static int check_plan(struct ck *ck, const csg_plan_t *p)
{
	if ((unsigned)p->coll >= CS_NUM_COLLS)
		return say(ck, CSG_SYM_EINVAL, "collective %d out of range",
			   (int)p->coll);
	if ((unsigned)p->algo >= CSG_NUM_ALGOS || p->algo == CSG_ALGO_AUTO ||
	    !csg_algo_supports(p->algo, p->coll))
		return say(ck, CSG_SYM_EINVAL, "algorithm %d is not one that "
			   "runs this collective (AUTO must be resolved)",
			   (int)p->algo);
	if (p->P < 1 || p->P > CSG_MAX_RANKS)
		return say(ck, CSG_SYM_EINVAL, "P = %d outside 1..%d", p->P,
			   CSG_MAX_RANKS);
	if (csg_rooted(p->coll) && (p->root < 0 || p->root >= p->P))
		return say(ck, CSG_SYM_EINVAL, "root %d outside 0..P-1",
			   p->root);
	if (p->nchan < 1 || p->nchan > MAX_CHANS || p->nslices < 1 ||
	    p->nslices > MAX_SLICES)
		return say(ck, CSG_SYM_EINVAL, "nchan %d or nslices %d out of "
			   "range (1..%d, 1..%d)", p->nchan, p->nslices,
			   MAX_CHANS, MAX_SLICES);
	if (p->coll == CS_COLL_ALLTOALLV &&
	    (!p->v.cnt || !p->v.sdis || !p->v.rdis))
		return say(ck, CSG_SYM_EINVAL, "alltoallv without a matrix");
	if (p->n >= MAX_ELEMS / (size_t)p->P)
		return say(ck, CSG_SYM_EINVAL, "count %zu too large to check",
			   p->n);
	return 0;
}

/* alltoallv: the end of rank r's send (sending) or receive blocks, plus
 * the gap. */
static int a2av_len(struct ck *ck, int r, int sending, size_t *out)
{
	const csg_vmat_t *v = &ck->p.v;
	size_t P = (size_t)ck->P, q, end = 0, c, d;

	for (q = 0; q < P; q++) {
		c = sending ? v->cnt[(size_t)r * P + q] : v->cnt[q * P + r];
		d = sending ? v->sdis[(size_t)r * P + q]
			    : v->rdis[(size_t)r * P + q];
		if (c >= MAX_ELEMS || d >= MAX_ELEMS)
			return say(ck, CSG_SYM_EINVAL, "alltoallv block %zu of "
				   "rank %d too large", q, r);
		end = d + c > end ? d + c : end;
	}
	if (ck->gap >= MAX_ELEMS || end + ck->gap >= MAX_ELEMS)
		return say(ck, CSG_SYM_EINVAL, "alltoallv gap too large");
	*out = end + ck->gap;
	return 0;
}

/* The significant lengths of rank r's SEND and RECV (spec §3.1). */
static int buf_lens(struct ck *ck, int r, size_t *sl, size_t *rl)
{
	const csg_plan_t *p = &ck->p;
	size_t n = p->n, Pn = n * (size_t)p->P;
	int root = r == p->root;

	*sl = *rl = n;
	switch (p->coll) {
	case CS_COLL_ALLGATHER:
		*rl = Pn;
		break;
	case CS_COLL_REDUCESCATTER:
		*sl = Pn;
		break;
	case CS_COLL_ALLTOALL:
		*sl = *rl = Pn;
		break;
	case CS_COLL_ALLTOALLV:
		if (a2av_len(ck, r, 1, sl) || a2av_len(ck, r, 0, rl))
			return CSG_SYM_EINVAL;
		break;
	case CS_COLL_BROADCAST:
		*sl = root ? n : 0;
		break;
	case CS_COLL_REDUCE:
		*rl = root ? n : 0;
		break;
	case CS_COLL_GATHER:
		*rl = root ? Pn : 0;
		break;
	case CS_COLL_SCATTER:
		*sl = root ? Pn : 0;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		break;
	}
	return 0;
}

static struct view mkview(int area, size_t base, size_t len)
{
	struct view v;

	v.area = area;
	v.base = base;
	v.len = len;
	return v;
}

/*
 * Rank r's views: area 0 the send buffer, 1 the receive buffer, 2 TMP;
 * in place, SEND and RECV share one area by NCCL's pointer rule.
 */
static void rank_views(struct ck *ck, int r, size_t sl, size_t rl)
{
	const csg_plan_t *p = &ck->p;
	struct view *v = ck->view[r];
	size_t *al = ck->alen[r], off = (size_t)r * p->n;
	int ip = p->inplace && (!csg_rooted(p->coll) || r == p->root);

	v[CSG_SEND] = mkview(0, 0, sl);
	v[CSG_RECV] = mkview(1, 0, rl);
	v[CSG_TMP] = mkview(2, 0, sl);
	al[0] = sl;
	al[1] = rl;
	al[2] = sl;
	if (!ip)
		return;
	switch (p->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER: /* send == recv + r*n */
		v[CSG_SEND] = mkview(1, off, sl);
		al[0] = 0;
		break;
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_SCATTER: /* recv == send + r*n */
		v[CSG_RECV] = mkview(0, off, rl);
		al[1] = 0;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default: /* send == recv */
		v[CSG_SEND] = mkview(1, 0, sl);
		al[0] = 0;
		al[1] = sl > rl ? sl : rl;
		break;
	}
}

/* Allocate every area (zeroed: nothing written, no channel). */
static int layout(struct ck *ck)
{
	size_t sl, rl, total = 0;
	struct slot *s;
	int r, a;

	for (r = 0; r < ck->P; r++) {
		if (buf_lens(ck, r, &sl, &rl))
			return CSG_SYM_EINVAL;
		rank_views(ck, r, sl, rl);
		for (a = 0; a < 3; a++)
			total += ck->alen[r][a];
	}
	ck->slots = calloc(total ? total : 1, sizeof *ck->slots);
	if (!ck->slots)
		return say(ck, CSG_SYM_ENOMEM, "no memory for %zu slots", total);
	for (s = ck->slots, r = 0; r < ck->P; r++)
		for (a = 0; a < 3; a++) {
			ck->area[r][a] = s;
			s += ck->alen[r][a];
		}
	return 0;
}

/* The token of slot x of rank r's area a: written, or r's input when x
 * lies in r's send buffer. 0 when it holds nothing. */
static int slot_tok(const struct ck *ck, int r, int a, size_t x,
		    struct tok *t)
{
	const struct slot *sl = &ck->area[r][a][x];
	const struct view *v = &ck->view[r][CSG_SEND];

	if (sl->st & SL_WRITTEN) {
		t->ranks = sl->ranks;
		t->pre = sl->pre;
		t->elem = sl->elem;
		t->post = (sl->st & SL_POST) != 0;
		return 1;
	}
	if (v->area != a || x < v->base || x - v->base >= v->len)
		return 0;
	t->ranks = (uint64_t)1 << r;
	t->pre = 0;
	t->elem = x - v->base;
	t->post = 0;
	return 1;
}

/* ---- peers --------------------------------------------------------------- */

static int src_npeers(struct ck *ck, int r)
{
	return ck->src.npeers ? ck->src.npeers(&ck->p, r, ck->src.ctx)
			      : csg_npeers(&ck->p, r);
}

static int src_peer(struct ck *ck, int r, int i)
{
	return ck->src.peer ? ck->src.peer(&ck->p, r, i, ck->src.ctx)
			    : csg_peer(&ck->p, r, i);
}

/* Read the peer lists: in range, without self or repeats, symmetric. */
static int load_peers(struct ck *ck)
{
	int r, i, n, q;

	for (r = 0; r < ck->P; r++) {
		ck->peers[r] = 0;
		n = src_npeers(ck, r);
		if (n < 0 || n > ck->P - 1)
			return say(ck, CSG_SYM_VIOLATION, "rank %d has %d "
				   "peers", r, n);
		for (i = 0; i < n; i++) {
			q = src_peer(ck, r, i);
			if (q < 0 || q >= ck->P || q == r ||
			    (ck->peers[r] >> q & 1))
				return say(ck, CSG_SYM_VIOLATION, "peer %d of "
					   "rank %d is %d: out of range, "
					   "itself or a repeat", i, r, q);
			ck->peers[r] |= (uint64_t)1 << q;
		}
	}
	for (r = 0; r < ck->P; r++)
		for (q = 0; q < ck->P; q++)
			if ((ck->peers[r] >> q & 1) && !(ck->peers[q] >> r & 1))
				return say(ck, CSG_SYM_VIOLATION, "rank %d "
					   "lists %d as a peer, but %d does not "
					   "list %d", r, q, q, r);
	return 0;
}

/* The first rank of `others` (not r) that is no peer of r, or -1. */
static int non_peer(const struct ck *ck, int r, uint64_t others)
{
	uint64_t bad = others & ~ck->peers[r] & ~((uint64_t)1 << r);

	return bad ? lowest(bad) : -1;
}

/* ---- one op --------------------------------------------------------------- */

/* Is [ref.off, ref.off + n) inside ref's buffer (and ref sane)? */
static int check_ref(struct ck *ck, const csg_ref_t *x, size_t n,
		     const char *role)
{
	size_t len;

	if (x->rank < 0 || x->rank >= ck->P || x->buf < 0 || x->buf > 2)
		return fail_op(ck, 0, "%s names rank %d buffer %d: out of range",
			       role, x->rank, x->buf);
	len = ck->view[x->rank][x->buf].len;
	if (x->off > len || n > len - x->off)
		return fail_op(ck, 0, "%s %s[%d][%zu..%zu) outside the buffer "
			       "(%zu elements)", role, buf_name[x->buf],
			       x->rank, x->off, x->off + n, len);
	return 0;
}

/* The structure of op o of rank r: shape, destination, ranges. */
static int check_op(struct ck *ck, const csg_op_t *o)
{
	int m;

	if (o->nsrc < 0 || o->nsrc > CSG_MAX_SRC)
		return fail_op(ck, 0, "%d sources", o->nsrc);
	if (o->nsrc == 0)
		return o->n ? fail_op(ck, 0, "writes %zu elements from no "
				      "source", o->n) : 0;
	if (o->dst.rank != ck->r)
		return fail_op(ck, 0, "writes rank %d's buffer",
			       o->dst.rank);
	if (o->dst.buf != CSG_RECV && o->dst.buf != CSG_TMP)
		return fail_op(ck, 0, "writes buffer %d (only RECV and TMP "
			       "are written)", o->dst.buf);
	if (o->n && check_ref(ck, &o->dst, o->n, "destination"))
		return CSG_SYM_VIOLATION;
	for (m = 0; m < o->nsrc; m++) {
		if (o->n && check_ref(ck, &o->src[m], o->n, "source"))
			return CSG_SYM_VIOLATION;
		if (o->pre[m] < -1 || o->pre[m] >= ck->P)
			return fail_op(ck, 0, "pre of rank %d", o->pre[m]);
		if (!ck->reduces && o->pre[m] >= 0)
			return fail_op(ck, 0, "pre in a collective that does "
				       "not reduce");
	}
	if (!ck->reduces && (o->post || o->nsrc > 1))
		return fail_op(ck, 0, "%s in a collective that does not "
			       "reduce", o->post ? "post" : "a fold");
	return 0;
}

/* Read element j of source x (the read marks its slot). */
static int read_src(struct ck *ck, const csg_ref_t *x, struct tok *out)
{
	const struct view *v = &ck->view[x->rank][x->buf];
	size_t at = v->base + x->off + ck->j;
	struct slot *sl = &ck->area[x->rank][v->area][at];
	uint32_t acc = (uint32_t)ck->npend;
	uint16_t ch = (uint16_t)(ck->chan + 1);
	int q;

	if (sl->wchan && sl->wchan != ch)
		return fail_op(ck, 1, "reads %s[%d][%zu], which channel %d "
			       "writes", buf_name[x->buf], x->rank,
			       x->off + ck->j, sl->wchan - 1);
	if ((q = non_peer(ck, ck->r, sl->writers)) >= 0)
		return fail_op(ck, 1, "reads %s[%d][%zu], which rank %d "
			       "writes, but %d and %d are not peers",
			       buf_name[x->buf], x->rank, x->off + ck->j, q,
			       ck->r, q);
	sl->rchan = !sl->rchan || sl->rchan == ch ? ch : CHAN_MANY;
	if (sl->rstep != ck->stamp) {
		sl->rstep = ck->stamp;
		sl->racc = acc;
		sl->st &= ~SL_RMULTI;
	} else if (sl->racc != acc) {
		sl->racc2 = acc;
		sl->st |= SL_RMULTI;
	}
	sl->touch |= (uint64_t)1 << ck->r;
	if (!slot_tok(ck, x->rank, v->area, at, out))
		return fail_op(ck, 1, "reads %s[%d][%zu], never written and "
			       "not an input", buf_name[x->buf], x->rank,
			       x->off + ck->j);
	return 0;
}

/* Apply pre of rank `who` to token t (a single raw contribution). */
static int apply_pre(struct ck *ck, struct tok *t, int who)
{
	char d[512];

	if (!t->pre && !t->post && t->ranks == (uint64_t)1 << who) {
		t->pre = t->ranks;
		return 0;
	}
	tok_str(ck, t, d, sizeof d);
	if (t->pre || t->post || !t->ranks || (t->ranks & (t->ranks - 1)))
		return fail_op(ck, 1, "pre of rank %d applied to %s (pre "
			       "applies once, to one input)", who, d);
	return fail_op(ck, 1, "pre of rank %d applied to %s", who, d);
}

/* acc = fold(acc, x). */
static int fold(struct ck *ck, struct tok *acc, const struct tok *x)
{
	char a[512], b[512];

	if (acc->elem == x->elem && !(acc->ranks & x->ranks) &&
	    acc->pre == acc->ranks && x->pre == x->ranks && !acc->post &&
	    !x->post) {
		acc->ranks |= x->ranks;
		acc->pre |= x->pre;
		return 0;
	}
	tok_str(ck, acc, a, sizeof a);
	tok_str(ck, x, b, sizeof b);
	if (acc->elem != x->elem)
		return fail_op(ck, 1, "folds %s with %s: different elements",
			       a, b);
	if (acc->ranks & x->ranks)
		return fail_op(ck, 1, "folds %s with %s: a contribution "
			       "counted twice", a, b);
	if (acc->pre != acc->ranks || x->pre != x->ranks)
		return fail_op(ck, 1, "folds %s with %s: a contribution "
			       "without its pre", a, b);
	return fail_op(ck, 1, "folds %s with %s: post already applied", a, b);
}

/* Apply post to the result t of an op. */
static int apply_post(struct ck *ck, struct tok *t)
{
	char d[512];

	if (!t->post && t->ranks == ck->all && t->pre == ck->all) {
		t->post = 1;
		return 0;
	}
	tok_str(ck, t, d, sizeof d);
	if (t->post)
		return fail_op(ck, 1, "post applied twice, to %s", d);
	return fail_op(ck, 1, "post applied to %s, an incomplete value", d);
}

static int push_pend(struct ck *ck, const csg_op_t *o, const struct tok *t)
{
	const struct view *v = &ck->view[ck->r][o->dst.buf];
	struct pend *pn;

	if (ck->npend == ck->cap) {
		size_t cap = ck->cap ? 2 * ck->cap : 1024;
		struct pend *np = realloc(ck->pend, cap * sizeof *np);

		if (!np || cap > UINT32_MAX)
			return say(ck, CSG_SYM_ENOMEM, "no memory for a step");
		ck->pend = np;
		ck->cap = cap;
	}
	pn = &ck->pend[ck->npend++];
	pn->off = o->dst.off + ck->j;
	pn->sl = &ck->area[ck->r][v->area][v->base + pn->off];
	pn->tk = *t;
	pn->r = ck->r;
	pn->k = ck->k;
	pn->i = ck->i;
	pn->s = ck->s;
	pn->j = ck->j;
	pn->buf = o->dst.buf;
	return 0;
}

/* Element j of op o: read, pre, fold, post; the write is queued. */
static int eval_elem(struct ck *ck, const csg_op_t *o)
{
	struct tok res, x;
	int m;

	memset(&res, 0, sizeof res);
	for (m = 0; m < o->nsrc; m++) {
		if (read_src(ck, &o->src[m], &x))
			return CSG_SYM_VIOLATION;
		if (o->pre[m] >= 0 && apply_pre(ck, &x, o->pre[m]))
			return CSG_SYM_VIOLATION;
		if (m == 0)
			res = x;
		else if (fold(ck, &res, &x))
			return CSG_SYM_VIOLATION;
	}
	if (o->post && apply_post(ck, &res))
		return CSG_SYM_VIOLATION;
	return push_pend(ck, o, &res);
}

/* ---- one step ------------------------------------------------------------ */

/* The hazards of queued write w: against other channels, against the
 * other accesses of this step, and against non-peers. */
static int write_hazard(struct ck *ck, uint32_t w)
{
	const struct pend *pn = &ck->pend[w];
	const struct slot *sl = pn->sl;
	uint16_t ch = (uint16_t)(ck->chan + 1);
	char me[128], other[128], where[64];
	uint32_t o;
	int q;

	acc_str(pn, me, sizeof me);
	snprintf(where, sizeof where, "%s[%d][%zu]", buf_name[pn->buf], pn->r,
		 pn->off);
	if (sl->wchan && sl->wchan != ch)
		return say(ck, CSG_SYM_VIOLATION, "channels %d and %d both "
			   "write %s (channel %d step %d: %s)", sl->wchan - 1,
			   ck->chan, where, ck->chan, ck->t, me);
	if (sl->rchan && sl->rchan != ch)
		return say(ck, CSG_SYM_VIOLATION, "channel %d writes %s "
			   "(step %d: %s), which another channel reads",
			   ck->chan, where, ck->t, me);
	if (sl->wstep == ck->stamp && sl->wacc != w) {
		acc_str(&ck->pend[sl->wacc], other, sizeof other);
		return say(ck, CSG_SYM_VIOLATION, "channel %d step %d: %s is "
			   "written by %s and by %s in the same step",
			   ck->chan, ck->t, where, other, me);
	}
	if (sl->rstep == ck->stamp && ((sl->st & SL_RMULTI) || sl->racc != w)) {
		o = sl->racc != w ? sl->racc : sl->racc2;
		acc_str(&ck->pend[o], other, sizeof other);
		return say(ck, CSG_SYM_VIOLATION, "channel %d step %d: %s is "
			   "written by %s and read by %s in the same step",
			   ck->chan, ck->t, where, me, other);
	}
	if ((q = non_peer(ck, pn->r, sl->touch)) >= 0)
		return say(ck, CSG_SYM_VIOLATION, "channel %d step %d: %s "
			   "writes %s, which rank %d reads or writes, but %d "
			   "and %d are not peers", ck->chan, ck->t, me, where,
			   q, pn->r, q);
	return 0;
}

/* Apply queued write w: the hazard checks, then the token. */
static int write_pend(struct ck *ck, uint32_t w)
{
	const struct pend *pn = &ck->pend[w];
	struct slot *sl = pn->sl;
	uint16_t ch = (uint16_t)(ck->chan + 1);

	if ((sl->wchan && sl->wchan != ch) || (sl->rchan && sl->rchan != ch) ||
	    (sl->wstep == ck->stamp && sl->wacc != w) ||
	    (sl->rstep == ck->stamp &&
	     ((sl->st & SL_RMULTI) || sl->racc != w)) ||
	    non_peer(ck, pn->r, sl->touch) >= 0)
		return write_hazard(ck, w);
	sl->wchan = ch;
	sl->wstep = ck->stamp;
	sl->wacc = w;
	sl->touch |= (uint64_t)1 << pn->r;
	sl->writers |= (uint64_t)1 << pn->r;
	sl->ranks = pn->tk.ranks;
	sl->pre = pn->tk.pre;
	sl->elem = (uint32_t)pn->tk.elem;
	sl->st = (uint8_t)((sl->st & ~SL_POST) | SL_WRITTEN |
			   (pn->tk.post ? SL_POST : 0));
	return 0;
}

static int src_nops(struct ck *ck, int r, int s)
{
	return ck->src.nops ? ck->src.nops(&ck->p, r, s, ck->src.ctx)
			    : csg_nops(&ck->p, r, s);
}

static csg_op_t src_op(struct ck *ck, int r, int s, int k, int i)
{
	return ck->src.get_op ? ck->src.get_op(&ck->p, r, s, k, i, ck->src.ctx)
			      : csg_get_op(&ck->p, r, s, k, i);
}

/* The reads of rank r, slice k at base step s; writes queued. */
static int run_ops(struct ck *ck)
{
	int n = src_nops(ck, ck->r, ck->s);
	csg_op_t o;

	if (n < 0 || n > MAX_OPS)
		return fail_op(ck, 0, "%d ops (0..%d)", n, MAX_OPS);
	for (ck->i = 0; ck->i < n; ck->i++) {
		o = src_op(ck, ck->r, ck->s, ck->k, ck->i);
		if (check_op(ck, &o))
			return CSG_SYM_VIOLATION;
		if (!o.nsrc)
			continue;
		for (ck->j = 0; ck->j < o.n; ck->j++)
			if (eval_elem(ck, &o))
				return CSG_SYM_VIOLATION;
	}
	return 0;
}

/* Step t of the channel: every rank's reads, then every write. */
static int run_step(struct ck *ck, int base)
{
	size_t w;
	int rc;

	ck->stamp++;
	ck->npend = 0;
	for (ck->r = 0; ck->r < ck->P; ck->r++)
		for (ck->k = 0; ck->k < ck->p.nslices; ck->k++) {
			ck->s = ck->t - ck->k;
			if (ck->s < 0 || ck->s >= base)
				continue;
			if ((rc = run_ops(ck)))
				return rc;
		}
	for (w = 0; w < ck->npend; w++)
		if ((rc = write_pend(ck, (uint32_t)w)))
			return rc;
	return 0;
}

/* sched.h's own wavefront against the one the checker runs. */
static int check_wavefront(struct ck *ck, int base, int T)
{
	int t, k, s;

	if (csg_nsteps(&ck->p) != T)
		return say(ck, CSG_SYM_VIOLATION, "csg_nsteps %d, expected %d",
			   csg_nsteps(&ck->p), T);
	for (t = 0; t < T; t++)
		for (k = 0; k < ck->p.nslices; k++) {
			s = t - k >= 0 && t - k < base ? t - k : -1;
			if (csg_slice_step(&ck->p, t, k) != s)
				return say(ck, CSG_SYM_VIOLATION,
					   "csg_slice_step(%d, %d) = %d, "
					   "expected %d", t, k,
					   csg_slice_step(&ck->p, t, k), s);
		}
	return 0;
}

static int run_chan(struct ck *ck, int c)
{
	int base, T, rc;

	ck->chan = ck->p.chan = c;
	base = ck->src.base_steps ? ck->src.base_steps(&ck->p, ck->src.ctx)
				  : csg_base_steps(&ck->p);
	if (base < 0 || base > 1 << 20)
		return say(ck, CSG_SYM_VIOLATION, "%d base steps", base);
	T = base + ck->p.nslices - 1;
	if (!ck->src.base_steps && (rc = check_wavefront(ck, base, T)))
		return rc;
	for (ck->t = 0; ck->t < T; ck->t++)
		if ((rc = run_step(ck, base)))
			return rc;
	return 0;
}

/* ---- the result ------------------------------------------------------------- */

/* The token rank r's RECV[x] must hold (spec §3.1), or 1 when x is in
 * an alltoallv gap (no block). */
static int expect(const struct ck *ck, int r, size_t x, struct tok *t)
{
	const csg_plan_t *p = &ck->p;
	size_t n = p->n ? p->n : 1, P = (size_t)p->P, q;
	int o;

	t->pre = 0;
	t->post = 0;
	if (ck->reduces) {
		t->ranks = t->pre = ck->all;
		t->post = 1;
		t->elem = p->coll == CS_COLL_REDUCESCATTER ? (size_t)r * p->n + x
							   : x;
		return 0;
	}
	switch (p->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		o = (int)(x / n);
		t->elem = x % n;
		break;
	case CS_COLL_ALLTOALL:
		o = (int)(x / n);
		t->elem = (size_t)r * n + x % n;
		break;
	case CS_COLL_ALLTOALLV:
		for (q = 0; q < P; q++) {
			size_t lo = p->v.rdis[(size_t)r * P + q];

			if (x >= lo && x - lo < p->v.cnt[q * P + (size_t)r])
				break;
		}
		if (q == P)
			return 1;
		o = (int)q;
		t->elem = p->v.sdis[q * P + (size_t)r] + x -
			  p->v.rdis[(size_t)r * P + q];
		break;
	case CS_COLL_BROADCAST:
		o = p->root;
		t->elem = x;
		break;
	case CS_COLL_SCATTER:
		o = p->root;
		t->elem = (size_t)r * n + x;
		break;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_REDUCE:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default: /* sendrecv */
		o = csg_mod(r - 1, p->P);
		t->elem = x;
		break;
	}
	t->ranks = (uint64_t)1 << o;
	return 0;
}

static int same_tok(const struct tok *a, const struct tok *b)
{
	return a->ranks == b->ranks && a->pre == b->pre && a->elem == b->elem &&
	       !a->post == !b->post;
}

/*
 * Every element of rank r's RECV holds its result, and the alltoallv
 * gaps were never written. (No op can write anything else of SEND or
 * RECV: ops write only RECV and TMP, inside RECV's range, and RECV's
 * range is the receive range but for the gaps.)
 */
static int check_rank_result(struct ck *ck, int r)
{
	const struct view *v = &ck->view[r][CSG_RECV];
	const struct slot *sl;
	struct tok want, got;
	char w[512], g[512];
	size_t x;

	for (x = 0; x < v->len; x++) {
		sl = &ck->area[r][v->area][v->base + x];
		if (expect(ck, r, x, &want)) {
			if (sl->st & SL_WRITTEN)
				return say(ck, CSG_SYM_VIOLATION, "rank %d "
					   "RECV[%zu] is written, outside the "
					   "receive range (a gap)", r, x);
			continue;
		}
		if (slot_tok(ck, r, v->area, v->base + x, &got) &&
		    same_tok(&want, &got))
			continue;
		tok_str(ck, &want, w, sizeof w);
		if (slot_tok(ck, r, v->area, v->base + x, &got))
			tok_str(ck, &got, g, sizeof g);
		else
			snprintf(g, sizeof g, "nothing");
		return say(ck, CSG_SYM_VIOLATION, "rank %d RECV[%zu] holds %s, "
			   "expected %s", r, x, g, w);
	}
	return 0;
}

static int check_result(struct ck *ck)
{
	int r, rc;

	for (r = 0; r < ck->P; r++)
		if ((rc = check_rank_result(ck, r)))
			return rc;
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

int csg_symcheck_ex(const csg_plan_t *p, const csg_symcheck_opts_t *o,
		    char *msg, size_t len)
{
	struct ck *ck;
	int rc, c;

	if (msg && len)
		msg[0] = '\0';
	if (!p) {
		if (msg && len)
			snprintf(msg, len, "no plan");
		return CSG_SYM_EINVAL;
	}
	ck = calloc(1, sizeof *ck);
	if (!ck) {
		if (msg && len)
			snprintf(msg, len, "no memory");
		return CSG_SYM_ENOMEM;
	}
	ck->p = *p;
	ck->msg = msg;
	ck->len = len;
	if (o && o->src)
		ck->src = *o->src;
	ck->gap = o ? o->a2av_gap : 0;
	if ((rc = check_plan(ck, p)))
		goto out_free_ck;
	ck->P = p->P;
	ck->reduces = csg_reduces(p->coll);
	ck->all = p->P == 64 ? ~(uint64_t)0 : ((uint64_t)1 << p->P) - 1;
	ck->p.chan = 0;
	if ((rc = layout(ck)) || (rc = load_peers(ck)))
		goto out_free_slots;
	for (c = 0; c < p->nchan; c++)
		if ((rc = run_chan(ck, c)))
			goto out_free_slots;
	ck->p.chan = 0;
	rc = check_result(ck);
out_free_slots:
	free(ck->pend);
	free(ck->slots);
out_free_ck:
	free(ck);
	return rc;
}

int csg_symcheck(const csg_plan_t *p, char *msg, size_t len)
{
	return csg_symcheck_ex(p, NULL, msg, len);
}
