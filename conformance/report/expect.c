/*
 * expect.c - the expectations file of `collspec run --expect` (expect.h):
 * reading it into entries, bounded everywhere (applying them to a result:
 * expect_apply.c). Longer than this project's usual 500 lines because the
 * parser's stages (lines, words, option values, entries) share one state
 * and read best top to bottom in one file.
 *
 * The file, top to bottom (docs/expectations/README.md): a line whose
 * first non-blank byte is '#' is a comment; a blank line ends an entry; a
 * line that starts with a non-blank byte starts an entry, and every
 * following line that starts with a blank continues it. An entry is words
 * (split at blanks; '...' or "..." quote blanks, no escapes): its name,
 * then options written as on collspec run's command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/check_registry.h"
#include "csref/a2av.h"
#include "base/cli_parse.h"
#include "base/names.h"
#include "base/result.h"
#include "suite/suite.h"
#include "report/expect.h"

#define MAX_WORDS 128 /* words of one entry */

/* The checks an entry may list: the check registry's expectable rows
 * (those that can FAIL one case), in the registry's order. */
const char *cs_expect_check_name(int i)
{
	const cs_check_info_t *c;
	size_t k;

	for (k = 0; i >= 0 && (c = cs_check_at(k)) != NULL; k++)
		if (cs_check_expectable(c) && i-- == 0)
			return c->name;
	return NULL;
}

int cs_expect_nchecks(void)
{
	int n = 0;

	while (cs_expect_check_name(n))
		n++;
	return n;
}

static int check_index(const char *name)
{
	const char *s;
	int i;

	for (i = 0; (s = cs_expect_check_name(i)) != NULL; i++)
		if (!strcmp(s, name))
			return i;
	return -1;
}

/* ---- parser state and messages ------------------------------------------- */

struct word {
	const char *s;
	int line;
};

/* The entry being read: its words, copied (quotes removed) into text. */
struct entry_buf {
	char text[CS_EXPECT_ENTRY_MAX + 1];
	size_t used;
	struct word w[MAX_WORDS];
	int nw;
	int line;     /* its first line; 0: no entry open */
};

struct pstate {
	const char *path;
	int line;     /* the line messages name */
	cs_expect_t *x;
	struct entry_buf b;
};

static cs_status_t bad(const struct pstate *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "PATH:LINE: problem" as the message; CS_ERR_INVALID. */
static cs_status_t bad(const struct pstate *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return cs_error(CS_ERR_INVALID, "%s:%d: %s", p->path, p->line, msg);
}

/* Length of the valid UTF-8 sequence of 2 to 4 bytes at s[0..n) (no
 * overlong form, no surrogate, nothing above U+10FFFF), else 0. Reads no
 * byte at or beyond s + n: the text is not NUL-terminated. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2, k;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] < 0xc2 || s[0] > 0xf4 || len > n)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return len;
}

/* Text that may appear in a file or a path: UTF-8, no control byte but
 * tab. Returns the offset of the first bad byte, or n. */
static size_t bad_byte(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if (u[i] == '\t' || (u[i] >= 0x20 && u[i] < 0x7f)) {
			i++;
			continue;
		}
		if (u[i] < 0x80 || !(len = utf8_seq(u + i, n - i)))
			return i;
		i += len;
	}
	return n;
}

/* ---- splitting lines into words ------------------------------------------- */

static cs_status_t put_byte(struct pstate *p, char c)
{
	if (p->b.used == CS_EXPECT_ENTRY_MAX)
		return bad(p, "the entry is longer than %d bytes",
			   CS_EXPECT_ENTRY_MAX);
	p->b.text[p->b.used++] = c;
	return CS_OK;
}

