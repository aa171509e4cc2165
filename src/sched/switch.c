/* Switching between user-level threads: critical sections, the post-switch
 * action, yield, and the block/wake protocol every wait in Weft ends in.
 *
 * Direct switches. A thread that yields or blocks switches straight to the
 * next runnable thread (one wf_ctx_switch), not through a scheduler context;
 * only when nothing is runnable does it switch to its worker's idle loop.
 * This halves the cost of a yield (one register swap instead of two).
 *
 * Post-switch actions. The thread being left must not become visible to
 * other workers (queued, or findable by a waker) before its registers are
 * saved, or two workers could run it at once. So the switcher records an
 * action in the worker (w->post_*) and the context that resumes runs it
 * first thing (Argobots' *_with_call, Go's gopark(unlockf)): requeue for a
 * yield, publish the wait for a block, reap for a finished thread. The
 * thread's post-execution hook runs there too, before the action.
 *
 * The critical-section token. w->in_rt > 0 means "inside the runtime": the
 * preemption handler then only sets preempt_pending. Every switch happens
 * with in_rt >= 1, and the context that resumes inherits that level: a
 * thread enters before it switches and leaves after it resumes, so each
 * worker's count stays balanced even though the enter and the matching
 * leave run on different threads' stacks. A new thread starts by leaving
 * (see thread.c); the idle loop runs with exactly one level held.
 * Preemption is also refused while the interrupted PC is inside libweft or
 * libc (safepc.c): that covers the instructions between reading the worker
 * pointer and incrementing its in_rt.
 *
 * Waits. A wf_wait moves PENDING -> PARKED (by the blocker, in the post
 * action, after release() ran) and PENDING|PARKED -> WOKEN (by the one
 * waker that wins `claimed`). A wake that finds PENDING just marks WOKEN:
 * the blocker then requeues itself (or never switches). A wake that finds
 * PARKED makes the thread runnable. So no wake is lost, none is doubled.
 */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched/sched_internal.h"
#include "sched/san.h"
#include "util/cpu.h"
#include "util/tuning.h"

static __thread wf_worker *tls_worker __attribute__((tls_model("initial-exec")));

__attribute__((noinline)) wf_worker *wf_worker_self(void)
{
    wf_worker *w = tls_worker;
    __asm__ volatile("" ::: "memory");
    return w;
}

void wf_worker_set_self(wf_worker *w)
{
    tls_worker = w;
}

wf_thread *wf_self(void)
{
    wf_worker *w = wf_worker_self();
    return w ? w->current : NULL;
}

int wf_sched_self_runs_short(void)
{
    wf_worker *w = wf_worker_self();
    return w && w->current && wf_tick_ns() > 0 && !w->current->runs_long &&
           wf_tuning_on(WF_H_SHORT_RUNS);
}

/* ------------------------------------------------------ critical sections */

void wf_rt_enter(void)
{
    wf_worker *w = wf_worker_self();
    if (w)
        wf_rt_enter_w(w);
}

void wf_take_deferred_preemption(wf_worker *w)
{
    w->preempt_pending = 0;
    if (!w->current)
        return;
    w->in_rt = 1;
    wf_yield_in_rt(w, w->current->prio, 1);
    w = wf_worker_self();
    w->in_rt--;
}

void wf_rt_leave(void)
{
    wf_worker *w = wf_worker_self();
    if (w)
        wf_rt_leave_w(w);
}

/* -------------------------------------------------------------- switching */

void wf_run_post_switch(wf_worker *w)
{
    wf_post_fn fn = w->post_fn;
    wf_thread *prev = w->post_prev;
    void *arg = w->post_arg;
    w->post_fn = NULL;
    w->post_prev = NULL;
    w->post_arg = NULL;
    weft_hook_fn post_hook = prev ? __atomic_load_n(&prev->post_hook, __ATOMIC_ACQUIRE) : NULL;
    if (post_hook)
        post_hook(prev, __atomic_load_n(&prev->post_arg, __ATOMIC_ACQUIRE));
    if (fn)
        fn(prev, arg);
    wf_hooks_at_switch();
}

static wf_ctx *enter_thread(wf_worker *w, wf_thread *next)
{
    weft_hook_fn pre_hook = __atomic_load_n(&next->pre_hook, __ATOMIC_ACQUIRE);
    if (pre_hook)
        pre_hook(next, __atomic_load_n(&next->pre_arg, __ATOMIC_ACQUIRE));
    next->last_worker = w->index;
    next->enter_tick = w->ticks_seen;
    w->preempt_pending = 0; /* a new slice starts */
    w->ticks_left = wf_slice_ticks_of(next->prio);
    return &next->ctx;
}

/* Tell the sanitizers which stack the switch goes to. */
static void announce_stack(wf_worker *w, wf_thread *next, void **fake_save)
{
    if (!next)
        wf_san_switch_start(fake_save, w->idle_stack.lo, w->idle_stack.size);
    else if (next->stack.map)
        wf_san_switch_start(fake_save, next->stack.lo, next->stack.size);
    else
        wf_san_switch_start(fake_save, wf_g.main_stack_lo, wf_g.main_stack_size);
}

