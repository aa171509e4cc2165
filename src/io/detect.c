/* Detection at the scheduler's safe points and the adaptive hand-over to
 * the blocker threads. This file owns the three scheduler hooks (sched.h).
 *
 * Safe points. at_switch (every context switch) polls each handle with
 * waiters whose period has elapsed, counted in scheduler ticks
 * (wf_sched_tick_count; 1 tick = min(1 ms, quantum)); frequency 0 means at
 * every switch. idle_poll (a worker spinning idle, ~1 us apart) polls every
 * handle with waiters regardless of its period: idle time is free (PM2:
 * "the scheduler can use the otherwise idle time to perform intensive
 * polling"). Polls only ever trylock a handle: a handle another worker is
 * polling is skipped, never waited for. The poller thread (blocking.c)
 * supplies the "tick" safe point when no worker switches for a whole
 * period (one compute thread per worker that never blocks, or every worker
 * asleep). Polling from the tick signal handler itself was rejected: poll
 * callbacks (MPI progress) are not async-signal-safe.
 *
 * Strategies (weft_io_strategy), per handle h:
 *   polling  - safe points + poller; blocker threads never engaged.
 *   blocking - h's blocker engaged as soon as a wait is published; safe
 *              points do not poll h (passive only); handles without a
 *              block callback fall back to polling.
 *   adaptive - safe points poll h; one idle worker (the "spinner") keeps
 *              polling it for h's spin budget after the latest wait
 *              started, then hands h over to its blocker and sleeps (other
 *              idle workers sleep at once: a second spinner would only
 *              take a CPU from whoever produces the events); if no worker
 *              is idle and awake when a wait starts, the blocker is
 *              engaged at once (nobody would poll soon). While the CPUs
 *              are contended (wf_sched_contended: a spinning worker was
 *              descheduled) nobody spins: the blocker is engaged at once,
 *              because a woken sleeper gets a CPU faster than a spinner
 *              whose CPU the kernel gave away (sched/latency.c).
 *              Where the blocker would be engaged by an idle worker, that
 *              worker may instead sleep in h's block() itself, if h has an
 *              unblock callback (idle_block.c): one kernel wake-up per
 *              event instead of the blocker's and then a worker's.
 *   naive    - none of this: each waiter polls and yields (wait.c, fd.c).
 *   signal-driven detection (O_ASYNC + F_SETSIG) is opt-in per fd
 *   (weft_fd_set_sigio, sigio.c) for devices that offer only that: such an
 *   fd leaves the epoll set and its waiters are woken by the SIGIO
 *   dispatcher (counted as detected_signal). Every other fd stays on the
 *   strategies above: a blocking call costs one kernel thread per class,
 *   a signal costs a delivery per event.
 * Whether some worker is idle and awake is tracked from the hooks
 * themselves: a switch to the idle context or to a thread, idle_poll, and
 * idle_deadline (called just before the worker sleeps). The waiter
 * publishes its request (seq_cst) and then reads n_idle_awake; a worker
 * leaving the idle-awake state decrements it (seq_cst) and then looks for
 * waiters: one of the two sees the other (Dekker), so a wait is never left
 * with nobody to detect it. A ULT waiter needs no check of its own: the
 * switch that parks it runs at_switch on the next context, which decides.
 *
 * The polling period of each handle and its spin budget adapt from recent
 * history by CLAM's SANR rule (adapt.c).
 *
 * Costs: with no waiter anywhere each hook is a few loads and a branch;
 * with waiters, at_switch skips its walk unless a tick passed, a wait
 * started or ended, or its worker changed state (a few ns per switch);
 * a walk is a trylock plus a tick compare per handle, and a poll round
 * when due (epoll_wait(0) ~0.5 us for fds).
 */
#include "io/io.h"

#define MAX_WORKERS 1024

enum { W_BUSY = 0, W_IDLE = 1, W_ASLEEP = 2 };

