/* User event classes: the request list of a handle, the aggregated poll
 * round, and the one blocking primitive, weft_io_wait[_until].
 *
 * Aggregation. Every waiting request of a handle sits on one list, in
 * arrival order; group() is called after each change so that the class can
 * rebuild whatever its poll() tests (PM2's MPI_group building the array
 * for MPI_Testany). One poll round then serves every waiter: poll() returns
 * the index of a ready request, the server unlinks and wakes it, calls
 * group() and polls again, until poll() says -1 or nothing waits. So k
 * waiters that are not ready cost one poll() per safe point, not k; k that
 * are ready cost k + 1 poll() calls and k group() calls.
 *
 * A wait: where the class has a test() callback and the caller's worker
 * has nothing else to run, test the request alone first, unlinked
 * (ready_unlinked below); then link the request (group), poll once at
 * once (the "immediate" test: a request already complete never blocks),
 * then block the caller through the scheduler's wf_wait: a ULT leaves its
 * worker, an external kernel thread sleeps on a futex. Detection happens
 * elsewhere (detect.c, blocking.c) and wakes the waiter with
 * wf_wait_wake_urgent, which raises it to WEFT_PRIO_HIGH and preempts a
 * compute thread if no worker is idle.
 * A deadline arms a wf_timeout on the same wf_wait; exactly one of the
 * detector, the timer or a cancel wins it (sched.h), and a waiter that was
 * not woken by detection unlinks its own request.
 *
 * Naive mode (WEFT_IO_NAIVE, the paper's baseline) skips all of that: the
 * waiter polls the handle itself and yields, in a loop.
 *
 * Index lookup walks the list: O(index). group() is O(n) by its nature
 * (it is handed the whole set), so an array would not change the order of
 * the cost, and the list makes a waiter's own removal O(1).
 *
 * Invariants (h->lock): h->nreq == length of the list; r->queued == 1 iff
 * r is linked; h->gen changes at every link/unlink.
 */
#include <sched.h>

#include "io/io.h"
#include "timer/timer.h"
#include "util/cpu.h"
#include "util/run_delay.h"

/* ------------------------------------------------------------ the list */

static void call_group(weft_io_t h)
{
    if (!h->p.group)
        return;
    weft_io_t prev = wf_io_set_current(h);
    h->p.group(h->p.ctx);
    wf_io_set_current(prev);
}

static void count_change(weft_io_t h, int delta)
{
    __atomic_store_n(&h->nreq, h->nreq + delta, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&wf_io_nwaiting, delta, __ATOMIC_SEQ_CST);
    if (h->p.frequency == 0)
        __atomic_fetch_add(&wf_io_nevery, delta, __ATOMIC_RELAXED);
    __atomic_fetch_add(&wf_io_epoch, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&h->gen, h->gen + 1, __ATOMIC_RELAXED);
}

void wf_io_link(weft_io_t h, wf_io_req *r)
{
    r->next = NULL;
    r->prev = h->tail;
    if (h->tail)
        h->tail->next = r;
    else
        h->head = r;
    h->tail = r;
    r->queued = 1;
    count_change(h, 1);
    call_group(h);
}

void wf_io_unlink(weft_io_t h, wf_io_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        h->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        h->tail = r->prev;
    r->next = r->prev = NULL;
    r->queued = 0;
    count_change(h, -1);
    call_group(h);
}

static wf_io_req *nth(weft_io_t h, int idx)
{
    wf_io_req *r = h->head;
    while (r && idx-- > 0)
        r = r->next;
    return r;
}

/* ------------------------------------------------------------- detection */

/* Counted before the wake, so that a waiter that returns sees its own
 * detection in the statistics; taken back if the wake lost. */
int wf_io_fire(weft_io_t h, wf_io_req *r, int how)
{
    int64_t latency = wf_io_now() - r->start_ns;
    wf_io_stat_detect(h, how, latency, 1);
    if (__atomic_load_n(&wf_io_tracing, __ATOMIC_RELAXED))
        wf_io_trace_fire(h, r, how);
    if (wf_wait_wake_urgent(r->wait, r->reason)) {
        if (how != WF_DET_IMMEDIATE)
            wf_io_adapt_spin(h, latency);
        return 1;
    }
    wf_io_stat_detect(h, how, latency, -1); /* woken otherwise (deadline...) */
    return 0;
}

