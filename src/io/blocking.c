/* The I/O server's own kernel threads: one blocker per handle that can
 * block (a user class with a block callback, and the epoll set of the fd
 * class), and one poller for the classes that can only be polled.
 *
 * Blocker (passive detection, PM2 section 3.3: "specific kernel threads
 * dedicated to I/O operations"). It sleeps on a futex until engaged
 * (detect.c decides when), then runs the class's blocking round - block()
 * for a user class, epoll_wait for fds - and wakes what it finds with
 * wf_wait_wake_urgent: the waiter is queued at WEFT_PRIO_HIGH and, if no
 * worker is idle, one running lower-priority work is signalled to switch at
 * once, so the waiter runs within microseconds even when every worker
 * computes. It disengages when no request waits. State word blk_state:
 *   SLEEP --engage (CAS, futex wake)--> ENGAGED --no waiters--> SLEEP
 *   any --unregister--> STOP (the thread exits and is joined).
 * While ENGAGED it counts as a server thread waiting for the scheduler
 * (wf_sched_server_waits: busy workers yield at their ticks to let it in).
 * Disengaging stores SLEEP and then re-reads the waiter count; a waiter
 * publishes its request and then reads blk_state to engage: seq_cst on
 * both sides, so one of them always sees the other.
 * One thread per handle, not per waiter: aggregation keeps the number of
 * kernel threads at the number of event classes (PM2: "it decreases the
 * number of kernel-level threads"). Rejected: one thread per wait (a
 * pthread_create, ~20 us, per wait, and thousands of threads for thousands
 * of sockets); running block() on a worker (it would stall all its ULTs).
 * Cost while idle: none (futex sleep). A user block() gets a 100 ms
 * timeout slice so that unregistering waits at most that long.
 *
 * Poller (the "tick" safe point). A class without block is detected only
 * by polling; workers poll at switches and when idle, but a worker running
 * one compute thread that never blocks never switches, and sleeping
 * workers never poll. The poller polls each poll-served handle that has
 * waiters and was not polled for its SANR period (detect.c) by anyone.
 * States: IDLE (futex sleep, no cost) -> ACTIVE (timed sleeps: the next
 * due poll, at most one tick); SLOW when only the safety net below has
 * work (timed sleeps of 10 ms; a kick makes it ACTIVE at once); it returns
 * to IDLE after 100 ms without poll-served waiters. A waiter on such a class kicks it only if it is IDLE, so during
 * activity a wait costs no system call. It is also the safety net of the
 * adaptive strategy: kicked by a busy worker whose at_switch could not take
 * the registry lock (so may have missed a new wait), it hands every wait
 * that nobody polls to its blocker (wf_io_check_unattended), every round
 * while it lingers (every 10 ms when no poll is due). Polls from here run on this kernel
 * thread, not a worker: poll()/group() must not depend on running on a ULT.
 *
 * The server's threads block every signal: process-directed signals belong
 * to the application (and to Weft's signal layer), not to them.
 */
#include <signal.h>
#include <stdio.h>

#include "io/io.h"

#define LINGER_NS (100 * 1000 * 1000LL)
#define SAFETY_NS (10 * 1000 * 1000LL) /* safety-net period, no poll due */

enum { P_IDLE = 0, P_ACTIVE = 1, P_SLOW = 2 };

static uint32_t poller_state; /* atomic */

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err ? WEFT_EAGAIN : 0;
}

static int has_waiters(weft_io_t h)
{
    return __atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) > 0;
}

/* ---------------------------------------------------------------- blocker */

