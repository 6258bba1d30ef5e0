/*
 * run_args.h - `collspec run`'s command line (run_args.c): parsed into the
 * options type (base/options.h) and checked.
 */
#ifndef CS_RUN_ARGS_H
#define CS_RUN_ARGS_H

#include "base/options.h"

/*
 * Parse run's arguments (argv[0] is "run") into o, which it initialises.
 * CS_OK, also after --help (the usage printed on stdout, o->help set);
 * CS_ERR_INVALID on a usage error (the message printed on stderr);
 * CS_ERR_NOMEM. o->wargs is malloc'ed in every case: the caller frees it.
 */
cs_status_t cs_run_parse_args(int argc, char **argv, cs_run_opts_t *o);

#endif /* CS_RUN_ARGS_H */
