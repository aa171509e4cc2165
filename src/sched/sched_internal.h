/* Private to src/sched/: the thread and worker records, the scheduler's
 * global state, and the functions the files of this folder share.
 *
 * Locking and ownership:
 *   - w->rq_lock guards worker w's run queues (any worker may push or steal).
 *   - t->join_lock guards t's join/detach/finish state.
 *   - w->current, w->post_*, w->ticks_left and the stats are touched only by
 *     the kernel thread of w (including its signal handlers).
 *   - w->in_rt is the "inside the runtime" flag (a nesting depth) that the
 *     preemption handler reads; see switch.c for the token rule.
 * All locks (lock.c) are taken inside a runtime critical section.
 */
#ifndef WF_SCHED_INTERNAL_H
#define WF_SCHED_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "arch/ctx.h"
#include "sched/sched.h"
#include "sched/stack.h"
#include "util/cpu.h"

#define WF_NAME_MAX 32

enum {
    WF_T_DETACHED = 1u << 0, /* freed at finish */
    WF_T_MAIN     = 1u << 1, /* the thread that called weft_init() */
    WF_T_FINISHED = 1u << 2, /* its context is gone; join may collect */
};

/* A descriptor's place in the thread registry (thread.c). It survives the
 * reuse of a cached descriptor, so it stays the last field of the thread. */
typedef struct wf_thread_link {
    struct weft_thread *next, *prev; /* guarded by the shard's lock */
    int shard;
    int cached;               /* atomic: a free descriptor kept for reuse */
} wf_thread_link;

struct weft_thread {
    wf_ctx ctx;               /* saved registers while not running */
    void *san_fiber;          /* its ThreadSanitizer fiber (san.h); else NULL */
    wf_stack stack;           /* map == NULL for the main thread */
    struct weft_thread *rq_next; /* run queue link */
    uint64_t id;
    int prio;                 /* WEFT_PRIO_* */
    int queue_prio;           /* level it was queued at (raised by urgent wakes) */
    int bound_worker;         /* -1: may run anywhere */
    int switching;            /* atomic: queued by a swap-yield, registers
                                 not saved yet (switch.c) */
    int last_worker;
    uint64_t enter_tick;      /* its worker's ticks_seen when it last started */
    int runs_long;            /* its last run saw a tick (switch.c); 0 for a
                                 new thread (one that computes from its
                                 start is caught by its ticks, preempt.c) */
    uint32_t flags;           /* WF_T_*; guarded by join_lock after start */
    int exiting;              /* switching away for the last time; touched
                                 by the thread itself only (flags are not:
                                 a detach from elsewhere may set one) */
    void *(*fn)(void *);
    void *arg;
    void *retval;
    int join_lock;
    wf_wait *joiner;          /* the thread waiting in join, if any */
    weft_hook_fn pre_hook, post_hook;
    void *pre_arg, *post_arg;
    void *keys;               /* owned by the sync layer */
    char name[WF_NAME_MAX];
    wf_thread_link reg;       /* last: thread_alloc clears what precedes it */
};

/* What the next context does for the previous one once its registers are
 * saved (yield: requeue it; block: publish the wait; finish: reap it). */
typedef void (*wf_post_fn)(wf_thread *prev, void *arg);

typedef struct wf_runq {
    wf_thread *head[WEFT_NUM_PRIOS];
    wf_thread *tail[WEFT_NUM_PRIOS];
    unsigned mask;            /* bit p set: level p non-empty */
    int len;
} wf_runq;

typedef struct wf_worker {
    int index;
    pid_t tid;
    pthread_t pthread;
    wf_thread *current;       /* NULL while the idle loop runs; atomic */
    int running_prio;         /* atomic: current's level, -1 idle; what
                                 other workers read instead of current,
                                 which may finish and be freed meanwhile */
    wf_ctx idle_ctx;          /* the idle loop's context */
    void *idle_fiber;         /* ThreadSanitizer fibers (san.h); else NULL */
    void *boot_fiber;
    wf_stack idle_stack;
    wf_ctx boot_ctx;          /* the kernel thread's own stack */
    void *boot_lo;            /* its bounds (for the sanitizers) */
    size_t boot_size;
    /* post-switch action, set before a switch, run right after it */
    wf_post_fn post_fn;
    wf_thread *post_prev;
    void *post_arg;
    volatile int in_rt;       /* critical-section depth; read by handlers */
    volatile int preempt_pending; /* a tick found us in a critical section */
    int preempt_now;          /* atomic: a higher-priority thread asks for
                                 the CPU (a kick signal is in flight) */
    volatile int in_handler;  /* tick handlers running on this kernel thread */
    int ticks_left;           /* ticks before the current slice ends */
    int steal_first;          /* alternates at each preemption (switch.c) */
    volatile uint64_t ticks_seen; /* handler runs on this kernel thread (eintr.c) */
    int rq_lock;
    wf_runq rq;
    uint32_t sleep_word;      /* 0 awake, 1 on its futex, 2 in the poller */
    uint32_t started;         /* atomic: its kernel thread is ready (worker.c) */
    int timer_lock;
    int timer_armed;
    timer_t timer;
    void *altstack;
    stack_t old_altstack;     /* restored when the worker stops */
    weft_sched_stats stats;
    wf_thread *tcache;        /* finished threads kept with their stacks */
    int tcache_len;           /* (owner only, inside a critical section) */
} wf_worker;

