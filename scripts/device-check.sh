#!/usr/bin/env bash
# shellcheck disable=SC2153,SC2094 # DC_* come from dc_start; a stage reads its own log
# device-check.sh - everything CollSpec checks on a GPU, in one run that
# fits in about 5 minutes on one H200 (16 cores), ending with a summary:
# one line per stage (PASS, FAIL or SKIP, with counts and seconds) and the
# benchmark's key figures (ring allreduce, float32 and bfloat16, at 64 MiB
# and at the largest size run: busbw, memory traffic, ratio to the copy
# bandwidth). Stages, in order:
#   setup     bash scripts/setup.sh: the Debian packages, and build/ (a
#             new build/ without CUDA when g++ and nvcc are already there
#             and CS_CUDA is not set: build-device is the CUDA build, so
#             the kernels are not compiled twice on a fresh machine)
#   build     build-device/: cmake -DCS_CUDA=ON
#             -DCMAKE_CUDA_ARCHITECTURES=90, built with one job per core
#   ctest     ctest -L '^gpu$' in build-device/
#   suite-A   collspec run --backend gpu --backend-opt algo=A --ranks 1-8
#             --quiet, for A = ring tree direct pairwise auto
#   nccl      collspec run --backend nccl-local --ranks 1 --quiet
#             (the suites and nccl run side by side: they check on the CPU,
#             16 cores, and share the GPU)
#   bench     bench_gpu, alone on the device: allreduce ring and tree,
#             float32 and bfloat16, 1 KiB to 1 GiB by factor 4
#             (docs/gpu-bench.md)
# Every stage has its own time limit (`timeout`), cut to what is left of
# the whole run's budget, and the script goes on after a failure. Without
# a device the GPU stages report SKIP, not FAIL; a stage that runs out of
# time, or finds no time left, is a FAIL. Exit status: 0 when no stage
# failed, 1 otherwise, 2 for a usage error.
#
# Usage: scripts/device-check.sh [--no-setup] [--budget S] [--limits-x N]
#   --no-setup      skip setup.sh (packages and build/ already there)
#   --budget S      the whole run's budget in seconds (default 290)
#   --limits-x N    multiply every stage's time limit by N (a slower
#                   machine than the H200's 16 cores; raise --budget too)
# Logs: one file per stage, and the JSON reports, under $OUT/device-check/
# when OUT is set (the device tool collects $OUT), otherwise under
# build-device/device-check/.

set -uo pipefail

dc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dc_self="$dc_root/scripts/device-check.sh"
dc_bdir="$dc_root/build-device"
dc_algos="ring tree direct pairwise auto"

dc_die() {
	echo "device-check.sh: $*" >&2
	exit 2
}

# The stages read DC_NAME, DC_TIMEOUT, DC_LOGDIR, DC_LOG (their own output,
# read back once the commands are done) and DC_RESULT, set by dc_start.

# ---- one stage's work (run as `device-check.sh --stage NAME` under
# `timeout`); each writes "STATUS detail" to $DC_RESULT --------------------

dc_result() {
	echo "$*" >"$DC_RESULT"
}

dc_stage_setup() {
	local cuda="${CS_CUDA:-AUTO}"

	# build-device is the CUDA build: a fresh build/ (the device machine's)
	# need not compile the kernels too, unless g++ is missing (setup.sh
	# installs it only for CUDA). An existing build/ is set up as
	# setup.sh would by itself, and CS_CUDA, when set, is obeyed.
	if [ -z "${CS_CUDA:-}" ] && [ ! -e "$dc_root/build/CMakeCache.txt" ] &&
		command -v g++ >/dev/null && command -v nvcc >/dev/null; then
		cuda=OFF
	fi
	if CS_CUDA="$cuda" bash "$dc_root/scripts/setup.sh"; then
		dc_result PASS "packages and build/ ready"
	else
		dc_result FAIL "setup.sh failed (see setup.log)"
	fi
}

dc_stage_build() {
	cmake -S "$dc_root" -B "$dc_bdir" -DCS_CUDA=ON \
		-DCMAKE_CUDA_ARCHITECTURES=90 || {
		dc_result FAIL "cmake configure failed (see build.log)"
		return
	}
	if cmake --build "$dc_bdir" -j "$(nproc)"; then
		dc_result PASS "build-device/ built for sm_90"
	else
		dc_result FAIL "cmake --build failed (see build.log)"
	fi
}

# ctest's counts: passed, failed and skipped of the tests it ran.
dc_stage_ctest() {
	local rc total failed skipped

	ctest --test-dir "$dc_bdir" -L '^gpu$' --output-on-failure
	rc=$?
	total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' \
		"$DC_LOG" | tail -n 1)
	failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' \
		"$DC_LOG" | tail -n 1)
	skipped=$(grep -c '^[[:space:]]*[0-9]* - .*(Skipped)$' "$DC_LOG")
	if [ -z "$total" ] || [ "$total" -eq 0 ]; then
		dc_result FAIL "no gpu test ran (exit $rc)"
	elif [ "$rc" -ne 0 ] || [ "${failed:-1}" -ne 0 ]; then
		dc_result FAIL "$((total - ${failed:-0} - skipped)) passed," \
			"${failed:-?} failed, $skipped skipped of $total"
	elif [ "$skipped" -eq "$total" ]; then
		dc_result SKIP "all $total gpu tests skipped (no device)"
	else
		dc_result PASS "$((total - skipped)) passed, $skipped skipped" \
			"of $total"
	fi
}

