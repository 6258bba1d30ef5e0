#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# test.sh - set up and build (scripts/setup.sh), then run the whole test
# suite with CTest. Tests labelled `gpu` report "skipped" without a device.
# Extra arguments go to ctest, e.g.: scripts/test.sh -L unit
# Exits non-zero when the set-up, the build or any test fails.

set -euo pipefail

# shellcheck source=setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh" # also cds to the repo root

if ! ctest --test-dir build --output-on-failure -j2 "$@"; then
	echo "test.sh: error: some tests failed (listed above); re-run one" \
		"with: ctest --test-dir build --output-on-failure -R NAME" >&2
	exit 1
fi
