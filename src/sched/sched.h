/* The scheduler's interface to the layers above it (sync, timers, signals,
 * continuations, I/O). Everything else in src/sched/ is private.
 *
 * Blocking protocol. A caller that must wait fills a wf_wait, publishes it
 * where a waker will find it (a wait queue, a timer, an I/O request), and
 * calls wf_wait_block(). For a ULT, the context is saved first and only then
 * is `release(arg)` run (on the next thread's stack), so a waker can never
 * resume a thread whose registers are not saved yet (Argobots' *_with_call,
 * Go's gopark(unlockf)). A wake that arrives before the block is not lost:
 * the state word records it and wf_wait_block() returns at once.
 * An external kernel thread (not a worker) runs release() at once and then
 * sleeps on a futex on the state word.
 *
 * Critical sections. wf_rt_enter()/wf_rt_leave() mark the worker as "inside
 * the runtime": the preemption signal then only records a pending switch,
 * taken at wf_rt_leave() (the paper's passive delay). No signal masks.
 * Spin locks shared with other workers must only be held inside such a
 * section (wf_lock/wf_unlock do it), or a preempted holder could stall them.
 */
#ifndef WF_SCHED_H
#define WF_SCHED_H

#include <stdint.h>
#include <weft/thread.h>

typedef struct weft_thread wf_thread;

/* ---------------------------------------------------- critical sections */

/* Enter / leave a runtime critical section on the current worker (nestable).
 * No-ops on external threads. Leaving the outermost section takes a
 * preemption that was deferred meanwhile. */
void wf_rt_enter(void);
void wf_rt_leave(void);

/* Lock on an int (0 free, else held; lock.c) inside a critical section:
 * spins briefly, then sleeps on a futex until the holder releases. */
void wf_lock(int *l);
void wf_unlock(int *l);
int  wf_trylock(int *l); /* 1: locked (section entered), 0: busy */

/* ------------------------------------------------------------- waiting */

enum { WF_WAIT_PENDING = 0, WF_WAIT_PARKED = 1, WF_WAIT_WOKEN = 2 };

typedef struct wf_wait {
    struct wf_wait *next;  /* free for the queue that holds the waiter */
    struct wf_wait *prev;  /* idem */
    wf_thread *ult;        /* blocked ULT, NULL for an external kernel thread */
    uint32_t state;        /* WF_WAIT_*; atomic */
    uint32_t claimed;      /* atomic: set by the one waker that wins */
    int reason;            /* free for the waker: why it woke (0, WEFT_E*) */
    void *data;            /* free for the owner */
} wf_wait;

/* Bind `w` to the caller (ULT or external) in state PENDING. */
void wf_wait_init(wf_wait *w);

/* Block until wf_wait_wake(w); see the protocol above. `release` may be
 * NULL. Returns w->reason. */
int wf_wait_block(wf_wait *w, void (*release)(void *), void *arg);

/* Wake `w` with `reason`. Returns 1 if this call woke it, 0 if it was woken
 * already. Context: ULT, external, not signal. */
int wf_wait_wake(wf_wait *w, int reason);

/* Like wf_wait_wake, but the ULT runs at raised priority and, if no worker
 * is idle, preempts one (for I/O and timer events). */
int wf_wait_wake_urgent(wf_wait *w, int reason);

/* ------------------------------------------------------------- threads */

/* The calling ULT, or NULL on an external thread (same as weft_thread_self
 * but typed). Re-read after every possible switch. */
wf_thread *wf_self(void);

/* Per-thread slot the sync layer uses for thread-local keys. */
void **wf_thread_keys_slot(wf_thread *t);

/* Register a function run by every ULT just before it finishes (after its
 * function returned or it called weft_thread_exit), on its own stack.
 * One hook per layer; the sync layer uses it for key destructors. */
void wf_sched_set_exit_hook(void (*fn)(wf_thread *t));

/* ------------------------------------------------- hooks for upper layers */

/* Upper layers (timers, signals, continuations, the I/O server) plug into
 * the scheduler's safe points through hooks; src/sched never includes
 * them (STYLE.md section 1). Every hook runs on a worker inside a critical
 * section: it must not block or switch, and should return in well under a
 * microsecond when idle. */
typedef struct wf_sched_hooks {
    /* At every context switch, on the context that resumes. */
    void (*at_switch)(void);
    /* At a worker's tick while a ULT runs, in the tick's signal handler:
     * only atomics and raw system calls (async-signal-safe). */
    void (*at_tick)(void);
    /* An idle worker looks for work (worker.c's find_runnable, step 2).
     * Returns > 0 if it made something runnable. */
    int (*idle_poll)(void);
    /* Absolute CLOCK_MONOTONIC time (ns) an idle worker may sleep until
     * before it must look again; -1 (WEFT_FOREVER) for no limit. */
    int64_t (*idle_deadline)(void);
} wf_sched_hooks;

/* Register a set of hooks (any member may be NULL); kept until
 * wf_sched_remove_hooks. At most 8 sets. Returns 0 or WEFT_EAGAIN. The
 * struct must stay valid while registered. */