void wf_switch(wf_worker *w, wf_thread *prev, wf_thread *next,
               wf_post_fn post, void *arg)
{
    w->post_fn = post;
    w->post_prev = prev;
    w->post_arg = arg;
    if (prev)
        prev->runs_long = w->ticks_seen != prev->enter_tick;
    while (next && __atomic_load_n(&next->switching, __ATOMIC_ACQUIRE))
        wf_cpu_relax(); /* stolen in the middle of a swap-yield */
    wf_ctx *from = prev ? &prev->ctx : &w->idle_ctx;
    wf_ctx *to = next ? enter_thread(w, next) : &w->idle_ctx;
    wf_set_running(w, next);
    WF_STAT_INC(w->stats.switches);
    void *fake_stack = NULL;
    int last = prev && prev->exiting;
    announce_stack(w, next, last ? NULL : &fake_stack);
    wf_san_fiber_switch(next ? next->san_fiber : w->idle_fiber);
    wf_ctx_switch(from, to);
    wf_san_switch_finish(fake_stack);
    wf_run_post_switch(wf_worker_self());
}

wf_thread *wf_pick_next(wf_worker *w, int min_prio)
{
    wf_thread *t = wf_runq_pop(w, min_prio);
    if (!t && __atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED) > 0)
        t = wf_runq_steal(w, min_prio);
    return t;
}

void wf_make_runnable(wf_thread *t, int urgent)
{
    wf_make_runnable_at(t, urgent, 0);
}

void wf_make_runnable_at(wf_thread *t, int urgent, int at_head)
{
    wf_worker *self = wf_worker_self();
    int held = !self && wf_workers_hold(); /* t waits: the workers are there */
    if (self)
        wf_rt_enter_w(self);
    wf_worker *target = t->bound_worker >= 0 ? wf_g.workers[t->bound_worker]
                        : self                ? self
                                              : wf_g.workers[t->last_worker];
    t->queue_prio = (urgent && t->prio < WEFT_PRIO_HIGH) ? WEFT_PRIO_HIGH : t->prio;
    int qp = t->queue_prio, stealable = t->bound_worker < 0;
    wf_runq_push(target, t, at_head); /* t may run elsewhere from here on */
    wf_worker_notify(target, stealable);
    int running = __atomic_load_n(&target->running_prio, __ATOMIC_RELAXED);
    if (urgent || (running >= 0 && running < qp))
        wf_preempt_kick_for(target, qp);
    if (self)
        wf_rt_leave_w(self);
    if (held)
        wf_workers_release();
}

void wf_requeue_prev(wf_thread *prev, void *arg)
{
    (void)arg;
    wf_make_runnable(prev, 0);
}

/* Preempted by a higher level: back to the head of its own level. */
static void requeue_prev_at_head(wf_thread *prev, void *arg)
{
    (void)arg;
    wf_make_runnable_at(prev, 0, 1);
}

/* After a preemption the worker alternates between its own queue first
 * and the other queues first. Always local-first lets a worker blocked in a
 * system call (or busy with one long thread) keep its queue to itself while
 * two threads share this CPU forever; always steal-first starves threads
 * that only this worker may run (the main thread, bound to worker 0) as
 * long as the other queues are never empty. Alternating bounds both waits
 * to about two passes over the queues. Voluntary yields stay local. */
static wf_thread *pick_after_preemption(wf_worker *w, int min_prio)
{
    wf_thread *t = NULL;
    w->steal_first = !w->steal_first;
    if (w->steal_first && __atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED) >
                              __atomic_load_n(&w->rq.len, __ATOMIC_RELAXED))
        t = wf_runq_steal(w, min_prio);
    return t ? t : wf_pick_next(w, min_prio);
}

/* Post-switch action of a swap-yield: the yielder is in the queue already
 * (wf_runq_swap); now that its registers are saved, let it be run. */
static void finish_swap(wf_thread *prev, void *arg)
{
    (void)arg;
    __atomic_store_n(&prev->switching, 0, __ATOMIC_RELEASE);
}

/* A voluntary yield to a local thread swaps places with it under one lock
 * hold, instead of a pop now and a push after the switch. The yielder is
 * queued before its registers are saved, flagged `switching`, and whoever
 * picks it (a thief) waits for the flag to clear (wf_switch). The flag
 * clears a few instructions after the swap; the wait is practically never
 * taken. Sleeping workers are not woken for the requeued yielder: this
 * worker itself will run it. */
static int yield_by_swap(wf_worker *w, wf_thread *self, int min_prio)
{
    __atomic_store_n(&self->switching, 1, __ATOMIC_RELAXED);
    wf_thread *next = wf_runq_swap(w, self, min_prio);
    if (!next) {
        __atomic_store_n(&self->switching, 0, __ATOMIC_RELAXED);
        return 0;
    }
    wf_switch(w, self, next, finish_swap, NULL);
    return 1;
}

