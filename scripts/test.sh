#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# test.sh - set up and build (scripts/setup.sh), then run the project's
# tests in stages; a failing stage is named, the others still run:
#   tests  the whole CTest suite in build/ (tests labelled `gpu` report
#          "skipped" without a device)
#   asan   the `asan` preset (gcc, ASan + UBSan, no CUDA) in build-asan/:
#          every test but the MPI ones with leak detection (ctest --preset
#          asan), then the MPI ones with Open MPI's own leaks suppressed
#          (ctest --preset asan-mpi, .ci/lsan-openmpi.supp)
#   fuzz   the `fuzz` preset (clang, libFuzzer, ASan + UBSan) in
#          build-fuzz/: each parser's fuzz target for CS_FUZZ_SECONDS
#          seconds (ctest --preset fuzz); none may crash
# docs/ci.md says what each stage runs, how long it takes and how to
# reproduce a fuzz crash.
#
# Extra arguments go to ctest in the `tests` stage, and then only that
# stage runs unless CS_TEST_STAGES says otherwise, e.g.:
#   scripts/test.sh -L unit
# Environment:
#   CS_TEST_STAGES   stages to run, in order (default "tests asan fuzz";
#                    "tests" when arguments are given)
#   CS_FUZZ_SECONDS  seconds per fuzz target (default 20)
# Exits non-zero when the set-up, a build or any test fails.

set -euo pipefail

if [ $# -gt 0 ]; then
	cs_stages="${CS_TEST_STAGES:-tests}"
else
	cs_stages="${CS_TEST_STAGES:-tests asan fuzz}"
fi
case " $cs_stages " in
*" fuzz "*) export CS_SETUP_FUZZ=1 ;; # setup.sh installs clang, libFuzzer
esac

# shellcheck source=setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh" # also cds to the repo root
echo "test.sh: set-up and build of build/ took $SECONDS s"

cs_stage_tests() {
	ctest --test-dir build --output-on-failure -j2 "$@"
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
	asan) echo "ctest --preset asan -R NAME (or --preset asan-mpi)" ;;
	fuzz) echo "ctest --preset fuzz -R NAME; docs/ci.md tells how to" \
		"replay a crash-* input" ;;
	esac
}

cs_failed=()
for cs_stage in $cs_stages; do
	case "$cs_stage" in
	tests | asan | fuzz) ;;
	*) cs_die "unknown stage '$cs_stage' in CS_TEST_STAGES" \
		"(valid: tests asan fuzz)" ;;
	esac
	echo "test.sh: stage $cs_stage: starting"
	cs_t0=$SECONDS
	if "cs_stage_$cs_stage" "$@"; then
		echo "test.sh: stage $cs_stage: passed in" \
			"$((SECONDS - cs_t0)) s"
	else
		echo "test.sh: error: stage $cs_stage failed after" \
			"$((SECONDS - cs_t0)) s (see above); re-run one test" \
			"with: $(cs_stage_hint "$cs_stage")" >&2
		cs_failed+=("$cs_stage")
	fi
done
if [ ${#cs_failed[@]} -gt 0 ]; then
	echo "test.sh: error: failed stages: ${cs_failed[*]}" >&2
	exit 1
fi
echo "test.sh: all stages passed: $cs_stages"
