/*
 * fault.h - an access to a guard page as the FAIL of the running case
 * (fault.c).
 *
 * Every host buffer of a case lies between two inaccessible pages
 * (check/guardpage.h). A call that reads or writes beyond a buffer's
 * guard bytes faults there; the worker's SIGSEGV handler looks the
 * faulting address up in the registry of those pages and, when it is
 * one, ends the process with a FAIL of check "guardpage" for the case
 * that was running, naming the rank, the buffer and the side: written to
 * the driver's results file (driver.h) as the case's final line, and to
 * stderr. A fault anywhere else is left to the handler that was there
 * before (a crash, as without this file).
 */
#ifndef CS_FAULT_H
#define CS_FAULT_H

#include "base/hcase.h"
#include "base/options.h"

/*
 * Install the handler in this process (every process of a worker, before
 * its first case): results is the driver's results file (--results; NULL
 * without a driver: the verdict then goes to stderr only). Returns 0
 * when the handler could not be installed (a fault then stays a crash).
 */
int cs_fault_install(const char *results);

/*
 * Note the case about to run on this process's ranks: its result as the
 * handler would write it (check "guardpage", the re-run line for world
 * size `world` on o's backend, named `backend`). Cheap: one re-run line.
 */
void cs_fault_case(const cs_run_opts_t *o, const char *backend,
		   const cs_hcase_t *hc, int world);

/* Put back the handler that was there before cs_fault_install and close
 * the results file it opened. */
void cs_fault_uninstall(void);

#endif /* CS_FAULT_H */
