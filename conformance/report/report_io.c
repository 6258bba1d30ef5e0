/*
 * report_io.c - what the report's files share (report_impl.h): the run's
 * wall time and checked writes, each file's first failure said once.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "report/report_impl.h"

double cs_report_wall_seconds(const cs_report_t *r)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - r->t0.tv_sec) +
	       1e-9 * (double)(t.tv_nsec - r->t0.tv_nsec);
}

void cs_report_io_failed(int *bad, const char *what, const char *path,
			 int err)
{
	if (*bad)
		return;
	*bad = 1;
	if (path)
		fprintf(stderr, "collspec: cannot write the %s report '%s': "
			"%s\n", what, path, err ? strerror(err) : "write error");
	else
		fprintf(stderr, "collspec: cannot write the %s: %s\n", what,
			err ? strerror(err) : "write error");
}

bool cs_report_io_ok(FILE *f, int *bad, const char *what, const char *path)
{
	if (*bad)
		return false;
	if (ferror(f) || fflush(f) != 0)
		cs_report_io_failed(bad, what, path, errno);
	return !*bad;
}
