/*
 * test_check.c - one rank's buffers and checks (conformance/check/check.c),
 * without MPI: a case is "run" by writing the receive buffer by hand, then
 * broken on purpose; each break must be named by the right check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "csref/compare.h"
#include "check/check.h"
#include "check/exec.h"
#include "check/guardpage.h"
#include "check/khash.h"
#include "base/names.h"
#include "base/result.h"
#include "run/run_args.h"
#include "suite/suite.h"
#include "check/verdict.h"
#include "csref/arith.h"
#include "csref/gen.h"

static cs_hcase_t hcase(cs_coll_t coll, int P, size_t count, int inplace,
			int misalign)
{
	cs_hcase_t hc;

	memset(&hc, 0, sizeof hc);
	hc.c.coll = coll;
	hc.c.dtype = CS_DTYPE_INT32;
	hc.c.op = cs_coll_reduces(coll) ? CS_OP_SUM : CS_OP_NONE;
	hc.c.mode = CS_MODE_RANDOM;
	hc.c.nranks = P;
	hc.c.count = count;
	hc.c.seed = 11;
	hc.inplace = inplace;
	hc.misalign = misalign;
	return hc;
}

/* At P = 1 an allreduce's result is the input: "run" it by copying. */
static void run_p1(cs_exec_t *e, const cs_hcase_t *hc)
{
	assert_int_equal(cs_exec_setup(e, hc, 1, 0), CS_OK);
	cs_exec_fill(e);
	if (!e->inplace)
		memcpy(cs_exec_recvp(e), cs_exec_sendp(e), e->c.count * 4);
}

static cs_local_t check(const cs_exec_t *e)
{
	cs_local_t l;

	cs_local_init(&l, 0, 0);
	cs_exec_check(e, &l);
	return l;
}

static void test_correct_passes(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 1, 1000, 0, 0);
	cs_exec_t e;
	cs_local_t l;

	(void)state;
	run_p1(&e, &hc);
	l = check(&e);
	assert_int_equal(l.verdict, CS_V_PASS);
	assert_int_equal(l.elems, 2000); /* send and receive ranges */
	cs_exec_free(&e);
	/* without the "call", the receive buffer holds only the canary */
	assert_int_equal(cs_exec_setup(&e, &hc, 1, 0), CS_OK);
	cs_exec_fill(&e);
	l = check(&e);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "value");
	cs_exec_free(&e);
}

static void test_guards(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 1, 100, 0, 1);
	cs_exec_t e;
	cs_local_t l;
	unsigned char *r;

	(void)state;
	run_p1(&e, &hc);
	r = cs_exec_recvp(&e);
	r[100 * 4] ^= 1; /* one byte past the last element */
	l = check(&e);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "guard");
	assert_non_null(strstr(l.reason, "past its end"));
	cs_exec_free(&e);
	run_p1(&e, &hc);
	r = cs_exec_recvp(&e);
	r[-1] ^= 1; /* the byte before element 0 (inside the misalignment) */
	l = check(&e);
	assert_string_equal(l.check, "guard");
	assert_non_null(strstr(l.reason, "before its start"));
	cs_exec_free(&e);
	run_p1(&e, &hc);
	((unsigned char *)cs_exec_sendp(&e))[-CS_GUARD_BYTES] ^= 1;
	l = check(&e);
	assert_string_equal(l.check, "guard");
	assert_non_null(strstr(l.reason, "send buffer"));
	cs_exec_free(&e);
}

/* One buffer's layout in its span (exec.h): element 0 on its boundary,
 * at least 64 guard bytes each side, one side tight against its page,
 * and the registry naming the page on each side. */
