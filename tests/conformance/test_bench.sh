#!/bin/bash
# test_bench.sh COLLSPEC BROKEN_PLUGIN PYTHON WORKDIR
# `collspec bench` end to end (issue 11), under the driver:
#  - ref, 3 ranks: --json and --csv read back by Python's json and csv
#    modules (an independent reader): the keys in bench_rec.h's order, the
#    same records in both, bytes = count * 4 (float32 allreduce), busbw /
#    algbw = 2(P-1)/P = 4/3 by hand, #wrong 0 and checked 1, every size in
#    place and out of place;
#  - -c 0: #wrong -1, checked 0;
#  - the broken plugin: "tail" (allreduce's last element unreduced) gives
#    #wrong 1 per size and exit 1; "swap" (allgather blocks 0 and 1
#    swapped) gives #wrong 2 * count, by hand; "crash" at count 1 is a
#    FAIL "crash" of that size while the other sizes keep their records;
#  - --ompi-alg (Open MPI only): one more series, its variable seen by
#    the ranks;
#  - bad options exit 2 with a message naming the problem.
# No assertion is on a time.
set -u
collspec=$1 plugin=plugin:$2 py=$3 dir=$4
mkdir -p "$dir"
status=0
fail() { echo "FAIL: $*"; status=1; }

# records FILE.json FILE.csv PYTHON-CHECKS: both files parsed, then the
# checks run with `recs` (the JSON records) in scope
records() {
	"$py" - "$1" "$2" "$3" <<'EOF'
import csv, json, sys
keys = ("series backend coll dtype op inplace nranks bytes count iters "
        "warmup time_us min_us p50_us p90_us p99_us max_us algbw_GBps "
        "busbw_GBps wait_spread_us wrong checked check_us").split()
recs = []
with open(sys.argv[1]) as f:
    for line in f:
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        assert [k for k, _ in pairs] == keys, [k for k, _ in pairs]
        recs.append(dict(pairs))
with open(sys.argv[2], newline="") as f:
    rows = list(csv.reader(f))
assert rows[0] == keys, rows[0]
assert len(rows) == len(recs) + 1, (len(rows), len(recs))
for row, r in zip(rows[1:], recs):
    for k, v in zip(keys, row):
        if isinstance(r[k], str):
            assert v == r[k], (k, v, r[k])
        else:
            assert abs(float(v) - r[k]) <= 1e-6 * max(1, abs(r[k])), (k, v)
assert recs, "no records"
exec(sys.argv[3])
EOF
}

# 1. ref: 8 B to 4 KiB by 4 (5 sizes), both placements
"$collspec" bench --backend ref --coll allreduce --ranks 3 -b 8 -e 4K -f 4 \
	-n 4 -w 1 --json "$dir/ref.json" --csv "$dir/ref.csv" >"$dir/ref.out" ||
	fail "bench on ref exited $?"
records "$dir/ref.json" "$dir/ref.csv" '
assert len(recs) == 10, len(recs)
assert sorted((r["bytes"], r["inplace"]) for r in recs) == \
    sorted((b, i) for b in (8, 32, 128, 512, 2048) for i in (0, 1))
for r in recs:
    assert r["series"] == "ref" and r["nranks"] == 3 and r["op"] == "sum"
    assert r["bytes"] == 4 * r["count"]
    assert r["wrong"] == 0 and r["checked"] == 1
    assert r["check_us"] >= 0  # measured: the checked call was checked
    assert r["iters"] == 4 and r["warmup"] == 1
    assert r["time_us"] > 0 and r["min_us"] <= r["p50_us"] <= r["max_us"]
    assert abs(r["busbw_GBps"] - r["algbw_GBps"] * 4 / 3) <= \
        1e-6 * r["algbw_GBps"]
    assert abs(r["algbw_GBps"] - r["bytes"] / r["time_us"] / 1e3) <= \
        1e-6 * r["algbw_GBps"]
' || fail "ref records"
grep -q "Avg bus bandwidth" "$dir/ref.out" || fail "no table on stdout"

# 2. -c 0: not checked
"$collspec" bench --backend ref --coll allgather --ranks 2 -b 64 -e 64 \
	-n 2 -c 0 --inplace 1 --quiet --json "$dir/c0.json" --csv "$dir/c0.csv" ||
	fail "bench -c 0 exited $?"
records "$dir/c0.json" "$dir/c0.csv" '
assert len(recs) == 1 and recs[0]["inplace"] == 1
assert recs[0]["wrong"] == -1 and recs[0]["checked"] == 0
assert recs[0]["check_us"] == -1
assert recs[0]["count"] == 8 and recs[0]["bytes"] == 64
assert abs(recs[0]["busbw_GBps"] - recs[0]["algbw_GBps"] / 2) <= 1e-9
' || fail "-c 0 records"

# 3. a broken allreduce: the last element wrong on every rank
"$collspec" bench --backend "$plugin" --backend-opt tail --coll allreduce \
	--dtype int32 --ranks 3 -b 8 -e 64 -n 2 --quiet --json "$dir/tail.json" \
	--csv "$dir/tail.csv" 2>"$dir/tail.err"
