/*
 * check_commlog.c - the volume test of the pattern suite (spec/patterns.md
 * section 3): reads a run's --comm-log and its --json report and checks
 *
 *   - every record: bytes = (send_count + recv_count) * dtype size, its
 *     group_ranks are the rank's group on the pattern's axis of the grid
 *     (csref/grid.h), seq counts 0, 1, ... per (case, rank);
 *   - every rank of every pattern case of the report: the sum of its
 *     records' bytes equals the pattern's closed form (its volume(), which
 *     takes spec section 5's Bytes formulas from csref/patterns.h, tested
 *     against the spec's worked examples by test_patvol);
 *   - the report's volume totals (calls and bytes over ranks, the largest
 *     rank's bytes per collective) equal the same sums of the log.
 *
 * usage: check_commlog --seed N COMMLOG REPORT.json
 * Exit 0 when everything holds, 1 with the first differences on stderr.
 * The log is parsed here by key, independently of the harness's writer.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/catalog.h"
#include "csref/grid.h"
#include "csref/pattern.h"
#include "base/json.h"
#include "suite/patsuite.h"

#define MAXW 64
#define MAXREC (1 << 20)

typedef struct rec {
	int world, index, rank, step, seq;
	const cs_pattern_t *pat;
	int variant;
	cs_dtype_t dtype;
	cs_coll_t coll;
	long long send, recv, bytes;
} rec_t;

static int errors;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;
	if (errors++ >= 20)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The text value of "key": in line, into out[0..n); 1 when found. */
static int str_of(const char *line, const char *key, char *out, size_t n)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	const char *p = strstr(line, pat), *e;
	if (!p || !(e = strchr(p += strlen(pat), '"')) || (size_t)(e - p) >= n)
		return 0;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = '\0';
	return 1;
}

static int num_of(const char *line, const char *key, long long *v)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(line, pat);
	return p && sscanf(p + strlen(pat), "%lld", v) == 1;
}

/* "group_ranks":[a,b,...] into r[0..*n). */
static int ranks_of(const char *line, int *r, int *n)
{
	const char *p = strstr(line, "\"group_ranks\":[");
	if (!p)
		return 0;
	p += strlen("\"group_ranks\":[");
	*n = 0;
	while (*p && *p != ']') {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || *n >= MAXW)
			return 0;
		r[(*n)++] = (int)v;
		p = *end == ',' ? end + 1 : end;
	}
	return *p == ']';
}

/* One log line into *r, with its record checks. */
static int parse_line(const char *line, rec_t *r)
{
	char pat[32], var[32], grid[80], dt[32], coll[32];
	long long index, rank, step, seq;
	int gr[MAXW], ng, want[MAXW], nw;
	cs_grid_t g;

	if (!str_of(line, "pattern", pat, sizeof pat) ||
	    !str_of(line, "variant", var, sizeof var) ||
	    !str_of(line, "grid", grid, sizeof grid) ||
	    !str_of(line, "dtype", dt, sizeof dt) ||
	    !str_of(line, "coll", coll, sizeof coll) ||
	    !num_of(line, "case", &index) || !num_of(line, "rank", &rank) ||
	    !num_of(line, "step", &step) || !num_of(line, "seq", &seq) ||
	    !num_of(line, "send_count", &r->send) ||
	    !num_of(line, "recv_count", &r->recv) ||
	    !num_of(line, "bytes", &r->bytes) || !ranks_of(line, gr, &ng)) {
		bad("unreadable log line: %.200s", line);
		return 0;
	}
	r->pat = cs_pattern_find(pat);
	if (!r->pat || cs_dtype_parse(dt, &r->dtype) != CS_OK ||
	    cs_coll_parse(coll, &r->coll) != CS_OK) {
		bad("unknown pattern, dtype or collective: %.200s", line);
		return 0;
	}
	r->variant = -1;
	for (int v = 0; v < r->pat->nvariants; v++)
		if (!strcmp(r->pat->variants[v], var))
			r->variant = v;
	/* the world size is the grid's product */
	int world = 1;
	for (const char *p = grid; *p; p++)
		if (*p >= 'a' && *p <= 'z' && (p == grid || p[-1] == ','))
			world *= atoi(p + 2);
	if (r->variant < 0 || world > MAXW ||
	    cs_grid_parse(grid, world, &g) != CS_OK) {
		bad("bad variant or grid '%s': %.200s", grid, line);
		return 0;
	}
	r->world = world;
	r->index = (int)index;
	r->rank = (int)rank;
	r->step = (int)step;
	r->seq = (int)seq;
	if (r->bytes != (r->send + r->recv) * (long long)cs_dtype_size(r->dtype))
		bad("case %d rank %d seq %d: bytes %lld != (%lld + %lld) * %zu",
		    r->index, r->rank, r->seq, r->bytes, r->send, r->recv,
		    cs_dtype_size(r->dtype));
	if (cs_grid_group(&g, CS_AXIS_BIT(r->pat->axis), r->rank, want, MAXW,
			  &nw) != CS_OK || nw != ng ||
	    memcmp(want, gr, (size_t)nw * sizeof *gr) != 0)
		bad("case %d rank %d seq %d: group_ranks are not the rank's %s "
		    "group on grid %s", r->index, r->rank, r->seq,
		    cs_grid_axis_name(r->pat->axis), grid);
	return 1;
}

