/*
 * doctable.c - Markdown tables printed from the registries (doctable.h).
 */
#include <stdio.h>
#include "base/check_registry.h"
#include "backends/registry.h"
#include "explain/doctable.h"
#include "report/expect.h"
#include "suite/suite.h"

/* s with '|' escaped and line breaks as blanks: one Markdown cell. */
static void md_cell(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

void cs_md_row(FILE *out, int ncells, const char *const *cells)
{
	int i;

	fputc('|', out);
	for (i = 0; i < ncells; i++) {
		fputc(' ', out);
		md_cell(out, cells[i]);
		fputs(" |", out);
	}
	fputc('\n', out);
}

void cs_md_header(FILE *out, int ncols, const char *const *names)
{
	int i;

	cs_md_row(out, ncols, names);
	fputc('|', out);
	for (i = 0; i < ncols; i++)
		fputs("---|", out);
	fputc('\n', out);
}

void cs_doc_table_checks(FILE *out)
{
	static const char *const head[5] = {"check", "verdict", "priority",
					    "set by", "what breaks it"};
	const cs_check_info_t *c;
	char name[48], verdicts[64], prio[16];
	const char *cell[5] = {name, verdicts, prio, NULL, NULL};
	size_t i;

	cs_md_header(out, 5, head);
	for (i = 0; (c = cs_check_at(i)) != NULL; i++) {
		snprintf(name, sizeof name, "`%s`", c->name);
		cs_check_verdicts_text(c, verdicts, sizeof verdicts);
		if (c->prio == CS_CHECK_UNRANKED)
			snprintf(prio, sizeof prio, "-");
		else
			snprintf(prio, sizeof prio, "%d", c->prio);
		cell[3] = c->setter;
		cell[4] = c->desc;
		cs_md_row(out, 5, cell);
	}
}

void cs_doc_table_expect_checks(FILE *out)
{
	const char *name;
	int i;

	for (i = 0; (name = cs_expect_check_name(i)) != NULL; i++)
		fprintf(out, "%s`%s`", i ? " " : "", name);
	fputc('\n', out);
}

void cs_doc_table_backends(FILE *out)
{
	static const char *const head[4] = {"backend", "what it runs",
					    "process model", "build needs"};
	cs_backend_row_t b;
	char name[64];
	const char *cell[4] = {name, NULL, NULL, NULL};
	size_t i;

	cs_md_header(out, 4, head);
	for (i = 0; cs_backend_row(i, &b); i++) {
		snprintf(name, sizeof name, "`%s`", b.name);
		cell[1] = b.runs;
		cell[2] = b.model;
		cell[3] = b.needs ? b.needs : "-";
		cs_md_row(out, 4, cell);
	}
}

void cs_doc_table_suites(FILE *out)
{
	static const char *const head[3] = {"suite", "what it is for",
					    "how its cases are chosen"};
	const cs_suite_info_t *si;
	char name[64];
	const char *cell[3] = {name, NULL, NULL};
	size_t i;

	cs_md_header(out, 3, head);
	for (i = 0; (si = cs_suite_at(i)) != NULL; i++) {
		snprintf(name, sizeof name, "`%s`", si->name);
		cell[1] = si->desc;
		cell[2] = si->cases;
		cs_md_row(out, 3, cell);
	}
}
