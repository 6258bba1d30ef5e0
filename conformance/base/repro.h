/*
 * repro.h - the re-run line of a case: one shell command line that runs
 * exactly that case again, printed with every failure and stored in every
 * result (cs_result_t.repro).
 */
#ifndef CS_REPRO_H
#define CS_REPRO_H

#include <stddef.h>
#include "base/hcase.h"

/*
 * One command line that re-runs exactly case hc at world size `world` on
 * backend `backend` ("ref", "plugin:PATH") with option backend_opt (NULL
 * or "": none) from suite `suite`: single-valued filters for every field
 * that names the case (op, root and alltoallv pattern only where the
 * collective has them), each argument quoted for a POSIX shell, the line
 * printable ASCII and valid UTF-8 only. Writes into buf[0..n) and returns
 * the length it needs, as snprintf does; when that does not fit in n, buf
 * is "" (a cut line would re-run another case). CS_REPRO_MAX bytes
 * (result.h) always fit for what the command line accepts.
 */
int cs_repro_format(const cs_hcase_t *hc, int world, const char *backend,
		    const char *backend_opt, const char *suite, char *buf,
		    size_t n);

#endif /* CS_REPRO_H */
