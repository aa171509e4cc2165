/* Per-worker run queues: one FIFO per priority level plus a bitmap of the
 * non-empty levels, so picking the best thread is a find-last-set and a
 * list pop.
 *
 * Design. Each worker owns one queue, guarded by a lock (w->rq_lock, the
 * runtime's one lock, lock.c) because other workers push into it
 * (wake-ups) and steal from it. A lock per queue keeps the code short and
 * obviously correct; the lock is held for a handful of instructions.
 * Every caller is already inside a runtime critical section (or is an
 * external thread, which is never preempted by us), so a holder cannot be
 * preempted by us (the kernel may deschedule it: a waiter then sleeps
 * until the release, lock.c). A
 * lock-free deque (Chase-Lev) would save ~20 ns per operation but makes
 * priorities awkward.
 *
 * Priorities are strict within a worker: a level is served only when every
 * higher level is empty; FIFO within a level, except that a thread
 * preempted by a higher level goes back to the head of its own (as POSIX
 * SCHED_FIFO does), so priority preemption does not cost it its turn. Across workers they are
 * approximate: a thief takes the best thread of one victim at a time.
 *
 * Threads bound to a worker (the main thread) are only ever queued on that
 * worker, and thieves skip them.
 *
 * wf_g.nready counts queued threads over all workers; idle workers and the
 * preemption handler read it to decide quickly whether anything waits.
 */
#include "sched/sched_internal.h"

/* mask and len change under the queue's lock but are peeked at without it
 * (idle workers, the tick handler): stored atomically. */
static void set_counts(wf_runq *q, unsigned mask, int len)
{
    __atomic_store_n(&q->mask, mask, __ATOMIC_RELAXED);
    __atomic_store_n(&q->len, len, __ATOMIC_RELAXED);
}

static void list_append(wf_runq *q, wf_thread *t, int p)
{
    t->rq_next = NULL;
    if (q->tail[p])
        q->tail[p]->rq_next = t;
    else
        q->head[p] = t;
    q->tail[p] = t;
    set_counts(q, q->mask | 1u << p, q->len + 1);
}

/* Unlink the first thread of level p (skipping bound ones for thieves). */
static wf_thread *list_take(wf_runq *q, int p, int skip_bound)
{
    wf_thread *prev = NULL, *t = q->head[p];
    while (t && skip_bound && t->bound_worker >= 0) {
        prev = t;
        t = t->rq_next;
    }
    if (!t)
        return NULL;
    if (prev)
        prev->rq_next = t->rq_next;
    else
        q->head[p] = t->rq_next;
    if (q->tail[p] == t)
        q->tail[p] = prev;
    set_counts(q, q->head[p] ? q->mask : q->mask & ~(1u << p), q->len - 1);
    t->rq_next = NULL;
    return t;
}

static int highest_level(unsigned mask)
{
    return mask ? 31 - __builtin_clz(mask) : -1;
}

static void list_prepend(wf_runq *q, wf_thread *t, int p)
{
    t->rq_next = q->head[p];
    q->head[p] = t;
    if (!q->tail[p])
        q->tail[p] = t;
    set_counts(q, q->mask | 1u << p, q->len + 1);
}

void wf_runq_push(wf_worker *w, wf_thread *t, int at_head)
{
    int p = t->queue_prio;
    wf_lock_acquire(&w->rq_lock);
    if (at_head)
        list_prepend(&w->rq, t, p);
    else
        list_append(&w->rq, t, p);
    wf_lock_release(&w->rq_lock);
    if (t->bound_worker >= 0)
        __atomic_fetch_add(&wf_g.nready_bound, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&wf_g.nready, 1, __ATOMIC_SEQ_CST);
}

static void account_taken(wf_thread *t)
{
    __atomic_fetch_sub(&wf_g.nready, 1, __ATOMIC_RELAXED);
    if (t->bound_worker >= 0)
        __atomic_fetch_sub(&wf_g.nready_bound, 1, __ATOMIC_RELAXED);
    t->queue_prio = t->prio;
}

/* The best thread at a level >= min_prio; thieves skip bound threads, so
 * they may have to look below the best level. */
static wf_thread *take_best(wf_worker *w, int min_prio, int skip_bound)
{
    wf_thread *t = NULL;
    wf_lock_acquire(&w->rq_lock);
    unsigned mask = w->rq.mask;
    for (int p = highest_level(mask); p >= min_prio && !t; p--)
        if (mask & (1u << p))
            t = list_take(&w->rq, p, skip_bound);
    wf_lock_release(&w->rq_lock);
    if (t)
        account_taken(t);
    return t;
}

/* The owner's pop: the head of the best level, no search. */
wf_thread *wf_runq_pop(wf_worker *w, int min_prio)
{
    if (__atomic_load_n(&w->rq.len, __ATOMIC_RELAXED) == 0)
        return NULL;
    wf_thread *t = NULL;
    wf_lock_acquire(&w->rq_lock);
    int p = highest_level(w->rq.mask);
    if (p >= min_prio)
        t = list_take(&w->rq, p, 0);
    wf_lock_release(&w->rq_lock);
    if (t)
        account_taken(t);
    return t;
}

wf_thread *wf_runq_swap(wf_worker *w, wf_thread *self, int min_prio)
{
    if (__atomic_load_n(&w->rq.len, __ATOMIC_RELAXED) == 0)
        return NULL;
    wf_thread *t = NULL;
    wf_lock_acquire(&w->rq_lock);
    int p = highest_level(w->rq.mask);
    if (p >= min_prio) {
        t = list_take(&w->rq, p, 0);
        self->queue_prio = self->prio;
        list_append(&w->rq, self, self->prio);
    }
    wf_lock_release(&w->rq_lock);
    if (!t)
        return NULL;
    t->queue_prio = t->prio; /* nready unchanged: one out, one in */
    int bound_delta = (self->bound_worker >= 0) - (t->bound_worker >= 0);
    if (bound_delta)
        __atomic_fetch_add(&wf_g.nready_bound, bound_delta, __ATOMIC_SEQ_CST);
    return t;
}

wf_thread *wf_runq_steal(wf_worker *thief, int min_prio)
{
    int n = wf_g.nworkers;
    for (int i = 1; i < n; i++) {
        wf_worker *victim = wf_g.workers[(thief->index + i) % n];
        if (__atomic_load_n(&victim->rq.len, __ATOMIC_RELAXED) == 0)
            continue;
        wf_thread *t = take_best(victim, min_prio, 1);
        if (t) {
            WF_STAT_INC(thief->stats.steals);
            return t;
        }
    }
    return NULL;
}

int wf_runq_best_prio(wf_worker *w)
{
    return highest_level(__atomic_load_n(&w->rq.mask, __ATOMIC_RELAXED));
}

int wf_sched_nready(void)
{
    return __atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED);
}

int weft_ready_threads(void)
{
    return wf_sched_nready();
}
