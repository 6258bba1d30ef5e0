/*
 * test_gpu_lanes.c - the runtime's cut of a call into lanes
 * (csgpu/lanes.h's csg_lanes_choose) and the layout of the lanes' step
 * counters (gpu/src/kernels.h), on the CPU.
 *
 * The expected numbers are worked by hand from what docs/gpu.md promises,
 * not from the function's formula:
 *   - channels fill the device: with B co-resident blocks per SM, S SMs
 *     and R ranks on the device, the grid holds B x S blocks, so each rank
 *     gets B x S / R channels (rounded down), at most 32, at most one per
 *     64 KiB of its data, at least one;
 *   - one slice where every rank works at every step (ring allreduce,
 *     reducescatter, allgather; the all-to-alls; gather, scatter,
 *     sendrecv), a pipeline of one slice per 512 KiB of a channel (at most
 *     32) for the chain broadcast and reduce and the trees.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "csgpu/lanes.h"
#include "kernels.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

/* The channels for `bytes` of ring allreduce on (sms, per_sm, rpd). */
static int chans(size_t bytes, int sms, int per_sm, int rpd)
{
	csg_lane_dev_t d = {sms, per_sm, rpd};
	int c = -1, s = -1;

	csg_lanes_choose(bytes, CS_COLL_ALLREDUCE, CSG_ALGO_RING, d, &c, &s);
	return c;
}

/* The slices for `bytes` of coll with algo on (sms, per_sm, rpd). */
static int slices(size_t bytes, cs_coll_t coll, csg_algo_t algo, int sms,
		  int per_sm, int rpd)
{
	csg_lane_dev_t d = {sms, per_sm, rpd};
	int c = -1, s = -1;

	csg_lanes_choose(bytes, coll, algo, d, &c, &s);
	return s;
}

/* Channels come from the blocks the device holds, not its SMs alone. */
static void test_channels_fill_the_device(void **state)
{
	(void)state;
	/* 10 SMs x 2 blocks, 4 ranks: 20 blocks, 5 lanes each */
	assert_int_equal(chans(1 * GiB, 10, 2, 4), 5);
	/* 6 SMs x 4 blocks, 1 rank: 24 */
	assert_int_equal(chans(1 * GiB, 6, 4, 1), 24);
	/* 7 SMs x 3 blocks, 8 ranks: 21 / 8 = 2 */
	assert_int_equal(chans(1 * GiB, 7, 3, 8), 2);
	/* an H200 (132 SMs), one block per SM, one rank: the 32 counters */
	assert_int_equal(chans(1 * GiB, 132, 1, 1), 32);
	/* 132 SMs, 8 virtual ranks on one device: 16 */
	assert_int_equal(chans(1 * GiB, 132, 1, 8), 16);
	/* 132 SMs x 2 blocks, 8 ranks: 33, capped at 32 */
	assert_int_equal(chans(1 * GiB, 132, 2, 8), 32);
	/* more ranks than blocks: still one lane (csg_fits refuses it) */
	assert_int_equal(chans(1 * GiB, 2, 1, 3), 1);
}

/* Small calls get one channel per 64 KiB. */
static void test_channels_of_small_calls(void **state)
{
	(void)state;
	assert_int_equal(chans(0, 132, 1, 1), 1);
	assert_int_equal(chans(1, 132, 1, 1), 1);
	assert_int_equal(chans(64 * KiB - 1, 132, 1, 1), 1);
	assert_int_equal(chans(100 * KiB, 132, 1, 1), 1);
	assert_int_equal(chans(200 * KiB, 132, 1, 1), 3);
	assert_int_equal(chans(1 * MiB, 132, 1, 1), 16);
	assert_int_equal(chans(1 * MiB, 4, 2, 1), 8);
	/* nonsense device numbers count as 1 */
	assert_int_equal(chans(1 * GiB, 0, 0, 0), 1);
}