int wf_io_poll_locked(weft_io_t h, int how, const wf_io_req *own)
{
    int woken = 0;
    weft_io_t prev = wf_io_set_current(h);
    for (int guard = h->nreq + 1; guard > 0 && h->nreq > 0; guard--) {
        int idx = h->p.poll(h->p.ctx);
        wf_io_stat_add(&h->st.polls, 1);
        wf_io_req *r = idx >= 0 ? nth(h, idx) : NULL;
        if (!r)
            break;
        wf_io_unlink(h, r);
        woken += wf_io_fire(h, r, r == own ? WF_DET_IMMEDIATE : how);
    }
    wf_io_set_current(prev);
    return woken;
}

static int user_test(weft_io_t h, int how)
{
    if (!wf_trylock(&h->lock))
        return -1;
    int n = h->nreq > 0 ? wf_io_poll_locked(h, how, NULL) : 0;
    wf_unlock(&h->lock);
    return n;
}

/* Lags up to this are usual wake-ups (adapt.c): not worth a run-delay
 * read (~0.6 us) on the way to the waiter. */
#define WAKE_USUAL_NS (50 * 1000LL)

/* What the running block() reported with weft_io_note_wake (this kernel
 * thread's; `h` is set while one runs). */
static __thread struct {
    weft_io_t h;
    int noted;
    int64_t event_ns, seen_ns;
} wake_note;

void weft_io_note_wake(int64_t event_ns, int64_t seen_ns)
{
    if (!wake_note.h || wake_note.noted || seen_ns < event_ns)
        return;
    __atomic_store_n(&wake_note.h->reports_wake, 1, __ATOMIC_RELAXED);
    wake_note.noted = 1;
    wake_note.event_ns = event_ns;
    wake_note.seen_ns = seen_ns;
}

/* A sleep's cost teaches the spin budget (adapt.c) only if the event came
 * while block() slept and the CPU was this worker's alone, and without
 * the time this thread then queued for a CPU (`queued`: its run delay
 * before the sleep, or -1 if unknown): a lag spent waiting for a CPU
 * other tasks hold is no reason to spin longer - the spin would hold a
 * CPU they want. */
static void learn_wake_cost(weft_io_t h, int64_t entered, int64_t queued)
{
    if (!wake_note.noted || wake_note.event_ns < entered || wf_sched_contended() ||
        wf_sched_cpu_shared(entered))
        return;
    int64_t lag = wake_note.seen_ns - wake_note.event_ns;
    if (queued >= 0 && lag > WAKE_USUAL_NS) { /* else nothing to take off */
        int64_t now = wf_run_delay_ns();
        lag -= now >= queued ? now - queued : 0;
    }
    wf_io_adapt_wake(h, lag > 0 ? lag : 0);
}

int wf_io_call_block(weft_io_t h)
{
    weft_io_t prev = wf_io_set_current(h);
    wf_io_trace_stamp(&h->tr_enter);
    /* the run delay only for classes that report their sleeps' cost */
    int64_t entered = wf_io_now(),
            queued = __atomic_load_n(&h->reports_wake, __ATOMIC_RELAXED) ? wf_run_delay_ns() : -1;
    wake_note.h = h;
    wake_note.noted = 0;
    int idx = h->p.block(h->p.ctx, WF_IO_BLOCK_SLICE_MS);
    wake_note.h = NULL;
    learn_wake_cost(h, entered, queued);
    wf_io_trace_stamp(&h->tr_ret);
    wf_io_set_current(prev);
    return idx;
}

/* On the blocker thread: block() runs without the lock (it may sleep for
 * long), so its index is trusted only if the set did not change meanwhile;
 * a poll round under the lock follows in any case. */
static void user_block(weft_io_t h)
{
    uint64_t gen = __atomic_load_n(&h->gen, __ATOMIC_RELAXED);
    int idx = wf_io_call_block(h);
    wf_lock(&h->lock);
    wf_io_req *r = (idx >= 0 && h->gen == gen) ? nth(h, idx) : NULL;
    if (r) {
        wf_io_unlink(h, r);
        wf_io_fire(h, r, WF_DET_BLOCK);
    }
    if (h->nreq > 0)
        wf_io_poll_locked(h, WF_DET_BLOCK, NULL);
    wf_unlock(&h->lock);
}

