/* status.c - status strings and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include "csref/status.h"

static _Thread_local char cs_errbuf[1024];

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

cs_status_t cs_error(cs_status_t st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cs_errbuf, sizeof cs_errbuf, fmt, ap);
	va_end(ap);
	return st;
}
