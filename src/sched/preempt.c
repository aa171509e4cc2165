/* Preemption: per-worker POSIX timers, the tick handler, time slices per
 * priority level, and "kicks" that let an urgent thread take a CPU.
 *
 * Each worker owns a timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID) timer
 * that sends WF_PREEMPT_SIGNAL (SIGURG, which programs rarely use) to that
 * worker's kernel thread every tick while the worker is awake; a sleeping
 * worker disarms it, so an idle process takes no ticks. The tick is
 * min(1 ms, every active quantum): a 10 ms quantum is 10 ticks, and a tick
 * deferred because it hit a critical section is retried 1 ms later, not a
 * whole quantum later. Cost: one signal per ms per busy worker, ~2 us each,
 * i.e. ~0.2 % of a CPU.
 *
 * The handler (SA_RESTART | SA_NODEFER | SA_SIGINFO, not on the alternate
 * stack, so its frame stays on the interrupted thread's stack and travels
 * with it) decides:
 *   - nothing to do: the slice has ticks left and no higher level waits;
 *   - defer: the worker is inside the runtime (in_rt > 0) or the PC is in
 *     code that may hold kernel-thread locks (safepc.c): set
 *     preempt_pending, taken at wf_rt_leave() or at the next tick;
 *   - switch: yield from inside the handler. When the thread is resumed
 *     (maybe on another worker) the handler returns and sigreturn restores
 *     every register. SA_NODEFER keeps the signal unblocked for the thread
 *     that runs next; no signal mask is touched anywhere.
 * errno is saved and restored around the handler (on the kernel thread
 * it returns on). SA_RESTART restarts the
 * system calls the tick interrupts (read, write, futex waits...).
 *
 * Letting the server threads in. The I/O server's thread, woken by a
 * message on a CPU where a worker computes, needs the kernel to preempt
 * that worker, and EEVDF may decline: the running task keeps the CPU
 * until it has run its protected slice (RUN_TO_PARITY), and nothing looks
 * again before the kernel's next tick (4 ms at HZ=250). So while a server
 * thread waits (wf_sched_server_waits), a worker's tick that finds it
 * running a ULT first yields its kernel thread (one system call a tick,
 * ~0.3 us with nobody else runnable): a runnable server thread then gets
 * the CPU within a tick. The yield moves the worker's kernel deadline,
 * not its share of the CPU. WEFT_DISABLE=tick-yield turns it off.
 *
 * Time slicing per level (ARIADNE's a_defslice/a_clearslice): a thread at
 * a sliced level is preempted when its slice ends and a thread of the same
 * or a higher level is runnable; a thread at an unsliced level only when a
 * higher level is runnable.
 */
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "sched/san.h"
#include "sched/sched_internal.h"
#include "sched/uctx.h"
#include "util/tuning.h"

#define WF_PREEMPT_SIGNAL SIGURG

static struct sigaction old_action;

/* ------------------------------------------------------------ the ticks */

static int64_t level_quantum(int prio)
{
    if (!wf_g.prio_sliced[prio] || wf_g.quantum_ns == 0)
        return 0;
    return wf_g.prio_quantum[prio] ? wf_g.prio_quantum[prio] : wf_g.quantum_ns;
}

static void recompute_tick(void)
{
    int64_t tick = wf_g.quantum_ns ? WF_TICK_MAX_NS : 0;
    for (int p = 0; p < WEFT_NUM_PRIOS; p++) {
        int64_t q = level_quantum(p);
        if (q > 0 && q < tick)
            tick = q;
    }
    __atomic_store_n(&wf_g.tick_ns, tick, __ATOMIC_RELAXED);
    for (int p = 0; p < WEFT_NUM_PRIOS; p++)
        __atomic_store_n(&wf_g.slice_ticks[p], wf_slice_ticks(p), __ATOMIC_RELAXED);
}

int wf_slice_ticks(int prio)
{
    int64_t q = level_quantum(prio);
    int64_t tick = wf_tick_ns();
    if (q == 0 || tick == 0)
        return 0;
    int64_t n = (q + tick / 2) / tick;
    return n < 1 ? 1 : (int)n;
}

/* -------------------------------------------------------------- handler */

/* Best level queued on any other worker (stealable or not: a snapshot). */
static int best_remote_level(wf_worker *w)
{
    int best = -1;
    for (int i = 0; i < wf_g.nworkers; i++) {
        int p = wf_g.workers[i] == w ? -1 : wf_runq_best_prio(wf_g.workers[i]);
        if (p > best)
            best = p;
    }
    return best;
}

/* Lowest level that may take the CPU from `cur` now, or -1: none may.
 * A higher level queued anywhere preempts at the next tick, so an urgent
 * thread queued on a worker the kernel has descheduled waits one tick, not
 * the rest of somebody's slice. */
