/* Continuations posted to a worker (weft_cont_post): fn(arg) runs at the
 * worker's next context switch, on the stack of the context that resumes.
 *
 * Design. Each worker has a FIFO of posted records. The scheduler calls
 * our at_switch hook on every switch, on the context that resumes, inside a
 * critical section; the hook detaches the worker's list and runs it. The
 * idle loop calls our idle_poll hook, so a worker that goes idle runs its
 * continuations too. No context is created, saved or restored for them.
 *
 * Why this needs no lock. A queue is touched only by its own worker: the
 * poster runs on it (weft_cont_post enters a critical section before it
 * reads "my worker", so it cannot be preempted and moved meanwhile), and
 * the hooks run on it. Preemption is the only other code that runs on that
 * kernel thread, and it is deferred inside critical sections. So the queue
 * is plain memory, and posting costs a few stores (~10 ns) plus, rarely, a
 * malloc (records are recycled through a small per-worker free list).
 *
 * Rejected alternatives:
 *   - a global MPSC queue drained by any worker: continuations would run on
 *     other workers (losing the cache locality that motivates them) and the
 *     queue would need atomics on every post;
 *   - running continuations on the yielder's stack before it switches (the
 *     paper's wording): there is no pre-switch hook in src/sched, and
 *     running them after the switch is equivalent for the user (no extra
 *     context switch, same worker, same moment), except that they see the
 *     resumed thread as weft_thread_self().
 *
 * Invariants. queues[i] is touched only by worker i, inside a critical
 * section. `running` is 1 exactly while a continuation of that worker runs;
 * a switch that happens then (the continuation blocked or yielded) reaches
 * the hook on the same worker with `running` set, and aborts: a blocked
 * continuation would otherwise be resumed in the middle of another
 * thread's switch. `reg_lock` guards the one-time hook registration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <weft/cont.h>

#include "sched/sched.h"

#define MAX_WORKERS 1024 /* WEFT_WORKERS is at most 1024 */
#define FREE_MAX 64      /* records cached per worker */

typedef struct cont_rec {
    struct cont_rec *next;
    weft_cont_fn fn;
    void *arg;
} cont_rec;

typedef struct cont_queue {
    cont_rec *head, *tail; /* posted, not yet run */
    cont_rec *free;        /* recycled records */
    int nfree;
    int running;           /* a continuation of this worker is running */
} __attribute__((aligned(64))) cont_queue;

static cont_queue queues[MAX_WORKERS];
static int reg_lock;
static int registered; /* atomic: hooks installed */

/* ------------------------------------------------------------- records */

static cont_rec *rec_get(cont_queue *q)
{
    cont_rec *r = q->free;
    if (!r)
        return malloc(sizeof *r);
    q->free = r->next;
    q->nfree--;
    return r;
}

static void rec_put(cont_queue *q, cont_rec *r)
{
    if (q->nfree >= FREE_MAX) {
        free(r);
        return;
    }
    r->next = q->free;
    q->free = r;
    q->nfree++;
}

/* --------------------------------------------------------------- running */

/* Run the continuations of the calling worker. Critical section held. */
static int run_queue(void)
{
    int id = weft_worker_id();
    if (id < 0 || id >= MAX_WORKERS)
        return 0;
    cont_queue *q = &queues[id];
    if (q->running) {
        fputs("weft: cont: a continuation blocked, yielded or switched\n", stderr);
        abort();
    }
    cont_rec *r = q->head;
    int n = 0;
    q->head = q->tail = NULL; /* posts made by these go to the next switch */
    while (r) {
        cont_rec *next = r->next;
        q->running = 1;
        r->fn(r->arg);
        q->running = 0;
        rec_put(q, r);
        r = next;
        n++;
    }
    return n;
}

static void at_switch(void)
{
    run_queue();
}

static int idle_poll(void)
{
    return run_queue();
}

static const wf_sched_hooks cont_hooks = {
    .at_switch = at_switch,
    .idle_poll = idle_poll,
    .idle_deadline = NULL,
};

static int ensure_hooks(void)
{
    int err = 0;
    if (__atomic_load_n(&registered, __ATOMIC_ACQUIRE))
        return 0;
    wf_lock(&reg_lock);
    if (!registered) {
        err = wf_sched_add_hooks(&cont_hooks);
        if (!err)
            __atomic_store_n(&registered, 1, __ATOMIC_RELEASE);
    }
    wf_unlock(&reg_lock);
    return err;
}

/* ----------------------------------------------------------------- post */

int weft_cont_post(weft_cont_fn fn, void *arg)
{
    if (!fn)
        return WEFT_EINVAL;
    int err = ensure_hooks();
    if (err)
        return err;
    wf_rt_enter();
    int id = weft_worker_id();
    if (id < 0 || id >= MAX_WORKERS) {
        wf_rt_leave();
        return WEFT_EPERM;
    }
    cont_queue *q = &queues[id];
    cont_rec *r = rec_get(q);
    if (r) {
        r->fn = fn;
        r->arg = arg;
        r->next = NULL;
        if (q->tail)
            q->tail->next = r;
        else
            q->head = r;
        q->tail = r;
    }
    wf_rt_leave();
    return r ? id : WEFT_ENOMEM;
}
