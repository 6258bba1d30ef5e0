/*
 * backend.c - the table of backends, the plugin loader (in this process, or
 * in a child process for the driver: cs_backend_probe) and the bootstrap
 * channel the harness hands to backends (over MPI).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "collspec/backend.h"
#include "backends.h"
#include "result.h"
#include "backend_nccl.h"
#include "csgpu/device.h"

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
	if (!b->name[0] || strlen(b->name) > CS_BACKEND_NAME_MAX)
		return cs_error(CS_ERR_INVALID, "%s: its name holds %zu bytes; a "
				"backend's name holds 1 to %d", origin,
				strlen(b->name), CS_BACKEND_NAME_MAX);
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

/* Where a plugin load has got to, for cs_backend_probe's child: one byte
 * written to load_stage_fd as each step returns. */
#define STAGE_OPENED 'O'  /* dlopen returned: its constructors ran */
#define STAGE_ENTERED 'E' /* its entry point returned */
#define STAGE_REPLY 'R'   /* the load's outcome follows */

static int load_stage_fd = -1;

/* (load_stage_fd is set only in probe_child, the forked child: there
 * _exit is how it ends, never in the harness's own process.) */
static void load_stage(char stage)
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
	load_stage(STAGE_OPENED);
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
		load_stage(STAGE_ENTERED);
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

#ifndef CS_HAVE_CUDA
const cs_backend_t *cs_backend_gpu(void)
{
	return NULL; /* backend_gpu.c is built with CUDA only */
}
#endif

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
} builtins[] = {
	{ "ref", cs_backend_ref, NULL,
	  "this project's MPI reference (`ref/mpi/`): every collective built "
	  "from MPI point-to-point and the golden arithmetic; no MPI reduction "
	  "is used", "one rank per process" },
	{ "mpi", cs_backend_mpi, NULL,
	  "the MPI library's own `MPI_Allreduce`, `MPI_Allgather`, "
	  "`MPI_Reduce_scatter_block`, `MPI_Alltoall`, `MPI_Alltoallv`, "
	  "`MPI_Bcast`, `MPI_Reduce`, `MPI_Gather`, `MPI_Scatter`, "
	  "`MPI_Sendrecv`", "one rank per process" },
	{ "gpu", cs_backend_gpu, "CUDA",
	  "this project's CUDA ring, tree and all-to-all kernels (`gpu/`), on "
	  "device memory; several virtual ranks share a GPU when there are "
	  "fewer GPUs than ranks", "all ranks in one process" },
	{ "gpu-sim", cs_backend_gpusim, NULL,
	  "the same kernels' schedules executed on the CPU, step by step, with "
	  "the kernels' arithmetic, on host memory: runs anywhere, no GPU "
	  "needed", "all ranks in one process" },
	{ "nccl", cs_backend_nccl, "CUDA and NCCL 2.13 or newer",
	  "NVIDIA NCCL, one rank and one GPU per process, on device memory",
	  "one rank per process" },
	{ "nccl-local", cs_backend_nccl_local, "CUDA and NCCL 2.13 or newer",
	  "NVIDIA NCCL, every rank in one process, rank i on local GPU i",
	  "all ranks in one process" },
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

/* ---- loading a plugin in a child process ---------------------------------- */

/* The child's answer after STAGE_REPLY; the error message follows it. */
struct probe_reply {
	int status;
	int proc_model, mem_kind;
	char name[CS_BACKEND_NAME_MAX + 1];
};

/* In the child (probe_child), which _exits when the parent is gone. */
static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3);
		c += k;
		n -= (size_t)k;
	}
}

/* In the child, right after fork: load spec, write the stages and the
 * outcome to fd, _exit without running anything of the plugin's (no
 * destructors, no atexit handlers of the parent's). */
static void probe_child(const char *spec, int fd, pid_t parent)
{
	const cs_backend_t *b = NULL;
	struct probe_reply rep;
	const char *msg;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	load_stage_fd = fd;
	memset(&rep, 0, sizeof rep);
	rep.status = cs_backend_load(spec, &b);
	if (rep.status == CS_OK) {
		rep.proc_model = (int)b->proc_model;
		rep.mem_kind = (int)b->mem_kind;
		memcpy(rep.name, b->name, strlen(b->name) + 1);
	}
	fflush(NULL); /* what the constructors printed */
	msg = rep.status == CS_OK ? "" : cs_last_error();
	load_stage(STAGE_REPLY);
	write_all(fd, &rep, sizeof rep);
	write_all(fd, msg, strlen(msg) + 1);
	_exit(0);
}

/* Bytes from the child, and how it ended. */
struct probe {
	pid_t pid;
	int fd, status, timed_out;
	char *buf;
	size_t len, cap;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What one probe_read found. */
enum probe_got {
	PROBE_EOF,   /* end of file, or an error: the pipe is done */
	PROBE_NONE,  /* nothing yet */
	PROBE_BYTES, /* bytes, appended to p->buf */
};

/* Read what the pipe has, waiting up to ms for it. */
static enum probe_got probe_read(struct probe *p, int ms)
{
	struct pollfd pfd = {p->fd, POLLIN, 0};
	ssize_t k;
	char *nb;

