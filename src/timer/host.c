/* Host threads for timed events that may block: the THREAD kind (ARIADNE's
 * thread-bound events) and the OPTIMISTIC kind (its optimistic event
 * handlers). One pool of ULTs serves three roles:
 *
 *   solo    a delay-sensitive THREAD event gets a host of its own, so it
 *           never waits behind another event (ARIADNE's PRIEVNT);
 *   shared  delay-tolerant THREAD events (MPREVNT) queue in firing order,
 *           i.e. deadline order, on one FIFO drained by one host; past
 *           TOLERANT_MAX queued events a new one is treated as sensitive,
 *           which bounds the delay one slow event inflicts (ARIADNE also
 *           caps the events per shared host);
 *   runner  OPTIMISTIC events queue on a second FIFO; a runner host drains
 *           it, calling each handler as a plain function, back to back, on
 *           its own stack. If a handler blocks (or is preempted: it runs
 *           long), the runner simply stays with it: the handler has become
 *           a thread, with no copy and no restart (its frames already live
 *           on a ULT stack). The promotion is detected by the runner's
 *           post-execution hook (weft_thread_set_post_hook, ARIADNE's
 *           a_setdschdf), which runs when a thread stops running: if that
 *           happens inside a handler and events wait, another runner takes
 *           the FIFO: an idle host woken right there, or, since a hook may
 *           not create threads, one the timer service creates (need_runner).
 *           Without it, events queued before a runner took a handler that
 *           then blocks would wait for that handler.
 *
 * Optimistic events, the trade-off. A handler cannot start on the firing
 * context (a switch hook, an idle worker, the service thread: none may
 * block) and move to a thread when it blocks: in C its frames cannot leave
 * the stack they were built on, and re-running it from the start (OAM's
 * abort-and-restart) would repeat its side effects. So it starts on a
 * pre-created host stack; the cost over a plain function is one wake-up of
 * the runner per burst of events (~1-3 us, a preemption kick included)
 * instead of one per event, and no thread is created unless handlers
 * really block. A THREAD event costs one wake-up each (own host).
 *
 * Waking a host: at its event's priority; urgently (raised, preempting a
 * compute thread, through wf_wait_wake_urgent) when that priority is at
 * least WEFT_PRIO_HIGH, the default. A lower priority waits for a free
 * worker or the next tick like any thread of that level.
 *
 * Pool. Hosts park on their own wf_wait in a LIFO of idle hosts (the most
 * recently used stack is the warmest); a role with no idle host creates
 * one (weft_thread_create; creation failure leaves the event queued for
 * the next host that frees up). Hosts are joinable; weft_fini (at_fini)
 * stops and joins them all. It waits up to WF_TIMER_FINI_GRACE_NS for submitted
 * events to finish and their hosts to park (an event that has just
 * signalled its caller is still finishing), then refuses (WEFT_EBUSY) if
 * one still runs: e.g. blocked for good.
 *
 * A host's post-execution hook belongs to this file: an event function
 * must not replace it (weft_thread_set_post_hook on its own host).
 *
 * Lock: pool_lock guards every static below and the host fields role and
 * job; a host's wf_wait is initialised under it before the host parks.
 * in_handler and promoted are touched only by the host itself and by its
 * post hook, which never run at the same time (the hook runs after the
 * host stopped and before it can be resumed). need_runner is atomic.
 */
#include <stdlib.h>

#include "timer/timer_int.h"
#include "util/tuning.h"

#define TOLERANT_MAX 32

enum { H_NONE = 0, H_SOLO, H_SHARED, H_RUNNER, H_STOP };

typedef struct host {
    wf_wait wait;
    weft_thread_t th;
    struct host *next_idle;
    struct host *next_all;
    struct weft_event *job; /* the event of a solo host */
    int role;               /* H_* */
    int in_handler;         /* a runner inside an optimistic handler */
    int promoted;           /* ... that was switched out meanwhile */
} host;

typedef struct fifo {
    struct weft_event *head, *tail;
    int len;
} fifo;

static int pool_lock;
static host *idle_hosts, *all_hosts;
static int nhosts, nidle;
static fifo tolerant_q, optimistic_q;
static int tolerant_active; /* a shared host drains tolerant_q */
static int runners_free;    /* runners that will look at optimistic_q again */
static int nwork;           /* events submitted and not finished */
static int need_runner;     /* atomic: a promotion found no idle host */

/* ------------------------------------------------------------- helpers */

