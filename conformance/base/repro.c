/*
 * repro.c - the re-run line of a case (repro.h): the command line, and
 * each argument as one POSIX shell word.
 */
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "base/hcase.h"
#include "base/repro.h"

/* Bounded writer: keeps counting past the end, as snprintf does. */
struct line {
	char *buf;
	size_t n, used;
};

static void put_c(struct line *w, char ch)
{
	if (w->used + 1 < w->n)
		w->buf[w->used] = ch;
	w->used++;
}

static void put_s(struct line *w, const char *s)
{
	while (*s)
		put_c(w, *s++);
}

/* Bytes a shell word may hold unquoted. */
static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%";

/* 1 when s holds a control byte or a byte that is not valid UTF-8. */
static int needs_printf(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int len;

	for (; *p; p += len) {
		len = cs_utf8_len((const char *)p);
		if (!len || *p < 0x20 || *p == 0x7f)
			return 1;
	}
	return 0;
}

/*
 * s as one shell word that gives s back byte for byte, written in
 * printable ASCII and valid UTF-8 only (the re-run line travels in JSON
 * and XML): unchanged when every byte is plain; in single quotes (a quote
 * as '\'') when it is text; otherwise "$(printf 'F')" with every byte other
 * than printable ASCII, quote, backslash, percent and a leading '-'
 * written as \ooo. At most 4 bytes per byte of s, plus 14. (Command
 * substitution drops trailing newlines: the CLI refuses control bytes in
 * what it quotes.)
 */
static void shell_word(struct line *w, const char *s)
{
	const unsigned char *p;
	char oct[5];

	if (*s && strspn(s, plain_chars) == strlen(s)) {
		put_s(w, s);
		return;
	}
	if (!needs_printf(s)) {
		put_c(w, '\'');
		for (p = (const unsigned char *)s; *p; p++) {
			if (*p == '\'')
				put_s(w, "'\\''");
			else
				put_c(w, (char)*p);
		}
		put_c(w, '\'');
		return;
	}
	put_s(w, "\"$(printf '");
	for (p = (const unsigned char *)s; *p; p++) {
		/* (a leading '-' would read as an option of printf) */
		if (*p >= 0x20 && *p < 0x7f && !strchr("'\\%", *p) &&
		    (*p != '-' || p != (const unsigned char *)s)) {
			put_c(w, (char)*p);
			continue;
		}
		snprintf(oct, sizeof oct, "\\%03o", *p);
		put_s(w, oct);
	}
	put_s(w, "')\"");
}

/* " --NAME VALUE" with VALUE an integer. */
static void opt_num(struct line *w, const char *name, unsigned long long v)
{
	char num[32];

	snprintf(num, sizeof num, " %llu", v);
	put_s(w, name);
	put_s(w, num);
}

static void opt_word(struct line *w, const char *name, const char *v)
{
	put_s(w, name);
	put_c(w, ' ');
	shell_word(w, v);
}

/* Contract in repro.h. */
int cs_repro_format(const cs_hcase_t *hc, int world, const char *backend,
		    const char *backend_opt, const char *suite, char *buf,
		    size_t n)
{
	const cs_case_t *c = &hc->c;
	struct line w = {buf, n, 0};

	opt_num(&w, "collspec run --ranks", (unsigned long long)world);
	opt_word(&w, " --backend", backend);
	if (backend_opt && *backend_opt)
		opt_word(&w, " --backend-opt", backend_opt);
	opt_word(&w, " --suite", suite);
	if (cs_hcase_pattern(hc)) {
		/* a pattern case: its pattern, variant, dtype and seed (the
		 * grid, when not the default, is the caller's: cs_run_repro) */
		opt_word(&w, " --pattern", cs_hcase_pattern(hc)->name);
		opt_word(&w, " --variant", cs_hcase_variant(hc));
		opt_word(&w, " --dtype", cs_dtype_name(c->dtype));
		opt_num(&w, " --seed", c->seed);
		if (n)
			buf[w.used < n ? w.used : 0] = '\0';
		return (int)w.used;
	}
	opt_word(&w, " --coll", cs_coll_name(c->coll));
	opt_word(&w, " --dtype", cs_dtype_name(c->dtype));
	if (cs_coll_reduces(c->coll))
		opt_word(&w, " --op", cs_op_name(c->op));
	opt_word(&w, " --mode", cs_mode_name(c->mode));
	opt_num(&w, " --count", c->count);
	opt_num(&w, " --inplace", (unsigned long long)hc->inplace);
	opt_word(&w, " --comm", cs_commvar_name(hc->comm));
	if (cs_coll_rooted(c->coll))
		opt_num(&w, " --root", (unsigned long long)c->root);
	opt_num(&w, " --misalign", (unsigned long long)hc->misalign);
	if (c->coll == CS_COLL_ALLTOALLV)
		opt_word(&w, " --a2av-pattern", cs_a2av_name(hc->a2av_pattern));
	opt_num(&w, " --seed", c->seed);
	/* a cut line would re-run something else: none at all instead */
	if (n)
		buf[w.used < n ? w.used : 0] = '\0';
	return (int)w.used;
}