static void assert_layout(const cs_exec_t *e, int bi, const char *what)
{
	const cs_gbuf_t *b = &e->buf[bi];
	size_t m = (size_t)e->misalign * 4, n = b->elems * 4;
	cs_gpage_hit_t h;

	assert_int_equal(((uintptr_t)b->data - m) % 64, 0);
	assert_int_equal(b->pre + n + b->post, b->bytes);
	assert_int_equal(b->bytes % cs_gpage_size(), 0);
	assert_true(b->pre >= 64 + m && b->post >= 64);
	if (b->tight_end)
		assert_true(b->post <= 127);
	else
		assert_int_equal(b->pre, 64 + m);
	assert_int_equal(cs_gpage_find(b->alloc - 1, &h), 1);
	assert_int_equal(h.side, CS_GPAGE_BEFORE);
	assert_int_equal(h.distance, b->pre + 1);
	assert_string_equal(h.what, what);
	assert_int_equal(h.rank, e->rank);
	assert_int_equal(h.world_rank, e->world_rank);
	assert_int_equal(cs_gpage_find(b->alloc + b->bytes + 7, &h), 1);
	assert_int_equal(h.side, CS_GPAGE_AFTER);
	assert_int_equal(h.distance, b->post + 7);
	assert_int_equal(h.elems, b->elems);
	assert_int_equal(cs_gpage_find(b->alloc + b->bytes - 1, &h), 0);
	assert_int_equal(cs_gpage_find(b->alloc, &h), 0);
}

static void test_guardpages(void **state)
{
	static const size_t counts[] = {0, 1, 13, 16, 1000, 4093};
	int seen[2] = {0, 0}, mis, k, r;

	(void)state;
	for (k = 0; k < 6; k++)
		for (mis = 0; mis < 2; mis++)
			for (r = 0; r < 2; r++) {
				cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 2,
						      counts[k], 0, mis);
				cs_exec_t e;

				assert_int_equal(cs_exec_setup(&e, &hc, 2, r),
						 CS_OK);
				assert_layout(&e, 0, "send buffer");
				assert_layout(&e, 1, "receive buffer");
				/* the two ranks place a buffer on opposite
				 * sides */
				seen[e.buf[1].tight_end ^ r]++;
				assert_int_equal(e.buf[0].tight_end,
						 !e.buf[1].tight_end);
				cs_exec_free(&e);
			}
	/* cases differ in layout: both occur for rank 0's receive buffer */
	assert_true(seen[0] > 0 && seen[1] > 0);
}

/* Every guard byte of the span is checked, however far from the
 * elements: the last byte of the span, the first. */
static void test_guard_span_checked(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 1, 37, 0, 1);
	cs_exec_t e;
	cs_local_t l;
	int bi;

	(void)state;
	for (bi = 0; bi < 2; bi++) {
		run_p1(&e, &hc);
		e.buf[bi].alloc[e.buf[bi].bytes - 1] ^= 1;
		l = check(&e);
		assert_string_equal(l.check, "guard");
		assert_non_null(strstr(l.reason, "past its end"));
		cs_exec_free(&e);
		run_p1(&e, &hc);
		e.buf[bi].alloc[0] ^= 1;
		l = check(&e);
		assert_string_equal(l.check, "guard");
		assert_non_null(strstr(l.reason, "before its start"));
		cs_exec_free(&e);
	}
	/* freed: no page of the case is named any more */
	run_p1(&e, &hc);
	{
		unsigned char *lo = e.buf[1].alloc;
		cs_gpage_hit_t h;

		cs_exec_free(&e);
		assert_int_equal(cs_gpage_find(lo - 1, &h), 0);
	}
}

static void test_sendbuf_and_value(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 1, 70000, 0, 0);
	cs_exec_t e;
	cs_local_t l;

	(void)state;
	run_p1(&e, &hc);
	((unsigned char *)cs_exec_sendp(&e))[4 * 69999] ^= 1; /* last block */
	l = check(&e);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "sendbuf");
	assert_non_null(strstr(l.reason, "input element 69999"));
	cs_exec_free(&e);
	run_p1(&e, &hc);
	((int32_t *)cs_exec_recvp(&e))[65537] += 1; /* second oracle block */
	l = check(&e);
	assert_string_equal(l.check, "value");
	assert_non_null(strstr(l.reason, "1 of 70000"));
	assert_non_null(strstr(l.detail, "index 65537"));
	cs_exec_free(&e);
}

