#!/bin/bash
# test_scale_suite.sh COLLSPEC WORKDIR
# The scale suite's memory handling (docs/running.md, "The scale suite"):
#  1. with the machine's free memory given as 1 MiB (CS_MEM_AVAILABLE_MIB),
#     every case is SKIP with the reason naming the memory, and the run is
#     not a pass (exit 1), for the in-process ref ranks and MPI's;
#  2. a malformed CS_MEM_AVAILABLE_MIB is said and ignored;
#  3. cases of the suite at a count that fits pass, and each JSON record
#     carries the case's peak resident memory per rank, at least the
#     bytes of the rank's own buffers (send + receive, from the counts of
#     the definitions: allreduce 2n, allgather n + P n) and below 1 GiB;
#     a quick-suite record carries none;
#  4. the peak is reset per case: a small case run after a large one in
#     the same worker reports less than the large case's buffers (a
#     lifetime peak would report the large case's).
set -u
collspec=$1 dir=$2
mkdir -p "$dir"
status=0
fail() { echo "FAIL: $*"; status=1; }

for be in ref mpi; do
	out=$(CS_MEM_AVAILABLE_MIB=1 "$collspec" run --backend $be --suite scale \
		--ranks 1,2 --coll allreduce,scatter --json "$dir/skip-$be.json" \
		--quiet 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "$be: all skipped should exit 1, got $rc: $out"
	# (mpi: this Open MPI has no large-count calls, so its backend
	# declines int8 counts above INT_MAX before memory is looked at)
	n=$(grep -c '"verdict":"SKIP"' "$dir/skip-$be.json")
	m=$(grep -c 'GiB of memory at [12] ranks.*than 90% of the 1 MiB this machine had free\|count above INT_MAX' \
		"$dir/skip-$be.json")
	[ "$n" = 12 ] && [ "$m" = 12 ] ||
		fail "$be: want 12 SKIP for memory, got $n SKIP, $m with the reason"
done

out=$(CS_MEM_AVAILABLE_MIB=lots "$collspec" run --backend ref --suite scale \
	--ranks 1 --coll sendrecv --count 3 --quiet 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "bad CS_MEM_AVAILABLE_MIB: the run should go on: $out"
echo "$out" | grep -q "CS_MEM_AVAILABLE_MIB='lots' is not a whole number" ||
	fail "bad CS_MEM_AVAILABLE_MIB not said: $out"

n=4000001
if ! "$collspec" run --backend ref --suite scale --ranks 1,2 \
	--coll allreduce,allgather --dtype float32 --count $n \
	--json "$dir/rss.json" --quiet; then
	fail "scale suite at count $n did not pass"
fi
python3 - "$dir/rss.json" $n <<'PY' || status=1
import json, sys
n = int(sys.argv[2])
recs = [json.loads(l) for l in open(sys.argv[1])]
if len(recs) != 4:
    print("FAIL: want 4 records, got", len(recs)); sys.exit(1)
bad = 0
for r in recs:
    P = r["nranks"]
    buf = 4 * (2 * n if r["coll"] == "allreduce" else n + P * n)
    rss = r.get("peak_rss", 0)
    if not (buf <= rss < 2**30):
        print("FAIL: %s P=%d peak_rss %d not in [%d, 1 GiB)"
              % (r["coll"], P, rss, buf))
        bad = 1
sys.exit(bad)
PY
big=16000001
# Under AddressSanitizer (the asan preset) freed blocks wait in its
# quarantine (256 MiB by default) and stay resident, so the small case
# would start above the large one's buffers; without the quarantine a
# freed large block is unmapped at once, as with the C library's malloc.
asan_opts="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
for be in ref mpi; do
	ASAN_OPTIONS="$asan_opts" "$collspec" run --backend $be --suite scale --ranks 1 --coll sendrecv \
		--dtype float32 --count $big,5 --json "$dir/reset-$be.json" \
		--quiet > /dev/null 2>&1 || fail "$be: sendrecv $big,5 did not pass"
	python3 - "$dir/reset-$be.json" $big $be <<'PY' || status=1
import json, sys
big = int(sys.argv[2])
recs = [json.loads(l) for l in open(sys.argv[1])]
counts = [r["count"] for r in recs]
if counts != [big, 5]:
    print("FAIL: %s: want the cases %d then 5 in one run, got %s"
          % (sys.argv[3], big, counts)); sys.exit(1)
buf = 2 * 4 * big  # sendrecv: the send and the receive buffer
large, small = recs[0].get("peak_rss", 0), recs[1].get("peak_rss", 0)
if large < buf or small >= buf:
    print("FAIL: %s: peak_rss %d after the large case (want >= %d), %d after"
          " the small one (want < %d: reset per case)"
          % (sys.argv[3], large, buf, small, buf)); sys.exit(1)
PY
done

"$collspec" run --backend ref --ranks 1 --coll sendrecv --count 5 \
	--json "$dir/quick.json" --quiet > /dev/null 2>&1
grep -q peak_rss "$dir/quick.json" && fail "a quick-suite record has peak_rss"
exit $status
