#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# test.sh - set up and build (scripts/setup.sh), then run the project's
# tests in stages; a failing stage is named, the others still run. With no
# arguments it runs the stages a developer needs before every commit,
# `tests quick`, and says how to run the rest; CS_TEST_STAGES=all (what
# .ci/run sets) runs every stage:
#   tests  the CTest suite in build/ but the tests labelled `slow` (tests
#          labelled `gpu` report "skipped" without a device; the `large`
#          one skips unless asked)
#   slow   the tests labelled `slow` in build/ (a minute or more each on
#          2 cores: test_symcheck, gpusim_quick_auto, _ring, _tree,
#          mutant_ar_far_read)
#   quick  the quick suite on the mpi backend at --ranks 1-8 against Open
#          MPI (build/), its known defects expected
#          (--expect docs/expectations/openmpi-4.1.txt)
#   mpich  CS_MPI=mpich CS_CUDA=OFF CS_BUILD_TYPE=Release scripts/setup.sh
#          (build-mpich/, -O3), the tests labelled `mpi` there and the
#          quick suite on the mpi backend at --ranks 1-8 against MPICH, its
#          known defects expected (--expect docs/expectations/mpich-4.0.txt);
#          with .ci/ucp_yield.c preloaded, so that waiting ranks yield
#          their core (MPICH 4.0's ch4:ucx polls without yielding)
#   sweep  other implementations and algorithms, known defects expected:
#          the quick suite on the gloo backend at --ranks 1-8
#          (--expect docs/expectations/gloo.txt; SKIP, with the reason,
#          when build/ has no gloo backend), then scripts/mpi-sweep.sh
#          --sample against Open MPI (build/; --expect
#          docs/expectations/openmpi-4.1.txt --gate): any FAIL, XPASS or
#          row that ran no case fails the stage
#   builds the `debug` preset (-O0, assertions on, no CUDA) without the
#          tests (BUILD_TESTING OFF: no CMocka, no Check needed), warnings
#          as errors; with `mpich` (Release), `asan` (Debug) and build/
#          (CS_BUILD_TYPE: .ci/run makes it Release) every build type is
#          built with -Werror
#   asan   the `asan` preset (gcc, ASan + UBSan, Debug, no CUDA, no
#          mutants) in build-asan/: every test but the MPI ones with leak
#          detection (ctest --preset asan), then the MPI ones with Open
#          MPI's own leaks suppressed (ctest --preset asan-mpi,
#          .ci/lsan-openmpi.supp)
#   fuzz   the `fuzz` preset (clang, libFuzzer, ASan + UBSan) in
#          build-fuzz/: each parser's fuzz target for CS_FUZZ_SECONDS
#          seconds (ctest --preset fuzz); none may crash
#   large  the test labelled `large` (about 8 GiB) in build/, when
#          /proc/meminfo's MemAvailable holds what it needs (otherwise it
#          is skipped, with the reason, and the stage passes)
#   device the rehearsal of scripts/device-check.sh --no-setup as on the
#          GPU test machine (tests/device/rehearse.sh: MPI, CMocka, Check,
#          apt and the network hidden; build/device-rehearsal/): the build
#          passes, every GPU stage reports SKIP with its reason
# docs/ci.md says what each stage runs, how long it takes and how to
# reproduce a fuzz crash.
#
# Extra arguments go to ctest in the `tests` stage, and then only that
# stage runs unless CS_TEST_STAGES says otherwise, e.g.:
#   scripts/test.sh -L unit
# Environment:
#   CS_TEST_STAGES   stages to run, in order (default "tests quick";
#                    "tests" when arguments are given; "all": tests slow
#                    quick mpich sweep builds asan fuzz large device)
#   CS_FUZZ_SECONDS  seconds per fuzz target (default 20)
# Exits non-zero when the set-up, a build or any test fails.

set -euo pipefail