/* Per worker, each slot written by its own worker only. */
static uint8_t wstate[MAX_WORKERS];
static uint64_t walked_tick[MAX_WORKERS];  /* at_switch's last registry walk */
static uint32_t walked_epoch[MAX_WORKERS];
static int n_idle_awake;            /* atomic */
static int spinner = -1;            /* atomic: the one worker spinning on waits */

int wf_io_idle_worker_polls(void)
{
    return __atomic_load_n(&n_idle_awake, __ATOMIC_SEQ_CST) > 0;
}

/* -------------------------------------------------- strategy predicates */

static int safe_points_poll(weft_io_t h, weft_io_strategy s)
{
    return s != WEFT_IO_NAIVE && !(s == WEFT_IO_BLOCKING && h->has_block);
}

static int blocker_serves(weft_io_t h, weft_io_strategy s)
{
    return h->has_block && (s == WEFT_IO_ADAPTIVE || s == WEFT_IO_BLOCKING);
}

int wf_io_poll_served(weft_io_t h)
{
    weft_io_strategy s = wf_io_strategy();
    return s != WEFT_IO_NAIVE && (s == WEFT_IO_POLLING || !h->has_block);
}

/* ------------------------------------------------------------- polling */

int64_t wf_io_tick_ns(void)
{
    int64_t q = weft_get_quantum();
    return q > 0 && q < 1000000 ? q : 1000000;
}

static void mark_polled(weft_io_t h, int64_t now)
{
    __atomic_store_n(&h->last_poll_tick, wf_sched_tick_count(), __ATOMIC_RELAXED);
    __atomic_store_n(&h->last_poll_ns, now, __ATOMIC_RELAXED);
}

int wf_io_poll_round(weft_io_t h, int how)
{
    int n = h->ops->test(h, how);
    if (n < 0)
        return 0; /* busy: someone else is polling it */
    mark_polled(h, wf_io_now());
    wf_io_adapt_period(h, n);
    return n;
}

int weft_io_poll(weft_io_t h)
{
    if (!h)
        return WEFT_EINVAL;
    if (__atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) == 0)
        return 0;
    return wf_io_poll_round(h, WF_DET_POLL);
}

static int due(weft_io_t h, uint64_t tick)
{
    if (h->p.frequency == 0)
        return 1;
    uint64_t last = __atomic_load_n(&h->last_poll_tick, __ATOMIC_RELAXED);
    return (tick - last) * WF_IO_TICK_FP >= __atomic_load_n(&h->period_fp, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ worker states */

/* Record the calling worker's state; 1 if it changed. */
static int track(uint8_t s)
{
    int id = weft_worker_id();
    if (id < 0 || id >= MAX_WORKERS || wstate[id] == s)
        return 0;
    uint8_t old = wstate[id];
    wstate[id] = s;
    if (old == W_ASLEEP)
        wf_io_idle_release(); /* a claim of idle_deadline it did not use */
    if (old == W_IDLE) {
        int me = id;
        __atomic_compare_exchange_n(&spinner, &me, -1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&n_idle_awake, 1, __ATOMIC_SEQ_CST);
    }
    if (s == W_IDLE)
        __atomic_fetch_add(&n_idle_awake, 1, __ATOMIC_SEQ_CST);
    return 1;
}

static int nothing_waits(void)
{
    return __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST) == 0;
}

static int has_waiters(weft_io_t h)
{
    return __atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) > 0;
}

/* Whether the waiting caller's own worker is about to go idle and sleep in
 * h's block() (idle_block.c): a ULT, nothing else runnable, a class that
 * allows it. If it runs another thread instead, at_switch engages h's
 * blocker, as for a spinner. */
static int own_worker_will_block(weft_io_t h)
{
    return wf_self() != NULL && wf_sched_nready() == 0 && wf_io_idle_qualifies(h);
}

/* Whether the waiting caller's own worker is about to go idle and spin on
 * h: a ULT, nothing else runnable, a spin budget, no contention. */
