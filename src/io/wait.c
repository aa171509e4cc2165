/* weft_io_wait[_until]: the one blocking primitive of event classes.
 *
 * A wait links the request with the waiter's own test (request.c), then
 * makes sure a route will detect it (detect.c's wf_io_cover; the routes
 * are tabled in include/weft/io.h) and blocks the caller through the
 * scheduler's wf_wait: a ULT leaves its worker, an external kernel thread
 * sleeps on a futex. A deadline arms a wf_timeout on the same wf_wait;
 * exactly one of the detector, the timer or a cancel wins it (sched.h),
 * and a waiter that was not woken by detection unlinks its own request.
 *
 * Naive mode (WEFT_IO_NAIVE, the paper's baseline) skips all of that: the
 * waiter polls the handle itself and yields, in a loop.
 */
#include <sched.h>

#include "io/io.h"
#include "timer/timer.h"

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
