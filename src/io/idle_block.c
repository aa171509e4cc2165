/* An idle worker that sleeps in an event class's block() itself, instead
 * of on its futex with the class's blocker thread in block() beside it.
 *
 * Why. Past the spin budget (or at once while the CPUs are contended,
 * sched/latency.c) a wait used to go to the blocker thread: the event woke
 * the blocker, which queued the waiter and woke the sleeping worker - two
 * kernel wake-ups in a row, measured ~48 us between the blocker's wake and
 * the worker running the waiter (WEFT_IO_TRACE, bench/osu_like 8 B
 * ping-pong over TCP). Here the idle worker runs block() as its sleep: the
 * event wakes it, and its next idle_poll finds the waiter and runs it - one
 * kernel wake-up (Go's findrunnable sleeps in netpoll(delay) the same way).
 *
 * Design. Only classes that give an unblock() callback qualify (the MPI
 * engine: a write to the eventfd its block() sleeps on): the scheduler
 * needs a way to pull the worker out when it gets other work. The steps:
 *   idle_deadline (detect.c, registry lock held) - a handle it would have
 *     handed to its blocker is claimed instead (h->wblock: one worker per
 *     handle, CAS), remembered in chosen[worker];
 *   idle_block (scheduler hook, sleep_word = IN_HOOK) - publish
 *     blocking_on[worker], re-check that the worker was not woken already
 *     (wf_sched_idle_woken), run block(), release the claim; with a
 *     deadline (a timer due) it declines and engages h's blocker instead:
 *     block() takes whole milliseconds, the futex sleep is exact;
 *   idle_interrupt (scheduler hook, a waker that found IN_HOOK) - call the
 *     handle's unblock();
 *   idle_poll - polls the handle the worker just woke from even if its
 *     spin budget is over (wf_io_idle_woke_from).
 * While a worker holds the claim, the paths that would engage h's blocker
 * because "nobody polls" leave it alone (wf_io_engage_unwatched): the
 * worker in block() detects for every waiter of h. A worker that leaves
 * the sleep drops the claim (epoch bump, so at_switch walks) and, if it
 * then runs a thread, at_switch hands h to the blocker as before.
 * Rejected: a per-worker epoll set holding the class's fd and a wake-up
 * eventfd (the scheduler would own fds, the class's lost-wake-up protocol
 * - MPI's generation and sleepers count - would be bypassed, and a
 * level-triggered fd nobody drains would spin the worker).
 *
 * Invariants: h->wblock is set only under wf_io_reg_lock by a worker that
 * found h in the registry, so once unregister removed h no new claim
 * starts; unregister then waits for wblock == -1 and for interrupters
 * (counted in `interrupting`) to finish before freeing h.
 * Races: waker "sleep_word = AWAKE; read blocking_on" against sleeper
 * "blocking_on = h; read sleep_word" (seq_cst both): either the waker
 * calls unblock (block() returns at once, even if it starts later: the
 * eventfd stays readable) or the sleeper does not call block(). A waiter
 * "link (nreq); read wblock" against a claimant that will not sleep
 * "wblock = -1; read nreq": either the waiter engages the blocker or the
 * claimant does (release_and_hand_over) - found by a 60 s hang of
 * misc_mprobe (3 ranks, ASan): the claimant saw no waiter, futex-slept,
 * and the waiter that came meanwhile was never polled.
 */
#include <sched.h>

#include "io/io.h"

#define MAX_WORKERS 1024

static weft_io_t chosen[MAX_WORKERS];      /* own worker only */
static weft_io_t blocking_on[MAX_WORKERS]; /* atomic: read by interrupters */
static weft_io_t woke_from[MAX_WORKERS];   /* own worker only */
static int interrupting;                   /* atomic */

static int self_id(void)
{
    int id = weft_worker_id();
    return id >= 0 && id < MAX_WORKERS ? id : -1;
}

