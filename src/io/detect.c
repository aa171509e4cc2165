/* Which route detects a wait, and the two entries through which the
 * scheduler's workers detect: the poller entry of the idle policy
 * (sched/worker.c's find_runnable calls it) and the at_switch hook of busy
 * workers. The routes are tabled at the top of include/weft/io.h.
 *
 * An idle worker (poll entry):
 *   poll(0), while it spins: a round over every class with waiters (the
 *     fd class's round is a check of the poll set);
 *   poll(deadline), its sleep: in the poll set (pollset.c), until an
 *     event, an interrupt, its deadline, or the next due poll of a class
 *     that only polling can detect. Declined (-1) when nothing the set's
 *     sleeper serves waits, or another thread sleeps there; under the
 *     polling strategy it polls instead of sleeping (idle time polls for
 *     as long as a wait lasts), and under the blocking one it declines
 *     (the server thread alone detects passively).
 * A busy worker (at_switch, in the thread it switched to): polls the
 *   classes whose period is due (PM2's polling at context switches; a
 *   class of frequency 0 at every switch), and makes sure someone will
 *   detect the waits. If no worker spins or sleeps in the poll set and
 *   the server thread is not engaged: when the thread it switched to ran
 *   short last time (it blocked or yielded within a tick; a new thread
 *   counts as one until its first run proves otherwise), the worker
 *   will switch again soon and detects itself, polling every class with
 *   waiters at each switch; otherwise it wakes an idle worker asleep on
 *   its futex, or engages the server thread. A thread that then runs
 *   through a tick hands the waits to the server thread (at_tick). Where
 *   threads only communicate (several ping-pongs on one worker), a server
 *   thread on the worker's CPU would take it at every event.
 * A wait that starts (wf_io_cover) from a ULT leaves the choice to the
 *   switch that parks it; from any other thread it engages the server
 *   thread unless a worker detects already. A class with block() and no
 *   pollfd has its blocker thread engaged instead, at every wait.
 * Seq_cst on both sides of each hand-over: a waiter publishes its request
 *   (nwaiting) and then looks for a detector; a worker that stops spinning
 *   or sleeping in the set, and the server thread disengaging, drop their
 *   flag and then look for waiters (at_switch, disengage), so a wait is
 *   never left with nobody to detect it.
 *
 * Strategies (weft_io_strategy), per handle h:
 *   adaptive - all of the above;
 *   polling  - no passive detection: idle workers poll for as long as waits
 *              last, busy workers at switches, the server thread on a timer
 *              at each class's period when no worker polls;
 *   blocking - classes with a passive method (the fd class, a pollfd, a
 *              block()) are detected by the server thread (or the class's
 *              blocker) alone, engaged at every wait; others are polled;
 *   naive    - none of this: each waiter polls and yields (wait.c, fd.c).
 *
 * Polling periods follow CLAM's SANR rule (adapt.c). Costs: with no
 * waiter anywhere each entry is one load and a branch; with waiters,
 * at_switch is a trylock and a walk over the few registered classes.
 */
#include "io/io.h"

static int nothing_waits(void)
{
    return __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST) == 0;
}

/* ---------------------------------------------------- strategy predicates */

/* A passive way to detect h: the poll set (its pollfd, or the fd class) or
 * a blocker thread. */
static int passive(weft_io_t h)
{
    return h->builtin || h->fd >= 0 || h->has_blocker;
}

int wf_io_safe_points_poll(weft_io_t h)
{
    weft_io_strategy s = wf_io_strategy();
    return s != WEFT_IO_NAIVE && !(s == WEFT_IO_BLOCKING && passive(h));
}

/* Detected by polling on a timer when nobody switches: classes without a
 * passive method, and every class under the polling strategy. */
static int timed(weft_io_t h)
{
    weft_io_strategy s = wf_io_strategy();
    return s == WEFT_IO_POLLING ? 1 : s != WEFT_IO_NAIVE && !passive(h);
}

/* A worker detects: one spins, or one sleeps in the poll set. */
static int worker_detects(void)
{
    int who = wf_io_set_sleeper();
    return wf_sched_spinning() || (who != WF_IO_SLEEPER_NONE && who != WF_IO_SLEEPER_SERVER);
}

/* ------------------------------------------------------------- polling */

/* at_switch: 0 (a timer), SWITCH (a busy worker's switch) or
 * SWITCH_DETECTS (a switch that stands in for the server thread: every
 * class with waiters is due). */
enum { SWITCH = 1, SWITCH_DETECTS = 2 };

