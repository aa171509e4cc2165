/* Event classes' requests: the list of a handle's waiting requests, the
 * aggregated poll round, and the detection that wakes a waiter.
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
 * A request joins the list with the waiter's own test: one poll round at
 * once, so a request already complete never blocks (wf_io_req_add). The
 * detector unlinks a ready request and wakes its waiter with
 * wf_wait_wake_urgent, which raises it to WEFT_PRIO_HIGH and preempts a
 * compute thread if no worker is idle.
 *
 * Index lookup walks the list: O(index). group() is O(n) by its nature
 * (it is handed the whole set), so an array would not change the order of
 * the cost, and the list makes a waiter's own removal O(1).
 *
 * Invariants (h->lock): h->nreq == length of the list; r->queued == 1 iff
 * r is linked; h->gen changes at every link/unlink.
 */
#include "io/io.h"

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

void wf_req_list_push(wf_req_list *l, wf_io_req *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    r->queued = 1;
}

void wf_req_list_remove(wf_req_list *l, wf_io_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->next = r->prev = NULL;
    r->queued = 0;
}

void wf_io_link(weft_io_t h, wf_io_req *r)
{
    wf_req_list_push(&h->waiting, r);
    count_change(h, 1);
    call_group(h);
}

void wf_io_unlink(weft_io_t h, wf_io_req *r)
{
    wf_req_list_remove(&h->waiting, r);
    count_change(h, -1);
    call_group(h);
}

static wf_io_req *nth(weft_io_t h, int idx)
{
    wf_io_req *r = h->waiting.head;
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

/* A poll on a thread with nothing else to do (a spinning worker, the
 * poll set's sleeper) costs nobody anything: it does not teach the
 * period, which paces the polls that do cost (adapt.c). */
void wf_io_mark_polled(weft_io_t h, int found)
{
    __atomic_store_n(&h->last_poll_ns, wf_io_now(), __ATOMIC_RELAXED);
    if (!weft_io_idle_poll())
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
    int n = h->nreq > 0 ? wf_io_poll_locked(h, how, NULL) : 0;
    rearm(h);
    wf_io_mark_polled(h, n);
    wf_unlock(&h->lock);
    return n;
}

int weft_io_poll(weft_io_t h)
{
    if (!h || h->builtin)
        return WEFT_EINVAL;
    if (!wf_io_has_waiters(h))
        return 0;
    int n = wf_io_poll_round(h, WF_DET_POLL);
    return n < 0 ? 0 : n;
}

/* What a class's blocker thread found: block() ran without the lock (it
 * may sleep for long), so its index is trusted only if the set did not
 * change meanwhile (gen); a poll round under the lock follows in any
 * case. */
void wf_io_take_block_result(weft_io_t h, int idx, uint64_t gen)
{
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

