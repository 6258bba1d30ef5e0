/*
 * volume.c - the closed-form bytes per rank per step of each pattern
 * (spec/patterns.md section 5's "Bytes" paragraphs under section 3.1's
 * convention). The numbers the --comm-log volume test compares a run's
 * logged totals with. Contracts in csref/patterns.h.
 */
#include <stddef.h>
#include "csref/patterns.h"
#include "checked.h"

/* *out = v[0] * ... * v[n-1], all >= 0, unless that overflows. */
static bool prod_ok(const int64_t *v, int n, int64_t *out)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		if (!pat_mul_ok(p, v[i], &p, "bytes"))
			return false;
	*out = p;
	return true;
}

/* Shape sizes named in `names` (one per entry of v) are all >= lo. */
static bool sizes_ok(const int64_t *v, const char *const *names, int n,
		     int64_t lo)
{
	for (int i = 0; i < n; i++)
		if (!pat_min_ok(v[i], lo, names[i]))
			return false;
	return true;
}

/* Common entry checks: a non-NULL output, the dtype size, the group. */
static bool entry_ok(const int64_t *bytes, int w, int P)
{
	if (!bytes) {
		cs_error(CS_ERR_INVALID, "bytes: NULL output");
		return false;
	}
	return pat_w_ok(w) && pat_rank_ok(P, 0);
}

