/* weft_wait_any: wait for the first of several events of different classes
 * (fds, user event classes, later signals), or a deadline.
 *
 * Design (libdill's clauses: arm each, wait, the first to fire cancels the
 * rest). All clauses share one wf_wait; each clause is an ordinary request
 * of its class whose wake reason is the clause's index. The scheduler lets
 * exactly one waker win a wf_wait, so the first detection (or the deadline)
 * decides, and the others' wakes are no-ops. Afterwards the waiter unlinks
 * every request still queued, under each owner's lock - a detector that
 * lost the race has already unlinked its own. A clause's event that was
 * detected but lost the race is not lost for fds (readiness is level:
 * the next wait sees it again); for a user class, poll() reported that
 * request ready once, so the caller should test it again after another
 * clause won (as with any "any" primitive).
 *
 * Arming stops at the first clause already ready (its immediate test wins
 * the wait), so a ready clause early in the array costs no registration of
 * the later ones. Up to 16 clauses use the stack; more are allocated.
 *
 * Signals: a clause queues a wf_sig_waiter (signal/signal.h) pointing to
 * the shared wf_wait, with the clause index as reason. The signal layer
 * handles the lost race: a wake-one delivery that finds the wait already
 * won by another clause goes to the next waiter of that signal or stays
 * pending, so it is never swallowed. Signal clauses have no owner handle:
 * no statistics, no strategy hand-over (deliveries are pushed to waiters).
 */
#include <sched.h>
#include <stdlib.h>

#include "io/io.h"
#include "signal/signal.h"
#include "timer/timer.h"

#define STACK_CLAUSES 16

/* Per-clause state on the waiter's stack: the request of an FD or IO
 * clause, or the node of a SIGNAL clause. */
typedef struct arm_rec {
    wf_io_req req;
    wf_sig_waiter sig;
} arm_rec;

static int check(const weft_clause *c)
{
    switch (c->kind) {
    case WEFT_CLAUSE_FD:
        return c->fd >= 0 && c->events && !(c->events & ~(WEFT_IO_READ | WEFT_IO_WRITE))
                   ? 0 : WEFT_EINVAL;
    case WEFT_CLAUSE_IO:
        return c->io && !c->io->builtin ? 0 : WEFT_EINVAL;
    case WEFT_CLAUSE_SIGNAL:
        return c->sig > 0 ? 0 : WEFT_EINVAL; /* set or not: at arming */
    default:
        return WEFT_EINVAL;
    }
}

/* The handle a clause's request lives in; NULL for a signal clause. */
static weft_io_t owner(const weft_clause *c)
{
    if (c->kind == WEFT_CLAUSE_SIGNAL)
        return NULL;
    return c->kind == WEFT_CLAUSE_FD ? wf_io_fd_handle() : c->io;
}

static int arm_fd(weft_clause *c, wf_io_req *r, weft_io_t fdh)
{
    wf_io_stat_add(&fdh->st.waits, 1);
    int got = wf_io_fd_test(c->fd, c->events);
    if (got == 0 && wf_io_strategy() == WEFT_IO_NAIVE)
        return 0; /* the waiter will test it itself */
    if (got == 0) {
        got = wf_io_fd_add(c->fd, r);
        if (got == WF_IO_FD_SIGIO)
            wf_io_sigio_kick();
        if (got == 0 || got == WF_IO_FD_SIGIO)
            return 0;
        if (got == -EPERM) /* not pollable: always ready */
            got = (int)c->events;
    }
    if (got < 0)
        return got;
    r->result = (unsigned)got;
    if (wf_wait_wake(r->wait, r->reason))
        wf_io_stat_detect(fdh, WF_DET_IMMEDIATE, 0, 1);
    return 0;
}

static int arm(weft_clause *c, arm_rec *a)
{
    wf_io_req *r = &a->req;
    if (c->kind == WEFT_CLAUSE_SIGNAL)
        return wf_sig_wait_start(c->sig, &a->sig, r->wait, r->reason);
    if (c->kind == WEFT_CLAUSE_FD)
        return arm_fd(c, r, wf_io_fd_handle());
    r->arg = c->arg;
    wf_io_enter_user(c->io);
    int err = wf_io_req_add(c->io, r);
    if (err)
        wf_io_leave_user(c->io);
    return err;
}

