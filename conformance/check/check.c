/*
 * check.c - the checks one rank makes alone after each call of a case
 * (exec.c made its buffers): guard bytes, the send buffer untouched,
 * regions that must stay unwritten (canaries), the value of every received
 * element against the oracle, and, on a repeated call, the bytes of the
 * first call (determinism). Verdicts go into the rank's cs_local_t
 * (verdict.c); the checks across ranks are the worker's (worker.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/case.h"
#include "csref/compare.h"
#include "csref/stats.h"
#include "check/check.h"
#include "check/dcheck.h"
#include "check/exec.h"
#include "base/names.h"
#include "check/verdict.h"
#include "csgpu/device.h"
#include "csref/arith.h"
#include "csref/gen.h"
#include "csref/oracle.h"

/* Wrong elements listed in a FAIL's detail. */
#define DETAIL_ELEMS 4

/* "rank 3", "rank 3 (comm rank 1)", "the root (comm rank 0), in the share
 * checked by rank 2", and after the first call of a case with ", call 2 of
 * 3 (fresh inputs)" added. */
void cs_exec_who(const cs_exec_t *e, const cs_local_t *l, char *buf,
		 size_t n)
{
	char who[96], call[64] = "";

	if (e->result_of != e->rank)
		snprintf(who, sizeof who, "the root (comm rank %d), in the share "
			 "checked by rank %d", e->result_of, l->rank);
	else if (l->rank != l->comm_rank)
		snprintf(who, sizeof who, "rank %d (comm rank %d)", l->rank,
			 l->comm_rank);
	else
		snprintf(who, sizeof who, "rank %d", l->rank);
	if (e->call > 0)
		snprintf(call, sizeof call, ", call %d of %d (%s)", e->call + 1,
			 e->ncalls, cs_exec_call_fresh(e->call)
			 ? "fresh inputs" : "the inputs of call 1");
	snprintf(buf, n, "%s%s", who, call);
}


/* The receive buffer's contents before the call, as the oracle needs them
 * for elements the collective must not write. One exec is checked at a
 * time, so a file-scope pointer carries it into the callback. */
static const cs_exec_t *prior_exec;

static uint64_t prior_bits(size_t index)
{
	const cs_exec_t *e = prior_exec;
	size_t p = e->ro + index;

	if (e->nbuf == 1 && p >= e->so && p - e->so < e->send_n)
		return cs_gen_input(&e->c, e->rank, p - e->so);
	return cs_exec_canary_bits(e->c.dtype, p);
}

void cs_format_value(cs_dtype_t d, uint64_t bits, char *buf, size_t n)
{
	int hexw = 2 * (int)cs_dtype_size(d);

	if (cs_dtype_is_float(d))
		snprintf(buf, n, "%.9g (0x%0*llx)", cs_to_f64(d, bits), hexw,
			 (unsigned long long)bits);
	else if (cs_dtype_kind(d) == CS_KIND_SINT)
		snprintf(buf, n, "%lld", (long long)cs_int_value(d, bits));
	else
		snprintf(buf, n, "%llu", (unsigned long long)bits);
}

/* ---- checks --------------------------------------------------------------- */

static const char *buf_name(const cs_exec_t *e, int bi)
{
	if (e->nbuf == 1)
		return "in-place buffer";
	return bi == 0 ? "send buffer" : "receive buffer";
}

/* First differing byte of a guard region, or -1. */
static long guard_diff(const unsigned char *p, size_t n, int after)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (p[k] != cs_exec_guard_byte(k, after))
			return (long)k;
	return -1;
}

