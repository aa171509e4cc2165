/* Weft user-level threads: runtime start-up, thread life cycle, priorities,
 * time slicing and pre/post-execution hooks.
 *
 * Model: M user-level threads (ULTs) run on N kernel "workers" (one per core
 * by default). A ULT that blocks in a Weft primitive leaves its worker free
 * for others; a ULT that computes without yielding is preempted at the end
 * of its quantum, so it cannot starve the others.
 *
 * Kernel-thread locks: a ULT may be preempted while it holds a pthread
 * mutex (or any lock whose waiters sleep in the kernel). Another ULT that
 * then waits for that lock blocks its worker, and the holder, queued
 * behind it, runs again only if another worker takes it: with one worker,
 * never. Share data between ULTs, or between ULTs and pthreads, with
 * weft_mutex (sync.h), which blocks only the calling thread, or atomics.
 *
 * Contexts named in the comments below:
 *   ULT      - a Weft user-level thread (including main after weft_init()).
 *   external - a kernel thread that is not a Weft worker (a plain pthread).
 *   signal   - a signal handler.
 */
#ifndef WEFT_THREAD_H
#define WEFT_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include <weft/errno.h>

#ifdef __cplusplus
#define WEFT_NORETURN [[noreturn]]
extern "C" {
#else
#define WEFT_NORETURN _Noreturn
#endif

/* ---------------------------------------------------------------- runtime */

/* Start the runtime: create the workers and turn the caller into a ULT
 * (when called from main(), main becomes the "main thread", bound to worker
 * 0). Reads WEFT_WORKERS (worker count; default: one per core, from hwloc),
 * WEFT_QUANTUM_US (time slice, default 10000), WEFT_STACK_SIZE (default ULT
 * stack size in bytes, default 256 KiB) and WEFT_BIND (core|none, default
 * core). Calling it again is harmless and returns 0.
 * Errors: WEFT_ENOMEM, WEFT_EAGAIN (kernel threads or timers unavailable),
 * WEFT_EINVAL (malformed environment variable; a message names it).
 * Context: external (normally main). Blocks: no. */
int weft_init(void);

/* Stop the runtime: workers exit and their resources are released. Must be
 * called by the thread that called weft_init(). Other ULTs must have exited
 * (join them first).
 * Errors: WEFT_EBUSY (other threads still exist, timed events are pending
 * or an event host thread is running one; nothing is stopped),
 * WEFT_EPERM (called from another thread), WEFT_ESTATE (not initialised).
 * Context: the initial ULT. Blocks: no. */
int weft_fini(void);

/* 1 if weft_init() has run and weft_fini() has not, else 0.
 * Context: any. Blocks: no. */
int weft_is_initialized(void);

/* Number of workers (kernel threads) running ULTs; 0 before weft_init().
 * Context: any. Blocks: no. */
int weft_num_workers(void);

/* Index (0 .. weft_num_workers()-1) of the worker running the caller, or -1
 * if the caller is not running on a worker. The answer may be stale as soon
 * as the caller can be preempted. Context: any. Blocks: no. */
int weft_worker_id(void);

/* Say whether other processes share this process's CPUs by design (MPI
 * ranks that outnumber the cores, for instance). While `shared` is nonzero,
 * a spinning idle worker yields its CPU (sched_yield) between polls, so
 * that a neighbour about to produce the awaited event runs at once; 0 (the
 * default) spins with the CPU's pause instruction. May be called before
 * weft_init. Context: any. Blocks: no. */
void weft_set_cpus_shared(int shared);

/* Whether weft_init pins each worker to a core when WEFT_BIND is unset
 * (nonzero, the default) or leaves workers free to run on every allowed
 * CPU (0): processes that share one CPU set on purpose (MPI ranks told
 * not to bind) would otherwise pin their first workers to the same core.
 * WEFT_BIND, when set, decides. Call before weft_init. Context: any.
 * Blocks: no. */
void weft_set_worker_binding(int bind);

/* Whether weft_set_cpus_shared last said the CPUs are shared (0 or 1).
 * Context: any. Blocks: no. */
int weft_cpus_shared(void);

/* The number of runnable ULTs queued for a worker, over all workers: a
 * snapshot that may be stale by the time it returns. A thread about to
 * test something in a loop before it parks asks it so as to give way to
 * ready work. Context: any. Blocks: no. */
int weft_ready_threads(void);

/* 1 unless WEFT_DISABLE names the heuristic `name` (README; the names are
 * listed in docs/performance-notes.md), so that a layer above the runtime
 * (the MPI library) gives its own heuristics the same A/B switch; 1 for a
 * name the runtime does not know. Read after weft_init. Context: any.
 * Blocks: no. */
int weft_heuristic_on(const char *name);

/* ---------------------------------------------------- fatal-signal report */

/* Arm a report for the death of the process by SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL or SIGABRT: before dying of the signal (re-raised with the
 * default action, so the exit status and core dump are unchanged), the
 * faulting thread writes to stderr, each line prefixed "weft: <who>", the
 * host, pid, signal, fault address, the ULT and worker it ran on, and a
 * backtrace of that thread (function names where the dynamic symbol table
 * has them, object+offset always). `who` (e.g. "rank 3"; NULL or "" means
 * "process") is copied, at most 95 bytes. Only signals whose action is the
 * default are taken (for SIGSEGV/SIGBUS: the action Weft's stack-overflow
 * handler passes other faults to): a program's or a sanitizer's handler
 * is never replaced. Calling it again changes `who` and re-checks.
 * Returns the number of signals armed (0..5). Errors: none.
 * Context: ULT or external, not concurrently with weft_init/weft_fini.
 * Blocks: no. */
int weft_fatal_report_start(const char *who);

/* Disarm the report: the signals it took get the default action again.
 * Context and Blocks: as weft_fatal_report_start. */
void weft_fatal_report_stop(void);

/* ------------------------------------------------------------- priorities */

#define WEFT_PRIO_MIN     0   /* lowest priority */
#define WEFT_PRIO_DEFAULT 3   /* new threads, main thread */
#define WEFT_PRIO_HIGH    6   /* e.g. threads woken by I/O events */
#define WEFT_PRIO_MAX     7   /* highest priority */
#define WEFT_NUM_PRIOS    8

/* Set the default time slice (quantum) for every time-sliced priority level,
 * in nanoseconds; 0 turns preemption off. Default 10 ms (WEFT_QUANTUM_US).
 * Errors: WEFT_EINVAL (negative, or below 10 us). Context: any. Blocks: no. */
int weft_set_quantum(int64_t quantum_ns);

/* The default time slice in nanoseconds (0: preemption off).
 * Context: any. Blocks: no. */
int64_t weft_get_quantum(void);

/* Time-slice threads of priority level `prio` with quantum `quantum_ns`
 * (ARIADNE's a_defslice); quantum_ns == 0 uses the default quantum.
 * Errors: WEFT_EINVAL. Context: any. Blocks: no. */
int weft_prio_set_slice(int prio, int64_t quantum_ns);

/* Stop time-slicing level `prio` (ARIADNE's a_clearslice): its threads run
 * until they block or yield, unless a higher-priority thread is runnable.
 * Errors: WEFT_EINVAL. Context: any. Blocks: no. */
int weft_prio_clear_slice(int prio);

/* 1 if level `prio` is time-sliced, 0 if not, WEFT_EINVAL if out of range.
 * Context: any. Blocks: no. */
int weft_prio_is_sliced(int prio);

/* ---------------------------------------------------------------- threads */

typedef struct weft_thread *weft_thread_t;
#define WEFT_THREAD_NULL ((weft_thread_t)0)

/* Thread attributes; initialise with weft_thread_attr_init(). */
typedef struct weft_thread_attr {
    size_t      stack_size; /* bytes; 0: the default. Rounded up to pages. */
    int         priority;   /* WEFT_PRIO_MIN .. WEFT_PRIO_MAX */
    const char *name;       /* copied (up to 31 chars); NULL: "ult-<id>" */
    int         detached;   /* nonzero: freed at exit, cannot be joined */
} weft_thread_attr;

/* Fill `attr` with the defaults (default stack, WEFT_PRIO_DEFAULT, no name,
 * joinable). Context: any. Blocks: no. */
void weft_thread_attr_init(weft_thread_attr *attr);

/* Create a ULT running fn(arg); it is runnable at once. `attr` may be NULL.
 * The runtime is initialised on first use if weft_init() was not called.
 * On success *out is the new thread (pass out == NULL only with a detached
 * attribute). Errors: WEFT_EINVAL (fn NULL, bad priority, out NULL for a
 * joinable thread), WEFT_ENOMEM (no memory for the stack or descriptor);
 * *out is WEFT_THREAD_NULL on failure.
 * Context: ULT or external. Blocks: no. */
int weft_thread_create(weft_thread_t *out, const weft_thread_attr *attr,
                       void *(*fn)(void *), void *arg);

/* Wait for `t` to finish and release it; its return value (or the value
 * given to weft_thread_exit) goes to *retval if retval is not NULL.
 * Errors: WEFT_EINVAL (t NULL or detached), WEFT_EDEADLK (t is the caller),
 * WEFT_ESRCH (someone else already joins t).
 * Context: ULT (blocks only the calling ULT) or external (blocks the kernel
 * thread). Blocks: yes. */
int weft_thread_join(weft_thread_t t, void **retval);

/* Detach `t`: its resources are released when it finishes; it can no longer
 * be joined. Errors: WEFT_EINVAL (NULL, or already detached), WEFT_ESRCH
 * (someone is joining it). Context: any but signal. Blocks: no. */
int weft_thread_detach(weft_thread_t t);

/* Give the worker to another runnable thread of equal or higher priority,
 * if there is one; otherwise return at once. From an external thread it is
 * sched_yield(). Context: ULT or external. Blocks: no (may switch). */
void weft_thread_yield(void);

/* Finish the calling ULT with `retval` (as if its function returned it).
 * Calling it from the main thread or an external thread aborts with a
 * message. Context: ULT. Blocks: does not return. */
WEFT_NORETURN void weft_thread_exit(void *retval);

/* The calling ULT, or WEFT_THREAD_NULL if the caller is not a ULT.
 * Context: any. Blocks: no. */
weft_thread_t weft_thread_self(void);

/* Unique id of `t` (1 for the main thread, then increasing; never reused);
 * 0 for WEFT_THREAD_NULL. Context: any. Blocks: no. */
uint64_t weft_thread_id(weft_thread_t t);

/* The name of `t`; valid until `t` is joined or, detached, finishes.
 * NULL for WEFT_THREAD_NULL. Context: any. Blocks: no. */
const char *weft_thread_name(weft_thread_t t);

/* Rename `t` (copied, truncated to 31 characters).
 * Errors: WEFT_EINVAL. Context: any but signal. Blocks: no. */
int weft_thread_set_name(weft_thread_t t, const char *name);

/* Change the priority of `t`; takes effect the next time it is queued (for
 * the caller itself, at once: it yields if a higher thread is runnable).
 * Errors: WEFT_EINVAL. Context: any but signal. Blocks: no (may switch). */
int weft_thread_set_priority(weft_thread_t t, int prio);

/* Priority of `t`, or WEFT_EINVAL for WEFT_THREAD_NULL.
 * Context: any. Blocks: no. */
int weft_thread_get_priority(weft_thread_t t);

/* ------------------------------------------------- pre/post-exec hooks */

/* A hook runs on the worker, between two threads, with the runtime's
 * switching state locked: it must be short, must not block, yield, create
 * threads or take Weft locks. */
typedef void (*weft_hook_fn)(weft_thread_t t, void *arg);

/* Run fn(t, arg) every time `t` is given control, just before it runs
 * (ARIADNE's a_setschdf). fn == NULL removes the hook. Changed while `t`
 * is being switched in, the old function may run once with the new
 * argument: set a hook before `t` runs or from `t` itself.
 * Errors: WEFT_EINVAL (t NULL). Context: any but signal. Blocks: no. */
int weft_thread_set_pre_hook(weft_thread_t t, weft_hook_fn fn, void *arg);

/* Run fn(t, arg) every time `t` gives up control (yields, blocks, is
 * preempted or finishes), right after it stops running (ARIADNE's
 * a_setdschdf). fn == NULL removes the hook; changes as for the pre-hook.
 * Errors: WEFT_EINVAL (t NULL). Context: any but signal. Blocks: no. */
int weft_thread_set_post_hook(weft_thread_t t, weft_hook_fn fn, void *arg);

/* ------------------------------------------------------------ statistics */

/* Counters since weft_init(), summed over workers. */
typedef struct weft_sched_stats {
    uint64_t switches;     /* context switches between ULTs */
    uint64_t preemptions;  /* switches forced by the time slice */
    uint64_t deferred;     /* ticks that found the worker in a critical
                              section and were delayed to the next safe point */
    uint64_t steals;       /* threads taken from another worker's queue */
    uint64_t idle_sleeps;  /* times a worker slept in the kernel */
    uint64_t server_yields; /* ticks at which a worker running a ULT gave
                               its CPU up to the kernel because one of the
                               I/O server's threads was waiting for events */
} weft_sched_stats;

/* Fill *st with the counters. Errors: WEFT_EINVAL (st NULL).
 * Context: any but signal. Blocks: no. */
int weft_sched_get_stats(weft_sched_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_THREAD_H */
