/* Binding each local rank to its share of the CPUs, at MPI_Init, before
 * Weft's runtime starts (so its workers - one per core of the rank's share,
 * src/sched/topo.c - and every thread they create stay on those CPUs).
 *
 * Design: with n local ranks (the launcher's WEFT_MPI_LOCAL_SIZE) on the
 * CPUs allowed to the process, local rank r gets a block of whole cores
 * (bind_share.c: with c cores, n <= c, those of index [r*c/n, (r+1)*c/n)).
 * This is Open MPI's default (--bind-to core for up to 2 ranks, one share
 * each), and what a user comparing the two expects. Without it each rank
 * starts one worker per core of the machine: n ranks run n times as many
 * workers as there are cores, and compute threads of one rank then take
 * CPU from every other rank's waiting threads (bench/mpi_reactivity with
 * one rank computing shows it).
 * WEFT_MPI_BIND names the unit: core (the default), hwthread or socket
 * (whole hardware threads or packages; with socket the workers are not
 * pinned inside the package, as Open MPI leaves a socket-bound process's
 * threads free to move), or none: the process stays as
 * launched (bound or not by whoever started it), and its workers unpinned:
 * pinned, every rank's first worker would sit on the same first CPU.
 * WEFT_MPI_MAP=socket deals the ranks to the packages in turn first
 * (mpirun's --map-by socket); slot (the default) deals blocks in order.
 * When the ranks oversubscribe the units (n > c), local rank r gets the
 * one unit of index r*c/n: neighbouring ranks share it, one worker each,
 * and an idle worker yields to the rank beside it (sched/worker.c). This
 * makes a short allreduce much faster than leaving the ranks unbound,
 * where each rank starts a worker per CPU and the kernel migrates them;
 * round-robin placement (r mod c) does no better than this block placement
 * (figures: docs/performance-notes.md). Nothing is bound when there is one
 * local rank, when the launcher did not say how many local ranks there are
 * (a singleton), or when the program started Weft itself before MPI_Init
 * (its workers exist already).
 *
 * Rejected: binding in mpirun (ranks started by another launcher would
 * not get it).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_proto.h"
#include "engine/core/bind_share.h"
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

/* WEFT_MPI_BIND's unit; 0 for none. */
static int bind_level(const char *mode, wmpi_bind_level *level)
{
    *level = WMPI_BIND_CORE;
    if (mode && !strcmp(mode, "none"))
        return 0;
    if (mode && !strcmp(mode, "hwthread"))
        *level = WMPI_BIND_HWTHREAD;
    else if (mode && !strcmp(mode, "socket"))
        *level = WMPI_BIND_SOCKET;
    else if (mode && *mode && strcmp(mode, "core"))
        fprintf(stderr, "weft mpi: WEFT_MPI_BIND=%s: expected core, hwthread, socket or none; "
                        "binding by core\n", mode);
    return 1;
}

/* Bind to local rank r's share of n; 1 if ranks share units. */
static int bind_share(const cpu_set_t *allowed, wmpi_bind_level level, int r, int n)
{
    const char *map = getenv("WEFT_MPI_MAP");
    int c = CPU_COUNT(allowed), shared;
    wmpi_cpu_place *places = malloc(sizeof *places * (size_t)c);
    cpu_set_t share;

    if (!places)
        return n > c;
    c = wmpi_cpu_places(allowed, places, c);
    shared = wmpi_bind_share(places, c, level, map && !strcmp(map, "socket"), r, n, &share);
    free(places);
    if (CPU_COUNT(&share) > 0)
        sched_setaffinity(0, sizeof share, &share);
    if (level == WMPI_BIND_SOCKET) /* threads float within the package */
        weft_set_worker_binding(0);
    return shared;
}

int wmpi_bind_local_rank(void)
{
    const char *mode = getenv("WEFT_MPI_BIND");
    int n = env_count(WMPI_ENV_LOCAL_SIZE, 0), r = env_count(WMPI_ENV_LOCAL_RANK, -1);
    wmpi_bind_level level;
    cpu_set_t allowed;

    if (n <= 1 || r < 0 || r >= n || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    if (!bind_level(mode, &level)) {
        weft_set_worker_binding(0);
        return n > CPU_COUNT(&allowed);
    }
    if (weft_is_initialized())
        return n > CPU_COUNT(&allowed);
    return bind_share(&allowed, level, r, n);
}
