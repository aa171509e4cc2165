/* Mutexes that block the calling user-level thread, never its worker.
 *
 * Design (after Go's sync.Mutex: barging with a starvation mode).
 * State word m->state (atomic), bits:
 *   LOCKED   the mutex is held
 *   WAITERS  the queue is not empty (changed only under the queue lock)
 *   WAKING   one waiter has been woken to retry and has not yet either
 *            taken the mutex or gone back to sleep; unlockers then wake
 *            nobody else (at most one waiter is in flight)
 *   HANDOFF  starvation mode: unlock hands the mutex straight to the
 *            oldest waiter and nobody barges
 *   POSTED   continuations were posted on the mutex while it was held
 *            (weft_mutex_lock_or_post, src/cont/; protocol in sync/sync.h):
 *            unlock runs them, still holding the mutex, before releasing
 *            it. Posters set it only while LOCKED. An unlock clears it and
 *            runs the posts; if more keep coming it runs them again, but
 *            after POSTED_ROUNDS rounds, when others wait for the mutex,
 *            it releases the mutex with POSTED still set: the next owner
 *            (a woken waiter or a barger) runs them at its own unlock.
 *            So POSTED implies LOCKED or WAITERS, and a stream of posts
 *            cannot keep the mutex from its waiters.
 * Fast paths are one CAS each: lock 0 -> LOCKED, unlock LOCKED -> 0.
 *
 * Normal mode: unlock clears LOCKED and, if waiters exist and none is in
 * flight, wakes the oldest one, which then competes with running threads
 * (barging). A running thread can re-take the mutex many times per quantum
 * instead of paying a wake-up and a context switch per hand-over: with
 * strict FIFO hand-off, 1000 ULTs x 10,000 increments on 2 workers took
 * 10-17 s (one convoy switch per increment); barging takes a fraction of
 * that. A woken waiter that loses the race re-queues at the *head*.
 * Starvation mode: a woken waiter that has waited more than WF_MUTEX_STARVE_NS
 * (1 ms, as Go) sets HANDOFF as it re-queues; from then on each unlock
 * gives the mutex directly to the oldest waiter (LOCKED never drops, so
 * nobody can barge) until the queue empties or a waiter is served within
 * WF_MUTEX_STARVE_NS. So no waiter waits much more than 1 ms behind bargers.
 *
 * Why no wake-up is lost: a waiter sets WAITERS with a CAS that requires
 * LOCKED, under the queue lock, before it queues; an unlocker clears LOCKED
 * with a CAS and so sees WAITERS in the value it replaced. If the waiter's
 * CAS fails because LOCKED dropped, it retries the acquisition instead of
 * sleeping. An unlocker that finds LOCKED set again (a barger) wakes
 * nobody: that barger's own unlock will. A woken waiter clears WAKING in
 * the same CAS that takes the mutex or re-announces it as a waiter. The
 * unlocker's CAS requires !HANDOFF, so a waiter turning HANDOFF on
 * concurrently sends the unlocker down the hand-off path. A wake that
 * reaches a waiter before it is parked is kept by the scheduler's wait
 * state word.
 *
 * Owner identity (m->owner, atomic, for the EDEADLK / EPERM checks): the
 * calling ULT (weft_thread_self()) or, for an external kernel thread, the
 * address of a _Thread_local byte with bit 0 set. ULT descriptors are at
 * least 2-aligned, so the two kinds never collide; an external thread does
 * not migrate, so its token is stable while it lives (a token may be reused
 * after its kernel thread exits). The owner is written by whoever grants
 * the mutex (the locker itself, or the unlocker on hand-off) before the
 * new owner can run, and cleared before the mutex is released, so a thread
 * compares equal to the owner exactly while it holds the mutex.
 *
 * Locks: m->waiters.lock guards the queue and every change of WAITERS and
 * HANDOFF; LOCKED and WAKING change by CAS, with or without it.
 */
#include "sync/sync.h"
#include "sync/sync_int.h"
#include "sync/waitq.h"
#include "util/tuning.h"

#include <stdint.h>
#include <time.h>

enum { LOCKED = 1, WAITERS = 2, WAKING = 4, HANDOFF = 8, POSTED = 16 };
/* Outcomes of wait_turn(); the first two are the wake reasons. */
enum { WOKEN_TO_RETRY = 0, WOKEN_AS_OWNER = 1, FOUND_FREE = 2 };

