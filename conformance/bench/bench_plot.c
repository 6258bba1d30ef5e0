/*
 * bench_plot.c - `collspec bench --plot FILE.svg|png`: bus bandwidth
 * against message size through gnuplot (bench_plot.h has the contract).
 *
 * The data flows in four steps: the records become points grouped into
 * lines, one per (series, world size, inplace), sorted by size
 * (collect_points);
 * the points go to a temporary data file, one gnuplot data block per line
 * (write_data); a temporary script names the terminal, the axes and one
 * plot clause per line (write_script); gnuplot runs on it with its stderr
 * captured and a deadline (run_gnuplot).
 *
 * Every string the script quotes (series names, the output path, the data
 * path) goes through put_quoted: gnuplot's single-quoted strings take no
 * backslash escapes, a quote is written twice, and the terminal is
 * "noenhanced" so that _ ^ @ { } in a name stay literal text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench/bench_plot.h"

#define GNUPLOT_TIMEOUT_S 60.0 /* CS_GNUPLOT_TIMEOUT overrides it */
#define ERR_SHOWN 1500         /* bytes of gnuplot's stderr in a message */

/* One plotted point: its line (index into the line table) and its place. */
typedef struct point {
	size_t line;
	uint64_t bytes;
	double busbw;
} point_t;

/* One line of the plot: the (series, world size, inplace) that names it. */
typedef struct line {
	const char *series;
	int nranks, inplace;
} line_t;

/* The temporary files of one plot: script, data and gnuplot's stderr. */
typedef struct tmpfiles {
	char script[4096], data[4096], err[4096];
} tmpfiles_t;

/* One plot: its terminal and file, the records, their points and lines,
 * and its temporary files. */
typedef struct plot_job {
	const char *term, *out;
	const tmpfiles_t *t;
	const cs_bench_rec_t *recs;
	size_t n;
	const point_t *pts;
	size_t npts;
	const line_t *lines;
	size_t nlines;
} plot_job_t;

/* ---- the extension ------------------------------------------------------ */

/* The gnuplot terminal for path's extension, or CS_ERR_INVALID naming it. */
static cs_status_t plot_terminal(const char *path, const char **term)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');

	if (dot && strcasecmp(dot, ".svg") == 0) {
		*term = "svg size 900,600 dynamic noenhanced font 'sans,12'";
		return CS_OK;
	}
	if (dot && strcasecmp(dot, ".png") == 0) {
		*term = "pngcairo size 900,600 noenhanced font 'sans,10'";
		return CS_OK;
	}
	return cs_error(CS_ERR_INVALID,
			"--plot %s: the extension '%s' is not a plot format; "
			"use FILE.svg or FILE.png",
			path, dot ? dot : "(none)");
}

/* ---- records to lines and points ---------------------------------------- */

/* Index of r's line in lines[0..*nlines), appended when new. */
static size_t line_of(const cs_bench_rec_t *r, line_t *lines, size_t *nlines)
{
	size_t i;

	for (i = 0; i < *nlines; i++)
		if (lines[i].inplace == r->inplace &&
		    lines[i].nranks == r->nranks &&
		    strncmp(lines[i].series, r->series, sizeof r->series) == 0)
			return i;
	lines[*nlines].series = r->series;
	lines[*nlines].nranks = r->nranks;
	lines[*nlines].inplace = r->inplace;
	return (*nlines)++;
}

static int point_cmp(const void *a, const void *b)
{
	const point_t *p = a, *q = b;

	if (p->line != q->line)
		return p->line < q->line ? -1 : 1;
	if (p->bytes != q->bytes)
		return p->bytes < q->bytes ? -1 : 1;
	return 0;
}

/* The plottable records as points sorted by (line, bytes), and the lines
 * they fall on; a record of 0 bytes or a busbw that is not a finite
 * number has no place on the picture. *npts == 0 when none is left. */
static void collect_points(const cs_bench_rec_t *recs, size_t n, point_t *pts,
			   size_t *npts, line_t *lines, size_t *nlines)
{
	size_t i;

	*npts = 0;
	*nlines = 0;
	for (i = 0; i < n; i++) {
		if (recs[i].bytes == 0 || !isfinite(recs[i].busbw_GBps))
			continue;
		pts[*npts].line = line_of(&recs[i], lines, nlines);
		pts[*npts].bytes = recs[i].bytes;
		pts[*npts].busbw = recs[i].busbw_GBps;
		(*npts)++;
	}
	qsort(pts, *npts, sizeof *pts, point_cmp);
}

/* ---- the files gnuplot reads -------------------------------------------- */

/* s (at most max bytes) as a gnuplot single-quoted string: a quote
 * doubled, a control byte (which would end the script's line) as '?'. */
static void put_quoted(FILE *f, const char *s, size_t max)
{
	size_t i;

	fputc('\'', f);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\'')
			fputs("''", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f);
		else
			fputc(c, f);
	}
	fputc('\'', f);
}

/* One data block per line, blocks apart by two blank lines (gnuplot's
 * "index"): "bytes busbw" per point. */
