/*
 * patterns.h - the index arithmetic and the closed-form communication
 * volumes of the parallelism patterns (issue 10, spec/patterns.md). Plain
 * arithmetic, no MPI, no allocation: how n items split over P ranks, how a
 * flat parameter is padded and sharded, how DP groups gradients into
 * buckets, an MoE capacity, and the bytes each pattern's calls hand the
 * backend ABI on one rank in one step (spec/patterns.md section 3.1's
 * convention: send plus receive elements, times the dtype size w).
 *
 * Sizes and byte counts are int64_t. Every function checks its arguments
 * first and returns CS_ERR_INVALID (a size out of range, a shape the
 * pattern does not define) or CS_ERR_OVERFLOW (a result beyond INT64_MAX),
 * with a message for cs_last_error(); its outputs are then unchanged.
 * Output pointers must not be NULL unless a contract says they may.
 */
#ifndef CSREF_PATTERNS_H
#define CSREF_PATTERNS_H

#include <stdint.h>
#include "csref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- splits (spec/patterns.md section 1) ------------------------------ */

/* Balanced split of n >= 0 items over P >= 1 ranks, rank 0 <= r < P:
 * *count = floor(n/P) + [r < n mod P] items starting at
 * *offset = r floor(n/P) + min(r, n mod P). Ranks in order tile [0, n).
 * Ulysses splits its A heads this way (section 5.7). */
cs_status_t cs_pat_balanced(int64_t n, int P, int r, int64_t *count,
			    int64_t *offset);

/* A flat parameter of n items padded to a multiple of P and rank r's shard
 * of it (sections 1, 5.2, 5.3). */
typedef struct cs_pat_shard {
	int64_t s;     /* shard size ceil(n/P), the same on every rank */
	int64_t n_pad; /* padded length P s */
	int64_t lo;    /* rank r's shard is flat indices [lo, lo + s) = r s */
	int64_t real;  /* how many of those are < n (the rest are padding);
			  0 for an empty shard (padding only) */
} cs_pat_shard_t;

/* Padded split of n >= 1 items over P >= 1 ranks for rank 0 <= r < P,
 * into *out. */
cs_status_t cs_pat_padded(int64_t n, int P, int r, cs_pat_shard_t *out);

/* The bucket size that means "no limit" (one bucket for all tensors). */
#define CS_PAT_BETA_INF INT64_MAX

/* DP gradient buckets (section 5.1). numel[0..ntensors) are the parameter
 * tensors' element counts in parameter order (each >= 1, ntensors >= 1),
 * w the dtype size in bytes (1, 2, 4 or 8), beta >= 0 the bucket size in
 * bytes (CS_PAT_BETA_INF for no limit). Walking the tensors in REVERSE
 * order, a tensor joins the open bucket when the bucket's bytes plus its
 * own are <= beta, else it opens a new bucket. Writes, in bucket order,
 * each bucket's element count to bucket_numel[b] and, when bucket_ntensors
 * is not NULL, how many tensors it holds to bucket_ntensors[b]; both arrays
 * are the caller's, with room for ntensors entries. *nbuckets gets the
 * number of buckets. */
cs_status_t cs_pat_buckets(const int64_t *numel, int ntensors, int w,
			   int64_t beta, int64_t *bucket_numel,
			   int *bucket_ntensors, int *nbuckets);

/* MoE capacity per (source rank, expert), section 5.9:
 * *C = ceil(c_f k tau / E) with the capacity factor given exactly as the
 * fraction c_f = cf_num / cf_den (1.25 is 5/4). cf_num >= 0, cf_den >= 1,
 * k >= 1, tau >= 0, E >= 1. */
cs_status_t cs_pat_moe_capacity(int64_t cf_num, int64_t cf_den, int64_t k,
				int64_t tau, int64_t E, int64_t *C);

/* Ulysses' alltoallv counts (section 5.7) for S sequence rows (a multiple
 * of P), A >= 1 heads of D >= 1 elements over P >= 1 ranks: into the
 * caller's mu[P * P], mu[s*P + d] = the elements rank s sends rank d.
 * Sequence-to-head (to_heads != 0): (S/P) A_d D, A_d rank d's heads of
 * the balanced split; head-to-sequence (to_heads == 0): (S/P) A_s D. */
cs_status_t cs_pat_ulysses_counts(int64_t S, int64_t A, int64_t D, int P,
				  int to_heads, int64_t *mu);

/* Ring attention's causal load-balanced layout (section 5.8): rank r of P
 * holds chunks chunk[0] = r and chunk[1] = 2P-1-r of the 2P chunks, and at
 * step 0 <= i < P holds the K, V of rank *src = (r - i) mod P. */
cs_status_t cs_pat_ring_chunks(int P, int r, int chunk[2]);
cs_status_t cs_pat_ring_source(int P, int r, int i, int *src);

/* ---- the 1F1B timetable (section 5.10) -------------------------------- */

