/*
 * mlp.c - the small MLP of spec/patterns.md section 5.1 on a flat
 * parameter vector, and the optimizer updates of section 5.2 (mlp.h).
 */
#include <math.h>
#include <string.h>
#include "csref/pkern.h"
#include "mlp.h"

size_t cs_mlp_numel_of(const cs_mlp_t *m, int t)
{
	switch (t) {
	case CS_MLP_W1:
	case CS_MLP_W2: return m->H * m->F;
	case CS_MLP_B1: return m->F;
	case CS_MLP_B2: return m->H;
	}
	return 0;
}

size_t cs_mlp_off(const cs_mlp_t *m, int t)
{
	size_t off = 0;
	for (int k = 0; k < t && k < CS_MLP_NT; k++)
		off += cs_mlp_numel_of(m, k);
	return off;
}

size_t cs_mlp_numel(const cs_mlp_t *m)
{
	return cs_mlp_off(m, CS_MLP_NT);
}

void cs_mlp_reverse(cs_dtype_t d, const cs_mlp_t *m, const void *g, void *r)
{
	size_t w = cs_dtype_size(d), at = 0;
	for (int t = CS_MLP_NT - 1; t >= 0; t--) {
		size_t n = cs_mlp_numel_of(m, t);
		memcpy((char *)r + at * w,
		       (const char *)g + cs_mlp_off(m, t) * w, n * w);
		at += n;
	}
}

size_t cs_mlp_work_numel(const cs_mlp_t *m)
{
	return 2 * m->B * m->F;
}

/* Element pointer of tensor t in the flat vector p. */
static const void *tensor(cs_dtype_t d, const cs_mlp_t *m, const void *p,
			  int t)
{
	return (const char *)p + cs_mlp_off(m, t) * cs_dtype_size(d);
}

static void *tensor_w(cs_dtype_t d, const cs_mlp_t *m, void *p, int t)
{
	return (char *)p + cs_mlp_off(m, t) * cs_dtype_size(d);
}

void cs_mlp_forward(cs_dtype_t d, const cs_mlp_t *m, const void *p,
		    const void *X, void *A, void *Y)
{
	cs_pk_matmul(d, m->B, m->F, m->H, X, 0, tensor(d, m, p, CS_MLP_W1), 0,
		     A);
	cs_pk_add_rowbias(d, A, tensor(d, m, p, CS_MLP_B1), m->B, m->F);
	cs_pk_relu(d, A, m->B * m->F);
	if (!Y)
		return;
	cs_pk_matmul(d, m->B, m->H, m->F, A, 0, tensor(d, m, p, CS_MLP_W2), 0,
		     Y);
	cs_pk_add_rowbias(d, Y, tensor(d, m, p, CS_MLP_B2), m->B, m->H);
}

void cs_mlp_backward_out(cs_dtype_t d, const cs_mlp_t *m, const void *p,
			 const void *A, const void *C, void *dA, void *g)
{
	/* dW2 [F, H] = A^T C; db2 = sum over rows of C */
	cs_pk_matmul(d, m->F, m->H, m->B, A, 1, C, 0,
		     tensor_w(d, m, g, CS_MLP_W2));
	cs_pk_colsum(d, C, m->B, m->H, tensor_w(d, m, g, CS_MLP_B2));
	/* dA [B, F] = C W2^T, through the ReLU */
	cs_pk_matmul(d, m->B, m->F, m->H, C, 0, tensor(d, m, p, CS_MLP_W2), 1,
		     dA);
	cs_pk_relu_bwd(d, dA, A, m->B * m->F);
}

void cs_mlp_backward_in(cs_dtype_t d, const cs_mlp_t *m, const void *X,
			const void *dA, void *g)
{
	/* dW1 [H, F] = X^T dA; db1 = sum over rows of dA */
	cs_pk_matmul(d, m->H, m->F, m->B, X, 1, dA, 0,
		     tensor_w(d, m, g, CS_MLP_W1));
	cs_pk_colsum(d, dA, m->B, m->F, tensor_w(d, m, g, CS_MLP_B1));
}

void cs_mlp_grad(cs_dtype_t d, const cs_mlp_t *m, const void *p,
		 const void *X, const void *C, void *work, void *g)
{
	void *A = work;
	void *dA = (char *)work + m->B * m->F * cs_dtype_size(d);
	cs_mlp_forward(d, m, p, X, A, NULL);
	cs_mlp_backward_out(d, m, p, A, C, dA, g);
	cs_mlp_backward_in(d, m, X, dA, g);
}

double cs_mlp_lr(cs_dtype_t d)
{
	return cs_dtype_is_float(d) ? 0x1p-4 : 1.0;
}

void cs_mlp_sgd(cs_dtype_t d, size_t n, const void *w, const void *g,
		void *out)
{
	double lr = cs_mlp_lr(d);
	for (size_t i = 0; i < n; i++) {
		double step = cs_pk_round(d, lr * cs_pk_get(d, g, i));
		cs_pk_set(d, out, i, cs_pk_get(d, w, i) - step);
	}
}

void cs_mlp_adam(cs_dtype_t d, size_t n, const void *w, const void *g,
		 void *out)
{
	const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
	const float lr = (float)cs_mlp_lr(d);
	for (size_t i = 0; i < n; i++) {
		float gi = (float)cs_pk_get(d, g, i);
		float m = (1.0f - b1) * gi;
		float v = ((1.0f - b2) * gi) * gi;
		float mh = m / (1.0f - b1);
		float vh = v / (1.0f - b2);
		float step = lr * (mh / (sqrtf(vh) + eps));
		cs_pk_set(d, out, i, (double)((float)cs_pk_get(d, w, i) - step));
	}
}