/* S is a multiple of P (the sequence splits evenly). */
static bool divides_ok(int64_t S, int P, const char *what)
{
	if (S % P != 0) {
		cs_error(CS_ERR_INVALID, "%s = %lld is not a multiple of the "
			 "group size %d", what, (long long)S, P);
		return false;
	}
	return true;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define PROD(out, ...)                                                         \
	prod_ok((const int64_t[]){__VA_ARGS__},                                \
		COUNT(((const int64_t[]){__VA_ARGS__})), (out))

cs_status_t cs_pat_mlp_numel(int64_t H, int64_t F, int64_t *N)
{
	if (!N)
		return cs_error(CS_ERR_INVALID, "cs_pat_mlp_numel: NULL "
				"output");
	if (!pat_min_ok(H, 1, "hidden H") || !pat_min_ok(F, 1, "FFN width F"))
		return CS_ERR_INVALID;
	int64_t hf2, n;
	if (!PROD(&hf2, 2, H, F) || !pat_add_ok(hf2, F, &n, "N") ||
	    !pat_add_ok(n, H, &n, "N"))
		return CS_ERR_OVERFLOW;
	*N = n;
	return CS_OK;
}

cs_status_t cs_pat_bytes_dp(int64_t H, int64_t F, int w, int64_t *bytes)
{
	if (!entry_ok(bytes, w, 1))
		return CS_ERR_INVALID;
	int64_t N;
	cs_status_t st = cs_pat_mlp_numel(H, F, &N);
	if (st != CS_OK)
		return st;
	return PROD(bytes, 2, N, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_zero(int variant, int64_t H, int64_t F, int P,
			      int w, int64_t *bytes)
{
	if (!entry_ok(bytes, w, P))
		return CS_ERR_INVALID;
	if (variant < 1 || variant > 3)
		return cs_error(CS_ERR_INVALID, "ZeRO variant %d, must be 1, 2 "
				"or 3", variant);
	int64_t N, gather, elems;
	cs_pat_shard_t sh;
	cs_status_t st = cs_pat_mlp_numel(H, F, &N);
	if (st == CS_OK)
		st = cs_pat_padded(N, P, 0, &sh);
	if (st != CS_OK)
		return st;
	/* An allgather or a reducescatter of shard s: (N_pad + s) elements;
	 * zero1's allreduce of N_pad: 2 N_pad. */
	if (!pat_add_ok(sh.n_pad, sh.s, &gather, "N_pad + s"))
		return CS_ERR_OVERFLOW;
	bool ok = variant == 1 ? PROD(&elems, 2, sh.n_pad) &&
				     pat_add_ok(elems, gather, &elems, "zero1")
				: PROD(&elems, variant, gather);
	return ok && PROD(bytes, elems, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_fsdp(int64_t H, int64_t F, int P, int w,
			      int64_t *bytes)
{
	if (!entry_ok(bytes, w, P))
		return CS_ERR_INVALID;
	if (!pat_min_ok(H, 1, "hidden H") || !pat_min_ok(F, 1, "FFN width F"))
		return CS_ERR_INVALID;
	int64_t hf, unit[2], sum = 0;
	if (!PROD(&hf, H, F) || !pat_add_ok(hf, F, &unit[0], "N_0") ||
	    !pat_add_ok(hf, H, &unit[1], "N_1"))
		return CS_ERR_OVERFLOW;
	for (int u = 0; u < 2; u++) {
		cs_pat_shard_t sh;
		cs_status_t st = cs_pat_padded(unit[u], P, 0, &sh);
		if (st != CS_OK)
			return st;
		if (!pat_add_ok(sum, sh.n_pad, &sum, "fsdp") ||
		    !pat_add_ok(sum, sh.s, &sum, "fsdp"))
			return CS_ERR_OVERFLOW;
	}
	return PROD(bytes, 3, sum, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_tp_col(int64_t B, int64_t H, int64_t F, int P,
				int w, int64_t *bytes)
{
	static const char *const names[] = {"batch B", "hidden H",
					    "FFN width F"};
	if (!entry_ok(bytes, w, P) ||
	    !sizes_ok((const int64_t[]){B, H, F}, names, 3, 1) ||
	    !divides_ok(F, P, "FFN width F"))
		return CS_ERR_INVALID;
	/* allgather of B F/P: (P+1) B F/P; allreduce of B H: 2 B H. */
	int64_t gather, reduce, sum;
	if (!PROD(&gather, P + 1, B, F / P) || !PROD(&reduce, 2, B, H) ||
	    !pat_add_ok(gather, reduce, &sum, "tp_col") ||
	    !PROD(bytes, sum, w))
		return CS_ERR_OVERFLOW;
	return CS_OK;
}

cs_status_t cs_pat_bytes_tp_mlp(int64_t B, int64_t H, int w, int64_t *bytes)
{
	static const char *const names[] = {"batch B", "hidden H"};
	if (!entry_ok(bytes, w, 1) ||
	    !sizes_ok((const int64_t[]){B, H}, names, 2, 1))
		return CS_ERR_INVALID;
	return PROD(bytes, 4, B, H, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_sp(int64_t S, int64_t B, int64_t H, int P, int w,
			    int64_t *bytes)
{
	static const char *const names[] = {"sequence S", "batch B",
					    "hidden H"};
	if (!entry_ok(bytes, w, P) ||
	    !sizes_ok((const int64_t[]){S, B, H}, names, 3, 1) ||
	    !divides_ok(S, P, "sequence S"))
		return CS_ERR_INVALID;
	/* Four calls, each an allgather or reducescatter of (S/P) B H. */
	return PROD(bytes, 4, P + 1, S / P, B, H, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_ulysses(int64_t S, int64_t A, int64_t D, int P,
				 int r, int w, int64_t *bytes)
{
	static const char *const names[] = {"sequence S", "heads A",
					    "head dimension D"};
	if (!entry_ok(bytes, w, P) || !pat_rank_ok(P, r) ||
	    !sizes_ok((const int64_t[]){S, A, D}, names, 3, 1) ||
	    !divides_ok(S, P, "sequence S"))
		return CS_ERR_INVALID;
	int64_t a_r, o_r, mine, all, sum;
	cs_status_t st = cs_pat_balanced(A, P, r, &a_r, &o_r);
	if (st != CS_OK)
		return st;
	/* Per call: the rank's sequence rows of all heads, plus all rows of
	 * its own heads (one is sent, the other received). */
	if (!PROD(&all, S / P, A) || !PROD(&mine, S, a_r) ||
	    !pat_add_ok(all, mine, &sum, "ulysses") ||
	    !PROD(bytes, 8, sum, D, w))
		return CS_ERR_OVERFLOW;
	return CS_OK;
}

cs_status_t cs_pat_bytes_ring(int64_t c, int64_t A, int64_t D, int P, int w,
			      int64_t *bytes)
{
	static const char *const names[] = {"chunk c", "heads A",
					    "head dimension D"};
	if (!entry_ok(bytes, w, P) ||
	    !sizes_ok((const int64_t[]){c, A, D}, names, 3, 1))
		return CS_ERR_INVALID;
	/* P-1 sendrecvs of n = 2 (K and V) * 2c rows * A D, each 2 n. */
	return PROD(bytes, P - 1, 2, 2, 2, c, A, D, w) ? CS_OK
							: CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_moe_pad(int P, int64_t e, int64_t C, int64_t H,
				 int w, int64_t *bytes)
{
	if (!entry_ok(bytes, w, P) || !pat_min_ok(e, 1, "experts per rank e") ||
	    !pat_min_ok(C, 0, "capacity C") || !pat_min_ok(H, 1, "hidden H"))
		return CS_ERR_INVALID;
	/* Dispatch and combine: alltoall of e C H per peer, 2 P e C H each. */
	return PROD(bytes, 4, P, e, C, H, w) ? CS_OK : CS_ERR_OVERFLOW;
}

cs_status_t cs_pat_bytes_moe_a2av(int P, int64_t e, int64_t out_r,
				  int64_t in_r, int64_t H, int w,
				  int64_t *bytes)
{
	if (!entry_ok(bytes, w, P) || !pat_min_ok(e, 1, "experts per rank e") ||
	    !pat_min_ok(out_r, 0, "kept assignments out_r") ||
	    !pat_min_ok(in_r, 0, "received assignments in_r") ||
	    !pat_min_ok(H, 1, "hidden H"))
		return CS_ERR_INVALID;
	/* The int64 count alltoall (count e) is 8 bytes per element whatever
	 * the pattern's dtype. */
	int64_t counts, rows, moved;
	if (!PROD(&counts, 2, P, e, 8) ||
	    !pat_add_ok(out_r, in_r, &rows, "out_r + in_r") ||
	    !PROD(&moved, 2, rows, H, w) ||
	    !pat_add_ok(counts, moved, bytes, "moe a2av"))
		return CS_ERR_OVERFLOW;
	return CS_OK;
}

cs_status_t cs_pat_bytes_pp(int64_t M, int64_t b, int64_t H, int P, int s,
			    int w, int64_t *bytes)
{
	static const char *const names[] = {"micro-batches M",
					    "micro-batch size b", "hidden H"};
	if (!entry_ok(bytes, w, P) || !pat_rank_ok(P, s) ||
	    !sizes_ok((const int64_t[]){M, b, H}, names, 3, 1))
		return CS_ERR_INVALID;
	/* Each neighbour link carries M activations and M gradients; an end
	 * stage has one link, a middle stage two, P = 1 none. */
	int links = P == 1 ? 0 : (s == 0 || s == P - 1 ? 1 : 2);
	return PROD(bytes, 2, links, M, b, H, w) ? CS_OK : CS_ERR_OVERFLOW;
}
