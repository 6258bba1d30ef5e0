/*
 * split.c - the index arithmetic the patterns share (spec/patterns.md
 * sections 1, 5.1-5.3, 5.7, 5.9): balanced and padded splits, DP buckets,
 * the MoE capacity. Contracts in csref/patterns.h.
 */
#include "csref/patterns.h"
#include "checked.h"

cs_status_t cs_pat_balanced(int64_t n, int P, int r, int64_t *count,
			    int64_t *offset)
{
	if (!count || !offset)
		return cs_error(CS_ERR_INVALID, "cs_pat_balanced: NULL output");
	if (!pat_min_ok(n, 0, "items n") || !pat_rank_ok(P, r))
		return CS_ERR_INVALID;
	/* r * q + min(r, m) <= n: no overflow once n fits. */
	int64_t q = n / P, m = n % P;
	*count = q + (r < m ? 1 : 0);
	*offset = (int64_t)r * q + (r < m ? r : m);
	return CS_OK;
}

cs_status_t cs_pat_padded(int64_t n, int P, int r, cs_pat_shard_t *out)
{
	if (!out)
		return cs_error(CS_ERR_INVALID, "cs_pat_padded: NULL output");
	if (!pat_min_ok(n, 1, "items n") || !pat_rank_ok(P, r))
		return CS_ERR_INVALID;
	int64_t s = n / P + (n % P != 0 ? 1 : 0);
	int64_t n_pad, lo;
	if (!pat_mul_ok(s, P, &n_pad, "padded length P * ceil(n/P)"))
		return CS_ERR_OVERFLOW;
	lo = (int64_t)r * s; /* < n_pad */
	out->s = s;
	out->n_pad = n_pad;
	out->lo = lo;
	out->real = lo >= n ? 0 : (n - lo < s ? n - lo : s);
	return CS_OK;
}

/* The checks of cs_pat_buckets' arguments, in order. */
static cs_status_t buckets_args(const int64_t *numel, int ntensors, int w,
				int64_t beta, const int64_t *bucket_numel,
				const int *nbuckets)
{
	if (!numel || !bucket_numel || !nbuckets)
		return cs_error(CS_ERR_INVALID, "cs_pat_buckets: NULL array");
	if (ntensors < 1)
		return cs_error(CS_ERR_INVALID, "cs_pat_buckets: %d tensors, "
				"need >= 1", ntensors);
	if (!pat_w_ok(w) || !pat_min_ok(beta, 0, "bucket size beta"))
		return CS_ERR_INVALID;
	for (int i = 0; i < ntensors; i++)
		if (numel[i] < 1)
			return cs_error(CS_ERR_INVALID, "cs_pat_buckets: "
					"tensor %d has %lld elements, need "
					">= 1", i, (long long)numel[i]);
	return CS_OK;
}

cs_status_t cs_pat_buckets(const int64_t *numel, int ntensors, int w,
			   int64_t beta, int64_t *bucket_numel,
			   int *bucket_ntensors, int *nbuckets)
{
	cs_status_t st = buckets_args(numel, ntensors, w, beta, bucket_numel,
				      nbuckets);
	if (st != CS_OK)
		return st;
	int64_t total = 0, bytes;
	for (int i = 0; i < ntensors; i++) /* every sum below is <= total */
		if (!pat_add_ok(total, numel[i], &total, "parameter count") ||
		    !pat_mul_ok(total, w, &bytes, "parameter bytes"))
			return CS_ERR_OVERFLOW;
	int nb = 0;
	for (int i = ntensors - 1; i >= 0; i--) {
		bool join = nb > 0 &&
			    (bucket_numel[nb - 1] + numel[i]) * w <= beta;
		if (!join) {
			bucket_numel[nb] = 0;
			if (bucket_ntensors)
				bucket_ntensors[nb] = 0;
			nb++;
		}
		bucket_numel[nb - 1] += numel[i];
		if (bucket_ntensors)
			bucket_ntensors[nb - 1]++;
	}
	*nbuckets = nb;
	return CS_OK;
}

cs_status_t cs_pat_moe_capacity(int64_t cf_num, int64_t cf_den, int64_t k,
				int64_t tau, int64_t E, int64_t *C)
{
	if (!C)
		return cs_error(CS_ERR_INVALID, "cs_pat_moe_capacity: NULL "
				"output");
	if (!pat_min_ok(cf_num, 0, "capacity factor numerator") ||
	    !pat_min_ok(cf_den, 1, "capacity factor denominator") ||
	    !pat_min_ok(k, 1, "top-k k") || !pat_min_ok(tau, 0, "tokens tau") ||
	    !pat_min_ok(E, 1, "experts E"))
		return CS_ERR_INVALID;
	int64_t num, den;
	if (!pat_mul_ok(cf_num, k, &num, "c_f k tau") ||
	    !pat_mul_ok(num, tau, &num, "c_f k tau") ||
	    !pat_mul_ok(cf_den, E, &den, "c_f denominator * E"))
		return CS_ERR_OVERFLOW;
	*C = num / den + (num % den != 0 ? 1 : 0);
	return CS_OK;
}

cs_status_t cs_pat_ulysses_counts(int64_t S, int64_t A, int64_t D, int P,
				  int to_heads, int64_t *mu)
{
	if (!mu)
		return cs_error(CS_ERR_INVALID, "cs_pat_ulysses_counts: NULL "
				"matrix");
	if (!pat_rank_ok(P, 0) || !pat_min_ok(S, 1, "sequence S") ||
	    !pat_min_ok(A, 1, "heads A") || !pat_min_ok(D, 1, "head dim D"))
		return CS_ERR_INVALID;
	if (S % P != 0)
		return cs_error(CS_ERR_INVALID, "sequence S = %lld is not a "
				"multiple of the group size %d", (long long)S,
				P);
	int64_t rows_heads, block; /* (S/P) A D bounds every block */
	if (!pat_mul_ok(S / P, A, &rows_heads, "(S/P) A D") ||
	    !pat_mul_ok(rows_heads, D, &block, "(S/P) A D"))
		return CS_ERR_OVERFLOW;
	for (int s = 0; s < P; s++)
		for (int d = 0; d < P; d++) {
			int64_t a_q, o_q;
			int q = to_heads ? d : s; /* whose heads move */
			(void)cs_pat_balanced(A, P, q, &a_q, &o_q);
			mu[s * P + d] = (S / P) * a_q * D;
		}
	return CS_OK;
}
