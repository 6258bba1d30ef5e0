/*
 * driver.h - the driver: `collspec run --ranks A-B` launches one mpiexec per
 * world size and supervises it.
 *
 * Worker protocol (implemented by the worker in run mode, and by `collspec
 * bench`'s worker: cs_driver_opts_t.command):
 *   collspec run --results FILE --first K <the run's other arguments>
 * Rank 0 of the worker appends to FILE, flushed before the collective is
 * called, one JSON line per case it is about to run (cs_result_to_json of a
 * result with check "start") and, when the case is done, one line with its
 * final result. Cases with index < K are not run.
 *
 * The driver reads FILE while the worker runs. A case whose "start" line has
 * no final line when the worker exits abnormally is a FAIL with check
 * "crash"; one that shows no final line within the per-case timeout is a
 * FAIL with check "hang" (the whole process group is then killed, no orphans
 * left). The driver then relaunches with --first at the next case. The
 * first launch at each world size starts at cs_driver_opts_t.first.
 *
 * Launchers: the driver runs `mpiexec --version` once and follows the
 * profile it recognises (launcher.h): Open MPI (`-n P --oversubscribe`,
 * plus `--allow-run-as-root` as root), MPICH's Hydra (`-n P`), or a
 * generic one (`-n P`). A crash's reason names the signal a rank died of
 * the same way for each ("a rank died of signal 11 (Segmentation
 * fault)"), read from mpiexec's exit status and its messages, which the
 * driver passes on to its own stdout and stderr.
 */
#ifndef CS_DRIVER_H
#define CS_DRIVER_H

#include "base/result.h"

typedef struct cs_driver_opts {
  int rmin, rmax;          /* world sizes rmin..rmax (each is one launch set) */
  const int *sizes;        /* or an explicit list of world sizes, if nsizes>0 */
  int nsizes;
  double case_timeout;     /* seconds without a final line before "hang" */
  size_t first;            /* at every world size, start at case index
                              first (the earlier cases are not run) */
  const char *mpiexec;     /* launcher, its profile detected from its
                              --version; NULL: cs_driver_default_launcher() */
  const char *self;        /* path of the collspec binary (/proc/self/exe) */
  char *const *worker_args; /* run arguments given to every worker, without
                               --ranks, --results, --first */
  int nworker_args;
  int verbose;             /* echo launch commands to stderr */
  int no_launcher;         /* 1: the worker is one process that drives
                              every rank (all-in-process backends), run as
                              `self run --results F --first K --ranks P
                              ARGS` without mpiexec; mpiexec is ignored */
  /* optional: called with each "start" record as a case begins (the
   * progress line); same ctx as the sink */
  void (*on_start)(const cs_result_t *r, void *ctx);
  /* optional: called once when a signal (SIGINT, SIGTERM, SIGHUP) stops
   * the sweep, after the workers are killed and before the driver dies of
   * that signal: the place to close reports; same ctx as the sink */
  void (*on_signal)(int sig, void *ctx);
  /* optional: ncases[i] is the number of cases at world size i (the
   * suite's); a worker that exits normally before finishing them has
   * failed, and a size with no case is not launched */
  const size_t *ncases;
  /* optional: the subcommand the worker runs (`self COMMAND --results F
   * --first K ...`); NULL: "run". `collspec bench` runs "bench". */
  const char *command;
  /* optional: nenv "NAME=VALUE" strings added to every worker's
   * environment (bench's Open MPI algorithm series); the driver's own
   * environment is left as it is */
  char *const *env;
  int nenv;
} cs_driver_opts_t;

/*
 * The launcher used when none is named: the mpiexec of the MPI library
 * collspec was built with (its absolute path, recorded by the build) while
 * that file is executable, else "mpiexec", looked up on PATH. A collspec
 * built against MPICH thus launches with MPICH's mpiexec even where PATH's
 * mpiexec is Open MPI's (Debian's alternatives).
 */
const char *cs_driver_default_launcher(void);

/* Called once per final result, in case order within each world size. */
typedef void (*cs_result_sink_t)(const cs_result_t *r, void *ctx);

/*
 * Run the sweep. Returns CS_OK when every launch was made (failures of
 * cases are results, not errors), CS_ERR_INVALID on bad options, or
 * CS_ERR_UNSUPPORTED when the launcher cannot be found (message names it).
 * The environment is passed to the workers unchanged (LD_PRELOAD too).
 */
cs_status_t cs_driver_run(const cs_driver_opts_t *o, cs_result_sink_t sink,
                          void *ctx);

#endif /* CS_DRIVER_H */
