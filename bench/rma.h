/* bench/rma: the parts shared by the driver (rma.c), its report
 * (rma_report.c) and the MPI program (rma_mpi.c, rma_mpi_progress.c,
 * built once against Weft's MPI and once against Open MPI's). See rma.c
 * for what is measured and how.
 */
#ifndef BENCH_RMA_H
#define BENCH_RMA_H

#include <stdint.h>

#include "bench_util.h"

#define RMA_BENCH "rma"
#define RMA_MAX_NS 4

/* ------------------------------------------------ the MPI program */

/* The window: big enough for the largest put; its first words are the
 * progress part's (rma_mpi_progress.c). */
#define RMA_WIN_BYTES (1 << 20)
#define RMA_BW_WINDOW 64 /* puts between two flushes, as OSU's put_bw */

/* The origin (rank 0) prints one line per figure of part 1:
 *   perf <case> <value>          (case: rma_perf_case_name; us or MB/s)
 * and one per N of part 2:
 *   progress <n> <threads> <count> <p50_us> <p99_us> <max_us> <stalled_ms>
 *            <waited>
 * (threads: compute threads in the target, in all; stalled_ms: 0, or how
 * long the get that did not complete in time took in the end; waited: 1
 * if that get completed only once the target's compute phase was over,
 * i.e. when the target called MPI again). */
#define RMA_PERF_FORMAT "perf %s %.4f\n"
#define RMA_PROGRESS_FORMAT "progress %d %d %d %.3f %.3f %.3f %.0f %d\n"

typedef enum rma_perf_case {
    RMA_PUT_LAT,     /* 8 B, us */
    RMA_GET_LAT,     /* 8 B, us */
    RMA_PUT_BW_64K,  /* MB/s */
    RMA_PUT_BW_1M,   /* MB/s */
    RMA_NPERF
} rma_perf_case;

/* "put_lat_8B", "get_lat_8B", "put_bw_64KiB", "put_bw_1MiB". */
const char *rma_perf_case_name(rma_perf_case c);
/* 8, 8, 65536, 1048576. */
int rma_perf_case_bytes(rma_perf_case c);
/* 1 for a latency (us, lower is better), 0 for a bandwidth (MB/s). */
int rma_perf_case_is_latency(rma_perf_case c);

/* --------------------------------------------------------- driver */

typedef enum rma_variant {
    RMA_WEFT = 0,    /* Weft's mpirun at its defaults */
    RMA_OMPI,        /* mpirun.openmpi at its defaults */
    RMA_OMPI_TCP,    /* mpirun.openmpi --mca btl tcp,self */
    RMA_NVARIANTS
} rma_variant;

const char *rma_variant_name(rma_variant v); /* weft, openmpi, openmpi_tcp */

/* One repeat of one N of part 2 under one variant. */
typedef struct rma_prog_run {
    int threads, count;
    double p50_us, p99_us, max_us;
    double stalled_ms; /* > 0: a get took longer than the stall limit;
                          it took this long */
    int waited;        /* it completed only after the target's compute
                          phase, when the target called MPI again */
} rma_prog_run;

typedef struct rma_prog_cell {
    int nruns;
    rma_prog_run runs[BENCH_REPEATS_MAX];
} rma_prog_cell;

typedef struct rma_perf_cell {
    int nruns;
    double values[BENCH_REPEATS_MAX];
} rma_perf_cell;

enum { RMA_ST_NOT_RUN = 0, RMA_ST_OK, RMA_ST_FAILED, RMA_ST_ABSENT };

typedef struct rma_results {
    int ns[RMA_MAX_NS], n_ns;
    int repeats, repeats_done;
    double soft_s, stall_s;        /* per case; a get's time limit */
    int state[RMA_NVARIANTS];      /* RMA_ST_*: worst over the repeats */
    int failures[RMA_NVARIANTS];   /* failed launches */
    rma_perf_cell perf[RMA_NVARIANTS][RMA_NPERF];
    rma_prog_cell prog[RMA_NVARIANTS][RMA_MAX_NS];
    char ompi_version[64];
    bench_table notes; /* notes only */
    bench_steal steal_since; /* marked before the first job */
} rma_results;

/* Print the tables, the goal lines and the `result:` lines. */
void rma_report_print(const rma_results *r);

/* CSV: bench_util's columns, then n (0 for part 1). Returns 0 or -1. */
int rma_report_csv(const rma_results *r, const char *path);

#endif /* BENCH_RMA_H */
