#!/usr/bin/env bash
# bench-compare.sh - several series in one picture, and the harness's
# overhead over a bare loop of the same MPI call (issue 11; the page is
# docs/bench-compare.md).
#
# usage: scripts/bench-compare.sh [--coll C] [--dtype T] [--op O]
#          [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]
#          [--ranks P] [--backends L] [--algs L] [--repeat R]
#          [--out DIR] [--build DIR] [--collspec PATH] [--bare PATH]
#          [--mpiexec PATH] [--plot svg|png|none] [--stat p50|time]
#          [--sync harness|mpi|none]
#        scripts/bench-compare.sh [--stat p50|time] --from DIR
#
# Per repeat k (1..R, default 1) it runs, one after the other:
#   collspec bench --backend L (default ref,mpi) [--ompi-alg A] --ranks P
#     ... --csv DIR/bench-k.csv --json DIR/bench-k.json
#     (k = 1 also --plot DIR/busbw.svg: every series in one picture)
#   mpiexec -n P bare_loop ... --sync S > DIR/bare-k.txt
# with the same collective, dtype, op, sizes and iterations; S (default
# harness) is the barrier bare_loop passes before each call: harness's
# own (a sleeping wait, as bench's worker), MPI_Barrier, or none. Then, per
# size and placement, the overhead of the harness over the bare loop:
#   (bench_us - bare_us) / bare_us x 100 %
# bench_us the p50_us of series "mpi" (the MPI library's own call through
# the harness), bare_us bare_loop's p50 column (--stat time: time_us and
# time, the means, which one slow iteration on a shared machine moves),
# each the median over the R repeats (alternating runs damp the noise).
# The table goes to stdout and DIR/overhead.txt. --from DIR recomputes
# it from the files of an earlier run (bench-*.csv, bare-*.txt) and
# runs nothing.
#
# Defaults: allreduce float32 sum, -b 8 -e 1M -f 4, -n 50 -w 10, 4 ranks,
# DIR bench-compare/, the build in build/ (BUILD/conformance/collspec,
# BUILD/bench/bare_loop). Exit status: 0 done, 1 a bench size failed
# (its check, a crash, a hang: the overhead is still printed), 2 bad
# arguments, a missing program, or a run that produced no table.

set -euo pipefail

die() {
	echo "bench-compare.sh: $*" >&2
	exit 2
}

usage() {
	sed -n '/^# usage:/,/^#        scripts.*--from DIR$/s/^# \{0,1\}//p' \
		"${BASH_SOURCE[0]}"
}

# ---- arguments ---------------------------------------------------------
coll=allreduce dtype=float32 op="" minb=8 maxb=1M factor=4 iters=50
warmup=10 ranks=4 backends=ref,mpi algs="" repeat=1 out=bench-compare
build=build collspec="" bare="" mpiexec=mpiexec plot=svg from=""
stat=p50 sync=harness

need() {
	if [ $# -lt 2 ] || [ -z "$2" ]; then
		die "$1 needs a value"
	fi
}
while [ $# -gt 0 ]; do
	case "$1" in
	--coll) need "$@"; coll=$2 ;;
	--dtype) need "$@"; dtype=$2 ;;
	--op) need "$@"; op=$2 ;;
	-b) need "$@"; minb=$2 ;;
	-e) need "$@"; maxb=$2 ;;
	-f) need "$@"; factor=$2 ;;
	-n) need "$@"; iters=$2 ;;
	-w) need "$@"; warmup=$2 ;;
	--ranks) need "$@"; ranks=$2 ;;
	--backends) need "$@"; backends=$2 ;;
	--algs) need "$@"; algs=$2 ;;
	--repeat) need "$@"; repeat=$2 ;;
	--out) need "$@"; out=$2 ;;
	--build) need "$@"; build=$2 ;;
	--collspec) need "$@"; collspec=$2 ;;
	--bare) need "$@"; bare=$2 ;;
	--mpiexec) need "$@"; mpiexec=$2 ;;
	--plot) need "$@"; plot=$2 ;;
	--from) need "$@"; from=$2 ;;
	--stat) need "$@"; stat=$2 ;;
	--sync) need "$@"; sync=$2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (--help lists them)" ;;
	esac
	shift 2
done

# ---- the overhead table (also --from) -----------------------------------

