/*
 * test_check_sources.c - the check registry (conformance/base/check_registry.c) is
 * complete: every check name the harness's sources set has a row, and
 * every row is set somewhere. It reads each .c file under conformance/ and
 * ref/stats.c and takes the string literals given as a check name:
 *   - argument 3 of cs_local_set(),
 *   - argument 2 of cs_report_fail_run(), argument 4 of run_entry(),
 *   - argument 3 of snprintf() into a `check` field (the driver's crash
 *     and hang, the expectations' XPASS),
 *   - the initialisers of arrays named check_name, check_names or
 *     check_order (ref/stats.c's statistical checks).
 * A new way of setting a check name (another wrapper) needs a rule here;
 * test_scanner shows each rule at work on a scratch file.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "base/check_registry.h"

struct found {
	char name[64];
	char where[300];
	int snprintf_rule; /* set by a snprintf into a check field */
};

struct scan {
	struct found *f;
	size_t n, cap;
};

/* The file, with comments and character literals blanked (line breaks
 * kept) so that only code and string literals remain; NULL on error. */
static char *read_code(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *s = NULL;
	long len;
	size_t i;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 && (s = malloc((size_t)len + 1)) &&
	    fread(s, 1, (size_t)len, fp) == (size_t)len)
		s[len] = '\0';
	else {
		free(s);
		s = NULL;
	}
	fclose(fp);
	for (i = 0; s && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			char q = s[i++];
			for (; s[i] && s[i] != q; i++) {
				if (s[i] == '\\' && s[i + 1])
					i++;
				if (q == '\'')
					s[i] = ' ';
			}
			if (!s[i])
				break;
		} else if (s[i] == '/' && s[i + 1] == '*') {
			for (; s[i] && !(s[i] == '*' && s[i + 1] == '/'); i++)
				if (s[i] != '\n')
					s[i] = ' ';
			if (s[i])
				s[i] = s[i + 1] = ' ';
		} else if (s[i] == '/' && s[i + 1] == '/') {
			for (; s[i] && s[i] != '\n'; i++)
				s[i] = ' ';
		}
	}
	return s;
}

static int ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static int line_of(const char *code, const char *p)
{
	int line = 1;

	for (; code < p; code++)
		line += *code == '\n';
	return line;
}

static void add_found(struct scan *sc, const char *path, const char *code,
		      const char *lit, size_t len, int snprintf_rule)
{
	struct found *f;

	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 64;
		sc->f = realloc(sc->f, sc->cap * sizeof *sc->f);
		assert_non_null(sc->f);
	}
	f = &sc->f[sc->n++];
	snprintf(f->name, sizeof f->name, "%.*s", (int)len, lit);
	snprintf(f->where, sizeof f->where, "%s:%d", path, line_of(code, lit));
	f->snprintf_rule = snprintf_rule;
}

/* The string literals in [p, end): into sc. */
static void take_literals(struct scan *sc, const char *path, const char *code,
			  const char *p, const char *end, int snprintf_rule)
{
	const char *q;

	for (; p < end; p++) {
		if (*p != '"')
			continue;
		for (q = p + 1; q < end && *q != '"'; q++)
			if (*q == '\\')
				q++;
		/* a format ("%s", check) copies a name from elsewhere */
		if (!snprintf_rule || !memchr(p + 1, '%', (size_t)(q - p - 1)))
			add_found(sc, path, code, p + 1, (size_t)(q - p - 1),
				  snprintf_rule);
		p = q;
	}
}

/* p at an opening bracket: the position of its match (strings skipped). */
static const char *skip_group(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == ']' || *p == '}') {
			if (--depth == 0)
				return p;
		}
	}
	return p;
}

/* p at a call's '(': the bounds of argument k (0-based) in *a, *b; 0 when
 * the call has fewer arguments. */
static int argument(const char *p, int k, const char **a, const char **b)
{
	const char *end = skip_group(p), *start = p + 1;
	int i = 0;

	for (p++; p < end; p++) {
		if (*p == '"' || *p == '(' || *p == '[' || *p == '{') {
			if (*p == '"')
				for (p++; *p != '"'; p++)
					p += *p == '\\';
			else
				p = skip_group(p);
		} else if (*p == ',') {
			if (i++ == k)
				break;
			start = p + 1;
		}
	}
	*a = start;
	*b = p;
	return i >= k && start <= p;
}

/* Does [a, b) end with the identifier `check` (r.check, r->check)? */
static int names_check_field(const char *a, const char *b)
{
	while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n'))
		b--;
	return b - a > 6 && !strncmp(b - 5, "check", 5) &&
	       (b[-6] == '.' || b[-6] == '>');
}

static const struct call_rule {
	const char *fn;
	int arg;
} call_rules[] = {
	{"cs_local_set", 2}, {"cs_report_fail_run", 1},
	{"run_entry", 3},
};