int wf_io_idle_qualifies(weft_io_t h)
{
    return h->ops == &wf_io_user_ops && h->p.block && h->p.unblock &&
           wf_io_strategy() == WEFT_IO_ADAPTIVE;
}

int wf_io_idle_claim(weft_io_t h)
{
    int id = self_id(), none = -1;
    if (id < 0 || chosen[id] || !wf_io_idle_qualifies(h))
        return 0;
    if (!__atomic_compare_exchange_n(&h->wblock, &none, id, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        return 0;
    chosen[id] = h;
    return 1;
}

int wf_io_watched(weft_io_t h)
{
    return __atomic_load_n(&h->wblock, __ATOMIC_SEQ_CST) >= 0;
}

void wf_io_engage_unwatched(weft_io_t h)
{
    if (!wf_io_watched(h))
        wf_io_engage(h);
}

static void release(int id, weft_io_t h)
{
    int me = id;
    __atomic_store_n(&blocking_on[id], NULL, __ATOMIC_SEQ_CST);
    if (__atomic_compare_exchange_n(&h->wblock, &me, -1, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        __atomic_fetch_add(&wf_io_epoch, 1, __ATOMIC_SEQ_CST);
}

/* Give up a claim without sleeping in block(). A waiter that linked after
 * our look at nreq found h watched and left the blocker alone (after
 * _publish: link, then wf_io_watched); so release first, then look again
 * (seq_cst both sides) and engage the blocker for it - unless another
 * worker claimed h meanwhile: it sleeps in block() for that waiter, or
 * hands over the same way (a blocker beside it could take its interrupts).
 * Counted in `interrupting`, which unregister waits for, so h outlives the
 * look. */
static void release_and_hand_over(int id, weft_io_t h)
{
    __atomic_fetch_add(&interrupting, 1, __ATOMIC_SEQ_CST);
    release(id, h);
    if (__atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) > 0)
        wf_io_engage_unwatched(h);
    __atomic_fetch_sub(&interrupting, 1, __ATOMIC_SEQ_CST);
}

void wf_io_idle_release(void)
{
    int id = self_id();
    if (id < 0 || !chosen[id])
        return;
    weft_io_t h = chosen[id];
    chosen[id] = NULL;
    release(id, h);
}

int wf_io_idle_block(int64_t deadline)
{
    int id = self_id();
    weft_io_t h = id < 0 ? NULL : chosen[id];
    if (!h)
        return 0;
    chosen[id] = NULL;
    if (deadline >= 0) {
        /* block() takes whole milliseconds: a timer due sooner would fire
         * late. The futex sleeps to the nanosecond; the blocker serves h. */
        release_and_hand_over(id, h);
        return 0;
    }
    __atomic_store_n(&blocking_on[id], h, __ATOMIC_SEQ_CST);
    if (wf_sched_idle_woken() || __atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) == 0) {
        release_and_hand_over(id, h);
        return 0;
    }
    wf_io_call_block(h);
    woke_from[id] = h;
    release(id, h);
    return 1;
}

void wf_io_idle_interrupt(int index)
{
    if (index < 0 || index >= MAX_WORKERS)
        return;
    __atomic_fetch_add(&interrupting, 1, __ATOMIC_SEQ_CST);
    weft_io_t h = __atomic_load_n(&blocking_on[index], __ATOMIC_SEQ_CST);
    if (h)
        h->p.unblock(h->p.ctx);
    __atomic_fetch_sub(&interrupting, 1, __ATOMIC_SEQ_CST);
}

int wf_io_idle_woke_from(weft_io_t h)
{
    int id = self_id();
    if (id < 0 || woke_from[id] != h)
        return 0;
    woke_from[id] = NULL;
    return 1;
}

void wf_io_idle_quiesce(weft_io_t h)
{
    while (wf_io_watched(h)) {
        if (h->p.unblock)
            h->p.unblock(h->p.ctx);
        weft_thread_yield();
    }
    while (__atomic_load_n(&interrupting, __ATOMIC_SEQ_CST) > 0)
        sched_yield();
}
