/*
 * results_file.c - the worker's side of the driver protocol (driver.h): one JSON
 * line per case result (cs_result_to_json) and a "start" line before each
 * case, flushed at once, so that a case that crashes or hangs the worker
 * is known to the driver by its start line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/names.h"
#include "base/result.h"
#include "report/results_file.h"
#include "suite/suite.h"

void cs_results_line(FILE *f, const cs_result_t *r)
{
	int n = cs_result_to_json(r, NULL, 0); /* (a re-run line can be long) */
	char *buf;

	if (!f)
		return;
	buf = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf) {
		fprintf(stderr, "collspec: out of memory: the result of case "
			"#%zu is lost\n", r->hc.index);
		return;
	}
	cs_result_to_json(r, buf, (size_t)n + 1);
	fputs(buf, f);
	fputc('\n', f);
	fflush(f);
	free(buf);
}

void cs_results_start(FILE *f, const cs_hcase_t *hc, const char *backend)
{
	static cs_result_t start;

	if (!f)
		return;
	memset(&start, 0, sizeof start);
	start.hc = *hc;
	snprintf(start.backend, sizeof start.backend, "%s", backend);
	start.verdict = CS_V_PASS;
	snprintf(start.check, sizeof start.check, "start");
	cs_results_line(f, &start);
}
