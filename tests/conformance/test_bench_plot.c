/*
 * test_bench_plot.c - `collspec bench --plot` (conformance/bench/bench_plot.c)
 * on records built here: the SVG is well-formed XML (xmllint --noout) with
 * one curve per (series, in-place) pair, each curve's points in size order
 * and its key entry naming the series; the PNG starts with the PNG
 * signature and has the stated size; world sizes that differ get a line
 * each, named in the key; a series name full of gnuplot and
 * XML syntax and an output path with a quote still plot; the temporary
 * files are gone afterwards. The errors: an unknown or missing extension,
 * no records, no plottable record, gnuplot missing from PATH, a gnuplot
 * that fails (its stderr in the message) and one that hangs (killed).
 *
 * Without gnuplot (Debian's gnuplot-nox) or xmllint (libxml2-utils) the
 * tests that need them are skipped and the program exits 77 naming what
 * is missing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "bench/bench_plot.h"

extern char **environ;

#define NSIZES 6
#define NAME_NASTY "x'y\"<&>_^{}@\\\n$(q)"

static const char *g_missing; /* what a skipped test lacked */

/* Per test: a fresh directory, TMPDIR inside it, PATH kept to restore. */
typedef struct fixture {
	char dir[64], tmp[96];
	char *path, *tmpdir;
} fixture_t;

/* ---- helpers ------------------------------------------------------------ */

static int on_path(const char *prog)
{
	const char *p = getenv("PATH");
	char buf[4096];

	while (p && *p) {
		size_t len = strcspn(p, ":");

		snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

static int skip_without(const char *prog)
{
	if (on_path(prog))
		return 0;
	g_missing = prog;
	return 1;
}

/* Exit status of argv run from PATH, stdout and stderr to /dev/null. */
static int run_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0)
		waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole of a file, NUL-terminated; *len its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz > 0);
	rewind(f);
	buf = malloc((size_t)sz + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	buf[sz] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)sz;
	return buf;
}

/* Write an executable shell script named gnuplot into dir. */
static void fake_gnuplot(const char *dir, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/gnuplot", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Records: three series x two in-place choices x NSIZES sizes (8 B to
 * 256 KiB by 8x), given largest size first so that the plot must sort.
 * busbw rises with size on every line. */
static size_t make_recs(cs_bench_rec_t *r)
{
	static const char *const series[3] = {"mpi", "ref", NAME_NASTY};
	size_t n = 0;
	int s, ip, k;

	for (k = NSIZES - 1; k >= 0; k--)
		for (s = 0; s < 3; s++)
			for (ip = 0; ip < 2; ip++, n++) {
				memset(&r[n], 0, sizeof r[n]);
				snprintf(r[n].series, sizeof r[n].series, "%s",
					 series[s]);
				snprintf(r[n].backend, sizeof r[n].backend,
					 "%s", s == 1 ? "ref" : "mpi");
				r[n].coll = CS_COLL_ALLREDUCE;
				r[n].dtype = CS_DTYPE_FLOAT32;
				r[n].op = CS_OP_SUM;
				r[n].inplace = ip;
				r[n].nranks = 4;
				r[n].bytes = 8ull << (3 * k);
				r[n].count = r[n].bytes / 4;
				r[n].busbw_GBps = (1.0 + k) * (1.0 + s + ip);
			}
	return n;
}

/* ---- fixture ------------------------------------------------------------ */

static int setup(void **state)
{
	fixture_t *fx = calloc(1, sizeof *fx);

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof fx->dir, "/tmp/cs-test-plot-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->tmp, sizeof fx->tmp, "%s/tmp", fx->dir);
	if (mkdir(fx->tmp, 0700) != 0)
		return -1;
	fx->path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	fx->tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", fx->tmp, 1);
	unsetenv("CS_GNUPLOT_TIMEOUT");
	*state = fx;
	return 0;
}

static int rm_entry(const char *p, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	fixture_t *fx = *state;

	setenv("PATH", fx->path, 1);
	if (fx->tmpdir)
		setenv("TMPDIR", fx->tmpdir, 1);
	else
		unsetenv("TMPDIR");
	nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->path);
	free(fx->tmpdir);
	free(fx);
	return 0;
}