typedef struct wf_sched {
    int nworkers;
    wf_worker **workers;
    int initialized;
    pthread_t init_pthread;
    wf_thread *main_thread;
    void *main_stack_lo;      /* the main thread's stack bounds */
    size_t main_stack_size;
    int shutdown;             /* atomic */
    int nready;               /* atomic: queued runnable threads */
    int nready_bound;         /* atomic: those of them bound to a worker */
    int nsleeping;            /* atomic: workers asleep (or about to be) */
    int nthreads;             /* atomic: ULTs alive or unjoined, main excluded */
    int server_waits;         /* atomic: server threads waiting (preempt.c) */
    uint64_t next_id;         /* atomic */
    int64_t quantum_ns;       /* default slice; 0: preemption off */
    int64_t tick_ns;          /* timer period */
    int64_t prio_quantum[WEFT_NUM_PRIOS]; /* 0: the default quantum */
    int prio_sliced[WEFT_NUM_PRIOS];
    int slice_ticks[WEFT_NUM_PRIOS];      /* derived: ticks per slice, 0 none */
    int bind_workers;
    void (*exit_hook)(wf_thread *t);
} wf_sched;

extern wf_sched wf_g;

/* Per-worker counters: written by their worker only, read by
 * weft_sched_get_stats from anywhere, so relaxed atomics (plain moves). */
#define WF_STAT_INC(field) \
    __atomic_store_n(&(field), __atomic_load_n(&(field), __ATOMIC_RELAXED) + 1, \
                     __ATOMIC_RELAXED)

/* The tick period and the ticks per slice of each level change when the
 * program sets a quantum (preempt.c), while workers and handlers read
 * them: relaxed atomics, each value valid on its own. */
static inline int64_t wf_tick_ns(void)
{
    return __atomic_load_n(&wf_g.tick_ns, __ATOMIC_RELAXED);
}

static inline int wf_slice_ticks_of(int prio)
{
    return __atomic_load_n(&wf_g.slice_ticks[prio], __ATOMIC_RELAXED);
}

static inline void wf_set_running(wf_worker *w, wf_thread *t)
{
    __atomic_store_n(&w->current, t, __ATOMIC_RELAXED);
    __atomic_store_n(&w->running_prio, t ? t->prio : -1, __ATOMIC_RELAXED);
}

/* Threads outside the runtime (the I/O server's, the timer service's)
 * that touch the workers hold them, so that weft_fini does not free them
 * meanwhile (worker.c). hold returns 0 if the workers are gone. */
int wf_workers_hold(void);
void wf_workers_release(void);

/* The worker running the caller, NULL on an external thread. Never cached
 * by the compiler across calls (a ULT may resume on another worker). */
wf_worker *wf_worker_self(void);
void wf_worker_set_self(wf_worker *w);
/* Bounds of the calling kernel thread's own stack. */
void wf_kernel_stack_bounds(void **lo, size_t *size);

/* Critical sections for code that already holds the worker pointer and
 * knows no switch happened since it read it (while in_rt > 0 a thread
 * cannot be moved, so `w` stays right until the next voluntary switch). */
void wf_take_deferred_preemption(wf_worker *w);

static inline void wf_rt_enter_w(wf_worker *w)
{
    w->in_rt++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void wf_rt_leave_w(wf_worker *w)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (--w->in_rt == 0 && w->preempt_pending)
        wf_take_deferred_preemption(w);
}


/* wf_lock without entering a critical section, for code already inside
 * one (the run queues; lock.c). Inline: a yield takes a run-queue lock. */
enum { WF_LOCK_FREE = 0, WF_LOCK_HELD = 1, WF_LOCK_SLEEPERS = 2 };
void wf_lock_contended(int *l);
void wf_lock_wake(int *l);

