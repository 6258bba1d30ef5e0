/*
 * bench_plot.h - `collspec bench --plot FILE.svg|png` (issue 11): bus
 * bandwidth against message size, one line per series and in-place
 * choice, drawn by gnuplot (Debian's gnuplot-nox).
 */
#ifndef CS_BENCH_PLOT_H
#define CS_BENCH_PLOT_H

#include <stddef.h>
#include "base/bench_rec.h"
#include "csref/status.h"

/* Draw recs[0..n) into path: busbw_GBps (GB/s) against bytes on a log x
 * axis, one line per (series, world size, inplace) in the order they
 * first appear, so several backends or algorithms share one picture (the
 * key names the world size when the records have several). The format
 * follows path's extension, ".svg" or ".png"; any other is CS_ERR_INVALID
 * naming it. The script and data go to temporary files (TMPDIR or /tmp),
 * removed before returning; gnuplot is found on PATH and given
 * CS_GNUPLOT_TIMEOUT seconds (default 60) before it is killed. Records
 * with bytes == 0 cannot sit on a log axis and are left out; none left is
 * CS_ERR_INVALID. A missing gnuplot is CS_ERR_UNSUPPORTED, a gnuplot that
 * fails or runs out of time CS_ERR_IO with its stderr in the message.
 * The caller keeps recs; path is written only by gnuplot. */
cs_status_t cs_bench_plot(const char *path, const cs_bench_rec_t *recs,
			  size_t n);

#endif /* CS_BENCH_PLOT_H */
