/* Event classes' waits: the request list of a handle, the aggregated poll
 * round, and the one blocking primitive, weft_io_wait[_until].
 *
 * Aggregation. Every waiting request of a handle sits on one list, in
 * arrival order; group() is called after each change so that the class can
 * rebuild whatever its poll() tests (PM2's MPI_group building the array
 * for MPI_Testany). One poll round then serves every waiter: poll() returns
 * the index of a ready request, the server unlinks and wakes it, calls
 * group() and polls again, until poll() says -1 or nothing waits. So k
 * waiters that are not ready cost one poll() per round, not k; k that are
 * ready cost k + 1 poll() calls and k group() calls.
 *
 * A wait links the request (group), polls once at once - the waiter's own
 * test: a request already complete never blocks - then makes sure a route
 * will detect it (detect.c's wf_io_cover) and blocks the caller through
 * the scheduler's wf_wait: a ULT leaves its worker, an external kernel
 * thread sleeps on a futex. Detection happens elsewhere (include/weft/io.h
 * tables the routes) and wakes the waiter with wf_wait_wake_urgent, which
 * raises it to WEFT_PRIO_HIGH and preempts a compute thread if no worker
 * is idle. A deadline arms a wf_timeout on the same wf_wait; exactly one
 * of the detector, the timer or a cancel wins it (sched.h), and a waiter
 * that was not woken by detection unlinks its own request.
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
    if (h->has_blocker)
        __atomic_fetch_add(&wf_io_nblocked, delta, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&wf_io_nwaiting, delta, __ATOMIC_SEQ_CST);
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
    if (wf_wait_wake_urgent(r->wait, r->reason))
        return 1;
    wf_io_stat_detect(h, how, latency, -1); /* woken otherwise (deadline...) */
    return 0;
}

int wf_io_poll_locked(weft_io_t h, int how, const wf_io_req *own)
{
    int woken = 0;
    weft_io_t prev = wf_io_set_current(h);
    __atomic_store_n(&h->kicked, 0, __ATOMIC_SEQ_CST);
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

static void mark_polled(weft_io_t h, int found)
{
    __atomic_store_n(&h->last_poll_tick, wf_sched_tick_count(), __ATOMIC_RELAXED);
    __atomic_store_n(&h->last_poll_ns, wf_io_now(), __ATOMIC_RELAXED);
    wf_io_adapt_period(h, found);
}

/* Waiters remain after a round: their events must still wake the poll
 * set's sleeper. */
static void rearm(weft_io_t h)
{
    if (h->fd >= 0 && h->nreq > 0)
        wf_io_set_arm(h);
}

int wf_io_poll_round(weft_io_t h, int how)
{
    if (!wf_trylock(&h->lock))
        return -1;
    int n;
    if (h->builtin) {
        n = wf_io_set_poll(how);
    } else {
        n = h->nreq > 0 ? wf_io_poll_locked(h, how, NULL) : 0;
        rearm(h);
    }
    mark_polled(h, n);
    wf_unlock(&h->lock);
    return n;
}

int weft_io_poll(weft_io_t h)
{
    if (!h)
        return WEFT_EINVAL;
    if (!wf_io_has_waiters(h))
        return 0;
    int n = wf_io_poll_round(h, WF_DET_POLL);
    return n < 0 ? 0 : n;
}

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
    rearm(h);
    wf_unlock(&h->lock);
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

static int wait_blocked(weft_io_t h, wf_wait *w, int64_t deadline)
{
    if (wf_io_strategy() == WEFT_IO_NAIVE)
        return wait_naive(h, w, deadline);
    if (is_woken(w))
        return wf_wait_block(w, NULL, NULL);
    if (deadline == 0)
        return give_up(w, WEFT_ETIMEDOUT);
    wf_timeout to;
    wf_timeout_start(&to, w, deadline);
    wf_io_cover(h);
    int reason = wf_wait_block(w, NULL, NULL);
    wf_timeout_stop(&to);
    return reason;
}

int weft_io_wait_until(weft_io_t h, void *arg, int64_t deadline)
{
    if (!h || h->builtin)
        return WEFT_EINVAL;
    wf_wait w;
    wf_wait_init(&w);
    wf_io_req r = { .wait = &w, .arg = arg, .reason = 0, .start_ns = wf_io_now() };
    wf_io_enter_user(h);
    int err = wf_io_req_add(h, &r);
    if (!err) {
        int reason = wait_blocked(h, &w, deadline);
        if (reason != r.reason)
            wf_io_req_remove(h, &r);
        if (reason == WEFT_ETIMEDOUT)
            wf_io_stat_add(&h->st.timeouts, 1);
        err = reason == r.reason ? 0 : reason;
    }
    wf_io_leave_user(h);
    return err;
}

int weft_io_wait(weft_io_t h, void *arg)
{
    return weft_io_wait_until(h, arg, WEFT_FOREVER);
}
