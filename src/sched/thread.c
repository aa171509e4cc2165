/* The life cycle of a user-level thread: create, run, finish, join or
 * detach, and its attributes (name, priority, hooks).
 *
 * A new thread gets a pooled stack and a context whose first switch lands
 * in thread_entry(); it is queued on the creator's worker (or worker 0 for
 * an external creator), where idle workers may steal it.
 *
 * Finishing. The thread runs the layers' exit hook (key destructors) on its
 * own stack, then switches away for good with the post-switch action
 * reap(): only once its registers are no longer in use may its stack be
 * reused. reap() frees a detached thread; for a joinable one it marks the
 * thread FINISHED and wakes the joiner, who frees it. t->join_lock guards
 * flags/joiner between join, detach and reap.
 *
 * wf_g.nthreads counts threads that exist (running, blocked, or finished
 * but not joined), the main thread excluded; weft_fini() refuses to stop
 * while it is not zero.
 *
 * The registry. Nothing in the scheduler lists a blocked thread: it sits
 * only in whatever wait structure it blocked on. So that a debugger can
 * still find every thread (the gdb extension's `info weft-threads`), each
 * descriptor is on one list of wf_thread_registry from its malloc to its
 * free. The scheduler never reads the registry. Descriptors kept in a
 * worker's cache stay listed, marked `cached`, so that the common creation
 * (served from the cache) costs one relaxed store more and no lock; only
 * malloc and free take a shard lock. Shards, picked by the allocating
 * worker, keep workers that create at once off each other's lock. Cost
 * (callgrind, x86-64, one worker): a create+join served from the cache
 * runs 6 instructions more, of ~1460; one that mallocs, ~150 more (two
 * uncontended lock pairs), of ~1340.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"
#include "sched/san.h"

void weft_thread_attr_init(weft_thread_attr *attr)
{
    if (!attr)
        return;
    attr->stack_size = 0;
    attr->priority = WEFT_PRIO_DEFAULT;
    attr->name = NULL;
    attr->detached = 0;
}

/* Unnamed threads get "ult-<id>" when the name is first asked for: a
 * snprintf per creation would cost more than the rest of create+join. */
static void set_name(wf_thread *t, const char *name)
{
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    else
        t->name[0] = '\0';
}

void wf_thread_fill_name(wf_thread *t)
{
    char digits[24];
    int n = 0;
    uint64_t id = t->id;
    do {
        digits[n++] = (char)('0' + id % 10);
        id /= 10;
    } while (id);
    char *p = t->name;
    memcpy(p, "ult-", 4);
    p += 4;
    while (n)
        *p++ = digits[--n];
    *p = '\0';
}

/* ------------------------------------------------------ thread registry */

#define REG_SHARDS 8

/* Non-static and named for the debugger, which walks the heads. */
struct wf_thread_shard {
    int lock;
    wf_thread *head;
} __attribute__((aligned(64))) wf_thread_registry[REG_SHARDS];

static void reg_add(wf_thread *t)
{
    wf_worker *w = wf_worker_self();
    struct wf_thread_shard *s = &wf_thread_registry[w ? w->index % REG_SHARDS : 0];
    t->reg.shard = (int)(s - wf_thread_registry);
    wf_lock(&s->lock);
    t->reg.prev = NULL;
    t->reg.next = s->head;
    if (s->head)
        s->head->reg.prev = t;
    s->head = t;
    wf_unlock(&s->lock);
}

static void reg_remove(wf_thread *t)
{
    struct wf_thread_shard *s = &wf_thread_registry[t->reg.shard];
    wf_lock(&s->lock);
    if (t->reg.prev)
        t->reg.prev->reg.next = t->reg.next;
    else
        s->head = t->reg.next;
    if (t->reg.next)
        t->reg.next->reg.prev = t->reg.prev;
    wf_unlock(&s->lock);
}