static inline void wf_lock_acquire(int *l)
{
    int free = WF_LOCK_FREE;
    if (!__atomic_compare_exchange_n(l, &free, WF_LOCK_HELD, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        wf_lock_contended(l);
}

/* Only a holder lowers the word, so a 2 read here stays 2 until the store.
 * A waiter that marks it 2 between the read and the store is not woken:
 * it naps (lock.c), so the miss costs it at most WF_LOCK_NAP_NS. */
static inline void wf_lock_release(int *l)
{
    int sleepers = __atomic_load_n(l, __ATOMIC_RELAXED) == WF_LOCK_SLEEPERS;
    __atomic_store_n(l, WF_LOCK_FREE, __ATOMIC_RELEASE);
    if (sleepers)
        wf_lock_wake(l);
}

/* runq.c: callers are inside a critical section (or external threads). */
void wf_runq_push(wf_worker *w, wf_thread *t, int at_head);
wf_thread *wf_runq_pop(wf_worker *w, int min_prio);
wf_thread *wf_runq_steal(wf_worker *thief, int min_prio);
/* Take the best local thread of level >= min_prio and queue `self` in the
 * same lock hold; NULL (and nothing queued) if there is none. */
wf_thread *wf_runq_swap(wf_worker *w, wf_thread *self, int min_prio);
int wf_runq_best_prio(wf_worker *w); /* -1 if empty; racy snapshot */

/* switch.c */
void wf_switch(wf_worker *w, wf_thread *prev, wf_thread *next,
               wf_post_fn post, void *arg);
void wf_run_post_switch(wf_worker *w);
wf_thread *wf_pick_next(wf_worker *w, int min_prio);
void wf_make_runnable(wf_thread *t, int urgent);
void wf_make_runnable_at(wf_thread *t, int urgent, int at_head);
void wf_requeue_prev(wf_thread *prev, void *arg);
void wf_yield_in_rt(wf_worker *w, int min_prio, int preempted);
void wf_futex_wait(uint32_t *addr, uint32_t val);

/* hooks.c */
void wf_hooks_at_switch(void);
void wf_hooks_at_tick(void); /* async-signal-safe hooks only */
int wf_hooks_idle_poll(void);
int64_t wf_hooks_idle_deadline(void);
int wf_hooks_at_fini(void);

/* worker.c */
int wf_workers_start(int nworkers);
void wf_workers_stop(void);
void wf_worker_notify(wf_worker *target, int stealable);
void wf_idle_loop(void *arg);

/* topo.c */
int wf_topology_init(void);
int wf_topology_default_workers(void);
void wf_topology_bind(int worker_index);
void wf_topology_unbind_caller(void);
void wf_topology_fini(void);
void wf_topology_forget(void);

/* preempt.c */
int wf_preempt_install(void);
void wf_preempt_uninstall(void);
int wf_timer_create(wf_worker *w);
void wf_timer_arm(wf_worker *w);
void wf_timer_disarm(wf_worker *w);
void wf_timer_delete(wf_worker *w);
void wf_preempt_rearm_all(void);
int wf_slice_ticks(int prio);
void wf_preempt_kick_for(wf_worker *target, int prio);

/* topo.c: the helper threads' CPU set (see wf_sched_helper_init) */
void wf_sched_helper_affinity(void);

/* kernel.c: the calling kernel thread's kernel slice, a worker's (1)
 * or a server thread's (0). */
void wf_kernel_slice_apply(int worker);

/* safepc.c */
int wf_safepc_init(void);
int wf_safepc_allows(const void *pc);

/* overflow.c */
int wf_overflow_install(void);
void wf_overflow_uninstall(void);
int wf_altstack_setup(wf_worker *w);
void wf_altstack_teardown(wf_worker *w);

/* thread.c */
wf_thread *wf_thread_new_main(void);
void wf_thread_free(wf_thread *t);
void wf_thread_cache_drain(wf_worker *w);
/* Give an unnamed thread its default name "ult-<id>". Signal-safe. */
void wf_thread_fill_name(wf_thread *t);
/* The thread registry: every descriptor, for debuggers (the gdb extension
 * walks wf_thread_registry) and tests. count: the threads that exist
 * (running, ready, blocked, or finished and not joined), main included. */
int wf_thread_registry_count(void);
void wf_thread_registry_forget(void); /* in a child of fork() */

/* init.c */
void wf_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
int wf_env_long(const char *name, long min, long max, long *out);

#endif /* WF_SCHED_INTERNAL_H */
