#!/usr/bin/env bash
# ci/slurm.sh BUILD_DIR: a one-node Slurm cluster on this machine, Weft's
# programs from BUILD_DIR started through it, and the cluster gone again.
#
# Set-up, all under a temporary directory: a slurm.conf for this host
# (its short host name, its CPUs, private ports, no accounting, linuxproc
# process tracking so no cgroup is needed), munged on a socket and with a
# key of its own, then slurmctld and slurmd. The
# checks, each bounded in time:
#   1. srun --mpi=pmix -n 4: mpi_prog mesh (messages of 0 B to 4 MiB
#      between every pair, collectives, a shared window); then every line
#      of the suite's testlists marked pmix (the programs that also run
#      under Open MPI's mpirun: every point-to-point and collective one),
#      at its rank count: each program reports success;
#   2. salloc -n 4 with Weft's mpirun inside and no -n: 4 ranks, one job;
#   3. srun --mpi=pmi2: every rank fails MPI_Init, saying to use
#      srun --mpi=pmix (Weft speaks PMIx only), and no rank runs on alone.
# Tear-down (also on failure or interrupt): cancel what is left, stop
# slurmd, slurmctld and munged, delete the directory. Needs root (the
# daemons run as root) and the slurmctld, slurmd, slurm-client and munge
# packages (ci/lib.sh installs them).
set -u -o pipefail

# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BUILD="${1:?usage: ci/slurm.sh BUILD_DIR}"
TESTS="$BUILD/tests/mpi"
[[ $(id -u) == 0 ]] || die "ci/slurm.sh needs root (it starts Slurm's daemons)"
for cmd in mungekey munged slurmctld slurmd srun salloc sinfo; do
    command -v "$cmd" >/dev/null || die "no $cmd: install slurmctld slurmd slurm-client munge"
done

D="$(mktemp -d "${TMPDIR:-/tmp}/weft-slurm.XXXXXX")" || die "no temporary directory"
export SLURM_CONF="$D/slurm.conf"
NODE="$(hostname -s)"

write_config() {
    mkdir -p "$D/state" "$D/spool" "$D/log" || return 1
    cat >"$SLURM_CONF" <<EOF
ClusterName=weftci
SlurmctldHost=$NODE(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16917
SlurmdPort=16918
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
}

# kill_pidfile FILE: SIGTERM the daemon it names, then SIGKILL after 5 s.
kill_pidfile() {
    local pid
    [[ -s "$1" ]] || return 0
    pid="$(cat "$1")"
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
}

teardown() {
    scancel --quiet --full --user=root 2>/dev/null
    kill_pidfile "$D/slurmd.pid"
    kill_pidfile "$D/slurmctld.pid"
    kill_pidfile "$D/munged.pid"
    rm -rf "$D"
}
trap teardown EXIT
trap 'exit 130' INT TERM

start_cluster() {
    write_config || return 1
    mungekey --create --keyfile="$D/munge.key" || return 1
    munged --socket="$D/munge.sock" --pid-file="$D/munged.pid" --log-file="$D/log/munged.log" \
        --seed-file="$D/munge.seed" --key-file="$D/munge.key" --force || return 1
    slurmctld || return 1
    slurmd || return 1
    for _ in $(seq 100); do
        sinfo --noheader --states=idle 2>/dev/null | grep -q . && return 0
        sleep 0.2
    done
    echo "the node never became idle:"; sinfo; tail -n 20 "$D"/log/*.log
    return 1
}

failures=0
check() { # check NAME COMMAND...: run it, count a failure
    local name="$1"; shift
    if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failures=$((failures + 1)); fi
}

# expect_lines OUT PATTERN COUNT: OUT holds COUNT lines matching PATTERN.
expect_lines() {
    local n
    n="$(grep -c -E "$2" <<<"$1")"
    [[ "$n" == "$3" ]] || { echo "$1"; echo "expected $3 lines like '$2', got $n"; return 1; }
}

srun_pmix() { # srun_pmix NTASKS PROGRAM ARGS...: ranks through PMIx; their output
    local n="$1"; shift
    timeout 120 srun --mpi=pmix --overcommit --ntasks="$n" --kill-on-bad-exit=1 "$@" \
        </dev/null 2>&1
}

mesh_under_srun() {
    local out
    out="$(srun_pmix 4 "$TESTS/wmpi_mpi_prog" mesh)" || { echo "$out"; return 1; }
    expect_lines "$out" '^rank [0-3] mesh ok .* shared_win=ok$' 4
}

suite_under_srun() { # suite_under_srun SUITE/PROGRAM NTASKS: it says nothing failed
    local out
    out="$(srun_pmix "$2" "$TESTS/$1")" || { echo "$out"; echo "$1 failed under srun"; return 1; }
    echo "$out" | tail -n 2
}

# "SUITE/PROGRAM RANKS" for each testlist line marked pmix without env=
# settings (srun passes mpirun's environment, not a line's).
pmix_lines() {
    local list suite
    for list in "$WEFT_ROOT"/tests/mpi/*/testlist; do
        suite="$(basename "$(dirname "$list")")"
        awk -v s="$suite" '$1 !~ /^#/ && / pmix( |$)/ && !/env=/ { print s "/" $1, $2 }' "$list"
    done
}

mpirun_in_salloc() {
    local out
    out="$(timeout 120 salloc --overcommit --ntasks=4 "$BUILD/bin/mpirun" \
           "$TESTS/wmpi_mpi_prog" whoami 2>&1)" || { echo "$out"; return 1; }
    expect_lines "$out" '^rank [0-3] size 4 ' 4
}

pmi2_refused() {
    local out
    out="$(timeout 120 srun --mpi=pmi2 --overcommit --ntasks=2 "$TESTS/wmpi_mpi_prog" mesh 2>&1)" &&
        { echo "$out"; echo "the job succeeded without a launcher Weft can join"; return 1; }
    expect_lines "$out" 'srun --mpi=pmix' 2 && expect_lines "$out" 'mesh ok' 0
}

say "Slurm: a one-node cluster on $NODE in $D"
start_cluster || exit 1
sinfo
check "srun --mpi=pmix -n 4 mpi_prog mesh" mesh_under_srun
while read -r prog ranks; do
    check "srun --mpi=pmix -n $ranks $prog" suite_under_srun "$prog" "$ranks"
done < <(pmix_lines)
check "salloc -n 4 mpirun (no -n)" mpirun_in_salloc
check "srun --mpi=pmi2 is refused with advice" pmi2_refused
((failures == 0)) || { echo "Slurm: $failures check(s) failed; logs:"; tail -n 30 "$D"/log/*.log; }
exit $((failures > 0))