int wf_thread_registry_count(void)
{
    int n = 0;
    for (int i = 0; i < REG_SHARDS; i++) {
        struct wf_thread_shard *s = &wf_thread_registry[i];
        wf_lock(&s->lock);
        for (wf_thread *t = s->head; t; t = t->reg.next)
            n += !__atomic_load_n(&t->reg.cached, __ATOMIC_RELAXED);
        wf_unlock(&s->lock);
    }
    return n;
}

/* The listed descriptors belonged to threads that are gone in the child,
 * and a shard lock may have been held by one of them. */
void wf_thread_registry_forget(void)
{
    memset(wf_thread_registry, 0, sizeof wf_thread_registry);
}

/* ----------------------------------------------- descriptor cache
 * A finished thread's descriptor and default-size stack are kept on the
 * worker that freed it (up to TCACHE_MAX), and the next creation on that
 * worker takes them back: no malloc, no stack-pool lock. calloc alone
 * costs ~300 instructions here (glibc's calloc skips its thread cache).
 * The cache is touched only by its worker, inside a critical section. */
#define TCACHE_MAX 16

static wf_thread *cache_take(void)
{
    wf_worker *w = wf_worker_self();
    if (!w || !w->tcache)
        return NULL;
    wf_rt_enter_w(w);
    wf_thread *t = w->tcache;
    if (t) {
        w->tcache = t->rq_next;
        w->tcache_len--;
    }
    wf_rt_leave_w(w);
    return t;
}

static int cache_put(wf_thread *t)
{
    wf_worker *w = wf_worker_self();
    if (!w || !t->stack.map || t->stack.size != wf_stack_default_size())
        return 0;
    wf_rt_enter_w(w);
    int kept = w->tcache_len < TCACHE_MAX;
    if (kept) {
        __atomic_store_n(&t->reg.cached, 1, __ATOMIC_RELAXED);
        wf_stack_forget_frames(&t->stack);
        t->rq_next = w->tcache;
        w->tcache = t;
        w->tcache_len++;
    }
    wf_rt_leave_w(w);
    return kept;
}

void wf_thread_cache_drain(wf_worker *w)
{
    while (w->tcache) {
        wf_thread *t = w->tcache;
        w->tcache = t->rq_next;
        reg_remove(t);
        wf_stack_free(&t->stack);
        free(t);
    }
    w->tcache_len = 0;
}

/* A registered descriptor with a stack of `stack_size` usable bytes, all
 * else zero. The registry link is never cleared by a plain store: a
 * debugger or wf_thread_registry_count may be walking it. */