void wf_yield_in_rt(wf_worker *w, int min_prio, int preempted)
{
    wf_thread *self = w->current;
    if (!preempted && yield_by_swap(w, self, min_prio))
        return;
    wf_thread *next = preempted ? pick_after_preemption(w, min_prio)
                                : wf_pick_next(w, min_prio);
    if (!next) {
        w->ticks_left = wf_slice_ticks_of(self->prio);
        return;
    }
    if (preempted)
        WF_STAT_INC(w->stats.preemptions);
    int by_priority = preempted && next->prio > self->prio;
    wf_switch(w, self, next, by_priority ? requeue_prev_at_head : wf_requeue_prev, NULL);
}

void weft_thread_yield(void)
{
    wf_worker *w = wf_worker_self();
    if (!w || !w->current) {
        sched_yield();
        return;
    }
    if (__atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED) == 0)
        return; /* nobody to yield to */
    wf_rt_enter_w(w);
    wf_yield_in_rt(w, w->current->prio, 0);
    wf_rt_leave_w(wf_worker_self());
}

/* ------------------------------------------------------------------ waits */

static long futex(uint32_t *addr, int op, uint32_t val)
{
    return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

void wf_futex_wait(uint32_t *addr, uint32_t val)
{
    futex(addr, FUTEX_WAIT_PRIVATE, val);
}

void wf_futex_wake(uint32_t *addr, int n)
{
    futex(addr, FUTEX_WAKE_PRIVATE, (uint32_t)n);
}

void wf_futex_wait_until(uint32_t *addr, uint32_t val, int64_t deadline_ns)
{
    if (deadline_ns < 0) {
        wf_futex_wait(addr, val);
        return;
    }
    struct timespec ts = { (time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000) };
    syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, val, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

void wf_wait_init(wf_wait *w)
{
    w->next = w->prev = NULL;
    w->ult = wf_self();
    w->reason = 0;
    w->data = NULL;
    __atomic_store_n(&w->claimed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->state, WF_WAIT_PENDING, __ATOMIC_RELEASE);
}

typedef struct park_req {
    wf_wait *wait;
    void (*release)(void *);
    void *arg;
} park_req;

static void park_post(wf_thread *prev, void *arg)
{
    park_req *r = arg;
    wf_wait *wt = r->wait;
    if (r->release)
        r->release(r->arg);
    uint32_t expected = WF_WAIT_PENDING;
    if (!__atomic_compare_exchange_n(&wt->state, &expected, WF_WAIT_PARKED, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        wf_make_runnable(prev, /* woken before we were parked; keep urgency */
                         __atomic_load_n(&wt->claimed, __ATOMIC_ACQUIRE) == 2);
}

static int block_external(wf_wait *wt, void (*release)(void *), void *arg)
{
    if (release)
        release(arg);
    uint32_t s;
    while ((s = __atomic_load_n(&wt->state, __ATOMIC_ACQUIRE)) != WF_WAIT_WOKEN)
        wf_futex_wait(&wt->state, s);
    return wt->reason;
}

int wf_wait_block(wf_wait *wt, void (*release)(void *), void *arg)
{
    if (!wt->ult)
        return block_external(wt, release, arg);
    if (__atomic_load_n(&wt->state, __ATOMIC_ACQUIRE) == WF_WAIT_WOKEN) {
        if (release)
            release(arg);
        return wt->reason;
    }
    park_req req = { wt, release, arg };
    wf_worker *w = wf_worker_self();
    wf_rt_enter_w(w);
    wf_switch(w, w->current, wf_pick_next(w, 0), park_post, &req);
    wf_rt_leave_w(wf_worker_self());
    return wt->reason;
}

static int wake(wf_wait *wt, int reason, int urgent)
{
    uint32_t unclaimed = 0; /* 2: urgent, for park_post when the wake beats the park */
    if (!__atomic_compare_exchange_n(&wt->claimed, &unclaimed, urgent ? 2u : 1u, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    wt->reason = reason;
    wf_thread *ult = wt->ult;
    uint32_t expected = WF_WAIT_PENDING;
    if (__atomic_compare_exchange_n(&wt->state, &expected, WF_WAIT_WOKEN, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (!ult)
            wf_futex_wake(&wt->state, 1);
        return 1;
    }
    /* PARKED: only we may move it on, and the thread is off every queue. */
    __atomic_store_n(&wt->state, WF_WAIT_WOKEN, __ATOMIC_RELEASE);
    wf_make_runnable(ult, urgent);
    return 1;
}

int wf_wait_wake(wf_wait *wt, int reason)
{
    return wake(wt, reason, 0);
}

int wf_wait_wake_urgent(wf_wait *wt, int reason)
{
    return wake(wt, reason, 1);
}
