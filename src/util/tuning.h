/* Every timing constant of the runtime, each with the reason for its
 * value, and the switches that turn a heuristic off for A/B measurements.
 *
 * The figures behind these choices, and what each heuristic measured
 * against its switch, are in docs/performance-notes.md.
 */
#ifndef WF_UTIL_TUNING_H
#define WF_UTIL_TUNING_H

#include <stdint.h>

/* ------------------------------------------------- idle workers (sched) */

/* Shortest spin budget: a spin shorter than one kernel wake-up (35-60 us
 * across virtual CPUs here) saves nothing. */
#define WF_SPIN_MIN_NS (50 * 1000LL)
/* Longest spin budget: the most CPU one idle episode may burn polling. */
#define WF_SPIN_MAX_NS (500 * 1000LL)
/* Spin rounds between two clock reads: a round may cost a system call. */
#define WF_SPIN_ROUNDS 16

/* ------------------------------------------------------ locks (sched) */

/* Spins before a lock waiter sleeps: a holder on another CPU releases
 * within a few microseconds (128 pauses are 0.5-3 us). */
#define WF_LOCK_SPINS 128
/* Longest sleep of a lock waiter between two tries: bounds the wait of
 * one whose release was missed (lock.c), and is a few times a kernel
 * wake-up, so a waiter behind a descheduled holder rarely wakes for
 * nothing. */
#define WF_LOCK_NAP_NS (50 * 1000LL)

/* ------------------------------------------------ preemption (sched) */

/* Longest tick: a preemption deferred by a critical section is retried
 * this soon, not a whole quantum later. */
#define WF_TICK_MAX_NS (1000 * 1000LL)
/* Retry of a deferred preemption when ticks are off (quantum 0). */
#define WF_DEFER_RETRY_NS (200 * 1000LL)

/* ------------------------------------ the kernel's view of our threads */

/* Kernel slice the server threads ask for (sched_setattr runtime): short
 * enough that their wake-ups preempt (EEVDF); the kernel's floor. */
#define WF_SERVER_SLICE_NS (100 * 1000LL)
/* Workers ask for this multiple of it: shorter than other processes'
 * default slices, longer than the server threads', so a woken server
 * thread preempts a busy worker. */
#define WF_WORKER_SLICE_FACTOR 3
/* How far below the process's nice the server threads run (where
 * allowed): a weight that lets a server thread that ran a moment ago
 * still preempt a worker (EEVDF eligibility). */
#define WF_SERVER_NICE_BOOST 10

/* ---------------------------------------------------------- I/O server */

/* Timeout of a class's block() callback: bounds how long unregistering
 * waits for its blocker thread. */
#define WF_IO_BLOCK_SLICE_MS 100

/* -------------------------------------------------------------- timers */

/* Idle workers wake this much before a timer's deadline, at least and at
 * most (twice the kernel's recent lateness in between), and poll the rest:
 * a spin of a few microseconds is late by less than a kernel wake-up. */
#define WF_TIMER_EARLY_MIN_NS (5 * 1000LL)
#define WF_TIMER_EARLY_MAX_NS (100 * 1000LL)
/* Another context is firing timers: an idle worker looks again this soon. */
#define WF_TIMER_BUSY_RETRY_NS (20 * 1000LL)
/* Within this of a deadline the timer service sleeps at most
 * WF_TIMER_WARM_CHUNK_NS at a time: EEVDF lets a thread that slept long
 * wait for a busy CPU's slice, one that sleeps ~1 ms at a time preempts. */
#define WF_TIMER_WARM_HORIZON_NS (20 * 1000 * 1000LL)
#define WF_TIMER_WARM_CHUNK_NS (1000 * 1000LL)
/* The service's longest spin before a deadline (it wakes its measured
 * lateness early and spins), taken from compute threads. */
#define WF_TIMER_SPIN_MAX_NS (50 * 1000LL)
/* A timed-wake lateness above this is an outlier, not learnt. */
#define WF_TIMER_LATE_MAX_NS (1000 * 1000LL)
/* CPU-time queue: a CPU-clock read is a system call, so it is polled no
 * more often than this, and no less often than the max. */
#define WF_TIMER_CPU_POLL_MIN_NS (100 * 1000LL)
#define WF_TIMER_CPU_POLL_MAX_NS (100 * 1000 * 1000LL)
/* weft_fini waits this long for timer host threads to finish their work,
 * looking every WF_TIMER_FINI_POLL_NS. */
#define WF_TIMER_FINI_GRACE_NS (100 * 1000 * 1000LL)
#define WF_TIMER_FINI_POLL_NS (20 * 1000LL)
/* A timeout's canceller spins this many rounds for a firing timer before
 * it yields its kernel thread (the firer may be descheduled). */
#define WF_TIMEOUT_SPINS 1000

/* --------------------------------------------------------------- sync */

/* A mutex waiter older than this ends barging: hand-off mode (Go's). */
#define WF_MUTEX_STARVE_NS (1000 * 1000LL)

/* ------------------------------------------- heuristics and switches */

/* Heuristics that WEFT_DISABLE can turn off by name (comma-separated),
 * so that a benchmark can show each one's gain A/B in the same run. */
enum wf_heuristic {
    WF_H_SPIN = 1 << 0,         /* "spin": idle workers poll before sleeping */
    WF_H_SHARED_YIELD = 1 << 1, /* "shared-yield": on shared CPUs, spin by yielding */
    WF_H_SERVER_NICE = 1 << 2,  /* "server-nice": server threads' weight */
    WF_H_KERNEL_SLICE = 1 << 3, /* "kernel-slice": short kernel slices */
    WF_H_TICK_YIELD = 1 << 4,   /* "tick-yield": busy workers yield at ticks
                                   while a server thread waits */
    WF_H_SHORT_RUNS = 1 << 5,   /* "short-runs": a busy worker detects at its
                                   switches while its threads run short */
    WF_H_WAIT_TEST = 1 << 6,    /* "wait-test": an MPI wait tests its requests
                                   in the caller before it parks (the MPI
                                   engine asks, weft_heuristic_on) */
};

/* Read WEFT_DISABLE (weft_init does, each time): 0, or WEFT_EINVAL with
 * a message naming an unknown heuristic. */
int wf_tuning_init(void);

/* 1 unless WEFT_DISABLE named heuristic `h` (all are on before the first
 * wf_tuning_init). Context: any, including a signal handler. */
int wf_tuning_on(enum wf_heuristic h);

#endif /* WF_UTIL_TUNING_H */
