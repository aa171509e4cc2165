/* Workers: the kernel threads that run user-level threads, and their idle
 * policy - what a worker does when it has nothing to run.
 *
 * Worker 0 is the kernel thread that called weft_init(); the others are
 * pthreads started here. Each worker has an idle context on a small stack
 * of its own, where it goes when no thread is runnable, and runs
 * find_runnable() there. That one function is the whole idle policy, in
 * the order of Go's findRunnable (and of libuv's uv_run and Redis's
 * aeProcessEvents, whose phases also fit in one function):
 *   1. run ready work: the local queue, then steal (runq.c);
 *   2. poll: the upper layers' idle polls (timers, signals,
 *      continuations) and the I/O server's poll(0), which checks for
 *      events and makes their waiters runnable;
 *   3. spin: repeat 1-2 within the spin budget. One worker spins at a
 *      time: a second would only take a CPU from whoever is about to
 *      produce the event. Where the program said its CPUs are shared
 *      (weft_set_cpus_shared: MPI ranks that outnumber the cores), the
 *      spin yields between polls, so that a neighbour that is about to
 *      send the awaited message runs at once;
 *   4. sleep in one kernel wait, until the earliest timer: in the I/O
 *      server's poll(deadline) - one epoll set that holds every event
 *      class's fd, so the event itself wakes the worker that will run its
 *      waiter - if the server has waiters and no other thread sleeps
 *      there; else on the worker's futex.
 * The spin budget adapts by CLAM's SANR rule (util/sanr.h) to how long
 * idle episodes last, between WF_SPIN_MIN_NS (a spin shorter than a
 * kernel wake-up saves nothing) and WF_SPIN_MAX_NS: after an episode of
 * length D, "too few" (grow) if the budget S < D <= max, a longer spin
 * would have caught it; "too many" (shrink) if D <= S/2 or D > max. A
 * ping-pong settles near twice its typical wait; an idle program pays
 * one budget per episode. WEFT_DISABLE=spin makes every worker sleep at
 * once (the A/B switch).
 * The idle loop always holds one critical-section level (see switch.c).
 *
 * Sleep and wake without lost wake-ups (a Dekker pair, both seq_cst):
 *   sleeper: nsleeping++, sleep_word = IN_POLL; then re-check nready;
 *            sleep while sleep_word says so
 *   waker:   nready++ (runq push); then if nsleeping > 0, find a worker
 *            with sleep_word != AWAKE, exchange it to AWAKE and wake it:
 *            a futex wake (IN_FUTEX) or the I/O server's interrupt
 *            (IN_POLL).
 * At least one of the two sees the other's store. A sleeper whose poll
 * declines (nothing to wait for, or another thread sleeps in the set)
 * moves IN_POLL to IN_FUTEX by CAS; a failed CAS means it was woken.
 * The nsleeping counter makes the common case (nobody asleep) one load. A
 * thread queued on a busy worker also wakes one sleeping worker, so that
 * it can be stolen.
 *
 * Shutdown: weft_fini() sets wf_g.shutdown and wakes everyone; a worker
 * with nothing to run then returns to its kernel stack (boot_ctx) and its
 * pthread exits.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "sched/sched_internal.h"
#include "sched/san.h"
#include "util/cpu.h"
#include "util/sanr.h"
#include "util/tuning.h"

#define IDLE_STACK_SIZE (64 * 1024)

enum { AWAKE = 0, IN_FUTEX = 1, IN_POLL = 2 };

static const wf_sched_poller *poller; /* atomic: the I/O server's entry */
static int spinner = -1;              /* atomic: the worker that spins, or -1 */
static int cpus_shared;               /* atomic: weft_set_cpus_shared */
static int workers_open;              /* atomic: wf_workers_hold succeeds */
static int walkers;                   /* atomic: holds in progress */
static struct {
    int64_t ns;    /* atomic: the spin budget */
    wf_sanr rule;
} spin = { WF_SPIN_MIN_NS, { 0, 0 } };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int shutting_down(void)
{
    return __atomic_load_n(&wf_g.shutdown, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------- the I/O server's entry */

void wf_sched_set_poller(const wf_sched_poller *p)
{
    __atomic_store_n(&poller, p, __ATOMIC_RELEASE);
}

static const wf_sched_poller *get_poller(void)
{
    return __atomic_load_n(&poller, __ATOMIC_ACQUIRE);
}

int wf_sched_spinning(void)
{
    return __atomic_load_n(&spinner, __ATOMIC_SEQ_CST) >= 0;
}

int wf_sched_idle_workers(void)
{
    return __atomic_load_n(&wf_g.nsleeping, __ATOMIC_SEQ_CST);
}

int wf_sched_idle_woken(void)
{
    wf_worker *w = wf_worker_self();
    return w && __atomic_load_n(&w->sleep_word, __ATOMIC_SEQ_CST) != IN_POLL;
}

void weft_set_cpus_shared(int shared)
{
    __atomic_store_n(&cpus_shared, shared != 0, __ATOMIC_RELAXED);
}

int wf_sched_cpus_shared(void)
{
    return __atomic_load_n(&cpus_shared, __ATOMIC_RELAXED);
}

int weft_cpus_shared(void)
{
    return wf_sched_cpus_shared();
}

/* ------------------------------------------------------- waking workers */

/* A worker that makes a thread runnable on itself from inside its own
 * poll (it detected the thread's event) is not asleep: no interrupt. */
static int wake_if_sleeping(wf_worker *w)
{
    if (!__atomic_load_n(&w->sleep_word, __ATOMIC_SEQ_CST))
        return 0;
    uint32_t old = __atomic_exchange_n(&w->sleep_word, AWAKE, __ATOMIC_SEQ_CST);
    const wf_sched_poller *p = get_poller();
    if (old == IN_FUTEX)
        wf_futex_wake(&w->sleep_word, 1);
    else if (old == IN_POLL && p && w != wf_worker_self())
        p->interrupt();
    return old != AWAKE;
}

void wf_worker_notify(wf_worker *target, int stealable)
{
    if (__atomic_load_n(&wf_g.nsleeping, __ATOMIC_SEQ_CST) == 0)
        return;
    if (wake_if_sleeping(target) || !stealable)
        return;
    for (int i = 1; i < wf_g.nworkers; i++)
        if (wake_if_sleeping(wf_g.workers[(target->index + i) % wf_g.nworkers]))
            return;
}

int wf_workers_hold(void)
{
    __atomic_fetch_add(&walkers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&workers_open, __ATOMIC_SEQ_CST))
        return 1;
    __atomic_fetch_sub(&walkers, 1, __ATOMIC_SEQ_CST);
    return 0;
}

void wf_workers_release(void)
{
    __atomic_fetch_sub(&walkers, 1, __ATOMIC_RELEASE);
}

/* Called by weft_fini before the workers go: waits out the walks. */
static void close_workers(void)
{
    __atomic_store_n(&workers_open, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&walkers, __ATOMIC_ACQUIRE))
        sched_yield();
}