cs_all_stages="tests slow quick mpich sweep builds asan fuzz large device"
if [ $# -gt 0 ]; then
	cs_stages="${CS_TEST_STAGES:-tests}"
else
	cs_stages="${CS_TEST_STAGES:-tests quick}"
fi
[ "$cs_stages" = all ] && cs_stages="$cs_all_stages"
case " $cs_stages " in
*" fuzz "*) export CS_SETUP_FUZZ=1 ;; # setup.sh installs clang, libFuzzer
esac

# shellcheck source=setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh" # also cds to the repo root
echo "test.sh: set-up and build of build/ took $SECONDS s"
cs_times="set-up $SECONDS s" # each stage's time, for the last lines

# Without arguments, every test but those labelled `slow` (the `slow`
# stage runs them); with arguments, what they select.
cs_stage_tests() {
	if [ $# -eq 0 ]; then
		set -- -LE '^slow$'
	fi
	ctest --test-dir build --output-on-failure -j2 "$@"
}

# The tests labelled `slow` (a minute or more each on 2 cores): the
# symbolic proof of every schedule, three of the gpu-sim quick suites, a
# mutant that faults on every case.
cs_stage_slow() {
	ctest --test-dir build --output-on-failure -j2 -L '^slow$'
}

# The quick suite on the mpi backend at 1 to 8 ranks with the library's
# known defects expected: build dir, expectations file.
cs_quick_suite() {
	"$1/conformance/collspec" run --backend mpi --ranks 1-8 --quiet \
		--expect "docs/expectations/$2"
}

cs_stage_quick() {
	cs_quick_suite build openmpi-4.1.txt
}

cs_stage_mpich() {
	local rc=0 yield=build-mpich/libucp_yield.so

	# the GPU parts are the same code whatever the MPI: not built again;
	# Release, so that -O3's warnings are errors in CI. The preloaded
	# library only makes waiting ranks yield (.ci/ucp_yield.c says why);
	# the tests pass without it, more slowly.
	CS_MPI=mpich CS_CUDA=OFF CS_BUILD_TYPE=Release bash scripts/setup.sh ||
		return 1
	cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$yield" \
		.ci/ucp_yield.c -ldl || return 1
	LD_PRELOAD="$PWD/$yield" ctest --test-dir build-mpich \
		--output-on-failure -j2 -L '^mpi$' || rc=1
	LD_PRELOAD="$PWD/$yield" cs_quick_suite build-mpich mpich-4.0.txt ||
		rc=1
	return "$rc"
}

# Gloo's collectives on the quick suite, then a sample of every algorithm
# key of Open MPI (scripts/mpi-sweep.sh --sample), each with its known
# defects expected; a Gloo-less build/ skips the first part, saying why.
cs_stage_sweep() {
	local rc=0 cs=build/conformance/collspec out=build/sweep-sample
	local nogloo

	# `collspec list` says "  gloo   (not built: needs ...)" without it
	nogloo=$("$cs" list | sed -n 's/^  gloo  *(\(not built.*\))$/\1/p')
	if [ -n "$nogloo" ]; then
		echo "test.sh: stage sweep: gloo: SKIP ($nogloo)"
	else
		"$cs" run --backend gloo --ranks 1-8 --timeout 60 --quiet \
			--expect docs/expectations/gloo.txt || rc=1
	fi
	rm -rf "$out"
	bash scripts/mpi-sweep.sh --sample --gate --out "$out" \
		--expect docs/expectations/openmpi-4.1.txt || rc=1
	return "$rc"
}

# A plain Debug build (-O0) without the tests, as a user's `cmake
# -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=OFF` makes it, warnings as
# errors (the other build types: see the top of this file).
cs_stage_builds() {
	cmake --preset debug >/dev/null &&
		cmake --build --preset debug -j "$(nproc)"
}

cs_stage_large() {
	CS_TEST_LARGE=1 ctest --test-dir build --output-on-failure -L large ||
		return 1
	# a skip passes the stage; say why it was skipped
	grep -h "^skipped:" build/Testing/Temporary/LastTest.log || true
}

cs_stage_device() {
	bash tests/device/rehearse.sh build/device-rehearsal
}

cs_stage_asan() {
	cmake --preset asan >/dev/null &&
		cmake --build --preset asan -j "$(nproc)" &&
		ctest --preset asan &&
		ctest --preset asan-mpi
}

cs_stage_fuzz() {
	cmake --preset fuzz -DCS_FUZZ_SECONDS="${CS_FUZZ_SECONDS:-20}" \
		>/dev/null &&
		cmake --build --preset fuzz -j "$(nproc)" &&
		ctest --preset fuzz
}

# How to re-run one test of a stage, for the failure message.
cs_stage_hint() {
	case "$1" in
	tests) echo "ctest --test-dir build --output-on-failure -R NAME" ;;
	slow) echo "ctest --test-dir build --output-on-failure -L slow" ;;
	quick) echo "build/conformance/collspec run --backend mpi" \
		"--ranks 1-8 --expect docs/expectations/openmpi-4.1.txt" ;;
	mpich) echo "ctest --test-dir build-mpich --output-on-failure -R" \
		"NAME, or build-mpich/conformance/collspec run --backend mpi" \
		"--ranks 1-8 --expect docs/expectations/mpich-4.0.txt" ;;
	sweep) echo "build/conformance/collspec run --backend gloo --ranks" \
		"1-8 --expect docs/expectations/gloo.txt, or scripts/mpi-sweep.sh" \
		"--sample --gate --expect docs/expectations/openmpi-4.1.txt" \
		"(each row's log: build/sweep-sample/)" ;;
	builds) echo "cmake --preset debug && cmake --build --preset debug" ;;
	large) echo "CS_TEST_LARGE=1 ctest --test-dir build -L large" ;;
	device) echo "bash tests/device/rehearse.sh (logs in" \
		"build/device-rehearsal/build/device-check/)" ;;
	asan) echo "ctest --preset asan -R NAME (or --preset asan-mpi)" ;;
	fuzz) echo "ctest --preset fuzz -R NAME; docs/ci.md tells how to" \
		"replay a crash-* input" ;;
	esac
}

