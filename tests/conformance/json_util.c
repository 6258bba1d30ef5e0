/* json_util.c - what the JSON and re-run-line tests share (json_util.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <iconv.h>
#include <cmocka.h>
#include "json_util.h"

int valid_utf8(const char *buf, size_t n)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	char *in = (char *)buf, *out, *o;
	size_t il = n, ol = 4 * n + 4, r;

	assert_true(cd != (iconv_t)-1);
	out = o = malloc(ol);
	assert_non_null(out);
	r = iconv(cd, &in, &il, &o, &ol);
	iconv_close(cd);
	free(out);
	return r != (size_t)-1 && il == 0;
}

int no_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}