static int own_worker_will_spin(weft_io_t h)
{
    return wf_self() != NULL && wf_sched_nready() == 0 && !wf_sched_contended() &&
           __atomic_load_n(&h->spin_ns, __ATOMIC_RELAXED) > 0;
}

/* How long a waiter may poll h in place, from its wait's start (wait.c):
 * never past IN_PLACE_NS nor h's spin budget, and only while its worker
 * would otherwise go idle and spin - a ULT, nothing else runnable, no
 * contention, a CPU of its own (a worker that shares its CPU yields
 * between polls, and a waiter polling in place would not). 0: park at
 * once. The loop itself stops when a request of another handle waits. */
#define IN_PLACE_NS (20 * 1000LL)

int64_t wf_io_in_place_until(weft_io_t h, int64_t start)
{
    int64_t budget = __atomic_load_n(&h->spin_ns, __ATOMIC_RELAXED);
    if (wf_io_strategy() != WEFT_IO_ADAPTIVE || !own_worker_will_spin(h) ||
        wf_sched_cpu_shared(start))
        return 0;
    return start + (budget < IN_PLACE_NS ? budget : IN_PLACE_NS);
}

void wf_io_after_publish(weft_io_t h)
{
    weft_io_strategy s = wf_io_strategy();
    wf_io_hooks_install();
    if (wf_io_poll_served(h))
        wf_io_poller_kick();
    if (!blocker_serves(h, s))
        return;
    if (s == WEFT_IO_BLOCKING) {
        wf_io_engage(h);
        return;
    }
    if (wf_sched_contended()) {
        if (!own_worker_will_block(h))
            wf_io_engage_unwatched(h);
        return;
    }
    if (wf_io_idle_worker_polls())
        return; /* an idle worker polls it, and engages the blocker after */
    /* The caller's worker will spin on it: a blocker engaged now would sit
     * in epoll_wait beside the spinner, be woken by the same event and
     * take a CPU from it (measured: the blocker then detected nearly every
     * reply of a ping-pong, ~140 us, where the spinner takes ~15 us). If
     * the worker runs another thread instead, its at_switch engages the
     * blocker (or, if it cannot take the registry lock, kicks the poller,
     * whose wf_io_check_unattended does). Not kicking the poller here:
     * an active poller wakes every tick, and those wake-ups preempting the
     * spinner cost more than they save (measured: p99 at N=10 ~1 ms with
     * a kick per wait, ~120 us without). */
    if (own_worker_will_spin(h))
        return;
    /* Nobody idle and awake to poll it: hand it to the blocker now (unless
     * a worker sleeps in its block(), idle_block.c). Not
     * left to the waiter's own switch away (at_switch): that may skip its
     * walk (trylock, nothing changed), and a worker that only runs one
     * compute thread never switches again - the wait would be lost. */
    wf_io_engage_unwatched(h);
}

int wf_io_check_unattended(void)
{
    int pending = 0;
    if (nothing_waits())
        return 0;
    weft_io_strategy s = wf_io_strategy();
    int nobody_polls = !wf_io_idle_worker_polls();
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!has_waiters(h) || !blocker_serves(h, s) ||
            __atomic_load_n(&h->blk_state, __ATOMIC_SEQ_CST) != WF_BLK_SLEEP)
            continue;
        pending = 1;
        if (nobody_polls)
            wf_io_engage_unwatched(h);
    }
    wf_unlock(&wf_io_reg_lock);
    return pending;
}

/* ------------------------------------------------------------- the hooks */

/* Whether at_switch may skip the registry walk: nothing it could do has
 * changed since its last walk on this worker - same tick (no period can
 * have elapsed), no wait started or ended and no blocker went to sleep
 * (same epoch), no frequency-0 waiter, and this worker did not just change
 * state. Keeps a switch with waiters pending at ~10 ns instead of a
 * trylock and a walk (~100 ns). */