static int due(weft_io_t h, int64_t now, int at_switch)
{
    if (at_switch == SWITCH_DETECTS || (at_switch && h->p.frequency == 0))
        return 1;
    return now - __atomic_load_n(&h->last_poll_ns, __ATOMIC_RELAXED) >= wf_io_period_ns(h);
}

/* Poll the due classes with waiters that `want` selects; *next: when the
 * next timed one falls due (-1: none). Registry lock held. */
static int poll_due_locked(int64_t now, int how, int at_switch, int64_t *next)
{
    int woken = 0;
    *next = -1;
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!wf_io_has_waiters(h) || !(at_switch ? wf_io_safe_points_poll(h) : timed(h)))
            continue;
        if (due(h, now, at_switch))
            woken += wf_io_poll_class(h, how) > 0;
        if (!timed(h))
            continue;
        int64_t at = __atomic_load_n(&h->last_poll_ns, __ATOMIC_RELAXED) + wf_io_period_ns(h);
        at = at > now ? at : now + wf_io_period_ns(h);
        if (*next < 0 || at < *next)
            *next = at;
    }
    return woken;
}

int wf_io_poll_due(int64_t now, int how, int64_t *next)
{
    *next = -1;
    if (nothing_waits())
        return 0;
    wf_lock(&wf_io_reg_lock);
    int woken = poll_due_locked(now, how, 0, next);
    wf_unlock(&wf_io_reg_lock);
    return woken;
}

/* One round over every class with waiters (a spinning worker). */
static int poll_all(void)
{
    if (wf_io_set_sleeper() == WF_IO_SLEEPER_SERVER)
        wf_io_set_interrupt(); /* the server thread leaves the set to us */
    if (!wf_trylock(&wf_io_reg_lock))
        return 0;
    int prev = wf_io_set_idle_polling(1), woken = 0;
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next)
        if (wf_io_has_waiters(h) && wf_io_safe_points_poll(h))
            woken += wf_io_poll_class(h, WF_DET_POLL) > 0;
    wf_io_set_idle_polling(prev);
    wf_unlock(&wf_io_reg_lock);
    return woken;
}

/* ---------------------------------------------------------- coverage */

int wf_io_server_waiting(void)
{
    int all = __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST);
    int blocked = __atomic_load_n(&wf_io_nblocked, __ATOMIC_SEQ_CST);
    return wf_io_strategy() == WEFT_IO_POLLING ? all > 0 : all - blocked > 0;
}

void wf_io_cover(weft_io_t h)
{
    weft_io_strategy s = wf_io_strategy();
    if (s == WEFT_IO_NAIVE)
        return;
    wf_io_hooks_install();
    if (h->has_blocker && s != WEFT_IO_POLLING) {
        wf_io_blocker_engage(h);
        return;
    }
    /* The poll set's sleeper chose its timeout before this wait: a class
     * that only polling detects needs it to look again. */
    if (timed(h) && wf_io_set_sleeper() != WF_IO_SLEEPER_NONE)
        wf_io_set_interrupt();
    /* A ULT waiter parks: the switch that follows decides (at_switch). */
    if (s == WEFT_IO_BLOCKING || !(worker_detects() || wf_self()))
        wf_io_server_engage();
}

/* ------------------------------------------------ the server thread */

static wf_io_thread server;

/* An idle worker asleep on its futex detects better than the server
 * thread: the event then wakes the worker that runs its waiter, one
 * kernel wake-up instead of two (the server thread's, then the
 * worker's). */
static int worker_can_take_over(void)
{
    return wf_io_strategy() == WEFT_IO_ADAPTIVE && wf_sched_idle_workers() > 0;
}

static int server_needed(void *arg)
{
    (void)arg;
    return wf_io_server_waiting() && !worker_detects() && !worker_can_take_over();
}

/* One round: poll the classes only polling detects that are due, then
 * sleep in the poll set until an event or the next one is due - under the
 * polling strategy, sleep without the set. Hands the set to an idle worker
 * that can take it; leaves it to a worker asleep there. */
static int server_round(void *arg)
{
    (void)arg;
    if (!wf_io_server_waiting())
        return 0;
    int64_t next;
    wf_io_poll_due(wf_io_now(), WF_DET_POLL, &next);
    if (wf_io_strategy() == WEFT_IO_POLLING) {
        wf_io_thread_nap(&server, next >= 0 ? next : wf_io_now() + wf_io_tick_ns());
        return 1;
    }
    if (worker_can_take_over()) {
        wf_sched_wake_idle(); /* to take the set */
        return 0;
    }
    if (worker_detects())
        return 0; /* no sleeper beside a spinning worker */
    return wf_io_sleep_in_set(next, WF_IO_SLEEPER_SERVER) >= 0;
}