static void scan_ident(struct scan *sc, const char *path, const char *code,
		       const char *id, size_t len)
{
	const char *p = id + len, *a, *b;
	size_t i;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	for (i = 0; i < sizeof call_rules / sizeof call_rules[0]; i++)
		if (strlen(call_rules[i].fn) == len &&
		    !strncmp(id, call_rules[i].fn, len) && *p == '(' &&
		    argument(p, call_rules[i].arg, &a, &b))
			take_literals(sc, path, code, a, b, 0);
	if (len == 8 && !strncmp(id, "snprintf", 8) && *p == '(' &&
	    argument(p, 0, &a, &b) && names_check_field(a, b) &&
	    argument(p, 2, &a, &b))
		take_literals(sc, path, code, a, b, 1);
	if ((len == 10 && !strncmp(id, "check_name", 10)) ||
	    (len == 11 && !strncmp(id, "check_names", 11)) ||
	    (len == 11 && !strncmp(id, "check_order", 11))) {
		if (*p != '[')
			return;
		for (p = skip_group(p) + 1; *p == ' ' || *p == '\n'; p++)
			;
		if (*p++ != '=')
			return;
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '{')
			take_literals(sc, path, code, p, skip_group(p), 0);
	}
}

static void scan_file(struct scan *sc, const char *path)
{
	char *code = read_code(path);
	const char *p;
	size_t len;

	if (!code)
		fail_msg("cannot read %s", path);
	for (p = code; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
			continue;
		}
		if (!ident_char(*p) || (p > code && ident_char(p[-1])))
			continue;
		for (len = 0; ident_char(p[len]); len++)
			;
		scan_ident(sc, path, code, p, len);
		p += len - 1;
	}
	free(code);
}

/* Scan every .c file under dir, its subfolders included; the number of
 * files scanned. */
static int scan_tree(struct scan *sc, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char path[1024];
	size_t len;
	int files = 0;

	if (!d)
		fail_msg("cannot open %s", dir);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			files += scan_tree(sc, path);
			continue;
		}
		len = strlen(e->d_name);
		if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
			continue;
		scan_file(sc, path);
		files++;
	}
	closedir(d);
	return files;
}

/* The harness's sources: conformance/ and its folders. */
static void scan_dir(struct scan *sc, const char *dir)
{
	assert_true(scan_tree(sc, dir) > 50);
}

/*
 * A check field set to "start" is the results stream's begin-of-case
 * marker (cs_results_start, driver.h), never a verdict: the one literal
 * without a row, and only through the snprintf rule.
 */
static int exempt(const struct found *f)
{
	return f->snprintf_rule && !strcmp(f->name, "start");
}

static void test_sources(void **state)
{
	struct scan sc = {NULL, 0, 0};
	const cs_check_info_t *c;
	size_t i, k;
	int bad = 0, seen;

	(void)state;
	scan_dir(&sc, CS_SOURCE_DIR "/conformance");
	scan_file(&sc, CS_SOURCE_DIR "/ref/stats.c");
	for (k = 0; k < sc.n; k++)
		if (!cs_check_find(sc.f[k].name) && !exempt(&sc.f[k])) {
			print_error("%s: check name '%s' is set here but has no "
				    "row in conformance/base/check_registry.c\n",
				    sc.f[k].where, sc.f[k].name);
			bad++;
		}
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		for (k = 0, seen = 0; k < sc.n && !seen; k++)
			seen = !strcmp(sc.f[k].name, c->name);
		if (!seen) {
			print_error("check '%s' has a row in conformance/base/check_registry.c "
				    "but no source sets it\n", c->name);
			bad++;
		}
	}
	free(sc.f);
	assert_int_equal(bad, 0);
}

/* The scanner itself: each rule on a scratch file. */
static void test_scanner(void **state)
{
	static const char text[] =
		"/* cs_local_set(l, v, \"commented\", r, d) */\n"
		"// cs_report_fail_run(r, \"commented2\", x)\n"
		"cs_local_set(l, CS_V_FAIL, c ? \"a1\" : \"a2\", \"reason\", f(\"x\", y));\n"
		"cs_local_set(&w->l[i], CS_V_FAIL, \"b1\", reason, NULL);\n"
		"cs_report_fail_run(rep, \"c1\", why);\n"
		"run_entry(r, 0, \"run\", \"d1\", why);\n"
		"snprintf(r->check, sizeof r->check, \"e1\");\n"
		"snprintf(r.reason, sizeof r.reason, \"not-a-check\");\n"
		"snprintf(l->check, sizeof l->check, \"%s\", check);\n"
		"my_cs_local_set(l, v, \"not-a-call\", r, d);\n"
		"static const char *const check_name[2] = {\"f1\", \"f2\"};\n"
		"put(check, n, check_name[w]); x = 1; if (x) { f(\"h\"); }\n"
		"char c = '\"'; cs_local_set(l, v, \"g1\", r, d);\n";
	static const char *const want[] = {"a1", "a2", "b1", "c1", "d1", "e1",
					   "f1", "f2", "g1"};
	char path[] = "/tmp/cs_test_checks_XXXXXX";
	struct scan sc = {NULL, 0, 0};
	FILE *fp;
	size_t i;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	scan_file(&sc, path);
	remove(path);
	assert_int_equal(sc.n, sizeof want / sizeof want[0]);
	for (i = 0; i < sc.n; i++)
		assert_string_equal(sc.f[i].name, want[i]);
	assert_int_equal(sc.f[5].snprintf_rule, 1);
	free(sc.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scanner),
		cmocka_unit_test(test_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
