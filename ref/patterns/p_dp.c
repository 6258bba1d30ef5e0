/*
 * p_dp.c - data parallelism with bucketed gradient allreduce
 * (spec/patterns.md section 5.1, `dp`).
 *
 * Every dp rank holds the whole MLP of mlp.h and its own batch shard; its
 * flat gradient is laid out in reverse parameter order (b2, W2, b1, W1),
 * as backward produces it, and cut into contiguous buckets of at most beta
 * bytes (cs_pat_buckets); one allreduce per bucket, op avg, or op sum
 * followed by a local division by P. Variants: beta in {0, 8w, inf} times
 * {avg, sum then divide}.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "csref/pkern.h"
#include "mlp.h"

enum { B = 4, H = 2, F = 3 };  /* section 5.1's defaults, N = 17 */
enum { T_P, T_X, T_C };        /* input tensors */
enum { NBETA = 3 };            /* variant v: beta index v % 3, sum v / 3 */

static const cs_mlp_t mlp = {B, H, F};

/* The bucket limit of variant v in bytes for a dtype of w bytes. */
static int64_t beta_of(int v, size_t w)
{
	static const int64_t per_w[NBETA] = {0, 8, -1};
	int64_t k = per_w[v % NBETA];
	return k < 0 ? CS_PAT_BETA_INF : k * (int64_t)w;
}

/* One instance, serially: the parameters, and every group rank's batch
 * and gradient in reverse order (the mirror). */
typedef struct inst {
	int P;
	void *p, *work, *g;
	void *gr;       /* [P][N]: rank q's gradient, reverse order */
	void *x, *c;    /* one batch, reused per rank */
	char *arena;
} inst_t;

static void *take(char **p, size_t bytes)
{
	void *r = *p;
	*p += (bytes + 15) & ~(size_t)15;
	return r;
}

static int inst_make(const cs_pctx_t *x, int inst, int P, inst_t *in)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), N = cs_mlp_numel(&mlp);
	size_t total = ((size_t)P + 2) * N * w + 2 * (size_t)B * H * w +
		       cs_mlp_work_numel(&mlp) * w + 16 * 8;
	memset(in, 0, sizeof *in);
	in->arena = calloc(1, total);
	if (!in->arena)
		return 0;
	char *a = in->arena;
	in->P = P;
	in->p = take(&a, N * w);
	in->g = take(&a, N * w);
	in->gr = take(&a, (size_t)P * N * w);
	in->x = take(&a, (size_t)B * H * w);
	in->c = take(&a, (size_t)B * H * w);
	in->work = take(&a, cs_mlp_work_numel(&mlp) * w);
	cs_pat_fill(x, inst, T_P, 0, in->p, N);
	for (int q = 0; q < P; q++) {
		cs_pat_fill(x, inst, T_X, q, in->x, (size_t)B * H);
		cs_pat_fill(x, inst, T_C, q, in->c, (size_t)B * H);
		cs_mlp_grad(d, &mlp, in->p, in->x, in->c, in->work, in->g);
		cs_mlp_reverse(d, &mlp, in->g,
			       (char *)in->gr + (size_t)q * N * w);
	}
	return 1;
}

/* mean[i] = RN(s[i] / P) (integers: C division): one correctly rounded
 * division, in double (53 >= 2p + 2 makes the double rounding harmless). */
static void divide(cs_dtype_t d, size_t n, const void *s, int P, void *mean)
{
	for (size_t i = 0; i < n; i++)
		cs_pk_set(d, mean, i, cs_pk_get(d, s, i) / (double)P);
}

/* Queue local rank i's allreduce of every bucket, in bucket order. */
static cs_status_t queue_buckets(const cs_pctx_t *x, int i, const inst_t *in,
				 void *recv)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), N = cs_mlp_numel(&mlp), at = 0;
	int64_t numel[CS_MLP_NT], bn[CS_MLP_NT];
	int nb = 0;
	for (int t = 0; t < CS_MLP_NT; t++)
		numel[t] = (int64_t)cs_mlp_numel_of(&mlp, t);
	cs_status_t st = cs_pat_buckets(numel, CS_MLP_NT, (int)w,
					beta_of(x->variant, w), bn, NULL, &nb);
	const char *mine = (const char *)in->gr +
			   (size_t)x->rank[i].r * N * w;
	for (int b = 0; b < nb && st == CS_OK; b++) {
		cs_pcall_t c = {.coll = CS_COLL_ALLREDUCE, .dtype = d,
				.op = x->variant >= NBETA ? CS_OP_SUM
							  : CS_OP_AVG,
				.count = (size_t)bn[b], .send = mine + at * w,
				.recv = (char *)recv + at * w,
				.phase = CS_PHASE_BWD};
		st = cs_pport_call(x->port, i, &c);
		at += (size_t)bn[b];
	}
	return st;
}