/* One word starting at s[*i] (not a blank) into the entry buffer. */
static cs_status_t one_word(struct pstate *p, const char *s, size_t n,
			    size_t *i)
{
	const char *end;
	cs_status_t st = CS_OK;
	char q;

	p->b.w[p->b.nw].s = p->b.text + p->b.used;
	p->b.w[p->b.nw].line = p->line;
	while (st == CS_OK && *i < n && s[*i] != ' ' && s[*i] != '\t') {
		if (s[*i] != '\'' && s[*i] != '"') {
			st = put_byte(p, s[(*i)++]);
			continue;
		}
		q = s[(*i)++];
		end = memchr(s + *i, q, n - *i);
		if (!end)
			return bad(p, "a quote (%c) that does not end on its line",
				   q);
		while (st == CS_OK && s + *i < end)
			st = put_byte(p, s[(*i)++]);
		(*i)++; /* the closing quote */
	}
	if (st == CS_OK)
		st = put_byte(p, '\0');
	p->b.nw += st == CS_OK;
	return st;
}

/* The words of line s[0..n) onto the open entry. */
static cs_status_t split_line(struct pstate *p, const char *s, size_t n)
{
	size_t i = 0;
	cs_status_t st;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			return CS_OK;
		if (p->b.nw == MAX_WORDS)
			return bad(p, "more than %d words in one entry",
				   MAX_WORDS);
		if ((st = one_word(p, s, n, &i)) != CS_OK)
			return st;
	}
}

/* ---- option values ---------------------------------------------------------- */

typedef cs_status_t (*name_fn)(const char *s, int *v);

#define NAME_FN(fn, type, parse)                                              \
	static cs_status_t fn(const char *s, int *v)                          \
	{                                                                     \
		type x;                                                       \
		cs_status_t st = parse(s, &x);                                \
		*v = (int)x;                                                  \
		return st;                                                    \
	}
NAME_FN(p_coll, cs_coll_t, cs_coll_parse)
NAME_FN(p_dtype, cs_dtype_t, cs_dtype_parse)
NAME_FN(p_op, cs_op_t, cs_op_parse)
NAME_FN(p_mode, cs_mode_t, cs_mode_parse)
NAME_FN(p_comm, cs_commvar_t, cs_commvar_parse)
NAME_FN(p_a2av, cs_a2av_pattern_t, cs_a2av_parse)
#undef NAME_FN

static cs_status_t p_check(const char *s, int *v)
{
	const char *name;
	char valid[256] = "";
	size_t used = 0;
	int i;

	if ((*v = check_index(s)) >= 0)
		return CS_OK;
	for (i = 0; (name = cs_expect_check_name(i)) != NULL; i++)
		used += (size_t)snprintf(valid + used, sizeof valid - used,
					 " %s", name);
	return cs_error(CS_ERR_INVALID, "unknown check '%s'; valid checks:%s",
			s, valid);
}

/* A comma list: no empty item (as collspec run's lists). */
static cs_status_t list_ok(const struct pstate *p, const char *opt,
			   const char *v)
{
	size_t len = strlen(v);

	if (len && v[0] != ',' && v[len - 1] != ',' && !strstr(v, ",,"))
		return CS_OK;
	return bad(p, "%s '%s': empty item", opt, v);
}

/* Each item of comma list v through fn into *mask. */
static cs_status_t parse_mask(const struct pstate *p, const char *opt,
			      const char *v, name_fn fn, uint32_t *mask)
{
	char buf[CS_EXPECT_ENTRY_MAX + 1], *tok, *save = NULL;
	cs_status_t st;
	int x;

	if ((st = list_ok(p, opt, v)) != CS_OK)
		return st;
	snprintf(buf, sizeof buf, "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (fn(tok, &x) != CS_OK)
			return bad(p, "%s: %s", opt, cs_last_error());
		*mask |= 1u << x;
	}
	return CS_OK;
}

static cs_status_t parse_counts(const struct pstate *p, const char *v,
				cs_filter_t *f)
{
	char buf[CS_EXPECT_ENTRY_MAX + 1], *tok, *save = NULL;
	int max = (int)(sizeof f->counts / sizeof f->counts[0]);
	cs_status_t st;

	if ((st = list_ok(p, "--count", v)) != CS_OK)
		return st;
	snprintf(buf, sizeof buf, "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (f->ncounts == max)
			return bad(p, "--count: at most %d counts", max);
		if (cs_parse_count(tok, &f->counts[f->ncounts]) != CS_OK)
			return bad(p, "--count: %s", cs_last_error());
		f->ncounts++;
	}
	return CS_OK;
}

