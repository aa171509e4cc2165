/* The two timer queues (ARIADNE's RTQ and VTQ): one per clock, each a heap
 * of nodes plus a map from argument to events, under one spin lock.
 *
 * The cached earliest deadline. q->next mirrors the heap's minimum and is
 * read without the lock by the switch hook, the idle hooks and the service
 * thread: "is anything due?" costs one load, plus one clock read when the
 * queue is not empty. It is stored (seq_cst) whenever the minimum changes,
 * always under the lock, so readers see either the old or the new minimum;
 * a reader that sees a stale, later value is covered by the service
 * thread, which an insert of a new minimum pokes (service.c).
 *
 * Firing takes due nodes out in batches: pop under the lock, "claim" each
 * one (its owner marks it fired, still under the lock, so that a
 * concurrent cancel or stop knows it lost), then run them with no queue
 * lock held (libuv's "collect expired, then fire"). A batch is bounded so
 * that the lock is never held for long: 32 pops, ~1-3 us.
 *
 * Lock: q->lock guards everything in *q except `next` (atomic).
 */
#include "timer/timer_int.h"

wf_tqueue wf_tq[2] = {
    {.next = WF_NO_DEADLINE},
    {.next = WF_NO_DEADLINE},
};

static void update_next(wf_tqueue *q)
{
    wf_tnode *m = wf_theap_min(&q->heap);
    __atomic_store_n(&q->next, m ? m->deadline : WF_NO_DEADLINE, __ATOMIC_SEQ_CST);
}

int wf_tq_insert_locked(wf_tqueue *q, wf_tnode *n)
{
    n->seq = q->seq++;
    int err = wf_theap_insert(&q->heap, n);
    if (err)
        return err;
    if (n->index != 0)
        return 0;
    update_next(q);
    return 1;
}

void wf_tq_remove_locked(wf_tqueue *q, wf_tnode *n)
{
    int was_min = n->index == 0;
    wf_theap_remove(&q->heap, n);
    if (was_min)
        update_next(q);
}

static void claim(wf_tnode *n)
{
    if (n->type == WF_TN_TIMEOUT)
        wf_timeout_claim(n);
    else
        wf_event_claim(n);
}

int wf_tq_pop_due(wf_tqueue *q, int64_t now, wf_tnode **out, int max)
{
    int k = 0;
    wf_lock(&q->lock);
    wf_tnode *m;
    while (k < max && (m = wf_theap_min(&q->heap)) && m->deadline <= now) {
        wf_theap_remove(&q->heap, m);
        claim(m);
        out[k++] = m;
    }
    if (k)
        update_next(q);
    wf_unlock(&q->lock);
    return k;
}

void wf_tq_release_memory(void)
{
    for (int i = 0; i < 2; i++) {
        wf_tqueue *q = &wf_tq[i];
        wf_lock(&q->lock);
        if (q->heap.n == 0)
            wf_theap_free(&q->heap);
        if (q->args.count == 0)
            wf_argmap_free(&q->args);
        wf_unlock(&q->lock);
    }
}

int64_t wf_tq_total(void)
{
    return __atomic_load_n(&wf_tq[0].heap.n, __ATOMIC_RELAXED) +
           __atomic_load_n(&wf_tq[1].heap.n, __ATOMIC_RELAXED);
}
