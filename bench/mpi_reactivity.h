/* bench/mpi_reactivity: the parts shared by the driver (mpi_reactivity.c),
 * its report (mpi_reactivity_report.c) and the MPI program
 * (mpi_reactivity_mpi.c, built once against Weft's MPI and once against
 * Open MPI's). See mpi_reactivity.c for what is measured and how.
 */
#ifndef BENCH_MPI_REACTIVITY_H
#define BENCH_MPI_REACTIVITY_H

#include <stdint.h>

#include "bench_util.h"
#include "mpi_segments.h"

#define MR_BENCH "mpi_reactivity"
#define MR_MAX_NS 8
#define MR_OMPI_MAX_N 50 /* Open MPI runs the N up to this (see .c) */

/* ------------------------------------------------ the MPI program */

/* Rank 1 prints one line per case:
 *   sample <variant> <n> <count> <median_us> <p99_us> <mean_us> <capped>
 * (capped: 1 if the time limit ended the case before its round-trip
 * count). */
#define MR_SAMPLE_FORMAT "sample %s %d %d %.3f %.3f %.3f %d\n"

/* --------------------------------------------------------- driver */

typedef enum mr_lib { MR_WEFT = 0, MR_OPENMPI, MR_NLIBS } mr_lib;

const char *mr_lib_name(mr_lib l); /* "weft", "openmpi": the variants */

/* One repeat of one case (one N under one library). */
typedef struct mr_run {
    int count;  /* timed round trips */
    int capped; /* stopped by the time limit */
    double median_us, p99_us, mean_us;
} mr_run;

typedef struct mr_cell {
    int nruns;
    int stalls; /* repeats whose job stalled or failed in this case */
    mr_run runs[BENCH_REPEATS_MAX];
} mr_cell;

enum { MR_ST_NOT_RUN = 0, MR_ST_OK, MR_ST_FAILED, MR_ST_ABSENT };

typedef struct mr_results {
    int ns[MR_MAX_NS], n_ns;      /* ascending */
    int lib_ns[MR_NLIBS];         /* library l runs ns[0 .. lib_ns[l]-1] */
    int repeats;
    int max_rts;
    double soft_s, think_us;
    int state[MR_NLIBS];          /* MR_ST_*: worst over the repeats */
    int failures[MR_NLIBS];       /* failed launches */
    mr_cell cells[MR_NLIBS][MR_MAX_NS];
    char ompi_version[64];
    bench_table notes;            /* notes only */
    ms_table segments;            /* the jobs' `segments` lines */
    bench_steal steal_since; /* marked before the first case */
} mr_results;

/* Print the table, the reference row, the goal lines, the shared-memory
 * segments and the `result:` lines. */
void mr_report_print(const mr_results *r);

/* CSV: bench_util's columns, then n,round_trips. Returns 0 or -1. */
int mr_report_csv(const mr_results *r, const char *path);

#endif /* BENCH_MPI_REACTIVITY_H */
