/*
 * broken_plugin.c - a collspec backend plugin for the harness's own tests:
 * allreduce, allgather and reducescatter computed naively over the
 * bootstrap channel (every rank gathers every input and reduces in rank
 * order with csref's arithmetic), with one deliberate fault chosen by the
 * --backend-opt string:
 *
 *   none        no fault: must pass
 *   wrongshard  reducescatter: rank r receives block r+1
 *   swap        allgather: blocks 0 and 1 of the result swapped
 *   tail        allreduce: the last element is left unreduced (rank 0's
 *               input, the same on every rank: only the value check sees it)
 *   overrun     allreduce: one element written past the receive range
 *   clobber     allreduce: out of place, the send buffer's first element
 *               is changed
 *   rankround   allreduce: each rank sums starting from its own input, so
 *               ranks round differently (each result within the bound)
 *   hang        allreduce of count 1: rank 0 never returns
 *   crash       allreduce of count 1: the last rank aborts
 *   error       allreduce of count 1: every rank returns an error, with an
 *               error string the report must quote
 *   stdout      no fault in the results, but every call writes garbage
 *               (half a JSON object, an XML tag) to stdout
 * (other counts run normally, so a sweep can be seen to resume)
 *
 * It needs no MPI: all communication goes through cs_bootstrap_t.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "csref/arith.h"
#include "csref/reduce.h"

enum fault {
	F_NONE, F_WRONGSHARD, F_SWAP, F_TAIL, F_OVERRUN, F_CLOBBER,
	F_RANKROUND, F_HANG, F_CRASH, F_ERROR, F_STDOUT
};

static const char *const fault_names[] = {
	"none", "wrongshard", "swap", "tail", "overrun", "clobber",
	"rankround", "hang", "crash", "error", "stdout",
};

#define BP_EFAULT 3 /* the injected error */

/* Text on stdout that must not reach the harness's reports. */
static void garbage(void)
{
	static const char junk[] = "STDOUT-GARBAGE {\"verdict\":\"PASS\",\"ch";

	printf("STDOUT-GARBAGE <testcase name=\"bogus\"><failure>\n");
	fflush(stdout);
	(void)!write(STDOUT_FILENO, junk, sizeof junk - 1);
}

static enum fault fault;

struct bcomm {
	const cs_bootstrap_t *boot;
};

#define BOOT(c) (((struct bcomm *)(c))->boot)

static int new_comm(const cs_bootstrap_t *boot, cs_bcomm_t *out)
{
	struct bcomm *c = malloc(sizeof *c);

	if (!c)
		return 1;
	c->boot = boot;
	*out = c;
	return 0;
}

static int bp_init(const cs_bootstrap_t *world, const char *options,
		   cs_bcomm_t *out)
{
	size_t i;

	for (i = 0; i < sizeof fault_names / sizeof *fault_names; i++)
		if (options && !strcmp(options, fault_names[i]))
			break;
	if (i == sizeof fault_names / sizeof *fault_names)
		return 2; /* unknown fault name */
	fault = (enum fault)i;
	return new_comm(world, out);
}

static int bp_split(cs_bcomm_t comm, int color, int key,
		    const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	return new_comm(sub, out);
}

static int bp_free(cs_bcomm_t comm)
{
	free(comm);
	return 0;
}

/* Every rank's n-element input, gathered: all[q*n ..]. NULL on failure. */
static unsigned char *gather_all(const cs_bootstrap_t *b, const void *s,
				 size_t bytes)
{
	unsigned char *all = malloc(bytes * (size_t)b->nranks + 1);

	if (all && b->allgather(b->ctx, s, all, bytes)) {
		free(all);
		return NULL;
	}
	return all;
}

/* out[0..n) = the reduction of block `blk` (n elements) of every rank's
 * input, starting the fold at rank `first` and going round. */
static void reduce_block(const cs_bootstrap_t *b, const unsigned char *all,
			 size_t stride, size_t blk, size_t n, cs_dtype_t d,
			 cs_op_t op, const uint64_t *scalars, int first,
			 void *out)
{
	size_t es = cs_dtype_size(d);
	unsigned char *tmp = malloc(n * es + 1);
	int k, P = b->nranks;

	for (k = 0; k < P && tmp; k++) {
		int q = (first + k) % P;
		const void *in = all + (size_t)q * stride + blk * n * es;
		cs_op_prepare(d, op, P, scalars[q], k ? tmp : out, in, n);
		if (k)
			cs_reduce_bufs(d, op, out, tmp, n);
	}
	cs_op_finish(d, op, P, out, n);
	free(tmp);
}

