/*
 * bench_plot.h - `collspec bench --plot FILE.svg|png` (bench_plot.c): the
 * records' bus bandwidth against message size, one line per series (and
 * world size), drawn by gnuplot. Returns CS_OK, or an error with the
 * reason (gnuplot missing, the file not written) in cs_last_error().
 */
#ifndef CS_BENCH_PLOT_H
#define CS_BENCH_PLOT_H

#include <stddef.h>
#include "bench_rec.h"
#include "csref/status.h"

cs_status_t cs_bench_plot(const char *path, const cs_bench_rec_t *recs,
			  size_t n);

#endif /* CS_BENCH_PLOT_H */
