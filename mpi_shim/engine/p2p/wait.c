/* Waiting from the caller's side: for sets of requests (MPI_Wait*), for
 * a message to probe (MPI_Probe), and nudging progress from a test loop.
 * A waiter's readiness and the blocking itself: progress.c.
 *
 * Design: a probe waits for the count of unexpected arrivals to move past
 * the value it saw before its last search, then searches again: it cannot
 * miss a message that arrives between its search and its sleep.
 *
 * Rejected: probe waiters registered with the engine and matched on each
 * arrival (a second matching path to keep in step with match.c, to save
 * a re-search per arrival while a probe waits: not worth it).
 *
 * Invariants: condition waiters re-check after waking, so a condition that
 * flips back costs a loop, not a bug.
 * Locking: searches take the engine lock; the arrivals count is atomic.
 */
#include <sched.h>

#include "engine/core/internal.h"

int wmpi_wait_requests(wmpi_request **reqs, int n, int need)
{
    wmpi_waiter w = { .kind = WMPI_WAIT_REQS, .reqs = reqs, .n = n };
    int live = 0;

    for (int i = 0; i < n; i++)
        live += wmpi_request_live(reqs[i]);
    w.need = need < live ? need : live;
    if (w.need <= 0)
        return 0;
    return wmpi_block(&w);
}

void wmpi_progress_poke(void)
{
    wmpi_lock_engine();
    wmpi_progress_locked(WMPI_BUDGET_THREAD);
    wmpi_unlock_engine();
    /* What this progress completed may be what a blocked thread waits for
     * (a non-blocking collective's own thread, another user thread): wake
     * it now rather than at the next safe point or blocker round. */
    weft_io_poll(wmpi_eng.io);
}

/* A program spinning on MPI_Test must not starve what completes its
 * request: a non-blocking collective runs in a thread of its own (coll_run.c),
 * a user-level one that may share this worker, or a kernel one that may
 * share this CPU. Yielding costs ~0.1 us (ULT) or a syscall (pthread). */
void wmpi_progress_yield(void)
{
    if (weft_thread_self() != WEFT_THREAD_NULL)
        weft_thread_yield();
    else
        sched_yield();
}

/* -------------------------------------------------------------- probe */

static void probe_status(wmpi_status *st, const wmpi_unexp *u)
{
    st->source = u->src;
    st->tag = u->tag;
    st->error = 0;
    st->cancelled = 0;
    st->bytes = u->bytes;
}

static void proc_null_status(wmpi_status *st)
{
    st->source = WMPI_PROC_NULL;
    st->tag = WMPI_ANY_TAG;
    st->error = 0;
    st->cancelled = 0;
    st->bytes = 0;
}

static int search(int src, int tag, wmpi_comm *c, wmpi_status *st)
{
    wmpi_mq *mq;
    wmpi_unexp *u = NULL;
    int err;

    wmpi_lock_engine();
    wmpi_progress_locked(WMPI_BUDGET_THREAD);
    mq = wmpi_mq_get_locked(c->ctx);
    if (mq)
        u = wmpi_mq_find_unexp_locked(mq, src, tag, 0);
    if (u)
        probe_status(st, u);
    err = !mq ? WEFT_ENOMEM : u ? 1 : wmpi_peer_err_locked(c, src);
    wmpi_unlock_engine();
    return err;
}

int wmpi_iprobe(int src, int tag, wmpi_comm *c, int *flag, wmpi_status *st)
{
    int found;

    if (src == WMPI_PROC_NULL) {
        proc_null_status(st);
        *flag = 1;
        return 0;
    }
    found = search(src, tag, c, st);
    if (found < 0)
        return found;
    *flag = found;
    return 0;
}

int wmpi_arrivals_changed(void *seen)
{
    return __atomic_load_n(&wmpi_eng.arrivals, __ATOMIC_ACQUIRE) !=
           *(const uint64_t *)seen;
}

int wmpi_probe(int src, int tag, wmpi_comm *c, wmpi_status *st)
{
    uint64_t seen;
    wmpi_waiter w = { .kind = WMPI_WAIT_COND, .cond = wmpi_arrivals_changed,
                      .arg = &seen };
    int found, err;

    if (src == WMPI_PROC_NULL) {
        proc_null_status(st);
        return 0;
    }
    for (;;) {
        seen = __atomic_load_n(&wmpi_eng.arrivals, __ATOMIC_ACQUIRE);
        found = search(src, tag, c, st);
        if (found != 0)
            return found < 0 ? found : 0;
        err = wmpi_block(&w);
        if (err < 0)
            return err;
    }
}
