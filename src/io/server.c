/* The I/O server's own kernel threads: the server thread, which detects
 * waits while every worker is busy, and one blocker per class that has a
 * block() callback but no pollfd.
 *
 * The server thread (PM2 section 3.3: "specific kernel threads dedicated
 * to I/O operations"; Go's M blocked in netpoll). Engaged when waits start
 * or remain with no worker to detect them (detect.c), it sleeps in the
 * poll set (pollset.c) - every class's fd at once, one thread for them
 * all - and on an event polls the class and wakes the waiter with
 * wf_wait_wake_urgent: the waiter is queued at WEFT_PRIO_HIGH and, if no
 * worker is idle, a worker running lower-priority work is signalled to
 * switch at once, so the waiter runs within microseconds even when every
 * worker computes. Its sleep's timeout is the next due poll of the
 * classes only polling can detect (the PM2 "poll" callback alone), which
 * it polls then. It stays engaged while such waits remain and no worker
 * sleeps in the set or is asleep elsewhere: it hands the set to an idle
 * worker (an idle worker that finds the set taken interrupts it), whose
 * wake-up by the event is then the only one; under the polling strategy it does not sleep in the
 * set at all but polls every waiting class at its period, when no worker
 * did (PM2's enhanced polling when nobody switches).
 *
 * A blocker (a class with block() and no pollfd) runs block() in a loop
 * while the class has waiters, then polls the class: block()'s index is
 * trusted only if the set of waiters did not change meanwhile.
 *
 * Both are a wf_io_thread: states IDLE (futex sleep, no cost) --engage
 * (CAS, futex wake)--> ENGAGED --round says nothing is left--> IDLE; any
 * --stop--> STOP (joined). Disengaging stores IDLE, then asks again
 * whether it is needed (seq_cst); a waiter publishes its request, then
 * reads the state to engage: one of the two always sees the other. While
 * ENGAGED a thread counts as a server thread waiting for the scheduler
 * (wf_sched_server_waits: busy workers yield at their ticks to let it in).
 * Server threads block every signal: process-directed signals belong to
 * the application and to Weft's signal layer.
 */
#include <signal.h>
#include <stdio.h>

#include "io/io.h"
#include "util/tuning.h"

static wf_io_thread server;

/* ------------------------------------------------------- the thread */

static void engage(wf_io_thread *t)
{
    uint32_t s = WF_IOT_IDLE;
    if (__atomic_load_n(&t->state, __ATOMIC_SEQ_CST) != s)
        return;
    if (__atomic_compare_exchange_n(&t->state, &s, WF_IOT_ENGAGED, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST)) {
        wf_sched_server_waits(1);
        wf_futex_wake(&t->state, 1);
    }
}