/* ---- the SVG ------------------------------------------------------------ */

/* The curve of gnuplot's group "gnuplot_plot_<k>": the points after the
 * key sample's segment in its stroked path ("M key L key M x,y L x,y..."),
 * checked to run left to right and upwards (y falls in SVG). Returns the
 * number of points. */
static int check_curve(const char *svg, int k)
{
	char id[64];
	const char *g, *d, *end;
	double x, y, px = -1, py = 1e9;
	int npts = 0, used;

	snprintf(id, sizeof id, "<g id=\"gnuplot_plot_%d\"", k);
	g = strstr(svg, id);
	assert_non_null(g);
	d = strstr(g, "stroke='rgb(");
	assert_non_null(d);
	d = strstr(d, " d='M");
	assert_non_null(d);
	d = strchr(d + 5, 'M'); /* the curve, after the key sample */
	assert_non_null(d);
	end = strchr(d, '\'');
	assert_non_null(end);
	d++;
	while (d < end && sscanf(d, "%lf,%lf%n", &x, &y, &used) == 2) {
		assert_true(x > px);
		assert_true(y < py);
		px = x;
		py = y;
		npts++;
		d += used;
		while (d < end && (*d == ' ' || *d == 'L'))
			d++;
	}
	return npts;
}

static void test_svg(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs);
	char out[128], *svg;
	char *argv[] = {"xmllint", "--noout", out, NULL};
	int k;

	if (skip_without("gnuplot") || skip_without("xmllint"))
		skip();
	snprintf(out, sizeof out, "%s/busbw.svg", fx->dir);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_OK);
	assert_int_equal(run_quiet(argv), 0);
	svg = slurp(out, NULL);
	assert_non_null(strstr(svg, "<svg"));
	assert_non_null(strstr(svg, "</svg>"));
	for (k = 1; k <= 6; k++)
		assert_int_equal(check_curve(svg, k), NSIZES);
	assert_null(strstr(svg, "gnuplot_plot_7\""));
	assert_non_null(strstr(svg, ">mpi (out of place)</text>"));
	assert_non_null(strstr(svg, ">mpi (in place)</text>"));
	assert_non_null(strstr(svg, ">ref (in place)</text>"));
	/* the name as written: the newline became '?', the rest literal */
	assert_non_null(strstr(svg, ">x'y\"&lt;&amp;>_^{}@\\?$(q) (in place)"));
	assert_non_null(strstr(svg, "busbw allreduce float32 sum, 4 ranks"));
	assert_non_null(strstr(svg, "busbw (GB/s)"));
	free(svg);
	assert_int_equal(count_entries(fx->tmp), 0);
}

/* World sizes 2 and 4 of one series: a line each, the key naming the
 * size, the title not (it states only what every record shares). */
static void test_svg_world_sizes(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES], two[2 * NSIZES];
	size_t n = make_recs(recs), i, m = 0;
	char out[128], *svg;

	if (skip_without("gnuplot"))
		skip();
	for (i = 0; i < n; i++)
		if (!strcmp(recs[i].series, "mpi") && recs[i].inplace == 0) {
			assert_true(m + 2 <= 2 * NSIZES);
			two[m] = recs[i];
			two[m + 1] = recs[i];
			two[m + 1].nranks = 2;
			m += 2;
		}
	assert_int_equal(m, 2 * NSIZES);
	snprintf(out, sizeof out, "%s/ranks.svg", fx->dir);
	assert_int_equal(cs_bench_plot(out, two, m), CS_OK);
	svg = slurp(out, NULL);
	assert_int_equal(check_curve(svg, 1), NSIZES);
	assert_int_equal(check_curve(svg, 2), NSIZES);
	assert_null(strstr(svg, "gnuplot_plot_3\""));
	assert_non_null(strstr(svg, ">mpi, 4 ranks (out of place)</text>"));
	assert_non_null(strstr(svg, ">mpi, 2 ranks (out of place)</text>"));
	assert_non_null(strstr(svg, ">busbw allreduce float32 sum</text>"));
	free(svg);
}

