/*
 * model_train.c - `collspec model --train`: the training communication
 * calculator's command line (csref/train.h does the arithmetic): bytes
 * and time per step per group and collective, the dominant group, the
 * bucket sweep of the gradient overlap, the MoE router's imbalance.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "csref/train.h"
#include "csref/train_mem.h"
#include "model/model.h"

static const char train_usage[] =
"usage: collspec model --train [shape] [layout] [machine] [--memory]\n"
"                             [--json]\n"
"\n"
"The collectives of one training step of a transformer, per group: calls,\n"
"bytes per rank (spec/patterns.md 3.1) and time with the cost model, the\n"
"group that dominates, the overlap of bucketed gradient reduction with the\n"
"backward, and the MoE router's imbalance (docs/model.md section 4).\n"
"shape:   --layers N (24) --hidden N (2048) --ffn N (4 hidden) --heads N\n"
"         (16) --seq N (2048) --micro-batch N (1) --vocab N (0: none)\n"
"         --experts N (0: dense) --topk K (2) --capacity CF (1.25)\n"
"         --dtype NAME (bfloat16)\n"
"layout:  --dp --tp --pp --ep --cp N (1; ep divides dp) --sp (Megatron\n"
"         sequence parallelism on tp) --zero 0..3 (0) --zero1 ar|rs (ar:\n"
"         ZeRO-1 reduces gradients by allreduce; rs: by reducescatter, as\n"
"         the ZeRO paper) --micro-batches M (8)\n"
"         --bucket-mb L (25; a list sweeps the overlap) --bwd-ms T (100:\n"
"         backward compute of one micro-batch) --skew Z (0: router skew)\n"
"machine: --alpha US (1) --bw GBPS (10) --gamma-bw GBPS (100), or\n"
"         --fit-from BENCH.json (alpha, beta of its first allreduce fit)\n"
"--memory: instead of the collectives, memory per rank under ZeRO 0, 1,\n"
"         2, 3 and FSDP: parameters, gradients, Adam's optimizer states,\n"
"         activations (docs/model.md 4.8 states the assumptions)\n"
"--json:  one object per line, \"kind\": \"item\", \"group\", \"total\",\n"
"         \"overlap\", \"moe\" or \"memory\" (docs/model.md 4.7, 4.8)\n";

#define MAX_BUCKETS 32

struct train_args {
	cs_train_cfg_t cfg;
	cs_model_machine_t mm;
	const char *fit_from;
	double buckets[MAX_BUCKETS];
	int nbuckets, json, ffn_set, memory;
};

/* The integer options: name, field, range. */
static long *long_field(struct train_args *a, const char *o, long *hi)
{
	static const struct { const char *name; size_t off; long hi; } t[] = {
		{"--layers", offsetof(cs_train_cfg_t, layers), 100000},
		{"--hidden", offsetof(cs_train_cfg_t, hidden), 1L << 20},
		{"--ffn", offsetof(cs_train_cfg_t, ffn), 1L << 22},
		{"--heads", offsetof(cs_train_cfg_t, heads), 1L << 16},
		{"--seq", offsetof(cs_train_cfg_t, seq), 1L << 24},
		{"--micro-batch", offsetof(cs_train_cfg_t, mbs), 1L << 20},
		{"--vocab", offsetof(cs_train_cfg_t, vocab), 1L << 24},
		{"--experts", offsetof(cs_train_cfg_t, experts), 1L << 16},
		{"--topk", offsetof(cs_train_cfg_t, topk), 1L << 16},
		{"--micro-batches", offsetof(cs_train_cfg_t, micro_batches),
		 1L << 20},
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(o, t[i].name)) {
			*hi = t[i].hi;
			return (long *)((char *)&a->cfg + t[i].off);
		}
	return NULL;
}

