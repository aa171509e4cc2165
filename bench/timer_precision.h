/* bench/timer_precision: shared between the driver (timer_precision.c) and
 * the measuring child processes (timer_precision_run.c). */
#ifndef BENCH_TIMER_PRECISION_H
#define BENCH_TIMER_PRECISION_H

#include "bench_util.h"

/* One measurement: `variant` (weft, nanosleep, setitimer) sleeping
 * `dur_ms` ms again and again beside `load` (N0, N2, N10: compute threads
 * in the process; P2: two competing CPU-bound processes). */
typedef struct tp_case {
    char variant[16];
    int dur_ms;
    char load[8];
    int ncompute; /* compute threads in the process */
    int nprocs;   /* competing processes */
} tp_case;

/* Parse "<variant>:<dur_ms>:<load>" (the --case name of a child). */
int tp_parse_case(const char *name, tp_case *c);

/* Sleeps per measurement: 1000 of 1 ms / 100 of 10 ms (--quick: 50 / 10);
 * TIMER_PRECISION_SLEEPS=<n> overrides both (e.g. 2000, the full
 * count: ~5 minutes). */
int tp_sleep_count(int dur_ms, int quick);

/* Child side: measure case `c` and add its rows (case sleep_<d>ms_<load>,
 * metrics offset_median, offset_p99, offset_max in us) to t. Returns 0 or
 * -1 on error. */
int tp_measure(const tp_case *c, int quick, bench_table *t);

#endif /* BENCH_TIMER_PRECISION_H */
