#!/bin/bash
# test_patterns_suite.sh COLLSPEC CHECK_COMMLOG BACKEND WORKDIR
# The pattern suite (spec/patterns.md) on BACKEND: every pattern passes at
# world sizes 1, 2, 4 and 8 on the default grids and at 8 on two grids of
# other shapes (issue 10), at 8 on dp8 (ranks whose ZeRO shard is empty),
# and each run's --comm-log and report volumes
# pass check_commlog (the closed-form volumes of spec section 5).
set -u
collspec=$1 check=$2 backend=$3 dir=$4
seed=7
mkdir -p "$dir"
status=0
run() { # NAME collspec-args...
	local name=$1
	shift
	rm -f "$dir/$name.jsonl" "$dir/$name.json"
	if ! "$collspec" run --suite patterns --backend "$backend" --quiet \
		--seed $seed --comm-log "$dir/$name.jsonl" \
		--json "$dir/$name.json" "$@"; then
		echo "FAIL: collspec run --suite patterns $* on $backend"
		status=1
		return
	fi
	if ! "$check" --seed $seed "$dir/$name.jsonl" "$dir/$name.json"; then
		echo "FAIL: check_commlog on $name ($*)"
		status=1
	fi
}
run default --ranks 1,2,4,8
run dp2tp2pp2 --ranks 8 --grid dp2,tp2,pp2
run ep4dp2 --ranks 8 --grid ep4,dp2
# ZeRO and FSDP with empty shards (17 parameters over 8 ranks)
run dp8 --ranks 8 --grid dp8 --pattern dp,zero1,zero2,zero3,fsdp
exit $status
