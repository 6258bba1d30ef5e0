/*
 * backend_nccl.c - the `nccl` and `nccl-local` backends: NVIDIA's NCCL
 * behind the plugin ABI's struct, on CUDA device memory (backend_nccl.h).
 * This file is the two structs, which say which function is which member;
 * the functions are in (backend_nccl_impl.h has the map):
 *   backend_nccl_comm.c  devices, the bootstrap, communicators, error text;
 *   backend_nccl_coll.c  dtype and op maps, supports, groups, the five
 *                        collectives NCCL has, synchronize;
 *   backend_nccl_p2p.c   sendrecv, gather, scatter, alltoall, alltoallv
 *                        from grouped ncclSend/ncclRecv.
 *
 * The two differ only in the process model: `nccl` is one rank per
 * process (init through the harness's bootstrap); `nccl-local` is every
 * rank in this process, one per local GPU (init_all, and each collective
 * is one call per rank between group_start and group_end).
 */
#include "backends/nccl/backend_nccl_impl.h"

/* ---- the two backends ---------------------------------------------------- */

/* What both process models share. */
#define NB_SHARED_MEMBERS                                                      \
	.abi_version = CS_BACKEND_ABI_VERSION,                                 \
	.struct_size = sizeof(cs_backend_t),                                   \
	.flags = CS_BACKEND_F_OWN_DEVICES | CS_BACKEND_F_BIT_IDENTICAL,        \
	.mem_kind = CS_MEM_CUDA,                                               \
	.comm_split = cs_nccl_comm_split,                                      \
	.comm_free = cs_nccl_comm_free,                                        \
	.supports = cs_nccl_supports,                                          \
	.allreduce = cs_nccl_allreduce,                                        \
	.allgather = cs_nccl_allgather,                                        \
	.reducescatter = cs_nccl_reducescatter,                                \
	.alltoall = cs_nccl_alltoall,                                          \
	.alltoallv = cs_nccl_alltoallv,                                        \
	.broadcast = cs_nccl_broadcast,                                        \
	.reduce = cs_nccl_reduce,                                              \
	.gather = cs_nccl_gather,                                              \
	.scatter = cs_nccl_scatter,                                            \
	.sendrecv = cs_nccl_sendrecv,                                          \
	.synchronize = cs_nccl_synchronize,                                    \
	.error_string = cs_nccl_error_string

static const cs_backend_t nb_backend_rank = {
	NB_SHARED_MEMBERS,
	.name = "nccl",
	.description = "NVIDIA NCCL, one rank (one GPU) per process, on CUDA "
		       "device memory",
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = cs_nccl_init,
};

static const cs_backend_t nb_backend_local = {
	NB_SHARED_MEMBERS,
	.name = "nccl-local",
	.description = "NVIDIA NCCL, every rank in this process, one per "
		       "local GPU, on CUDA device memory",
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = cs_nccl_init_all,
	.group_start = cs_nccl_group_start,
	.group_end = cs_nccl_group_end,
};

const cs_backend_t *cs_backend_nccl(void)
{
	return &nb_backend_rank;
}

const cs_backend_t *cs_backend_nccl_local(void)
{
	return &nb_backend_local;
}
