/* bench/startup: the parts shared by the driver (startup.c), its report
 * (startup_report.c) and the MPI program (startup_mpi.c, built once
 * against Weft's MPI and once against Open MPI's). See startup.c for what
 * is measured and how.
 */
#ifndef BENCH_STARTUP_H
#define BENCH_STARTUP_H

#include <stddef.h>

/* Rank 0 of the MPI program prints, after MPI_Init and MPI_Barrier:
 *   up <variant> <ranks>
 * and, with --count-tcp, the established TCP connections to other ranks,
 * the most and the fewest of any rank:
 *   tcp_peers <variant> <max> <min> */
#define SU_UP_FORMAT  "up %s %d\n"
#define SU_TCP_FORMAT "tcp_peers %s %d %d\n"

#include "bench_util.h"

#define SU_BENCH "startup"
#define SU_GOAL_RATIO 0.2  /* Weft's wall time <= 1/5 of Open MPI's */
#define SU_TCP_GOAL 8      /* TCP connections per rank */
#define SU_SIZES_MAX 4

typedef enum su_var {
    SU_WEFT = 0,         /* Weft's mpirun, default settings */
    SU_WEFT_HWLOC_IO,    /* the same, hwloc's I/O plugins loaded */
    SU_OPENMPI,          /* mpirun.openmpi --oversubscribe */
    SU_NVARS
} su_var;

const char *su_var_name(su_var v); /* the table's and CSV's variants */

/* The launches of one (ranks, variant). */
typedef struct su_cell {
    int n, timeouts, failures;
    double wall_ms[BENCH_REPEATS_MAX];
} su_cell;

typedef struct su_results {
    int quick, reps, nsizes;
    int sizes[SU_SIZES_MAX];
    int timeout_s[SU_NVARS][SU_SIZES_MAX]; /* each launch's limit */
    int absent[SU_NVARS];                  /* not installed or not built */
    su_cell cells[SU_SIZES_MAX][SU_NVARS];
    int tcp_np, tcp_max, tcp_min;          /* the TCP job; -1: no figure */
    double tcp_wall_ms;
    char ompi_version[64];
    bench_table table;                     /* wall_ms rows, notes */
} su_results;

/* "n64": the table's case for a job of np ranks. */
const char *su_case_name(char *buf, size_t size, int np);

/* Fill r->table from the cells (n/a without data) and the TCP count. */
void su_report_build(su_results *r);

/* Print the table, the goal rows, the notes and the `result:` lines. */
void su_report_print(const su_results *r);

#endif /* BENCH_STARTUP_H */
