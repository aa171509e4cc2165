/* Counting semaphores that block the calling user-level thread.
 *
 * Design. s->count is atomic. weft_sem_wait() first tries to decrement it
 * with a CAS loop while it is positive (no lock). Otherwise it takes the
 * queue lock, tries once more, and queues itself. weft_sem_post() always
 * takes the queue lock: with a waiter queued it hands the unit directly to
 * the oldest waiter (the count is not touched), else it increments the
 * count. A woken waiter therefore returns owning its unit, and posts are
 * served in FIFO order.
 *
 * Invariant (under s->waiters.lock): queue not empty => count == 0. The
 * count only grows under the lock and only while the queue is empty, and a
 * waiter queues only after it saw count == 0 under the lock. So no post is
 * lost and no waiter sleeps while units are available.
 *
 * Trade-off: post takes a spin lock even when nobody waits (one lock round
 * trip, tens of ns) — checking the queue without the lock would race with
 * a waiter about to queue. Waits on an available unit are lock-free.
 *
 * Locks: s->waiters.lock guards the queue and increments of s->count;
 * decrements are CAS loops and may run anywhere.
 */
#include "sync/waitq.h"

#include <stdint.h>

static int try_take_unit(weft_sem_t *s)
{
    int64_t n = __atomic_load_n(&s->count, __ATOMIC_RELAXED);

    while (n > 0) {
        if (__atomic_compare_exchange_n(&s->count, &n, n - 1, 1,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

int weft_sem_init(weft_sem_t *s, int64_t value)
{
    if (!s || value < 0)
        return WEFT_EINVAL;
    s->count = value;
    s->waiters = (weft_waitq)WEFT_WAITQ_INITIALIZER;
    return 0;
}

int weft_sem_destroy(weft_sem_t *s)
{
    if (!s)
        return WEFT_EINVAL;
    if (!wf_waitq_is_empty(&s->waiters))
        return WEFT_EBUSY;
    return 0;
}

int weft_sem_wait(weft_sem_t *s)
{
    wf_wait w;

    if (!s)
        return WEFT_EINVAL;
    if (try_take_unit(s))
        return 0;
    wf_wait_init(&w);
    wf_lock(&s->waiters.lock);
    if (try_take_unit(s)) {
        wf_unlock(&s->waiters.lock);
        return 0;
    }
    wf_waitq_block(&s->waiters, &w); /* woken owning a unit */
    return 0;
}

int weft_sem_trywait(weft_sem_t *s)
{
    if (!s)
        return WEFT_EINVAL;
    return try_take_unit(s) ? 0 : WEFT_EAGAIN;
}

int weft_sem_post(weft_sem_t *s)
{
    wf_wait *w;

    if (!s)
        return WEFT_EINVAL;
    wf_lock(&s->waiters.lock);
    w = wf_waitq_pop(&s->waiters);
    if (!w)
        __atomic_fetch_add(&s->count, 1, __ATOMIC_RELEASE);
    wf_unlock(&s->waiters.lock);
    if (w)
        wf_wait_wake(w, 0);
    return 0;
}

int64_t weft_sem_value(weft_sem_t *s)
{
    if (!s)
        return WEFT_EINVAL;
    return __atomic_load_n(&s->count, __ATOMIC_RELAXED);
}
