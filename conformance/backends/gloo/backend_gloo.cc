/*
 * backend_gloo.cc - the `gloo` backend (backend_gloo.h): Gloo's
 * collectives behind the plugin ABI's struct, one rank per process.
 *
 * Set-up: rank 0 creates a directory of this run ($TMPDIR, default /tmp,
 * collspec-gloo-XXXXXX) and sends its path through the harness's
 * bootstrap channel; every rank opens Gloo's file store there and connects
 * a gloo::rendezvous::Context (a full mesh of TCP pairs on 127.0.0.1)
 * under the key prefix "w". comm_split connects a new context over the
 * sub-group the same way, under a prefix of its own. Once a group is
 * connected (a barrier of its bootstrap), each rank deletes the keys it
 * wrote; the last rank to free its world removes the empty directory.
 *
 * Options (--backend-opt, comma-separated): algo=NAME chooses allreduce's
 * implementation (the names of algo_names below: gloo::allreduce with its
 * default ring or with bcube, or one of Gloo's allreduce classes);
 * allgather=allgatherv serves allgather with gloo::allgatherv.
 *
 * What Gloo lacks is refused by supports() with the reason: bfloat16 and
 * the fp8 types, the ops avg and premulsum, in place for gather, scatter,
 * alltoall(v) and sendrecv, sendrecv on one rank, and counts above
 * INT_MAX for the APIs that take an int.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <exception>
#include <memory>
#include <string>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include "collspec/backend.h"
#include "csref/catalog.h"
#include "backends/gloo/backend_gloo.h"
#include "backends/gloo/backend_gloo_impl.h"

static std::string glb_dir; /* the file store's directory */
static std::shared_ptr<gloo::transport::Device> glb_dev;

/* The names of algo= in enum cs_glb_algo's order. */
static const char *const algo_names[CS_GLB_NUM_ALGOS] = {
	"function", "function_bcube", "ring", "ring_chunked",
	"halving_doubling", "bcube"};

/* ---- options --------------------------------------------------------------- */

static int bad_option(const std::string &word)
{
	std::string valid = "algo=";

	for (int i = 0; i < CS_GLB_NUM_ALGOS; i++)
		valid += std::string(i ? "|" : "") + algo_names[i];
	valid += ", allgather=allgather|allgatherv";
	return cs_glb_fail("gloo backend", ("bad backend option '" +
					    word.substr(0, 200) + "' (valid: " +
					    valid + ")").c_str());
}

/* One word of the options: "algo=NAME" or "allgather=NAME". */
static int set_option(const std::string &word)
{
	if (word.compare(0, 5, "algo=") == 0) {
		for (int i = 0; i < CS_GLB_NUM_ALGOS; i++)
			if (word.compare(5, std::string::npos, algo_names[i]) == 0) {
				cs_glb_set_state(i, cs_glb_use_allgatherv());
				return 0;
			}
	} else if (word == "allgather=allgather" ||
		   word == "allgather=allgatherv") {
		cs_glb_set_state(cs_glb_algo(),
				 word == "allgather=allgatherv");
		return 0;
	}
	return bad_option(word);
}

/* Parse the comma-separated options ("" for the defaults). */
static int set_options(const char *options)
{
	std::string all = options ? options : "";
	size_t at = 0;

	cs_glb_set_state(CS_GLB_FUNCTION, 0);
	while (at < all.size()) {
		size_t end = all.find(',', at);
		std::string word = all.substr(at, end == std::string::npos
						     ? std::string::npos : end - at);
		if (set_option(word))
			return CS_GLB_ERR;
		if (end == std::string::npos)
			break;
		at = end + 1;
	}
	return 0;
}

/* ---- rendezvous -------------------------------------------------------------- */

/* Rank 0 makes the store's directory and every rank learns its path
 * (empty when rank 0 could not make it). */
