#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# run.sh - set up and build (scripts/setup.sh), then run CollSpec's main
# job. Extra arguments are passed to the main job's collspec command.

set -euo pipefail

# shellcheck source=setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh" # also cds to the repo root

collspec=build/conformance/collspec
if [ ! -x "$collspec" ]; then
	echo "run.sh: error: $collspec was not built (is conformance/ part of" \
		"the build yet? see the cmake output above)" >&2
	exit 1
fi

# ---- the main job: change it here ------------------------------------------
# Is this machine's MPI conformant? The quick suite on the MPI library's own
# collectives at 1 to 8 ranks (collspec launches mpiexec itself). Exits 0
# when nothing failed, 1 on failures, 2 when the run could not happen.
"$collspec" run --backend mpi --ranks 1-8 "$@"
