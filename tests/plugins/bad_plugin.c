/*
 * bad_plugin.c - a deliberately wrong plugin, for the harness's tests: an
 * allreduce (sum only) over MPI_Allreduce in which the last rank drops its
 * contribution to the last element. Every allreduce sum case with
 * count >= 1 must be reported FAIL (at P = 1 too: the last rank is rank 0,
 * and the last element comes back 0), unless that input element happens
 * to be zero; every other case SKIP. int8 and uint8 are declined: Open
 * MPI's vectorised MPI_SUM saturates them (open-mpi/ompi#8045), which
 * would add failures that are not this plugin's.
 *
 * Faults while loading, chosen by the environment variable
 * CS_BAD_PLUGIN_LOAD (the harness gives a plugin no options before its
 * init): "ctor-crash" and "ctor-hang" crash (SIGSEGV) or block forever in
 * the shared object's constructor, "entry-crash" and "entry-hang" in
 * collspec_backend().
 *
 * With CS_BAD_PLUGIN_BYTES set, its strings hold bytes that are not text:
 * its name has an invalid UTF-8 byte and a control byte, every SKIP
 * reason and error string holds every byte value from 1 to 255, and
 * allreduce returns an error (for the harness's reports, which must stay
 * valid UTF-8 and XML).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include <mpi.h>
#include "collspec/backend.h"

/* The load fault asked for at this step ("ctor" or "entry"), if any. */
static void bad_load_fault(const char *step)
{
	const char *f = getenv("CS_BAD_PLUGIN_LOAD");
	size_t n = strlen(step);

	if (!f || strncmp(f, step, n) != 0 || f[n] != '-')
		return;
	if (!strcmp(f + n + 1, "crash")) {
		/* die of the signal even where a sanitizer would catch it */
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (!strcmp(f + n + 1, "hang"))
		for (;;)
			pause();
}

__attribute__((constructor)) static void bad_constructor(void)
{
	bad_load_fault("ctor");
}

struct bad_comm {
	MPI_Comm comm;
};

static char bad_err[256];

/* Every byte value 1..255 into s[0..len) (NUL-terminated). */
static void bad_bytes(char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && i < 255; i++)
		s[i] = (char)(i + 1);
	if (len)
		s[i] = '\0';
}

static MPI_Datatype bad_mpi_type(cs_dtype_t d)
{
	switch (d) {
	case CS_DTYPE_INT32: return MPI_INT32_T;
	case CS_DTYPE_UINT32: return MPI_UINT32_T;
	case CS_DTYPE_INT64: return MPI_INT64_T;
	case CS_DTYPE_UINT64: return MPI_UINT64_T;
	case CS_DTYPE_FLOAT32: return MPI_FLOAT;
	case CS_DTYPE_FLOAT64: return MPI_DOUBLE;
	case CS_DTYPE_INT8:
	case CS_DTYPE_UINT8:
	case CS_DTYPE_FLOAT16:
	case CS_DTYPE_BFLOAT16:
	case CS_DTYPE_FLOAT8_E4M3:
	case CS_DTYPE_FLOAT8_E5M2:
	case CS_NUM_DTYPES: /* not a dtype */
	default: return MPI_DATATYPE_NULL;
	}
}

static size_t bad_size(cs_dtype_t d)
{
	int n = 0;

	MPI_Type_size(bad_mpi_type(d), &n);
	return (size_t)n;
}

static int bad_wrap(MPI_Comm comm, cs_bcomm_t *out)
{
	struct bad_comm *c = malloc(sizeof *c);

	if (!c) {
		snprintf(bad_err, sizeof bad_err, "out of memory");
		return 1;
	}
	c->comm = comm;
	*out = c;
	return 0;
}

static int bad_init(const cs_bootstrap_t *world, const char *options,
		    cs_bcomm_t *out)
{
	MPI_Comm comm;

	(void)options;
	if (!world->mpi_comm) {
		snprintf(bad_err, sizeof bad_err, "needs the harness's MPI");
		return 1;
	}
	MPI_Comm_dup(*(const MPI_Comm *)world->mpi_comm, &comm);
	return bad_wrap(comm, out);
}

static int bad_split(cs_bcomm_t c, int color, int key,
		     const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	MPI_Comm comm;

	(void)sub;
	MPI_Comm_split(((struct bad_comm *)c)->comm, color, key, &comm);
	return bad_wrap(comm, out);
}

static int bad_free(cs_bcomm_t c)
{
	int rc = MPI_Comm_free(&((struct bad_comm *)c)->comm);

	free(c);
	return rc;
}

static int bad_supports(cs_bcomm_t c, const cs_backend_query_t *q,
			char *reason, size_t len)
{
	(void)c;
	if (q->op == CS_OP_SUM && bad_mpi_type(q->dtype) != MPI_DATATYPE_NULL &&
	    q->count <= INT_MAX)
		return 1;
	if (getenv("CS_BAD_PLUGIN_BYTES")) {
		bad_bytes(reason, len);
		return 0;
	}
	snprintf(reason, len, "the bad plugin only sums 32- and 64-bit "
		 "integers and floats");
	return 0;
}

static int bad_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			 cs_op_t op, const void *scalar, cs_bcomm_t c,
			 void *stream)
{
	struct bad_comm *bc = c;
	size_t es = bad_size(d);
	int rank, size;

	(void)op;
	(void)scalar;
	(void)stream;
	MPI_Comm_rank(bc->comm, &rank);
	MPI_Comm_size(bc->comm, &size);
	if (getenv("CS_BAD_PLUGIN_BYTES")) {
		bad_bytes(bad_err, sizeof bad_err);
		return 1;
	}
	if (s != r)
		memcpy(r, s, count * es);
	/* THE BUG: the last rank's last element does not take part */
	if (rank == size - 1 && count > 0)
		memset((char *)r + (count - 1) * es, 0, es);
	return MPI_Allreduce(MPI_IN_PLACE, r, (int)count, bad_mpi_type(d),
			     MPI_SUM, bc->comm);
}

static int bad_sync(cs_bcomm_t c, void *stream)
{
	(void)c;
	(void)stream;
	return 0;
}

static const char *bad_error_string(cs_bcomm_t c, int err)
{
	(void)c;
	(void)err;
	return bad_err[0] ? bad_err : "MPI error";
}

static const cs_backend_t bad_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "bad",
	.description = "a deliberately wrong allreduce (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_RANK_PER_PROCESS,
	.init = bad_init,
	.comm_split = bad_split,
	.comm_free = bad_free,
	.supports = bad_supports,
	.allreduce = bad_allreduce,
	.synchronize = bad_sync,
	.error_string = bad_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	static cs_backend_t bytes;

	(void)harness_abi_version;
	bad_load_fault("entry");
	if (!getenv("CS_BAD_PLUGIN_BYTES"))
		return &bad_backend;
	bytes = bad_backend;
	bytes.name = "bad\xff\x01" "caf\xc3\xa9";
	return &bytes;
}
