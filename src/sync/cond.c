/* Condition variables that block the calling user-level thread.
 *
 * Design. A condition is just a wait queue. weft_cond_wait() queues the
 * caller on the condition *before* it unlocks the mutex, then blocks. So a
 * signaller that changed the predicate under the mutex and then signals
 * always finds the waiter queued: "unlock and wait" is atomic with respect
 * to signal. If the signal lands between the unlock and the block, the
 * scheduler's wait state word keeps it and wf_wait_block() returns at once.
 *
 * The mutex is unlocked by the waiter itself, not from the release callback
 * of wf_wait_block(): unlocking may wake (hand the mutex to) another thread,
 * and a release callback runs between two contexts where waking is best
 * avoided. The price is that the condition's queue lock is taken and
 * dropped once more than strictly needed; no wake-up can be lost since the
 * node is queued first.
 *
 * A woken waiter is not queued any more when it returns (the waker popped
 * it), and wakes come only from signal/broadcast, so there are no spurious
 * wake-ups today; callers must still loop (timed waits and signals will
 * add early returns).
 *
 * Locks: c->waiters.lock guards the queue; the waiter's wf_wait lives on
 * its stack and is never touched by a waker after the wake.
 */
#include "sync/sync_int.h"
#include "sync/waitq.h"

int weft_cond_init(weft_cond_t *c)
{
    if (!c)
        return WEFT_EINVAL;
    *c = (weft_cond_t)WEFT_COND_INITIALIZER;
    return 0;
}

int weft_cond_destroy(weft_cond_t *c)
{
    if (!c)
        return WEFT_EINVAL;
    if (!wf_waitq_is_empty(&c->waiters))
        return WEFT_EBUSY;
    return 0;
}

int weft_cond_wait(weft_cond_t *c, weft_mutex_t *m)
{
    wf_wait w;

    if (!c || !m)
        return WEFT_EINVAL;
    if (!wf_mutex_is_held_by_caller(m))
        return WEFT_EPERM;
    wf_wait_init(&w);
    wf_lock(&c->waiters.lock);
    wf_waitq_push(&c->waiters, &w);
    wf_unlock(&c->waiters.lock);
    weft_mutex_unlock(m); /* cannot fail: the caller holds m */
    wf_wait_block(&w, NULL, NULL);
    return weft_mutex_lock(m);
}

int weft_cond_signal(weft_cond_t *c)
{
    if (!c)
        return WEFT_EINVAL;
    if (!wf_waitq_is_empty(&c->waiters))
        wf_waitq_wake_one(&c->waiters, 0);
    return 0;
}

int weft_cond_broadcast(weft_cond_t *c)
{
    if (!c)
        return WEFT_EINVAL;
    if (!wf_waitq_is_empty(&c->waiters))
        wf_waitq_wake_all(&c->waiters, 0);
    return 0;
}