/* Check local rank i's result (spec section 5.1's Check): recv holds the
 * allreduced buckets, mean and want are scratch of N elements. */
static void check(const cs_pctx_t *x, int i, const inst_t *in,
		  const void *recv, void *mean, void *want)
{
	cs_dtype_t d = x->dtype;
	size_t w = cs_dtype_size(d), N = cs_mlp_numel(&mlp);
	int P = in->P;
	const void *xs[CS_PAT_MAX_GROUP];
	cs_pcheck_t *k = &x->chk[i];
	for (int q = 0; q < P; q++)
		xs[q] = (const char *)in->gr + (size_t)q * N * w;
	if (x->variant < NBETA) {
		cs_pchk_reduced(k, "mean gradient (allreduce avg)", d,
				CS_OP_AVG, P, xs, recv, N);
		return;
	}
	/* sum then divide: the sum within B_sum, the division derived
	 * bitwise, and the mean within B_avg (section 5.1 proves it) */
	cs_pchk_reduced(k, "gradient sum (allreduce sum)", d, CS_OP_SUM, P,
			xs, recv, N);
	divide(d, N, recv, P, mean);
	memcpy(want, recv, N * w);
	divide(d, N, want, P, want);
	cs_pchk_bits(k, "mean gradient (sum / P)", d, mean, want, N);
	cs_pchk_reduced(k, "mean gradient (sum / P) against avg", d,
			CS_OP_AVG, P, xs, mean, N);
}

static cs_status_t run(const cs_pctx_t *x)
{
	size_t w = cs_dtype_size(x->dtype), N = cs_mlp_numel(&mlp);
	int L = x->nlocal;
	cs_status_t st = CS_OK;
	inst_t *in = calloc((size_t)L, sizeof *in);
	char *buf = calloc((size_t)L, 3 * N * w);
	if (!in || !buf) {
		st = cs_error(CS_ERR_NOMEM, "dp: buffers");
		goto done;
	}
	for (int i = 0; i < L && st == CS_OK; i++)
		if (!inst_make(x, x->rank[i].inst, x->rank[i].P, &in[i]))
			st = cs_error(CS_ERR_NOMEM, "dp: instance");
	for (int i = 0; i < L && st == CS_OK; i++)
		st = queue_buckets(x, i, &in[i], buf + (size_t)i * 3 * N * w);
	if (st != CS_OK || cs_pport_run(x->port) != CS_OK)
		goto done;
	for (int i = 0; i < L; i++) {
		char *b = buf + (size_t)i * 3 * N * w;
		check(x, i, &in[i], b, b + N * w, b + 2 * N * w);
	}
done:
	for (int i = 0; in && i < L; i++)
		free(in[i].arena);
	free(in);
	free(buf);
	return st;
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	(void)pat;
	(void)v;
	(void)seed;
	(void)grid;
	(void)g;
	return cs_pat_bytes_dp(H, F, (int)cs_dtype_size(d), bytes);
}

static const cs_dtype_t dtypes[] = {CS_DTYPE_FLOAT32, CS_DTYPE_BFLOAT16,
				    CS_DTYPE_FLOAT16, CS_DTYPE_INT32};
static const char *const variants[] = {"beta0-avg", "beta8w-avg",
				       "betainf-avg", "beta0-sum",
				       "beta8w-sum", "betainf-sum"};

const cs_pattern_t cs_pattern_dp = {
	.name = "dp",
	.desc = "data parallel: gradients bucketed in reverse parameter "
		"order, one allreduce per bucket (avg, or sum then divide)",
	.axis = CS_AXIS_DP,
	.dtypes = dtypes,
	.ndtypes = 4,
	.variants = variants,
	.nvariants = 6,
	.accepts = NULL,
	.run = run,
	.volume = volume,
};
