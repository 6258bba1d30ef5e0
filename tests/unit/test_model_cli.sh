#!/usr/bin/env bash
# test_model_cli.sh - `collspec model` from the command line: the JSON row
# the teaching pages read (the issue's hand-worked ring case), --train's
# worked example (docs/model.md 4.6), --fit on a small file, and every bad
# input an error naming the problem with exit 2.
#   usage: test_model_cli.sh COLLSPEC
set -euo pipefail

cs=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect RC PATTERN CMD...: exit status RC and PATTERN in the output
expect() {
	local want=$1 pat=$2 rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, expected $want: $*"$'\n'"$out"
	grep -q -- "$pat" <<<"$out" || fail "no '$pat' in: $*"$'\n'"$out"
}

# ring allreduce, P 4, 1 MB, 1 us, 10 GB/s, free reduction: 6 + 150 us
expect 0 '"time_us":156,' "$cs" model --coll allreduce --algo ring \
	--ranks 4 --bytes 1000000 --alpha 1 --bw 10 --gamma-bw inf --json
# every row of the default table is one JSON object of 12 keys
"$cs" model --ranks 2-8 --bytes 8,1m --json >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" -gt 40 ] || fail "few rows"
grep -vq '^{"coll":".*"formula":".*"}$' "$tmp/rows" && fail "bad row"
# the worked example: tp allreduce 192 calls of 8388608 B each way
expect 0 '"group":"tp","P":2,"coll":"allreduce","algo":"ring","phase":"fwd","what":"activations","calls":192,"size":8388608,"bytes":3221225472' \
	"$cs" model --train --layers 24 --hidden 2048 --vocab 50304 \
	--dp 4 --tp 2 --pp 2 --json
expect 0 'dominant group: tp' "$cs" model --train --vocab 50304 \
	--dp 4 --tp 2 --pp 2
expect 0 'exposed_ms' "$cs" model --train --dp 4 --bucket-mb 1,25,1000
# ZeRO-1's two forms, labelled: allreduce + allgather (ar, the default)
# and reducescatter + allgather (rs); rs only with --zero 1
expect 0 'zero 1 (allreduce + allgather),' "$cs" model --train --dp 4 --zero 1
expect 0 'zero 1 (reducescatter + allgather),' "$cs" model --train --dp 4 \
	--zero 1 --zero1 rs
expect 0 '"group":"dp","P":4,"coll":"reducescatter","algo":"ring","phase":"bwd"' \
	"$cs" model --train --dp 4 --zero 1 --zero1 rs --json
expect 2 "zero1 rs needs --zero 1" "$cs" model --train --dp 4 --zero1 rs
# --memory (docs/model.md 4.8): 24 layers of 12 h^2 parameters, h 2048, is
# 1207959552; ZeRO-1 at dp 8 keeps 12 / 8 bytes of optimizer state each
expect 0 '"kind":"memory","scheme":"zero1","params":2415919104,"grads":2415919104,"optim":1811939328,' \
	"$cs" model --train --dp 8 --memory --json
[ "$("$cs" model --train --dp 8 --memory --json | grep -c '"kind":"memory"')" = 5 ] ||
	fail "--memory: not one row per scheme (zero0-3, fsdp)"
expect 0 '^fsdp ' "$cs" model --train --dp 8 --memory
expect 2 "not divisible by --tp 3" "$cs" model --train --tp 3 --memory
expect 2 "zero1 'both'" "$cs" model --train --dp 4 --zero 1 --zero1 both

# --fit: two sizes at two P of ring allreduce (alpha 1 us, 10 GB/s)
line() { # P BYTES TIME_US
	printf '{"series":"s","backend":"mpi","coll":"allreduce","dtype":"float32","op":"sum","inplace":0,"nranks":%s,"bytes":%s,"count":1,"iters":1,"warmup":0,"time_us":%s,"min_us":1,"p50_us":1,"p90_us":1,"p99_us":1,"max_us":1,"algbw_GBps":1,"busbw_GBps":1,"wait_spread_us":0,"wrong":0,"checked":1}\n' "$@"
}
{ line 2 1000 2.1; line 2 1000000 102; line 4 1000 6.15; line 4 1000000 156; } \
	>"$tmp/b.json"
expect 0 '"alpha_us":1,"beta_ns_per_byte":0.1,' "$cs" model --fit \
	"$tmp/b.json" --holdout 0 --json
# the hold-out line in English ordinals: 2nd, 3rd, 11th, 21st, 112th
for k in 2:2nd 3:3rd 11:11th 21:21st 112:112th; do
	expect 0 "every ${k#*:} held out of the fit" "$cs" model --fit \
		"$tmp/b.json" --holdout "${k%:*}"
done
{ cat "$tmp/b.json"; echo '{"series":"s"'; } >"$tmp/bad.json"
expect 2 'bad.json:5: ' "$cs" model --fit "$tmp/bad.json"

# bad input: exit 2, the problem named
expect 2 "ranks" "$cs" model --ranks 0
expect 2 "--bytes '1x'" "$cs" model --bytes 1x
expect 2 "unknown algorithm 'foo'" "$cs" model --algo foo
expect 2 "unknown coll" "$cs" model --coll allreducee
expect 2 "alpha '-1'" "$cs" model --alpha -1
expect 2 "bw 'nan'" "$cs" model --bw nan
expect 2 "no pairwise algorithm for allreduce" "$cs" model --coll allreduce \
	--algo pairwise
expect 2 "power-of-two" "$cs" model --coll allreduce --algo rd --ranks 6
expect 2 "unexpected argument '--frob'" "$cs" model --frob
expect 2 "cannot open" "$cs" model --fit "$tmp/none.json"
expect 2 "holdout 1" "$cs" model --fit "$tmp/b.json" --holdout 1
expect 2 "exclude" "$cs" model --fit "$tmp/b.json" --plain --algo ring
expect 2 "exclude" "$cs" model --fit "$tmp/b.json" --train
expect 2 "not divisible by --pp 5" "$cs" model --train --pp 5
expect 2 "zero '4'" "$cs" model --train --zero 4
expect 2 "unknown dtype" "$cs" model --train --dtype float17
expect 2 "bucket-mb '0'" "$cs" model --train --bucket-mb 0
expect 2 "needs --experts" "$cs" model --train --dp 2 --ep 2
expect 2 "layers '99999999999999999999'" "$cs" model --train \
	--layers 99999999999999999999
expect 2 "more than 10000000" "$cs" model --train --dp 2 --bucket-mb 0.000001
expect 2 "topk 65 out of range" "$cs" model --train --dp 4 --ep 4 \
	--experts 4096 --topk 65
expect 2 "comma list" "$cs" model --bytes 1,
expect 2 "needs a value" "$cs" model --train --dp
expect 0 "usage: collspec model --train" "$cs" model --train --help
expect 0 "usage: collspec model --fit" "$cs" model --fit x --help
echo "test_model_cli: ok"
