/* Wait queues: FIFO lists of blocked waiters (wf_wait nodes), the building
 * block of every primitive in src/sync/. Private to src/sync/.
 *
 * A weft_waitq (include/weft/sync.h) holds a spin lock and the head and tail
 * of a doubly linked list threaded through wf_wait.next / wf_wait.prev.
 * Every function below except wf_waitq_is_queued() and the wake helpers
 * must be called with q->lock held (taken with wf_lock(), which also enters
 * a runtime critical section).
 *
 * Queued or not: a node that is not in any queue has prev == itself. So a
 * waiter that gives up (time-out) can ask, under the lock, whether a waker
 * already took it (wf_waitq_remove() returns 0): that waker now owns the
 * duty to wake it, and the waiter must wait for that wake.
 */
#ifndef WF_SYNC_WAITQ_H
#define WF_SYNC_WAITQ_H

#include <weft/sync.h>

#include "sched/sched.h"

/* Append `w` at the tail. Lock held. */
void wf_waitq_push(weft_waitq *q, wf_wait *w);

/* Insert `w` at the head (a waiter that lost a race re-queues first, so
 * it keeps its place). Lock held. */
void wf_waitq_push_front(weft_waitq *q, wf_wait *w);

/* Unlink and return the oldest waiter, or NULL if the queue is empty.
 * Lock held. */
wf_wait *wf_waitq_pop(weft_waitq *q);

/* Unlink every waiter at once and return the oldest; the others follow
 * through ->next (NULL-terminated). Each node is marked "not queued", so a
 * concurrent wf_waitq_remove() leaves the chain alone. Lock held. */
wf_wait *wf_waitq_pop_all(weft_waitq *q);

/* Unlink `w` if it is still queued in `q`. Returns 1 if it was (the caller
 * now owns waking it, or may simply return), 0 if a waker took it first.
 * Lock held. */
int wf_waitq_remove(weft_waitq *q, wf_wait *w);

/* 1 if nobody waits on `q`. Lock held, or a racy snapshot without it. */
int wf_waitq_is_empty(const weft_waitq *q);

/* 1 if `w` sits in some queue (see the head comment). Lock held. */
int wf_waitq_is_queued(const wf_wait *w);

/* Push `w` (initialised with wf_wait_init) and block on it; the queue lock,
 * held on entry, is released only once the caller's context is saved (so no
 * waker can resume it too early). Returns the reason given to the wake.
 * Lock held on entry, NOT held on return. */
int wf_waitq_block(weft_waitq *q, wf_wait *w);

/* Block on `w`, already pushed by the caller; like wf_waitq_block
 * otherwise. Lock held on entry, NOT held on return. */
int wf_waitq_sleep(weft_waitq *q, wf_wait *w);

/* Wake a chain returned by wf_waitq_pop_all() with `reason`; returns how
 * many were woken. Lock NOT held (nodes may vanish once woken). */
int wf_waitq_wake_chain(wf_wait *chain, int reason);

/* Pop the oldest waiter of `q` and wake it with `reason`. Returns 1 if one
 * was woken, 0 if the queue was empty. Takes and releases the lock. */
int wf_waitq_wake_one(weft_waitq *q, int reason);

/* Wake every waiter of `q`; returns how many. Takes the lock. */
int wf_waitq_wake_all(weft_waitq *q, int reason);

#endif /* WF_SYNC_WAITQ_H */
