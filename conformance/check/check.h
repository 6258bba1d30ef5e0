/*
 * check.h - the checks one rank makes alone after each call (check.c,
 * check_call.c), on the buffers of exec.h, into its verdict (verdict.h).
 * Included as "check/check.h", apart from the Check test framework's
 * <check.h>.
 */
#ifndef CS_CHECK_H
#define CS_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "check/exec.h"
#include "check/verdict.h"

/* The checks a rank makes alone after the call: guards, send buffer,
 * untouched regions (cs_exec_check_layout), and the value of every
 * received element against the oracle (cs_exec_check_values; for
 * collectives that give every rank the same result, each rank verifies its
 * share and the identity check carries it to the others). cs_exec_check
 * makes both. */
void cs_exec_check_layout(const cs_exec_t *e, cs_local_t *l);
void cs_exec_check_values(const cs_exec_t *e, cs_local_t *l);
void cs_exec_check(const cs_exec_t *e, cs_local_t *l);

/*
 * Every check of this rank after call e->call: the layout checks always;
 * the values against the oracle on call 0 and on every fresh-input call;
 * on a later call with call 0's inputs, the received bytes against call
 * 0's (kept in e->first): equal bytes carry call 0's value verdict, others
 * are WARN "determinism" and get the value check of their own. With
 * e->share_root the values are left to cs_exec_check_root_share. Returns
 * 1 when call 0's value verdict holds for these bytes, else 0.
 */
int cs_exec_check_call(cs_exec_t *e, cs_local_t *l);

/*
 * With e->share_root (reduce, gather, in a worker whose ranks are
 * processes): check this rank's share of the root's receive range, got
 * being the root's element 0 as the root received it (a copy sent by the
 * harness), so the oracle's work is split among the ranks instead of left
 * to the root. Messages name the root and the rank that checked.
 */
void cs_exec_check_root_share(cs_exec_t *e, const void *got, cs_local_t *l);

/*
 * Keep what call e->call received until the case ends, for an identity
 * check made after all calls (cs_exec_kept): call 0's bytes are already
 * kept; a later call's only when they differ from call 0's. FAIL "harness"
 * in l when out of memory.
 */
void cs_exec_keep(cs_exec_t *e, cs_local_t *l);

/* The bytes call k (a call already made) received, as kept (n: their
 * size); NULL when they could not be kept (no memory). */
const void *cs_exec_kept(const cs_exec_t *e, int k, size_t *n);

/* The received range's bytes and their size. */
const void *cs_exec_recv_bytes(const cs_exec_t *e, size_t *n);

/* Who a message is about, into buf[0..n): "rank 3", "rank 3 (comm rank
 * 1)", "the root (comm rank 0), in the share checked by rank 2", with
 * ", call 2 of 3 (fresh inputs)" after the first call of a case. */
void cs_exec_who(const cs_exec_t *e, const cs_local_t *l, char *buf, size_t n);

/* Render bits of dtype d for a message ("1.5 (0x3e00)", "-7"). */
void cs_format_value(cs_dtype_t d, uint64_t bits, char *buf, size_t n);

#endif /* CS_CHECK_H */
