/*
 * train.c - the training communication calculator (csref/train.h): the
 * configuration and its checks, the parameters per rank, and the
 * collectives of one step per group. The overlap of gradient buckets and
 * the MoE router's load are in train_sim.c. docs/model.md section 4
 * derives every count.
 */
#include <math.h>
#include <string.h>
#include "csref/train.h"

void cs_train_defaults(cs_train_cfg_t *c)
{
	memset(c, 0, sizeof *c);
	c->layers = 24;
	c->hidden = 2048;
	c->ffn = 4 * 2048;
	c->heads = 16;
	c->seq = 2048;
	c->mbs = 1;
	c->vocab = 0;
	c->experts = 0;
	c->topk = 2;
	c->capacity = 1.25;
	c->dp = c->tp = c->pp = c->ep = c->cp = 1;
	c->bucket_mb = 25;
	c->micro_batches = 8;
	c->dtype = CS_DTYPE_BFLOAT16;
	c->bwd_ms = 100;
}

/* A long field within [lo, hi]. */
static cs_status_t in_range(const char *name, long v, long lo, long hi)
{
	if (v < lo || v > hi)
		return cs_error(CS_ERR_INVALID, "--%s %ld out of range (%ld "
				"to %ld)", name, v, lo, hi);
	return CS_OK;
}

/* a divisible by b, else an error naming both. */
static cs_status_t divides(const char *an, long a, const char *bn, long b)
{
	if (a % b)
		return cs_error(CS_ERR_INVALID, "--%s %ld is not divisible by "
				"--%s %ld", an, a, bn, b);
	return CS_OK;
}

static cs_status_t check_ranges(const cs_train_cfg_t *c)
{
	cs_status_t st = CS_OK;

	if ((st = in_range("layers", c->layers, 1, 100000)) ||
	    (st = in_range("hidden", c->hidden, 1, 1L << 20)) ||
	    (st = in_range("ffn", c->ffn, 1, 1L << 22)) ||
	    (st = in_range("heads", c->heads, 1, 1L << 16)) ||
	    (st = in_range("seq", c->seq, 1, 1L << 24)) ||
	    (st = in_range("micro-batch", c->mbs, 1, 1L << 20)) ||
	    (st = in_range("vocab", c->vocab, 0, 1L << 24)) ||
	    (st = in_range("experts", c->experts, 0, 1L << 16)) ||
	    (st = in_range("micro-batches", c->micro_batches, 1, 1L << 20)) ||
	    (st = in_range("dp", c->dp, 1, 1L << 20)) ||
	    (st = in_range("tp", c->tp, 1, 4096)) ||
	    (st = in_range("pp", c->pp, 1, 4096)) ||
	    (st = in_range("ep", c->ep, 1, 4096)) ||
	    (st = in_range("cp", c->cp, 1, 4096)) ||
	    (st = in_range("zero", c->zero, 0, 3)))
		return st;
	if (c->experts && (st = in_range("topk", c->topk, 1,
					 c->experts < 64 ? c->experts : 64)))
		return st;
	if (!(c->capacity > 0 && c->capacity <= 1024))
		return cs_error(CS_ERR_INVALID, "--capacity %g out of range "
				"(above 0, at most 1024)", c->capacity);
	if (!(c->bucket_mb > 0 && c->bucket_mb <= 1 << 20))
		return cs_error(CS_ERR_INVALID, "--bucket-mb %g out of range "
				"(above 0, at most 2^20)", c->bucket_mb);
	if (!(c->bwd_ms >= 0 && c->bwd_ms <= 1e9))
		return cs_error(CS_ERR_INVALID, "--bwd-ms %g out of range "
				"(0 to 1e9)", c->bwd_ms);
	if (!(c->skew >= 0 && c->skew <= 1e6))
		return cs_error(CS_ERR_INVALID, "--skew %g out of range (0 to "
				"1e6)", c->skew);
	if ((int)c->dtype < 0 || c->dtype >= CS_NUM_DTYPES)
		return cs_error(CS_ERR_INVALID, "dtype out of range");
	return CS_OK;
}

cs_status_t cs_train_check(const cs_train_cfg_t *c)
{
	cs_status_t st;

	if (!c)
		return cs_error(CS_ERR_INVALID, "no training configuration");
	if ((st = check_ranges(c)) != CS_OK)
		return st;
	if ((st = divides("layers", c->layers, "pp", c->pp)) ||
	    (st = divides("hidden", c->hidden, "tp", c->tp)) ||
	    (st = divides("ffn", c->ffn, "tp", c->tp)) ||
	    (st = divides("heads", c->heads, "tp", c->tp)) ||
	    (st = divides("seq", c->seq, "cp", c->cp)) ||
	    (st = divides("vocab", c->vocab, "tp", c->tp)) ||
	    (st = divides("dp", c->dp, "ep", c->ep)))
		return st;
	if (c->sp && (st = divides("seq", c->seq / c->cp, "tp", c->tp)))
		return st;
	if (c->ep > 1 && !c->experts)
		return cs_error(CS_ERR_INVALID, "--ep %d needs --experts",
				c->ep);
	if (c->zero1_rs && c->zero != 1)
		return cs_error(CS_ERR_INVALID, "--zero1 rs needs --zero 1 "
				"(--zero is %d)", c->zero);
	if (c->experts && (st = divides("experts", c->experts, "ep", c->ep)))
		return st;
	return CS_OK;
}

