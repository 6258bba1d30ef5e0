/*
 * memest.h - memory: what a case needs per rank, what the machine has
 * free, and what a process used (memest.c). The run refuses, and the
 * worker skips, a case that the machine's free memory cannot hold: the
 * kernel would otherwise kill a rank, and the harness blame the
 * implementation for the crash.
 */
#ifndef CS_MEMEST_H
#define CS_MEMEST_H

#include <stdint.h>
#include "base/hcase.h"

/* Bytes of memory this machine has free for the workers: /proc/meminfo's
 * MemAvailable, or the environment's CS_MEM_AVAILABLE_MIB (a whole
 * number of MiB, for tests and for sharing a machine) when set; 0 when
 * unknown (then nothing is refused). */
double cs_mem_available(void);

/* An upper estimate of the bytes one rank of world size P holds while
 * case hc runs with --repeat `repeat`: its send and receive buffers,
 * their images for the case's own and the fresh inputs, copies of what
 * the calls received (call 1's, each fresh call's, the root's for a
 * shared check) and the oracle's working blocks. (Measured: 0.6 to 0.7
 * of it; docs/running.md, "The scale suite".) */
double cs_hcase_mem_need(const cs_hcase_t *hc, int P, int repeat);

/* Reset this process's peak resident memory (Linux: "5" written to
 * /proc/self/clear_refs); 0 on success, -1 where it cannot be reset. */
int cs_peak_rss_reset(void);

/* This process's peak resident memory since its start or the last
 * reset (VmHWM), bytes; 0 when unknown. */
uint64_t cs_peak_rss(void);

#endif /* CS_MEMEST_H */
