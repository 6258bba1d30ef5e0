/*
 * report_junit.c - the report's JUnit XML document (--junit): one
 * <testcase> per result, written in place so that the document is closed
 * and its counts current after every case (report.c's top comment says
 * why). Whatever bytes a result's strings hold, the document is
 * well-formed XML (xml_put).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/case.h"
#include "base/json.h"
#include "base/names.h"
#include "suite/patsuite.h"
#include "report/report_impl.h"
#include "base/result.h"
#include "suite/suite.h"

#define JUNIT_HEADER_WIDTH 160 /* the start tag, but the suite's name */

/* ---- checked writes ------------------------------------------------------- */

static bool junit_ok(cs_report_t *r)
{
	return cs_report_io_ok(r->junit, &r->junit_bad, "JUnit", r->o.junit);
}

/* Move to offset off of the JUnit file: true when there, false when the
 * file has failed (now or before). */
static bool junit_seek_ok(cs_report_t *r, long off)
{
	if (r->junit_bad)
		return false;
	if (fseek(r->junit, off, SEEK_SET) == 0)
		return true;
	cs_report_io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	return false;
}

/* ---- XML ----------------------------------------------------------------- */

/*
 * Write s as XML character data, or with attr as an attribute value:
 * markup characters escaped, carriage return (and in an attribute, where a
 * parser would make them spaces, tab and newline) as character references,
 * valid UTF-8 copied, and every byte XML 1.0 cannot hold (other control
 * bytes, bytes that are not valid UTF-8, U+FFFE and U+FFFF) as U+FFFD, the
 * replacement character.
 */
static void xml_put(FILE *f, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *esc;
	int len;

	for (; *p; p += len ? len : 1) {
		len = cs_utf8_len((const char *)p);
		esc = *p == '&' ? "&amp;" : *p == '<' ? "&lt;"
		      : *p == '>' ? "&gt;" : *p == '"' ? "&quot;"
		      : *p == '\'' ? "&apos;"
		      : *p == '\r' ? "&#13;" : !attr ? NULL
		      : *p == '\t' ? "&#9;" : *p == '\n' ? "&#10;" : NULL;
		if (esc)
			fputs(esc, f);
		else if (!len || (*p < 0x20 && *p != '\t' && *p != '\n') ||
			 (len == 3 && p[0] == 0xef && p[1] == 0xbf &&
			  p[2] >= 0xbe))
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(p, 1, (size_t)len, f);
	}
}

/* s XML-escaped for an attribute, malloc'ed; NULL when out of memory. */
char *cs_report_xml_string(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	xml_put(f, s, 1);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The <testsuite> start tag, always r->header_width bytes: wide enough for
 * the suite's name and every count at 20 digits, so it is never cut. */
static void junit_header(cs_report_t *r)
{
	size_t w = r->header_width;
	char *tag = malloc(w + 1);
	int len;

	if (!tag) {
		cs_report_io_failed(&r->junit_bad, "JUnit", r->o.junit, ENOMEM);
		return;
	}
	len = snprintf(tag, w + 1, "<testsuite name=\"collspec.%s\" "
		       "tests=\"%zu\" failures=\"%zu\" errors=\"%d\" "
		       "skipped=\"%zu\" time=\"%.3f\"", r->suite_name,
		       r->done + (size_t)r->errors + (size_t)r->run_fails,
		       r->all[CS_V_FAIL] + r->all[CS_V_XPASS] +
			       (size_t)r->run_fails, r->errors,
		       r->all[CS_V_SKIP] + r->all[CS_V_XFAIL],
		       cs_report_wall_seconds(r));
	if (len < 0 || (size_t)len > w - 2)
		len = 0; /* (impossible by the width) */
	memset(tag + len, ' ', w - 1 - (size_t)len);
	tag[w - 2] = '>';
	tag[w - 1] = '\n';
	if (junit_seek_ok(r, r->junit_header))
		fwrite(tag, 1, w, r->junit);
	free(tag);
}

/* Close the document after the body, then refresh the counts. */
static void junit_seal(cs_report_t *r)
{
	if (!junit_seek_ok(r, r->junit_body_end))
		return;
	fputs("</testsuite>\n</testsuites>\n", r->junit);
	junit_header(r);
	(void)junit_ok(r); /* (a failure is said, and kept for the close) */
}

/* Where the body ends now (after a testcase was written). */
static void junit_mark_end(cs_report_t *r)
{
	long end = ftell(r->junit);

	if (end < 0)
		cs_report_io_failed(&r->junit_bad, "JUnit", r->o.junit, errno);
	else
		r->junit_body_end = end;
}

void cs_report_junit_open_body(cs_report_t *r)
{
	r->header_width = JUNIT_HEADER_WIDTH + strlen(r->suite_name);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
	      "name=\"collspec\">\n", r->junit);
	r->junit_header = ftell(r->junit);
	junit_header(r);
	junit_mark_end(r);
	junit_seal(r);
}