#define POSTED_ROUNDS 2   /* runs of posted calls per unlock, when others wait */

/* A blocked locker; w first, so a popped wf_wait converts back. */
typedef struct mutex_waiter {
    wf_wait       w;
    weft_thread_t who;   /* owner identity to record on hand-off */
    int64_t       since; /* monotonic ns when it first had to wait */
} mutex_waiter;

static _Thread_local char external_token;

weft_thread_t wf_sync_caller_id(void)
{
    weft_thread_t self = weft_thread_self();

    if (self != WEFT_THREAD_NULL)
        return self;
    return (weft_thread_t)((uintptr_t)&external_token | 1u);
}

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------ state and owner */

static int load_state(weft_mutex_t *m)
{
    return __atomic_load_n(&m->state, __ATOMIC_RELAXED);
}

static int cas_state(weft_mutex_t *m, int *expected, int desired)
{
    return __atomic_compare_exchange_n(&m->state, expected, desired, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static void clear_bits(weft_mutex_t *m, int bits)
{
    __atomic_fetch_and(&m->state, ~bits, __ATOMIC_RELAXED);
}

static weft_thread_t owner_of(weft_mutex_t *m)
{
    return __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
}

static void set_owner(weft_mutex_t *m, weft_thread_t who)
{
    __atomic_store_n(&m->owner, who, __ATOMIC_RELAXED);
}

int wf_mutex_is_held_by_caller(weft_mutex_t *m)
{
    return owner_of(m) == wf_sync_caller_id();
}

/* Take `m` if it is free and not in hand-off mode. A woken waiter
 * (`woken`) gives the WAKING token back in the same CAS. */
static int try_acquire(weft_mutex_t *m, int woken)
{
    int s = load_state(m);

    while (!(s & (LOCKED | HANDOFF))) {
        int desired = (s | LOCKED) & ~(woken ? WAKING : 0);
        if (cas_state(m, &s, desired))
            return 1;
    }
    return 0;
}

/* ----------------------------------------------------------------- lock */

int weft_mutex_init(weft_mutex_t *m)
{
    if (!m)
        return WEFT_EINVAL;
    *m = (weft_mutex_t)WEFT_MUTEX_INITIALIZER;
    return 0;
}

int weft_mutex_destroy(weft_mutex_t *m)
{
    if (!m)
        return WEFT_EINVAL;
    if (load_state(m) != 0)
        return WEFT_EBUSY;
    return 0;
}

/* Queue lock held: mark the caller as a sleeping waiter, provided `m` is
 * still held (else return 0: retry). A woken caller returns WAKING; a
 * starving one turns hand-off mode on. */
static int announce_waiter(weft_mutex_t *m, int woken, int starving)
{
    int s = load_state(m);
    int desired;

    do {
        if (!(s & LOCKED))
            return 0;
        desired = s | WAITERS | (starving ? HANDOFF : 0);
        if (woken)
            desired &= ~WAKING;
    } while (!cas_state(m, &s, desired));
    return 1;
}

/* Sleep until woken; returns the wake reason, or FOUND_FREE if the mutex
 * was free before the caller could sleep. */
static int wait_turn(weft_mutex_t *m, mutex_waiter *mw, int woken)
{
    int starving = woken && now_ns() - mw->since > WF_MUTEX_STARVE_NS;

    wf_wait_init(&mw->w);
    wf_lock(&m->waiters.lock);
    if (!announce_waiter(m, woken, starving)) {
        wf_unlock(&m->waiters.lock);
        return FOUND_FREE;
    }
    if (woken)
        wf_waitq_push_front(&m->waiters, &mw->w);
    else
        wf_waitq_push(&m->waiters, &mw->w);
    return wf_waitq_sleep(&m->waiters, &mw->w);
}

static void lock_slow(weft_mutex_t *m, weft_thread_t me)
{
    mutex_waiter mw = { .who = me, .since = now_ns() };
    int woken = 0;

    for (;;) {
        if (try_acquire(m, woken)) {
            set_owner(m, me);
            return;
        }
        switch (wait_turn(m, &mw, woken)) {
        case WOKEN_AS_OWNER:
            return; /* the unlocker recorded us as owner */
        case WOKEN_TO_RETRY:
            woken = 1; /* the waker set WAKING for us */
            break;
        default:
            break;     /* FOUND_FREE: WAKING unchanged */
        }
    }
}

int weft_mutex_lock(weft_mutex_t *m)
{
    int expected = 0;
    weft_thread_t me;

    if (!m)
        return WEFT_EINVAL;
    me = wf_sync_caller_id();
    if (__atomic_compare_exchange_n(&m->state, &expected, LOCKED, 0,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        set_owner(m, me);
        return 0;
    }
    if (owner_of(m) == me)
        return WEFT_EDEADLK;
    lock_slow(m, me);
    return 0;
}

int weft_mutex_trylock(weft_mutex_t *m)
{
    if (!m)
        return WEFT_EINVAL;
    if (!try_acquire(m, 0))
        return WEFT_EBUSY;
    set_owner(m, wf_sync_caller_id());
    return 0;
}

/* --------------------------------------------------------------- unlock */

/* Hand-off mode: give `m` (still LOCKED) to the oldest waiter. */
static void hand_off(weft_mutex_t *m)
{
    mutex_waiter *next;

    wf_lock(&m->waiters.lock);
    next = (mutex_waiter *)wf_waitq_pop(&m->waiters); /* HANDOFF => queued */
    if (wf_waitq_is_empty(&m->waiters))
        clear_bits(m, WAITERS | HANDOFF);
    else if (now_ns() - next->since < WF_MUTEX_STARVE_NS)
        clear_bits(m, HANDOFF);
    set_owner(m, next->who);
    wf_unlock(&m->waiters.lock);
    wf_wait_wake(&next->w, WOKEN_AS_OWNER);
}

/* Normal mode, after LOCKED dropped: wake the oldest waiter to retry,
 * unless one is in flight already or a barger took the mutex. */
static void wake_one_to_retry(weft_mutex_t *m)
{
    wf_wait *w;
    int s;

    wf_lock(&m->waiters.lock);
    s = load_state(m);
    do {
        if ((s & (LOCKED | WAKING)) || !(s & WAITERS)) {
            wf_unlock(&m->waiters.lock);
            return;
        }
    } while (!cas_state(m, &s, s | WAKING));
    w = wf_waitq_pop(&m->waiters);
    if (wf_waitq_is_empty(&m->waiters))
        clear_bits(m, WAITERS);
    wf_unlock(&m->waiters.lock);
    wf_wait_wake(w, WOKEN_TO_RETRY);
}

/* ------------------------------------------------ posted continuations */

static void (*posted_runner)(weft_mutex_t *m);

void wf_mutex_set_posted_runner(void (*run)(weft_mutex_t *m))
{
    __atomic_store_n(&posted_runner, run, __ATOMIC_RELEASE);
}

int wf_mutex_mark_posted(weft_mutex_t *m)
{
    int s = load_state(m);

    do {
        if (!(s & LOCKED))
            return 0;
    } while (!cas_state(m, &s, s | POSTED));
    return 1;
}

/* Run what was posted on `m`, as its owner `me`; returns the new state.
 * The acquire pairs with the poster's CAS: its record is visible. */
static int run_posted(weft_mutex_t *m, weft_thread_t me)
{
    __atomic_fetch_and(&m->state, ~POSTED, __ATOMIC_ACQ_REL);
    set_owner(m, me);
    __atomic_load_n(&posted_runner, __ATOMIC_ACQUIRE)(m);
    set_owner(m, WEFT_THREAD_NULL);
    return load_state(m);
}

static void unlock_slow(weft_mutex_t *m, int s, weft_thread_t me)
{
    int rounds = 0;

    for (;;) {
        if ((s & POSTED) && (rounds++ < POSTED_ROUNDS || !(s & WAITERS))) {
            s = run_posted(m, me);
            continue;
        }
        if (s & HANDOFF) {
            hand_off(m);
            return;
        }
        if (cas_state(m, &s, s & ~LOCKED))
            break;
    }
    if ((s & WAITERS) && !(s & WAKING))
        wake_one_to_retry(m);
}

int weft_mutex_unlock(weft_mutex_t *m)
{
    int s = LOCKED;
    weft_thread_t me;

    if (!m)
        return WEFT_EINVAL;
    me = wf_sync_caller_id();
    if (owner_of(m) != me)
        return WEFT_EPERM;
    set_owner(m, WEFT_THREAD_NULL);
    if (__atomic_compare_exchange_n(&m->state, &s, 0, 0,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        return 0;
    unlock_slow(m, s, me);
    return 0;
}
