/*
 * driver_impl.h - private to the driver (driver.c, driver_proc.c): the
 * state of a run and of one launch, and the process side that driver.c
 * calls (driver_proc.c: processes, the launcher's output, launching, the
 * run's signal handlers). Callers outside the driver use driver.h.
 */
#ifndef CS_DRIVER_IMPL_H
#define CS_DRIVER_IMPL_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include "driver/driver.h"
#include "driver/launcher.h"
#include "base/result.h"

#define MAX_PRE 256       /* children the caller had before the run */
#define TAIL_MAX 8192     /* bytes of each launcher stream kept */

/* How a launch ended. */
enum end_kind {
	END_OK,      /* exited, nothing pending */
	END_CRASH,   /* exited with a case pending */
	END_HANG,    /* a case went past the timeout */
	END_SILENT,  /* no line for too long, nothing pending */
	END_SIGNAL   /* the driver was interrupted */
};

/* One of the launcher's output streams, captured in a file (see top). */
struct capture {
	int fd;               /* the file (O_APPEND); -1 when not captured */
	int to;               /* our descriptor it is copied to */
	off_t off;            /* bytes copied so far */
	char tail[TAIL_MAX];  /* the last bytes copied, NUL-terminated */
	size_t tail_len;
	char path[PATH_MAX];
};

struct driver {
	const cs_driver_opts_t *o;
	cs_result_sink_t sink;
	void *ctx;
	char mpiexec[PATH_MAX];
	cs_launcher_kind_t kind; /* the launcher's profile */
	char results[PATH_MAX];
	int fd;
	struct capture cap[2];   /* the launcher's stdout, stderr */
	pid_t pre[MAX_PRE]; /* the caller's own children: never touched */
	int npre;
	struct sigaction old[3];
	int old_reaper;
};

/* One launch's state, as read from the results file. */
struct launch {
	pid_t pid;
	int status, reaped;
	size_t first, started, finals, next; /* next: index after the last */
	cs_result_t pending;
	int has_pending;
	int faulted;             /* the last final line is a rank's fault on
				    a guard page (worker/fault.c): the launch
				    ends after it by design */
	double t_pending, t_last;
	char *buf;               /* bytes read, not yet a complete line */
	size_t len, cap;
	off_t off;
};

/* Seconds on the monotonic clock. */
double cs_driver_now_s(void);
/* Sleep s seconds (a signal cuts it short). */
void cs_driver_sleep_s(double s);

/* Note the caller's children (left alone by every kill), install the
 * driver's handlers for SIGINT, SIGTERM and SIGHUP (a signal is noted and
 * SIGTERM goes to the running launcher) and make the driver a child
 * subreaper; clears the noted signal. Undone by cs_driver_restore. */
void cs_driver_install(struct driver *d);
/* Put back the caller's handlers and subreaper setting: returns the signal
 * received since cs_driver_install (0 if none) and clears it. */
int cs_driver_restore(struct driver *d);
/* The signal received during the run, 0 if none. */
int cs_driver_signalled(void);

/* Temporary files in dir for the launcher's stdout and stderr (none
 * without a launcher: cap[i].fd stays -1); CS_ERR_IO when one cannot be
 * made. cs_driver_close_captures closes and removes them. */
cs_status_t cs_driver_open_captures(struct driver *d, const char *dir);
void cs_driver_close_captures(struct driver *d);
/* Copy what the launcher wrote since last time to the driver's stdout and
 * stderr, keeping the last TAIL_MAX - 1 bytes of each in cap[i].tail. */
void cs_driver_drain_captures(struct driver *d);

/* Start a launch of P ranks from l->first: results and capture files
 * emptied, the worker forked in a session of its own (the pid in l->pid,
 * noted for the signal handler). CS_ERR_IO or CS_ERR_NOMEM when it cannot
 * start; then l->pid is 0 or negative and nothing is left running. */
cs_status_t cs_driver_start_launch(struct driver *d, int P, struct launch *l);
/* Wait up to secs for the launcher to exit (reaping it into l->status):
 * 1 if it has, 0 if not yet. */
int cs_driver_wait_launcher(struct launch *l, double secs);
/* End the launch and everything it started: SIGTERM to the launcher, a
 * grace period, then SIGKILL to its whole session and to any orphan
 * reparented to the driver until nothing is left; reaps the launcher. */
void cs_driver_end_launch(const struct driver *d, struct launch *l);

#endif /* CS_DRIVER_IMPL_H */