int wf_sched_wake_idle(void)
{
    if (!wf_workers_hold())
        return 0;
    int woke = 0;
    for (int i = 0; i < wf_g.nworkers && !woke; i++)
        woke = wake_if_sleeping(wf_g.workers[i]);
    wf_workers_release();
    return woke;
}

/* ----------------------------------------------------- the idle policy */

static int work_visible(wf_worker *w)
{
    int ready = __atomic_load_n(&wf_g.nready, __ATOMIC_SEQ_CST);
    return ready > 0 &&
           (__atomic_load_n(&w->rq.len, __ATOMIC_SEQ_CST) > 0 ||
            ready > __atomic_load_n(&wf_g.nready_bound, __ATOMIC_SEQ_CST));
}

static wf_thread *take_work(wf_worker *w)
{
    return work_visible(w) ? wf_pick_next(w, 0) : NULL;
}

/* The upper layers' idle polls and the I/O server's poll(0); > 0 if they
 * made a thread runnable. */
static int poll_round(void)
{
    const wf_sched_poller *p = get_poller();
    int found = wf_hooks_idle_poll();
    return found + (p && p->poll(0) > 0);
}

static int claim_spin(wf_worker *w)
{
    int none = -1;
    return wf_tuning_on(WF_H_SPIN) &&
           __atomic_compare_exchange_n(&spinner, &none, w->index, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

static void release_spin(wf_worker *w)
{
    int me = w->index;
    __atomic_compare_exchange_n(&spinner, &me, -1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void spin_pause(void)
{
    if (wf_sched_cpus_shared() && wf_tuning_on(WF_H_SHARED_YIELD))
        sched_yield();
    else
        wf_cpu_relax();
}

/* CLAM's SANR rule on the length of an idle episode that ended in work. */
static void spin_learn(int64_t idle_ns)
{
    int64_t s = __atomic_load_n(&spin.ns, __ATOMIC_RELAXED);
    int few = idle_ns > s && idle_ns <= WF_SPIN_MAX_NS;
    int many = idle_ns <= s / 2 || idle_ns > WF_SPIN_MAX_NS;
    s = wf_sanr_step(&spin.rule, s, few, many, WF_SPIN_MIN_NS, WF_SPIN_MAX_NS);
    __atomic_store_n(&spin.ns, s, __ATOMIC_RELAXED);
}

int64_t wf_sched_spin_budget(void)
{
    return __atomic_load_n(&spin.ns, __ATOMIC_RELAXED);
}

/* Steps 1 and 2: WF_SPIN_ROUNDS times while spinning, else once. */
static wf_thread *poll_for_work(wf_worker *w, int spinning)
{
    for (int i = 0; i < (spinning ? WF_SPIN_ROUNDS : 1); i++) {
        wf_thread *t = take_work(w);
        if (t || (poll_round() > 0 && (t = take_work(w))))
            return t;
        if (shutting_down())
            return NULL;
        spin_pause();
    }
    return NULL;
}

/* The futex sleep, unless a waker got in first (IN_POLL already gone). */
static void futex_sleep(wf_worker *w, int64_t deadline)
{
    uint32_t s = IN_POLL;
    if (__atomic_compare_exchange_n(&w->sleep_word, &s, IN_FUTEX, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        wf_futex_wait_until(&w->sleep_word, IN_FUTEX, deadline);
}

/* Step 4: sleep until woken, an event or the earliest timer (read after
 * the sleep is announced: a timer armed meanwhile wakes us). In the I/O
 * server's poll set if it has something to wait for and no worker spins
 * (the spinner polls the same events; a sleeper beside it would be woken
 * by them for nothing), else on the futex. A timer already due (the timer
 * layer wakes workers early and lets them poll the rest) is no sleep. */
static void sleep_until_event(wf_worker *w)
{
    const wf_sched_poller *p = get_poller();
    wf_timer_disarm(w);
    __atomic_fetch_add(&wf_g.nsleeping, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->sleep_word, IN_POLL, __ATOMIC_SEQ_CST);
    int64_t deadline = wf_hooks_idle_deadline();
    if (!work_visible(w) && !shutting_down() && (deadline < 0 || deadline > now_ns())) {
        WF_STAT_INC(w->stats.idle_sleeps);
        if (!p || wf_sched_spinning() || p->poll(deadline) < 0)
            futex_sleep(w, deadline);
    }
    __atomic_store_n(&w->sleep_word, AWAKE, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&wf_g.nsleeping, 1, __ATOMIC_SEQ_CST);
    wf_timer_arm(w);
}

/* The idle policy (the head comment's steps 1-4). Returns NULL only when
 * the runtime shuts down. */
static wf_thread *find_runnable(wf_worker *w)
{
    wf_thread *t = take_work(w); /* work already there: no clock read */
    if (t)
        return t;
    int64_t start = now_ns();
    int spinning = claim_spin(w);
    while (!(t = poll_for_work(w, spinning))) {
        if (shutting_down() && !work_visible(w))
            break;
        if (spinning && now_ns() - start < wf_sched_spin_budget())
            continue;
        if (spinning)
            release_spin(w);
        spinning = 0;
        sleep_until_event(w);
    }
    if (spinning)
        release_spin(w);
    if (t)
        spin_learn(now_ns() - start);
    return t;
}

void wf_idle_loop(void *arg)
{
    wf_worker *w = arg;
    wf_san_switch_finish(NULL);
    wf_run_post_switch(w); /* first entry: from a thread leaving worker 0 */
    wf_thread *t;
    while ((t = find_runnable(w)) != NULL)
        wf_switch(w, NULL, t, NULL, NULL);
    wf_san_switch_start(NULL, w->boot_lo, w->boot_size);
    wf_san_fiber_switch(w->boot_fiber);
    wf_ctx_switch(&w->idle_ctx, &w->boot_ctx);
    wf_fatal("sched: idle loop resumed after shutdown");
}

void wf_kernel_stack_bounds(void **lo, size_t *size)
{
    pthread_attr_t attr;
    *lo = NULL;
    *size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    pthread_attr_getstack(&attr, lo, size);
    pthread_attr_destroy(&attr);
}

/* --------------------------------------------------------- start / stop */

static int worker_prepare(wf_worker *w)
{
    w->tid = (pid_t)syscall(SYS_gettid);
    prctl(PR_SET_TIMERSLACK, 1UL); /* precise futex/epoll timeouts when idle */
    wf_kernel_slice_apply(1);
    wf_kernel_stack_bounds(&w->boot_lo, &w->boot_size);
    w->boot_fiber = wf_san_fiber_current();
    wf_worker_set_self(w);
    wf_topology_bind(w->index);
    int err = wf_altstack_setup(w);
    if (!err)
        err = wf_timer_create(w);
    return err;
}

static void *worker_main(void *arg)
{
    wf_worker *w = arg;
    if (worker_prepare(w) != 0)
        wf_fatal("sched: worker %d could not start", w->index);
    w->in_rt = 1;
    wf_timer_arm(w);
    __atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
    wf_futex_wake(&w->started, 1);
    void *fake_stack = NULL;
    wf_san_switch_start(&fake_stack, w->idle_stack.lo, w->idle_stack.size);
    wf_san_fiber_switch(w->idle_fiber);
    wf_ctx_switch(&w->boot_ctx, &w->idle_ctx);
    wf_san_switch_finish(fake_stack);
    wf_timer_delete(w);
    wf_altstack_teardown(w);
    wf_worker_set_self(NULL);
    return NULL;
}

static wf_worker *worker_new(int index)
{
    wf_worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->index = index;
    if (wf_stack_alloc(&w->idle_stack, IDLE_STACK_SIZE) != 0) {
        free(w);
        return NULL;
    }
    wf_ctx_make(&w->idle_ctx, w->idle_stack.lo, w->idle_stack.size, wf_idle_loop, w);
    w->idle_fiber = wf_san_fiber_create();
    return w;
}

static void worker_free(wf_worker *w)
{
    wf_thread_cache_drain(w);
    wf_san_fiber_destroy(w->idle_fiber);
    wf_stack_free(&w->idle_stack);
    free(w);
}

/* Worker 0 is the calling kernel thread; it keeps running the caller. */
static int adopt_caller_as_worker0(wf_worker *w)
{
    w->pthread = pthread_self();
    return worker_prepare(w);
}

int wf_workers_start(int nworkers)
{
    wf_g.workers = calloc((size_t)nworkers, sizeof *wf_g.workers);
    if (!wf_g.workers)
        return WEFT_ENOMEM;
    for (int i = 0; i < nworkers; i++) {
        wf_g.workers[i] = worker_new(i);
        if (!wf_g.workers[i])
            goto fail;
        wf_g.nworkers = i + 1;
    }
    int err = adopt_caller_as_worker0(wf_g.workers[0]);
    if (err)
        goto fail_err;
    for (int i = 1; i < nworkers; i++)
        if (pthread_create(&wf_g.workers[i]->pthread, NULL, worker_main, wf_g.workers[i]))
            wf_fatal("sched: cannot start worker %d (pthread_create failed)", i);
    /* Until its timer exists, a worker cannot take weft_set_quantum's
     * re-arm nor a kick (both use its timer and tid). */
    for (int i = 1; i < nworkers; i++)
        while (!__atomic_load_n(&wf_g.workers[i]->started, __ATOMIC_ACQUIRE))
            wf_futex_wait(&wf_g.workers[i]->started, 0);
    __atomic_store_n(&workers_open, 1, __ATOMIC_SEQ_CST);
    return 0;
fail:
    err = WEFT_ENOMEM;
fail_err:
    for (int i = 0; i < wf_g.nworkers; i++)
        worker_free(wf_g.workers[i]);
    free(wf_g.workers);
    wf_g.workers = NULL;
    wf_g.nworkers = 0;
    return err;
}

/* Called by the initial thread, running on worker 0, with nothing else
 * alive. Stops the other workers and frees every worker. */
void wf_workers_stop(void)
{
    wf_worker *w0 = wf_g.workers[0];
    close_workers();
    wf_timer_disarm(w0);
    __atomic_store_n(&wf_g.shutdown, 1, __ATOMIC_SEQ_CST);
    for (int i = 1; i < wf_g.nworkers; i++)
        wake_if_sleeping(wf_g.workers[i]);
    for (int i = 1; i < wf_g.nworkers; i++)
        pthread_join(wf_g.workers[i]->pthread, NULL);
    wf_timer_delete(w0);
    wf_altstack_teardown(w0);
    wf_topology_unbind_caller();
    wf_worker_set_self(NULL);
    for (int i = 0; i < wf_g.nworkers; i++)
        worker_free(wf_g.workers[i]);
    free(wf_g.workers);
    wf_g.workers = NULL;
    wf_g.nworkers = 0;
}