/*
 * A FAIL as <failure type="CHECK">, an XPASS as <failure type="xpass">, a
 * SKIP as <skipped type="skip">, an XFAIL as <skipped type="xfail"> whose
 * message is "known failure (CHECK): REASON"; the text is the detail, and
 * for all but SKIP the re-run line.
 */
static void junit_outcome(cs_report_t *r, const cs_result_t *res)
{
	int v = res->verdict;
	int fail = v == CS_V_FAIL || v == CS_V_XPASS;

	fputs(fail ? "    <failure type=\"" : "    <skipped type=\"", r->junit);
	xml_put(r->junit, v == CS_V_XPASS ? "xpass" : v == CS_V_XFAIL ? "xfail"
			  : res->check, 1);
	fputs("\" message=\"", r->junit);
	if (v == CS_V_XFAIL) {
		fputs("known failure (", r->junit);
		xml_put(r->junit, res->check, 1);
		fputs("): ", r->junit);
	}
	xml_put(r->junit, res->reason, 1);
	fputs("\">", r->junit);
	xml_put(r->junit, res->detail, 0);
	if (v != CS_V_SKIP) {
		fputs("\nre-run: ", r->junit);
		xml_put(r->junit, res->repro, 0);
	}
	fputs(fail ? "</failure>\n" : "</skipped>\n", r->junit);
}

void cs_report_junit_case(cs_report_t *r, const cs_result_t *res)
{
	char name[256];

	if (!junit_seek_ok(r, r->junit_body_end))
		return;
	if (res->hc.pattern)
		cs_hcase_pattern_label(&res->hc, name, sizeof name);
	else
		cs_case_format(&res->hc.c, name, sizeof name);
	fprintf(r->junit, "  <testcase classname=\"collspec.%s\" name=\"#%zu ",
		res->hc.pattern ? "pattern" : cs_coll_name(res->hc.c.coll),
		res->hc.index);
	xml_put(r->junit, name, 1);
	fprintf(r->junit, " inplace=%d comm=%s misalign=%d\" time=\"%.6f\">\n",
		res->hc.inplace, cs_commvar_name(res->hc.comm), res->hc.misalign,
		res->seconds);
	if (res->verdict == CS_V_FAIL || res->verdict == CS_V_SKIP ||
	    res->verdict == CS_V_XFAIL || res->verdict == CS_V_XPASS) {
		junit_outcome(r, res);
	} else if (res->verdict != CS_V_PASS || res->info[0]) {
		fprintf(r->junit, "    <system-out>%s ",
			cs_verdict_name(res->verdict));
		xml_put(r->junit, res->check, 0);
		fputs(": ", r->junit);
		xml_put(r->junit, res->reason, 0);
		fputc(' ', r->junit);
		xml_put(r->junit, res->info, 0);
		fputs("</system-out>\n", r->junit);
	}
	fputs("  </testcase>\n", r->junit);
	junit_mark_end(r);
	junit_seal(r);
}

void cs_report_junit_run_entry(cs_report_t *r, int fail, const char *name,
			       const char *check, const char *why)
{
	if (!junit_seek_ok(r, r->junit_body_end))
		return;
	if (fail)
		r->run_fails++;
	else
		r->errors++;
	fprintf(r->junit, "  <testcase classname=\"collspec.run\" "
		"name=\"%s\">\n", name);
	if (fail)
		fprintf(r->junit, "    <failure type=\"%s\" message=\"",
			check);
	else
		fputs("    <error message=\"", r->junit);
	xml_put(r->junit, why, 1);
	fputs("\"/>\n  </testcase>\n", r->junit);
	junit_mark_end(r);
	junit_seal(r);
}
