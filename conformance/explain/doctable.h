/*
 * doctable.h - Markdown tables of the docs, printed from the registries
 * (`collspec doc-table NAME`). scripts/doc-tables.sh puts each one between
 * the markers `<!-- collspec:table NAME -->` and `<!-- /collspec:table -->`
 * of the pages under docs/ and README.md, and the test docs_tables fails
 * when a page holds another text than the registry gives.
 *
 * The tables depend on the registries only, never on what this collspec
 * was built with, so every build prints the same pages.
 */
#ifndef CS_DOCTABLE_H
#define CS_DOCTABLE_H

#include <stdio.h>

/* One Markdown table row: "| c0 | c1 | ... |" and a newline. A '|' in a
 * cell is written "\|"; a newline or tab, a blank. */
void cs_md_row(FILE *out, int ncells, const char *const *cells);

/* The header line and the "|---|" line of a table with ncols columns. */
void cs_md_header(FILE *out, int ncols, const char *const *names);

/* The check registry (check_registry.h): check, verdict, priority, set by, what
 * breaks it. */
void cs_doc_table_checks(FILE *out);

/* The backends (backends/registry.c's table, then plugin:PATH): backend, what it
 * runs, process model, what building it needs. */
void cs_doc_table_backends(FILE *out);

/* Not a table: the names an expectations entry's --check takes
 * (cs_expect_check_name), one line of code spans. */
void cs_doc_table_expect_checks(FILE *out);

/* The suites (suite.h's registry): name, purpose, how the cases are
 * chosen. */
void cs_doc_table_suites(FILE *out);

#endif /* CS_DOCTABLE_H */