/* Decimal digits only (no sign, no blank), at most hi. */
static cs_status_t parse_uint(const struct pstate *p, const char *opt,
			      const char *v, long hi, int *out)
{
	long x = 0;
	size_t i;

	for (i = 0; v[i]; i++) {
		if (v[i] < '0' || v[i] > '9' || x > hi)
			break;
		x = x * 10 + (v[i] - '0');
	}
	if (!v[0] || v[i] || x > hi)
		return bad(p, "%s '%s': expected a number from 0 to %ld", opt, v,
			   hi);
	*out = (int)x;
	return CS_OK;
}

/* collspec run's --seed: decimal, or hexadecimal after 0x; 0 to 2^64-1. */
static cs_status_t parse_seed(const struct pstate *p, const char *v,
			      uint64_t *out)
{
	int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	const char *s = v + (hex ? 2 : 0);
	unsigned base = hex ? 16 : 10, d;
	uint64_t x = 0;

	if (!*s)
		goto bad_seed;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (hex && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (hex && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			goto bad_seed;
		if (x > (UINT64_MAX - d) / base)
			goto bad_seed;
		x = x * base + d;
	}
	*out = x;
	return CS_OK;
bad_seed:
	return bad(p, "--seed '%s': expected a decimal number, or a "
		   "hexadecimal one after 0x, from 0 to 2^64-1", v);
}

/* --ranks as collspec run reads it, kept as ranges of world sizes. */
static cs_status_t parse_ranks(const struct pstate *p, const char *v,
			       cs_expect_entry_t *e)
{
	int sizes[CS_MAX_SIZES], n = 0, i;

	if (cs_parse_ranks(v, sizes, CS_MAX_SIZES, &n) != CS_OK)
		return bad(p, "--ranks: %s", cs_last_error());
	for (i = 0; i < n; i++) {
		if (e->nranges && sizes[i] == e->ranks[e->nranges - 1][1] + 1) {
			e->ranks[e->nranges - 1][1] = sizes[i];
			continue;
		}
		if (e->nranges == CS_EXPECT_RANGES_MAX)
			return bad(p, "--ranks '%s': at most %d ranges", v,
				   CS_EXPECT_RANGES_MAX);
		e->ranks[e->nranges][0] = e->ranks[e->nranges][1] = sizes[i];
		e->nranges++;
	}
	return CS_OK;
}

/* A name of 1 to max bytes from [A-Za-z0-9._-], not starting with a dot
 * or a dash. */
static int plain_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && s[0] != '.' && s[0] != '-' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == n;
}

static cs_status_t copy_text(const struct pstate *p, const char *opt,
			     const char *v, char *dst, size_t max)
{
	size_t n = strlen(v);

	if (!n || n > max)
		return bad(p, "%s: 1 to %zu bytes; got %zu", opt, max, n);
	memcpy(dst, v, n + 1);
	return CS_OK;
}

/* --backend-opt: comma-separated words, none empty. */
static cs_status_t parse_bopt(const struct pstate *p, const char *v,
			      cs_expect_entry_t *e)
{
	size_t n = strlen(v);

	if (v[0] == ',' || (n && v[n - 1] == ',') || strstr(v, ",,"))
		return bad(p, "--backend-opt: an empty word in '%s' (a comma "
			   "list of the run's --backend-opt words, such as "
			   "algo=ring)", v);
	return copy_text(p, "--backend-opt", v, e->backend_opt,
			 CS_EXPECT_BOPT_MAX);
}

/* --mpi-alg COLL=ALG[,COLL=ALG...]: words of the run's --mpi-alg. */
static cs_status_t parse_malg(const struct pstate *p, const char *v,
			      cs_expect_entry_t *e)
{
	size_t n = strlen(v);

	if (!n || v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,") ||
	    !strchr(v, '='))
		return bad(p, "--mpi-alg: '%s' is not a comma list of the "
			   "run's --mpi-alg words, such as "
			   "ibroadcast=tsp_ring", v);
	return copy_text(p, "--mpi-alg", v, e->mpi_alg, CS_EXPECT_BOPT_MAX);
}

/* ---- the options of an entry ------------------------------------------------ */