void wf_io_server_start(void)
{
    server.round = server_round;
    server.needed = server_needed;
    if (wf_io_thread_start(&server, "weft-server") == 0)
        pthread_detach(server.pthread);
}

void wf_io_server_engage(void)
{
    wf_io_thread_engage(&server);
}

int wf_io_server_engaged(void)
{
    return wf_io_thread_engaged(&server);
}

/* ----------------------------------------- the scheduler's entries */

static int64_t earliest(int64_t a, int64_t b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* An idle worker's sleep (the head comment). */
static int sleep_idle(int64_t deadline)
{
    weft_io_strategy s = wf_io_strategy();
    if (s == WEFT_IO_POLLING)
        return poll_all();
    if (s != WEFT_IO_ADAPTIVE || !wf_io_server_waiting())
        return -1;
    int64_t next;
    int woken = wf_io_poll_due(wf_io_now(), WF_DET_POLL, &next);
    int slept = wf_io_sleep_in_set(earliest(deadline, next), weft_worker_id());
    if (slept < 0 && wf_io_set_sleeper() == WF_IO_SLEEPER_SERVER)
        wf_io_set_interrupt(); /* the server thread hands the set over */
    if (slept < 0)
        return -1;
    return woken + slept + wf_io_poll_due(wf_io_now(), WF_DET_POLL, &next);
}

static int io_poll(int64_t deadline)
{
    if (nothing_waits())
        return deadline == 0 ? 0 : -1;
    return deadline == 0 ? poll_all() : sleep_idle(deadline);
}

static void io_interrupt(void)
{
    wf_io_set_interrupt();
}

/* Waits that nobody detects passively: no worker spins or sleeps in the
 * poll set, and the server thread is not engaged. */
static int uncovered(void)
{
    return wf_io_server_waiting() && !worker_detects() && !wf_io_server_engaged() &&
           wf_io_strategy() != WEFT_IO_NAIVE;
}

/* A busy worker, in the thread it switched to: poll what is due, then make
 * sure the waits are covered. A thread that ran short last time will
 * likely switch again soon: its worker detects at those switches, polling
 * every class with waiters, instead of waking a server thread that would
 * take the CPU from it at each event. Any other thread may compute for
 * long: an idle worker, or the server thread, takes the waits. */
static void at_switch(void)
{
    if (!wf_self() || nothing_waits())
        return;
    int open = uncovered();
    int here = open && wf_sched_self_runs_short();
    int64_t next;
    if (wf_trylock(&wf_io_reg_lock)) {
        poll_due_locked(wf_io_now(), WF_DET_POLL, here ? SWITCH_DETECTS : SWITCH, &next);
        wf_unlock(&wf_io_reg_lock);
    }
    if (!open || here)
        return;
    if (!wf_sched_wake_idle())
        wf_io_server_engage();
}

/* A thread that switched soon before has run through a tick: the waits
 * its worker's switches were detecting go to the server thread. In the
 * tick's signal handler: atomics and a futex wake only. */
static void at_tick(void)
{
    if (!nothing_waits() && uncovered())
        wf_io_server_engage();
}

static const wf_sched_hooks hooks = { .at_switch = at_switch, .at_tick = at_tick };
static const wf_sched_poller poller = { io_poll, io_interrupt };
static int hooks_on; /* atomic */
static int hooks_lock;

/* weft_fini: the workers are about to stop. Unhook (re-installed at the
 * next wait), and wake a worker asleep in the poll set: without the
 * poller, the scheduler's wake-up would no longer reach it. */
static int io_fini(void)
{
    wf_lock(&hooks_lock);
    wf_sched_remove_hooks(&hooks);
    wf_sched_set_poller(NULL);
    __atomic_store_n(&hooks_on, 0, __ATOMIC_SEQ_CST);
    wf_unlock(&hooks_lock);
    wf_io_set_interrupt();
    return 0;
}

int wf_io_hooks_install(void)
{
    int err = 0;
    if (__atomic_load_n(&hooks_on, __ATOMIC_ACQUIRE))
        return 0;
    wf_lock(&hooks_lock);
    if (!hooks_on && (err = wf_sched_add_hooks(&hooks)) == 0) {
        wf_sched_set_poller(&poller);
        wf_sched_add_fini_hook(io_fini);
        __atomic_store_n(&hooks_on, 1, __ATOMIC_RELEASE);
    }
    wf_unlock(&hooks_lock);
    return err;
}
