/* Timed events (ARIADNE's a_schevnt / a_deschevnt / a_cnclevnt_*): arm,
 * cancel by handle or by argument, release, and what happens when one is
 * due, by kind:
 *   FUNCTION    runs at once on the stack of the context that found it due
 *               (a switch, an idle worker or the service thread, see
 *               service.c), inside fire_lock: one at a time, in deadline
 *               order. It must not block; a switch while it runs aborts.
 *   THREAD      handed to a pooled host ULT (host.c), which may block.
 *   OPTIMISTIC  handed to a "runner" host that runs such events back to
 *               back as plain function calls; one that blocks keeps the
 *               runner as its own thread (host.c explains the promotion).
 *
 * Life of an event. weft_event_at allocates it (one malloc, ~100 bytes) and
 * queues it: heap + argument map, under the queue lock. Its state moves
 *     pending --pop (claim)--> queued --CAS--> running --> done
 *        `--cancel (lock)--> cancelled <--CAS-- (queued)
 * so a cancel wins until the moment the function starts: cancelling an
 * event that a firer or a host has taken but not started yet still
 * returns 1, and the function never runs. Once running or done, cancel
 * returns 0 (also from inside the function itself).
 * Memory: two references, the queue's (dropped when the event has run or
 * was cancelled) and the caller's handle (dropped by weft_event_release;
 * absent when weft_event_at got out == NULL). The last one frees it.
 *
 * Costs (bench/timer_scale, 2-vCPU VM, CPU time): insert ~80-140 ns and
 * cancel + release ~70-110 ns from 1 k to 1 M pending, for an event
 * cancelled while still warm in the caches (a timeout armed before a wait
 * and cancelled when it ends); cancelling one armed long before costs
 * ~0.2 us at 1 k and ~0.9 us at 1 M (cache misses on its node, heap slot
 * and bucket). One malloc and one free per event.
 */
#include <stdlib.h>

#include "timer/timer_int.h"

static struct weft_event *event_of(wf_tnode *n)
{
    return (struct weft_event *)n; /* node is the first member */
}

static uint32_t get_state(struct weft_event *e)
{
    return __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
}

static void set_state(struct weft_event *e, uint32_t s)
{
    __atomic_store_n(&e->state, s, __ATOMIC_RELEASE);
}

