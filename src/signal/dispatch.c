/* Signal deliveries: Weft's OS handler, which only records them, and their
 * dispatch to waiting threads outside signal context.
 *
 * The handler (SA_SIGINFO | SA_RESTART, on whatever thread the kernel
 * picks) does three atomic operations and one system call, all
 * async-signal-safe, and touches no runtime structure:
 *     raised[sig]++;  pending_mask |= bit(sig);  kick_word++;  futex_wake
 * Dispatch takes n = exchange(raised[sig], 0) and hands the n deliveries
 * to signal.c, which wakes the waiters. Two kinds of dispatcher race for
 * the same counters, and the exchange gives each recorded delivery to
 * exactly one of them:
 *   - the scheduler's safe points (our at_switch and idle_poll hooks, run
 *     on a worker inside a critical section): they test pending_mask (one
 *     load per switch) and dispatch at once. This is ARIADNE's global-flag
 *     scheme with the passive delay: a signal that lands while the runtime
 *     is in a critical section (or anywhere else) is only noted, and acted
 *     upon at the next switch; no signal mask is ever touched;
 *   - Weft's signal thread, a kernel thread that sleeps on kick_word (a
 *     futex) and dispatches when kicked. It bounds the delay when no
 *     worker switches (every worker runs one long computation, or all are
 *     asleep): a few microseconds on an idle CPU, ~40 us across busy vCPUs.
 *
 * Why nothing is lost or doubled. The handler's increment is
 * read-modify-write, so concurrent deliveries on several CPUs all count;
 * the dispatcher's exchange removes exactly what it hands on. The mask is
 * or-ed after the increment and exchanged before the counters are read,
 * so a dispatcher that sees a bit also sees the increment behind it; a bit
 * whose increment was taken by another dispatcher yields n == 0 and is
 * skipped. The signal thread reads kick_word before it dispatches and
 * sleeps only while it is unchanged, so a kick during a dispatch makes it
 * go round again. A handler interrupted by another signal (a different
 * one, or SIGURG) is never switched out: its code is inside libweft, where
 * the preemption handler defers (sched/safepc.c).
 *
 * Rejected alternatives: waking waiters inside the handler (it may land in
 * the middle of a run-queue update, the very race the flag scheme avoids);
 * signalfd (needs the signal blocked in every thread, i.e. a signal mask
 * change in every worker and in every thread the application creates);
 * a self-pipe (a futex wake is cheaper and needs no descriptors).
 *
 * The hooks stay registered once installed (removing hooks is only safe
 * at shut-down); they cost one load per switch when nothing is pending.
 * The signal thread runs while at least one signal is set; its start and
 * stop (thread_running, hooks_added) are serialised by signal.c's config
 * lock. Everything else here is atomic.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "sched/sched.h"
#include "signal/signal_int.h"

static uint32_t raised[WF_SIG_MAX]; /* atomic: recorded, not dispatched */
static uint64_t pending_mask;       /* atomic: bit sig-1 set: raised[sig] may be > 0 */
static uint32_t kick_word;          /* atomic: bumped by every delivery */
static int stop_flag;               /* atomic: the signal thread must exit */
static pthread_t sig_thread;
static int thread_running;          /* config lock */
static int hooks_added;             /* config lock */

/* ------------------------------------------------------------ handler */

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
    (void)si;
    (void)uctx;
    int saved_errno = errno;
    __atomic_fetch_add(&raised[sig], 1, __ATOMIC_RELEASE);
    __atomic_fetch_or(&pending_mask, 1ull << (sig - 1), __ATOMIC_RELEASE);
    __atomic_fetch_add(&kick_word, 1, __ATOMIC_RELEASE);
    wf_futex_wake(&kick_word, 1);
    errno = saved_errno;
}

int wf_sig_handler_install(int sig, struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, old) == 0 ? 0 : -errno;
}

void wf_sig_forget(int sig)
{
    __atomic_exchange_n(&raised[sig], 0, __ATOMIC_ACQ_REL);
}

/* ------------------------------------------------------------ dispatch */

/* Dispatch every recorded delivery; returns the number of threads woken. */
static int dispatch_pending(void)
{
    uint64_t mask = __atomic_exchange_n(&pending_mask, 0, __ATOMIC_ACQ_REL);
    int woken = 0;
    while (mask) {
        int sig = __builtin_ctzll(mask) + 1;
        mask &= mask - 1;
        uint32_t n = __atomic_exchange_n(&raised[sig], 0, __ATOMIC_ACQ_REL);
        if (n)
            woken += wf_sig_deliver(sig, n);
    }
    return woken;
}

static int anything_pending(void)
{
    return __atomic_load_n(&pending_mask, __ATOMIC_RELAXED) != 0;
}

static void at_switch(void)
{
    if (anything_pending())
        dispatch_pending();
}

static int idle_poll(void)
{
    return anything_pending() ? dispatch_pending() : 0;
}

static const wf_sched_hooks sig_hooks = {
    .at_switch = at_switch,
    .idle_poll = idle_poll,
    .idle_deadline = NULL,
};

/* -------------------------------------------------------- signal thread */

static void *sig_thread_main(void *arg)
{
    (void)arg;
    wf_sched_helper_init(); /* not worker 0's pin; Weft's short slice */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* leave signals to the others */
    for (;;) {
        uint32_t seen = __atomic_load_n(&kick_word, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE))
            break;
        dispatch_pending();
        wf_futex_wait_until(&kick_word, seen, -1);
    }
    return NULL;
}

int wf_sig_dispatch_start(void)
{
    if (!hooks_added) {
        if (wf_sched_add_hooks(&sig_hooks) != 0)
            return WEFT_EAGAIN;
        hooks_added = 1;
    }
    if (thread_running)
        return 0;
    __atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
    if (pthread_create(&sig_thread, NULL, sig_thread_main, NULL) != 0)
        return WEFT_EAGAIN;
    pthread_setname_np(sig_thread, "weft-signal");
    thread_running = 1;
    return 0;
}

void wf_sig_dispatch_stop(void)
{
    if (!thread_running)
        return;
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&kick_word, 1, __ATOMIC_RELEASE);
    wf_futex_wake(&kick_word, 1);
    pthread_join(sig_thread, NULL);
    thread_running = 0;
}