static void fifo_push(fifo *f, struct weft_event *e)
{
    e->fnext = NULL;
    if (f->tail)
        f->tail->fnext = e;
    else
        f->head = e;
    f->tail = e;
    f->len++;
}

static struct weft_event *fifo_pop(fifo *f)
{
    struct weft_event *e = f->head;
    if (!e)
        return NULL;
    f->head = e->fnext;
    if (!f->head)
        f->tail = NULL;
    f->len--;
    return e;
}

static host *pop_idle(void)
{
    host *h = idle_hosts;
    if (h) {
        idle_hosts = h->next_idle;
        nidle--;
    }
    return h;
}

static void unlock_pool(void *arg)
{
    (void)arg;
    wf_unlock(&pool_lock);
}

/* --------------------------------------------------------- host thread */

/* Park until given a role. Pool lock held on entry and on return. */
static void park(host *h)
{
    h->role = H_NONE;
    h->next_idle = idle_hosts;
    idle_hosts = h;
    nidle++;
    wf_wait_init(&h->wait);
    wf_wait_block(&h->wait, unlock_pool, NULL);
    wf_lock(&pool_lock);
}

/* Take over queued work nobody drains (after a failed host creation). */
static int adopt_orphans(host *h)
{
    if (tolerant_q.len && !tolerant_active) {
        tolerant_active = 1;
        h->role = H_SHARED;
    } else if (optimistic_q.len && runners_free == 0) {
        runners_free++;
        h->role = H_RUNNER;
    }
    return h->role != H_NONE;
}

static struct weft_event *take_from_role(host *h)
{
    struct weft_event *e = NULL;
    if (h->role == H_SOLO) {
        e = h->job;
        h->job = NULL;
        h->role = H_NONE;
    } else if (h->role == H_SHARED) {
        if (!(e = fifo_pop(&tolerant_q))) {
            tolerant_active = 0;
            h->role = H_NONE;
        }
    } else if (h->role == H_RUNNER) {
        runners_free--; /* busy with e, or leaving the role */
        if (!(e = fifo_pop(&optimistic_q)))
            h->role = H_NONE;
    }
    return e;
}

/* The next event for h, NULL to stop. Pool lock held. */
static struct weft_event *next_job(host *h)
{
    for (;;) {
        if (h->role == H_STOP)
            return NULL;
        struct weft_event *e = take_from_role(h);
        if (e)
            return e;
        if (!adopt_orphans(h))
            park(h);
    }
}

static void on_switch_out(weft_thread_t t, void *arg);

static void *host_main(void *arg)
{
    host *h = arg;
    weft_thread_set_post_hook(weft_thread_self(), on_switch_out, h);
    wf_lock(&pool_lock);
    for (struct weft_event *e; (e = next_job(h)) != NULL;) {
        wf_unlock(&pool_lock);
        h->in_handler = h->role == H_RUNNER;
        wf_event_run_hosted(e);
        h->in_handler = 0;
        wf_lock(&pool_lock);
        nwork--;
        h->promoted = 0;
        if (h->role == H_RUNNER)
            runners_free++; /* done with it: free again */
    }
    wf_unlock(&pool_lock);
    return NULL;
}

/* --------------------------------------------------------------- submit */

static void wake_host(host *h, int prio)
{
    weft_thread_set_priority(h->th, prio);
    if (prio >= WEFT_PRIO_HIGH)
        wf_wait_wake_urgent(&h->wait, 0);
    else
        wf_wait_wake(&h->wait, 0);
}

/* Undo the role reservation of a host that could not be created. */
static void spawn_failed(int role, struct weft_event *e)
{
    wf_lock(&pool_lock);
    if (role == H_RUNNER)
        runners_free--;
    else if (role == H_SHARED)
        tolerant_active = 0;
    else
        fifo_push(&tolerant_q, e); /* a later host will adopt it */
    wf_unlock(&pool_lock);
}

/* A new host for `role` (job: the event of a solo host, else NULL). */
static void spawn_host(int role, struct weft_event *job, int prio)
{
    host *h = calloc(1, sizeof *h);
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.priority = prio;
    attr.name = "weft-event-host";
    if (h) {
        h->role = role;
        h->job = job;
        wf_lock(&pool_lock);
        h->next_all = all_hosts;
        all_hosts = h;
        nhosts++;
        wf_unlock(&pool_lock);
    }
    if (h && weft_thread_create(&h->th, &attr, host_main, h) == 0)
        return;
    if (h) {
        wf_lock(&pool_lock);
        host **p = &all_hosts;
        while (*p != h)
            p = &(*p)->next_all;
        *p = h->next_all;
        nhosts--;
        wf_unlock(&pool_lock);
        free(h);
    }
    spawn_failed(role, job);
}

