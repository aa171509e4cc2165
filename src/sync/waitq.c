/* Wait queues: the FIFO of blocked waiters behind every sync primitive.
 *
 * Design. The list is intrusive: the nodes are the waiters' own wf_wait
 * records, which live on the waiters' stacks, so queueing never allocates
 * and cannot fail. It is doubly linked so that a waiter that gives up (a
 * time-out, later) unlinks itself in O(1). A node that is not queued has
 * prev == itself; that lets wf_waitq_remove() tell "still queued" from
 * "already taken by a waker" without a separate flag.
 *
 * Alternatives rejected: a singly linked list makes remove O(n), fine for
 * mutexes but not for a condition with thousands of timed waiters; a lock-
 * free (MCS-like) queue saves one spin lock but makes removal and
 * "pop all" (broadcast, barrier) much harder. The lock is held for a few
 * pointer writes only, always inside a runtime critical section, so a
 * holder is never preempted while others spin on it.
 *
 * Blocking follows the scheduler's protocol (src/sched/sched.h): the waiter
 * pushes itself with the lock held and calls wf_wait_block() with a release
 * callback that drops the lock once the waiter's context is saved. wf_unlock
 * also leaves the critical section that wf_lock entered, on the worker that
 * runs the callback, which is the worker the waiter left.
 *
 * Waking happens after the lock is released: a woken waiter may return and
 * pop its wf_wait off its stack at once, so nobody touches a node after
 * waking it (wf_waitq_wake_chain reads ->next first). The primitives rely
 * on the scheduler's guarantee that everything the waker did before
 * wf_wait_wake() happens before the waiter's wf_wait_block() returns (the
 * wait state word is released by the waker and acquired by the waiter);
 * that is what makes a mutex hand-off or a barrier round publish memory.
 *
 * Invariants (q->lock guards head, tail and the links of queued nodes):
 *   head == NULL  <=>  tail == NULL;
 *   head->prev == NULL, tail->next == NULL;
 *   a node that is not queued has prev == itself.
 */
#include "sync/waitq.h"

#include <stddef.h>

static wf_wait *head_of(const weft_waitq *q) { return (wf_wait *)q->head; }
static wf_wait *tail_of(const weft_waitq *q) { return (wf_wait *)q->tail; }

static void mark_unqueued(wf_wait *w) { w->prev = w; }

/* head is also read without the lock (wf_waitq_is_empty), hence atomic. */
static void set_head(weft_waitq *q, wf_wait *w)
{
    __atomic_store_n(&q->head, (void *)w, __ATOMIC_RELAXED);
}

void wf_waitq_push(weft_waitq *q, wf_wait *w)
{
    wf_wait *tail = tail_of(q);

    w->next = NULL;
    w->prev = tail;
    if (tail)
        tail->next = w;
    else
        set_head(q, w);
    q->tail = w;
}

void wf_waitq_push_front(weft_waitq *q, wf_wait *w)
{
    wf_wait *head = head_of(q);

    w->prev = NULL;
    w->next = head;
    if (head)
        head->prev = w;
    else
        q->tail = w;
    set_head(q, w);
}

static void unlink_node(weft_waitq *q, wf_wait *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        set_head(q, w->next);
    if (w->next)
        w->next->prev = w->prev;
    else
        q->tail = w->prev;
    w->next = NULL;
    mark_unqueued(w);
}

wf_wait *wf_waitq_pop(weft_waitq *q)
{
    wf_wait *w = head_of(q);

    if (w)
        unlink_node(q, w);
    return w;
}

wf_wait *wf_waitq_pop_all(weft_waitq *q)
{
    wf_wait *chain = head_of(q);

    for (wf_wait *w = chain; w; w = w->next)
        mark_unqueued(w);
    set_head(q, NULL);
    q->tail = NULL;
    return chain;
}

int wf_waitq_is_queued(const wf_wait *w)
{
    return w->prev != w;
}

int wf_waitq_remove(weft_waitq *q, wf_wait *w)
{
    if (!wf_waitq_is_queued(w))
        return 0;
    unlink_node(q, w);
    return 1;
}

int wf_waitq_is_empty(const weft_waitq *q)
{
    return __atomic_load_n(&q->head, __ATOMIC_RELAXED) == NULL;
}

static void release_queue_lock(void *lock)
{
    wf_unlock((int *)lock);
}

int wf_waitq_sleep(weft_waitq *q, wf_wait *w)
{
    return wf_wait_block(w, release_queue_lock, &q->lock);
}

int wf_waitq_block(weft_waitq *q, wf_wait *w)
{
    wf_waitq_push(q, w);
    return wf_waitq_sleep(q, w);
}

int wf_waitq_wake_chain(wf_wait *chain, int reason)
{
    int woken = 0;

    while (chain) {
        wf_wait *next = chain->next; /* chain may vanish once woken */
        woken += wf_wait_wake(chain, reason);
        chain = next;
    }
    return woken;
}

int wf_waitq_wake_one(weft_waitq *q, int reason)
{
    wf_wait *w;

    wf_lock(&q->lock);
    w = wf_waitq_pop(q);
    wf_unlock(&q->lock);
    return w ? wf_wait_wake(w, reason) : 0;
}

int wf_waitq_wake_all(weft_waitq *q, int reason)
{
    wf_wait *chain;

    wf_lock(&q->lock);
    chain = wf_waitq_pop_all(q);
    wf_unlock(&q->lock);
    return wf_waitq_wake_chain(chain, reason);
}