int wf_sched_add_hooks(const wf_sched_hooks *h);
void wf_sched_remove_hooks(const wf_sched_hooks *h);

/* The I/O server's one entry into the idle policy (Go's netpoll(delay)
 * and netpollBreak): an idle worker polls it while it spins and sleeps in
 * it when it has waiters. */
typedef struct wf_sched_poller {
    /* deadline 0: check for events, make their waiters runnable, return.
     * Else sleep until an event, interrupt() or `deadline` (absolute
     * CLOCK_MONOTONIC ns; -1: none), then make the waiters runnable.
     * Returns how many threads it made runnable, or -1 if it has nothing
     * to wait for or another thread sleeps in it (the worker then sleeps
     * on its futex). Runs in the idle context, in a critical section. */
    int (*poll)(int64_t deadline);
    /* Make a sleeping poll() return soon. Any thread; must not block. */
    void (*interrupt)(void);
} wf_sched_poller;

/* Install the poller (NULL: none). The struct must stay valid. */
void wf_sched_set_poller(const wf_sched_poller *p);

/* 1 while an idle worker spins (it runs the poller's poll(0) about every
 * microsecond). Context: any. */
int wf_sched_spinning(void);

/* 1 if the calling ULT's last run ended within a tick of its worker (it
 * blocked or yielded soon after it started): its worker will likely switch
 * again soon. 0 for a thread that has not run yet, one that ran through a
 * tick, without ticks (quantum 0), outside a ULT, or with WEFT_DISABLE
 * short-runs. Context: any. */
int wf_sched_self_runs_short(void);

/* Workers asleep, or about to sleep (a racy snapshot). Context: any. */
int wf_sched_idle_workers(void);

/* From the poller's poll(deadline), just before it blocks: 1 if the
 * calling worker was woken since it announced its sleep (it may have
 * made a thread runnable on itself, or a waker found it before it
 * blocked), so it must not block; 0 on other threads. Seq_cst. */
int wf_sched_idle_woken(void);

/* The idle workers' current spin budget, ns (worker.c). Context: any. */
int64_t wf_sched_spin_budget(void);

/* 1 if the program said its CPUs are shared (weft_set_cpus_shared): a
 * spinning worker then yields between polls. Context: any. */
int wf_sched_cpus_shared(void);

/* Register fn to be called by weft_fini() on the main thread, while the
 * workers still run and before it checks that no thread is left: the layer
 * stops the ULTs it owns (pooled helpers, which would otherwise count as
 * threads left behind) and its helper kernel threads, and frees what it
 * can. fn returns 0, or WEFT_EBUSY if the layer still has work (weft_fini
 * then fails with WEFT_EBUSY). fn runs outside any critical section and
 * may block; a layer stopped by it starts again lazily if used after a
 * failed weft_fini. Registering the same fn twice keeps one entry. At most
 * 8 functions. Returns 0 or WEFT_EAGAIN. */
int wf_sched_add_fini_hook(int (*fn)(void));
void wf_sched_remove_fini_hook(int (*fn)(void));

/* Wake one idle worker, if any is asleep, so it runs its hooks again (e.g.
 * a timer earlier than every idle deadline was just armed). Returns 1 if
 * it woke one. */
int wf_sched_wake_idle(void);

/* How a ULT sleeps until an absolute CLOCK_MONOTONIC deadline without
 * holding its worker; the timer layer plugs it in at load time, and the C
 * library's sleeps (nanosleep, usleep, sleep, clock_nanosleep) called by a
 * ULT are routed through it (eintr.c). NULL: they block the worker. */
void wf_sched_set_sleep_hook(int (*sleep_until)(int64_t deadline_ns));

/* Prepare the calling helper kernel thread of an upper layer (a blocker,
 * a poller; not a worker): the CPU set the process had before the workers
 * were pinned, instead of the pin of the worker that created it (topo.c),
 * and the kernel slice and weight of Weft's server threads (kernel.c). Call first
 * thing in the thread. */
void wf_sched_helper_init(void);

/* A server kernel thread of an upper layer (the I/O server's) starts
 * (+1) or stops (-1) waiting for events. While any waits, a worker that
 * runs a ULT gives its kernel thread up (sched_yield) at each tick, so
 * that a server thread woken on its CPU but not let in by the kernel runs
 * within a tick, not at the end of the worker's kernel slice (preempt.c;
 * WEFT_DISABLE=tick-yield turns it off). Context: any. */
void wf_sched_server_waits(int delta);

/* Runnable ULTs queued anywhere (a racy snapshot). Context: any. */
int wf_sched_nready(void);

/* Futex helpers on a 32-bit word: sleep while *addr == val (until the
 * absolute CLOCK_MONOTONIC `deadline_ns`, or forever if < 0); wake n. */
void wf_futex_wait_until(uint32_t *addr, uint32_t val, int64_t deadline_ns);
void wf_futex_wake(uint32_t *addr, int n);

#endif /* WF_SCHED_H */