static int *int_field(struct train_args *a, const char *o, long *hi)
{
	*hi = !strcmp(o, "--dp") ? 1L << 20 : !strcmp(o, "--zero") ? 3 : 4096;
	return !strcmp(o, "--dp") ? &a->cfg.dp : !strcmp(o, "--tp") ?
	       &a->cfg.tp : !strcmp(o, "--pp") ? &a->cfg.pp :
	       !strcmp(o, "--ep") ? &a->cfg.ep : !strcmp(o, "--cp") ?
	       &a->cfg.cp : !strcmp(o, "--zero") ? &a->cfg.zero : NULL;
}

/* --bucket-mb: a comma list of sizes in MiB. */
static cs_status_t parse_bucket_list(const char *arg, struct train_args *a)
{
	char buf[CS_CLI_MAX_LIST + 1], *tok, *save = NULL;
	cs_status_t st;

	if (!*arg || strlen(arg) > CS_CLI_MAX_LIST || strstr(arg, ",,") ||
	    arg[0] == ',' || arg[strlen(arg) - 1] == ',')
		return cs_error(CS_ERR_INVALID, "--bucket-mb '%s': expected a "
				"comma list of sizes in MiB", arg);
	snprintf(buf, sizeof buf, "%s", arg);
	a->nbuckets = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (a->nbuckets == MAX_BUCKETS)
			return cs_error(CS_ERR_INVALID, "--bucket-mb: at most "
					"%d sizes", MAX_BUCKETS);
		st = cs_model_parse_num("--bucket-mb", tok, 1e-6, 1 << 20,
					&a->buckets[a->nbuckets++]);
		if (st != CS_OK)
			return st;
	}
	a->cfg.bucket_mb = a->buckets[0];
	return CS_OK;
}

/* One valued option o = v; CS_ERR_INVALID when o is unknown. */
static cs_status_t value_opt(struct train_args *a, const char *o,
			     const char *v)
{
	long hi, x;
	long *lf = long_field(a, o, &hi);
	int *inf = lf ? NULL : int_field(a, o, &hi);
	cs_status_t st;

	if (lf || inf) {
		st = cs_parse_int(o, v, inf && strcmp(o, "--zero") ? 1 : 0, hi,
				  &x);
		if (st == CS_OK && lf)
			*lf = x;
		else if (st == CS_OK)
			*inf = (int)x;
		a->ffn_set |= !strcmp(o, "--ffn");
		return st;
	}
	if (!strcmp(o, "--capacity"))
		return cs_model_parse_num(o, v, 1e-6, 1024, &a->cfg.capacity);
	if (!strcmp(o, "--bwd-ms"))
		return cs_model_parse_num(o, v, 0, 1e9, &a->cfg.bwd_ms);
	if (!strcmp(o, "--skew"))
		return cs_model_parse_num(o, v, 0, 1e6, &a->cfg.skew);
	if (!strcmp(o, "--bucket-mb"))
		return parse_bucket_list(v, a);
	if (!strcmp(o, "--dtype"))
		return cs_dtype_parse(v, &a->cfg.dtype);
	if (!strcmp(o, "--zero1")) {
		a->cfg.zero1_rs = !strcmp(v, "rs");
		return a->cfg.zero1_rs || !strcmp(v, "ar") ? CS_OK :
		       cs_error(CS_ERR_INVALID, "--zero1 '%s': expected ar "
				"(allreduce + allgather) or rs (reducescatter "
				"+ allgather)", v);
	}
	if (!strcmp(o, "--fit-from")) {
		a->fit_from = v;
		return CS_OK;
	}
	return cs_error(CS_ERR_INVALID, "unexpected argument '%s' (see "
			"collspec model --train --help)", o);
}

static int train_args(int argc, char **argv, struct train_args *a)
{
	int i, r;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if ((r = cs_model_machine_opt(argc, argv, &i, &a->mm)) != 0) {
			if (r < 0)
				return -1;
			continue;
		}
		if (!strcmp(o, "--train") || !strcmp(o, "--sp") ||
		    !strcmp(o, "--json") || !strcmp(o, "--memory")) {
			a->cfg.sp |= !strcmp(o, "--sp");
			a->memory |= !strcmp(o, "--memory");
			a->json |= !strcmp(o, "--json");
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "collspec model: '%s' needs a value or "
				"is unknown (see collspec model --train "
				"--help)\n", o);
			return -1;
		}
		if (value_opt(a, o, argv[++i]) != CS_OK) {
			fprintf(stderr, "collspec model: %s\n", cs_last_error());
			return -1;
		}
	}
	if (!a->ffn_set)
		a->cfg.ffn = 4 * a->cfg.hidden;
	return 0;
}

