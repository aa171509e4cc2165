/* One rank's part in running an earth problem over MPI: compute threads
 * sharing a task queue, a communication thread answering and sending
 * steal requests, and termination detection (earth_rank.c). */
#ifndef BENCH_EARTH_RANK_H
#define BENCH_EARTH_RANK_H

#include <mpi.h>
#include <stdint.h>

#include "earth.h"

/* What a run did on one rank (summed over ranks by the caller). */
typedef struct earth_stats {
    uint64_t tasks;         /* tasks run */
    uint64_t steals_sent;   /* steal requests sent */
    uint64_t steals_won;    /* requests answered with work */
    uint64_t tasks_shipped; /* tasks sent to a thief */
} earth_stats;
#define EARTH_STATS_WORDS 4

/* Run the problem of `root` on every rank of comm (all call it at once,
 * with comm used for nothing else meanwhile): rank 0 starts with root,
 * the others steal. `threads` compute threads run on this rank. Returns
 * once the whole job's work is done, with this rank's share of the answer
 * in *sum and its counters in *st; 0, or -1 if threads could not start.
 * Context: MPI_THREAD_MULTIPLE. */
int earth_rank_run(MPI_Comm comm, earth_task root, int threads,
                   uint64_t *sum, earth_stats *st);

#endif /* BENCH_EARTH_RANK_H */
