/* status.c - status strings and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/status.h"

/*
 * The message buffer. A longer message keeps its start (what failed) and
 * its end (why: the cause is usually last), with the number of bytes left
 * out between them, so that no message loses its cause to a long quoted
 * input (a path, an option string).
 */
#define ERRBUF_BYTES 16384
#define ERRBUF_HEAD 4096

static _Thread_local char cs_errbuf[ERRBUF_BYTES];

const char *cs_status_string(cs_status_t st)
{
	switch (st) {
	case CS_OK: return "ok";
	case CS_ERR_INVALID: return "invalid argument";
	case CS_ERR_UNDEFINED: return "not defined by the spec";
	case CS_ERR_OVERFLOW: return "size overflow";
	case CS_ERR_NOMEM: return "out of memory";
	case CS_ERR_UNSUPPORTED: return "unsupported";
	case CS_ERR_IO: return "i/o error";
	case CS_ERR_INTERNAL: return "internal error";
	default: return "unknown status";
	}
}

const char *cs_last_error(void)
{
	return cs_errbuf;
}

/* Index at or after i that does not split a UTF-8 sequence: at most 3
 * continuation bytes on, so that bytes that are not UTF-8 (a run of
 * 0x80..0xbf) move it no further. */
static size_t char_start(const char *s, size_t i)
{
	int k;

	for (k = 0; k < 3 && ((unsigned char)s[i] & 0xc0) == 0x80; k++)
		i++;
	return i;
}

/* Store msg[0..len) in the buffer: whole, or its head and tail. */
static void store(const char *msg, size_t len)
{
	char mid[64];
	size_t head, tail, midlen;

	if (len < sizeof cs_errbuf) {
		memcpy(cs_errbuf, msg, len + 1);
		return;
	}
	head = char_start(msg, ERRBUF_HEAD);
	snprintf(mid, sizeof mid, " [... %zu bytes left out ...] ", len);
	midlen = strlen(mid);
	tail = char_start(msg, len - (sizeof cs_errbuf - 1 - head - midlen));
	snprintf(mid, sizeof mid, " [... %zu bytes left out ...] ", tail - head);
	memcpy(cs_errbuf, msg, head);
	memcpy(cs_errbuf + head, mid, strlen(mid));
	memcpy(cs_errbuf + head + strlen(mid), msg + tail, len - tail + 1);
}

cs_status_t cs_error(cs_status_t st, const char *fmt, ...)
{
	va_list ap, ap2;
	char *msg;
	int len;

	/* the arguments may point into the buffer (cs_last_error()): format
	 * into a copy first */
	va_start(ap, fmt);
	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap);
	msg = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (msg) {
		vsnprintf(msg, (size_t)len + 1, fmt, ap2);
		store(msg, (size_t)len);
		free(msg);
	} else {
		snprintf(cs_errbuf, sizeof cs_errbuf, "(out of memory while "
			 "formatting an error message: %s)", fmt);
	}
	va_end(ap2);
	va_end(ap);
	return st;
}
