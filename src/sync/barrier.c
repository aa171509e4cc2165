/* Reusable barriers that block the calling user-level thread.
 *
 * Design. Under the queue lock each arriver increments b->arrived. All but
 * the last queue themselves and block. The last one resets the count,
 * advances b->generation, unlinks the whole queue at once and wakes it
 * after dropping the lock, then returns WEFT_BARRIER_SERIAL_THREAD.
 *
 * Reuse is safe without the classic "wait while the generation is
 * unchanged" loop: every waiter of round k is unlinked from the queue (in
 * one step, under the lock) before any thread of round k+1 can arrive, and
 * a woken wf_wait never waits again, so a fast thread that re-enters for
 * round k+1 can neither be counted in round k nor steal one of its wakes.
 * The generation counter still tells rounds apart for debugging and for
 * future timed waits (a waiter that times out must know whether its round
 * completed meanwhile).
 *
 * Trade-off: the last arriver wakes n-1 threads one by one (O(n) wakes,
 * each a run-queue push); a tree barrier would spread that work but costs
 * more when n is small, which is the common case for ULT barriers.
 *
 * Locks: b->waiters.lock guards arrived, generation and the queue.
 */
#include "sync/waitq.h"

int weft_barrier_init(weft_barrier_t *b, unsigned count)
{
    if (!b || count == 0)
        return WEFT_EINVAL;
    b->count = count;
    b->arrived = 0;
    b->generation = 0;
    b->waiters = (weft_waitq)WEFT_WAITQ_INITIALIZER;
    return 0;
}

int weft_barrier_destroy(weft_barrier_t *b)
{
    int busy;

    if (!b)
        return WEFT_EINVAL;
    wf_lock(&b->waiters.lock);
    busy = b->arrived != 0 || !wf_waitq_is_empty(&b->waiters);
    wf_unlock(&b->waiters.lock);
    return busy ? WEFT_EBUSY : 0;
}

int weft_barrier_wait(weft_barrier_t *b)
{
    wf_wait w;
    wf_wait *round;

    if (!b || b->count == 0)
        return WEFT_EINVAL;
    wf_wait_init(&w);
    wf_lock(&b->waiters.lock);
    if (++b->arrived < b->count) {
        wf_waitq_block(&b->waiters, &w);
        return 0;
    }
    b->arrived = 0;
    b->generation++;
    round = wf_waitq_pop_all(&b->waiters);
    wf_unlock(&b->waiters.lock);
    wf_waitq_wake_chain(round, 0);
    return WEFT_BARRIER_SERIAL_THREAD;
}