# A collspec run: PASS on exit 0; SKIP when every case was skipped with
# "no CUDA device" (the JSON report holds each case's reason); FAIL
# otherwise. $1: what it runs (for the message); the rest: collspec's
# arguments.
dc_collspec() {
	local what="$1" json="$DC_LOGDIR/$DC_NAME.jsonl" rc counts n nodev
	shift

	rm -f "$json"
	"$dc_bdir/conformance/collspec" run "$@" --quiet --json "$json"
	rc=$?
	counts=$(sed -n 's/^collspec: \([0-9]* cases: .*\) in .*/\1/p' \
		"$DC_LOG" | tail -n 1)
	n=$(sed -n 's/^collspec: \([0-9]*\) cases: .*/\1/p' "$DC_LOG" |
		tail -n 1)
	nodev=$(grep -c '"verdict":"SKIP".*"reason":"no CUDA device' \
		"$json" 2>/dev/null)
	if [ "$rc" -eq 0 ]; then
		dc_result PASS "$counts"
	elif [ -n "$n" ] && [ "$n" -gt 0 ] && [ "${nodev:-0}" -eq "$n" ]; then
		dc_result SKIP "$n cases, all skipped: no CUDA device"
	elif grep -q 'is not built into this collspec' \
		"$DC_LOG" && [ "$what" = nccl ]; then
		dc_result SKIP "collspec built without NCCL"
	else
		dc_result FAIL "exit $rc: ${counts:-$(tail -n 1 "$DC_LOG")}"
	fi
}

dc_stage_suite() {
	local algo="${DC_NAME#suite-}"

	dc_collspec "gpu $algo" --backend gpu --backend-opt "algo=$algo" \
		--ranks 1-8
}

dc_stage_nccl() {
	dc_collspec nccl --backend nccl-local --ranks 1
}

dc_stage_bench() {
	local rc rows

	"$dc_bdir/bench/bench_gpu" -b 1K -e 1G -f 4 -n 10 -w 3 \
		--time-limit "$((DC_TIMEOUT > 30 ? DC_TIMEOUT - 20 : 10))" \
		--json "$DC_LOGDIR/bench.json"
	rc=$?
	rows=$(grep -c '^  *[0-9]' "$DC_LOG")
	if grep -q '^bench_gpu: no CUDA device' "$DC_LOG"; then
		dc_result SKIP "no CUDA device"
	elif [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ]; then
		dc_result PASS "$rows rows"
	else
		dc_result FAIL "exit $rc, $rows rows"
	fi
}

# ---- the driver ------------------------------------------------------------

dc_now() {
	date +%s
}

# Start stage $1 in the background with limit $2 seconds (cut to what is
# left of the budget); its pid goes to dc_pid[$1]. A stage with less than
# 5 s left is not started.
dc_start() {
	local name="$1" limit=$(($2 * dc_scale)) left

	left=$((dc_deadline - $(dc_now)))
	[ "$left" -lt "$limit" ] && limit="$left"
	dc_limit[$name]=$limit
	dc_t0[$name]=$(dc_now)
	rm -f "$dc_logdir/$name".*
	if [ "$limit" -lt 5 ]; then
		echo "FAIL no time left in the ${dc_budget} s budget" \
			>"$dc_logdir/$name.result"
		dc_pid[$name]=""
		return
	fi
	echo "device-check.sh: $name (at most $limit s)"
	DC_NAME="$name" DC_TIMEOUT="$limit" DC_LOGDIR="$dc_logdir" \
		DC_LOG="$dc_logdir/$name.log" \
		DC_RESULT="$dc_logdir/$name.result" \
		timeout -k 10 "$limit" bash "$dc_self" --stage "$name" \
		>"$dc_logdir/$name.log" 2>&1 </dev/null &
	dc_pid[$name]=$!
}

# Wait for stage $1 and record its summary line.
dc_finish() {
	local name="$1" rc=0 st detail

	if [ -n "${dc_pid[$name]}" ]; then
		wait "${dc_pid[$name]}"
		rc=$?
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		st=FAIL
		detail="timed out after ${dc_limit[$name]} s"
	elif [ -s "$dc_logdir/$name.result" ]; then
		read -r st detail <"$dc_logdir/$name.result"
	else
		st=FAIL
		detail="ended without a result (exit $rc)"
	fi
	[ "$st" = FAIL ] && dc_failed=1
	[ "$st" = SKIP ] && dc_skipped=$((dc_skipped + 1))
	dc_lines+=("$(printf '%-14s %-4s %4d s  %s' "$name" "$st" \
		"$(($(dc_now) - dc_t0[$name]))" "$detail")")
	echo "device-check.sh: $name: $st $detail"
}