static int agree_dir(const cs_bootstrap_t *b)
{
	char path[PATH_MAX] = "";
	const char *tmp = getenv("TMPDIR");

	if (b->rank == 0) {
		snprintf(path, sizeof path, "%s/collspec-gloo-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(path)) {
			cs_glb_fail("gloo backend: mkdtemp", strerror(errno));
			path[0] = '\0';
		}
	}
	if (b->broadcast(b->ctx, path, sizeof path, 0))
		return cs_glb_fail("gloo backend", "the bootstrap's broadcast "
				   "of the store's directory failed");
	if (!path[0])
		return b->rank == 0 ? CS_GLB_ERR
				    : cs_glb_fail("gloo backend", "rank 0 could "
						  "not create the file store's "
						  "directory");
	glb_dir = path;
	return 0;
}

/*
 * Connect c (rank, size and name set) over the file store: a full mesh
 * of TCP pairs. After the group's barrier (every rank has read every
 * key) this rank deletes the keys it wrote.
 */
static int connect_group(struct cs_glb_comm *c, const cs_bootstrap_t *b)
{
	try {
		gloo::rendezvous::FileStore fs(glb_dir);
		gloo::rendezvous::PrefixStore store(c->name, fs);
		auto ctx = std::make_shared<gloo::rendezvous::Context>(c->rank,
								       c->size);

		ctx->connectFullMesh(store, glb_dev);
		c->ctx = ctx;
		if (b->barrier(b->ctx))
			return cs_glb_fail("gloo backend", "the bootstrap's "
					   "barrier failed");
		for (const std::string &p : fs.getAllKeyFilePaths())
			unlink(p.c_str());
	} catch (const std::exception &e) {
		return cs_glb_fail("gloo rendezvous (file store, TCP)", e.what());
	}
	return 0;
}

/* A communicator of this rank in group b, its keys under name. */
static int make_comm(const cs_bootstrap_t *b, const std::string &name,
		     cs_bcomm_t *out)
{
	struct cs_glb_comm *c = new (std::nothrow) cs_glb_comm();
	int rc;

	if (!c)
		return cs_glb_fail("gloo backend", "out of memory");
	c->rank = b->rank;
	c->size = b->nranks;
	c->name = name;
	c->splits = 0;
	c->p2p = 0;
	if ((rc = connect_group(c, b)) != 0) {
		delete c;
		return rc;
	}
	*out = c;
	return 0;
}

static int glb_init(const cs_bootstrap_t *world, const char *options,
		    cs_bcomm_t *out)
{
	int rc;

	if ((rc = set_options(options)) != 0 || (rc = agree_dir(world)) != 0)
		return rc;
	try {
		gloo::transport::tcp::attr attr("127.0.0.1");

		glb_dev = gloo::transport::tcp::CreateDevice(attr);
	} catch (const std::exception &e) {
		return cs_glb_fail("gloo TCP device on 127.0.0.1", e.what());
	}
	return make_comm(world, "w", out);
}

static int glb_split(cs_bcomm_t comm, int color, int key,
		     const cs_bootstrap_t *sub, cs_bcomm_t *newcomm)
{
	struct cs_glb_comm *c = static_cast<struct cs_glb_comm *>(comm);

	if (color < 0 || !sub)
		return cs_glb_fail("gloo backend", "comm_split needs a colour "
				   ">= 0 and the sub-group's bootstrap");
	return make_comm(sub, c->name + "." + std::to_string(c->splits++) +
			 "." + std::to_string(color), newcomm);
}

/* The world goes last: then the directory is empty once every rank has
 * deleted its keys, and the rank whose rmdir succeeds removes it. */
static int glb_free(cs_bcomm_t comm)
{
	struct cs_glb_comm *c = static_cast<struct cs_glb_comm *>(comm);

	if (c && c->name == "w" && !glb_dir.empty())
		rmdir(glb_dir.c_str());
	delete c;
	return 0;
}

static int glb_finalize(void)
{
	glb_dev.reset();
	return 0;
}

/* ---- what Gloo offers ---------------------------------------------------------- */

/* 0 with the reason when Gloo has no type for d. */
static int dtype_ok(cs_dtype_t d, char *reason, size_t len)
{
	switch (d) {
	case CS_DTYPE_BFLOAT16:
		snprintf(reason, len, "Gloo has no bfloat16 type (gloo/types.h "
			 "has float16 only)");
		return 0;
	case CS_DTYPE_FLOAT8_E4M3:
	case CS_DTYPE_FLOAT8_E5M2:
		snprintf(reason, len, "Gloo has no 8-bit float type");
		return 0;
	default:
		return 1;
	}
}

