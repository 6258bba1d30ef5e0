#!/usr/bin/env bash
# mpi-sweep.sh - the quick suite of each collective under each algorithm
# and component the MPI library of a collspec build offers (`collspec run
# --mpi-alg list`), and a table: one row per algorithm, with its cases,
# passes, failures, refusals and skips, then the failures grouped by
# signature (check, collective, dtype, op). docs/running.md, "--mpi-alg".
#
# usage: scripts/mpi-sweep.sh [--collspec PATH] [--ranks SPEC] [--coll L]
#          [--count L] [--keys L] [--sample] [--out DIR] [--timeout S]
#          [--expect FILE] [--report DIR] [--gate]
#   --collspec PATH  the binary (default build/conformance/collspec; for
#                    MPICH build-mpich/conformance/collspec)
#   --ranks SPEC     world sizes (default 1-8)
#   --coll L         only the rows of these collectives (comma list)
#   --count L        only these counts of the quick suite (collspec run's
#                    --count)
#   --keys L         only these --mpi-alg keys (comma list: allreduce,
#                    iallreduce, component, default, ...)
#   --sample         a short sweep: ranks 2,3 and for each key its first
#                    algorithm only, count 1..1025 (--count 1,7,1025)
#   --out DIR        where each row's JSON Lines and log go (default a new
#                    directory under ${TMPDIR:-/tmp})
#   --timeout S      seconds a case may run (default 60)
#   --expect FILE    known defects, handed to every run (XFAIL rows)
#   --report DIR     only print the table of an earlier sweep's --out DIR
#   --gate           exit 1 when a row has a FAIL that is not a refusal
#                    (below), an --expect entry is XPASS, or a row ran no
#                    case; the table ends with `gate: passed` or `gate:
#                    failed: ...` (what CI's stage `sweep` uses)
# Rows: every `--mpi-alg list` line (blocking ones with api=blocking,
# nonblocking ones with api=nonblocking; Open MPI's han, which takes only
# communicators that span nodes, is listed as not run), plus "default" rows
# without --mpi-alg for api=blocking, nonblocking and persistent.
#
# MPICH: a row whose run was aborted (its worker stopped before the cases
# of a world size: an algorithm that runs other collectives inside, like
# smp, or that MPICH's own communicator set-up runs, refused there under
# MPIR_CVAR_COLLECTIVE_FALLBACK=error) is run again with fallback=silent,
# as NAME+silent.
#
# Refused: a FAIL whose reason is the library's refusal of a forced
# algorithm: MPICH "User set collective algorithm is not usable for the
# provided arguments" (--mpi-alg sets MPIR_CVAR_COLLECTIVE_FALLBACK=error),
# Open MPI MPI_ERR_UNSUPPORTED_OPERATION returned by the call, or (Open
# MPI) a worker that mpiexec reports ended with status 52, the error class
# MPI_ERR_UNSUPPORTED_OPERATION that MPI_ERRORS_ARE_FATAL aborts with
# (the harness's own MPI_Comm_split runs the forced allgather, and its
# communicators keep the fatal handler). Any other crash or hang is a
# failure.
#
# exit status: 0 the sweep ran (failures are results: see the table;
# with --gate: and nothing failed the gate), 1 with --gate: something
# failed it, 2 bad options or no collspec.
set -u

collspec=build/conformance/collspec
ranks=1-8
colls=""
keys=""
sample=0
out=""
timeout=60
expect=""
report=""
counts=""
gate=()

die() { echo "mpi-sweep.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--collspec) collspec=${2:?}; shift ;;
	--ranks) ranks=${2:?}; shift ;;
	--coll) colls=${2:?}; shift ;;
	--count) counts=${2:?}; shift ;;
	--keys) keys=${2:?}; shift ;;
	--sample) sample=1 ;;
	--out) out=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	--expect) expect=${2:?}; shift ;;
	--report) report=${2:?}; shift ;;
	--gate) gate=(--gate) ;;
	-h|--help) sed -n '2,39p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
