/* bench/rma, the MPI program's own interface between its two parts:
 * rma_mpi.c (start-up, arguments, part 1: latency and bandwidth) and
 * rma_mpi_progress.c (part 2: gets while the target computes).
 */
#ifndef BENCH_RMA_MPI_H
#define BENCH_RMA_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "rma.h"

typedef struct rma_args {
    const char *variant;
    int perf, progress;      /* which parts run */
    int ns[RMA_MAX_NS], n_ns;
    int64_t soft_ns;         /* each measurement lasts about this long */
    int64_t stall_ns;        /* a get that takes longer stalled */
    uint64_t seed;
} rma_args;

/* Part 2 on both ranks (rank 0 the origin, rank 1 the target): every N
 * of a->ns in turn, over win, whose memory on this rank is base. */
void rma_progress_run(const rma_args *a, MPI_Win win, void *base, int rank);

#endif /* BENCH_RMA_MPI_H */