static int preempting_level(wf_worker *w, wf_thread *cur, int kicked)
{
    int best_local = wf_runq_best_prio(w);
    int others = __atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED) >
                 __atomic_load_n(&w->rq.len, __ATOMIC_RELAXED);
    if (best_local > cur->prio || (kicked && others) ||
        (others && best_remote_level(w) > cur->prio))
        return cur->prio + 1;
    if (!wf_g.prio_sliced[cur->prio] || wf_tick_ns() == 0)
        return -1;
    if (--w->ticks_left > 0)
        return -1;
    if (best_local >= cur->prio || others)
        return cur->prio;
    w->ticks_left = wf_slice_ticks_of(cur->prio); /* alone: a new slice */
    return -1;
}

/* Switch away from inside the handler. While this thread is switched out
 * its handler frame stays on its own stack, so the worker must not count
 * it as a handler in progress (in_handler): other threads' ticks would
 * all look nested. A preemption deferred meanwhile is taken on the way
 * out, as at any other exit from the runtime (wf_rt_leave_w). */
static void switch_from_handler(wf_worker *w, int min_prio)
{
    w->in_rt++;
    w->in_handler--;
    wf_yield_in_rt(w, min_prio, 1);
    wf_rt_leave_w(wf_worker_self()); /* we may resume on another worker */
    wf_worker_self()->in_handler++;
}

/* A preemption that must wait for a safe point. Without periodic ticks
 * (quantum 0) nothing would come back for it if the thread never enters
 * the runtime, so a one-shot tick retries it (timer_settime is
 * async-signal-safe). */
static void defer(wf_worker *w)
{
    w->preempt_pending = 1;
    WF_STAT_INC(w->stats.deferred);
    if (wf_tick_ns() == 0) {
        struct itimerspec its = { { 0, 0 }, { 0, WF_DEFER_RETRY_NS } };
        timer_settime(w->timer, 0, &its, NULL);
    }
}

/* Whether a tick may switch threads from inside the handler. Under
 * ThreadSanitizer it may not: TSan runs a handler at its own next
 * interception point with the context saved where the signal landed, so
 * neither the interrupted PC nor in_rt says where the thread really is.
 * Ticks then only mark a preemption pending, taken at the next runtime
 * exit; a loop that never enters the runtime keeps its CPU. */
#ifdef WF_SAN_THREAD
#define SWITCH_IN_HANDLER 0
#else
#define SWITCH_IN_HANDLER 1
#endif

static void handle_tick(wf_worker *w, void *uctx)
{
    wf_thread *cur = w->current;
    if (!cur)
        return;
    int kicked = __atomic_exchange_n(&w->preempt_now, 0, __ATOMIC_ACQ_REL);
    int level = preempting_level(w, cur, kicked);
    if (level < 0)
        return;
    if (!SWITCH_IN_HANDLER || w->in_rt || w->in_handler > 1 ||
        !wf_safepc_allows((const void *)wf_uctx_pc(uctx)))
        defer(w);
    else
        switch_from_handler(w, level);
}

void wf_sched_server_waits(int delta)
{
    __atomic_fetch_add(&wf_g.server_waits, delta, __ATOMIC_RELAXED);
}

/* See "Letting the server threads in" above; a raw system call, so that
 * nothing interposed on sched_yield runs in the handler. */
static void let_server_threads_in(wf_worker *w)
{
    if (w->current && __atomic_load_n(&wf_g.server_waits, __ATOMIC_RELAXED) > 0 &&
        wf_tuning_on(WF_H_TICK_YIELD)) {
        syscall(SYS_sched_yield);
        WF_STAT_INC(w->stats.server_yields);
    }
}

/* The running thread has run for a whole tick period (it started before
 * the previous tick): it no longer counts as one that switches soon
 * (wf_sched_self_runs_short), and the I/O server may have to cover waits
 * its worker's switches were detecting. A thread that started just before
 * this tick (a waiter about to park, say) is left alone. */
static void ran_through_tick(wf_worker *w)
{
    wf_thread *cur = w->current;
    if (!cur || w->ticks_seen - cur->enter_tick < 2)
        return;
    cur->runs_long = 1;
    wf_hooks_at_tick();
}

/* errno belongs to the kernel thread, and the handler may return on
 * another one: the store must look its address up again, which the
 * compiler, told errno's address never changes, would not do inline. */
static __attribute__((noinline)) void restore_errno(int saved)
{
    errno = saved;
}

static void on_tick(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)si;
    int saved_errno = errno;
    wf_worker *w = wf_worker_self();
    if (w) {
        w->in_handler++; /* SA_NODEFER: a nested tick only defers */
        w->ticks_seen++;
        if (w->in_handler == 1) {
            ran_through_tick(w);
            let_server_threads_in(w);
            handle_tick(w, uctx);
        } else {
            w->preempt_pending = 1;
        }
        wf_worker_self()->in_handler--; /* maybe another worker by now */
    }
    restore_errno(saved_errno);
}