static void write_data(FILE *f, const plot_job_t *j)
{
	const point_t *pts = j->pts;
	size_t i;

	for (i = 0; i < j->npts; i++) {
		if (i > 0 && pts[i].line != pts[i - 1].line)
			fputs("\n\n", f);
		fprintf(f, "%llu %.9g\n", (unsigned long long)pts[i].bytes,
			pts[i].busbw);
	}
}

/* The value every record shares (name of field k), or NULL when they
 * differ: what the plot's title can state for all its lines. */
static const char *common_name(const cs_bench_rec_t *recs, size_t n, int k)
{
	const char *first = NULL, *s = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		s = k == 0   ? cs_coll_name(recs[i].coll)
		    : k == 1 ? cs_dtype_name(recs[i].dtype)
			     : cs_op_name(recs[i].op);
		if (!first)
			first = s;
		else if (strcmp(first, s) != 0)
			return NULL;
	}
	return first;
}

/* Whether every record has the world size of the first. */
static bool one_world_size(const cs_bench_rec_t *recs, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (recs[i].nranks != recs[0].nranks)
			return false;
	return true;
}

/* "allreduce float32 sum, 4 ranks": what all the records share. */
static void write_title(FILE *f, const cs_bench_rec_t *recs, size_t n)
{
	char title[256] = "busbw";
	size_t len;
	int k;

	for (k = 0; k < 3; k++) {
		const char *s = common_name(recs, n, k);

		len = strlen(title);
		if (s && strcmp(s, "none") != 0)
			snprintf(title + len, sizeof title - len, " %s", s);
	}
	len = strlen(title);
	if (one_world_size(recs, n))
		snprintf(title + len, sizeof title - len, ", %d ranks",
			 recs[0].nranks);
	fputs("set title ", f);
	put_quoted(f, title, sizeof title);
	fputc('\n', f);
}

/* "mpi/alg=2 (in place)", "mpi, 8 ranks (in place)" when the world
 * sizes differ (show_ranks): a line's key entry. */
static void put_line_title(FILE *f, const line_t *l, bool show_ranks)
{
	char title[sizeof((cs_bench_rec_t *)0)->series + 48], ranks[24] = "";

	if (show_ranks)
		snprintf(ranks, sizeof ranks, ", %d ranks", l->nranks);
	snprintf(title, sizeof title, "%.*s%s (%s)",
		 (int)sizeof((cs_bench_rec_t *)0)->series, l->series, ranks,
		 l->inplace ? "in place" : "out of place");
	put_quoted(f, title, sizeof title);
}

/* The script: terminal, output, axes, then one clause per line. */
static void write_script(FILE *f, const plot_job_t *j)
{
	const char *data = j->t->data;
	size_t i;

	fprintf(f, "set terminal %s\nset output ", j->term);
	put_quoted(f, j->out, strlen(j->out));
	fputc('\n', f);
	write_title(f, j->recs, j->n);
	fputs("set xlabel 'message size (bytes)'\n"
	      "set ylabel 'busbw (GB/s)'\n"
	      "set logscale x 2\n"
	      "set format x '%.0b%B'\n"
	      "set yrange [0:*]\n"
	      "set grid\n"
	      "set key top left\n"
	      "plot ",
	      f);
	for (i = 0; i < j->nlines; i++) {
		if (i > 0)
			fputs(", \\\n     ", f);
		put_quoted(f, data, strlen(data));
		fprintf(f, " index %zu using 1:2 with linespoints lw 1.5 "
			"title ", i);
		put_line_title(f, &j->lines[i], !one_world_size(j->recs, j->n));
	}
	fputc('\n', f);
}

/* ---- temporary files ---------------------------------------------------- */

static cs_status_t make_tmp(char *path, size_t size, const char *what)
{
	const char *dir = getenv("TMPDIR");
	int fd, len;

	if (!dir || !*dir)
		dir = "/tmp";
	len = snprintf(path, size, "%s/collspec-plot-%s-XXXXXX", dir, what);
	if (len < 0 || (size_t)len >= size)
		return cs_error(CS_ERR_IO, "TMPDIR is too long: %s", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		int e = errno;

		path[0] = '\0';
		return cs_error(CS_ERR_IO, "cannot create a temporary file "
				"in %s: %s", dir, strerror(e));
	}
	close(fd);
	return CS_OK;
}

static void remove_tmps(tmpfiles_t *t)
{
	if (t->script[0])
		unlink(t->script);
	if (t->data[0])
		unlink(t->data);
	if (t->err[0])
		unlink(t->err);
}

/* Write path through fill; an error names path. */
static cs_status_t write_file(const char *path,
			      void (*fill)(FILE *, const plot_job_t *),
			      const plot_job_t *j)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return cs_error(CS_ERR_IO, "cannot write %s: %s", path,
				strerror(errno));
	fill(f, j);
	ok = !ferror(f);
	if (fclose(f) != 0)
		ok = false;
	return ok ? CS_OK
		  : cs_error(CS_ERR_IO, "cannot write %s: %s", path,
			     strerror(errno));
}