static wf_thread *thread_alloc(size_t stack_size)
{
    wf_thread *t = stack_size == wf_stack_default_size() ? cache_take() : NULL;
    if (t) {
        wf_stack stack = t->stack;
        memset(t, 0, offsetof(wf_thread, reg));
        t->stack = stack;
        __atomic_store_n(&t->reg.cached, 0, __ATOMIC_RELAXED);
        return t;
    }
    t = malloc(sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    if (stack_size && wf_stack_alloc(&t->stack, stack_size) != 0) {
        free(t);
        return NULL;
    }
    reg_add(t);
    return t;
}

static void thread_init(wf_thread *t, uint64_t id, const char *name, int prio)
{
    t->id = id;
    t->prio = t->queue_prio = prio;
    t->bound_worker = -1;
    t->runs_long = 0; /* switches soon until a tick says otherwise (preempt.c) */
    set_name(t, name);
}

wf_thread *wf_thread_new_main(void)
{
    wf_thread *t = thread_alloc(0);
    if (!t)
        return NULL;
    thread_init(t, 1, NULL, WEFT_PRIO_DEFAULT); /* the main thread is always 1; others count from 2 */
    set_name(t, "main");
    t->flags = WF_T_MAIN;
    t->san_fiber = wf_san_fiber_current(); /* runs on the caller's stack */
    return t;
}

void wf_thread_free(wf_thread *t)
{
    if (cache_put(t))
        return;
    reg_remove(t);
    if (t->stack.map)
        wf_stack_free(&t->stack);
    free(t);
}

/* ------------------------------------------------------- run and finish */

static void reap(wf_thread *prev, void *arg)
{
    (void)arg;
    wf_san_fiber_destroy(prev->san_fiber);
    prev->san_fiber = NULL;
    wf_lock(&prev->join_lock);
    prev->flags |= WF_T_FINISHED;
    wf_wait *joiner = prev->joiner;
    int detached = prev->flags & WF_T_DETACHED;
    wf_unlock(&prev->join_lock);
    if (detached) {
        wf_thread_free(prev);
        __atomic_fetch_sub(&wf_g.nthreads, 1, __ATOMIC_SEQ_CST);
    } else if (joiner) {
        wf_wait_wake(joiner, 0);
    }
}

static _Noreturn void thread_finish(void *retval)
{
    wf_thread *self = wf_self();
    self->retval = retval;
    if (wf_g.exit_hook)
        wf_g.exit_hook(self);
    wf_rt_enter();
    self->exiting = 1; /* not in flags: a detach may be setting one now */
    wf_worker *w = wf_worker_self();
    wf_switch(w, self, wf_pick_next(w, 0), reap, NULL);
    wf_fatal("sched: finished thread %s resumed", self->name);
}

static void thread_entry(void *arg)
{
    wf_thread *self = arg;
    wf_san_switch_finish(NULL);
    wf_run_post_switch(wf_worker_self());
    wf_rt_leave(); /* the level the switcher held (switch.c) */
    thread_finish(self->fn(self->arg));
}

void weft_thread_exit(void *retval)
{
    wf_thread *self = wf_self();
    if (!self)
        wf_fatal("weft_thread_exit: called from a thread that is not a Weft thread");
    if (self->flags & WF_T_MAIN)
        wf_fatal("weft_thread_exit: called from the main thread; return from main instead");
    thread_finish(retval);
}

/* ---------------------------------------------------------------- create */

static int check_attr(const weft_thread_attr *a, weft_thread_t *out, void *(*fn)(void *))
{
    if (!fn || a->priority < WEFT_PRIO_MIN || a->priority > WEFT_PRIO_MAX)
        return WEFT_EINVAL;
    if (!out && !a->detached)
        return WEFT_EINVAL;
    return 0;
}

static wf_worker *creation_worker(void)
{
    wf_worker *w = wf_worker_self();
    return w ? w : wf_g.workers[0];
}

int weft_thread_create(weft_thread_t *out, const weft_thread_attr *attr,
                       void *(*fn)(void *), void *arg)
{
    weft_thread_attr defaults;
    weft_thread_attr_init(&defaults);
    const weft_thread_attr *a = attr ? attr : &defaults;
    if (out)
        *out = WEFT_THREAD_NULL;
    int err = check_attr(a, out, fn);
    if (err)
        return err;
    if (!wf_g.initialized && (err = weft_init()) != 0)
        return err;
    size_t size = a->stack_size ? a->stack_size : wf_stack_default_size();
    wf_thread *t = thread_alloc(size);
    if (!t)
        return WEFT_ENOMEM;
    thread_init(t, __atomic_fetch_add(&wf_g.next_id, 1, __ATOMIC_RELAXED), a->name,
                a->priority);
    t->fn = fn;
    t->arg = arg;
    t->flags = a->detached ? WF_T_DETACHED : 0;
    t->san_fiber = wf_san_fiber_create();
    wf_ctx_make(&t->ctx, t->stack.lo, t->stack.size, thread_entry, t);
    __atomic_fetch_add(&wf_g.nthreads, 1, __ATOMIC_SEQ_CST);
    if (out)
        *out = t;
    t->last_worker = creation_worker()->index;
    wf_make_runnable(t, 0);
    return 0;
}

/* ------------------------------------------------------ join and detach */

static void unlock_join(void *arg)
{
    wf_unlock(arg);
}

int weft_thread_join(weft_thread_t t, void **retval)
{
    if (!t)
        return WEFT_EINVAL;
    if (t == wf_self())
        return WEFT_EDEADLK;
    wf_wait wait;
    wf_wait_init(&wait);
    wf_lock(&t->join_lock);
    int err = (t->flags & (WF_T_DETACHED | WF_T_MAIN)) ? WEFT_EINVAL
              : t->joiner                             ? WEFT_ESRCH
                                                      : 0;
    if (err) {
        wf_unlock(&t->join_lock);
        return err;
    }
    t->joiner = &wait;
    if (t->flags & WF_T_FINISHED)
        wf_unlock(&t->join_lock);
    else
        wf_wait_block(&wait, unlock_join, &t->join_lock);
    if (retval)
        *retval = t->retval;
    wf_thread_free(t);
    __atomic_fetch_sub(&wf_g.nthreads, 1, __ATOMIC_SEQ_CST);
    return 0;
}

int weft_thread_detach(weft_thread_t t)
{
    if (!t)
        return WEFT_EINVAL;
    wf_lock(&t->join_lock);
    int err = (t->flags & (WF_T_DETACHED | WF_T_MAIN)) ? WEFT_EINVAL
              : t->joiner                             ? WEFT_ESRCH
                                                      : 0;
    int finished = t->flags & WF_T_FINISHED;
    if (!err)
        t->flags |= WF_T_DETACHED;
    wf_unlock(&t->join_lock);
    if (!err && finished) {
        wf_thread_free(t);
        __atomic_fetch_sub(&wf_g.nthreads, 1, __ATOMIC_SEQ_CST);
    }
    return err;
}

/* ------------------------------------------------------------ attributes */

weft_thread_t weft_thread_self(void)
{
    return wf_self();
}

uint64_t weft_thread_id(weft_thread_t t)
{
    return t ? t->id : 0;
}

const char *weft_thread_name(weft_thread_t t)
{
    if (!t)
        return NULL;
    if (!t->name[0])
        wf_thread_fill_name(t);
    return t->name;
}

int weft_thread_set_name(weft_thread_t t, const char *name)
{
    if (!t || !name)
        return WEFT_EINVAL;
    set_name(t, name);
    return 0;
}

int weft_thread_set_priority(weft_thread_t t, int prio)
{
    if (!t || prio < WEFT_PRIO_MIN || prio > WEFT_PRIO_MAX)
        return WEFT_EINVAL;
    int lowered = prio < t->prio;
    t->prio = prio;
    wf_worker *w = wf_worker_self();
    if (w && t == w->current)
        __atomic_store_n(&w->running_prio, prio, __ATOMIC_RELAXED);
    if (t == wf_self() && lowered)
        weft_thread_yield();
    return 0;
}

int weft_thread_get_priority(weft_thread_t t)
{
    return t ? t->prio : WEFT_EINVAL;
}

int weft_thread_set_pre_hook(weft_thread_t t, weft_hook_fn fn, void *arg)
{
    if (!t)
        return WEFT_EINVAL;
    __atomic_store_n(&t->pre_hook, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&t->pre_arg, arg, __ATOMIC_RELEASE);
    __atomic_store_n(&t->pre_hook, fn, __ATOMIC_RELEASE);
    return 0;
}

int weft_thread_set_post_hook(weft_thread_t t, weft_hook_fn fn, void *arg)
{
    if (!t)
        return WEFT_EINVAL;
    __atomic_store_n(&t->post_hook, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&t->post_arg, arg, __ATOMIC_RELEASE);
    __atomic_store_n(&t->post_hook, fn, __ATOMIC_RELEASE);
    return 0;
}

void **wf_thread_keys_slot(wf_thread *t)
{
    return &t->keys;
}

void wf_sched_set_exit_hook(void (*fn)(wf_thread *t))
{
    wf_g.exit_hook = fn;
}