/* ---- the PNG ------------------------------------------------------------ */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void test_png(void **state)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G',
					     '\r', '\n', 0x1a, '\n'};
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs), len;
	char out[128];
	unsigned char *png;

	if (skip_without("gnuplot"))
		skip();
	/* a quote in the output path, and an upper-case extension */
	snprintf(out, sizeof out, "%s/it's.PNG", fx->dir);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_OK);
	png = (unsigned char *)slurp(out, &len);
	assert_true(len > 33);
	assert_memory_equal(png, sig, 8);
	assert_memory_equal(png + 12, "IHDR", 4);
	assert_int_equal(be32(png + 16), 900);
	assert_int_equal(be32(png + 20), 600);
	free(png);
	assert_int_equal(count_entries(fx->tmp), 0);
}

/* ---- errors ------------------------------------------------------------- */

static void test_bad_extension(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs);
	char out[128];

	snprintf(out, sizeof out, "%s/busbw.pdf", fx->dir);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "'.pdf'"));
	/* a dot in a folder is no extension */
	snprintf(out, sizeof out, "%s/a.svg/busbw", fx->dir);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "(none)"));
	assert_int_equal(cs_bench_plot("busbw.svgz", recs, n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "'.svgz'"));
	assert_int_equal(count_entries(fx->dir), 1); /* tmp/ only */
}

static void test_no_records(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs), i;
	char out[128];

	snprintf(out, sizeof out, "%s/busbw.svg", fx->dir);
	assert_int_equal(cs_bench_plot(out, recs, 0), CS_ERR_INVALID);
	assert_int_equal(cs_bench_plot(out, NULL, n), CS_ERR_INVALID);
	assert_int_equal(cs_bench_plot(NULL, recs, n), CS_ERR_INVALID);
	for (i = 0; i < n; i++)
		recs[i].bytes = 0;
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_INVALID);
	assert_non_null(strstr(cs_last_error(), "0 bytes"));
	assert_int_equal(count_entries(fx->tmp), 0);
}

static void test_no_gnuplot(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs);
	char out[128];

	snprintf(out, sizeof out, "%s/busbw.svg", fx->dir);
	setenv("PATH", fx->tmp, 1); /* an empty folder */
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_UNSUPPORTED);
	assert_non_null(strstr(cs_last_error(), "gnuplot"));
	assert_non_null(strstr(cs_last_error(), "PATH"));
	assert_int_equal(count_entries(fx->tmp), 0);
}

static void test_gnuplot_fails(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs);
	char out[128];

	snprintf(out, sizeof out, "%s/busbw.svg", fx->dir);
	fake_gnuplot(fx->dir, "echo \"line 3: boom, no such terminal\" >&2\n"
			      "exit 3");
	setenv("PATH", fx->dir, 1);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_IO);
	assert_non_null(strstr(cs_last_error(), "exit status 3"));
	assert_non_null(strstr(cs_last_error(), "line 3: boom, no such "
					       "terminal"));
	assert_int_equal(count_entries(fx->tmp), 0);
}

static void test_gnuplot_hangs(void **state)
{
	fixture_t *fx = *state;
	cs_bench_rec_t recs[3 * 2 * NSIZES];
	size_t n = make_recs(recs);
	char out[128];

	snprintf(out, sizeof out, "%s/busbw.svg", fx->dir);
	/* not killed, it outlives ctest's TIMEOUT and the test fails */
	fake_gnuplot(fx->dir, "echo waiting >&2\nexec /bin/sleep 1000");
	setenv("PATH", fx->dir, 1);
	setenv("CS_GNUPLOT_TIMEOUT", "0.5", 1);
	assert_int_equal(cs_bench_plot(out, recs, n), CS_ERR_IO);
	assert_non_null(strstr(cs_last_error(), "killed"));
	assert_non_null(strstr(cs_last_error(), "waiting"));
	assert_int_equal(count_entries(fx->tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_svg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_svg_world_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_png, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_extension, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_records, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_gnuplot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gnuplot_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gnuplot_hangs, setup,
						teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	if (failed == 0 && g_missing) {
		printf("skipped: %s is not on PATH (Debian: %s)\n", g_missing,
		       strcmp(g_missing, "xmllint") == 0 ? "libxml2-utils"
							  : "gnuplot-nox");
		return 77;
	}
	return failed;
}