static void disarm(weft_clause *c, arm_rec *a, int reason)
{
    wf_io_req *r = &a->req;
    if (c->kind == WEFT_CLAUSE_SIGNAL) {
        wf_sig_wait_stop(&a->sig);
        return;
    }
    weft_io_t h = owner(c);
    if (reason == WEFT_ETIMEDOUT)
        wf_io_stat_add(&h->st.timeouts, 1);
    if (c->kind == WEFT_CLAUSE_FD) {
        wf_io_fd_remove(c->fd, r);
        return;
    }
    wf_io_req_remove(h, r);
    wf_io_leave_user(h);
}

static int woken(wf_wait *w)
{
    return __atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == WF_WAIT_WOKEN;
}

/* Naive mode: test every clause ourselves, then yield, until one fires. */
static void test_all(weft_clause *c, arm_rec *a, int n)
{
    for (int i = 0; i < n && !woken(a[i].req.wait); i++) {
        if (c[i].kind == WEFT_CLAUSE_SIGNAL)
            continue; /* deliveries wake the wait themselves */
        if (c[i].kind == WEFT_CLAUSE_IO) {
            if (wf_trylock(&c[i].io->lock)) {
                wf_io_poll_locked(c[i].io, WF_DET_POLL, NULL);
                wf_unlock(&c[i].io->lock);
            }
            continue;
        }
        int got = wf_io_fd_test(c[i].fd, c[i].events);
        if (got > 0)
            a[i].req.result = (unsigned)got;
        if (got != 0)
            wf_wait_wake(a[i].req.wait, got > 0 ? i : got);
    }
}

static int wait_naive(weft_clause *c, arm_rec *reqs, int n, wf_wait *w, int64_t deadline)
{
    for (;;) {
        test_all(c, reqs, n);
        if (woken(w))
            return wf_wait_block(w, NULL, NULL);
        if (deadline >= 0 && (deadline == 0 || wf_io_now() >= deadline))
            wf_wait_wake(w, WEFT_ETIMEDOUT);
        else if (wf_self())
            weft_thread_yield();
        else
            sched_yield();
    }
}

static int block_until(weft_clause *c, arm_rec *reqs, int n, wf_wait *w, int64_t deadline)
{
    if (wf_io_strategy() == WEFT_IO_NAIVE)
        return wait_naive(c, reqs, n, w, deadline);
    if (woken(w))
        return wf_wait_block(w, NULL, NULL);
    if (deadline == 0) {
        wf_wait_wake(w, WEFT_ETIMEDOUT);
        return wf_wait_block(w, NULL, NULL);
    }
    wf_timeout to;
    wf_timeout_start(&to, w, deadline);
    for (int i = 0; i < n; i++)
        if (owner(&c[i]))
            wf_io_cover(owner(&c[i]));
    int reason = wf_wait_block(w, NULL, NULL);
    wf_timeout_stop(&to);
    return reason;
}

/* Arm the clauses in order until one fires or fails; wait; disarm. */
static int wait_any(weft_clause *c, int n, int64_t deadline, arm_rec *reqs)
{
    wf_wait w;
    wf_wait_init(&w);
    int64_t now = wf_io_now();
    int armed = 0, reason;
    for (; armed < n; armed++) {
        reqs[armed].req = (wf_io_req){ .wait = &w, .reason = armed, .start_ns = now,
                                       .events = c[armed].events };
        int err = arm(&c[armed], &reqs[armed]);
        if (err) {
            wf_wait_wake(&w, err); /* unless a clause already won */
            break;
        }
        if (woken(&w)) {
            armed++;
            break;
        }
    }
    reason = block_until(c, reqs, armed, &w, deadline);
    for (int i = 0; i < armed; i++) {
        disarm(&c[i], &reqs[i], reason);
        c[i].result = (i == reason && c[i].kind == WEFT_CLAUSE_FD) ? reqs[i].req.result : 0;
    }
    return reason;
}

int weft_wait_any(weft_clause *clauses, int n, int64_t deadline)
{
    if (!clauses || n <= 0)
        return WEFT_EINVAL;
    for (int i = 0; i < n; i++) {
        int err = check(&clauses[i]);
        if (err)
            return err;
    }
    wf_io_init();
    if (!wf_io_fd_handle())
        return WEFT_ENOMEM;
    arm_rec stack_reqs[STACK_CLAUSES];
    arm_rec *reqs = n <= STACK_CLAUSES ? stack_reqs : calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return WEFT_ENOMEM;
    int reason = wait_any(clauses, n, deadline, reqs);
    if (reqs != stack_reqs)
        free(reqs);
    return reason;
}
