#!/usr/bin/env bash
# setup.sh - make this checkout ready to run: install the Debian packages
# CollSpec needs (only those missing), put nvcc on PATH if it is installed
# but not found (and, with nvcc, fetch cuobjdump and nvdisasm from PyPI
# when CUDA has none), then configure and build into ./build (against Open MPI)
# or, with CS_MPI=mpich, into ./build-mpich (against MPICH; build/ is left
# as it is, so both can live side by side).
#
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Run it (bash scripts/setup.sh) or source it from a script: sourced, it
# also leaves PATH, the Open MPI root settings, `set -euo pipefail` and the
# repository root as working directory in the caller, which is how
# scripts/run.sh and scripts/test.sh use it; sourced, it also sets
# cs_build_dir to the folder it built. A failure exits with a message
# naming the step that failed.
#
# Environment:
#   CS_CUDA        AUTO (default: build the CUDA parts when nvcc works
#                  and a GPU is visible, or CI is set), ON (required:
#                  also without a GPU) or OFF
#   CS_BUILD_TYPE  CMake build type (default RelWithDebInfo)
#   CS_MPI         openmpi (default: Debian's openmpi-bin, libopenmpi-dev,
#                  into build/) or mpich (mpich, libmpich-dev, into
#                  build-mpich/, with mpicc.mpich and mpiexec.mpich)
#   CS_SKIP_APT=1  never call apt-get (report missing packages instead)
#   CS_SETUP_FUZZ=1  also install clang and libFuzzer (scripts/test.sh sets
#                  it for its fuzz stage)

set -euo pipefail

cs_die() {
	echo "setup.sh: error: $*" >&2
	exit 1
}

cs_note() {
	echo "setup.sh: $*"
}

# Debian packages the build and the tests need.
cs_packages() {
	echo cmake gcc make pkg-config libcmocka-dev check
	# collspec bench --plot runs gnuplot; xmllint (libxml2-utils) checks
	# its SVGs and those of docs/collectives/ (docs_svg)
	echo gnuplot-nox libxml2-utils
	# tests that read reports with Python's json and csv modules
	# (conformance_bench, the check_results --python cross-checks)
	echo python3
	case "${CS_MPI:-openmpi}" in
	mpich) echo mpich libmpich-dev ;;
	*) echo openmpi-bin libopenmpi-dev ;;
	esac
	# the gloo backend (conformance/backends/gloo/): Gloo, and g++ for
	# its C++ files (g++ is also nvcc's host compiler for the CUDA parts)
	echo g++ libgloo-dev
	# scripts/test.sh's fuzz stage: clang, its libFuzzer and sanitizer
	# runtimes (libclang-rt-dev) and its OpenMP (libomp-dev).
	if [ "${CS_SETUP_FUZZ:-0}" = 1 ]; then
		echo clang libclang-rt-dev libomp-dev
	fi
}

# Packages that only save time: with nvcc, ccache, which keeps the
# kernels' objects, so that the same nvcc command in another build folder
# (scripts/device-check.sh's, as CI's device rehearsal runs it) or after a
# clean does not compile them again (about 10 minutes of 2 cores). Missing
# under CS_SKIP_APT=1, they are named and the set-up goes on.
cs_optional_packages() {
	if [ "${CS_CUDA:-AUTO}" != OFF ] && command -v nvcc >/dev/null; then
		echo ccache
	fi
}