static int unchanged(int state_changed, uint64_t tick, uint32_t epoch)
{
    int id = weft_worker_id();
    if (id < 0 || id >= MAX_WORKERS)
        return 0;
    return !state_changed && walked_tick[id] == tick && walked_epoch[id] == epoch &&
           !__atomic_load_n(&wf_io_nevery, __ATOMIC_RELAXED);
}

static void record_walk(uint64_t tick, uint32_t epoch)
{
    int id = weft_worker_id();
    if (id >= 0 && id < MAX_WORKERS) {
        walked_tick[id] = tick;
        walked_epoch[id] = epoch;
    }
}

static void at_switch(void)
{
    int busy = wf_self() != NULL;
    int changed = track(busy ? W_BUSY : W_IDLE);
    /* Going idle: the idle loop's first idle_poll is moments away (a poll
     * here would repeat the waiter's own immediate poll of just before,
     * one more system call per wait). */
    if (nothing_waits() || !busy)
        return;
    uint64_t tick = wf_sched_tick_count();
    uint32_t epoch = __atomic_load_n(&wf_io_epoch, __ATOMIC_SEQ_CST);
    if (unchanged(changed, tick, epoch))
        return;
    if (!wf_trylock(&wf_io_reg_lock)) {
        /* Its holder walks the registry, but may have passed a wait that
         * started after: the poller's safety net looks within ~10 ms. */
        if (busy)
            wf_io_poller_kick();
        return;
    }
    record_walk(tick, epoch);
    weft_io_strategy s = wf_io_strategy();
    int nobody_polls = busy && !wf_io_idle_worker_polls();
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!has_waiters(h))
            continue;
        if (safe_points_poll(h, s) && due(h, tick))
            wf_io_poll_round(h, WF_DET_POLL);
        if (nobody_polls && blocker_serves(h, s) && has_waiters(h))
            wf_io_engage_unwatched(h);
    }
    wf_unlock(&wf_io_reg_lock);
}

/* How long an idle worker keeps polling h after its latest wait started:
 * the adaptive budget, or its cap (WEFT_IO_SPIN_US) while the worker's CPU
 * is shared. The worker yields between polls then (sched/latency.c), so
 * that time is mostly its neighbours' turns, not a CPU burnt; measured
 * with 4 ranks per CPU, the adaptive budget ran out in wall time at nearly
 * every wait, and each wait ended in a sleep and a kernel wake-up. */
static int64_t spin_budget(weft_io_t h, int64_t now)
{
    return wf_sched_cpu_shared(now) ? wf_io_spin_ns()
                                    : __atomic_load_n(&h->spin_ns, __ATOMIC_RELAXED);
}

/* Past its spin budget, a handle the blocker serves is left to it: the
 * worker stops polling it and goes on to sleep (idle_deadline engages the
 * blocker). Without this the budget would only be checked after the idle
 * loop's whole spin round, ~2000 polls (~1-2 ms of epoll_wait calls). */
static int spin_over(weft_io_t h, weft_io_strategy s, int64_t now)
{
    return blocker_serves(h, s) &&
           now - __atomic_load_n(&h->last_wait_ns, __ATOMIC_RELAXED) >= spin_budget(h, now);
}

static int idle_poll(void)
{
    track(W_IDLE);
    if (nothing_waits() || !wf_trylock(&wf_io_reg_lock))
        return 0;
    weft_io_strategy s = wf_io_strategy();
    int64_t now = wf_io_now();
    int woken = 0;
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!has_waiters(h) || !safe_points_poll(h, s) ||
            (spin_over(h, s, now) && !wf_io_idle_woke_from(h)))
            continue;
        wf_io_idle_polling = 1;
        int n = h->ops->test(h, WF_DET_POLL);
        wf_io_idle_polling = 0;
        if (n >= 0)
            mark_polled(h, now);
        woken += n > 0 ? n : 0;
    }
    wf_unlock(&wf_io_reg_lock);
    return woken;
}