const wf_io_ops wf_io_user_ops = { user_test, user_block };

/* ------------------------------------------------------------- requests */

int wf_io_req_add(weft_io_t h, wf_io_req *r)
{
    wf_lock(&h->lock);
    if (h->dead) {
        wf_unlock(&h->lock);
        return WEFT_ECANCELED;
    }
    wf_io_link(h, r);
    wf_io_stat_add(&h->st.waits, 1);
    if (wf_io_strategy() != WEFT_IO_NAIVE)
        wf_io_poll_locked(h, WF_DET_POLL, r);
    wf_unlock(&h->lock);
    __atomic_store_n(&h->last_wait_ns, r->start_ns, __ATOMIC_RELAXED);
    return 0;
}

void wf_io_req_remove(weft_io_t h, wf_io_req *r)
{
    wf_lock(&h->lock);
    if (r->queued)
        wf_io_unlink(h, r);
    wf_unlock(&h->lock);
}

/* ----------------------------------------------------------------- waits */

static int is_woken(wf_wait *w)
{
    return __atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == WF_WAIT_WOKEN;
}

/* Give up now: win our own wait (or learn who did). */
static int give_up(wf_wait *w, int reason)
{
    wf_wait_wake(w, reason);
    return wf_wait_block(w, NULL, NULL);
}

/* Test (poll the handle ourselves), then give up or yield, in a loop. */
static int wait_naive(weft_io_t h, wf_wait *w, int64_t deadline)
{
    for (;;) {
        if (wf_trylock(&h->lock)) {
            if (h->nreq > 0)
                wf_io_poll_locked(h, WF_DET_POLL, NULL);
            wf_unlock(&h->lock);
        }
        if (is_woken(w))
            return wf_wait_block(w, NULL, NULL);
        if (deadline >= 0 && (deadline == 0 || wf_io_now() >= deadline))
            return give_up(w, WEFT_ETIMEDOUT);
        if (wf_self())
            weft_thread_yield();
        else
            sched_yield();
    }
}

/* 1 if every waiting request of every handle is h's: the idle loop would
 * poll no other handle either. */
static int only_waiters_of(weft_io_t h)
{
    return __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST) ==
           __atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST);
}

static int test_in_place(weft_io_t h)
{
    wf_rt_enter(); /* the flag belongs to this worker: stay on it */
    wf_io_idle_polling = 1; /* nothing else to run here (weft_io_idle_poll) */
    int n = h->ops->test(h, WF_DET_POLL);
    wf_io_idle_polling = 0;
    wf_rt_leave();
    return n;
}

/* Poll in place: a ULT whose worker has nothing else to run polls h
 * itself for a short while (detect.c says how long) before parking.
 * Parked, it would switch to the worker's idle loop, which polls the same
 * handle, and be switched back at the event: per message of an 8 B
 * ping-pong over loopback, ~0.5 us of the ~1.2 us from the detection to
 * the reply's sendmsg went to that round trip through the idle loop
 * (fire -> idle loop -> pick -> switch -> back in the wait). The loop
 * stops as soon as another thread is runnable or a request of another
 * handle waits, so it delays nobody: it is what the idle loop would do,
 * minus the switches. Timers are the timer service's own thread's to
 * fire meanwhile, as while any thread runs (the worker is not idle). */
static void poll_in_place(weft_io_t h, wf_wait *w, int64_t start, int64_t deadline)
{
    int64_t until = wf_io_in_place_until(h, start);
    if (deadline >= 0 && deadline < until)
        until = deadline;
    while (until > 0 && !is_woken(w) && wf_sched_nready() == 0 && only_waiters_of(h)) {
        if (test_in_place(h) <= 0 && wf_io_now() >= until)
            return;
        wf_cpu_relax();
    }
}

/* ------------------------------------------------- testing unlinked */

/* Testing unlinked: a waiter whose worker would otherwise go idle and
 * spin on h, while no request of any class waits, calls the class's
 * test() on its own request before linking it, for as long as it would
 * poll in place linked. Linked, the detection that ends a short wait
 * costs the list's changes, two group() calls, the wake and the wait's
 * bookkeeping: ~0.25 us of the ~1 us from the reply's arrival to the next
 * send of an 8 B MPI ping-pong over loopback (the round trip itself is
 * ~12 us). Unlinked, nobody else can find the request: hence only while
 * nothing else waits (an idle loop would poll those waiters; this loop
 * does not) and nothing else is runnable here. A wait that unregister
 * cancels meanwhile learns it when it links (wf_io_req_add). */
