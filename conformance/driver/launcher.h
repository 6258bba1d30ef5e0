/*
 * launcher.h - what the driver knows about each MPI launcher (mpiexec):
 * which one a given mpiexec is, the options its launch line needs, and how
 * it reports that a rank died.
 *
 * Profiles (facts from the launchers installed on Debian 12):
 *   Open MPI (ORTE 4.x, PRRTE 5.x): `--version` prints "mpiexec (OpenRTE)
 *     4.1.4" or "(Open MPI)"; the line needs --oversubscribe for more ranks
 *     than cores and --allow-run-as-root as root; a rank that dies of
 *     signal S makes mpiexec exit with 128 + S and print "... process rank
 *     R with PID ... exited on signal S (Name).".
 *   MPICH (Hydra): `--version` prints "HYDRA build details:"; it refuses
 *     Open MPI's options and needs none (it oversubscribes and runs as root
 *     by default); a rank that dies of signal S makes mpiexec exit with S
 *     (the same status as a rank that calls exit(S)) and print, on its
 *     standard output, "YOUR APPLICATION TERMINATED WITH THE EXIT STRING:
 *     Name (signal S)".
 *   generic (anything else): -n only; 128 + S read as signal S, the shell's
 *     convention; both texts above are still looked for.
 */
#ifndef CS_LAUNCHER_H
#define CS_LAUNCHER_H

#include <stddef.h>
#include "csref/status.h"

typedef enum cs_launcher_kind {
	CS_LAUNCHER_GENERIC = 0,
	CS_LAUNCHER_OPENMPI,
	CS_LAUNCHER_HYDRA
} cs_launcher_kind_t;

/* Longest launcher-specific option list cs_launcher_flags writes. */
#define CS_LAUNCHER_MAX_FLAGS 4

/* The profile's name for messages: "Open MPI", "MPICH (Hydra)",
 * "generic". */
const char *cs_launcher_name(cs_launcher_kind_t k);

/* The profile of an mpiexec whose `--version` printed text (stdout and
 * stderr together); GENERIC for NULL or text no profile recognises. */
cs_launcher_kind_t cs_launcher_kind_of(const char *text);

/*
 * Run `path --version` (stdin from /dev/null, at most 10 s, killed after)
 * and return its profile in *kind. The line of what it printed that names
 * the version (the one holding "Version:", else the first) goes to version
 * (NUL-terminated, cut to n bytes) when version is not NULL.
 * CS_ERR_INVALID on NULL arguments, CS_ERR_IO (CS_ERR_NOMEM) when it
 * cannot be started;
 * a launcher that runs but prints nothing known is GENERIC, not an error.
 */
cs_status_t cs_launcher_detect(const char *path, cs_launcher_kind_t *kind,
			       char *version, size_t n);

/*
 * The options kind's launch line needs between `-n P` and the program,
 * for a process with effective user id euid: stored in flags (room for
 * CS_LAUNCHER_MAX_FLAGS; static strings), their number returned.
 */
int cs_launcher_flags(cs_launcher_kind_t k, unsigned euid,
		      const char **flags);

/*
 * How a launch of kind k ended, in one line for a crash reason, from its
 * wait status and what it printed (output: the tail of its stdout and
 * stderr, may be NULL). A rank's death names the signal the same way for
 * every profile: "mpiexec exited with status 139: a rank died of signal
 * 11 (Segmentation fault)", plus "; mpiexec names rank R" when the
 * launcher said which. Writes at most n bytes to buf (NUL-terminated).
 */
void cs_launcher_describe(cs_launcher_kind_t k, int wstatus,
			  const char *output, char *buf, size_t n);

/*
 * The signal of a rank's death as the launcher reported it: from the text
 * first, then from the exit status as kind k encodes it (see the top of
 * this file). Returns the signal (1..64) and sets *rank (-1 if not named),
 * or 0 when status and text say nothing of a signal. A Hydra status alone
 * is not read as a signal: exit(11) and signal 11 look the same there.
 */
int cs_launcher_death_signal(cs_launcher_kind_t k, int wstatus,
			     const char *output, int *rank);

#endif /* CS_LAUNCHER_H */