# The median over the repeats of bench's series "mpi" (CSV, columns fixed
# by conformance/base/bench_rec.h: 1 series, 6 inplace, 7 nranks, 8 bytes,
# 12 time_us, 14 p50_us) against bare_loop's table (columns: size count
# type redop, then time algbw busbw #wrong p50 p99 spread out of place,
# the same in place; "-" where not run), per (bytes, placement).
overhead_table() {
	local dir=$1 csvs=() bares=() col=14 bcol=9

	[ "$stat" = p50 ] || col=12 bcol=5

	shopt -s nullglob
	csvs=("$dir"/bench-*.csv)
	bares=("$dir"/bare-*.txt)
	shopt -u nullglob
	[ ${#csvs[@]} -gt 0 ] || die "no bench-*.csv in $dir"
	[ ${#bares[@]} -gt 0 ] || die "no bare-*.txt in $dir"
	awk -v nb="${#csvs[@]}" -v nr="${#bares[@]}" -v col="$col" \
		-v bcol="$bcol" -v stat="$stat" '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++)	# insertion sort: a few values
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function add(arr, k, v) { arr[k] = (k in arr) ? arr[k] " " v : v }
	FNR == 1 { csv = FILENAME ~ /\.csv$/ }
	csv && FNR > 1 {
		if (split($0, f, ",") < 12 || f[1] != "mpi") next
		add(bench, f[8] SUBSEP f[6], f[col])
		P = f[7]; what = f[3] " " f[4] " " f[5]
		if (!((f[8] + 0) in seen)) {
			seen[f[8] + 0] = 1
			sizes[++ns] = f[8] + 0
		}
	}
	!csv && $0 !~ /^#/ && NF >= 18 {
		if ($bcol != "-") add(bare, $1 SUBSEP 0, $bcol)
		if ($(bcol + 7) != "-") add(bare, $1 SUBSEP 1, $(bcol + 7))
	}
	END {
		pl[0] = "out-of-place"
		pl[1] = "in-place"
		if (!ns) {
			print "no records of series mpi in the CSV" \
				> "/dev/stderr"
			exit 2
		}
		for (i = 2; i <= ns; i++)
			for (j = i; j > 1 && sizes[j - 1] > sizes[j]; j--) {
				t = sizes[j]
				sizes[j] = sizes[j - 1]
				sizes[j - 1] = t
			}
		printf "# harness overhead: collspec bench --backend mpi "
		printf "against bare_loop (%s, %d ranks; %s per size, ",
			what, P, stat == "p50" ? "p50" : "mean time"
		printf "median of %d bench and %d bare runs)\n", nb, nr
		printf "# %12s %-12s %10s %10s %9s\n", "size (B)", "placement",
			"bench_us", "bare_us", "overhead"
		worst = -1e300; sum = 0; n = 0
		for (i = 1; i <= ns; i++)
			for (ip = 0; ip <= 1; ip++) {
				k = sizes[i] SUBSEP ip
				if (!(k in bench)) continue
				b = median(bench[k])
				if (!(k in bare)) {
					printf "  %12d %-12s %10.2f %10s %9s\n",
						sizes[i], pl[ip], b, "-", "-"
					continue
				}
				r = median(bare[k])
				o = r > 0 ? (b - r) / r * 100 : 0
				printf "  %12d %-12s %10.2f %10.2f %8.1f%%\n",
					sizes[i], pl[ip], b, r, o
				if (o > worst) {
					worst = o
					wsize = sizes[i]
					wip = ip
				}
				sum += o; n++
			}
		if (!n) {
			print "no size in both the CSV and the bare table" \
				> "/dev/stderr"
			exit 2
		}
		printf "# largest overhead %.1f%% (%d B, %s); ", worst, wsize,
			pl[wip]
		printf "mean over the %d rows %.1f%%\n", n, sum / n
	}' "${csvs[@]}" "${bares[@]}"
}

case "$stat" in p50 | time) ;; *) die "--stat '$stat': p50 or time" ;; esac
if [ -n "$from" ]; then
	[ -d "$from" ] || die "--from $from: not a folder"
	overhead_table "$from"
	exit 0
fi

# ---- checks before any run ----------------------------------------------
case "$repeat" in
'' | *[!0-9]* | 0*) die "--repeat '$repeat': a count from 1" ;;
esac
case "$ranks" in
'' | *[!0-9]* | 0*) die "--ranks '$ranks': one world size from 1" ;;
esac
case "$plot" in
svg | png | none) ;;
*) die "--plot '$plot': svg, png or none" ;;
esac
case "$sync" in
harness | mpi | none) ;;
*) die "--sync '$sync': harness, mpi or none" ;;
esac
case ",$backends," in
*,mpi,*) ;;
*) die "--backends '$backends' lacks mpi: the overhead is that of" \
	"the mpi series" ;;
esac
collspec=${collspec:-$build/conformance/collspec}
bare=${bare:-$build/bench/bare_loop}
[ -x "$collspec" ] ||
	die "no collspec at $collspec (build it, or --collspec PATH)"
[ -x "$bare" ] ||
	die "no bare_loop at $bare (build it: make bare_loop, or --bare PATH)"
command -v "$mpiexec" >/dev/null ||
	die "no launcher '$mpiexec' (--mpiexec PATH)"
mkdir -p "$out" || die "cannot create $out"

# Open MPI's launcher: more ranks than cores, and root, need saying so
# (what collspec's launcher profile does for its own runs).
launch=("$mpiexec" -n "$ranks")
if "$mpiexec" --version 2>&1 | grep -qE 'Open MPI|OpenRTE'; then
	launch+=(--oversubscribe)
	[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
fi

common=(--coll "$coll" --dtype "$dtype" -b "$minb" -e "$maxb" -f "$factor"
	-n "$iters" -w "$warmup")
[ -z "$op" ] || common+=(--op "$op")

# ---- the runs -----------------------------------------------------------
status=0
for k in $(seq 1 "$repeat"); do
	args=(bench --backend "$backends" "${common[@]}" --ranks "$ranks"
		--mpiexec "$mpiexec" --csv "$out/bench-$k.csv"
		--json "$out/bench-$k.json")
	[ -z "$algs" ] || args+=(--ompi-alg "$algs")
	[ "$k" != 1 ] || [ "$plot" = none ] || args+=(--plot "$out/busbw.$plot")
	echo "+ $collspec ${args[*]}"
	rc=0
	"$collspec" "${args[@]}" || rc=$?
	[ "$rc" -le 1 ] || die "collspec bench exited $rc (see above)"
	[ "$rc" -eq 0 ] || status=1
	bargs=("${common[@]}" --sync "$sync")
	echo "+ ${launch[*]} $bare ${bargs[*]} > $out/bare-$k.txt"
	"${launch[@]}" "$bare" "${bargs[@]}" >"$out/bare-$k.txt" ||
		die "bare_loop failed (see above)"
	cat "$out/bare-$k.txt"
done
overhead_table "$out" | tee "$out/overhead.txt"
[ "$plot" = none ] || echo "bench-compare.sh: the picture is $out/busbw.$plot"
exit "$status"
