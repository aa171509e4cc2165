/* Workers: the kernel threads that run user-level threads, their idle loop,
 * and how an idle worker sleeps and is woken.
 *
 * Worker 0 is the kernel thread that called weft_init(); the others are
 * pthreads started here. Each worker has an idle context on a small stack
 * of its own, where it goes when no thread is runnable. The idle loop:
 *   1. take a thread from the local queue, else steal one (runq.c);
 *   2. else spin briefly (IDLE_SPIN_NS, 20 us, running the upper layers'
 *      idle_poll hooks: a wake-up that comes that fast is served without a
 *      kernel round trip, which costs tens of microseconds across vCPUs;
 *      the I/O server may ask for more through its idle_deadline hook);
 *   3. else disarm the tick timer and sleep on a futex (no CPU burned).
 * The idle loop always holds one critical-section level (see switch.c).
 *
 * Sleep and wake without lost wake-ups (a Dekker pair, both seq_cst):
 *   sleeper: nsleeping++, sleep_word = 1; then re-check nready; sleep while
 *            sleep_word == 1
 *   waker:   nready++ (runq push); then if nsleeping > 0, find a worker with
 *            sleep_word == 1, set it to 0 and wake it.
 * At least one of the two sees the other's store. The nsleeping counter
 * makes the common case (nobody asleep) one load. A thread queued on a
 * busy worker also wakes one sleeping worker, so that it can be stolen.
 * sleep_word says where the worker sleeps: IN_HOOK while the upper layers
 * may put it to sleep in their own kernel wait (idle_block hook: the I/O
 * server runs an event class's block() there, so that the event wakes the
 * worker that runs its waiter - one kernel wake-up instead of a blocker's
 * and then a worker's), IN_FUTEX on the futex. The waker's exchange tells
 * it which: a futex wake or the idle_interrupt hook. A hook that declines
 * moves IN_HOOK to IN_FUTEX by CAS (a failed CAS: already woken).
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
#include <sys/resource.h>
#include <sys/syscall.h>

#include "sched/sched_internal.h"
#include "sched/san.h"
#include "util/cpu.h"

#define IDLE_SPIN_NS (20 * 1000)
#define IDLE_STACK_SIZE (64 * 1024)

enum { AWAKE = 0, IN_FUTEX = 1, IN_HOOK = 2 };

static int wake_if_sleeping(wf_worker *w)
{
    if (!__atomic_load_n(&w->sleep_word, __ATOMIC_SEQ_CST))
        return 0;
    uint32_t old = __atomic_exchange_n(&w->sleep_word, AWAKE, __ATOMIC_SEQ_CST);
    if (old == IN_FUTEX)
        wf_futex_wake(&w->sleep_word, 1);
    else if (old == IN_HOOK)
        wf_hooks_idle_interrupt(w->index);
    return old != AWAKE;
}

int wf_sched_idle_woken(void)
{
    wf_worker *w = wf_worker_self();
    return !w || __atomic_load_n(&w->sleep_word, __ATOMIC_SEQ_CST) == AWAKE;
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

static int work_visible(wf_worker *w)
{
    int ready = __atomic_load_n(&wf_g.nready, __ATOMIC_SEQ_CST);
    return ready > 0 &&
           (__atomic_load_n(&w->rq.len, __ATOMIC_SEQ_CST) > 0 ||
            ready > __atomic_load_n(&wf_g.nready_bound, __ATOMIC_SEQ_CST));
}

/* The futex sleep, unless a waker got in first (IN_HOOK already gone). */
static void futex_sleep(wf_worker *w, int64_t deadline)
{
    uint32_t s = IN_HOOK;
    if (__atomic_compare_exchange_n(&w->sleep_word, &s, IN_FUTEX, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        wf_futex_wait_until(&w->sleep_word, IN_FUTEX, deadline);
}

/* Sleep until woken or until the hooks' deadline (in an upper layer's
 * idle_block, else one futex wait: a spurious or timed-out return just
 * sends the worker round its loop). */
static void idle_sleep(wf_worker *w)
{
    wf_timer_disarm(w);
    __atomic_fetch_add(&wf_g.nsleeping, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->sleep_word, IN_HOOK, __ATOMIC_SEQ_CST);
    if (!work_visible(w) && !__atomic_load_n(&wf_g.shutdown, __ATOMIC_SEQ_CST)) {
        w->stats.idle_sleeps++;
        int64_t deadline = wf_hooks_idle_deadline();
        if (!wf_hooks_idle_block(deadline))
            futex_sleep(w, deadline);
    }
    __atomic_store_n(&w->sleep_word, AWAKE, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&wf_g.nsleeping, 1, __ATOMIC_SEQ_CST);
    wf_timer_arm(w);
}

void wf_sched_wake_idle(void)
{
    for (int i = 0; i < wf_g.nworkers; i++)
        if (wake_if_sleeping(wf_g.workers[i]))
            return;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin for IDLE_SPIN_NS of wall time, not a number of rounds: a round that
 * runs the hooks may cost a system call (an epoll_wait(0) poll), and two
 * thousand of those would burn milliseconds of a CPU that another process,
 * about to send us the very event we wait for, may need.
 * Sharing the CPU (latency.c): a pause of OFF_GAP_NS or more between two
 * polls means the worker may have been off its CPU; if its involuntary
 * context switches went up meanwhile, another task ran there, and the
 * spin yields between polls for a while. A pause without a switch is the
 * hypervisor taking the whole virtual CPU, or interrupts: no task here
 * wanted the CPU, and yielding or sleeping would give it to nobody. While
 * yielding, a neighbour that kept the CPU for a long turn computes: the
 * CPUs are contended, and idle workers sleep instead of spinning (how
 * long a turn is: latency.c, wf_latency_note_off_cpu). */
#define OFF_GAP_NS (5 * 1000)

typedef struct cpu_sample {
    long switches;  /* involuntary context switches */
    int64_t cpu_ns; /* CPU time used */
    int64_t at_ns;  /* when (monotonic) */
} cpu_sample;

static cpu_sample sample_cpu(int64_t now)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    int64_t us = (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                 ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    return (cpu_sample){ ru.ru_nivcsw, us * 1000, now };
}

/* After a round whose longest pause between polls was `pause`, ending at
 * `now`. The time off the CPU since the last sample bounds the turn any
 * neighbour can have taken in that pause. */
static void note_pause(wf_worker *w, cpu_sample *last, int yielding, int64_t pause, int64_t now)
{
    cpu_sample s = sample_cpu(now);
    int64_t off = (now - last->at_ns) - (s.cpu_ns - last->cpu_ns);
    int switched = s.switches != last->switches;
    *last = s;
    if (!switched)
        return;
    wf_latency_note_shared(&w->shared_until, now);
    if (yielding)
        wf_latency_note_off_cpu(pause, off);
}

/* Work there at once (a thread woken as another finished: create + join)
 * is taken before any clock read or getrusage call, which were half of
 * such a round trip's 1.1 us. */
static wf_thread *find_work(wf_worker *w)
{
    wf_thread *ready = work_visible(w) ? wf_pick_next(w, 0) : NULL;
    if (ready)
        return ready;
    int64_t last = monotonic_ns(), until = last + IDLE_SPIN_NS;
    cpu_sample sample = sample_cpu(last);
    for (;;) {
        int yield = wf_sched_cpu_shared(last);
        int64_t longest = 0;
        wf_thread *t = NULL;
        for (int i = 0; i < 16 && !t; i++) {
            if (work_visible(w) || wf_hooks_idle_poll() > 0)
                t = wf_pick_next(w, 0);
            if (!t && __atomic_load_n(&wf_g.shutdown, __ATOMIC_RELAXED))
                return NULL;
            if (!t && yield)
                sched_yield();
            else if (!t)
                wf_cpu_relax();
            int64_t now = monotonic_ns();
            longest = now - last > longest ? now - last : longest;
            last = now;
        }
        if (longest >= OFF_GAP_NS)
            note_pause(w, &sample, yield, longest, last);
        if (t)
            return t;
        if (last >= until || wf_sched_contended())
            return NULL;
    }
}

void wf_idle_loop(void *arg)
{
    wf_worker *w = arg;
    wf_san_switch_finish(NULL);
    wf_run_post_switch(w); /* first entry: from a thread leaving worker 0 */
    for (;;) {
        wf_thread *t = find_work(w);
        if (t) {
            wf_switch(w, NULL, t, NULL, NULL);
            continue;
        }
        if (__atomic_load_n(&wf_g.shutdown, __ATOMIC_SEQ_CST) && !work_visible(w))
            break;
        idle_sleep(w);
    }
    wf_san_switch_start(NULL, w->boot_lo, w->boot_size);
    wf_ctx_switch(&w->idle_ctx, &w->boot_ctx);
    wf_fatal("sched: idle loop resumed after shutdown");
}

/* --------------------------------------------------------- start / stop */

static int worker_prepare(wf_worker *w)
{
    w->tid = (pid_t)syscall(SYS_gettid);
    prctl(PR_SET_TIMERSLACK, 1UL); /* precise futex/epoll timeouts when idle */
    wf_latency_slice_apply(1);
    wf_kernel_stack_bounds(&w->boot_lo, &w->boot_size);
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
    void *fake_stack = NULL;
    wf_san_switch_start(&fake_stack, w->idle_stack.lo, w->idle_stack.size);
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
    return w;
}

static void worker_free(wf_worker *w)
{
    wf_thread_cache_drain(w);
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