dc_run() {
	dc_start "$@"
	dc_finish "$1"
}

# The benchmark's key figures from its table: ring allreduce rows of each
# dtype at 64 MiB and at the largest size, with the copy bandwidth line.
dc_bench_figures() {
	local log="$dc_logdir/bench.log"

	if [ ! -s "$log" ]; then
		echo "(none: the benchmark did not run)"
		return 0
	fi
	if grep -q '^bench_gpu: no CUDA device' "$log"; then
		echo "(none: no CUDA device)"
		return 0
	fi
	grep '^# copy bandwidth' "$log"
	awk '$1 ~ /^[0-9]+$/ && $4 == "ring" && ($3 == "float32" ||
		$3 == "bfloat16") {
			found = 1
			if ($1 == 67108864) at64[$3] = $0
			if ($1 + 0 >= max[$3] + 0) { max[$3] = $1; top[$3] = $0 }
		}
		END {
			if (!found) {
				print "(no ring allreduce row in bench.log)"
				exit
			}
			print "       size(B)        count        type     algo" \
				"    time(us) algbw(GB/s) busbw(GB/s)" \
				" traffic(GB/s)   /copy [nccl(us) nccl_busbw" \
				" busbw/nccl]"
			split("float32 bfloat16", t, " ")
			for (i = 1; i <= 2; i++) {
				if (t[i] in at64) print at64[t[i]]
				if (t[i] in top && top[t[i]] != at64[t[i]])
					print top[t[i]]
			}
		}' "$log"
}

dc_summary() {
	local l

	echo
	echo "==== device-check summary ($(($(dc_now) - dc_start_time)) s of" \
		"${dc_budget} s; logs in $dc_logdir) ===="
	echo "devices: $dc_devices"
	for l in "${dc_lines[@]}"; do
		echo "$l"
	done
	echo "bench_gpu key figures (ring allreduce; GB/s = 1e9 bytes/s):"
	dc_bench_figures | sed 's/^/  /'
	if [ "$dc_failed" -eq 0 ] && [ "$dc_skipped" -eq 0 ]; then
		echo "device-check: PASS (every stage passed)"
	elif [ "$dc_failed" -eq 0 ]; then
		echo "device-check: no stage failed, but $dc_skipped skipped" \
			"(exit 0; a GPU stage skips without a device)"
	else
		echo "device-check: FAIL (see the stages above)"
	fi
}

dc_main() {
	local setup=1 a

	dc_budget=290
	dc_scale=1
	while [ $# -gt 0 ]; do
		case "$1" in
		--no-setup) setup=0 ;;
		--limits-x)
			if [ $# -lt 2 ] || ! [[ "$2" =~ ^[1-9][0-9]*$ ]]; then
				dc_die "--limits-x needs a whole factor >= 1"
			fi
			dc_scale="$2"
			shift
			;;
		--budget)
			if [ $# -lt 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
				dc_die "--budget needs a number of seconds"
			fi
			dc_budget="$2"
			shift
			;;
		-h | --help)
			sed -n '3,/^$/s/^# \{0,1\}//p' "$dc_self"
			exit 0
			;;
		*) dc_die "unknown argument '$1' (--no-setup, --budget S," \
			"--limits-x N)" ;;
		esac
		shift
	done
	cd "$dc_root" || dc_die "cannot enter $dc_root"
	dc_logdir="${OUT:+$OUT/device-check}"
	dc_logdir="${dc_logdir:-$dc_bdir/device-check}"
	mkdir -p "$dc_logdir" || dc_die "cannot make $dc_logdir"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
		export PATH="/usr/local/cuda/bin:$PATH"
	fi
	dc_devices=$(nvidia-smi -L 2>/dev/null | sed 's/ (UUID.*//' |
		paste -sd ';' -)
	dc_devices="${dc_devices:-none found by nvidia-smi}"
	dc_start_time=$(dc_now)
	dc_deadline=$((dc_start_time + dc_budget))
	declare -gA dc_pid dc_limit dc_t0
	dc_lines=()
	dc_failed=0
	dc_skipped=0

	if [ "$setup" -eq 1 ]; then
		dc_run setup 150
	else
		dc_lines+=("$(printf '%-14s %-4s %4d s  %s' setup SKIP 0 \
			"--no-setup")")
		dc_skipped=1
	fi
	dc_run build 180
	dc_run ctest 90
	for a in $dc_algos; do
		dc_start "suite-$a" 150
	done
	dc_start nccl 150
	for a in $dc_algos; do
		dc_finish "suite-$a"
	done
	dc_finish nccl
	dc_run bench 90
	dc_summary | tee "$dc_logdir/summary.txt"
	return "$dc_failed"
}

if [ "${1:-}" = --stage ]; then
	case "${2:-}" in
	setup | build | ctest | nccl | bench) "dc_stage_$2" ;;
	suite-*) dc_stage_suite ;;
	*) dc_die "unknown stage '${2:-}'" ;;
	esac
	exit 0
fi
dc_main "$@"