/* One slice where every rank works at every step, at any size. */
static void test_one_slice_when_every_rank_is_busy(void **state)
{
	static const struct {
		cs_coll_t coll;
		csg_algo_t algo;
	} busy[] = {
		{CS_COLL_ALLREDUCE, CSG_ALGO_RING},
		{CS_COLL_REDUCESCATTER, CSG_ALGO_RING},
		{CS_COLL_ALLGATHER, CSG_ALGO_RING},
		{CS_COLL_ALLTOALL, CSG_ALGO_PAIRWISE},
		{CS_COLL_ALLTOALL, CSG_ALGO_DIRECT},
		{CS_COLL_ALLTOALLV, CSG_ALGO_PAIRWISE},
		{CS_COLL_GATHER, CSG_ALGO_DIRECT},
		{CS_COLL_SCATTER, CSG_ALGO_DIRECT},
		{CS_COLL_SENDRECV, CSG_ALGO_DIRECT},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		assert_int_equal(slices(1 * GiB, busy[i].coll, busy[i].algo, 4,
					1, 1), 1);
		assert_int_equal(slices(64 * MiB, busy[i].coll, busy[i].algo,
					132, 1, 8), 1);
	}
}

/* The pipelined schedules: one slice per 512 KiB of a channel, 1..32. */
static void test_pipelines_get_slices(void **state)
{
	(void)state;
	/* 4 channels of 2 MiB: 4 slices */
	assert_int_equal(slices(8 * MiB, CS_COLL_REDUCE, CSG_ALGO_RING, 4, 1,
				1), 4);
	assert_int_equal(slices(8 * MiB, CS_COLL_BROADCAST, CSG_ALGO_RING, 4,
				1, 1), 4);
	/* 4 channels of 16 MiB: 32 */
	assert_int_equal(slices(64 * MiB, CS_COLL_ALLREDUCE, CSG_ALGO_TREE, 4,
				1, 1), 32);
	/* 32 channels of 32 MiB: 64, capped at 32 */
	assert_int_equal(slices(1 * GiB, CS_COLL_BROADCAST, CSG_ALGO_TREE,
				132, 1, 1), 32);
	/* 32 channels of 128 KiB: below one slice's worth, 1 */
	assert_int_equal(slices(4 * MiB, CS_COLL_REDUCE, CSG_ALGO_TREE, 132,
				1, 1), 1);
	/* 2 channels (8 ranks on 16 blocks) of 3 MiB: 6 */
	assert_int_equal(slices(6 * MiB, CS_COLL_ALLREDUCE, CSG_ALGO_TREE, 8,
				2, 8), 6);
}

/* Over a sweep of devices and sizes: 1..32 channels, the grid fits
 * whenever one lane per rank does, 1..32 slices; no output is left
 * unwritten. */
static void test_bounds(void **state)
{
	static const size_t sizes[] = {0, 1, 65535, 65536, 1 << 20,
				       (size_t)3 << 24, (size_t)1 << 33};
	int sms, per_sm, rpd, c, s;
	size_t i;

	(void)state;
	for (sms = 1; sms <= 140; sms += 3)
		for (per_sm = 1; per_sm <= 4; per_sm++)
			for (rpd = 1; rpd <= 9; rpd++)
				for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]);
				     i++) {
					csg_lane_dev_t d = {sms, per_sm, rpd};

					c = s = -1;
					csg_lanes_choose(sizes[i], CS_COLL_REDUCE,
							 CSG_ALGO_TREE, d, &c, &s);
					assert_in_range(c, 1, CSG_MAX_CHAN);
					assert_in_range(s, 1, 32);
					if (rpd <= sms * per_sm)
						assert_true(c * rpd <= sms * per_sm);
				}
}

/* Every lane's counter on its own 128-byte line, inside the rank's
 * counter block. */
static void test_counter_lines(void **state)
{
	unsigned char line_used[CSG_CTR_BYTES / 128] = {0};
	size_t byte;
	int c;

	(void)state;
	for (c = 0; c < CSG_MAX_CHAN; c++) {
		byte = csg_ctr_index(c) * sizeof(uint64_t);
		assert_int_equal(byte % 128, 0);
		assert_true(byte + sizeof(uint64_t) <= CSG_CTR_BYTES);
		assert_int_equal(line_used[byte / 128], 0);
		line_used[byte / 128] = 1;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channels_fill_the_device),
		cmocka_unit_test(test_channels_of_small_calls),
		cmocka_unit_test(test_one_slice_when_every_rank_is_busy),
		cmocka_unit_test(test_pipelines_get_slices),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_counter_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