/* Every rank's PREMULSUM scalar (bits), gathered. */
static int gather_scalars(const cs_bootstrap_t *b, cs_dtype_t d,
			  const void *scalar, uint64_t *out)
{
	uint64_t mine = scalar ? cs_load(d, scalar, 0) : 0;

	return b->allgather(b->ctx, &mine, out, sizeof mine);
}

static int bp_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t c,
			void *stream)
{
	const cs_bootstrap_t *b = BOOT(c);
	size_t es = cs_dtype_size(d);
	uint64_t *sc = malloc((size_t)b->nranks * sizeof *sc);
	unsigned char *all = NULL;
	int first = fault == F_RANKROUND ? b->rank : 0;

	if (fault == F_HANG && b->rank == 0 && count == 1)
		for (;;)
			pause();
	if (fault == F_CRASH && b->rank == b->nranks - 1 && count == 1)
		abort();
	if (fault == F_ERROR && count == 1)
		return BP_EFAULT;
	if (fault == F_STDOUT)
		garbage();
	if (!sc || gather_scalars(b, d, scalar, sc) ||
	    !(all = gather_all(b, s, count * es))) {
		free(sc);
		return 1;
	}
	reduce_block(b, all, count * es, 0, count, d, op, sc, first, r);
	if (fault == F_TAIL && count && b->nranks > 1)
		memcpy((unsigned char *)r + (count - 1) * es,
		       all + (count - 1) * es, es);
	if (fault == F_OVERRUN)
		memset((unsigned char *)r + count * es, 0x11, es);
	if (fault == F_CLOBBER && s != r && count)
		((unsigned char *)s)[0] ^= 0x40;
	free(all);
	free(sc);
	return 0;
}

static int bp_reducescatter(const void *s, void *r, size_t count,
			    cs_dtype_t d, cs_op_t op, const void *scalar,
			    cs_bcomm_t c, void *stream)
{
	const cs_bootstrap_t *b = BOOT(c);
	size_t es = cs_dtype_size(d), P = (size_t)b->nranks;
	uint64_t *sc = malloc(P * sizeof *sc);
	unsigned char *all = NULL;
	size_t blk = (size_t)b->rank;

	if (!sc || gather_scalars(b, d, scalar, sc) ||
	    !(all = gather_all(b, s, P * count * es))) {
		free(sc);
		return 1;
	}
	if (fault == F_WRONGSHARD)
		blk = (blk + 1) % P;
	reduce_block(b, all, P * count * es, blk, count, d, op, sc, 0, r);
	free(all);
	free(sc);
	return 0;
}

static int bp_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t c, void *stream)
{
	const cs_bootstrap_t *b = BOOT(c);
	size_t bytes = count * cs_dtype_size(d);
	unsigned char *all = gather_all(b, s, bytes), *t;

	if (!all)
		return 1;
	if (fault == F_STDOUT)
		garbage();
	memcpy(r, all, bytes * (size_t)b->nranks);
	free(all);
	if (fault == F_SWAP && b->nranks > 1 && bytes) {
		t = malloc(bytes);
		if (!t)
			return 1;
		memcpy(t, r, bytes);
		memcpy(r, (unsigned char *)r + bytes, bytes);
		memcpy((unsigned char *)r + bytes, t, bytes);
		free(t);
	}
	return 0;
}

static int bp_sync(cs_bcomm_t c, void *stream)
{
	return 0;
}

static const char *bp_error_string(cs_bcomm_t c, int err)
{
	if (err == 2)
		return "unknown fault name in --backend-opt (none wrongshard swap "
		       "tail overrun clobber rankround hang crash error stdout)";
	if (err == BP_EFAULT)
		return "injected error: the broken test plugin refuses allreduce "
		       "of count 1";
	return "bootstrap exchange failed or out of memory";
}

static const cs_backend_t broken_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "broken",
	.description = "naive gather-everything collectives with one chosen "
		       "fault (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = bp_init,
	.comm_split = bp_split,
	.comm_free = bp_free,
	.allreduce = bp_allreduce,
	.allgather = bp_allgather,
	.reducescatter = bp_reducescatter,
	.synchronize = bp_sync,
	.error_string = bp_error_string,
};

const cs_backend_t *collspec_backend(uint32_t harness_abi_version);

const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	return &broken_backend;
}
