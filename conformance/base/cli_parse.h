/*
 * cli_parse.h - the small parsers of collspec's command lines (cli_parse.c).
 * Each returns CS_OK, or CS_ERR_INVALID / CS_ERR_OVERFLOW with a message
 * (cs_last_error()) naming the option and what was wrong; *out is written
 * only on CS_OK.
 */
#ifndef CS_CLI_PARSE_H
#define CS_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "base/hcase.h"

#define CS_CLI_MAX_TIMEOUT 86400.0 /* --timeout: one day per case at most */
#define CS_CLI_MAX_LIST 1023       /* bytes of one comma list (--coll ...) */
#define CS_MAX_SIZES 1024          /* world sizes in one --ranks list */

/* An element count: decimal digits, optionally k, m or g (powers of
 * 1024); CS_ERR_OVERFLOW when it does not fit a size_t. */
cs_status_t cs_parse_count(const char *s, size_t *out);

/* A decimal integer from lo (>= 0) to hi, digits only; `what` names the
 * option in the message. */
cs_status_t cs_parse_int(const char *what, const char *s, long lo, long hi,
			 long *out);

/* --seed: decimal, or hexadecimal after 0x; 0 to 2^64-1. */
cs_status_t cs_parse_seed(const char *s, uint64_t *out);

/* --timeout: seconds, finite, above 0, at most CS_CLI_MAX_TIMEOUT. */
cs_status_t cs_parse_timeout(const char *s, double *out);

/* 1 when the word w[0..n) is one of the comma-separated words of list
 * (NULL: none), as a --backend-opt or --mpi-alg string holds them. */
int cs_list_has(const char *list, const char *w, size_t n);

/* --backend, --backend-opt: at most max bytes, no control bytes. */
cs_status_t cs_check_text(const char *what, const char *s, size_t max);

/* World sizes "4", "1-8", "2,4,8" (1 to 4096 each, in a list of at most
 * max) into sizes[0..*n). */
cs_status_t cs_parse_ranks(const char *spec, int *sizes, int max, int *n);

/* One catalog name into its enumerator (as an int). */
typedef cs_status_t (*cs_name_parser_t)(const char *s, int *v);
cs_status_t cs_name_coll(const char *s, int *v);
cs_status_t cs_name_dtype(const char *s, int *v);
cs_status_t cs_name_op(const char *s, int *v);
cs_status_t cs_name_mode(const char *s, int *v);
cs_status_t cs_name_comm(const char *s, int *v);
cs_status_t cs_name_a2av(const char *s, int *v);
cs_status_t cs_name_pattern(const char *s, int *v); /* csref/pattern.h */

/* A comma list of names (each parsed by one) ORed into *mask as bits;
 * no empty item, at most CS_CLI_MAX_LIST bytes. */
cs_status_t cs_parse_mask(const char *arg, cs_name_parser_t one,
			  uint32_t *mask);

/* --count: a comma list of counts appended to f->counts. */
cs_status_t cs_parse_counts(const char *arg, cs_filter_t *f);

#endif /* CS_CLI_PARSE_H */
