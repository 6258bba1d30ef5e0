/*
 * backend.c - the table of backends, the plugin loader and the bootstrap
 * channel the harness hands to backends (over MPI).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "collspec.h"
#include "backend_nccl.h"
#include "devmem.h"

/* ---- bootstrap over MPI -------------------------------------------------- */

struct cs_mpiboot {
	MPI_Comm comm;
	cs_bootstrap_t boot;
};

static int boot_allgather(void *ctx, const void *send, void *recv,
			  size_t bytes)
{
	struct cs_mpiboot *b = ctx;

	if (bytes > INT_MAX)
		return MPI_ERR_COUNT;
	return MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes,
			     MPI_BYTE, b->comm);
}

static int boot_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
	struct cs_mpiboot *b = ctx;

	if (bytes > INT_MAX)
		return MPI_ERR_COUNT;
	return MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, b->comm);
}

static int boot_barrier(void *ctx)
{
	struct cs_mpiboot *b = ctx;

	return MPI_Barrier(b->comm);
}

cs_status_t cs_boot_create(const void *mpi_comm, cs_mpiboot_t **out)
{
	struct cs_mpiboot *b = calloc(1, sizeof *b);

	if (!b)
		return cs_error(CS_ERR_NOMEM, "bootstrap: out of memory");
	if (MPI_Comm_dup(*(const MPI_Comm *)mpi_comm, &b->comm) != MPI_SUCCESS) {
		free(b);
		return cs_error(CS_ERR_INTERNAL, "bootstrap: MPI_Comm_dup failed");
	}
	b->boot.struct_size = sizeof b->boot;
	MPI_Comm_rank(b->comm, &b->boot.rank);
	MPI_Comm_size(b->comm, &b->boot.nranks);
	b->boot.ctx = b;
	b->boot.allgather = boot_allgather;
	b->boot.broadcast = boot_broadcast;
	b->boot.barrier = boot_barrier;
	b->boot.mpi_comm = &b->comm;
	*out = b;
	return CS_OK;
}

const cs_bootstrap_t *cs_boot_get(const cs_mpiboot_t *b)
{
	return &b->boot;
}

void cs_boot_free(cs_mpiboot_t *b)
{
	if (!b)
		return;
	MPI_Comm_free(&b->comm);
	free(b);
}

/* ---- validation and loading ---------------------------------------------- */

/* The functions every backend must provide, by name. */
static const char *missing_required(const cs_backend_t *b)
{
	if (!b->name)
		return "name";
	if (!b->error_string)
		return "error_string";
	if (!b->synchronize)
		return "synchronize";
	if (b->proc_model == CS_PROC_RANK_PER_PROCESS && !b->init)
		return "init";
	if (b->proc_model == CS_PROC_ALL_IN_PROCESS && !b->init_all)
		return "init_all";
	return NULL;
}

cs_status_t cs_backend_validate(const cs_backend_t *b, const char *origin)
{
	const char *missing;

	if (b->abi_version != CS_BACKEND_ABI_VERSION)
		return cs_error(CS_ERR_UNSUPPORTED, "%s implements collspec backend "
				"ABI version %u, but this collspec implements ABI "
				"version %u: rebuild it against this collspec's "
				"collspec/backend.h", origin, b->abi_version,
				CS_BACKEND_ABI_VERSION);
	if (b->struct_size != sizeof(cs_backend_t))
		return cs_error(CS_ERR_UNSUPPORTED, "%s declares ABI version %u but "
				"a backend struct of %u bytes; ABI version %u has "
				"%zu: rebuild it against this collspec's "
				"collspec/backend.h", origin, b->abi_version,
				b->struct_size, CS_BACKEND_ABI_VERSION,
				sizeof(cs_backend_t));
	if ((missing = missing_required(b)) != NULL)
		return cs_error(CS_ERR_INVALID, "%s: required member '%s' is NULL",
				origin, missing);
	if (b->mem_kind != CS_MEM_HOST && b->mem_kind != CS_MEM_CUDA)
		return cs_error(CS_ERR_INVALID, "%s: unknown memory kind %d",
				origin, (int)b->mem_kind);
	if (b->proc_model != CS_PROC_RANK_PER_PROCESS &&
	    b->proc_model != CS_PROC_ALL_IN_PROCESS)
		return cs_error(CS_ERR_INVALID, "%s: unknown process model %d",
				origin, (int)b->proc_model);
	if (b->proc_model == CS_PROC_ALL_IN_PROCESS &&
	    (!b->group_start || !b->group_end))
		return cs_error(CS_ERR_INVALID, "%s: process model 'all ranks in "
				"one process' needs group_start and group_end",
				origin);
	return CS_OK;
}

