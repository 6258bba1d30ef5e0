/*
 * status.h - the one status type of CollSpec.
 *
 * 0 is success, negative is an error. Every function that can fail returns a
 * cs_status_t and, on failure, leaves a human-readable message (naming the
 * problem and, for bad names, the valid ones) in a thread-local buffer read
 * with cs_last_error().
 */
#ifndef CSREF_STATUS_H
#define CSREF_STATUS_H

typedef int cs_status_t;

#define CS_OK 0
#define CS_ERR_INVALID (-1)     /* a bad argument, name or value */
#define CS_ERR_UNDEFINED (-2)   /* a combination the spec does not define */
#define CS_ERR_OVERFLOW (-3)    /* a size or count that overflows */
#define CS_ERR_NOMEM (-4)       /* an allocation failed */
#define CS_ERR_UNSUPPORTED (-5) /* valid, but this component cannot do it */
#define CS_ERR_IO (-6)          /* a file or stream error */
#define CS_ERR_INTERNAL (-7)    /* a bug in CollSpec */

#ifdef __cplusplus
extern "C" {
#endif

/* Short fixed name of a status ("invalid argument", ...); never NULL. */
const char *cs_status_string(cs_status_t st);

/* Message left by the most recent failing call on this thread; "" if none.
 * The buffer is owned by the library and overwritten by the next error. */
const char *cs_last_error(void);

/* Record a formatted message for cs_last_error() and return st, so that a
 * failing path reads `return cs_error(CS_ERR_INVALID, "...", ...);`. */
cs_status_t cs_error(cs_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif /* CSREF_STATUS_H */