int cs_train_rs(const cs_train_cfg_t *c)
{
	return c->zero == 2 || (c->zero == 1 && c->zero1_rs);
}

void cs_train_params(const cs_train_cfg_t *c, double *dense, double *expert)
{
	double Ls = (double)(c->layers / c->pp), H = (double)c->hidden;
	double F = (double)c->ffn, t = c->tp;

	/* attention Q, K, V, O: 4 H^2; the MLP H F + F H; both split over
	 * tp; the embedding V H (vocab-parallel) on the first stage */
	*dense = Ls * 4 * H * H / t + H * (double)c->vocab / t;
	if (c->experts) {
		*expert = Ls * (double)(c->experts / c->ep) * 2 * H * F / t;
	} else {
		*dense += Ls * 2 * H * F / t;
		*expert = 0;
	}
}

/* Items are appended through this. */
struct list {
	cs_train_item_t *it;
	size_t n;
	const cs_cost_params_t *m;
	cs_status_t st;
};

/* Per-rank bytes of one call of size n on P ranks (spec/patterns.md 3.1:
 * send + receive buffers). */
static double call_bytes(cs_coll_t coll, int P, double n)
{
	if (coll == CS_COLL_ALLGATHER || coll == CS_COLL_REDUCESCATTER)
		return n + n / P;
	return 2 * n;
}

static void add(struct list *l, const char *group, int P, cs_coll_t coll,
		const char *phase, const char *what, double calls, double n)
{
	cs_train_item_t *x;
	double t = 0;
	cs_status_t st;

	if (l->st != CS_OK || P < 2 || calls <= 0)
		return;
	if (l->n == CS_TRAIN_MAX_ITEMS) {
		l->st = cs_error(CS_ERR_INTERNAL, "more than %d items",
				 CS_TRAIN_MAX_ITEMS);
		return;
	}
	st = cs_cost_time(coll, cs_cost_default_algo(coll), P, n, l->m, &t);
	if (st != CS_OK) {
		l->st = st;
		return;
	}
	x = &l->it[l->n++];
	x->group = group;
	x->P = P;
	x->coll = coll;
	x->phase = phase;
	x->what = what;
	x->calls = calls;
	x->size = n;
	x->bytes = calls * call_bytes(coll, P, n);
	x->time_s = calls * t;
}

/* Gradients of N elements (w bytes) in buckets of cap elements: the full
 * buckets and the last, smaller one, as two items. */
static void add_buckets(struct list *l, const char *group, int P,
			cs_coll_t coll, const char *what, double N, double w,
			double cap)
{
	double full = floor(N / cap), rest = N - full * cap;

	add(l, group, P, coll, "bwd", what, full, cap * w);
	add(l, group, P, coll, "bwd", what, rest > 0 ? 1 : 0, rest * w);
}

/* The data-parallel reduction of N elements over P ranks, by ZeRO stage:
 * 0 allreduce; 1 allreduce (zero1_rs: reducescatter), then allgather of
 * the updated shards; 2 reducescatter, then allgather; 3 per micro-batch
 * allgather (fwd, bwd) and reducescatter. The allgather's size is the
 * padded N_pad = P s. */
static void add_dp(struct list *l, const cs_train_cfg_t *c, const char *g,
		   int P, double N, const char *what)
{
	double w = (double)cs_dtype_size(c->dtype), M = c->micro_batches;
	double cap = floor(c->bucket_mb * 1048576.0 / w);
	double Npad = P * ceil(N / P);

	if (cap < 1)
		cap = 1;
	if (c->zero <= 1 && !cs_train_rs(c))
		add_buckets(l, g, P, CS_COLL_ALLREDUCE, what, N, w, cap);
	if (cs_train_rs(c))
		add_buckets(l, g, P, CS_COLL_REDUCESCATTER, what, N, w, cap);
	if (c->zero == 1 || c->zero == 2)
		add(l, g, P, CS_COLL_ALLGATHER, "opt", "parameters", 1,
		    Npad * w);
	if (c->zero == 3) {
		add(l, g, P, CS_COLL_ALLGATHER, "fwd", "parameters", M,
		    Npad * w);
		add(l, g, P, CS_COLL_ALLGATHER, "bwd", "parameters", M,
		    Npad * w);
		add(l, g, P, CS_COLL_REDUCESCATTER, "bwd", what, M, Npad * w);
	}
}

