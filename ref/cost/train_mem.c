/*
 * train_mem.c - memory per rank of a training step (csref/train_mem.h):
 * model states under ZeRO 0..3 and FSDP, activations kept for the
 * backward, one gathered layer. docs/model.md section 4.8 derives them.
 */
#include "csref/train_mem.h"

static const char *const scheme_names[CS_TRAIN_MEM_NSCHEMES] = {
	"zero0", "zero1", "zero2", "zero3", "fsdp"};

const char *cs_train_mem_scheme_name(int scheme)
{
	if (scheme < 0 || scheme >= CS_TRAIN_MEM_NSCHEMES)
		return NULL;
	return scheme_names[scheme];
}

cs_status_t cs_train_mem_states(double psi, int nd, int w, int scheme,
				cs_train_mem_t *m)
{
	if (!m || !(psi >= 0) || nd < 1 || w < 1)
		return cs_error(CS_ERR_INVALID, "memory states: %g parameters "
				"over %d ranks at %d bytes", psi, nd, w);
	if (!cs_train_mem_scheme_name(scheme))
		return cs_error(CS_ERR_INVALID, "memory states: scheme %d is "
				"not ZeRO 0..3 or FSDP", scheme);
	/* what each stage shards: 1 optimizer states, 2 also gradients,
	 * 3 and FSDP also parameters */
	double opt_div = scheme >= 1 ? nd : 1;
	double grad_div = scheme >= 2 ? nd : 1;
	double par_div = scheme >= 3 ? nd : 1;
	m->params += psi * w / par_div;
	m->grads += psi * w / grad_div;
	m->optim += psi * CS_TRAIN_MEM_K / opt_div;
	return CS_OK;
}

double cs_train_mem_acts(const cs_train_cfg_t *c)
{
	double s = (double)(c->seq / c->cp), b = (double)c->mbs;
	double h = (double)c->hidden, F = (double)c->ffn;
	double a = (double)c->heads, t = c->tp;
	double k = c->experts ? (double)c->topk : 1;
	double inflight = c->micro_batches < c->pp ? (double)c->micro_batches
						  : c->pp;
	double layer;

	/* attention with its layer norms: 7 sbh unsplit (QKV input 2, its
	 * dropout mask 1, two layer norms 4), 8 sbh split (Q K, V, the
	 * output projection's input) and the scores 5 a s^2 b (softmax 2,
	 * its dropout mask 1, the dropped scores 2); the MLP: 3 sbh unsplit
	 * (input 2, dropout mask 1) and 4 sbF split (the activation's input
	 * and output). Megatron's sp splits the unsplit parts too. */
	double attn_rep = 7 * s * b * h, attn_split = 8 * s * b * h +
						       5 * a * s * s * b;
	double mlp_rep = 3 * s * b * h * k, mlp_split = 4 * s * b * F * k;

	if (c->sp)
		layer = (attn_rep + attn_split + mlp_rep + mlp_split) / t;
	else
		layer = attn_rep + mlp_rep + (attn_split + mlp_split) / t;
	return layer * (double)(c->layers / c->pp) * inflight;
}

cs_status_t cs_train_mem(const cs_train_cfg_t *c, int scheme,
			 cs_train_mem_t *m)
{
	double dense, expert, h, F, t, layer;
	int w, edp;
	cs_status_t st;

	if (!m)
		return cs_error(CS_ERR_INVALID, "memory: NULL output");
	if ((st = cs_train_check(c)) != CS_OK)
		return st;
	m->params = m->grads = m->optim = m->acts = m->gathered = 0;
	w = (int)cs_dtype_size(c->dtype);
	edp = c->dp / c->ep;
	cs_train_params(c, &dense, &expert);
	if ((st = cs_train_mem_states(dense, c->dp, w, scheme, m)) != CS_OK ||
	    (st = cs_train_mem_states(expert, edp, w, scheme, m)) != CS_OK)
		return st;
	m->acts = cs_train_mem_acts(c);
	if (scheme >= 3) {
		h = (double)c->hidden, F = (double)c->ffn, t = c->tp;
		layer = 4 * h * h / t + 2 * h * F / t *
			(c->experts ? (double)(c->experts / c->ep) : 1);
		m->gathered = layer * w;
	}
	m->total = m->params + m->grads + m->optim + m->acts;
	return CS_OK;
}
