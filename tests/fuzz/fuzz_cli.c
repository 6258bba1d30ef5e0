/*
 * fuzz_cli.c - the arguments of `collspec run` (cs_run_parse_args).
 *
 * Input: the arguments after "run", separated by NUL bytes (at most 64).
 * Properties: parsing never crashes or leaks; it returns 0, 2 (usage
 * error) or -1 (--help); after 0 every option holds a value in its
 * documented range; and the worker arguments it collects (o->wargs, what
 * the driver hands to every worker) parse again, to the same backend,
 * options and filters, so that the workers run the cases the driver
 * counted.
 */
#include <stdlib.h>
#include <string.h>
#include "csref/a2av.h"
#include "base/names.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "fuzz.h"

#define MAX_ARGS 64

static void in_range(const cs_run_opts_t *o)
{
	const cs_filter_t *f = &o->f;
	int i;

	CS_FUZZ_CHECK(o->backend && o->backend_opt && o->suite,
		      "a string option is NULL");
	CS_FUZZ_CHECK(o->nsizes >= 0 && o->nsizes <= CS_MAX_SIZES,
		      "%d world sizes", o->nsizes);
	for (i = 0; i < o->nsizes; i++)
		CS_FUZZ_CHECK(o->sizes[i] >= 1 && o->sizes[i] <= 65536,
			      "world size %d", o->sizes[i]);
	CS_FUZZ_CHECK(f->ncounts >= 0 && f->ncounts <= 32, "%d counts",
		      f->ncounts);
	CS_FUZZ_CHECK(o->repeat >= 1 && o->repeat <= 100, "--repeat %d",
		      o->repeat);
	CS_FUZZ_CHECK(o->timeout > 0, "--timeout %g", o->timeout);
	CS_FUZZ_CHECK(f->inplace >= -1 && f->inplace <= 1, "--inplace %d",
		      f->inplace);
	CS_FUZZ_CHECK(f->root >= -1 && f->root <= 65535, "--root %d", f->root);
	CS_FUZZ_CHECK(f->misalign >= -1 && f->misalign <= 64, "--misalign %d",
		      f->misalign);
	CS_FUZZ_CHECK(!(f->colls >> CS_NUM_COLLS) &&
		      !(f->dtypes >> CS_NUM_DTYPES) &&
		      !(f->ops >> (CS_OP_NONE + 1)) &&
		      !(f->modes >> CS_NUM_MODES) &&
		      !(f->comms >> CS_NUM_COMMVARS) && !(f->a2av >> CS_NUM_A2AV),
		      "a filter mask names a value that does not exist");
}

static void same_filter(const cs_filter_t *a, const cs_filter_t *b)
{
	CS_FUZZ_CHECK(a->colls == b->colls && a->dtypes == b->dtypes &&
		      a->ops == b->ops && a->modes == b->modes &&
		      a->comms == b->comms && a->a2av == b->a2av,
		      "the workers' name filters differ from the driver's");
	CS_FUZZ_CHECK(a->ncounts == b->ncounts &&
		      !memcmp(a->counts, b->counts,
			      (size_t)a->ncounts * sizeof a->counts[0]),
		      "the workers' counts differ from the driver's");
	CS_FUZZ_CHECK(a->inplace == b->inplace && a->root == b->root &&
		      a->misalign == b->misalign && a->has_seed == b->has_seed &&
		      (!a->has_seed || a->seed == b->seed),
		      "the workers' inplace/root/misalign/seed differ from the "
		      "driver's");
}

/* The workers' parse of o's worker arguments agrees with o. */
static void worker_args(const cs_run_opts_t *o)
{
	static cs_run_opts_t w;
	char **argv = calloc((size_t)o->nwargs + 2, sizeof *argv);
	int rc;

	if (!argv)
		return;
	argv[0] = "run";
	memcpy(argv + 1, o->wargs, (size_t)o->nwargs * sizeof *argv);
	rc = cs_run_parse_args(o->nwargs + 1, argv, &w);
	free(argv);
	free(w.wargs);
	CS_FUZZ_CHECK(rc == 0, "the worker arguments do not parse (%d)", rc);
	CS_FUZZ_CHECK(!strcmp(o->backend, w.backend) &&
		      !strcmp(o->backend_opt, w.backend_opt) &&
		      !strcmp(o->suite, w.suite), "the workers' backend, "
		      "--backend-opt or suite differ from the driver's");
	CS_FUZZ_CHECK(o->repeat == w.repeat && o->verbose == w.verbose,
		      "the workers' --repeat or --verbose differ");
	same_filter(&o->f, &w.f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cs_run_opts_t o;
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	size_t i, start = 0;
	int argc = 1, rc;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "run";
	for (i = 0; i < size && argc <= MAX_ARGS; i++) {
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	if (start < size && argc <= MAX_ARGS) /* the last, unterminated */
		argv[argc++] = buf + start;
	argv[argc] = NULL;
	rc = cs_run_parse_args(argc, argv, &o);
	CS_FUZZ_CHECK(rc == CS_OK || rc == CS_ERR_INVALID,
		      "cs_run_parse_args returned %d", rc);
	if (rc == CS_OK && !o.help) {
		in_range(&o);
		worker_args(&o);
	}
	free(o.wargs);
	free(buf);
	return 0;
}
