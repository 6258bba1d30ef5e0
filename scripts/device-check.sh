#!/usr/bin/env bash
# shellcheck disable=SC2153,SC2094 # DC_* come from dc_start; a stage reads its own log
# device-check.sh - everything CollSpec checks on a GPU, in one run that
# fits in 4 minutes on one H200 with 16 cores (the GPU test machine: nvcc,
# CMake, python3 with the nvidia-nccl-cu13 wheel; no MPI, CMocka, Check,
# apt or network), ending with a summary: one line per stage (PASS, FAIL or
# SKIP, with counts and seconds) and the benchmark's key figures against
# the targets of issue 18 (ring allreduce at 256 MiB and 1 GiB, P = 8
# virtual ranks, and all-to-all, each against the same run's device copy
# bandwidth: /copy >= 0.85). Stages, in order:
#   setup     bash scripts/setup.sh: the Debian packages, and build/ (a
#             new build/ without CUDA when g++ and nvcc are already there
#             and CS_CUDA is not set: build-device is the CUDA build, so
#             the kernels are not compiled twice on a fresh machine);
#             --no-setup skips it (the GPU test machine has no apt)
#   build     build-device/: cmake -DCS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
#             -DCS_MPI=OFF unless an mpicc on PATH runs (CS_DC_MPI
#             overrides)
#             -DCS_TEST_FRAMEWORKS=AUTO -DCS_TEST_MUTANTS=OFF, Release;
#             then only collspec, bench_gpu and the `gpu` tests' programs,
#             one job per core
#   ctest     ctest -L '^gpu$' in build-device/, with CS_GPU_TEST_SIZE (test_gpu_coll's CS_GPU_COLL_BIG)
#             (test_gpu_coll's large count) in the environment
#   suite-A   collspec run --backend gpu --backend-opt algo=A --ranks 1-8
#             --quiet, for A = ring tree direct pairwise auto
#   nccl      collspec run --backend nccl-local --ranks 1 --quiet
#             (the suites and nccl run side by side: they check on the CPU,
#             16 cores, and share the GPU)
#   dcheck    the value check on the device (--backend-opt dcheck=1)
#             against the host's (dcheck=0): the random-mode cases at
#             --ranks 1-4 give the same records
#             (tests/conformance/test_dcheck_diff.py), beside the suites
#   bench     bench_gpu, alone on the device: --ranks 8, allreduce ring
#             and alltoall pairwise, float32 and bfloat16, at 256 MiB and
#             1 GiB (docs/gpu-bench.md)
# Every stage has its own time limit (`timeout`), cut to what is left of
# the whole run's budget, and the script goes on after a failure. Without
# a device the GPU stages report SKIP, not FAIL; a stage that runs out of
# time, or finds no time left, is a FAIL. Exit status: 0 when no stage
# failed, 1 otherwise, 2 for a usage error.
#
# Usage: scripts/device-check.sh [--no-setup] [--budget S] [--limits-x N]
#   --no-setup      skip setup.sh (packages and build/ already there)
#   --budget S      the whole run's budget in seconds (default 240)
#   --limits-x N    multiply every stage's time limit by N (a slower
#                   machine than the H200's 16 cores; raise --budget too)
# Environment:
#   OUT               where the results go (the device tool's folder):
#                     $OUT/summary.txt and $OUT/device-check-logs.tar.gz,
#                     two files; without OUT, build-device/device-check/
#   CS_GPU_TEST_SIZE  test_gpu_coll's large element count (default 65537),
#                     handed to the test as CS_GPU_COLL_BIG
#   CS_DC_MPI         ON or OFF: build with or without MPI (default: ON
#                     when `mpicc --version` runs)
#   CS_DC_BUILD_DIR   the build folder (default build-device)
#   CS_DC_CMAKE_ARGS  more cmake arguments for the build stage (split on
#                     spaces; tests/device/rehearse.sh uses it)
# Logs: one file per stage, the JSON reports and summary.txt, in the build
# folder's device-check/; with OUT set, packed into one archive there.

set -uo pipefail

