/*
 * json_util.h - what the JSON and re-run-line tests share (json_util.c):
 * checks of a string made independently of the harness's code.
 */
#ifndef CS_TEST_JSON_UTIL_H
#define CS_TEST_JSON_UTIL_H

#include <stddef.h>

/* 1 when buf[0..n) is valid UTF-8, as glibc's iconv decodes it (an
 * implementation independent of the harness's). */
int valid_utf8(const char *buf, size_t n);

/* 1 when s holds no raw control byte (a JSON line is one line). */
int no_controls(const char *s);

#endif