/* The most stages, and the most micro-batches, the timetable takes. */
#define CS_PAT_PP_MAX 64

/* Op i (0 <= i < 2M) of stage s (0 <= s < P) in 1F1B order: w_s =
 * min(P-1-s, M) forwards, then F_{w_s+k}, B_k alternating for
 * k < M - w_s, then the remaining backwards. *backward gets 0 for a forward
 * and 1 for a backward, *mb its micro-batch. 1 <= P, M <= CS_PAT_PP_MAX. */
cs_status_t cs_pat_1f1b_op(int P, int M, int s, int i, int *backward,
			   int *mb);

/* The tick of every op under section 5.10's clock: an op runs at the first
 * tick after its stage's previous op and after the op it needs (F_j on
 * stage s-1, B_j on stage s+1), the first op of stage 0 at tick 0. The
 * caller's tick[P * 2M] gets, for stage s, tick[s*2M + j] = the tick of
 * F_j and tick[s*2M + M + j] = that of B_j; *nticks the number of ticks
 * (the last op's tick + 1), from the table, not from a formula. */
cs_status_t cs_pat_1f1b_ticks(int P, int M, int *tick, int *nticks);

/* ---- bytes per rank per step (sections 3.1 and 5) ---------------------
 * Each writes to *bytes the sum over the pattern's calls in one step of
 * (send + receive elements) * w on the given rank. w is 1, 2, 4 or 8;
 * P >= 1 is the size of the pattern's group; shape sizes are >= 1 unless
 * stated. */

/* The MLP's parameter count N = 2HF + F + H (section 5.1). */
cs_status_t cs_pat_mlp_numel(int64_t H, int64_t F, int64_t *N);

/* dp (5.1): 2 N w, the same for every bucket size and every P. */
cs_status_t cs_pat_bytes_dp(int64_t H, int64_t F, int w, int64_t *bytes);

/* zero1/zero2/zero3 (5.2), variant 1, 2 or 3, with s and N_pad the padded
 * split of N over P: (3 N_pad + s) w, 2 (N_pad + s) w, 3 (N_pad + s) w. */
cs_status_t cs_pat_bytes_zero(int variant, int64_t H, int64_t F, int P,
			      int w, int64_t *bytes);

/* fsdp (5.3), units N_0 = HF + F and N_1 = FH + H each padded over P:
 * 3 sum_u (N_u,pad + s_u) w. */
cs_status_t cs_pat_bytes_fsdp(int64_t H, int64_t F, int P, int w,
			      int64_t *bytes);

/* tp_col (5.4): (BF/P + BF + 2BH) w; F must be a multiple of P. */
cs_status_t cs_pat_bytes_tp_col(int64_t B, int64_t H, int64_t F, int P,
				int w, int64_t *bytes);

/* tp_mlp (5.5): 4 B H w, for every P. */
cs_status_t cs_pat_bytes_tp_mlp(int64_t B, int64_t H, int w, int64_t *bytes);

/* sp (5.6): 4 (S + S/P) B H w; S must be a multiple of P. */
cs_status_t cs_pat_bytes_sp(int64_t S, int64_t B, int64_t H, int P, int w,
			    int64_t *bytes);

/* ulysses (5.7) on rank r: 8 ((S/P) A + S A_r) D w, A_r rank r's share of
 * the balanced split of the A heads; S must be a multiple of P. */
cs_status_t cs_pat_bytes_ulysses(int64_t S, int64_t A, int64_t D, int P,
				 int r, int w, int64_t *bytes);

/* ring (5.8): 8 (P-1) c A D w (P-1 sendrecvs of 4cAD elements). */
cs_status_t cs_pat_bytes_ring(int64_t c, int64_t A, int64_t D, int P, int w,
			      int64_t *bytes);

/* moe (5.9), mode pad: 4 P e C H w (two alltoalls of e C H per peer);
 * C >= 0 from cs_pat_moe_capacity. */
cs_status_t cs_pat_bytes_moe_pad(int P, int64_t e, int64_t C, int64_t H,
				 int w, int64_t *bytes);

/* moe (5.9), mode a2av, on a rank that keeps out_r >= 0 assignments of its
 * own tokens and receives in_r >= 0: 2 P e 8 (the int64 count alltoall) +
 * 2 (out_r + in_r) H w (dispatch and combine). */
cs_status_t cs_pat_bytes_moe_a2av(int P, int64_t e, int64_t out_r,
				  int64_t in_r, int64_t H, int w,
				  int64_t *bytes);

/* pp (5.10) on stage 0 <= s < P with M micro-batches of b rows: 0 when
 * P = 1; otherwise 2 M b H w on stages 0 and P-1 and 4 M b H w on the
 * others (each forward's activation sent or received once, each backward's
 * gradient likewise; idle ticks' all-zero alltoallv cost nothing). */
cs_status_t cs_pat_bytes_pp(int64_t M, int64_t b, int64_t H, int P, int s,
			    int w, int64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif /* CSREF_PATTERNS_H */