static int test_own(weft_io_t h, void *arg)
{
    wf_rt_enter(); /* the flag belongs to this worker: stay on it */
    wf_io_idle_polling = 1;
    weft_io_t prev = wf_io_set_current(h);
    int ready = h->p.test(h->p.ctx, arg);
    wf_io_set_current(prev);
    wf_io_idle_polling = 0;
    wf_rt_leave();
    return ready;
}

static int alone_on_worker(void)
{
    return wf_sched_nready() == 0 && __atomic_load_n(&wf_io_nwaiting, __ATOMIC_SEQ_CST) == 0;
}

/* The statistics, spin adaptation and trace of a wait detected unlinked,
 * as wf_io_fire keeps them for a linked one. */
static void note_unlinked(weft_io_t h, wf_io_req *r, int how)
{
    int64_t latency = wf_io_now() - r->start_ns;
    wf_io_stat_add(&h->st.waits, 1);
    wf_io_stat_detect(h, how, latency, 1);
    if (how != WF_DET_IMMEDIATE)
        wf_io_adapt_spin(h, latency);
    if (__atomic_load_n(&wf_io_tracing, __ATOMIC_RELAXED)) {
        wf_io_trace_fire(h, r, how);
        wf_io_trace_done(h, r);
    }
}

/* 1 if r's request was found ready by testing it unlinked. */
static int ready_unlinked(weft_io_t h, wf_io_req *r, int64_t deadline)
{
    /* The cheap look first: under compute, that is all a wait pays. */
    if (!h->p.test || !alone_on_worker())
        return 0;
    int64_t until = wf_io_in_place_until(h, r->start_ns);
    if (deadline >= 0 && deadline < until)
        until = deadline;
    for (int how = WF_DET_IMMEDIATE; until > 0 && alone_on_worker(); how = WF_DET_POLL) {
        if (test_own(h, r->arg)) {
            note_unlinked(h, r, how);
            return 1;
        }
        if (wf_io_now() >= until)
            return 0;
        wf_cpu_relax();
    }
    return 0;
}

/* ------------------------------------------------------ linked waits */

static int wait_blocked(weft_io_t h, wf_wait *w, int64_t start, int64_t deadline)
{
    if (wf_io_strategy() == WEFT_IO_NAIVE)
        return wait_naive(h, w, deadline);
    if (is_woken(w))
        return wf_wait_block(w, NULL, NULL);
    if (deadline == 0)
        return give_up(w, WEFT_ETIMEDOUT);
    wf_timeout to;
    wf_timeout_start(&to, w, deadline);
    wf_io_after_publish(h);
    poll_in_place(h, w, start, deadline);
    int reason = wf_wait_block(w, NULL, NULL);
    wf_timeout_stop(&to);
    return reason;
}

static int wait_linked(weft_io_t h, wf_io_req *r, int64_t deadline)
{
    int err = wf_io_req_add(h, r);
    if (err)
        return err;
    int reason = wait_blocked(h, r->wait, r->start_ns, deadline);
    if (reason != r->reason)
        wf_io_req_remove(h, r);
    if (reason == WEFT_ETIMEDOUT)
        wf_io_stat_add(&h->st.timeouts, 1);
    if (__atomic_load_n(&wf_io_tracing, __ATOMIC_RELAXED))
        wf_io_trace_done(h, r);
    return reason == r->reason ? 0 : reason;
}

int weft_io_wait_until(weft_io_t h, void *arg, int64_t deadline)
{
    if (!h || h->builtin)
        return WEFT_EINVAL;
    wf_wait w;
    wf_wait_init(&w);
    wf_io_req r = { .wait = &w, .arg = arg, .reason = 0, .start_ns = wf_io_now() };
    wf_io_enter_user(h);
    int err = ready_unlinked(h, &r, deadline) ? 0 : wait_linked(h, &r, deadline);
    wf_io_leave_user(h);
    return err;
}

int weft_io_wait(weft_io_t h, void *arg)
{
    return weft_io_wait_until(h, arg, WEFT_FOREVER);
}
