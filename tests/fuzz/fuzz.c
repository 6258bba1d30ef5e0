/*
 * fuzz.c - the helpers of fuzz.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

static FILE *fuzz_err; /* the original stderr, for cs_fuzz_fail */

void cs_fuzz_quiet(void)
{
	const char *v = getenv("CS_FUZZ_VERBOSE");
	FILE *null;

	fuzz_err = stderr;
	if (v && strcmp(v, "1") == 0)
		return;
	null = fopen("/dev/null", "w");
	if (!null)
		return;
	/* glibc's stdout and stderr are variables: code that prints through
	 * them from now on writes to null; fds 1 and 2 stay open */
	stdout = null;
	stderr = null;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	cs_fuzz_quiet();
	return 0;
}

void cs_fuzz_fail(const char *fmt, ...)
{
	FILE *out = fuzz_err ? fuzz_err : stderr;
	va_list ap;

	fputs("fuzz: ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
	abort();
}

char *cs_fuzz_str(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	if (len)
		memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

void cs_fuzz_free_words(int argc, char **argv)
{
	int i;

	for (i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* The word being built, and the list it goes to. */
struct words {
	char **v;
	int n;
	char *w;      /* current word (room for the whole input) */
	size_t len;
	int in_word;  /* a word has started (it may be empty: '') */
};

static int words_end(struct words *ws)
{
	char **v;

	if (!ws->in_word)
		return 0;
	v = realloc(ws->v, ((size_t)ws->n + 2) * sizeof *v);
	if (!v)
		return -1;
	ws->v = v;
	ws->w[ws->len] = '\0';
	if (!(v[ws->n] = strdup(ws->w)))
		return -1;
	v[++ws->n] = NULL;
	ws->len = 0;
	ws->in_word = 0;
	return 0;
}

/* The format of printf, as the shell's printf writes it (escapes \ooo
 * \\ \a \b \f \n \r \t \v \' \" and %%); -1 for any other
 * conversion. */
static int printf_format(struct words *ws, const char *f, size_t n)
{
	static const char from[] = "abfnrtv\\'\"", to[] = "\a\b\f\n\r\t\v\\'\"";
	const char *e;
	size_t i;
	int v, k;

	for (i = 0; i < n; i++) {
		if (f[i] == '%') {
			if (++i == n || f[i] != '%')
				return -1;
			ws->w[ws->len++] = '%';
		} else if (f[i] != '\\' || i + 1 == n) {
			ws->w[ws->len++] = f[i];
		} else if (f[i + 1] >= '0' && f[i + 1] <= '7') {
			for (v = 0, k = 0; k < 3 && i + 1 < n && f[i + 1] >= '0' &&
			     f[i + 1] <= '7'; k++)
				v = v * 8 + (f[++i] - '0');
			if (v & 0xff) /* the shell drops NUL bytes */
				ws->w[ws->len++] = (char)v;
		} else if ((e = strchr(from, f[i + 1])) != NULL) {
			ws->w[ws->len++] = to[e - from];
			i++;
		} else {
			ws->w[ws->len++] = f[i];
		}
	}
	return 0;
}

/* "$(printf 'F')" at *p (inside double quotes): the output of printf F,
 * trailing newlines dropped, as command substitution does. */
static int printf_subst(struct words *ws, const char **p)
{
	static const char open[] = "$(printf '";
	const char *f = *p + sizeof open - 1, *q = strchr(f, '\'');
	size_t start = ws->len;

	if (!q || q[1] != ')' || printf_format(ws, f, (size_t)(q - f)))
		return -1;
	while (ws->len > start && ws->w[ws->len - 1] == '\n')
		ws->len--;
	*p = q + 2;
	return 0;
}

/* One quoted run starting at *p (a quote); advances past the closing
 * quote. -1 when it is not closed. */
static int quoted(struct words *ws, const char **p)
{
	char q = **p;
	const char *s = *p + 1;

	while (*s && *s != q) {
		if (q == '"' && !strncmp(s, "$(printf '", 10)) {
			if (printf_subst(ws, &s))
				return -1;
			continue;
		}
		if (q == '"' && *s == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
			if (*++s == '\n') {
				s++;
				continue;
			}
		}
		ws->w[ws->len++] = *s++;
	}
	if (*s != q)
		return -1;
	*p = s + 1;
	ws->in_word = 1;
	return 0;
}

static int split_loop(const char *s, struct words *ws)
{
	while (*s) {
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			if (words_end(ws))
				return -1;
			s++;
		} else if (*s == '\'' || *s == '"') {
			if (quoted(ws, &s))
				return -1;
		} else if (*s == '\\') {
			if (!s[1])
				return -1;
			if (s[1] != '\n') {
				ws->w[ws->len++] = s[1];
				ws->in_word = 1;
			}
			s += 2;
		} else {
			ws->w[ws->len++] = *s++;
			ws->in_word = 1;
		}
	}
	return words_end(ws);
}

int cs_fuzz_split(const char *s, int *argc, char ***argv)
{
	struct words ws = {NULL, 0, NULL, 0, 0};

	ws.w = malloc(strlen(s) + 1);
	ws.v = calloc(1, sizeof *ws.v);
	if (!ws.w || !ws.v || split_loop(s, &ws)) {
		free(ws.w);
		cs_fuzz_free_words(ws.n, ws.v);
		return -1;
	}
	free(ws.w);
	*argc = ws.n;
	*argv = ws.v;
	return 0;
}
