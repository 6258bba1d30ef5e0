/*
 * hcase.h - one harness case (cs_hcase_t) and the command line's filters
 * (cs_filter_t): the type every stage of a run passes on, from the suite
 * that makes the cases to the report that prints them (hcase.c).
 */
#ifndef CS_HCASE_H
#define CS_HCASE_H

#include <stddef.h>
#include <stdint.h>
#include "csref/a2av.h"
#include "csref/case.h"
#include "csref/pattern.h"
#include "base/names.h"

/* One harness case: a semantic case (cs_case_t) plus how the call is made.
 * c.nranks is the WORLD size the case is meant for; the worker sets the
 * communicator's own size when it runs the case on a sub-communicator.
 * c.a2av_counts is NULL here; the worker builds the matrix from
 * a2av_pattern with cs_a2av_matrix for the communicator's size. */
typedef struct cs_hcase {
  cs_case_t c;
  int inplace;                    /* 1: NCCL in-place pointer convention */
  cs_commvar_t comm;
  int misalign;                   /* buffers offset by this many elements */
  cs_a2av_pattern_t a2av_pattern; /* alltoallv only */
  size_t index;                   /* position in the suite, 0-based */
  /* A pattern case (suite `patterns`, spec/patterns.md): 1 + the index of
   * its pattern in the registry (csref/pattern.h), 0 for a collective
   * case. A pattern case uses c.dtype, c.nranks and c.seed only; c.coll
   * is CS_NUM_COLLS ("pattern" in reports). */
  int pattern;
  int pvariant;                   /* the index of its variant */
} cs_hcase_t;

/* Filters from the command line; an empty set means "all". */
typedef struct cs_filter {
  uint32_t colls, dtypes, ops, modes, comms, a2av; /* bit masks, 0 = all */
  size_t counts[32];
  int ncounts;       /* 0 = the suite's own counts */
  int inplace;       /* -1 both, 0 out-of-place only, 1 in-place only */
  int root;          /* -1 the suite's roots */
  int misalign;      /* -1 the suite's choice */
  int has_seed;
  uint64_t seed;
  uint32_t patterns; /* suite patterns: bit i keeps registry pattern i */
  char variant[32];  /* suite patterns: "" all, else this variant only */
} cs_filter_t;

/* *f as "no filter": every mask empty, no counts, no seed, in-place, root
 * and misalignment -1. */
void cs_filter_init(cs_filter_t *f);

/* The pattern of case hc, NULL for a collective case. */
const cs_pattern_t *cs_hcase_pattern(const cs_hcase_t *hc);

/* The name of hc's variant ("?" for a collective case). */
const char *cs_hcase_variant(const cs_hcase_t *hc);

/* "pattern NAME/VARIANT" written into buf[0..n): a case's label in the
 * reports. */
void cs_hcase_pattern_label(const cs_hcase_t *hc, char *buf, size_t n);

#endif /* CS_HCASE_H */
