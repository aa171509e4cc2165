/* bench/mpi_idle: the parts shared by the driver (mpi_idle.c), its report
 * (mpi_idle_report.c) and the MPI program (mpi_idle_mpi.c, built once
 * against Weft's MPI and once against Open MPI's). See mpi_idle.c for what
 * is measured and how.
 */
#ifndef BENCH_MPI_IDLE_H
#define BENCH_MPI_IDLE_H

#include "bench_util.h"

#define MI_BENCH "mpi_idle"
#define MI_GOAL_PERCENT 2.0     /* Weft's goal: CPU of a waiting rank */
#define MI_OMPI_REF_PERCENT 96  /* the figure for Open MPI */

/* Rank 0 of the MPI program prints one line per wait:
 *   idle <variant> <cpu_ms> <wall_ms>
 * cpu_ms: its process's user + system CPU time (all threads) spent inside
 * MPI_Recv; wall_ms: the time it spent there. */
#define MI_IDLE_FORMAT "idle %s %.3f %.3f\n"

typedef enum mi_lib { MI_WEFT = 0, MI_OPENMPI, MI_NLIBS } mi_lib;
typedef enum mi_scen { MI_QUIET = 0, MI_LOAD, MI_NSCENS } mi_scen;

const char *mi_lib_name(mi_lib l);     /* "weft", "openmpi": variants */
const char *mi_scen_name(mi_scen s);   /* "quiet", "load": cases */

/* The waits of one (scenario, library). */
typedef struct mi_cell {
    int n;
    double cpu_pct[BENCH_REPEATS_MAX];
    double wall_ms[BENCH_REPEATS_MAX];
} mi_cell;

typedef struct mi_results {
    int wait_ms, reps, load_procs;
    int absent[MI_NLIBS];   /* library not installed or not built */
    int failures[MI_NLIBS]; /* failed launches */
    mi_cell cells[MI_NSCENS][MI_NLIBS];
    char ompi_version[64];
    bench_table table;      /* one cpu_percent row per cell, and notes */
} mi_results;

/* Fill r->table from the cells (cpu_percent rows, n/a without data). */
void mi_report_build(mi_results *r);

/* Print the table with the goal column, the notes and `result:` lines. */
void mi_report_print(const mi_results *r);

#endif /* BENCH_MPI_IDLE_H */