table=$(dirname "$0")/mpi-sweep-table.py
if [ -n "$report" ]; then
	[ -f "$report/sweep.txt" ] || die "no sweep results in '$report'"
	exec python3 "$table" "${gate[@]}" "$report"
fi
[ -x "$collspec" ] || die "no collspec at '$collspec' (build it, or --collspec PATH)"
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/mpi-sweep.XXXXXX")
mkdir -p "$out" || die "cannot create '$out'"
list=$("$collspec" run --mpi-alg list) || die "collspec run --mpi-alg list failed"
extra=()
if [ "$sample" = 1 ]; then
	[ "$ranks" = 1-8 ] && ranks=2,3
	[ -z "$counts" ] && counts=1,7,1025
fi
[ -n "$counts" ] && extra+=(--count "$counts")
[ -n "$expect" ] && extra+=(--expect "$expect")

# in_list ITEM LIST: is ITEM in the comma list LIST (empty LIST: yes)?
in_list() { [ -z "$2" ] || [[ ",$2," == *",$1,"* ]]; }

# wanted COLLS: does the comma list COLLS meet --coll? Prints the meet.
wanted() {
	local c m=""
	[ -z "$colls" ] && { echo "$1"; return; }
	for c in ${1//,/ }; do in_list "$c" "$colls" && m="$m${m:+,}$c"; done
	[ -n "$m" ] && echo "$m"
}

# row NAME API COLLS [SPEC]: one run, its JSON Lines in $out/NAME.jsonl.
row() {
	local name=$1 api=$2 cl=$3 spec=${4:-} args=()
	[ -n "$spec" ] && args+=(--mpi-alg "$spec")
	echo "mpi-sweep.sh: $name (api=$api, --coll $cl)" >&2
	"$collspec" run --backend mpi --backend-opt "api=$api" --ranks "$ranks" \
		--coll "$cl" --timeout "$timeout" --quiet "${args[@]}" \
		"${extra[@]}" --json "$out/$name.jsonl" >"$out/$name.log" 2>&1
	echo "$name $api $cl" >>"$out/rows.txt"
}

start=$(date +%s)
: >"$out/rows.txt"
printf 'library=%s\nranks=%s%s\n' \
	"$(sed -n '1s/^# //p' <<<"$list" | tr '\t' ' ')" "$ranks" \
	"${counts:+, counts $counts}" >"$out/sweep.txt"
all="allreduce,allgather,reducescatter,alltoall,alltoallv,broadcast,reduce,gather,scatter"
if in_list default "$keys"; then
	for api in blocking nonblocking persistent; do
		cl=$(wanted "$all") && row "default-$api" "$api" "$cl"
	done
fi
seen=""
while read -r spec cl api; do
	[ "${spec#\#}" = "$spec" ] || continue # (the library's name)
	key=${spec%%=*}
	in_list "$key" "$keys" || continue
	if [ "$sample" = 1 ]; then
		[[ " $seen " == *" $key "* ]] && continue
		seen="$seen $key"
	fi
	cl=$(wanted "$cl") || continue
	if [ "$api" = multinode ]; then # (one node: the component is not used)
		echo "${spec//=/-} $api $cl" >>"$out/rows.txt"
		continue
	fi
	row "${spec//=/-}" "$api" "$cl" "$spec"
	# MPICH: an algorithm whose inner collectives refuse it (smp), or
	# that MPICH's own communicator set-up runs, stops the worker before
	# the cases of a world size under fallback=error: again, silent
	if [[ "$list" == "# MPICH"* ]] &&
	   grep -q '"aborted"' "$out/${spec//=/-}.jsonl" 2>/dev/null; then
		row "${spec//=/-}+silent" "$api" "$cl" "$spec,fallback=silent"
	fi
done <<<"$list"
echo "seconds=$(( $(date +%s) - start ))" >>"$out/sweep.txt"
python3 "$table" "${gate[@]}" "$out"