enum eopt {
	E_COLL, E_DTYPE, E_OP, E_MODE, E_COMM, E_A2AV, E_COUNT, E_INPLACE,
	E_ROOT, E_MISALIGN, E_SEED, E_RANKS, E_BACKEND, E_BOPT, E_MALG,
	/* (those are case filters) */
	E_CHECK, E_REASON, E_FINDING, E_SHOWS, E_NUM
};

static const char *const eopt_name[E_NUM] = {
	"--coll", "--dtype", "--op", "--mode", "--comm", "--a2av-pattern",
	"--count", "--inplace", "--root", "--misalign", "--seed", "--ranks",
	"--backend", "--backend-opt", "--mpi-alg", "--check", "--reason",
	"--finding", "--shows",
};

static cs_status_t filter_value(const struct pstate *p, enum eopt id,
				const char *v, cs_expect_entry_t *e)
{
	static const name_fn fn[] = {p_coll, p_dtype, p_op, p_mode, p_comm,
				     p_a2av};
	uint32_t *mask[] = {&e->f.colls, &e->f.dtypes, &e->f.ops,
			    &e->f.modes, &e->f.comms, &e->f.a2av};

	switch (id) {
	case E_COLL: case E_DTYPE: case E_OP: case E_MODE: case E_COMM:
	case E_A2AV:
		return parse_mask(p, eopt_name[id], v, fn[id], mask[id]);
	case E_COUNT: return parse_counts(p, v, &e->f);
	case E_INPLACE: return parse_uint(p, "--inplace", v, 1, &e->f.inplace);
	case E_ROOT: return parse_uint(p, "--root", v, 65535, &e->f.root);
	case E_MISALIGN:
		return parse_uint(p, "--misalign", v, 64, &e->f.misalign);
	case E_SEED:
		e->f.has_seed = 1;
		return parse_seed(p, v, &e->f.seed);
	case E_RANKS: return parse_ranks(p, v, e);
	case E_BACKEND:
		return copy_text(p, "--backend", v, e->backend,
				 CS_BACKEND_NAME_MAX);
	case E_BOPT:
		return parse_bopt(p, v, e);
	case E_MALG:
		return parse_malg(p, v, e);
	case E_CHECK: case E_REASON: case E_FINDING: case E_SHOWS:
	case E_NUM:
		break;
	}
	return bad(p, "internal: %s is not a case filter", eopt_name[id]);
}

static cs_status_t option_value(const struct pstate *p, enum eopt id,
				const char *v, cs_expect_entry_t *e)
{
	switch ((int)id) { /* int: the case filters are filter_value's */
	case E_CHECK:
		return parse_mask(p, "--check", v, p_check, &e->checks);
	case E_REASON:
		return copy_text(p, "--reason", v, e->reason,
				 CS_EXPECT_REASON_MAX);
	case E_FINDING:
		if (!plain_name(v, CS_EXPECT_FINDING_MAX))
			return bad(p, "--finding '%s': a file name of "
				   "docs/findings/ (1 to %d bytes of letters, "
				   "digits, '.', '_', '-')", v,
				   CS_EXPECT_FINDING_MAX);
		memcpy(e->finding, v, strlen(v) + 1);
		return CS_OK;
	case E_SHOWS:
		if (strcmp(v, "always") && strcmp(v, "sometimes"))
			return bad(p, "--shows '%s': 'always' (the default: "
				   "XPASS when none of its cases fails) or "
				   "'sometimes' (never XPASS)", v);
		e->sometimes = !strcmp(v, "sometimes");
		return CS_OK;
	default:
		return filter_value(p, id, v, e);
	}
}

static int find_eopt(const char *name, size_t len)
{
	int i;

	for (i = 0; i < E_NUM; i++)
		if (strlen(eopt_name[i]) == len &&
		    !strncmp(eopt_name[i], name, len))
			return i;
	return -1;
}

static cs_status_t unknown_option(const struct pstate *p, const char *w)
{
	char valid[256] = "";
	size_t used = 0;
	int i;

	for (i = 0; i < E_NUM; i++)
		used += (size_t)snprintf(valid + used, sizeof valid - used,
					 " %s", eopt_name[i]);
	return bad(p, "unknown option '%s'; valid options:%s", w, valid);
}

