/*
 * p_zero.c - ZeRO-1, ZeRO-2, ZeRO-3 (spec/patterns.md section 5.2,
 * `zero1`, `zero2`, `zero3`): the flat MLP parameter padded to a multiple
 * of P, gradients averaged into owner shards, SGD or Adam on the shard,
 * parameters gathered. The step itself is zero.c's engine.
 */
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "zero.h"

/* zero1's variants rs-* (2, 3) average by reducescatter: zero2's calls
 * and checks (the two differ in what a rank keeps in memory, which no
 * call shows: spec section 5.2). */
static int z1_rs(int v)
{
	return v >= 2;
}

static cs_status_t run_z1(const cs_pctx_t *x)
{
	return cs_zero_run(x, z1_rs(x->variant) ? CS_ZERO_2 : CS_ZERO_1);
}

static cs_status_t run_z2(const cs_pctx_t *x)
{
	return cs_zero_run(x, CS_ZERO_2);
}

static cs_status_t run_z3(const cs_pctx_t *x)
{
	return cs_zero_run(x, CS_ZERO_3);
}

/* Section 5.2's bytes for ZeRO stage `stage` on world rank g's dp group. */
static cs_status_t volume_of(int stage, cs_dtype_t d, const cs_grid_t *grid,
			     int64_t *bytes)
{
	return cs_pat_bytes_zero(stage, CS_ZERO_H, CS_ZERO_F,
				 cs_grid_axis_size(grid, CS_AXIS_DP),
				 (int)cs_dtype_size(d), bytes);
}

static cs_status_t volume_z1(const cs_pattern_t *pat, int v, cs_dtype_t d,
			     uint64_t seed, const cs_grid_t *grid, int g,
			     int64_t *bytes)
{
	(void)pat, (void)seed, (void)g;
	return volume_of(z1_rs(v) ? 2 : 1, d, grid, bytes);
}

static cs_status_t volume_z2(const cs_pattern_t *pat, int v, cs_dtype_t d,
			     uint64_t seed, const cs_grid_t *grid, int g,
			     int64_t *bytes)
{
	(void)pat, (void)v, (void)seed, (void)g;
	return volume_of(2, d, grid, bytes);
}

static cs_status_t volume_z3(const cs_pattern_t *pat, int v, cs_dtype_t d,
			     uint64_t seed, const cs_grid_t *grid, int g,
			     int64_t *bytes)
{
	(void)pat, (void)v, (void)seed, (void)g;
	return volume_of(3, d, grid, bytes);
}

const cs_pattern_t cs_pattern_zero1 = {
	.name = "zero1",
	.desc = "ZeRO-1: the padded gradient averaged by allreduce (ar-*) or "
		"by reducescatter (rs-*, the ZeRO paper's), owner shard "
		"update, allgather of the parameters",
	.axis = CS_AXIS_DP,
	.dtypes = cs_zero_dtypes,
	.ndtypes = CS_ZERO_NDTYPES,
	.variants = cs_zero1_variants,
	.nvariants = CS_ZERO1_NVARIANTS,
	.accepts = cs_zero_accepts,
	.run = run_z1,
	.volume = volume_z1,
};

const cs_pattern_t cs_pattern_zero2 = {
	.name = "zero2",
	.desc = "ZeRO-2: reducescatter avg of the padded gradient into owner "
		"shards, update, allgather of the parameters",
	.axis = CS_AXIS_DP,
	.dtypes = cs_zero_dtypes,
	.ndtypes = CS_ZERO_NDTYPES,
	.variants = cs_zero_variants,
	.nvariants = CS_ZERO_NVARIANTS,
	.accepts = cs_zero_accepts,
	.run = run_z2,
	.volume = volume_z2,
};

const cs_pattern_t cs_pattern_zero3 = {
	.name = "zero3",
	.desc = "ZeRO-3: sharded parameters allgathered for forward and "
		"backward, reducescatter avg of the gradient, update",
	.axis = CS_AXIS_DP,
	.dtypes = cs_zero_dtypes,
	.ndtypes = CS_ZERO_NDTYPES,
	.variants = cs_zero_variants,
	.nvariants = CS_ZERO_NVARIANTS,
	.accepts = cs_zero_accepts,
	.run = run_z3,
	.volume = volume_z3,
};