/* reduce at a non-root rank: the receive buffer must stay unwritten. */
static void test_nonroot_untouched(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_REDUCE, 2, 50, 0, 0);
	cs_exec_t e;
	cs_local_t l;

	(void)state;
	assert_int_equal(cs_exec_setup(&e, &hc, 2, 1), CS_OK);
	cs_exec_fill(&e);
	assert_int_equal(e.recv_n, 0);
	l = check(&e);
	assert_int_equal(l.verdict, CS_V_PASS);
	((int32_t *)cs_exec_recvp(&e))[7] = 0;
	l = check(&e);
	assert_string_equal(l.check, "untouched");
	assert_non_null(strstr(l.reason, "element 7"));
	cs_exec_free(&e);
}

/* In-place layouts follow collspec/backend.h's pointer rules. */
static void test_inplace_layouts(void **state)
{
	cs_hcase_t ag = hcase(CS_COLL_ALLGATHER, 3, 10, 1, 0);
	cs_hcase_t rs = hcase(CS_COLL_REDUCESCATTER, 3, 10, 1, 1);
	cs_exec_t e;

	(void)state;
	assert_int_equal(cs_exec_setup(&e, &ag, 3, 2), CS_OK);
	assert_ptr_equal(cs_exec_sendp(&e), (char *)cs_exec_recvp(&e) + 2 * 10 * 4);
	assert_int_equal(e.buf[0].elems, 30);
	cs_exec_free(&e);
	assert_int_equal(cs_exec_setup(&e, &rs, 3, 1), CS_OK);
	assert_ptr_equal(cs_exec_recvp(&e), (char *)cs_exec_sendp(&e) + 1 * 10 * 4);
	assert_int_equal(((uintptr_t)cs_exec_sendp(&e)) % 64, 4); /* misaligned */
	cs_exec_free(&e);
}

static void test_prio(void **state)
{
	cs_local_t l;

	(void)state;
	cs_local_init(&l, 0, 0);
	cs_local_set(&l, CS_V_WARN, "determinism", "w", NULL);
	cs_local_set(&l, CS_V_FAIL, "value", "v", NULL);
	cs_local_set(&l, CS_V_FAIL, "identity", "i", NULL); /* later check */
	assert_string_equal(l.check, "value");
	cs_local_set(&l, CS_V_FAIL, "guard", "g", NULL); /* earlier check */
	assert_string_equal(l.check, "guard");
	cs_local_set(&l, CS_V_INFO, "profile", "p", NULL);
	assert_int_equal(l.verdict, CS_V_FAIL);
}

/* The fingerprint sees every bit of every length, and keys are fresh. */
static void test_khash_sensitive(void **state)
{
	unsigned char buf[40];
	cs_khash_t key, key2, a, b;
	size_t n, bit;

	(void)state;
	for (n = 0; n < sizeof buf; n++)
		buf[n] = (unsigned char)(n * 37 + 1);
	assert_int_equal(cs_khash_key(&key), CS_OK);
	assert_int_equal(cs_khash_key(&key2), CS_OK);
	assert_memory_not_equal(&key, &key2, sizeof key);
	for (n = 0; n <= sizeof buf; n++) {
		cs_khash(&key, buf, n, &a);
		for (bit = 0; bit < 8 * n; bit++) {
			buf[bit / 8] ^= (unsigned char)(1u << bit % 8);
			cs_khash(&key, buf, n, &b);
			buf[bit / 8] ^= (unsigned char)(1u << bit % 8);
			assert_memory_not_equal(&a, &b, sizeof a);
		}
		if (n) { /* a trailing zero byte is not the same string */
			cs_khash(&key, buf, n - 1, &b);
			assert_memory_not_equal(&a, &b, sizeof a);
		}
	}
}