/* Word *i (and its value: after '=', or the next word) into e. */
static cs_status_t one_option(struct pstate *p, int *i, unsigned *seen,
			      cs_expect_entry_t *e)
{
	const char *w = p->b.w[*i].s, *eq = strchr(w, '='), *v;
	int id;

	p->line = p->b.w[*i].line;
	if (w[0] != '-' || w[1] != '-')
		return bad(p, "'%s': expected an option (--dtype, --check, "
			   "...)", w);
	id = find_eopt(w, eq ? (size_t)(eq - w) : strlen(w));
	if (id < 0)
		return unknown_option(p, w);
	if (*seen & (1u << id))
		return bad(p, "%s given twice", eopt_name[id]);
	*seen |= 1u << id;
	if (eq) {
		v = eq + 1;
	} else {
		if (*i + 1 >= p->b.nw)
			return bad(p, "%s needs a value", eopt_name[id]);
		v = p->b.w[++*i].s;
		p->line = p->b.w[*i].line;
	}
	return option_value(p, (enum eopt)id, v, e);
}

/* What every entry needs. */
static cs_status_t entry_complete(const struct pstate *p, unsigned seen,
				  const cs_expect_entry_t *e)
{
	static const enum eopt need[] = {E_CHECK, E_REASON, E_FINDING};
	size_t k;

	for (k = 0; k < sizeof need / sizeof need[0]; k++)
		if (!(seen & (1u << need[k])))
			return bad(p, "entry '%s' has no %s", e->name,
				   eopt_name[need[k]]);
	if (!(seen & ((1u << E_CHECK) - 1)))
		return bad(p, "entry '%s' has no case filter (--backend, "
			   "--coll, --dtype, ...): it would match every case",
			   e->name);
	return CS_OK;
}

static cs_status_t entry_name(struct pstate *p, cs_expect_entry_t *e)
{
	const char *w = p->b.w[0].s;
	size_t k;

	if (w[0] == '-')
		return bad(p, "an entry starts with its name, then its options "
			   "(got '%s')", w);
	if (!plain_name(w, CS_EXPECT_NAME_MAX))
		return bad(p, "entry name '%s': 1 to %d bytes of letters, "
			   "digits, '.', '_', '-'", w, CS_EXPECT_NAME_MAX);
	for (k = 0; k < p->x->n; k++)
		if (!strcmp(p->x->e[k].name, w))
			return bad(p, "entry name '%s' already used on line %d",
				   w, p->x->e[k].line);
	memcpy(e->name, w, strlen(w) + 1);
	return CS_OK;
}

static cs_status_t close_entry(struct pstate *p);

/* The open entry's words into x's next entry; closes the entry. The line
 * being read stays p->line. */
static cs_status_t finish_entry(struct pstate *p)
{
	int line = p->line;
	cs_status_t st = close_entry(p);

	p->line = line; /* (messages name the entry's lines) */
	return st;
}

static cs_status_t close_entry(struct pstate *p)
{
	cs_expect_entry_t *e;
	unsigned seen = 0;
	cs_status_t st;
	int i;

	if (!p->b.line)
		return CS_OK;
	p->line = p->b.line;
	if (p->x->n == CS_EXPECT_ENTRIES_MAX)
		return bad(p, "more than %d entries", CS_EXPECT_ENTRIES_MAX);
	e = &p->x->e[p->x->n];
	memset(e, 0, sizeof *e);
	cs_filter_init(&e->f);
	e->line = p->b.line;
	if ((st = entry_name(p, e)) != CS_OK)
		return st;
	for (i = 1; i < p->b.nw; i++)
		if ((st = one_option(p, &i, &seen, e)) != CS_OK)
			return st;
	p->line = p->b.line;
	if ((st = entry_complete(p, seen, e)) != CS_OK)
		return st;
	p->x->n++;
	p->b.line = 0;
	return CS_OK;
}

/* ---- lines -------------------------------------------------------------------- */

