/*
 * registry.h - the built-in backends and the plugin loader (registry.c): the
 * one table of built-ins (name, description, how to get it, why it is not
 * built) that loading, `collspec list`, run's validation and the docs'
 * table come from, the loader's checks of a backend table, and the probe
 * that loads a plugin in a child (probe.c). The MPI bootstrap
 * handed to per-process backends is in mpiboot.h.
 */
#ifndef CS_REGISTRY_H
#define CS_REGISTRY_H

#include <stddef.h>
#include <stdio.h>
#include "collspec/backend.h"
#include "csref/status.h"
#include "base/result.h" /* CS_BACKEND_NAME_MAX */

/*
 * Resolve a --backend value: "ref", "mpi", "nccl", "nccl-local" (when
 * built) or "plugin:PATH" (dlopen'ed and checked: symbol present, ABI
 * version and struct size equal to this harness's). On failure returns CS_ERR_INVALID / CS_ERR_UNSUPPORTED with a
 * message that names the problem (and both versions on a mismatch).
 */
cs_status_t cs_backend_load(const char *spec, const cs_backend_t **out);

/* Check a backend struct against this harness's ABI (origin names it in
 * messages); its name must hold 1 to CS_BACKEND_NAME_MAX bytes. */
cs_status_t cs_backend_validate(const cs_backend_t *b, const char *origin);

/* What the driver learns of a backend without running its code itself. */
typedef struct cs_backend_info {
	char name[CS_BACKEND_NAME_MAX + 1];
	int proc_model;  /* cs_proc_model_t */
	int mem_kind;    /* cs_mem_kind_t */
	int fault;       /* on failure, 1: the plugin crashed, exited or hung
			    while loading (a FAIL of the run), 0: refused */
} cs_backend_info_t;

/*
 * Load backend spec as cs_backend_load does and describe it in *info; a
 * plugin is loaded in a child process (fork), killed after timeout
 * seconds, so that a constructor or entry point that crashes or blocks
 * cannot take this process with it. Returns CS_OK, or an error with a
 * message: info->fault tells a plugin that crashed, exited or did not
 * finish loading in time ("plugin PATH crashed while loading (signal 11,
 * Segmentation fault), in ...") from one refused (no file, no symbol, ABI
 * mismatch). The calling process must not have started MPI or threads.
 */
cs_status_t cs_backend_probe(const char *spec, double timeout,
			     cs_backend_info_t *info);

/*
 * 1 for a backend that declares CS_BACKEND_F_OWN_DEVICES (built in or
 * plugin alike; the nccl ones do): it looks for CUDA devices itself, in
 * init or init_all, and says what it lacks by the ABI's device statuses;
 * for every other device-memory backend the harness counts the devices
 * first and calls no init without one.
 */
int cs_backend_finds_devices(const cs_backend_t *b);

/* When status rc of b's init or init_all is one of the ABI's device
 * statuses (CS_BACKEND_ERR_NODEV, CS_BACKEND_ERR_FEWDEV): the SKIP reason
 * of every case (valid until b's next call); else NULL (an error). */
const char *cs_backend_init_skip(const cs_backend_t *b, int rc);

/*
 * Where a built-in backend's received values can be checked first by the
 * check of csref/dcheck.h (check/dcheck.c, docs/harness.md section 2.2),
 * one field of the table of built-ins; plugins and the rest: NO.
 */
enum cs_backend_dcheck {
	CS_BACKEND_DCHECK_NO = 0,    /* on the host only */
	CS_BACKEND_DCHECK_GRID = 1,  /* host buffers, by the CPU grid
					executor: on unless dcheck=0 */
	CS_BACKEND_DCHECK_DEVICE = 2 /* device buffers, by the CUDA kernel:
					only with dcheck=1, until a device
					has run it */
};
int cs_backend_dcheck(const char *name);

/* A row of the backend table, for the docs (doctable.h): the built-in
 * backends in their table's order, then plugin:PATH, whether this
 * collspec has them or not. Strings are static; needs is NULL when
 * building it needs nothing more than collspec does. */
typedef struct cs_backend_row {
	const char *name, *runs, *model, *needs;
} cs_backend_row_t;

/* Row i into *row: 1, or 0 past the last row. */
int cs_backend_row(size_t i, cs_backend_row_t *row);

/* The names `--backend` accepts, for --help and `list`: one line per
 * built-in backend (its description, or what building it needs) and one
 * for plugins. */
void cs_backend_print_list(FILE *out);

/* 1 when spec names a built-in backend (built or not) or is plugin:PATH. */
int cs_backend_known(const char *spec);

/* The names --backend accepts, space-separated ("ref mpi ... plugin:PATH"),
 * from the same table (a static string). */
const char *cs_backend_names(void);

#endif /* CS_REGISTRY_H */
