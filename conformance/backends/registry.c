/*
 * registry.c - the table of backends and the plugin loader, with the checks
 * of a backend table that every load passes. Loading a plugin in a child
 * process for the driver (cs_backend_probe) is in probe.c; the
 * bootstrap channel the harness hands to backends (over MPI) in mpiboot.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "backends/registry_impl.h"
#include "backends/registry.h"
#include "base/result.h"
#include "backends/gloo/backend_gloo.h"
#include "backends/gpu/backend_gpu.h"
#include "backends/mpi/backend_mpi.h"
#include "backends/nccl/backend_nccl.h"
#include "backends/ref/backend_ref.h"
#include "csgpu/device.h"

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
	size_t namelen;

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
	/* (bounded: a name without its NUL is read no further than that) */
	namelen = strnlen(b->name, CS_BACKEND_NAME_MAX + 1);
	if (namelen == 0 || namelen > CS_BACKEND_NAME_MAX)
		return cs_error(CS_ERR_INVALID, "%s: its name holds %s%zu bytes; "
				"a backend's name holds 1 to %d", origin,
				namelen > CS_BACKEND_NAME_MAX ? "more than " : "",
				namelen > CS_BACKEND_NAME_MAX ? (size_t)
				CS_BACKEND_NAME_MAX : namelen,
				CS_BACKEND_NAME_MAX);
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

/* The stage descriptor (registry_impl.h), -1 when not probing. */
static int load_stage_fd = -1;

void cs_backend_set_stage_fd(int fd)
{
	load_stage_fd = fd;
}

/* (load_stage_fd is set only in probe_child, the forked child: there
 * _exit is how it ends, never in the harness's own process.) */
void cs_backend_load_stage(char stage)
{
	if (load_stage_fd >= 0 && write(load_stage_fd, &stage, 1) != 1)
		_exit(3); /* the driver is gone */
}

/* dlopen PATH (a bare file name is looked up in the current directory,
 * not in the library search path). */
