/*
 * json.h - the JSON Lines form of a result (cs_result_t): what a worker
 * sends the driver (driver.h's --results protocol), what --json writes,
 * and what the driver and check_results read back.
 *
 * One result is one JSON object on one line, with scalar values only. The
 * writer makes the line valid UTF-8 whatever bytes the result's strings
 * hold, and the reader gives those bytes back exactly, so a result goes
 * through its JSON form unchanged.
 */
#ifndef CS_JSON_H
#define CS_JSON_H

#include <stddef.h>
#include "csref/status.h"
#include "base/result.h"

/*
 * One JSON object (no newline) describing r, into buf[0..n). Returns the
 * length of the whole object, as snprintf does (buf holds its first n - 1
 * bytes and a NUL when it does not fit; buf may be NULL when n is 0). The
 * object is valid UTF-8 whatever bytes r's strings hold: a byte that is
 * not part of valid UTF-8 is written as \u00XX (XX its value).
 */
int cs_result_to_json(const cs_result_t *r, char *buf, size_t n);

/*
 * Parse one object written by cs_result_to_json (or any object of scalar
 * values with those keys) into *r, which it clears first; unknown keys are
 * ignored, a missing "verdict" is an error. Every string comes back byte
 * for byte (\u0080-\u00ff read as one byte). Returns CS_OK, or
 * CS_ERR_INVALID with a message naming the problem (malformed JSON, an
 * unknown name, a number out of range, a string longer than its field:
 * never cut), or CS_ERR_NOMEM; *r is then partly filled.
 */
cs_status_t cs_result_from_json(const char *line, cs_result_t *r);

/* s as a JSON string literal, quotes included, escaped as
 * cs_result_to_json escapes strings; malloc'ed (the caller frees it), or
 * NULL when out of memory. */
char *cs_json_quote(const char *s);

/* Length of the valid UTF-8 sequence that starts at s (1 to 4), or 0 when
 * s[0] does not start one (or is the terminating NUL). Reads no byte past
 * the first one that makes the sequence invalid. */
int cs_utf8_len(const char *s);

#endif /* CS_JSON_H */