/*
 * The attack that defeated the old unkeyed hash: choose the last word so
 * that a wrong buffer collides with the right one. Knowing the key, it can
 * be done (the fingerprint is affine in each word): with the key 1 it is
 * the sum of the 7-byte words and the length, so raising one word by 1 and
 * lowering another by 1 collides. Under a key drawn afterwards the same
 * pair does not.
 */
static void test_khash_forgery_does_not_transfer(void **state)
{
	unsigned char right[70], wrong[70];
	cs_khash_t key, fresh, hr, hw;
	int i, forged = 0;

	(void)state;
	for (i = 0; i < 70; i++)
		right[i] = wrong[i] = (unsigned char)i;
	wrong[0] ^= 1; /* the wrong result */
	/* a weak key that the forger knows: 1, so h is the sum of the words
	 * plus the length; fix it up in the last word */
	key.h[0] = key.h[1] = 1;
	cs_khash(&key, right, 70, &hr);
	wrong[63] ^= 1; /* byte 0 and byte 63 open words 0 and 9 */
	cs_khash(&key, wrong, 70, &hw);
	forged = memcmp(&hr, &hw, sizeof hr) == 0;
	assert_true(forged); /* the forgery works under the known key */
	assert_int_equal(cs_khash_key(&fresh), CS_OK);
	cs_khash(&fresh, right, 70, &hr);
	cs_khash(&fresh, wrong, 70, &hw);
	assert_memory_not_equal(&hr, &hw, sizeof hr);
}

/* Fresh inputs on odd calls; call 0's inputs on even ones, where equal
 * bytes carry the value verdict and different bytes are WARN
 * "determinism"; a result cached from call 0 fails the fresh call. */
static void test_calls(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 1, 300, 0, 0);
	cs_exec_t e;
	cs_local_t l;
	unsigned char stale[1200];

	(void)state;
	run_p1(&e, &hc);
	cs_exec_set_call(&e, 0, 3);
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_PASS);
	memcpy(stale, cs_exec_recvp(&e), sizeof stale);
	/* call 1: fresh inputs; a correct copy passes, the stale result fails */
	cs_exec_set_call(&e, 1, 3);
	assert_true(e.c.seed != hc.c.seed);
	cs_exec_fill(&e);
	memcpy(cs_exec_recvp(&e), cs_exec_sendp(&e), sizeof stale);
	assert_memory_not_equal(cs_exec_recvp(&e), stale, sizeof stale);
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_PASS);
	cs_exec_fill(&e);
	memcpy(cs_exec_recvp(&e), stale, sizeof stale);
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "value");
	assert_non_null(strstr(l.reason, "call 2 of 3 (fresh inputs)"));
	/* call 2: call 0's inputs again; same bytes pass, others warn */
	cs_exec_set_call(&e, 2, 3);
	assert_true(e.c.seed == hc.c.seed);
	cs_exec_fill(&e);
	memcpy(cs_exec_recvp(&e), stale, sizeof stale);
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_PASS);
	e.first[5] ^= 1; /* as if call 0 had received other (right) bits */
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_WARN);
	assert_string_equal(l.check, "determinism");
	e.first[5] ^= 1;
	((unsigned char *)cs_exec_recvp(&e))[5] ^= 1; /* a wrong value */
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "value");
	assert_non_null(strstr(l.reason, "call 3 of 3 (the inputs of call 1)"));
	/* a write past the buffer on a later call is seen on that call */
	memcpy(cs_exec_recvp(&e), stale, sizeof stale);
	((unsigned char *)cs_exec_recvp(&e))[sizeof stale] ^= 1;
	cs_local_init(&l, 0, 0);
	cs_exec_check_call(&e, &l);
	assert_int_equal(l.verdict, CS_V_FAIL);
	assert_string_equal(l.check, "guard");
	cs_exec_free(&e);
}

/* The ranks' observations of one case merged: one NaN rule and one
 * overflow rule are INFO, both of either kind FAIL (spec/numerics.md 3.3,
 * 4.9), whichever ranks saw them. */
