/* The I/O server's own kernel threads: the server thread (its policy is
 * detect.c's), and one blocker per class that has a block() callback but
 * no pollfd. Server threads are dedicated to I/O (PM2 section 3.3), idle
 * most of the time, and few: one for every class with an fd, one per
 * class that can only block.
 *
 * A wf_io_thread sleeps on a futex until engaged, then runs its round
 * while the round says there is work, and sleeps again. States: IDLE
 * (futex sleep, no cost) --engage (CAS, futex wake)--> ENGAGED --round
 * returns 0--> IDLE; any --stop--> STOP (joined). Disengaging stores IDLE,
 * then asks `needed` again (seq_cst); a waiter publishes its request, then
 * reads the state to engage: one of the two always sees the other. While
 * ENGAGED a thread counts as a server thread waiting for the scheduler
 * (wf_sched_server_waits: busy workers yield at their ticks to let it in).
 * Server threads block every signal: process-directed signals belong to
 * the application and to Weft's signal layer.
 *
 * A blocker runs block() (a WF_IO_BLOCK_SLICE_MS slice, so that
 * unregistering waits at most that long) while its class has waiters,
 * then hands what it found to the class's poll round (request.c).
 */
#include <signal.h>
#include <stdio.h>

#include "io/io.h"
#include "util/tuning.h"

/* ------------------------------------------------------- the threads */

void wf_io_thread_engage(wf_io_thread *t)
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

int wf_io_thread_engaged(wf_io_thread *t)
{
    return __atomic_load_n(&t->state, __ATOMIC_SEQ_CST) == WF_IOT_ENGAGED;
}

static void disengage(wf_io_thread *t)
{
    uint32_t s = WF_IOT_ENGAGED;
    if (!__atomic_compare_exchange_n(&t->state, &s, WF_IOT_IDLE, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        return; /* stopping */
    wf_sched_server_waits(-1);
    if (t->needed(t->arg))
        wf_io_thread_engage(t);
}

/* Sleep until `deadline` (-1: none) or a change of state. */
void wf_io_thread_nap(wf_io_thread *t, int64_t deadline)
{
    wf_futex_wait_until(&t->state, WF_IOT_ENGAGED, deadline);
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
            disengage(t);
    }
    return NULL;
}

int wf_io_thread_start(wf_io_thread *t, const char *name)
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

void wf_io_thread_stop(wf_io_thread *t)
{
    if (!t->started)
        return;
    if (__atomic_exchange_n(&t->state, WF_IOT_STOP, __ATOMIC_SEQ_CST) == WF_IOT_ENGAGED)
        wf_sched_server_waits(-1);
    wf_futex_wake(&t->state, 1);
    pthread_join(t->pthread, NULL);
    t->started = 0;
}

/* ----------------------------------------------------------- blockers */

static int blocker_needed(void *arg)
{
    weft_io_t h = arg;
    return wf_io_has_waiters(h) && wf_io_strategy() != WEFT_IO_POLLING;
}

static int blocker_round(void *arg)
{
    weft_io_t h = arg;
    if (!blocker_needed(h))
        return 0;
    uint64_t gen = __atomic_load_n(&h->gen, __ATOMIC_RELAXED);
    weft_io_t prev = wf_io_set_current(h);
    int idx = h->p.block(h->p.ctx, WF_IO_BLOCK_SLICE_MS);
    wf_io_set_current(prev);
    wf_io_take_block_result(h, idx, gen);
    return 1;
}

int wf_io_blocker_start(weft_io_t h)
{
    char name[16];
    snprintf(name, sizeof name, "weft-blk-%.6s", h->name);
    h->blocker.round = blocker_round;
    h->blocker.needed = blocker_needed;
    h->blocker.arg = h;
    return wf_io_thread_start(&h->blocker, name);
}

void wf_io_blocker_engage(weft_io_t h)
{
    wf_io_thread_engage(&h->blocker);
}

void wf_io_blocker_stop(weft_io_t h)
{
    wf_io_thread_stop(&h->blocker);
}