int wf_preempt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(WF_PREEMPT_SIGNAL, &sa, &old_action) != 0)
        return -errno;
    recompute_tick();
    return 0;
}

void wf_preempt_uninstall(void)
{
    sigaction(WF_PREEMPT_SIGNAL, &old_action, NULL);
}

/* ---------------------------------------------------------------- timers */

int wf_timer_create(wf_worker *w)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = WF_PREEMPT_SIGNAL;
    sev._sigev_un._tid = w->tid;
    if (timer_create(CLOCK_MONOTONIC, &sev, &w->timer) != 0)
        return -errno;
    w->timer_armed = 0;
    return 0;
}

static void set_timer(wf_worker *w, int64_t period_ns)
{
    struct itimerspec its;
    its.it_interval.tv_sec = period_ns / 1000000000;
    its.it_interval.tv_nsec = period_ns % 1000000000;
    its.it_value = its.it_interval;
    timer_settime(w->timer, 0, &its, NULL);
    w->timer_armed = period_ns > 0;
}

void wf_timer_arm(wf_worker *w)
{
    wf_lock(&w->timer_lock);
    set_timer(w, wf_tick_ns());
    wf_unlock(&w->timer_lock);
}

void wf_timer_disarm(wf_worker *w)
{
    wf_lock(&w->timer_lock);
    if (w->timer_armed)
        set_timer(w, 0);
    wf_unlock(&w->timer_lock);
}

void wf_timer_delete(wf_worker *w)
{
    timer_delete(w->timer);
    w->timer_armed = 0;
}

/* Apply a new tick to every worker that is awake (armed). */
void wf_preempt_rearm_all(void)
{
    recompute_tick();
    for (int i = 0; i < wf_g.nworkers; i++) {
        wf_worker *w = wf_g.workers[i];
        wf_lock(&w->timer_lock);
        if (w->timer_armed || !__atomic_load_n(&w->sleep_word, __ATOMIC_ACQUIRE))
            set_timer(w, wf_tick_ns());
        wf_unlock(&w->timer_lock);
    }
}

/* Ask `target` (or, if it runs something at least as urgent, any worker
 * running a lower level) to switch now, for a thread queued at `prio`.
 * Our own worker needs no signal: the switch happens when the caller
 * leaves the runtime. */
void wf_preempt_kick_for(wf_worker *target, int prio)
{
    for (int i = 0; i < wf_g.nworkers; i++) {
        wf_worker *w = wf_g.workers[(target->index + i) % wf_g.nworkers];
        int running = __atomic_load_n(&w->running_prio, __ATOMIC_RELAXED);
        if (running < 0)
            return; /* an idle worker will pick it up */
        if (running < prio) {
            if (w == wf_worker_self()) {
                w->preempt_pending = 1; /* taken when we leave the runtime */
                return;
            }
            if (!__atomic_exchange_n(&w->preempt_now, 1, __ATOMIC_ACQ_REL))
                syscall(SYS_tgkill, getpid(), w->tid, WF_PREEMPT_SIGNAL);
            return; /* one signal per kick in flight, not one per wake */
        }
    }
}

/* ------------------------------------------------------------ public API */

int weft_set_quantum(int64_t quantum_ns)
{
    if (quantum_ns < 0 || (quantum_ns > 0 && quantum_ns < 10000))
        return WEFT_EINVAL;
    wf_g.quantum_ns = quantum_ns;
    if (wf_g.initialized)
        wf_preempt_rearm_all();
    return 0;
}

int64_t weft_get_quantum(void)
{
    return wf_g.quantum_ns;
}

int weft_prio_set_slice(int prio, int64_t quantum_ns)
{
    if (prio < WEFT_PRIO_MIN || prio > WEFT_PRIO_MAX || quantum_ns < 0 ||
        (quantum_ns > 0 && quantum_ns < 10000))
        return WEFT_EINVAL;
    wf_g.prio_quantum[prio] = quantum_ns;
    wf_g.prio_sliced[prio] = 1;
    if (wf_g.initialized)
        wf_preempt_rearm_all();
    return 0;
}

int weft_prio_clear_slice(int prio)
{
    if (prio < WEFT_PRIO_MIN || prio > WEFT_PRIO_MAX)
        return WEFT_EINVAL;
    wf_g.prio_sliced[prio] = 0;
    if (wf_g.initialized)
        wf_preempt_rearm_all();
    return 0;
}

int weft_prio_is_sliced(int prio)
{
    if (prio < WEFT_PRIO_MIN || prio > WEFT_PRIO_MAX)
        return WEFT_EINVAL;
    return wf_g.prio_sliced[prio];
}