rc=$?
[ $rc = 1 ] || fail "bench on a broken plugin exited $rc, not 1"
grep -q "FAIL broken allreduce count 2 .*(value)" "$dir/tail.err" ||
	fail "no FAIL value line for the broken plugin"
records "$dir/tail.json" "$dir/tail.csv" '
assert len(recs) == 8, len(recs)
assert all(r["wrong"] == 1 and r["series"] == "broken" for r in recs)
' || fail "tail records"
# ... and the same plugin without its fault
"$collspec" bench --backend "$plugin" --backend-opt none --coll allreduce \
	--dtype int32 --ranks 3 -b 8 -e 64 -n 2 --quiet --json "$dir/none.json" \
	--csv "$dir/none.csv" || fail "bench on the plugin without fault"
records "$dir/none.json" "$dir/none.csv" '
assert len(recs) == 8 and all(r["wrong"] == 0 for r in recs)
' || fail "none records"

# 4. allgather with blocks 0 and 1 swapped: 2 * count elements wrong
"$collspec" bench --backend "$plugin" --backend-opt swap --coll allgather \
	--dtype int32 --ranks 3 -b 12 -e 96 -n 2 --quiet --json "$dir/swap.json" \
	--csv "$dir/swap.csv" 2>/dev/null
records "$dir/swap.json" "$dir/swap.csv" '
assert sorted(r["count"] for r in recs) == [1, 1, 2, 2, 4, 4, 8, 8]
for r in recs:
    assert r["wrong"] == 2 * r["count"], (r["count"], r["wrong"])
    assert r["bytes"] == 12 * r["count"]
' || fail "swap records"

# 5. a crash at count 1: that size fails, the others are measured
"$collspec" bench --backend "$plugin" --backend-opt crash --coll allreduce \
	--dtype int32 --ranks 2 -b 4 -e 16 -n 2 --inplace 0 --quiet \
	--timeout 30 --json "$dir/crash.json" --csv "$dir/crash.csv" \
	>"$dir/crash.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "bench with a crash exited $rc, not 1"
grep -q "FAIL broken allreduce count 1 out of place at 2 ranks (crash)" \
	"$dir/crash.out" || fail "no crash line"
records "$dir/crash.json" "$dir/crash.csv" '
assert sorted(r["count"] for r in recs) == [2, 4], recs
' || fail "crash records"

# 6. an Open MPI algorithm series: its variables reach the ranks (a number
# coll_tuned does not know makes Open MPI name the variable and the value).
# That message is a rank's help text, which mpiexec forwards; on a loaded
# machine it was once missing from a run that passed (a clean-clone run of
# scripts/test.sh beside other builds, 2026-12-03; none of 12 runs alone
# lost it): up to three runs, the first that names the variable is judged.
for try in 1 2 3; do
	out=$("$collspec" bench --backend mpi --ompi-alg 77 --coll allreduce \
		--ranks 2 -b 64 -e 64 -n 2 --inplace 0 --json "$dir/alg.json" \
		--csv "$dir/alg.csv" 2>&1)
	rc=$?
	echo "$out" | grep -q "coll_tuned_allreduce_algorithm\|not Open MPI's" &&
		break
	echo "(run $try: Open MPI's message not seen)"
done
if echo "$out" | grep -q "not Open MPI's"; then
	echo "(not Open MPI: the algorithm series is not checked)"
else
	[ $rc = 0 ] || fail "bench --ompi-alg 77 exited $rc"
	echo "$out" | grep -q "coll_tuned_allreduce_algorithm" ||
		fail "OMPI_MCA_coll_tuned_allreduce_algorithm did not reach the ranks"
	records "$dir/alg.json" "$dir/alg.csv" '
assert [r["series"] for r in recs] == ["mpi", "mpi/alg=77"], recs
assert all(r["backend"] == "mpi" and r["wrong"] == 0 for r in recs)
' || fail "algorithm series records"
fi

# 7. bad input: exit 2, a message naming it
bad() { # REGEX ARGS...
	local re=$1 out
	shift
	out=$("$collspec" bench "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "bench $*: exit $rc, not 2"
	echo "$out" | grep -q -- "$re" || fail "bench $*: no '$re' in: $out"
}
bad "unknown option" --coll allreduce --bogus
bad "coll is required" -b 8
bad "more than 32 sizes" --coll allreduce -b 1 -e 64G
bad "a size in bytes" --coll allreduce -e 99999999999999999999999
bad "does not reduce" --coll allgather --op sum
bad "applies to the mpi backend" --backend ref --coll allreduce --ompi-alg 1
bad "no sendrecv algorithms" --backend mpi --coll sendrecv --ompi-alg 1
bad "unknown backend .nosuch." --backend nosuch --coll allreduce
bad "cannot write '/nonexistent/x.json'" --backend ref --coll allreduce \
	--json /nonexistent/x.json
bad "lower -e" --backend ref --coll allreduce -b 1G -e 1G --ranks 4096

exit $status
