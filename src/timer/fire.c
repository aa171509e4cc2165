/* When timers fire: the firing loop, the scheduler hooks (every switch,
 * idle workers), and the start and stop of the whole timer layer.
 *
 * Three detectors, so that precision never depends on the switch rate:
 *   1. at every context switch (ARIADNE's scan after each switch): one
 *      load of the cached earliest deadline, and a clock read (vDSO, ~20
 *      ns) only when a timer is pending;
 *   2. idle workers: idle_deadline bounds a worker's futex sleep by the
 *      earliest deadline (with 1 ns timer slack, set by that hook once per
 *      worker), and idle_poll fires what is due while the idle loop spins.
 *      A worker wakes a little early (twice the kernel's recent wake-up
 *      lateness, 5-100 us, learnt by the service thread) and spins the
 *      rest in the idle loop's polling: an idle process wakes a sleeper
 *      ~1-5 us late instead of the kernel's ~20 us (1 ns slack, these
 *      VMs), for a few tens of us of an otherwise idle CPU per timer;
 *   3. the timer service thread (service.c), for when every worker is busy
 *      computing: waking a thread uses wf_wait_wake_urgent, which preempts
 *      a compute thread at once.
 * Rejected: per-worker POSIX timers re-armed for the earliest deadline
 * (src/sched owns the workers' timers and signal, and re-arming costs a
 * timer_settime per worker per insert); timerfd (needs a thread or an
 * epoll loop to read it, i.e. a service thread anyway).
 * Cost: with no timer pending, three loads per switch and nothing else.
 * Both an idle worker and the service may wake for one deadline; the
 * first to take fire_lock fires, the other finds nothing due.
 *
 * Firing takes fire_lock (a trylock: a context that finds it taken moves
 * on, the holder fires everything due), pops due nodes in batches and
 * runs them in deadline order. FUNCTION events run right there, on "the
 * current stack": the thread resuming at a switch, an idle worker's idle
 * stack (64 KiB) or the service thread; on a worker, inside a runtime
 * critical section. A switch while one runs is a bug: the switch hook
 * checks a per-kernel-thread flag and aborts with a message. (On the
 * service thread, blocking in a Weft primitive blocks the kernel thread
 * and cannot be seen from here: src/sched would need a "may not block"
 * flag checked in wf_wait_block.)
 *
 * Idle accounting: a worker counts as idle from its first idle hook until
 * the next switch on its kernel thread; the service spins before a
 * deadline only when no worker is idle (service.c). The count restarts
 * (idle_gen) whenever the workers stop.
 *
 * Lifetime. The first arm starts everything (hooks, weft_fini hook,
 * service thread); weft_fini() stops it through the fini hook, refusing
 * (WEFT_EBUSY) while anything is queued or a host thread works. A later
 * arm starts it again. start_lock guards hooks_on and the starting and
 * stopping; `started` is read without it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "timer/timer_int.h"
#include "util/tuning.h"

#define BATCH 32

static __thread int in_function __attribute__((tls_model("initial-exec")));
/* idle_gen at the time this kernel thread was counted idle, or 0 */
static __thread int idle_here __attribute__((tls_model("initial-exec")));

static int fire_lock;
static int start_lock;
static int started;       /* atomic */
static int hooks_on;      /* under start_lock */
static int nidle_workers; /* atomic: workers in their idle loop */
static int idle_gen = 1;  /* atomic: bumped when the workers stop */

_Noreturn void wf_timer_fatal(const char *msg)
{
    fprintf(stderr, "weft: timer: %s\n", msg);
    abort();
}

int wf_timer_in_function(void)
{
    return in_function;
}

void wf_timer_set_in_function(int on)
{
    in_function = on;
}

/* ------------------------------------------------------------- firing */

static void fire_one(wf_tnode *n)
{
    if (n->type == WF_TN_TIMEOUT)
        wf_timeout_fire(n);
    else
        wf_event_fire(n);
}

int wf_timer_fire_due(int q)
{
    if (!wf_trylock(&fire_lock))
        return -1;
    wf_tnode *batch[BATCH];
    int total = 0, k;
    do {
        k = wf_tq_pop_due(&wf_tq[q], wf_tq_clock(q), batch, BATCH);
        for (int i = 0; i < k; i++)
            fire_one(batch[i]);
        total += k;
    } while (k == BATCH);
    wf_unlock(&fire_lock);
    return total;
}

int64_t wf_timer_busy_retry(void)
{
    return weft_now() + WF_TIMER_BUSY_RETRY_NS;
}