cs_install_packages() {
	local missing=() optional=() p sudo=()

	for p in $(cs_packages); do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	for p in $(cs_optional_packages); do
		dpkg -s "$p" >/dev/null 2>&1 || optional+=("$p")
	done
	if [ "${CS_SKIP_APT:-0}" = 1 ]; then
		[ ${#optional[@]} -eq 0 ] ||
			cs_note "not installing ${optional[*]} (CS_SKIP_APT=1):" \
				"the CUDA parts are compiled without a cache"
		[ ${#missing[@]} -eq 0 ] && return 0
		cs_die "missing Debian packages: ${missing[*]} (CS_SKIP_APT=1," \
			"so not installing them)"
	fi
	missing+=("${optional[@]}")
	[ ${#missing[@]} -eq 0 ] && return 0
	command -v apt-get >/dev/null ||
		cs_die "missing packages ${missing[*]} and no apt-get to" \
			"install them (CollSpec's set-up targets Debian 12)"
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null ||
			cs_die "missing packages ${missing[*]}; run as root" \
				"or install sudo"
		sudo=(sudo)
	fi
	cs_note "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
		cs_die "apt-get update failed"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" ||
		cs_die "apt-get install ${missing[*]} failed"
}

# nvcc lives in /usr/local/cuda/bin, which is often not on PATH.
cs_find_nvcc() {
	if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
		export PATH="/usr/local/cuda/bin:$PATH"
		cs_note "added /usr/local/cuda/bin to PATH for nvcc"
	fi
}

# cuobjdump and the nvdisasm it runs, with which tests/gpu/sass_check.py
# reads the kernels' machine code: CUDA's own when installed, else PyPI's
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm into python3's paths
# (where the test looks). Best effort: without them that test reports
# SKIP and says why.
cs_find_cuobjdump() {
	local nvcc dir

	nvcc="$(command -v nvcc)" || return 0
	dir="$(dirname "$nvcc")"
	if { command -v cuobjdump >/dev/null || [ -x "$dir/cuobjdump" ]; } &&
		{ command -v nvdisasm >/dev/null || [ -x "$dir/nvdisasm" ]; }; then
		return 0
	fi
	python3 -c 'import glob, sys
sys.exit(not all(any(glob.glob(p + "/nvidia/cu*/bin/" + t) for p in sys.path)
                 for t in ("cuobjdump", "nvdisasm")))' 2>/dev/null && return 0
	cs_note "installing cuobjdump and nvdisasm (PyPI: nvidia-cuda-cuobjdump," \
		"nvidia-cuda-nvdisasm)"
	python3 -m pip install -q --timeout 20 --retries 1 \
		nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm ||
		cs_note "could not install them: the SASS test (gpu_sass)" \
			"will be skipped"
}

# mpiexec refuses to run as root unless told it may (CI runs as root).
cs_mpi_root_env() {
	if [ "$(id -u)" -eq 0 ]; then
		export OMPI_ALLOW_RUN_AS_ROOT=1
		export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi
}

# The build folder and the MPI options of CS_MPI (cs_build_dir, cs_mpi_args).
cs_mpi_choice() {
	case "${CS_MPI:-openmpi}" in
	openmpi)
		cs_build_dir=build
		cs_mpi_args=()
		;;
	mpich)
		# Debian's alternatives make mpicc and mpiexec Open MPI's when
		# both are installed: name MPICH's own.
		cs_build_dir=build-mpich
		cs_mpi_args=(-DMPI_C_COMPILER=/usr/bin/mpicc.mpich
			-DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich)
		;;
	*) cs_die "CS_MPI must be openmpi or mpich, not '${CS_MPI}'" ;;
	esac
}

cs_configure_and_build() {
	local cuda="${CS_CUDA:-AUTO}" type="${CS_BUILD_TYPE:-RelWithDebInfo}"
	local b="$cs_build_dir"

	case "$cuda" in
	AUTO | ON | OFF) ;;
	*) cs_die "CS_CUDA must be AUTO, ON or OFF, not '$cuda'" ;;
	esac
	# The kernels take most of a build's time (about 10 minutes of 2
	# cores) and nothing CUDA runs without a GPU: a developer's machine
	# without one builds them only when asked; CI (CI set) always does.
	if [ "$cuda" = AUTO ] && [ -z "${CI:-}" ] &&
		! nvidia-smi -L >/dev/null 2>&1; then
		cuda=OFF
		cs_note "no GPU here (nvidia-smi -L): $b/ without the CUDA" \
			"parts (CS_CUDA=ON builds them, as CI does)"
	fi
	local launcher=() via=
	if [ "$cuda" != OFF ] && command -v ccache >/dev/null; then
		launcher=(-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
		via=", nvcc through ccache ($(ccache -k cache_dir 2>/dev/null))"
	fi
	cs_note "configuring $b/ ($type, CS_CUDA=$cuda, CS_MPI=${CS_MPI:-openmpi}$via)"
	cmake -S . -B "$b" -DCMAKE_BUILD_TYPE="$type" -DCS_CUDA="$cuda" \
		"${cs_mpi_args[@]}" "${launcher[@]}" ||
		cs_die "configuring failed (cmake -S . -B $b" \
			"-DCMAKE_BUILD_TYPE=$type -DCS_CUDA=$cuda" \
			"${cs_mpi_args[*]}); see above." \
			"A $b/ made elsewhere can be removed: rm -rf $b"
	cs_note "building with $(nproc) jobs"
	cmake --build "$b" -j "$(nproc)" ||
		cs_die "the build failed (cmake --build $b); see above"
}

cs_setup_main() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.." ||
		cs_die "cannot enter the repository root"
	cs_mpi_choice
	cs_find_nvcc
	cs_install_packages
	cs_find_cuobjdump
	cs_mpi_root_env
	cs_configure_and_build
}

# Run or sourced alike; sourced, the caller is left in the repository root.
cs_setup_main