/* Queue e for its role; the role that needs a (new) host, or H_NONE. */
static int queue_for_role(struct weft_event *e)
{
    if (e->kind == WEFT_EVENT_OPTIMISTIC) {
        fifo_push(&optimistic_q, e);
        if (runners_free > 0)
            return H_NONE;
        runners_free++;
        return H_RUNNER;
    }
    if (!e->sensitive && tolerant_q.len < TOLERANT_MAX) {
        fifo_push(&tolerant_q, e);
        if (tolerant_active)
            return H_NONE;
        tolerant_active = 1;
        return H_SHARED;
    }
    return H_SOLO;
}

/* Once e is queued, another host may run and free it: read it first. */
void wf_host_submit(struct weft_event *e)
{
    int prio = e->prio;
    wf_lock(&pool_lock);
    nwork++;
    int role = queue_for_role(e);
    struct weft_event *job = role == H_SOLO ? e : NULL;
    host *h = role == H_NONE ? NULL : pop_idle();
    if (h) {
        h->role = role;
        h->job = job;
    }
    wf_unlock(&pool_lock);
    if (h)
        wake_host(h, prio);
    else if (role != H_NONE)
        spawn_host(role, job, prio);
}

/* ------------------------------------------------------------ promotion */

/* Events wait and no runner is free: the priority for a new runner, now
 * counted as free; else -1. */
static int runner_needed_locked(void)
{
    if (!optimistic_q.len || runners_free > 0)
        return -1;
    runners_free++;
    return optimistic_q.head->prio;
}

static void ask_service_for_runner(void)
{
    __atomic_store_n(&need_runner, 1, __ATOMIC_RELEASE);
    wf_svc_kick();
}

/* Post-execution hook of every host: runs right after it stops running. A
 * runner stopping inside a handler is promoted (the handler is a thread
 * now); the events behind it get another runner. */
static void on_switch_out(weft_thread_t t, void *arg)
{
    (void)t;
    host *h = arg, *g = NULL;
    if (!h->in_handler || h->promoted)
        return;
    h->promoted = 1;
    int prio = -1;
    wf_lock(&pool_lock);
    if (idle_hosts && (prio = runner_needed_locked()) >= 0) {
        g = pop_idle();
        g->role = H_RUNNER;
    }
    int ask = !g && optimistic_q.len && runners_free == 0;
    wf_unlock(&pool_lock);
    if (g)
        wake_host(g, prio);
    else if (ask)
        ask_service_for_runner();
}

void wf_host_maintain(void)
{
    if (!__atomic_load_n(&need_runner, __ATOMIC_ACQUIRE) ||
        !__atomic_exchange_n(&need_runner, 0, __ATOMIC_ACQ_REL))
        return;
    wf_lock(&pool_lock);
    int prio = runner_needed_locked();
    host *h = prio >= 0 ? pop_idle() : NULL;
    if (h)
        h->role = H_RUNNER;
    wf_unlock(&pool_lock);
    if (h)
        wake_host(h, prio);
    else if (prio >= 0)
        spawn_host(H_RUNNER, NULL, prio);
}

/* ----------------------------------------------------------------- stop */

/* Wait (up to WF_TIMER_FINI_GRACE_NS) until no work is left and every host is
 * parked; returns with the pool lock held, or WEFT_EBUSY without it. */
static int wait_quiet(void)
{
    int64_t give_up = weft_now() + WF_TIMER_FINI_GRACE_NS;
    for (;;) {
        wf_lock(&pool_lock);
        if (nwork == 0 && nidle == nhosts)
            return 0;
        wf_unlock(&pool_lock);
        if (weft_now() >= give_up)
            return WEFT_EBUSY;
        weft_sleep(WF_TIMER_FINI_POLL_NS);
    }
}

int wf_host_stop_all(void)
{
    if (wait_quiet() != 0)
        return WEFT_EBUSY;
    host *list = all_hosts;
    all_hosts = idle_hosts = NULL;
    nhosts = nidle = 0;
    for (host *h = list; h; h = h->next_all)
        h->role = H_STOP;
    wf_unlock(&pool_lock);
    for (host *h = list; h; h = h->next_all)
        wf_wait_wake(&h->wait, 0);
    while (list) {
        host *next = list->next_all;
        weft_thread_join(list->th, NULL);
        free(list);
        list = next;
    }
    return 0;
}