/* The log's records of (world, index). */
static void case_sums(const rec_t *recs, size_t n, int world, int index,
		      long long *bytes, long long calls[CS_NUM_COLLS],
		      long long cbytes[CS_NUM_COLLS],
		      long long cmax[CS_NUM_COLLS])
{
	long long per[CS_NUM_COLLS][MAXW];
	int next[MAXW];
	memset(per, 0, sizeof per);
	memset(next, 0, sizeof next);
	for (int g = 0; g < world; g++)
		bytes[g] = 0;
	for (int c = 0; c < CS_NUM_COLLS; c++)
		calls[c] = cbytes[c] = cmax[c] = 0;
	for (size_t k = 0; k < n; k++) {
		const rec_t *r = &recs[k];
		if (r->world != world || r->index != index)
			continue;
		if (r->seq != next[r->rank])
			bad("case %d rank %d: seq %d where %d was due", index,
			    r->rank, r->seq, next[r->rank]);
		next[r->rank] = r->seq + 1;
		bytes[r->rank] += r->bytes;
		calls[r->coll]++;
		cbytes[r->coll] += r->bytes;
		per[r->coll][r->rank] += r->bytes;
	}
	for (int c = 0; c < CS_NUM_COLLS; c++)
		for (int g = 0; g < world; g++)
			cmax[c] = per[c][g] > cmax[c] ? per[c][g] : cmax[c];
}

/* The report's volume text from the log's sums, in the harness's form. */
static void expected_volume(const cs_pattern_t *pat, const long long *calls,
			    const long long *cbytes, const long long *cmax,
			    char *out, size_t n)
{
	size_t used = 0;
	out[0] = '\0';
	for (int c = 0; c < CS_NUM_COLLS && used < n; c++)
		if (calls[c])
			used += (size_t)snprintf(out + used, n - used,
						 "%s%s %s %lld %lld %lld",
						 used ? "; " : "",
						 cs_grid_axis_name(pat->axis),
						 cs_coll_name((cs_coll_t)c),
						 calls[c], cbytes[c], cmax[c]);
}

static void check_case(const cs_result_t *res, const rec_t *recs, size_t n,
		       uint64_t seed)
{
	const cs_pattern_t *pat = cs_hcase_pattern(&res->hc);
	int world = res->hc.c.nranks, index = (int)res->hc.index;
	long long bytes[MAXW], calls[CS_NUM_COLLS], cb[CS_NUM_COLLS],
	    cm[CS_NUM_COLLS];
	char vol[512];
	cs_grid_t g;

	if (world > MAXW || cs_grid_parse(res->grid, world, &g) != CS_OK) {
		bad("report case %d: grid '%s' for %d ranks", index, res->grid,
		    world);
		return;
	}
	case_sums(recs, n, world, index, bytes, calls, cb, cm);
	for (int r = 0; r < world; r++) {
		int64_t want = -1;
		if (pat->volume(pat, res->hc.pvariant, res->hc.c.dtype, seed,
				&g, r, &want) != CS_OK)
			bad("case %d: %s's volume() failed", index, pat->name);
		else if (want != bytes[r])
			bad("%s/%s %s on %s, rank %d: %lld bytes logged, the "
			    "closed form says %lld", pat->name,
			    cs_hcase_variant(&res->hc),
			    cs_dtype_name(res->hc.c.dtype), res->grid, r,
			    bytes[r], (long long)want);
	}
	expected_volume(pat, calls, cb, cm, vol, sizeof vol);
	if (strcmp(vol, res->volume) != 0)
		bad("case %d: the report's volume '%s', the log's '%s'", index,
		    res->volume, vol);
}

int main(int argc, char **argv)
{
	static rec_t recs[MAXREC];
	static char line[1 << 16];
	static cs_result_t res;
	size_t n = 0, ncases = 0;
	unsigned long long seed;
	FILE *log, *rep;

	if (argc != 5 || strcmp(argv[1], "--seed") ||
	    sscanf(argv[2], "%llu", &seed) != 1) {
		fprintf(stderr, "usage: check_commlog --seed N COMMLOG "
			"REPORT.json\n");
		return 2;
	}
	if (!(log = fopen(argv[3], "r")) || !(rep = fopen(argv[4], "r"))) {
		perror("check_commlog");
		return 2;
	}
	while (n < MAXREC && fgets(line, sizeof line, log))
		if (parse_line(line, &recs[n]))
			n++;
	while (fgets(line, sizeof line, rep)) {
		if (cs_result_from_json(line, &res) != CS_OK) {
			bad("unreadable report line: %s", cs_last_error());
			continue;
		}
		if (!res.hc.pattern || res.verdict != CS_V_PASS)
			continue;
		check_case(&res, recs, n, seed);
		ncases++;
	}
	fclose(log);
	fclose(rep);
	printf("check_commlog: %zu records, %zu passing pattern cases, %d "
	       "differences\n", n, ncases, errors);
	return errors || !ncases || !n ? 1 : 0;
}
