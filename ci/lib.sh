# shellcheck shell=bash
# ci/lib.sh: helpers shared by ci/test and ci/demo (sourced, not run).
#
# Provides:
#   WEFT_ROOT        the repository root, found from this file's location,
#                    so the scripts work from any current directory.
#   WEFT_BUILD_ROOT  where build trees go (default: $WEFT_ROOT/build; the
#                    environment may override it, e.g. to keep a developer's
#                    own trees apart).
#   WEFT_JOBS        parallel build jobs (default 2: the CI machines have 2 cores).
#   weft_ensure_packages   install the Debian packages Weft needs, if missing.
#   weft_configure DIR ARGS...   configure a Ninja build tree in DIR.
#   weft_build DIR         build it.
#   say / die              log helpers.

WEFT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WEFT_BUILD_ROOT="${WEFT_BUILD_ROOT:-$WEFT_ROOT/build}"
WEFT_JOBS="${WEFT_JOBS:-2}"

# Everything the build, the tests, the benchmarks and their plots need.
# Open MPI is the reference: the MPI tests also run under it, and the MPI
# benchmarks compare against it. libpmix-dev lets Weft's ranks join jobs
# started by Open MPI's mpirun or srun --mpi=pmix. iproute2 (ip) makes the
# network namespaces that test_mpirun_netns_hosts runs its hosts in. gdb
# drives the gdb extension's test (test_gdb_stuck_rank). clang and its
# runtime libraries (libFuzzer) build ci/test's fuzz targets. Slurm's
# daemons, client and munge make ci/slurm.sh's one-node cluster.
WEFT_DEB_PACKAGES=(cmake ninja-build gcc g++ pkg-config libhwloc-dev libcmocka-dev
                   gnuplot-nox openmpi-bin libopenmpi-dev libpmix-dev iproute2
                   gdb clang libclang-rt-14-dev slurmctld slurmd slurm-client munge)

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# True if Debian package $1 is installed (not merely known or half-removed).
deb_installed() {
    local status
    status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" || return 1
    [[ "$status" == "install ok installed" ]]
}

# Install the missing ones among WEFT_DEB_PACKAGES. Does nothing, and needs no
# privileges, when all are present. Runs apt-get update only when the package
# lists are empty (a fresh machine) or when a first install attempt fails.
weft_ensure_packages() {
    local missing=() pkg sudo=()
    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "not a Debian system (no dpkg-query): assuming the tools are installed"
        return 0
    fi
    for pkg in "${WEFT_DEB_PACKAGES[@]}"; do
        deb_installed "$pkg" || missing+=("$pkg")
    done
    if ((${#missing[@]} == 0)); then
        echo "packages: all present (${WEFT_DEB_PACKAGES[*]})"
        return 0
    fi
    say "installing missing Debian packages: ${missing[*]}"
    if ((EUID != 0)); then
        command -v sudo >/dev/null 2>&1 ||
            die "missing packages (${missing[*]}) and not root, and sudo is not available"
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q)
    local updated=0
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
        "${apt[@]}" update || die "apt-get update failed"
        updated=1
    fi
    if ! "${apt[@]}" install --no-install-recommends "${missing[@]}"; then
        ((updated)) && die "apt-get install failed"
        "${apt[@]}" update || die "apt-get update failed"
        "${apt[@]}" install --no-install-recommends "${missing[@]}" ||
            die "apt-get install failed"
    fi
}

# weft_configure DIR [cmake args...]: configure (or reconfigure) a Ninja tree.
# A tree left by another generator is removed first, since CMake refuses to
# switch generators in place.
weft_configure() {
    local dir="$1"; shift
    if [[ -f "$dir/CMakeCache.txt" ]] &&
       ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
        echo "removing $dir (configured with another generator)"
        rm -rf "$dir"
    fi
    cmake -S "$WEFT_ROOT" -B "$dir" -G Ninja "$@"
}

weft_build() {
    cmake --build "$1" -j "$WEFT_JOBS"
}
