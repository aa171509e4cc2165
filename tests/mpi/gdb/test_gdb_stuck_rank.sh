#!/bin/sh
# gdb against a stuck rank: starts a deadlocked two-rank job (stuck_rank.c)
# through Weft's mpirun, attaches gdb in batch mode to rank 0 with the
# extension auto-loaded from the build tree (libweft-gdb.py beside
# libweft), and checks that `info weft-threads` lists the main thread
# blocked in MPI_Recv and the named "releaser" thread, and that
# `weft-thread 1 bt` shows main -> MPI_Recv. Then it releases the job and
# checks that both ranks finish with status 0: gdb put back the registers
# it borrowed. Every process is killed on the way out, within seconds.
#
# Usage: test_gdb_stuck_rank.sh MPIRUN STUCK_RANK LIBWEFT_DIR
# Exit 77 (CTest's SKIP_RETURN_CODE) without gdb or when ptrace is refused.
mpirun=$1 prog=$2 libdir=$3
skip() { echo "SKIPPED: $*"; cleanup; exit 77; }
fail() { echo "FAILED: $*"; echo "--- job output"; cat "$tmp/job" 2>/dev/null
         echo "--- gdb output"; cat "$tmp/gdb" 2>/dev/null; cleanup; exit 1; }

tmp=$(mktemp -d) || exit 1
job=
cleanup() {
    for pid in $(sed -n 's/.*rank [01] pid \([0-9]*\) waiting.*/\1/p' "$tmp/job" 2>/dev/null) $job; do
        kill -KILL "$pid" 2>/dev/null
    done
    [ -n "$job" ] && wait "$job" 2>/dev/null
    rm -rf "$tmp"
}
trap 'cleanup; exit 1' INT TERM

command -v gdb >/dev/null 2>&1 || skip "gdb is not installed (apt-get install gdb)"

# --timeout: should this script be killed outright, the job still ends.
"$mpirun" --timeout 100 -n 2 "$prog" "$tmp/release" >"$tmp/job" 2>&1 &
job=$!

# Both ranks are about to block; wait for that (bounded).
i=0
while [ "$(grep -c ' waiting$' "$tmp/job")" -lt 2 ]; do
    i=$((i + 1))
    [ $i -gt 200 ] && fail "the ranks did not start within 20 s"
    kill -0 "$job" 2>/dev/null || fail "the job ended before blocking"
    sleep 0.1
done
pid=$(sed -n 's/.*rank 0 pid \([0-9]*\) waiting.*/\1/p' "$tmp/job")
[ -n "$pid" ] || fail "no pid for rank 0"

# "waiting" comes just before MPI_Recv: retry until main is parked in it
# (for at most 40 s).
end=$(($(date +%s) + 40))
while :; do
    timeout -s KILL 20 gdb -nx -batch -p "$pid" \
        -iex "add-auto-load-safe-path $libdir" \
        -ex 'info weft-threads' -ex 'weft-thread 1 bt' >"$tmp/gdb" 2>&1
    if grep -q 'ptrace: Operation not permitted' "$tmp/gdb"; then
        skip "ptrace refused (run as root or set kernel.yama.ptrace_scope=0)"
    fi
    grep -q 'Undefined info command: "weft-threads"' "$tmp/gdb" &&
        fail "the extension was not auto-loaded from $libdir"
    grep -Eq '^1 +blocked in MPI_Recv ' "$tmp/gdb" && break
    [ "$(date +%s)" -ge $end ] && fail "main is not listed as blocked in MPI_Recv"
    sleep 0.2
done

grep -Eq '^[0-9]+ +(blocked|ready|running).* releaser ' "$tmp/gdb" ||
    fail "the releaser thread is not listed"
sed -n '/^\[weft thread 1 /,$p' "$tmp/gdb" >"$tmp/bt"
grep -Eq ' P?MPI_Recv ' "$tmp/bt" || fail "weft-thread 1 bt has no MPI_Recv frame"
grep -q ' main ' "$tmp/bt" || fail "weft-thread 1 bt has no main frame"
kill -0 "$pid" 2>/dev/null || fail "rank 0 died after gdb detached"

# Release the job: it must finish cleanly within 10 s.
touch "$tmp/release"
i=0
while kill -0 "$job" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 100 ] && fail "the job did not finish within 10 s of its release"
    sleep 0.1
done
wait "$job"
rc=$?
[ $rc -eq 0 ] || fail "the job exited with status $rc after gdb inspected it"
job=
echo "--- gdb output"; cat "$tmp/gdb"
cleanup
echo "PASSED"
