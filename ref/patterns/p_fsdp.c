/*
 * p_fsdp.c - FSDP (spec/patterns.md section 5.3, `fsdp`): zero3 with one
 * flat parameter per unit, (W1, b1) and (W2, b2), each padded on its own,
 * gathered unit by unit in the forward and in reverse in the backward.
 * The step itself is zero.c's engine.
 */
#include "csref/pattern.h"
#include "csref/patterns.h"
#include "zero.h"

static cs_status_t run(const cs_pctx_t *x)
{
	return cs_zero_run(x, CS_ZERO_FSDP);
}

static cs_status_t volume(const cs_pattern_t *pat, int v, cs_dtype_t d,
			  uint64_t seed, const cs_grid_t *grid, int g,
			  int64_t *bytes)
{
	(void)pat, (void)v, (void)seed, (void)g;
	return cs_pat_bytes_fsdp(CS_ZERO_H, CS_ZERO_F,
				 cs_grid_axis_size(grid, CS_AXIS_DP),
				 (int)cs_dtype_size(d), bytes);
}

const cs_pattern_t cs_pattern_fsdp = {
	.name = "fsdp",
	.desc = "FSDP: zero3 per unit, each unit's flat parameter padded on "
		"its own, units gathered forward 0, 1 and backward 1, 0",
	.axis = CS_AXIS_DP,
	.dtypes = cs_zero_dtypes,
	.ndtypes = CS_ZERO_NDTYPES,
	.variants = cs_zero_variants,
	.nvariants = CS_ZERO_NVARIANTS,
	.accepts = cs_zero_accepts,
	.run = run,
	.volume = volume,
};