cs_failed=()
for cs_stage in $cs_stages; do
	case "$cs_stage" in
	tests | slow | quick | mpich | sweep | builds | asan | fuzz | large | device) ;;
	*) cs_die "unknown stage '$cs_stage' in CS_TEST_STAGES" \
		"(valid: tests slow quick mpich sweep builds asan fuzz large" \
		"device)" ;;
	esac
	echo "test.sh: stage $cs_stage: starting"
	cs_t0=$SECONDS
	if "cs_stage_$cs_stage" "$@"; then
		echo "test.sh: stage $cs_stage: passed in" \
			"$((SECONDS - cs_t0)) s"
		cs_times+=", $cs_stage $((SECONDS - cs_t0)) s"
	else
		cs_times+=", $cs_stage $((SECONDS - cs_t0)) s (failed)"
		echo "test.sh: error: stage $cs_stage failed after" \
			"$((SECONDS - cs_t0)) s (see above); re-run one test" \
			"with: $(cs_stage_hint "$cs_stage")" >&2
		cs_failed+=("$cs_stage")
	fi
done
# the times again at the end, where a log's tail shows them
echo "test.sh: times: $cs_times; in all $SECONDS s"
if [ ${#cs_failed[@]} -gt 0 ]; then
	echo "test.sh: error: failed stages: ${cs_failed[*]}" >&2
	exit 1
fi
echo "test.sh: all stages passed: $cs_stages"
if [ "$cs_stages" != "$cs_all_stages" ]; then
	echo "test.sh: not run here: the other stages of CI (the tests" \
		"labelled slow, MPICH, Gloo and the MPI algorithm sample, a" \
		"Debug build, sanitizers, fuzzing, the 8 GiB test, the device" \
		"rehearsal); run every stage" \
		"with: CS_TEST_STAGES=all scripts/test.sh (as .ci/run does)"
fi