static void check_guards(const cs_exec_t *e, int bi, cs_local_t *l)
{
	const cs_gbuf_t *b = &e->buf[bi];
	size_t es = cs_dtype_size(e->c.dtype);
	long before = guard_diff(b->alloc, b->pre, 0);
	long after = guard_diff(b->data + b->elems * es, b->post, 1);
	char who[160], reason[256], detail[512];

	if (before < 0 && after < 0)
		return;
	cs_exec_who(e, l, who, sizeof who);
	if (after >= 0) {
		snprintf(reason, sizeof reason, "%s: %s written past its end",
			 who, buf_name(e, bi));
		snprintf(detail, sizeof detail, "%s: %s of %zu elements: byte "
			 "+%ld after element %zu changed from 0x%02x to 0x%02x",
			 who, buf_name(e, bi), b->elems, after, b->elems,
			 cs_exec_guard_byte((size_t)after, 1),
			 b->data[b->elems * es + (size_t)after]);
	} else {
		snprintf(reason, sizeof reason, "%s: %s written before its start",
			 who, buf_name(e, bi));
		snprintf(detail, sizeof detail, "%s: %s: byte -%zu before element "
			 "0 changed from 0x%02x to 0x%02x", who, buf_name(e, bi),
			 b->pre - (size_t)before, cs_exec_guard_byte((size_t)before, 0),
			 b->alloc[before]);
	}
	cs_local_set(l, CS_V_FAIL, "guard", reason, detail);
}

/* First element of [lo, hi) where buffer bi differs from want (elements of
 * the same buffer layout), or hi. */
static size_t first_diff(const cs_exec_t *e, int bi, const unsigned char *want,
			 size_t lo, size_t hi)
{
	cs_dtype_t d = e->c.dtype;
	const unsigned char *got = e->buf[bi].data;
	size_t es = cs_dtype_size(d), p;

	if (memcmp(want + lo * es, got + lo * es, (hi - lo) * es) == 0)
		return hi;
	for (p = lo; cs_load(d, want, p) == cs_load(d, got, p); p++)
		;
	return p;
}

/* Elements [lo, hi) of buffer bi must hold what they held before the call:
 * this rank's input (check "sendbuf") or the canary ("untouched"). */
static void check_unchanged(const cs_exec_t *e, int bi, size_t lo, size_t hi,
			    int input, cs_local_t *l)
{
	cs_dtype_t d = e->c.dtype;
	size_t es = cs_dtype_size(d), p;
	const unsigned char *want = cs_exec_image(e, bi);
	char who[160], reason[256], detail[512], ev[64], gv[64];

	if (!want) {
		cs_local_set(l, CS_V_FAIL, "harness", "out of memory for the "
			     "image of the buffers before the call", NULL);
		return;
	}
	l->elems += hi - lo;
	l->bytes += (hi - lo) * es;
	if ((p = first_diff(e, bi, want, lo, hi)) == hi)
		return;
	cs_exec_who(e, l, who, sizeof who);
	cs_format_value(d, cs_load(d, want, p), ev, sizeof ev);
	cs_format_value(d, cs_load(d, e->buf[bi].data, p), gv, sizeof gv);
	if (input) {
		snprintf(reason, sizeof reason, "%s: %s modified (input element "
			 "%zu)", who, buf_name(e, bi), p - e->so);
		snprintf(detail, sizeof detail, "%s: %s input element %zu: "
			 "expected %s (unchanged) got %s", who, buf_name(e, bi),
			 p - e->so, ev, gv);
		cs_local_set(l, CS_V_FAIL, "sendbuf", reason, detail);
		return;
	}
	snprintf(reason, sizeof reason, "%s: %s element %zu written, but the "
		 "collective must not write it on this rank", who,
		 buf_name(e, bi), p);
	snprintf(detail, sizeof detail, "%s: %s element %zu: expected 0x%llx "
		 "(left as it was) got 0x%llx", who, buf_name(e, bi), p,
		 (unsigned long long)cs_load(d, want, p),
		 (unsigned long long)cs_load(d, e->buf[bi].data, p));
	cs_local_set(l, CS_V_FAIL, "untouched", reason, detail);
}

/* The source element of received element `index` in each rank's input,
 * for collectives that reduce (SIZE_MAX otherwise). */
static size_t reduce_source(const cs_exec_t *e, size_t index)
{
	switch (e->c.coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		return index;
	case CS_COLL_REDUCESCATTER:
		return (size_t)e->rank * e->c.count + index;
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return (size_t)-1;
	}
}

