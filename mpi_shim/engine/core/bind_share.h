/* The CPUs of a local rank's share (bind_share.c): the machine's layout as
 * sysfs gives it, and the deal of ranks onto groups of CPUs. Used by
 * bind.c at MPI_Init, and by the unit tests with made-up machines.
 */
#ifndef WMPI_BIND_SHARE_H
#define WMPI_BIND_SHARE_H

#include <sched.h>

/* What a rank is bound to: whole hardware threads, cores or packages. */
typedef enum wmpi_bind_level {
    WMPI_BIND_HWTHREAD,
    WMPI_BIND_CORE,
    WMPI_BIND_SOCKET,
} wmpi_bind_level;

/* A CPU, its core and its package, each named by its lowest CPU. */
typedef struct wmpi_cpu_place {
    int cpu, core, package;
} wmpi_cpu_place;

/* Fill out[0..max) with the places of the CPUs in `allowed`, in CPU order,
 * from sysfs (a CPU whose topology it lacks is its own core on package 0).
 * Returns how many. Never blocks (reads sysfs files). */
int wmpi_cpu_places(const cpu_set_t *allowed, wmpi_cpu_place *out, int max);

/* The CPUs of local rank `rank` of `nranks` in *share: whole units at
 * `level` among places[0..n) (any order), dealt in blocks in the machine's
 * order, or first round-robin over the packages when `map_by_socket`. Returns 1 if ranks share units (more
 * ranks than units where this rank was placed), else 0. An empty share
 * (bad arguments, or out of memory) means: do not bind. Never blocks. */
int wmpi_bind_share(const wmpi_cpu_place *places, int n, wmpi_bind_level level,
                    int map_by_socket, int rank, int nranks, cpu_set_t *share);

#endif