/* 0 with the reason when Gloo has no reduction for op. */
static int op_ok(cs_op_t op, char *reason, size_t len)
{
	if (op == CS_OP_AVG || op == CS_OP_PREMULSUM) {
		snprintf(reason, len, "Gloo has no %s reduction (its "
			 "ReductionType: SUM, PRODUCT, MAX, MIN)",
			 cs_op_name(op));
		return 0;
	}
	return 1;
}

/* 0 with the reason when Gloo's call for q has no in-place form. */
static int inplace_ok(const cs_backend_query_t *q, char *reason,
		      size_t len)
{
	switch (q->coll) {
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_SENDRECV:
		if (!q->inplace)
			return 1;
		snprintf(reason, len, "Gloo's %s has no in-place form",
			 q->coll == CS_COLL_SENDRECV ? "send/recv"
						     : cs_coll_name(q->coll));
		return 0;
	default:
		return 1;
	}
}

/* The calls that take an int count: the allreduce classes and
 * ReduceScatterHalvingDoubling (over the whole P*count buffer). */
static int count_ok(const cs_backend_query_t *q, char *reason, size_t len)
{
	size_t n = q->count;

	if (q->coll == CS_COLL_REDUCESCATTER)
		n = q->count > (size_t)INT_MAX ? q->count
					       : q->count * (size_t)q->nranks;
	else if (q->coll != CS_COLL_ALLREDUCE || cs_glb_algo() < CS_GLB_RING)
		return 1;
	if (n <= (size_t)INT_MAX)
		return 1;
	snprintf(reason, len, "count above INT_MAX: this Gloo call takes an "
		 "int count");
	return 0;
}

static int glb_supports(cs_bcomm_t comm, const cs_backend_query_t *q,
			char *reason, size_t len)
{
	if (!dtype_ok(q->dtype, reason, len) || !inplace_ok(q, reason, len) ||
	    !count_ok(q, reason, len))
		return 0;
	if (cs_coll_reduces(q->coll) && !op_ok(q->op, reason, len))
		return 0;
	if (q->coll == CS_COLL_SENDRECV && q->nranks == 1) {
		snprintf(reason, len, "Gloo has no pair from a rank to itself "
			 "for send/recv");
		return 0;
	}
	return 1;
}

static int glb_sync(cs_bcomm_t c, void *stream)
{
	return 0; /* every call is blocking */
}

static const char *glb_error_string(cs_bcomm_t c, int err)
{
	return cs_glb_error_text(err);
}

static cs_backend_t make_table(void)
{
	cs_backend_t b = {};

	b.abi_version = CS_BACKEND_ABI_VERSION;
	b.struct_size = sizeof(cs_backend_t);
	b.name = "gloo";
	b.description = "Gloo's collectives over TCP on the loopback, one "
			"rank per process";
	b.mem_kind = CS_MEM_HOST;
	b.proc_model = CS_PROC_RANK_PER_PROCESS;
	b.init = glb_init;
	b.comm_split = glb_split;
	b.comm_free = glb_free;
	b.finalize = glb_finalize;
	b.supports = glb_supports;
	b.allreduce = cs_glb_allreduce;
	b.allgather = cs_glb_allgather;
	b.reducescatter = cs_glb_reducescatter;
	b.alltoall = cs_glb_alltoall;
	b.alltoallv = cs_glb_alltoallv;
	b.broadcast = cs_glb_broadcast;
	b.reduce = cs_glb_reduce;
	b.gather = cs_glb_gather;
	b.scatter = cs_glb_scatter;
	b.sendrecv = cs_glb_sendrecv;
	b.synchronize = glb_sync;
	b.error_string = glb_error_string;
	return b;
}

extern "C" const cs_backend_t *cs_backend_gloo(void)
{
	static const cs_backend_t table = make_table();

	return &table;
}