static int real_due(void)
{
    int64_t next = __atomic_load_n(&wf_tq[WEFT_QUEUE_REAL].next, __ATOMIC_RELAXED);
    return next != WF_NO_DEADLINE && next <= weft_now();
}

/* ---------------------------------------------------- idle accounting */

static void mark_idle(void)
{
    int gen = __atomic_load_n(&idle_gen, __ATOMIC_RELAXED);
    if (idle_here != gen) {
        idle_here = gen;
        __atomic_fetch_add(&nidle_workers, 1, __ATOMIC_RELAXED);
    }
}

static void unmark_idle(void)
{
    if (idle_here == __atomic_load_n(&idle_gen, __ATOMIC_RELAXED))
        __atomic_fetch_sub(&nidle_workers, 1, __ATOMIC_RELAXED);
    idle_here = 0;
}

int wf_timer_idle_workers(void)
{
    return __atomic_load_n(&nidle_workers, __ATOMIC_RELAXED);
}

/* -------------------------------------------------------------- hooks */

static void hook_at_switch(void)
{
    if (idle_here)
        unmark_idle();
    if (in_function)
        wf_timer_fatal("a WEFT_EVENT_FUNCTION event blocked or yielded (use "
                       "WEFT_EVENT_THREAD or WEFT_EVENT_OPTIMISTIC for code that may block)");
    if (real_due())
        wf_timer_fire_due(WEFT_QUEUE_REAL);
}

static int hook_idle_poll(void)
{
    mark_idle();
    return real_due() && wf_timer_fire_due(WEFT_QUEUE_REAL) > 0;
}

/* Twice the kernel's recent wake-up lateness, within bounds. */
static int64_t early_margin(void)
{
    int64_t e = 2 * wf_svc_lateness();
    if (e < WF_TIMER_EARLY_MIN_NS)
        return WF_TIMER_EARLY_MIN_NS;
    return e > WF_TIMER_EARLY_MAX_NS ? WF_TIMER_EARLY_MAX_NS : e;
}

static int64_t hook_idle_deadline(void)
{
    mark_idle();
    wf_timer_precise_slack();
    if (__atomic_load_n(&fire_lock, __ATOMIC_RELAXED))
        return wf_timer_busy_retry();
    int64_t next = __atomic_load_n(&wf_tq[WEFT_QUEUE_REAL].next, __ATOMIC_ACQUIRE);
    return next == WF_NO_DEADLINE ? WEFT_FOREVER : next - early_margin();
}

static const wf_sched_hooks hooks = {
    .at_switch = hook_at_switch,
    .idle_poll = hook_idle_poll,
    .idle_deadline = hook_idle_deadline,
};

/* ------------------------------------------------------ start and stop */

static int hook_at_fini(void);

static void add_hooks_locked(void)
{
    if (hooks_on || wf_sched_add_hooks(&hooks) != 0)
        return;
    if (wf_sched_add_fini_hook(hook_at_fini) == 0)
        hooks_on = 1;
    else
        wf_sched_remove_hooks(&hooks);
}

int wf_timer_ensure_started(void)
{
    if (__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        return 0;
    int err = 0;
    wf_lock(&start_lock);
    add_hooks_locked();
    if (!__atomic_load_n(&started, __ATOMIC_RELAXED)) {
        err = wf_svc_start();
        if (!err)
            __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    }
    wf_unlock(&start_lock);
    return err;
}

static void stop_locked(void)
{
    if (__atomic_load_n(&started, __ATOMIC_RELAXED))
        wf_svc_stop();
    __atomic_store_n(&started, 0, __ATOMIC_RELEASE);
    if (hooks_on) {
        wf_sched_remove_hooks(&hooks);
        wf_sched_remove_fini_hook(hook_at_fini);
    }
    hooks_on = 0;
    __atomic_fetch_add(&idle_gen, 1, __ATOMIC_RELAXED); /* the workers stop */
    __atomic_store_n(&nidle_workers, 0, __ATOMIC_RELAXED);
}

/* weft_fini(): stop everything if nothing is queued or running. */
static int hook_at_fini(void)
{
    wf_lock(&fire_lock); /* no firing in progress from here on */
    int busy = wf_tq_total() != 0;
    wf_unlock(&fire_lock);
    if (busy || wf_host_stop_all() != 0)
        return WEFT_EBUSY;
    wf_lock(&start_lock);
    stop_locked();
    wf_unlock(&start_lock);
    wf_tq_release_memory();
    return 0;
}