static void disengage(weft_io_t h)
{
    uint32_t s = WF_BLK_ENGAGED;
    if (!__atomic_compare_exchange_n(&h->blk_state, &s, WF_BLK_SLEEP, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return; /* stopping */
    wf_sched_server_waits(-1);
    __atomic_fetch_add(&wf_io_epoch, 1, __ATOMIC_SEQ_CST);
    if (has_waiters(h))
        wf_io_engage_unwatched(h);
}

static void *blocker_main(void *arg)
{
    weft_io_t h = arg;
    wf_sched_helper_init();
    for (;;) {
        uint32_t s = __atomic_load_n(&h->blk_state, __ATOMIC_SEQ_CST);
        if (s == WF_BLK_STOP)
            break;
        if (s == WF_BLK_SLEEP)
            wf_futex_wait_until(&h->blk_state, WF_BLK_SLEEP, -1);
        else if (!has_waiters(h))
            disengage(h);
        else
            h->ops->block(h);
    }
    return NULL;
}

int wf_io_blocker_start(weft_io_t h)
{
    __atomic_store_n(&h->blk_state, WF_BLK_SLEEP, __ATOMIC_SEQ_CST);
    int err = start_thread(&h->blk_thread, blocker_main, h);
    h->blk_started = err == 0;
    if (err == 0) {
        char name[16];
        snprintf(name, sizeof name, "weft-blk-%.6s", h->name);
        pthread_setname_np(h->blk_thread, name);
    }
    return err;
}

void wf_io_blocker_stop(weft_io_t h)
{
    if (!h->blk_started)
        return;
    if (__atomic_exchange_n(&h->blk_state, WF_BLK_STOP, __ATOMIC_SEQ_CST) == WF_BLK_ENGAGED)
        wf_sched_server_waits(-1);
    wf_futex_wake(&h->blk_state, 1);
    pthread_join(h->blk_thread, NULL);
    h->blk_started = 0;
}

void wf_io_engage(weft_io_t h)
{
    uint32_t s = WF_BLK_SLEEP;
    if (!h->has_block || __atomic_load_n(&h->blk_state, __ATOMIC_SEQ_CST) != s)
        return;
    if (__atomic_compare_exchange_n(&h->blk_state, &s, WF_BLK_ENGAGED, 0,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        wf_sched_server_waits(1);
        wf_io_trace_stamp(&h->tr_engage);
        wf_futex_wake(&h->blk_state, 1);
    }
}

/* ----------------------------------------------------------------- poller */

static int64_t interval_ns(weft_io_t h, int64_t tick)
{
    return (int64_t)__atomic_load_n(&h->period_fp, __ATOMIC_RELAXED) * tick / WF_IO_TICK_FP;
}

/* Poll every overdue poll-served handle; return when to look again, and
 * set *any if some handle had waiters. */
static int64_t poll_overdue(int64_t now, int *any)
{
    int64_t tick = wf_io_tick_ns(), next = now + tick;
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!has_waiters(h) || !wf_io_poll_served(h))
            continue;
        *any = 1;
        int64_t due = __atomic_load_n(&h->last_poll_ns, __ATOMIC_RELAXED) + interval_ns(h, tick);
        if (due <= now) {
            wf_io_poll_round(h, WF_DET_POLL);
            due = now + interval_ns(h, tick);
        }
        if (due < next)
            next = due;
    }
    wf_unlock(&wf_io_reg_lock);
    return next;
}

/* A poller round, unless an idle worker is awake: that one polls every
 * poll-served handle about every microsecond (and the safety net,
 * wf_io_check_unattended, acts only when no worker is). A round here
 * would only take the registry lock from it and, on its CPU, the CPU:
 * the poller spun or yielded on the lock at every tick, and the worker,
 * finding its CPU held, judged it contended and slept, leaving this
 * thread to move MPI data alone, 64 KiB a tick (1 MiB messages at ~60
 * MB/s under WEFT_IO_STRATEGY=polling). Returns when to look again;
 * *any: some wait may be outstanding. */
static int64_t poll_or_skip(int64_t now, int *any)
{
    if (wf_io_idle_worker_polls()) {
        *any = __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST) > 0;
        return now + wf_io_tick_ns();
    }
    int64_t next = poll_overdue(now, any);
    wf_io_check_unattended();
    return next;
}

static int poll_served_waiters(void)
{
    int any = 0;
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t h = wf_io_registry; h && !any; h = h->reg_next)
        any = has_waiters(h) && wf_io_poll_served(h);
    wf_unlock(&wf_io_reg_lock);
    return any;
}

static void go_idle(void)
{
    __atomic_store_n(&poller_state, P_IDLE, __ATOMIC_SEQ_CST);
    if (poll_served_waiters())
        __atomic_store_n(&poller_state, P_ACTIVE, __ATOMIC_SEQ_CST);
}

/* Only the safety net to serve: sleep SAFETY_NS, unless a poll-served wait
 * starts (its kick moves SLOW to ACTIVE). Store SLOW, then look for such
 * waits; the kicker publishes its wait, then reads the state (Dekker). */
static void slow_wait(int64_t until)
{
    uint32_t s = P_SLOW;
    __atomic_store_n(&poller_state, P_SLOW, __ATOMIC_SEQ_CST);
    if (!poll_served_waiters())
        wf_futex_wait_until(&poller_state, P_SLOW, until);
    __atomic_compare_exchange_n(&poller_state, &s, P_ACTIVE, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
}

static void *poller_main(void *arg)
{
    (void)arg;
    wf_sched_helper_init();
    int64_t last_busy = wf_io_now();
    for (;;) {
        if (__atomic_load_n(&poller_state, __ATOMIC_SEQ_CST) == P_IDLE) {
            wf_futex_wait_until(&poller_state, P_IDLE, -1);
            last_busy = wf_io_now();
            continue;
        }
        int any = 0;
        int64_t now = wf_io_now(), next = poll_or_skip(now, &any);
        if (any)
            last_busy = now;
        else if (now - last_busy >= LINGER_NS) {
            go_idle();
            continue;
        }
        if (any)
            wf_futex_wait_until(&poller_state, P_ACTIVE, next);
        else
            slow_wait(now + SAFETY_NS);
    }
    return NULL;
}

void wf_io_poller_start(void)
{
    pthread_t t;
    __atomic_store_n(&poller_state, P_IDLE, __ATOMIC_SEQ_CST);
    if (start_thread(&t, poller_main, NULL) == 0) {
        pthread_setname_np(t, "weft-poller");
        pthread_detach(t);
    }
}

void wf_io_poller_kick(void)
{
    uint32_t s = __atomic_load_n(&poller_state, __ATOMIC_SEQ_CST);
    if (s == P_ACTIVE)
        return;
    if (__atomic_compare_exchange_n(&poller_state, &s, P_ACTIVE, 0,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        wf_futex_wake(&poller_state, 1);
}