/* --fit-from: alpha and beta of the file's first allreduce fit (else its
 * first fit); gamma is in the fitted beta, so it is taken as 0. */
static int machine_from_fit(struct train_args *a)
{
	static cs_model_fit_t fits[64];
	size_t n, i, pick = 0;

	if (cs_model_fit_file(a->fit_from, 0, 0, CS_ALGO_RING, 3, fits, 64,
			      &n) != CS_OK) {
		fprintf(stderr, "collspec model: --fit-from: %s\n",
			cs_last_error());
		return -1;
	}
	for (i = n; i-- > 0;)
		if (fits[i].coll == CS_COLL_ALLREDUCE)
			pick = i;
	if (!(fits[pick].beta_s > 0) || fits[pick].alpha_s < 0) {
		fprintf(stderr, "collspec model: --fit-from: the fit of %s %s "
			"is not physical (alpha %g us, beta %g ns/B)\n",
			fits[pick].series, cs_coll_name(fits[pick].coll),
			fits[pick].alpha_s * 1e6, fits[pick].beta_s * 1e9);
		return -1;
	}
	a->mm.alpha_us = fits[pick].alpha_s * 1e6;
	a->mm.bw_GBps = 1e-9 / fits[pick].beta_s;
	a->mm.gamma_GBps = INFINITY;
	if (!a->json)
		printf("# machine from %s: series %s, %s fit\n", a->fit_from,
		       fits[pick].series, cs_coll_name(fits[pick].coll));
	return 0;
}

static void print_header(const struct train_args *a, double dense,
			 double expert)
{
	const cs_train_cfg_t *c = &a->cfg;

	if (a->json)
		return;
	printf("# model: %ld layers, hidden %ld, ffn %ld, heads %ld, seq %ld, "
	       "micro-batch %ld, vocab %ld, experts %ld (top-%ld, capacity "
	       "%g), %s\n# layout: dp %d tp %d pp %d ep %d cp %d, sp %s, "
	       "zero %d%s, %ld micro-batches, buckets %g MiB\n# params per "
	       "rank (stage 0): dense %.0f, expert %.0f\n# machine: alpha "
	       "%g us, bw %g GB/s, gamma-bw %g GB/s\n", c->layers, c->hidden,
	       c->ffn, c->heads, c->seq, c->mbs, c->vocab, c->experts,
	       c->topk, c->capacity, cs_dtype_name(c->dtype), c->dp, c->tp,
	       c->pp, c->ep, c->cp, c->sp ? "on" : "off", c->zero,
	       c->zero != 1 ? "" : c->zero1_rs ? " (reducescatter + allgather)"
					       : " (allreduce + allgather)",
	       c->micro_batches, c->bucket_mb, dense, expert,
	       a->mm.alpha_us, a->mm.bw_GBps, a->mm.gamma_GBps);
	if (a->memory)
		return;
	printf("%-5s %5s %-13s %-5s %-13s %8s %14s %16s %12s\n", "group",
	       "P", "coll", "phase", "what", "calls", "size_B",
	       "bytes/rank", "time_ms");
}

static void print_item(const cs_train_item_t *x, int json)
{
	if (json)
		printf("{\"kind\":\"item\",\"group\":\"%s\",\"P\":%d,"
		       "\"coll\":\"%s\",\"algo\":\"%s\",\"phase\":\"%s\","
		       "\"what\":\"%s\",\"calls\":%.0f,\"size\":%.0f,"
		       "\"bytes\":%.0f,\"time_ms\":%.6g}\n", x->group, x->P,
		       cs_coll_name(x->coll),
		       cs_algo_name(cs_cost_default_algo(x->coll)), x->phase,
		       x->what, x->calls, x->size, x->bytes, x->time_s * 1e3);
	else
		printf("%-5s %5d %-13s %-5s %-13s %8.0f %14.0f %16.0f "
		       "%12.3f\n", x->group, x->P, cs_coll_name(x->coll),
		       x->phase, x->what, x->calls, x->size, x->bytes,
		       x->time_s * 1e3);
}

