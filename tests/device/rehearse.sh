#!/usr/bin/env bash
# rehearse.sh [WORK] - scripts/device-check.sh --no-setup as it runs on the
# GPU test machine (no MPI, CMocka, Check, apt or network; docs/gpu.md), on
# a machine without a GPU: every stage before the first that needs a GPU
# must pass (the build) and every GPU stage must report SKIP with its
# reason. scripts/test.sh's `device` stage runs it (docs/ci.md).
#
# How the packages are hidden: in a user, mount and network namespace
# (unshare -rmn, no privileges needed where the kernel allows it), every
# file of the Debian packages of Open MPI, MPICH (and their transports),
# CMocka, Check and apt is covered by /dev/null, so that it reads empty and
# runs nothing, and the network has no interface up; the script then runs
# with an environment of PATH, HOME, OUT, the locale and ccache's settings
# alone. Where namespaces are
# refused, the fallback says so and hides less: the stripped environment,
# CS_DC_MPI=OFF, CMake told to find neither MPI nor pkg-config, and the
# proxies pointed at a closed port.
#
# Under CI (CI set) the device build is configured with CS_WERROR=ON, as
# build/ is; with ccache installed (scripts/setup.sh installs it beside
# nvcc) device-check.sh runs nvcc through it, so the kernels, compiled by
# build/ with the same command, come from the cache instead of being
# compiled a second time; the C parts are compiled anew. (The GPU test
# machine has no ccache: there everything is compiled.)
#
# Besides the summary, it checks the device build itself: no program of it
# needs libmpi, libcmocka or libcheck; `collspec list` shows mpi and ref
# not built, for want of MPI; a run of the mpi backend exits 2 saying so; a
# run of gpu-sim (all ranks in one process) passes.
# WORK (default build/device-rehearsal): the build folder (kept: a second
# rehearsal builds only what changed) and OUT (made anew). Budget
# and limits: CS_REHEARSE_BUDGET (default 7200 s), CS_REHEARSE_LIMITS_X
# (default 40: two shared cores instead of sixteen; the build's limit is
# then 4400 s). Exit 0 when all holds.
set -u