static int cas_state(struct weft_event *e, uint32_t from, uint32_t to)
{
    return __atomic_compare_exchange_n(&e->state, &from, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static void unref(struct weft_event *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(e);
}

/* ------------------------------------------------------------- attributes */

void weft_event_attr_init(weft_event_attr *attr)
{
    if (!attr)
        return;
    attr->kind = WEFT_EVENT_FUNCTION;
    attr->queue = WEFT_QUEUE_REAL;
    attr->priority = WEFT_PRIO_HIGH;
    attr->delay_sensitive = 1;
}

static int check_attr(const weft_event_attr *a)
{
    if ((int)a->kind < WEFT_EVENT_FUNCTION || (int)a->kind > WEFT_EVENT_OPTIMISTIC)
        return WEFT_EINVAL;
    if ((int)a->queue != WEFT_QUEUE_REAL && (int)a->queue != WEFT_QUEUE_CPU)
        return WEFT_EINVAL;
    if (a->priority < WEFT_PRIO_MIN || a->priority > WEFT_PRIO_MAX)
        return WEFT_EINVAL;
    return 0;
}

/* ------------------------------------------------------------------ arm */

static struct weft_event *event_new(int64_t when, const weft_event_attr *a,
                                    void (*fn)(void *), void *arg, int with_handle)
{
    struct weft_event *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->node.deadline = when < WF_NO_DEADLINE ? when : WF_NO_DEADLINE - 1;
    e->node.index = -1;
    e->node.type = WF_TN_EVENT;
    e->node.queue = (uint32_t)a->queue;
    e->fn = fn;
    e->arg = arg;
    e->kind = (int)a->kind;
    e->prio = a->priority;
    e->sensitive = a->delay_sensitive != 0;
    e->state = EV_PENDING;
    e->refs = with_handle ? 2 : 1;
    return e;
}

/* Queue e. Returns 1 if it is its queue's new earliest, 0, or an error. */
static int enqueue(struct weft_event *e)
{
    wf_tqueue *q = &wf_tq[e->node.queue];
    wf_lock(&q->lock);
    int r = wf_tq_insert_locked(q, &e->node);
    if (r >= 0 && wf_argmap_add(&q->args, e) != 0) {
        wf_tq_remove_locked(q, &e->node);
        r = WEFT_ENOMEM;
    }
    if (r >= 0)
        __atomic_store_n(&q->nevents, q->nevents + 1, __ATOMIC_RELAXED);
    wf_unlock(&q->lock);
    return r;
}

/* Hosted kinds need the runtime: start it, as weft_thread_create does,
 * but never from inside an event (that may be the service thread). */
static int prepare(const weft_event_attr *a)
{
    int err = check_attr(a);
    if (!err && a->kind != WEFT_EVENT_FUNCTION && !weft_is_initialized())
        err = wf_timer_in_function() ? WEFT_ESTATE : weft_init();
    if (!err)
        wf_timer_ensure_started(); /* on failure, switches still fire it */
    return err;
}

int weft_event_at(weft_event_t *out, int64_t when, const weft_event_attr *attr,
                  void (*fn)(void *), void *arg)
{
    weft_event_attr defaults;
    weft_event_attr_init(&defaults);
    const weft_event_attr *a = attr ? attr : &defaults;
    if (out)
        *out = WEFT_EVENT_NULL;
    if (!fn)
        return WEFT_EINVAL;
    int err = prepare(a);
    if (err)
        return err;
    struct weft_event *e = event_new(when, a, fn, arg, out != NULL);
    if (!e)
        return WEFT_ENOMEM;
    int queue = e->node.queue; /* once queued, e may fire and be freed */
    int64_t deadline = e->node.deadline;
    int r = enqueue(e);
    if (r < 0) {
        free(e);
        return r;
    }
    if (r == 1)
        wf_timer_poke(queue, deadline);
    if (out)
        *out = e;
    return 0;
}

int weft_event_after(weft_event_t *out, int64_t delay, const weft_event_attr *attr,
                     void (*fn)(void *), void *arg)
{
    int q = attr ? (int)attr->queue : WEFT_QUEUE_REAL;
    if (q != WEFT_QUEUE_REAL && q != WEFT_QUEUE_CPU) {
        if (out)
            *out = WEFT_EVENT_NULL;
        return WEFT_EINVAL;
    }
    int64_t now = wf_tq_clock(q);
    if (delay < 0)
        delay = 0;
    int64_t when = delay > WF_NO_DEADLINE - now ? WF_NO_DEADLINE : now + delay;
    return weft_event_at(out, when, attr, fn, arg);
}

/* --------------------------------------------------------------- cancel */

/* Take a pending event out of its queue. Queue lock held. */
static void unqueue_locked(wf_tqueue *q, struct weft_event *e)
{
    wf_tq_remove_locked(q, &e->node);
    wf_argmap_del(&q->args, e);
    __atomic_store_n(&q->nevents, q->nevents - 1, __ATOMIC_RELAXED);
    set_state(e, EV_CANCELLED);
}

int weft_event_cancel(weft_event_t e)
{
    if (!e)
        return WEFT_EINVAL;
    wf_tqueue *q = &wf_tq[e->node.queue];
    wf_lock(&q->lock);
    int pending = get_state(e) == EV_PENDING;
    if (pending)
        unqueue_locked(q, e);
    wf_unlock(&q->lock);
    if (pending) {
        unref(e); /* the queue's reference */
        return 1;
    }
    return cas_state(e, EV_QUEUED, EV_CANCELLED);
}

int weft_event_cancel_arg(weft_event_queue queue, void *arg)
{
    if ((int)queue != WEFT_QUEUE_REAL && (int)queue != WEFT_QUEUE_CPU)
        return 0;
    wf_tqueue *q = &wf_tq[queue];
    wf_lock(&q->lock);
    struct weft_event *e = wf_argmap_earliest(&q->args, arg);
    if (e)
        unqueue_locked(q, e);
    wf_unlock(&q->lock);
    if (e)
        unref(e);
    return e != NULL;
}

void weft_event_release(weft_event_t e)
{
    if (e)
        unref(e);
}

int64_t weft_event_pending(void)
{
    return __atomic_load_n(&wf_tq[WEFT_QUEUE_REAL].nevents, __ATOMIC_RELAXED) +
           __atomic_load_n(&wf_tq[WEFT_QUEUE_CPU].nevents, __ATOMIC_RELAXED);
}

/* ----------------------------------------------------------------- fire */

void wf_event_claim(wf_tnode *n)
{
    struct weft_event *e = event_of(n);
    wf_tqueue *q = &wf_tq[n->queue];
    wf_argmap_del(&q->args, e);
    __atomic_store_n(&q->nevents, q->nevents - 1, __ATOMIC_RELAXED);
    set_state(e, EV_QUEUED);
}

static void run_function(struct weft_event *e)
{
    if (cas_state(e, EV_QUEUED, EV_RUNNING)) {
        wf_timer_set_in_function(1);
        e->fn(e->arg);
        wf_timer_set_in_function(0);
        set_state(e, EV_DONE);
    }
    unref(e);
}

void wf_event_fire(wf_tnode *n)
{
    struct weft_event *e = event_of(n);
    if (e->kind == WEFT_EVENT_FUNCTION)
        run_function(e);
    else
        wf_host_submit(e);
}

void wf_event_run_hosted(struct weft_event *e)
{
    if (cas_state(e, EV_QUEUED, EV_RUNNING)) {
        weft_thread_t self = weft_thread_self();
        if (weft_thread_get_priority(self) != e->prio)
            weft_thread_set_priority(self, e->prio);
        e->fn(e->arg);
        set_state(e, EV_DONE);
    }
    unref(e);
}
