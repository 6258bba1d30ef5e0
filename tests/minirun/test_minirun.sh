#!/usr/bin/env bash
# test_minirun.sh PROBE - tests/minirun (the CMocka subset of the device
# build) judged through minirun_probe: every assertion that holds lets its
# test pass; each one broken fails its test at its own line, stops that
# test there, and the next test still runs; skip() skips; a failed group
# setup fails the group. Exit 0 when minirun behaves so, 1 otherwise.
set -u
probe="$1"
bad=0

no() {
	echo "test_minirun: $*" >&2
	bad=1
}

# run KIND: sets out (stdout and stderr) and rc
run() {
	out=$("$probe" "$1" 2>&1)
	rc=$?
}

run pass
[ "$rc" -eq 0 ] || no "pass: exit $rc, expected 0: $out"
grep -q '^probe: every assertion held$' <<<"$out" ||
	no "pass: the holding assertions stopped the test: $out"
grep -q '^minirun: PASS test_holds$' <<<"$out" || no "pass: no PASS line"

for k in true false int_equal int_not_equal null non_null memory_equal \
	memory_not_equal string_equal in_range fail fail_msg; do
	run "$k"
	[ "$rc" -eq 1 ] || no "$k broken: exit $rc, expected 1 (one failed)"
	grep -q '^minirun: FAIL test_breaks$' <<<"$out" ||
		no "$k broken: test_breaks not reported FAIL: $out"
	grep -q 'minirun_probe\.c:[0-9][0-9]*: ' <<<"$out" ||
		no "$k broken: no file:line in the message: $out"
	grep -q '^probe: after the assertion$' <<<"$out" &&
		no "$k broken: the test went on after the failed assertion"
	grep -q '^minirun: PASS test_holds$' <<<"$out" ||
		no "$k broken: the next test did not run and pass: $out"
done

run skip
[ "$rc" -eq 0 ] || no "skip: exit $rc, expected 0"
grep -q '^minirun: SKIP test_breaks$' <<<"$out" || no "skip: no SKIP line"
grep -q '^probe: after the assertion$' <<<"$out" &&
	no "skip: the test went on after skip()"

run group_setup
[ "$rc" -ne 0 ] || no "group_setup: a failed group setup exited 0"
grep -q '^probe: every assertion held$' <<<"$out" &&
	no "group_setup: a test ran after its group setup failed"

[ "$bad" -eq 0 ] && echo "test_minirun: minirun behaves as CMocka does"
exit "$bad"