/* Tensor parallelism: per layer and micro-batch 2 allreduce of the
 * activation [b, S/cp, H] forward and 2 backward; with sp each becomes an
 * allgather and a reducescatter of the same tensor. */
static void add_tp(struct list *l, const cs_train_cfg_t *c, double act)
{
	double per = 2.0 * (double)(c->layers / c->pp) * c->micro_batches;

	if (!c->sp) {
		add(l, "tp", c->tp, CS_COLL_ALLREDUCE, "fwd", "activations",
		    per, act);
		add(l, "tp", c->tp, CS_COLL_ALLREDUCE, "bwd", "act. grads",
		    per, act);
		return;
	}
	add(l, "tp", c->tp, CS_COLL_ALLGATHER, "fwd", "activations", per, act);
	add(l, "tp", c->tp, CS_COLL_REDUCESCATTER, "fwd", "activations", per,
	    act);
	add(l, "tp", c->tp, CS_COLL_ALLGATHER, "bwd", "act. grads", per, act);
	add(l, "tp", c->tp, CS_COLL_REDUCESCATTER, "bwd", "act. grads", per,
	    act);
}

/* Pipeline: per micro-batch one activation forward and one gradient
 * backward over each stage boundary (sequence-sharded over tp with sp).
 * A middle stage sends one and receives one of each (two sendrecv
 * halves); an end stage of pp 2 one way only: bytes as spec 5.10. */
static void add_pp(struct list *l, const cs_train_cfg_t *c, double act)
{
	double n = c->sp ? act / c->tp : act, M = c->micro_batches;
	size_t k = l->n;

	add(l, "pp", c->pp, CS_COLL_SENDRECV, "fwd", "activations", M, n);
	add(l, "pp", c->pp, CS_COLL_SENDRECV, "bwd", "act. grads", M, n);
	if (c->pp == 2)
		for (; k < l->n; k++)
			l->it[k].bytes /= 2;
}

/* Expert parallelism: per MoE layer and micro-batch a dispatch and a
 * combine alltoall forward, the same two backward; each rank sends E C
 * rows of H (C = ceil(c_f k tau / E), padded to capacity). */
static void add_ep(struct list *l, const cs_train_cfg_t *c)
{
	double tau = (double)c->mbs * (double)(c->seq / c->cp);
	double E = (double)c->experts, k = (double)c->topk;
	double C = ceil(c->capacity * k * tau / E);
	double n = E * C * (double)c->hidden *
		   (double)cs_dtype_size(c->dtype);
	double per = 2.0 * (double)(c->layers / c->pp) * c->micro_batches;

	add(l, "ep", c->ep, CS_COLL_ALLTOALL, "fwd", "tokens", per, n);
	add(l, "ep", c->ep, CS_COLL_ALLTOALL, "bwd", "token grads", per, n);
}

/* Context parallelism (ring attention): per layer and micro-batch, P-1
 * sendrecv of the K and V block [b, S/cp, H/tp] x 2 forward; backward
 * the K, V blocks again and their gradients, 2 (P-1). */
static void add_cp(struct list *l, const cs_train_cfg_t *c)
{
	double w = (double)cs_dtype_size(c->dtype);
	double n = 2.0 * (double)c->mbs * (double)(c->seq / c->cp) *
		   (double)(c->hidden / c->tp) * w;
	double per = (double)(c->cp - 1) * (double)(c->layers / c->pp) *
		     c->micro_batches;

	add(l, "cp", c->cp, CS_COLL_SENDRECV, "fwd", "K,V blocks", per, n);
	add(l, "cp", c->cp, CS_COLL_SENDRECV, "bwd", "K,V + grads", 2 * per,
	    n);
}

cs_status_t cs_train_items(const cs_train_cfg_t *c,
			   const cs_cost_params_t *m, cs_train_item_t *it,
			   size_t *n)
{
	struct list l = {it, 0, m, CS_OK};
	double dense, expert, act;
	cs_status_t st;

	if (!m || !it || !n)
		return cs_error(CS_ERR_INVALID, "cs_train_items: no output");
	if ((st = cs_train_check(c)) != CS_OK)
		return st;
	cs_train_params(c, &dense, &expert);
	act = (double)c->mbs * (double)(c->seq / c->cp) * (double)c->hidden *
	      (double)cs_dtype_size(c->dtype);
	/* dense weights are replicated over dp x cp, expert weights over
	 * the dp x cp / ep ranks that hold the same experts */
	add_dp(&l, c, "dp", c->dp * c->cp, dense, "gradients");
	if (c->experts)
		add_dp(&l, c, "edp", c->dp * c->cp / c->ep, expert,
		       "expert grads");
	add_tp(&l, c, act);
	add_pp(&l, c, act);
	if (c->experts)
		add_ep(&l, c);
	add_cp(&l, c);
	*n = l.n;
	return l.st;
}
