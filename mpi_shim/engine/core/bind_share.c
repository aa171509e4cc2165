/* Which CPUs a local rank gets: the machine's CPUs grouped at the binding
 * level (hardware threads, cores or packages), and the ranks dealt onto
 * those groups (bind.c applies the result).
 *
 * Design. A CPU is named by the lowest CPU of its core and of its package,
 * read from sysfs (core_cpus_list, package_cpus_list; the older names
 * thread_siblings_list and core_siblings_list where those are missing),
 * so no numbering scheme of the kernel's is assumed. Only the CPUs the
 * process may use count. A "unit" is one group at the binding level;
 * units are dealt in the machine's order - package, then core, then CPU
 * (hwloc's logical order) - so a block of hardware threads fills a core
 * before the next, where CPU numbers usually put a core's second thread
 * far from its first.
 *
 * Mapping "slot" (also core and hwthread): the n ranks take consecutive
 * blocks of units, rank r the units of index [r*U/n, (r+1)*U/n) - with
 * more ranks than units, the one unit of index r*U/n. Mapping "socket":
 * rank r goes to package r mod S (Open MPI's --map-by socket: neighbours
 * on different packages), and the ranks of one package share its units as
 * above. A rank thus gets whole units, never part of a core: with
 * --bind-to core two ranks on a machine of 2 cores x 2 threads get one
 * core each, not one thread of each.
 *
 * Rejected: hwloc here (the MPI shim sees only Weft's public headers, and
 * sysfs has the two levels Open MPI's --bind-to names beyond the core).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/bind_share.h"

#define SYSFS_CPU "/sys/devices/system/cpu"

/* The lowest CPU of a "0-3,8" list in `file` under cpu/topology/, or -1. */
static int first_of_list(int cpu, const char *file, const char *older)
{
    char path[128], line[64];
    FILE *f;

    snprintf(path, sizeof path, SYSFS_CPU "/cpu%d/topology/%s", cpu, file);
    f = fopen(path, "r");
    if (!f) {
        snprintf(path, sizeof path, SYSFS_CPU "/cpu%d/topology/%s", cpu, older);
        f = fopen(path, "r");
    }
    if (!f)
        return -1;
    int first = fgets(line, sizeof line, f) && line[0] >= '0' && line[0] <= '9' ? atoi(line)
                                                                                : -1;
    fclose(f);
    return first;
}

int wmpi_cpu_places(const cpu_set_t *allowed, wmpi_cpu_place *out, int max)
{
    int n = 0;

    for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++) {
        if (!CPU_ISSET(cpu, allowed))
            continue;
        int core = first_of_list(cpu, "core_cpus_list", "thread_siblings_list");
        int package = first_of_list(cpu, "package_cpus_list", "core_siblings_list");
        out[n++] = (wmpi_cpu_place){ .cpu = cpu, .core = core < 0 ? cpu : core,
                                     .package = package < 0 ? 0 : package };
    }
    return n;
}

/* The name of p's group at `level`. */
static int unit_of(const wmpi_cpu_place *p, wmpi_bind_level level)
{
    switch (level) {
    case WMPI_BIND_HWTHREAD: return p->cpu;
    case WMPI_BIND_CORE: return p->core;
    default: return p->package;
    }
}

/* Distinct values of key(places[i]) for the places with package `pkg`
 * (-1: any), in order of first appearance; returns how many. */
static int distinct(const wmpi_cpu_place *places, int n, wmpi_bind_level level, int pkg,
                    int *keys)
{
    int k = 0;

    for (int i = 0; i < n; i++) {
        if (pkg >= 0 && places[i].package != pkg)
            continue;
        int key = unit_of(&places[i], level), seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = keys[j] == key;
        if (!seen)
            keys[k++] = key;
    }
    return k;
}

static int by_machine_order(const void *a, const void *b)
{
    const wmpi_cpu_place *x = a, *y = b;
    if (x->package != y->package)
        return x->package < y->package ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int wmpi_bind_share(const wmpi_cpu_place *given, int n, wmpi_bind_level level,
                    int map_by_socket, int rank, int nranks, cpu_set_t *share)
{
    size_t cells = (size_t)(n > 0 ? n : 1);
    int *keys = malloc(sizeof *keys * cells);
    wmpi_cpu_place *places = malloc(sizeof *places * cells);
    int pkg = -1, r = rank, m = nranks;

    CPU_ZERO(share);
    if (!keys || !places || n <= 0 || rank < 0 || rank >= nranks) {
        free(keys);
        free(places);
        return 0;
    }
    memcpy(places, given, sizeof *places * (size_t)n);
    qsort(places, (size_t)n, sizeof *places, by_machine_order);
    if (map_by_socket) { /* this rank's package, and its place among the package's ranks */
        int npkg = distinct(places, n, WMPI_BIND_SOCKET, -1, keys);
        pkg = keys[rank % npkg];
        r = rank / npkg;
        m = (nranks - rank % npkg + npkg - 1) / npkg;
    }
    int units = distinct(places, n, level, pkg, keys);
    int first = (int)((long)r * units / m);
    int last = m <= units ? (int)((long)(r + 1) * units / m) : first + 1;
    for (int i = 0; i < n; i++) {
        if (pkg >= 0 && places[i].package != pkg)
            continue;
        int key = unit_of(&places[i], level);
        for (int u = first; u < last; u++)
            if (keys[u] == key)
                CPU_SET(places[i].cpu, share);
    }
    free(keys);
    free(places);
    return m > units;
}