/* "; inputs 1 2.5 -3" for small reductions, else "". */
static void format_inputs(const cs_exec_t *e, size_t index, char *buf,
			  size_t n)
{
	size_t src = reduce_source(e, index), used;
	char v[64];
	int q;

	buf[0] = '\0';
	if (src == (size_t)-1 || e->c.nranks > 8)
		return;
	used = (size_t)snprintf(buf, n, "; inputs");
	for (q = 0; q < e->c.nranks && used < n; q++) {
		cs_format_value(e->c.dtype, cs_gen_input(&e->c, q, src), v,
				sizeof v);
		used += (size_t)snprintf(buf + used, n - used, " %s", v);
	}
}

/* One line of a value failure. */
static size_t format_mismatch(const cs_exec_t *e, const cs_local_t *l,
			      const cs_mismatch_t *m, char *buf, size_t n)
{
	cs_dtype_t d = e->c.dtype;
	char who[160], ev[64], gv[64], in[256];

	cs_exec_who(e, l, who, sizeof who);
	cs_format_value(d, m->expected, ev, sizeof ev);
	cs_format_value(d, m->got, gv, sizeof gv);
	if (m->flags & CS_G_UNTOUCHED)
		return (size_t)snprintf(buf, n, "%s index %zu: gap element "
					"written: expected 0x%llx (left as it "
					"was) got %s\n", who, m->index,
					(unsigned long long)m->expected, gv);
	format_inputs(e, m->index, in, sizeof in);
	if (!cs_dtype_is_float(d))
		return (size_t)snprintf(buf, n, "%s index %zu: expected %s got "
					"%s (integers are exact)%s\n", who,
					m->index, ev, gv, in);
	if (m->flags & (CS_G_EXACT | CS_G_MOVED))
		return (size_t)snprintf(buf, n, "%s index %zu: expected %s got "
					"%s, exact result required, err %.3g = "
					"%.3g ulps%s\n", who, m->index, ev, gv,
					m->err, m->ulps, in);
	return (size_t)snprintf(buf, n, "%s index %zu: expected %s (S=%.17g) "
				"bound %.3g got %s, err %.3g = %.3g ulps%s\n",
				who, m->index, ev, m->s, m->bound, gv, m->err,
				m->ulps, in);
}

static void value_fail(const cs_exec_t *e, const cs_cmp_summary_t *s,
		       cs_local_t *l)
{
	char who[160], reason[256], detail[sizeof l->detail];
	size_t used = 0, i;

	detail[0] = '\0';
	for (i = 0; i < s->n_recorded && i < DETAIL_ELEMS; i++)
		if (used < sizeof detail)
			used += format_mismatch(e, l, &s->first[i], detail + used,
						sizeof detail - used);
	cs_exec_who(e, l, who, sizeof who);
	snprintf(reason, sizeof reason, "%s: %zu of %zu received elements "
		 "wrong (first at index %zu)", who, s->n_wrong, s->n,
		 s->n_recorded ? s->first[0].index : 0);
	cs_local_set(l, CS_V_FAIL, "value", reason, detail);
}

/*
 * The part of the receive range this rank verifies against the oracle. For
 * collectives that hand every rank the same result, the ranks split the
 * range and each verifies its share: the cross-rank identity check (every
 * rank's whole range compared with every other's by a fingerprint keyed
 * after the calls: khash.c) then carries every verified element to every rank, so each
 * element is computed by the oracle once, not P times. Elsewhere a rank
 * verifies its whole range.
 */
static void check_slice(const cs_exec_t *e, size_t n, size_t *lo,
			size_t *end)
{
	size_t P = (size_t)e->c.nranks, r = (size_t)e->rank;

	*lo = 0;
	*end = n;
	if (!cs_coll_same_everywhere(e->c.coll) && !e->share_root)
		return;
	if (P < 2)
		return;
	*lo = n / P * r + (r < n % P ? r : n % P);
	*end = *lo + n / P + (r < n % P);
}

/* Elements [lo, end) of the receive range that comm rank `of` holds (got:
 * its element 0) against the oracle; the verdict goes to l. */
