/* Binding each local rank to its share of the CPUs, at MPI_Init, before
 * Weft's runtime starts (so its workers - one per core of the rank's share,
 * src/sched/topo.c - and every thread they create stay on those CPUs).
 *
 * Design: with n local ranks (the launcher's WEFT_MPI_LOCAL_SIZE) and c
 * CPUs allowed to the process, n <= c, local rank r gets the allowed CPUs
 * of index [r*c/n, (r+1)*c/n) in the allowed set's order. This is Open
 * MPI's default (--bind-to core for up to 2 ranks, one share each), and
 * what a user comparing the two expects. Without it each rank starts one
 * worker per core of the machine: n ranks run n times as many workers as
 * there are cores, and compute threads of one rank then take CPU from
 * every other rank's waiting threads (bench/mpi_reactivity with one rank
 * computing shows it).
 * WEFT_MPI_BIND=none leaves the process as launched (bound or not by
 * whoever started it), and its workers unpinned: pinned, every rank's
 * first worker would sit on the same first CPU. WEFT_MPI_BIND=core (the
 * default) binds as above.
 * When the ranks oversubscribe the CPUs (n > c), local rank r gets the one
 * CPU of index r*c/n: neighbouring ranks share a CPU, one worker each, and
 * an idle worker yields to the rank beside it (sched/worker.c). This
 * makes a short allreduce much faster than leaving the ranks unbound,
 * where each rank starts a worker per CPU and the kernel migrates them;
 * round-robin placement (r mod c) does no better than this block placement
 * (figures: docs/performance-notes.md). Nothing is bound when there is one
 * local rank, when the launcher did not say how many local ranks there are
 * (a singleton), or when the program started Weft itself before MPI_Init
 * (its workers exist already).
 *
 * Rejected: binding by hwloc cores rather than logical CPUs (the shim sees
 * only include/; on the machines this runs on a CPU is a core); binding in
 * mpirun (ranks started by another launcher would not get it).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_proto.h"
#include "engine/core/internal.h"

static int env_count(const char *name, int dflt)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s || !*s)
        return dflt;
    v = strtol(s, &end, 10);
    return *end || v < 0 || v > 1 << 20 ? dflt : (int)v;
}

/* The allowed CPUs of index [first, first + count) in set order. */
static void take_share(const cpu_set_t *allowed, int first, int count, cpu_set_t *out)
{
    int idx = 0;

    CPU_ZERO(out);
    for (int cpu = 0; cpu < CPU_SETSIZE && count > 0; cpu++) {
        if (!CPU_ISSET(cpu, allowed))
            continue;
        if (idx++ >= first) {
            CPU_SET(cpu, out);
            count--;
        }
    }
}

int wmpi_bind_local_rank(void)
{
    const char *mode = getenv("WEFT_MPI_BIND");
    int n = env_count(WMPI_ENV_LOCAL_SIZE, 0), r = env_count(WMPI_ENV_LOCAL_RANK, -1);
    cpu_set_t allowed, share;
    int c, first, count;

    if (n <= 1 || r < 0 || r >= n || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    c = CPU_COUNT(&allowed);
    if (mode && !strcmp(mode, "none")) {
        weft_set_worker_binding(0);
        return n > c;
    }
    if (weft_is_initialized())
        return n > c;
    first = (int)((long)r * c / n);
    count = (int)((long)(r + 1) * c / n) - first;
    take_share(&allowed, first, count > 0 ? count : 1, &share);
    if (CPU_COUNT(&share) > 0)
        sched_setaffinity(0, sizeof share, &share);
    return n > c;
}
