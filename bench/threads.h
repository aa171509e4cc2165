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

/* Arms (ticking = 1) or disarms (0) the tick under test, at once. */
typedef void (*threads_set_tick)(int ticking, void *ctx);

/* One tick under test: how to switch it, and the names of its rows. */
typedef struct threads_tick {
    threads_set_tick set;
    void *ctx;
    const char *ticking, *quiet; /* preempt_overhead variants */
    const char *what;            /* for the wall-clock note */
} threads_tick;

/* Runs p->repeats repeats of compute_ns under each setting, in
 * alternating segments on the calling thread, and adds the two
 * throughput rows and a wall-clock note to t; leaves the tick disarmed. */
void threads_measure_tick(const threads_params *p, const threads_tick *tick, bench_table *t);

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