static cs_status_t one_line(struct pstate *p, const char *s, size_t n)
{
	size_t i = 0, badat;
	cs_status_t st;

	if (n && s[n - 1] == '\r')
		n--;
	if ((badat = bad_byte(s, n)) < n)
		return bad(p, "byte 0x%02x at column %zu: the file must be "
			   "UTF-8 text without control characters",
			   (unsigned char)s[badat], badat + 1);
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == n) /* a blank line ends an entry */
		return finish_entry(p);
	if (s[i] == '#')
		return CS_OK;
	if (i == 0) {
		if ((st = finish_entry(p)) != CS_OK)
			return st;
		p->b.used = 0;
		p->b.nw = 0;
		p->b.line = p->line;
	} else if (!p->b.line) {
		return bad(p, "this line starts with a blank, so it continues "
			   "an entry, but no entry is open (a blank line or "
			   "the file's start is above it)");
	}
	return split_line(p, s, n);
}

static cs_status_t parse_lines(struct pstate *p, const char *text,
			       size_t len)
{
	const char *s = text, *end = text + len, *nl;
	cs_status_t st;

	for (p->line = 1; s < end; p->line++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if ((st = one_line(p, s, nl ? (size_t)(nl - s)
					    : (size_t)(end - s))) != CS_OK)
			return st;
		s = nl ? nl + 1 : end;
	}
	return finish_entry(p);
}

cs_status_t cs_expect_parse(const char *path, const char *text, size_t len,
			    cs_expect_t **out)
{
	struct pstate *p;
	cs_status_t st;

	if (!path || (!text && len) || !out)
		return cs_error(CS_ERR_INVALID, "cs_expect_parse: NULL argument");
	*out = NULL;
	if (strlen(path) > CS_EXPECT_PATH_MAX ||
	    bad_byte(path, strlen(path)) < strlen(path) || !path[0])
		return cs_error(CS_ERR_INVALID, "--expect: the path must hold 1 "
				"to %d bytes of UTF-8 text without control "
				"characters", CS_EXPECT_PATH_MAX);
	if (len > CS_EXPECT_FILE_MAX)
		return cs_error(CS_ERR_INVALID, "%s: larger than %u bytes",
				path, CS_EXPECT_FILE_MAX);
	p = calloc(1, sizeof *p);
	if (!p || !(p->x = calloc(1, sizeof *p->x)) ||
	    !(p->x->e = calloc(CS_EXPECT_ENTRIES_MAX, sizeof *p->x->e))) {
		st = cs_error(CS_ERR_NOMEM, "%s: out of memory", path);
		goto out_free;
	}
	p->path = path;
	memcpy(p->x->path, path, strlen(path) + 1);
	st = parse_lines(p, text ? text : "", len);
	if (st == CS_OK && !p->x->n)
		st = cs_error(CS_ERR_INVALID, "%s: no entry (an empty "
			      "expectations file is surely a mistake)", path);
	if (st == CS_OK) {
		*out = p->x;
		p->x = NULL;
	}
out_free:
	if (p)
		cs_expect_free(p->x);
	free(p);
	return st;
}

cs_status_t cs_expect_load(const char *path, cs_expect_t **out)
{
	char *buf;
	size_t n;
	FILE *f;
	cs_status_t st;

	if (!path || !out)
		return cs_error(CS_ERR_INVALID, "cs_expect_load: NULL argument");
	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return cs_error(CS_ERR_IO, "--expect: cannot read '%s': %s",
				path, strerror(errno));
	buf = malloc(CS_EXPECT_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return cs_error(CS_ERR_NOMEM, "--expect: out of memory");
	}
	n = fread(buf, 1, CS_EXPECT_FILE_MAX + 1, f);
	if (ferror(f))
		st = cs_error(CS_ERR_IO, "--expect: cannot read '%s'", path);
	else if (n > CS_EXPECT_FILE_MAX)
		st = cs_error(CS_ERR_IO, "--expect: '%s' is larger than %u "
			      "bytes", path, CS_EXPECT_FILE_MAX);
	else
		st = cs_expect_parse(path, buf, n, out);
	free(buf);
	fclose(f);
	return st;
}

void cs_expect_free(cs_expect_t *x)
{
	if (!x)
		return;
	free(x->e);
	free(x);
}