dc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dc_self="$dc_root/scripts/device-check.sh"
dc_bdir="${CS_DC_BUILD_DIR:-$dc_root/build-device}"
case "$dc_bdir" in /*) ;; *) dc_bdir="$dc_root/$dc_bdir" ;; esac
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

# MPI for the device build: CS_DC_MPI, else ON when an MPI compiler on
# PATH runs (CMake's FindMPI starts from it).
dc_mpi() {
	case "${CS_DC_MPI:-}" in
	ON | OFF) echo "$CS_DC_MPI" ;;
	*) mpicc --version >/dev/null 2>&1 && echo ON || echo OFF ;;
	esac
}

# What the later stages run: collspec, bench_gpu and every `gpu` test's
# program (cs_test names the program after the test).
dc_targets() {
	echo collspec bench_gpu
	ctest --test-dir "$dc_bdir" -N -L '^gpu$' |
		sed -n 's/^ *Test *#[0-9]*: *\([A-Za-z0-9_]*\)$/\1/p'
}

dc_stage_build() {
	local mpi targets extra=()

	mpi=$(dc_mpi)
	read -r -a extra <<<"${CS_DC_CMAKE_ARGS:-}"
	# where ccache is installed (not the GPU test machine), nvcc runs
	# through it: CI's rehearsal then takes the kernels that build/
	# compiled with the same command (scripts/setup.sh)
	command -v ccache >/dev/null &&
		extra+=(-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
	cmake -S "$dc_root" -B "$dc_bdir" -DCS_CUDA=ON \
		-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
		-DCS_MPI="$mpi" -DCS_TEST_FRAMEWORKS=AUTO \
		-DCS_TEST_MUTANTS=OFF "${extra[@]}" || {
		dc_result FAIL "cmake configure failed (see build.log)"
		return
	}
	targets=$(dc_targets | paste -sd ' ' -)
	echo "device-check.sh: targets: $targets"
	# shellcheck disable=SC2086 # one target a word
	if cmake --build "$dc_bdir" -j "$(nproc)" --target $targets; then
		dc_result PASS "sm_90, MPI $mpi, $(wc -w <<<"$targets")" \
			"targets"
	else
		dc_result FAIL "cmake --build failed (see build.log)"
	fi
}

# ctest's counts: passed, failed and skipped of the tests it ran.
dc_stage_ctest() {
	local rc total failed skipped

	CS_GPU_COLL_BIG="${CS_GPU_TEST_SIZE:-65537}" \
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

# The value check where the data is (docs/harness.md, section 2.2), which
# the gpu backend runs only with dcheck=1 until a device has run it: the
# random-mode cases at --ranks 1-4 must give the same JSON records with
# dcheck=1 and dcheck=0 (tests/conformance/test_dcheck_diff.py).
dc_stage_dcheck() {
	local rc

	if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
		dc_result SKIP "no CUDA device"
		return
	fi
	python3 "$dc_root/tests/conformance/test_dcheck_diff.py" \
		--min-cases 300 -- "$dc_bdir/conformance/collspec" run \
		--backend gpu --ranks 1-4 --mode random --quiet
	rc=$?
	if [ "$rc" -eq 0 ]; then
		dc_result PASS "the same records with dcheck=1 and dcheck=0"
	else
		dc_result FAIL "exit $rc: $(tail -n 1 "$DC_LOG")"
	fi
}

# The rows that answer issue 18's targets: ring allreduce and pairwise
# all-to-all at 256 MiB and 1 GiB per rank, 8 virtual ranks, with the copy
# bandwidth of the same run.
dc_stage_bench() {
	local rc rows

	"$dc_bdir/bench/bench_gpu" --ranks 8 --coll allreduce,alltoall \
		--algo ring,pairwise --dtype float32,bfloat16 -b 256M -e 1G \
		-f 4 -n 5 -w 2 \
		--time-limit "$((DC_TIMEOUT > 15 ? DC_TIMEOUT - 10 : 5))" \
		--json "$DC_LOGDIR/bench.json"
	rc=$?
	rows=$(grep -c '^  *[0-9]' "$DC_LOG")
	if grep -q '^bench_gpu: no CUDA device' "$DC_LOG"; then
		dc_result SKIP "no CUDA device"
	elif [ ! -x "$dc_bdir/bench/bench_gpu" ]; then
		dc_result FAIL "no bench_gpu in $dc_bdir (the build failed)"
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

# The benchmark's key figures: its copy bandwidth line and every row (the
# stage runs only the target rows), each with its collective and whether
# /copy (the 9th column) reaches the target 0.85.
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
	awk '/^# [a-z]+(, op sum)?, out of place,/ {
			coll = $2
			sub(/,$/, "", coll)
		}
		$1 ~ /^[0-9]+$/ {
			if (!found)
				print "coll            size(B)        count" \
					"        type     algo    time(us)" \
					" algbw(GB/s) busbw(GB/s) traffic(GB/s)" \
					"   /copy  target /copy >= 0.85"
			found = 1
			printf "%-9s %s  %s\n", coll, $0,
				($9 + 0 >= 0.85) ? "met" : "not met"
		}
		END {
			if (!found)
				print "(no row in bench.log)"
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
	echo "bench_gpu key figures (8 ranks on device 0; GB/s = 1e9" \
		"bytes/s; /copy: the busiest device's traffic over the copy" \
		"bandwidth):"
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

	dc_budget=240
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
	dc_logdir="$dc_bdir/device-check"
	mkdir -p "$dc_logdir" || dc_die "cannot make $dc_logdir"
	if [ -n "${OUT:-}" ] && ! mkdir -p "$OUT"; then
		dc_die "cannot make OUT=$OUT"
	fi
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

	# The limits (seconds) fit the 240 s budget on the H200 with 16
	# cores; the suites and nccl share theirs, side by side.
	if [ "$setup" -eq 1 ]; then
		dc_run setup 150
	else
		dc_lines+=("$(printf '%-14s %-4s %4d s  %s' setup SKIP 0 \
			"not run (--no-setup)")")
	fi
	dc_run build 110
	dc_run ctest 40
	for a in $dc_algos; do
		dc_start "suite-$a" 50
	done
	dc_start nccl 50
	dc_start dcheck 50
	for a in $dc_algos; do
		dc_finish "suite-$a"
	done
	dc_finish nccl
	dc_finish dcheck
	dc_run bench 30
	dc_summary | tee "$dc_logdir/summary.txt"
	dc_pack
	return "$dc_failed"
}

# With OUT set (the device tool brings back at most 8 files, two folders
# down): $OUT/summary.txt and every log in $OUT/device-check-logs.tar.gz.
dc_pack() {
	[ -n "${OUT:-}" ] || return 0
	cp "$dc_logdir/summary.txt" "$OUT/summary.txt" &&
		tar -czf "$OUT/device-check-logs.tar.gz" \
			-C "$(dirname "$dc_logdir")" "$(basename "$dc_logdir")" &&
		echo "device-check.sh: $OUT/summary.txt," \
			"$OUT/device-check-logs.tar.gz"
}

if [ "${1:-}" = --stage ]; then
	case "${2:-}" in
	setup | build | ctest | nccl | dcheck | bench) "dc_stage_$2" ;;
	suite-*) dc_stage_suite ;;
	*) dc_die "unknown stage '${2:-}'" ;;
	esac
	exit 0
fi
dc_main "$@"