/* dlopen PATH (a bare file name is looked up in the current directory,
 * not in the library search path). */
static void *open_plugin(const char *path)
{
	char local[4096];

	if (!strchr(path, '/') && access(path, F_OK) == 0) {
		snprintf(local, sizeof local, "./%s", path);
		return dlopen(local, RTLD_NOW | RTLD_LOCAL);
	}
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static cs_status_t load_plugin(const char *path, const cs_backend_t **out)
{
	char origin[1024];
	cs_backend_entry_fn entry;
	const cs_backend_t *b;
	void *h, *sym;

	if (!*path)
		return cs_error(CS_ERR_INVALID, "--backend plugin:PATH needs a "
				"path to a shared object");
	snprintf(origin, sizeof origin, "plugin %s", path);
	h = open_plugin(path);
	if (!h)
		return cs_error(CS_ERR_INVALID, "cannot load %s: %s", origin,
				dlerror());
	sym = dlsym(h, CS_BACKEND_SYMBOL);
	if (!sym) {
		dlclose(h);
		return cs_error(CS_ERR_INVALID, "%s does not export the symbol "
				"'%s' (missing symbol): it is not a collspec "
				"backend", origin, CS_BACKEND_SYMBOL);
	}
	memcpy(&entry, &sym, sizeof entry);
	b = entry(CS_BACKEND_ABI_VERSION);
	if (!b)
		return cs_error(CS_ERR_UNSUPPORTED, "%s returned no backend for "
				"collspec backend ABI version %u", origin,
				CS_BACKEND_ABI_VERSION);
	*out = b;
	/* the handle stays open: the backend's code lives in it */
	return cs_backend_validate(b, origin);
}

/* The nccl backends by name; NULL when not built. */
static const cs_backend_t *nccl_named(const char *spec)
{
	if (strcmp(spec, "nccl") == 0)
		return cs_backend_nccl();
	return cs_backend_nccl_local();
}

cs_status_t cs_backend_load(const char *spec, const cs_backend_t **out)
{
	const cs_backend_t *b = NULL;

	if (!spec)
		return cs_error(CS_ERR_INVALID, "no backend named");
	if (strncmp(spec, "plugin:", 7) == 0)
		return load_plugin(spec + 7, out);
	if (strcmp(spec, "ref") == 0)
		b = cs_backend_ref();
	else if (strcmp(spec, "mpi") == 0)
		b = cs_backend_mpi();
	else if (strcmp(spec, "nccl") == 0 || strcmp(spec, "nccl-local") == 0)
		if (!(b = nccl_named(spec)))
			return cs_error(CS_ERR_UNSUPPORTED, "backend '%s' is not "
					"built into this collspec: it needs CUDA "
					"and NCCL 2.13 or newer at build time",
					spec);
	if (!b)
		return cs_error(CS_ERR_INVALID, "unknown backend '%s'; valid "
				"backends: ref mpi nccl nccl-local plugin:PATH",
				spec);
	*out = b;
	return cs_backend_validate(b, spec);
}

int cs_backend_finds_devices(const cs_backend_t *b)
{
	return b && (b == cs_backend_nccl() || b == cs_backend_nccl_local());
}

const char *cs_backend_init_skip(const cs_backend_t *b, int rc)
{
	if (!cs_backend_finds_devices(b))
		return NULL;
	if (rc == CS_NCCL_ERR_NODEV)
		return CS_NODEV_SKIP;
	if (rc == CS_NCCL_ERR_FEWDEV)
		return "fewer CUDA devices than ranks: NCCL needs one GPU per "
		       "rank";
	return NULL;
}

void cs_backend_print_list(FILE *out)
{
	const cs_backend_t *nccl[2] = { cs_backend_nccl(),
					cs_backend_nccl_local() };
	static const char *const names[2] = { "nccl", "nccl-local" };
	int i;

	fprintf(out, "  %-14s %s\n", "ref", cs_backend_ref()->description);
	fprintf(out, "  %-14s %s\n", "mpi", cs_backend_mpi()->description);
	for (i = 0; i < 2; i++)
		fprintf(out, "  %-14s %s\n", names[i], nccl[i] ?
			nccl[i]->description : "(not built: needs CUDA and "
			"NCCL 2.13+ at build time)");
	fprintf(out, "  %-14s %s\n", "plugin:PATH",
		"a shared object exporting collspec_backend() "
		"(collspec/backend.h)");
}