	if (poll(&pfd, 1, ms) <= 0)
		return PROBE_NONE;
	if (p->cap - p->len < 4096) {
		nb = realloc(p->buf, p->cap + 65536);
		if (!nb)
			return PROBE_EOF;
		p->buf = nb;
		p->cap += 65536;
	}
	k = read(p->fd, p->buf + p->len, p->cap - p->len);
	if (k < 0 && errno == EINTR)
		return PROBE_NONE;
	if (k <= 0)
		return PROBE_EOF;
	p->len += (size_t)k;
	return PROBE_BYTES;
}

/* 1 when the child has exited (it stays a zombie, so that its process
 * group id cannot be reused before the group is killed). */
static int probe_exited(const struct probe *p)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT)
		       == 0 && si.si_pid == p->pid;
}

/* Follow the child until it exits (its pipe drained) or timeout seconds
 * pass; then kill its process group, so that nothing it started is left,
 * and reap it. */
static void probe_wait(struct probe *p, double timeout)
{
	double end = mono_s() + timeout;
	int open = 1, exited = 0;

	while (!(exited = probe_exited(p)) && mono_s() <= end) {
		if (open)
			open = probe_read(p, 20) != PROBE_EOF;
		else
			poll(NULL, 0, 20);
	}
	/* what the child wrote before it exited is in the pipe; a process it
	 * started may hold the pipe open, so no blocking read */
	while (exited && open && probe_read(p, 0) == PROBE_BYTES)
		;
	p->timed_out = !exited;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &p->status, 0);
}

/* The step of the load the child reached, in words. */
static const char *probe_where(const struct probe *p)
{
	/* (no memchr on a NULL buf, even of length 0: undefined) */
	if (p->len && memchr(p->buf, STAGE_ENTERED, p->len))
		return "after its entry point returned, in the harness's check "
		       "of the backend struct it returned";
	if (p->len && memchr(p->buf, STAGE_OPENED, p->len))
		return "in its entry point " CS_BACKEND_SYMBOL "()";
	return "in dlopen, running its constructors (or those of the "
	       "libraries it needs)";
}

/* A child that did not answer: the FAIL message. */
static cs_status_t probe_fault(const struct probe *p, const char *path,
			       double timeout, cs_backend_info_t *info)
{
	int s = p->status;

	info->fault = 1;
	if (p->timed_out)
		return cs_error(CS_ERR_UNSUPPORTED, "plugin %s did not finish "
				"loading within %g s (the --timeout), %s; it was "
				"killed", path, timeout, probe_where(p));
	if (WIFSIGNALED(s))
		return cs_error(CS_ERR_UNSUPPORTED, "plugin %s crashed while "
				"loading (signal %d, %s), %s", path, WTERMSIG(s),
				strsignal(WTERMSIG(s)), probe_where(p));
	return cs_error(CS_ERR_UNSUPPORTED, "plugin %s exited with status %d "
			"while loading, %s", path, WEXITSTATUS(s),
			probe_where(p));
}

/* The child's answer into info, or the error it names. */
static cs_status_t probe_answer(const struct probe *p, const char *path,
				double timeout, cs_backend_info_t *info)
{
	const char *r = p->buf ? memchr(p->buf, STAGE_REPLY, p->len) : NULL;
	struct probe_reply rep;
	size_t off;

	off = r ? (size_t)(r - p->buf) + 1 : 0;
	if (!r || p->len < off + sizeof rep + 1 || p->buf[p->len - 1] ||
	    !WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		return probe_fault(p, path, timeout, info);
	memcpy(&rep, p->buf + off, sizeof rep);
	if (rep.status != CS_OK)
		return cs_error(rep.status, "%s", p->buf + off + sizeof rep);
	rep.name[sizeof rep.name - 1] = '\0';
	memcpy(info->name, rep.name, sizeof info->name);
	info->proc_model = rep.proc_model;
	info->mem_kind = rep.mem_kind;
	return CS_OK;
}

/* A built-in backend: its code is the harness's own. */
static cs_status_t probe_builtin(const char *spec, cs_backend_info_t *info)
{
	const cs_backend_t *b;
	cs_status_t st = cs_backend_load(spec, &b);

	if (st != CS_OK)
		return st;
	snprintf(info->name, sizeof info->name, "%s", b->name);
	info->proc_model = (int)b->proc_model;
	info->mem_kind = (int)b->mem_kind;
	return CS_OK;
}

cs_status_t cs_backend_probe(const char *spec, double timeout,
			     cs_backend_info_t *info)
{
	struct probe p = {0};
	int fds[2];
	pid_t self = getpid();
	cs_status_t st;

	memset(info, 0, sizeof *info);
	if (!spec || strncmp(spec, "plugin:", 7) != 0)
		return probe_builtin(spec, info);
	if (!(timeout > 0))
		return cs_error(CS_ERR_INVALID, "plugin probe: timeout %g s",
				timeout);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return cs_error(CS_ERR_IO, "cannot load %s: pipe: %s", spec,
				strerror(errno));
	fflush(NULL);
	p.pid = fork();
	if (p.pid == 0) {
		close(fds[0]);
		probe_child(spec, fds[1], self);
	}
	close(fds[1]);
	if (p.pid < 0) {
		close(fds[0]);
		return cs_error(CS_ERR_IO, "cannot load %s: fork: %s", spec,
				strerror(errno));
	}
	setpgid(p.pid, p.pid); /* (either side may get there first) */
	p.fd = fds[0];
	probe_wait(&p, timeout);
	close(p.fd);
	st = probe_answer(&p, spec + 7, timeout, info);
	free(p.buf);
	return st;
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