static void check_result(const cs_exec_t *e, int of, const unsigned char *got,
			 size_t lo, size_t end, cs_local_t *l)
{
	size_t es = cs_dtype_size(e->c.dtype), i;
	cs_cmp_summary_t s;
	cs_status_t st;
	int stats = cs_exec_stats_call(e);

	/* where the data is first: a range found right there is done */
	if (cs_exec_dcheck_pass(e, of, got, lo, end, l))
		return;
	cs_cmp_summary_init(&s);
	prior_exec = e;
	/* oracle, comparison and statistics in one pass (ref/oracle.c) */
	st = cs_oracle_check(&e->c, of, lo, end - lo, prior_bits, got + lo * es,
			     lo, &s, stats ? &l->stats : NULL);
	if (st != CS_OK) {
		cs_local_set(l, CS_V_FAIL, "oracle", cs_last_error(), NULL);
		return;
	}
	for (i = 0; i < CS_NUM_OBS; i++)
		l->obs[i] += s.obs[i];
	l->elems += end - lo;
	l->bytes += (end - lo) * es;
	l->wrong += s.n_wrong;
	if (s.n_wrong)
		value_fail(e, &s, l);
}

static void check_recv(const cs_exec_t *e, cs_local_t *l)
{
	size_t lo, end;

	check_slice(e, e->recv_n, &lo, &end);
	check_result(e, e->rank, cs_exec_recvp(e), lo, end, l);
}

void cs_exec_check_root_share(cs_exec_t *e, const void *got, cs_local_t *l)
{
	int root = e->c.root;
	size_t lo, end;

	e->result_of = root;
	check_slice(e, cs_case_recv_count(&e->c, root), &lo, &end);
	check_result(e, root, got, lo, end, l);
	e->result_of = e->rank;
}

enum span_kind { SPAN_RECV, SPAN_INPUT, SPAN_CANARY, SPAN_FREE };

static int in_range(size_t p, size_t lo, size_t n)
{
	return p >= lo && p - lo < n;
}

/* Sorted cut points of buffer bi: 0, its end and every range boundary. */
static int cuts_of(const cs_exec_t *e, int bi, size_t cut[6])
{
	size_t L = e->buf[bi].elems, t;
	int n = 0, i, j;

	cut[n++] = 0;
	cut[n++] = L;
	if (bi == 0)
		cut[n++] = e->so, cut[n++] = e->so + e->send_n;
	if (bi == e->nbuf - 1)
		cut[n++] = e->ro, cut[n++] = e->ro + e->recv_n;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--)
			t = cut[j], cut[j] = cut[j - 1], cut[j - 1] = t;
	return n;
}

static enum span_kind kind_at(const cs_exec_t *e, int bi, size_t p)
{
	if (bi == e->nbuf - 1 && in_range(p, e->ro, e->recv_n))
		return SPAN_RECV;
	if (bi == 0 && in_range(p, e->so, e->send_n))
		return e->send_free ? SPAN_FREE : SPAN_INPUT;
	return SPAN_CANARY;
}

/* Check every element of buffer bi by what it must hold. */
static void check_spans(const cs_exec_t *e, int bi, cs_local_t *l)
{
	size_t cut[6];
	int n = cuts_of(e, bi, cut), i;

	for (i = 0; i + 1 < n; i++) {
		size_t lo = cut[i], hi = cut[i + 1];
		if (lo == hi)
			continue;
		switch (kind_at(e, bi, lo)) {
		case SPAN_RECV:
			break; /* checked once, by check_recv */
		case SPAN_INPUT:
			check_unchanged(e, bi, lo, hi, 1, l);
			break;
		case SPAN_CANARY:
			check_unchanged(e, bi, lo, hi, 0, l);
			break;
		case SPAN_FREE:
		default:
			break;
		}
	}
}

void cs_exec_check_layout(const cs_exec_t *e, cs_local_t *l)
{
	int bi;

	for (bi = 0; bi < e->nbuf; bi++) {
		check_guards(e, bi, l);
		check_spans(e, bi, l);
	}
}

void cs_exec_check_values(const cs_exec_t *e, cs_local_t *l)
{
	if (e->recv_n)
		check_recv(e, l);
}

void cs_exec_check(const cs_exec_t *e, cs_local_t *l)
{
	cs_exec_check_layout(e, l);
	cs_exec_check_values(e, l);
}