static void test_profile_rules(void **state)
{
	static const struct {
		int k0, k1; /* observation on rank 0 and on rank 1 */
		const char *verdict_check, *info;
	} t[] = {
		{CS_OBS_OVF_SATURATE, CS_OBS_OVF_SATURATE, "profile", "ovf=saturate"},
		{CS_OBS_OVF_NONFINITE, -1, "profile", "ovf=nonfinite"},
		{CS_OBS_OVF_NONFINITE, CS_OBS_OVF_SATURATE, "ovfrule", "ovf=mixed"},
		{CS_OBS_NAN_IGNORE, CS_OBS_NAN_PROPAGATE, "nanrule", "nan=mixed"},
	};
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 2, 8, 0, 0);
	cs_run_opts_t o;
	cs_local_t l[2];
	cs_result_t *res = malloc(sizeof *res);
	size_t i;

	(void)state;
	memset(&o, 0, sizeof o);
	o.backend = "ref";
	o.suite = "quick";
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		cs_local_init(&l[0], 0, 0);
		cs_local_init(&l[1], 1, 1);
		l[0].obs[t[i].k0] = 3;
		if (t[i].k1 >= 0)
			l[1].obs[t[i].k1] += 5;
		cs_result_merge(&o, "ref", &hc, l, 2, res);
		assert_string_equal(res->check, t[i].verdict_check);
		assert_int_equal(res->verdict, strcmp(t[i].verdict_check, "profile")
					       ? CS_V_FAIL : CS_V_INFO);
		assert_non_null(strstr(res->info, t[i].info));
	}
	assert_non_null(strstr(res->reason, "no consistent NaN rule"));
	l[0].obs[CS_OBS_OVF_NONFINITE] = 2;
	l[1].obs[CS_OBS_OVF_SATURATE] = 7;
	cs_result_merge(&o, "ref", &hc, l, 2, res);
	assert_int_equal(res->verdict, CS_V_FAIL);
	assert_non_null(strstr(res->info, "ovf=mixed"));
	l[0].obs[CS_OBS_NAN_IGNORE] = l[1].obs[CS_OBS_NAN_PROPAGATE] = 0;
	cs_result_merge(&o, "ref", &hc, l, 2, res);
	assert_string_equal(res->check, "ovfrule");
	assert_non_null(strstr(res->reason, "Inf or NaN in 2 elements and "
			       "saturated in 7"));
	free(res);
}

/* Re-run lines carry --repeat exactly when it is not the default, so the
 * call that failed is made again. */
static void test_repro_repeat(void **state)
{
	cs_hcase_t hc = hcase(CS_COLL_ALLREDUCE, 3, 7, 0, 0);
	cs_run_opts_t o;
	char line[CS_REPRO_MAX];
	int len;

	(void)state;
	memset(&o, 0, sizeof o);
	o.backend = "ref";
	o.backend_opt = "";
	o.suite = "quick";
	o.repeat = 2;
	assert_true(cs_run_repro(&o, &hc, 3, line, sizeof line) > 0);
	assert_null(strstr(line, "--repeat"));
	o.repeat = 5;
	len = cs_run_repro(&o, &hc, 3, line, sizeof line);
	assert_int_equal(len, (int)strlen(line));
	assert_non_null(strstr(line, " --seed 11 --repeat 5"));
	/* too small a buffer: no line rather than a cut one */
	assert_true(cs_run_repro(&o, &hc, 3, line, strlen(line)) > 0);
	assert_string_equal(line, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_passes),
		cmocka_unit_test(test_guards),
		cmocka_unit_test(test_guardpages),
		cmocka_unit_test(test_guard_span_checked),
		cmocka_unit_test(test_sendbuf_and_value),
		cmocka_unit_test(test_nonroot_untouched),
		cmocka_unit_test(test_inplace_layouts),
		cmocka_unit_test(test_prio),
		cmocka_unit_test(test_khash_sensitive),
		cmocka_unit_test(test_khash_forgery_does_not_transfer),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_repro_repeat),
		cmocka_unit_test(test_profile_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