/* Whether the calling idle worker is the one that spins on recent waits:
 * one spinner is enough to poll, and a second would only take a CPU from
 * the threads (or processes) about to produce the events. */
static int claim_spin(void)
{
    int id = weft_worker_id(), none = -1;
    return __atomic_load_n(&spinner, __ATOMIC_SEQ_CST) == id ||
           __atomic_compare_exchange_n(&spinner, &none, id, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

/* Under the polling strategy idle time polls for as long as a wait lasts:
 * at once again, or, while the CPUs are contended, after a tick's sleep
 * (the poller polls meanwhile; a worker that slept until woken would stay
 * asleep long after the contention ended, while the poller alone moved
 * the messages, 64 KiB a tick). */
static int64_t polling_deadline(int64_t deadline, int64_t now, int contended)
{
    int64_t d = contended ? now + wf_io_tick_ns() : now;
    return deadline < 0 || d < deadline ? d : deadline;
}

/* Before an idle worker sleeps: keep one spinning while a recent wait is
 * within the spin budget, else hand every waiting handle to its blocker,
 * or sleep in its block() itself (one handle, idle_block.c). */
static int64_t idle_deadline(void)
{
    track(W_ASLEEP);
    if (nothing_waits())
        return -1;
    int64_t now = wf_io_now(), deadline = -1;
    if (!wf_trylock(&wf_io_reg_lock)) {
        track(W_IDLE);
        return now; /* look again at once */
    }
    weft_io_strategy s = wf_io_strategy();
    int contended = wf_sched_contended();
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (s == WEFT_IO_POLLING && has_waiters(h))
            deadline = polling_deadline(deadline, now, contended);
        if (!has_waiters(h) || !blocker_serves(h, s) ||
            __atomic_load_n(&h->blk_state, __ATOMIC_SEQ_CST) != WF_BLK_SLEEP)
            continue;
        int64_t last = __atomic_load_n(&h->last_wait_ns, __ATOMIC_RELAXED);
        if (s == WEFT_IO_ADAPTIVE && now - last < spin_budget(h, now) && !contended)
            deadline = now;
        else if (!wf_io_idle_claim(h))
            wf_io_engage_unwatched(h); /* not beside a worker asleep in block() */
    }
    wf_unlock(&wf_io_reg_lock);
    if (deadline < 0)
        return -1;
    track(W_IDLE);
    if (claim_spin())
        return deadline;
    track(W_ASLEEP); /* another worker spins: sleep, it hands over */
    return -1;
}

static const wf_sched_hooks hooks = { at_switch, idle_poll, idle_deadline, wf_io_idle_block,
                                      wf_io_idle_interrupt };
static int hooks_on; /* atomic */
static int hooks_lock;

/* weft_fini: the workers are about to stop; their idle states would be
 * stale in the next runtime. Unhook (re-installed at the next wait). */
static int io_fini(void)
{
    wf_lock(&hooks_lock);
    wf_sched_remove_hooks(&hooks);
    __atomic_store_n(&hooks_on, 0, __ATOMIC_SEQ_CST);
    for (int i = 0; i < MAX_WORKERS; i++)
        wstate[i] = W_BUSY;
    __atomic_store_n(&n_idle_awake, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&spinner, -1, __ATOMIC_SEQ_CST);
    wf_unlock(&hooks_lock);
    return 0;
}

int wf_io_hooks_install(void)
{
    int err = 0;
    if (__atomic_load_n(&hooks_on, __ATOMIC_ACQUIRE))
        return 0;
    wf_lock(&hooks_lock);
    if (!hooks_on && (err = wf_sched_add_hooks(&hooks)) == 0) {
        wf_sched_add_fini_hook(io_fini);
        __atomic_store_n(&hooks_on, 1, __ATOMIC_RELEASE);
    }
    wf_unlock(&hooks_lock);
    return err;
}
