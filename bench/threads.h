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