/* ---- running gnuplot ---------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timeout_s(void)
{
	const char *s = getenv("CS_GNUPLOT_TIMEOUT");
	char *end;
	double t;

	if (!s || !*s)
		return GNUPLOT_TIMEOUT_S;
	t = strtod(s, &end);
	return (*end || !(t > 0)) ? GNUPLOT_TIMEOUT_S : t;
}

/* The child's side: stdin and stdout /dev/null, stderr errpath, then
 * gnuplot from PATH; a failed exec sends its errno up the pipe. */
static void exec_gnuplot(const char *script, const char *errpath, int report)
{
	int in = open("/dev/null", O_RDWR), err = open(errpath, O_WRONLY);
	int e;

	if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(in, 1) < 0 ||
	    dup2(err, 2) < 0) {
		e = errno;
	} else {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		e = errno;
	}
	if (write(report, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

/* Wait for pid until deadline; true with *status when it ended, false
 * (after killing it) when it ran out of time. */
static bool wait_until(pid_t pid, double deadline, int *status)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return r == pid;
		if (now_s() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return false;
}

/* The first ERR_SHOWN bytes of path, trailing newlines cut. */
static void read_err(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len = 0;

	if (f) {
		len = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
}

/* The exec's errno from the pipe, 0 when exec succeeded (pipe closed). */
static int exec_errno(int fd)
{
	int e = 0;
	ssize_t r;

	do
		r = read(fd, &e, sizeof e);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof e ? e : 0;
}

/* gnuplot on t->script, its stderr in t->err, killed after timeout. */
static cs_status_t run_gnuplot(const tmpfiles_t *t, double timeout)
{
	char msg[ERR_SHOWN + 1];
	int fds[2], status = 0, e;
	pid_t pid;
	bool ended;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return cs_error(CS_ERR_IO, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		return cs_error(CS_ERR_IO, "fork: %s", strerror(e));
	}
	if (pid == 0)
		exec_gnuplot(t->script, t->err, fds[1]);
	close(fds[1]);
	e = exec_errno(fds[0]);
	close(fds[0]);
	ended = wait_until(pid, now_s() + timeout, &status);
	if (e == ENOENT)
		return cs_error(CS_ERR_UNSUPPORTED,
				"--plot needs gnuplot, not found on PATH "
				"(Debian: apt-get install gnuplot-nox)");
	if (e)
		return cs_error(CS_ERR_IO, "cannot run gnuplot: %s",
				strerror(e));
	read_err(t->err, msg, sizeof msg);
	if (!ended)
		return cs_error(CS_ERR_IO, "gnuplot did not finish in %g s "
				"and was killed; its stderr: %s", timeout,
				*msg ? msg : "(empty)");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cs_error(CS_ERR_IO, "gnuplot failed (%s %d); its "
				"stderr: %s",
				WIFEXITED(status) ? "exit status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status)
						  : WTERMSIG(status),
				*msg ? msg : "(empty)");
	return CS_OK;
}

/* ---- the plot ----------------------------------------------------------- */

/* The files of job j, then gnuplot on them. */
static cs_status_t draw(plot_job_t *j, tmpfiles_t *t)
{
	cs_status_t st;

	if ((st = make_tmp(t->data, sizeof t->data, "data")) != CS_OK ||
	    (st = make_tmp(t->script, sizeof t->script, "gp")) != CS_OK ||
	    (st = make_tmp(t->err, sizeof t->err, "err")) != CS_OK)
		return st;
	j->t = t;
	if ((st = write_file(t->data, write_data, j)) != CS_OK ||
	    (st = write_file(t->script, write_script, j)) != CS_OK)
		return st;
	return run_gnuplot(t, timeout_s());
}

cs_status_t cs_bench_plot(const char *path, const cs_bench_rec_t *recs,
			  size_t n)
{
	plot_job_t j = {.out = path, .recs = recs, .n = n};
	tmpfiles_t t = {{0}, {0}, {0}};
	point_t *pts;
	line_t *lines;
	cs_status_t st;

	if (!path || !*path)
		return cs_error(CS_ERR_INVALID, "--plot: no file name");
	if (!recs || n == 0)
		return cs_error(CS_ERR_INVALID, "--plot %s: no records", path);
	if ((st = plot_terminal(path, &j.term)) != CS_OK)
		return st;
	pts = calloc(n, sizeof *pts);
	lines = calloc(n, sizeof *lines);
	if (!pts || !lines) {
		st = cs_error(CS_ERR_NOMEM, "--plot: %zu records", n);
		goto out_free;
	}
	collect_points(recs, n, pts, &j.npts, lines, &j.nlines);
	j.pts = pts;
	j.lines = lines;
	if (j.npts == 0) {
		st = cs_error(CS_ERR_INVALID, "--plot %s: no record to draw "
			      "(a size of 0 bytes or a busbw that is not a "
			      "number has no place on a log axis)", path);
		goto out_free;
	}
	st = draw(&j, &t);
	remove_tmps(&t);
out_free:
	free(pts);
	free(lines);
	return st;
}
