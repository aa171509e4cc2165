/* bench/threads: the parts shared by threads.c (driver and report),
 * threads_weft.c (Weft cases) and threads_native.c (pthread and ucontext
 * cases). See threads.c for what is measured and how. */
#ifndef BENCH_THREADS_H
#define BENCH_THREADS_H

#include <stdint.h>

#include "bench_util.h"

#define CONTENDED_THREADS 4 /* threads sharing the lock in mutex_contended */
#define WARMUP_ROUNDS     100 /* untimed round trips before a ping-pong */

typedef struct threads_params {
    int repeats;        /* timed runs per figure */
    int64_t target_ns;  /* length of one timed run */
    int64_t compute_ns; /* length of one preempt_overhead run */
} threads_params;

/* ------------------------------------------ preempt_overhead (threads_compute.c) */

/* Iterations, wall time and CPU time summed over compute segments. */
typedef struct compute_totals {
    double iters, wall_ns, cpu_ns;
} compute_totals;

/* Arms (ticking = 1) or disarms (0) the tick under test, at once. */
typedef void (*threads_set_tick)(int ticking, void *ctx);

/* Computes compute_ns under each setting, in alternating segments on the
 * calling thread; leaves the tick disarmed. */
void threads_compute_alternating(int64_t compute_ns, threads_set_tick set_tick, void *ctx,
                                 compute_totals *ticking, compute_totals *quiet);
void threads_add_totals(compute_totals *sum, const compute_totals *tot);
double threads_per_cpu_second(const compute_totals *tot);
/* Notes the wall-clock loss of `what` over all repeats. */
void threads_note_wall_clock(bench_table *t, const char *what, const compute_totals *ticking,
                             const compute_totals *quiet);

/* Each adds its rows (and notes) to t; returns 0, or -1 on an error
 * (a message was printed). */

/* pthread and ucontext variants; does not touch Weft. */
int threads_native_cases(const threads_params *p, bench_table *t);

/* Weft cases meant for one worker: yield_rt, create_join,
 * mutex_uncontended and preempt_overhead. */
int threads_weft_one_worker_cases(const threads_params *p, bench_table *t);

/* Weft cases meant for all workers: mutex_contended. */
int threads_weft_all_workers_cases(const threads_params *p, bench_table *t);

#endif /* BENCH_THREADS_H */