rh_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rh_work="${1:-$rh_root/build/device-rehearsal}"
case "$rh_work" in /*) ;; *) rh_work="$PWD/$rh_work" ;; esac

# The packages whose files are hidden (those installed of them).
rh_packages="openmpi-bin openmpi-common libopenmpi-dev libopenmpi3 mpich
libmpich-dev libmpich12 libpmix2 libpmix-dev libucx0 libucx-dev libfabric1
libcmocka0 libcmocka-dev check apt apt-transport-https"

rh_bad=0
rh_no() {
	echo "rehearse.sh: FAIL: $*" >&2
	rh_bad=1
}

# In the namespace: cover every regular file of the packages with
# /dev/null (links are followed to the file they name).
rh_hide() {
	local p f n=0 have=()

	for p in $rh_packages; do
		dpkg -s "$p" >/dev/null 2>&1 && have+=("$p")
	done
	while IFS= read -r f; do
		[ -f "$f" ] && mount --bind /dev/null "$f" && n=$((n + 1))
	done < <(dpkg -L "${have[@]}" | xargs -d '\n' readlink -f -- |
		sort -u)
	echo "rehearse.sh: $n files of ${#have[@]} packages hidden"
}

# ccache's counters of results served (hits) and compiled (misses), as
# "HITS MISSES"; nothing without ccache.
rh_ccache_counts() {
	command -v ccache >/dev/null || return 0
	ccache --print-stats 2>/dev/null | awk '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
		$1 == "cache_miss" { m += $2 }
		END { print h + 0, m + 0 }'
}

# device-check.sh in a stripped environment; its exit status. What ccache
# looks at goes through as the outer environment has it: the locale
# (LANG, LC_ALL, LC_CTYPE and LC_MESSAGES are part of ccache's key, so
# one of them changed makes every compilation a miss: CI's rehearsal at
# e2290ed compiled everything again, 475 s, most likely because this
# script set LANG=C.UTF-8 where build/ had had another locale),
# ccache's own settings (CCACHE_*, XDG_CACHE_HOME) and its cache folder:
# the cache is then the one build/ filled (scripts/setup.sh). How many
# nvcc compilations it served is said, so that CI's log shows it.
rh_device_check() {
	local path=/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin
	local args="${CS_DC_CMAKE_ARGS:-}" cc=() before= after rc v dir=

	while IFS= read -r v; do
		cc+=("$v")
	done < <(env | grep -E '^(LANG|LC_ALL|LC_CTYPE|LC_MESSAGES)=')
	if command -v ccache >/dev/null; then
		while IFS= read -r v; do
			cc+=("$v")
		done < <(env | grep -E '^(CCACHE_[A-Z_]+|XDG_CACHE_HOME)=')
		dir=$(ccache -k cache_dir 2>/dev/null) || dir=
		if [ -n "$dir" ]; then
			cc+=("CCACHE_DIR=$dir")
			before=$(CCACHE_DIR="$dir" rh_ccache_counts)
		fi
		echo "rehearse.sh: ccache's folder: ${dir:-(ccache said none)}"
	fi

	# under CI, warnings are errors here too (CS_WERROR, as in build/):
	# the kernels' nvcc command is then build/'s, which ccache serves
	[ -n "${CI:-}" ] && args="${args:+$args }-DCS_WERROR=ON"
	env -i HOME="$HOME" PATH="$path" OUT="$rh_work/out" \
		CS_DC_BUILD_DIR="$rh_work/build" ${CS_DC_MPI:+CS_DC_MPI=OFF} \
		${args:+CS_DC_CMAKE_ARGS="$args"} \
		${http_proxy:+http_proxy=$http_proxy} \
		${https_proxy:+https_proxy=$https_proxy} "${cc[@]}" \
		bash "$rh_root/scripts/device-check.sh" --no-setup \
		--budget "${CS_REHEARSE_BUDGET:-7200}" \
		--limits-x "${CS_REHEARSE_LIMITS_X:-40}"
	rc=$?
	if [ -n "$before" ]; then
		after=$(CCACHE_DIR="$dir" rh_ccache_counts)
		read -r -a before <<<"$before"
		read -r -a after <<<"$after"
		echo "rehearse.sh: ccache: $((after[0] - before[0])) nvcc" \
			"compilations served from the cache, $((after[1] - before[1]))" \
			"compiled"
	fi
	return "$rc"
}

# The summary: build PASS, every GPU stage SKIP with its reason.
rh_judge_summary() {
	local s="$rh_work/out/summary.txt" a

	[ -s "$s" ] || {
		rh_no "no $s"
		return
	}
	grep -Eq '^build +PASS ' "$s" || rh_no "build did not pass"
	grep -Eq '^ctest +SKIP .*skipped \(no device\)' "$s" ||
		rh_no "ctest: not every gpu test skipped for want of a device"
	for a in ring tree direct pairwise auto; do
		grep -Eq "^suite-$a +SKIP .*no CUDA device" "$s" ||
			rh_no "suite-$a did not skip with 'no CUDA device'"
	done
	grep -Eq '^nccl +SKIP .*(no CUDA device|without NCCL)' "$s" ||
		rh_no "nccl did not skip with its reason"
	grep -Eq '^dcheck +SKIP .*no CUDA device' "$s" ||
		rh_no "dcheck did not skip with 'no CUDA device'"
	grep -Eq '^bench +SKIP .*no CUDA device' "$s" ||
		rh_no "bench did not skip with 'no CUDA device'"
}

# What comes back from the device: two files, the logs in the archive.
rh_judge_out() {
	local files

	files=$(cd "$rh_work/out" && find . -type f | sort | paste -sd ' ' -)
	[ "$files" = "./device-check-logs.tar.gz ./summary.txt" ] ||
		rh_no "OUT holds '$files', not summary.txt and the archive"
	tar -tzf "$rh_work/out/device-check-logs.tar.gz" 2>/dev/null |
		grep -q '^device-check/build.log$' ||
		rh_no "the archive holds no device-check/build.log"
}

# The device build: no MPI, CMocka or Check in any program it made, and
# collspec without MPI behaves as docs/gpu.md says.
rh_judge_build() {
	local b="$rh_work/build" cs="$rh_work/build/conformance/collspec" t
	local progs=("$cs" "$b/bench/bench_gpu") out rc

	grep -q '^CS_MPI:BOOL=OFF$' "$b/CMakeCache.txt" ||
		rh_no "the device build was not configured with CS_MPI=OFF"
	for t in $(ctest --test-dir "$b" -N -L '^gpu$' |
		sed -n 's/^ *Test *#[0-9]*: *\([A-Za-z0-9_]*\)$/\1/p'); do
		t=$(find "$b/tests" -type f -name "$t" | head -n 1) ||
			true
		progs+=("${t:-$b/tests/gpu/(a gpu test)}")
	done
	[ "${#progs[@]}" -gt 2 ] || rh_no "no gpu test was configured"
	for t in "${progs[@]}"; do
		if [ ! -x "$t" ]; then
			rh_no "program '$t' missing"
		elif readelf -d "$t" | grep -Ei 'NEEDED.*lib(mpi|open-|cmocka|check)'; then
			rh_no "$t needs MPI, CMocka or Check"
		fi
	done
	"$cs" list 2>&1 | grep -Eq '^ +mpi +\(not built: needs MPI' ||
		rh_no "collspec list does not show mpi as needing MPI"
	out=$("$cs" run --backend mpi --ranks 1 2>&1)
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q 'needs MPI' <<<"$out"; then
		rh_no "run --backend mpi: exit $rc, '$out' (want 2, needs MPI)"
	fi
	"$cs" run --backend gpu-sim --ranks 2 --coll allreduce \
		--dtype float32 --quiet >"$rh_work/gpusim.log" 2>&1 ||
		rh_no "gpu-sim run failed without MPI ($rh_work/gpusim.log)"
}

rh_main() {
	local rc how t0=$SECONDS

	# a build folder left by an earlier rehearsal is configured again
	# and built further; the results are new
	rm -rf "$rh_work/out" "$rh_work/build/device-check"
	mkdir -p "$rh_work/out" || exit 2
	if unshare -rmn true 2>/dev/null; then
		how="namespace: package files covered, no network"
		CS_REHEARSE_INNER=1 unshare -rmn bash "${BASH_SOURCE[0]}" \
			"$rh_work"
		rc=$?
	else
		how="fallback (no namespaces): stripped environment only"
		CS_DC_MPI=OFF http_proxy=http://127.0.0.1:9 \
			https_proxy=http://127.0.0.1:9 \
			CS_DC_CMAKE_ARGS="-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON" \
			rh_device_check
		rc=$?
		rh_judge_build
	fi
	echo "rehearse.sh: hidden by $how"
	[ "$rc" -eq 0 ] || rh_no "device-check.sh exited $rc"
	rh_judge_summary
	rh_judge_out
	[ "$rh_bad" -eq 0 ] && echo "rehearse.sh: PASS in $((SECONDS - t0)) s"
	return "$rh_bad"
}

if [ "${CS_REHEARSE_INNER:-}" = 1 ]; then
	rh_hide
	rh_device_check
	rc=$?
	rh_judge_build
	[ "$rh_bad" -eq 0 ] && exit "$rc"
	exit 1
fi
rh_main
