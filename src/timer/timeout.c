/* Timeouts (wf_timeout: wake a wf_wait with WEFT_ETIMEDOUT at a deadline)
 * and the sleeps built on them (weft_sleep, weft_sleep_until).
 *
 * A wf_timeout is caller-owned memory (typically on the waiter's stack):
 * arming and disarming allocate nothing, they only insert into and remove
 * from the real-time heap (~50-100 ns each). Its state word moves
 *     idle --start--> armed --claim--> firing --fire--> fired
 *                       `----stop----> stopped
 * "claim" runs under the queue lock when a firer pops the node, so stop
 * (which also takes the lock) knows for sure whether it removed the node
 * before it fired. A stop that finds it "firing" spins until the firer
 * has finished calling wf_wait_wake_urgent (a few hundred ns; it yields
 * the kernel thread after WF_TIMEOUT_SPINS rounds in case the firer was
 * descheduled), because the wait may live on the stack that stop is about
 * to return to. After "fired" the firer touches neither the timeout nor
 * its wait.
 *
 * Sleeps. A ULT blocks on a private wf_wait with a timeout as its only
 * waker; its worker runs other threads meanwhile. It loops until the clock
 * says the deadline has passed, so it never returns early even if woken
 * spuriously. An external kernel thread (no worker to free) sleeps in the
 * kernel instead, precisely: clock_nanosleep(TIMER_ABSTIME) with 1 ns
 * timer slack (clock.c).
 */
#include <sched.h>
#include <stddef.h>

#include "timer/timer_int.h"
#include "util/cpu.h"
#include "util/tuning.h"


enum { T_IDLE = 0, T_ARMED, T_FIRING, T_FIRED, T_STOPPED };

static wf_timeout *timeout_of(wf_tnode *n)
{
    return (wf_timeout *)((char *)n - offsetof(wf_timeout, node));
}

static void set_state(wf_timeout *t, uint32_t s)
{
    __atomic_store_n(&t->state, s, __ATOMIC_RELEASE);
}

static uint32_t get_state(wf_timeout *t)
{
    return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}

static void arm(wf_timeout *t)
{
    wf_tqueue *q = &wf_tq[WEFT_QUEUE_REAL];
    wf_timer_ensure_started();
    set_state(t, T_ARMED);
    wf_lock(&q->lock);
    int r = wf_tq_insert_locked(q, &t->node);
    wf_unlock(&q->lock);
    if (r < 0)
        wf_timer_fatal("out of memory arming a timeout");
    if (r == 1)
        wf_timer_poke(WEFT_QUEUE_REAL, t->node.deadline);
}

void wf_timeout_start(wf_timeout *t, wf_wait *w, int64_t deadline)
{
    t->wait = w;
    t->node.deadline = deadline;
    t->node.index = -1;
    t->node.type = WF_TN_TIMEOUT;
    t->node.queue = WEFT_QUEUE_REAL;
    if (deadline < 0) {
        set_state(t, T_IDLE);
    } else if (deadline <= weft_now()) {
        wf_wait_wake_urgent(w, WEFT_ETIMEDOUT);
        set_state(t, T_FIRED);
    } else {
        arm(t);
    }
}

static void wait_while_firing(wf_timeout *t)
{
    for (int spins = 0; get_state(t) == T_FIRING; spins++) {
        if (spins >= WF_TIMEOUT_SPINS)
            sched_yield();
        else
            wf_cpu_relax();
    }
}

int wf_timeout_stop(wf_timeout *t)
{
    uint32_t s = get_state(t);
    if (s != T_ARMED && s != T_FIRING)
        return 0;
    wf_tqueue *q = &wf_tq[WEFT_QUEUE_REAL];
    wf_lock(&q->lock);
    int removed = get_state(t) == T_ARMED;
    if (removed) {
        wf_tq_remove_locked(q, &t->node);
        set_state(t, T_STOPPED);
    }
    wf_unlock(&q->lock);
    if (!removed)
        wait_while_firing(t);
    return removed;
}

void wf_timeout_claim(wf_tnode *n)
{
    set_state(timeout_of(n), T_FIRING);
}

void wf_timeout_fire(wf_tnode *n)
{
    wf_timeout *t = timeout_of(n);
    wf_wait_wake_urgent(t->wait, WEFT_ETIMEDOUT);
    set_state(t, T_FIRED);
}

/* --------------------------------------------------------------- sleeps */

int weft_sleep_until(int64_t deadline)
{
    if (wf_timer_in_function())
        wf_timer_fatal("weft_sleep called from a WEFT_EVENT_FUNCTION event");
    if (!wf_self()) {
        wf_timer_kernel_sleep_until(deadline);
        return 0;
    }
    while (weft_now() < deadline) {
        wf_wait w;
        wf_timeout t;
        wf_wait_init(&w);
        wf_timeout_start(&t, &w, deadline);
        wf_wait_block(&w, NULL, NULL);
        wf_timeout_stop(&t);
    }
    return 0;
}

/* The C library's sleeps called by ULTs come here (src/sched/eintr.c). */
static int sleep_hook(int64_t deadline_ns)
{
    return weft_sleep_until(deadline_ns);
}

__attribute__((constructor)) static void plug_sleep_hook(void)
{
    wf_sched_set_sleep_hook(sleep_hook);
}

int weft_sleep(int64_t ns)
{
    if (ns <= 0)
        return 0;
    return weft_sleep_until(weft_now() + ns);
}