static void *open_plugin(const char *path)
{
	char local[PATH_MAX + 2];

	if (!strchr(path, '/') && access(path, F_OK) == 0 &&
	    strlen(path) + 2 < sizeof local) {
		memcpy(local, "./", 2);
		memcpy(local + 2, path, strlen(path) + 1);
		return dlopen(local, RTLD_NOW | RTLD_LOCAL);
	}
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static cs_status_t load_plugin(const char *path, const cs_backend_t **out)
{
	cs_backend_entry_fn entry;
	const cs_backend_t *b;
	char *origin;
	void *h, *sym;
	cs_status_t st;

	if (!*path)
		return cs_error(CS_ERR_INVALID, "--backend plugin:PATH needs a "
				"path to a shared object");
	origin = malloc(strlen(path) + sizeof "plugin ");
	if (!origin)
		return cs_error(CS_ERR_NOMEM, "plugin loader: out of memory");
	strcpy(origin, "plugin ");
	strcat(origin, path);
	h = open_plugin(path);
	cs_backend_load_stage(STAGE_OPENED);
	sym = h ? dlsym(h, CS_BACKEND_SYMBOL) : NULL;
	if (!h) {
		st = cs_error(CS_ERR_INVALID, "cannot load %s: %s", origin,
			      dlerror());
	} else if (!sym) {
		dlclose(h);
		st = cs_error(CS_ERR_INVALID, "%s does not export the symbol "
			      "'%s' (missing symbol): it is not a collspec "
			      "backend", origin, CS_BACKEND_SYMBOL);
	} else {
		memcpy(&entry, &sym, sizeof entry);
		b = entry(CS_BACKEND_ABI_VERSION);
		if (!b)
			b = entry(1); /* only to name the version it was built for */
		cs_backend_load_stage(STAGE_ENTERED);
		*out = b;
		/* the handle stays open: the backend's code lives in it */
		st = b ? cs_backend_validate(b, origin)
		       : cs_error(CS_ERR_UNSUPPORTED, "%s returned no backend "
				  "for collspec backend ABI version %u", origin,
				  CS_BACKEND_ABI_VERSION);
	}
	free(origin);
	return st;
}

/*
 * The built-in backends: the one table that loading, `collspec list`,
 * the command line's validation, its usage text and the docs' table
 * (cs_backend_row) read. get() is NULL when the backend is not built into
 * this collspec, and needs says what building it takes; runs and model
 * describe it whether it is built or not.
 */
static const struct cs_builtin {
	const char *name;
	const cs_backend_t *(*get)(void);
	const char *needs;
	const char *runs;
	const char *model;
	int dcheck; /* enum cs_backend_dcheck (registry.h) */
} builtins[] = {
	{ "ref", cs_backend_ref, "MPI",
	  "this project's MPI reference (`ref/mpi/`): every collective built "
	  "from MPI point-to-point and the golden arithmetic; no MPI reduction "
	  "is used", "one rank per process",
	  CS_BACKEND_DCHECK_NO },
	{ "mpi", cs_backend_mpi, "MPI",
	  "the MPI library's own `MPI_Allreduce`, `MPI_Allgather`, "
	  "`MPI_Reduce_scatter_block`, `MPI_Alltoall`, `MPI_Alltoallv`, "
	  "`MPI_Bcast`, `MPI_Reduce`, `MPI_Gather`, `MPI_Scatter`, "
	  "`MPI_Sendrecv`", "one rank per process",
	  CS_BACKEND_DCHECK_NO },
	{ "gpu", cs_backend_gpu, "CUDA",
	  "this project's CUDA ring, tree and all-to-all kernels (`gpu/`), on "
	  "device memory; several virtual ranks share a GPU when there are "
	  "fewer GPUs than ranks", "all ranks in one process",
	  CS_BACKEND_DCHECK_DEVICE },
	{ "gpu-sim", cs_backend_gpusim, NULL,
	  "the same kernels' schedules executed on the CPU, step by step, with "
	  "the kernels' arithmetic, on host memory: runs anywhere, no GPU "
	  "needed", "all ranks in one process", CS_BACKEND_DCHECK_GRID },
	{ "nccl", cs_backend_nccl, "CUDA and NCCL 2.13 or newer",
	  "NVIDIA NCCL, one rank and one GPU per process, on device memory",
	  "one rank per process",
	  CS_BACKEND_DCHECK_NO },
	{ "nccl-local", cs_backend_nccl_local, "CUDA and NCCL 2.13 or newer",
	  "NVIDIA NCCL, every rank in one process, rank i on local GPU i",
	  "all ranks in one process",
	  CS_BACKEND_DCHECK_NO },
	{ "gloo", cs_backend_gloo, "Gloo (Debian's libgloo-dev) and a C++ "
	  "compiler",
	  "Gloo's collectives (`gloo::allreduce` or a chosen allreduce "
	  "algorithm, `allgather`, `broadcast`, `reduce`, `gather`, `scatter`, "
	  "`alltoall(v)`, `ReduceScatterHalvingDoubling`, unbound-buffer "
	  "send/recv) over TCP on the loopback", "one rank per process",
	  CS_BACKEND_DCHECK_NO },
};

#define NUM_BUILTINS (sizeof builtins / sizeof builtins[0])

static const struct cs_builtin *builtin_named(const char *name)
{
	size_t i;

	for (i = 0; name && i < NUM_BUILTINS; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

int cs_backend_dcheck(const char *name)
{
	const struct cs_builtin *b = builtin_named(name);

	return b ? b->dcheck : CS_BACKEND_DCHECK_NO;
}

int cs_backend_known(const char *spec)
{
	return spec && (builtin_named(spec) || strncmp(spec, "plugin:", 7) == 0);
}

const char *cs_backend_names(void)
{
	static char names[256];
	size_t i, n = 0;

	if (names[0])
		return names;
	for (i = 0; i < NUM_BUILTINS; i++)
		n += (size_t)snprintf(names + n, sizeof names - n, "%s ",
				      builtins[i].name);
	snprintf(names + n, sizeof names - n, "plugin:PATH");
	return names;
}

int cs_backend_row(size_t i, cs_backend_row_t *row)
{
	if (!row || i > NUM_BUILTINS)
		return 0;
	if (i == NUM_BUILTINS) {
		row->name = "plugin:PATH";
		row->runs = "a shared object implementing the backend ABI "
			    "(`collspec/backend.h`)";
		row->model = "as the plugin declares";
		row->needs = NULL;
		return 1;
	}
	row->name = builtins[i].name;
	row->runs = builtins[i].runs;
	row->model = builtins[i].model;
	row->needs = builtins[i].needs;
	return 1;
}

cs_status_t cs_backend_load(const char *spec, const cs_backend_t **out)
{
	const struct cs_builtin *e;
	const cs_backend_t *b;

	if (!spec)
		return cs_error(CS_ERR_INVALID, "no backend named");
	if (strncmp(spec, "plugin:", 7) == 0)
		return load_plugin(spec + 7, out);
	if (!(e = builtin_named(spec)))
		return cs_error(CS_ERR_INVALID, "unknown backend '%s'; valid "
				"backends: %s", spec, cs_backend_names());
	if (!(b = e->get()))
		return cs_error(CS_ERR_UNSUPPORTED, "backend '%s' is not built "
				"into this collspec: it needs %s at build time",
				spec, e->needs);
	*out = b;
	return cs_backend_validate(b, spec);
}

int cs_backend_finds_devices(const cs_backend_t *b)
{
	return b && (b->flags & CS_BACKEND_F_OWN_DEVICES) != 0;
}

const char *cs_backend_init_skip(const cs_backend_t *b, int rc)
{
	const char *why;

	if (!b)
		return NULL;
	if (rc == CS_BACKEND_ERR_NODEV)
		return CS_NODEV_SKIP;
	if (rc != CS_BACKEND_ERR_FEWDEV)
		return NULL;
	why = b->error_string(NULL, rc);
	return why && why[0] ? why : "fewer CUDA devices than this world needs";
}

void cs_backend_print_list(FILE *out)
{
	const cs_backend_t *b;
	size_t i;

	for (i = 0; i < NUM_BUILTINS; i++) {
		b = builtins[i].get();
		if (b)
			fprintf(out, "  %-14s %s\n", builtins[i].name,
				b->description);
		else
			fprintf(out, "  %-14s (not built: needs %s at build "
				"time)\n", builtins[i].name, builtins[i].needs);
	}
	fprintf(out, "  %-14s %s\n", "plugin:PATH",
		"a shared object exporting collspec_backend() "
		"(collspec/backend.h)");
}