/* Per-group sums in the order groups first appear; the dominant one. */
static void print_groups(const cs_train_item_t *it, size_t n, int json)
{
	double total = 0, best = -1;
	const char *top = "none";
	size_t i, j;

	for (i = 0; i < n; i++) {
		double b = 0, t = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(it[j].group, it[i].group))
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++)
			if (!strcmp(it[j].group, it[i].group)) {
				b += it[j].bytes;
				t += it[j].time_s;
			}
		total += t;
		if (t > best) {
			best = t;
			top = it[i].group;
		}
		if (json)
			printf("{\"kind\":\"group\",\"group\":\"%s\","
			       "\"P\":%d,\"bytes\":%.0f,\"time_ms\":%.6g}\n",
			       it[i].group, it[i].P, b, t * 1e3);
		else
			printf("group %-5s P %-5d %16.0f bytes/rank/step %12.3f "
			       "ms\n", it[i].group, it[i].P, b, t * 1e3);
	}
	if (json)
		printf("{\"kind\":\"total\",\"time_ms\":%.6g,\"dominant\":"
		       "\"%s\"}\n", total * 1e3, top);
	else
		printf("total %.3f ms of communication per step (no overlap); "
		       "dominant group: %s\n", total * 1e3, top);
}

/* The overlap of the gradient buckets, one line per --bucket-mb size;
 * -1 after an error message. */
static int print_overlap(const struct train_args *a,
			 const cs_cost_params_t *m)
{
	cs_train_overlap_t o;
	cs_status_t st;
	int i;

	for (i = 0; i < a->nbuckets; i++) {
		st = cs_train_overlap(&a->cfg, a->buckets[i], m, &o);
		if (st == CS_ERR_UNDEFINED)
			return 0; /* nothing to overlap (dp 1, zero 3) */
		if (st != CS_OK) {
			fprintf(stderr, "collspec model: %s\n",
				cs_last_error());
			return -1;
		}
		if (a->json)
			printf("{\"kind\":\"overlap\",\"bucket_mb\":%g,"
			       "\"buckets\":%.0f,\"bwd_ms\":%g,\"comm_ms\":"
			       "%.6g,\"first_ms\":%.6g,\"end_ms\":%.6g,"
			       "\"exposed_ms\":%.6g}\n", a->buckets[i],
			       o.buckets, a->cfg.bwd_ms, o.comm_s * 1e3,
			       o.first_s * 1e3, o.end_s * 1e3,
			       o.exposed_s * 1e3);
		else
			printf("%s%12g %8.0f %10.3f %10.3f %10.3f %10.3f\n",
			       i ? "" : "overlap of the gradient buckets with "
			       "the last backward:\n  bucket_MiB  buckets  "
			       "comm_ms   first_ms     end_ms exposed_ms\n",
			       a->buckets[i], o.buckets, o.comm_s * 1e3,
			       o.first_s * 1e3, o.end_s * 1e3,
			       o.exposed_s * 1e3);
	}
	return 0;
}

static int print_moe(const struct train_args *a)
{
	cs_train_moe_t r;

	if (!a->cfg.experts)
		return 0;
	if (cs_train_moe(&a->cfg, &r) != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return -1;
	}
	if (a->json)
		printf("{\"kind\":\"moe\",\"skew\":%g,\"tokens\":%ld,"
		       "\"imbalance\":%.6g,\"dropped\":%.6g,"
		       "\"rank_skew\":%.6g,\"busiest\":%ld}\n", a->cfg.skew,
		       r.tokens, r.imbalance, r.dropped, r.rank_skew,
		       r.busiest);
	else
		printf("moe router at skew %g over %ld tokens: imbalance %.3f "
		       "(busiest expert %ld / mean), dropped %.2f%% at capacity %g, "
		       "busiest ep rank %.3f x the mean (a dropless all-to-all "
		       "takes that much longer)\n", a->cfg.skew, r.tokens,
		       r.imbalance, r.busiest, 100 * r.dropped, a->cfg.capacity,
		       r.rank_skew);
	return 0;
}