static void disengage(wf_io_thread *t, int (*needed)(void *), void *arg)
{
    uint32_t s = WF_IOT_ENGAGED;
    if (!__atomic_compare_exchange_n(&t->state, &s, WF_IOT_IDLE, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        return; /* stopping */
    wf_sched_server_waits(-1);
    if (needed(arg))
        engage(t);
}

static void *thread_main(void *arg)
{
    wf_io_thread *t = arg;
    wf_sched_helper_init();
    for (;;) {
        uint32_t s = __atomic_load_n(&t->state, __ATOMIC_SEQ_CST);
        if (s == WF_IOT_STOP)
            break;
        if (s == WF_IOT_IDLE)
            wf_futex_wait_until(&t->state, WF_IOT_IDLE, -1);
        else if (!t->round(t->arg))
            disengage(t, t->needed, t->arg);
    }
    return NULL;
}

static int thread_start(wf_io_thread *t, const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    __atomic_store_n(&t->state, WF_IOT_IDLE, __ATOMIC_SEQ_CST);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&t->pthread, NULL, thread_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err)
        return WEFT_EAGAIN;
    pthread_setname_np(t->pthread, name);
    t->started = 1;
    return 0;
}

static void thread_stop(wf_io_thread *t)
{
    if (!t->started)
        return;
    if (__atomic_exchange_n(&t->state, WF_IOT_STOP, __ATOMIC_SEQ_CST) == WF_IOT_ENGAGED)
        wf_sched_server_waits(-1);
    wf_futex_wake(&t->state, 1);
    pthread_join(t->pthread, NULL);
    t->started = 0;
}

/* ---------------------------------------------------- the server thread */

static int worker_in_set(void)
{
    int who = wf_io_set_sleeper();
    return who != WF_IO_SLEEPER_NONE && who != WF_IO_SLEEPER_SERVER;
}

/* An idle worker asleep on its futex detects better than this thread:
 * the event then wakes the worker that runs its waiter, one kernel
 * wake-up instead of two (this thread's, then the worker's). */
static int worker_can_take_over(void)
{
    return wf_io_strategy() == WEFT_IO_ADAPTIVE && wf_sched_idle_workers() > 0;
}

static int server_needed(void *arg)
{
    (void)arg;
    return wf_io_server_waiting() && !worker_in_set() && !wf_sched_spinning() &&
           !worker_can_take_over();
}

/* Sleep until `deadline` or a change of state (engage, stop). */
static void timed_sleep(int64_t deadline)
{
    wf_futex_wait_until(&server.state, WF_IOT_ENGAGED, deadline);
}

static int server_round(void *arg)
{
    (void)arg;
    if (!wf_io_server_waiting())
        return 0;
    int64_t next;
    wf_io_poll_due(wf_io_now(), WF_DET_POLL, &next);
    if (wf_io_strategy() == WEFT_IO_POLLING) {
        timed_sleep(next >= 0 ? next : wf_io_now() + wf_io_tick_ns());
        return 1;
    }
    if (worker_can_take_over()) {
        wf_sched_wake_idle(); /* to take the set */
        return 0;
    }
    /* Declined: a worker sleeps in the set (it detects; timed classes are
     * polled at its sleep's deadline). */
    return wf_io_set_sleep(next, WF_IO_SLEEPER_SERVER) >= 0;
}

void wf_io_server_start(void)
{
    server.round = server_round;
    server.needed = server_needed;
    if (thread_start(&server, "weft-server") == 0)
        pthread_detach(server.pthread);
}

void wf_io_server_engage(void)
{
    engage(&server);
}

int wf_io_server_engaged(void)
{
    return __atomic_load_n(&server.state, __ATOMIC_SEQ_CST) == WF_IOT_ENGAGED;
}

/* ----------------------------------------------------------- blockers */

static int blocker_needed(void *arg)
{
    weft_io_t h = arg;
    return wf_io_has_waiters(h) && wf_io_strategy() != WEFT_IO_POLLING;
}

static wf_io_req *nth(weft_io_t h, int idx)
{
    wf_io_req *r = h->head;
    while (r && idx-- > 0)
        r = r->next;
    return r;
}

/* block() runs without the lock (it may sleep for long), so its index is
 * trusted only if the set did not change meanwhile; a poll round under
 * the lock follows in any case. */
static int blocker_round(void *arg)
{
    weft_io_t h = arg;
    if (!blocker_needed(h))
        return 0;
    uint64_t gen = __atomic_load_n(&h->gen, __ATOMIC_RELAXED);
    weft_io_t prev = wf_io_set_current(h);
    int idx = h->p.block(h->p.ctx, WF_IO_BLOCK_SLICE_MS);
    wf_io_set_current(prev);
    wf_lock(&h->lock);
    wf_io_req *r = (idx >= 0 && h->gen == gen) ? nth(h, idx) : NULL;
    if (r) {
        wf_io_unlink(h, r);
        wf_io_fire(h, r, WF_DET_BLOCK);
    }
    if (h->nreq > 0)
        wf_io_poll_locked(h, WF_DET_BLOCK, NULL);
    wf_unlock(&h->lock);
    return 1;
}

int wf_io_blocker_start(weft_io_t h)
{
    char name[16];
    snprintf(name, sizeof name, "weft-blk-%.6s", h->name);
    h->blocker.round = blocker_round;
    h->blocker.needed = blocker_needed;
    h->blocker.arg = h;
    return thread_start(&h->blocker, name);
}

void wf_io_blocker_engage(weft_io_t h)
{
    engage(&h->blocker);
}

void wf_io_blocker_stop(weft_io_t h)
{
    thread_stop(&h->blocker);
}