/* --memory: one row per sharding scheme, in GB (1e9 bytes) or, with
 * --json, bytes; -1 after an error message. */
static int print_memory(const struct train_args *a)
{
	const cs_train_cfg_t *c = &a->cfg;
	cs_train_mem_t m;
	int s;

	if (!a->json)
		printf("memory per rank, GB = 1e9 bytes (docs/model.md 4.8): "
		       "%zu bytes per parameter and per gradient, %d per "
		       "optimizer state; dense parameters sharded over dp %d, "
		       "expert ones over dp/ep %d; activations of the %ld "
		       "micro-batch(es) 1F1B keeps on the first stage, no "
		       "recomputation; --zero is not used here\n"
		       "%-6s %10s %10s %10s %10s %10s %12s\n",
		       cs_dtype_size(c->dtype), CS_TRAIN_MEM_K, c->dp,
		       c->dp / c->ep, c->micro_batches < c->pp ?
		       c->micro_batches : c->pp, "scheme", "params_GB",
		       "grads_GB", "optim_GB", "acts_GB", "total_GB",
		       "gathered_GB");
	for (s = 0; s < CS_TRAIN_MEM_NSCHEMES; s++) {
		if (cs_train_mem(c, s, &m) != CS_OK) {
			fprintf(stderr, "collspec model: %s\n",
				cs_last_error());
			return -1;
		}
		if (a->json)
			printf("{\"kind\":\"memory\",\"scheme\":\"%s\","
			       "\"params\":%.0f,\"grads\":%.0f,\"optim\":"
			       "%.0f,\"acts\":%.0f,\"total\":%.0f,"
			       "\"gathered\":%.0f}\n",
			       cs_train_mem_scheme_name(s), m.params, m.grads,
			       m.optim, m.acts, m.total, m.gathered);
		else
			printf("%-6s %10.3f %10.3f %10.3f %10.3f %10.3f "
			       "%12.3f\n", cs_train_mem_scheme_name(s),
			       m.params / 1e9, m.grads / 1e9, m.optim / 1e9,
			       m.acts / 1e9, m.total / 1e9, m.gathered / 1e9);
	}
	return 0;
}

int cs_model_train_main(int argc, char **argv)
{
	static struct train_args a;
	cs_train_item_t it[CS_TRAIN_MAX_ITEMS];
	cs_cost_params_t m;
	double dense, expert;
	size_t n, i;

	for (i = 1; i < (size_t)argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(train_usage, stdout);
			return 0;
		}
	memset(&a, 0, sizeof a);
	cs_train_defaults(&a.cfg);
	cs_model_machine_defaults(&a.mm);
	a.buckets[a.nbuckets++] = a.cfg.bucket_mb;
	if (train_args(argc, argv, &a) < 0)
		return 2;
	if (cs_train_check(&a.cfg) != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return 2;
	}
	if (a.fit_from && machine_from_fit(&a) < 0)
		return 2;
	m = cs_model_params(&a.mm);
	if (cs_train_items(&a.cfg, &m, it, &n) != CS_OK) {
		fprintf(stderr, "collspec model: %s\n", cs_last_error());
		return 2;
	}
	cs_train_params(&a.cfg, &dense, &expert);
	print_header(&a, dense, expert);
	if (a.memory)
		return print_memory(&a) < 0 ? 2 : 0;
	for (i = 0; i < n; i++)
		print_item(&it[i], a.json);
	print_groups(it, n, a.json);
	if (print_overlap(&a, &m) < 0)
		return 2;
	return print_moe(&a) < 0 ? 2 : 0;
}
