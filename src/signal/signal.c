/* Signal-activated threads: install and remove Weft's handler, wait for a
 * signal, raise one without a system call, and wake waiters according to
 * the signal's mode (wake-all as ARIADNE, wake-one as POSIX sigwait).
 *
 * Design. Each signal has a slot: a FIFO of blocked waiters (wf_sig_waiter
 * nodes on the waiters' stacks, so waiting never allocates; each points to
 * the wf_wait it wakes and names the wake reason, so that a clause of
 * weft_wait_any, signal/signal.h, queues like weft_sig_wait), its mode,
 * and under wake-one a pending flag. A delivery reaches a slot in two ways, both
 * ending in deliver(): weft_sig_raise() calls it directly (no kernel
 * crossing); a kernel delivery is recorded by the handler and dispatched
 * later, outside signal context (dispatch.c explains how, and why each
 * delivery is dispatched exactly once). deliver() unlinks the waiters it
 * picks and wakes them, urgently (raised priority, preempting a compute
 * thread if no worker is idle), before it drops the slot lock. Waking
 * under the lock costs a little latency for the other waiters of that
 * signal, but it is what keeps nodes alive: a waiter's node lives on its
 * stack, and a timed-out waiter (whose timeout won the wake, so the
 * waker's attempt still touches the node) re-takes the slot lock before
 * it returns, so it cannot return while a waker still holds its node. A
 * waiter woken by us returns without the lock, but the winning wake
 * touches nothing after making the thread runnable.
 *
 * Waiting follows the scheduler's protocol (sched.h): the waiter queues
 * itself under the slot lock and blocks with a release callback that drops
 * the lock once its context is saved, so no delivery can slip between the
 * test of the pending flag and the sleep.
 * A timed wait also arms a wf_timeout (src/timer/), and an any-wait's
 * node shares its wf_wait with other clauses, so a waker may find the
 * node's wf_wait already won (wf_wait_wake returns 0). The waker has
 * unlinked the node anyway (its owner is leaving), and does not count the
 * delivery as given: under wake-one it tries the next waiter and, when
 * none is left, keeps the delivery pending. So a wake-one delivery is never
 * spent on a waiter that reports a time-out or another clause. The owner
 * re-takes the slot lock to unlink its node if still queued (a time-out,
 * wf_sig_wait_stop), so it never returns while a waker holds the node.
 *
 * Rejected alternatives: a condition variable per signal (its waiters are
 * not visible to a hook that runs inside a critical section, and a
 * broadcast from the dispatcher would need the mutex, i.e. could block);
 * one global waiter list for every signal (a SIGCHLD would walk SIGIO's
 * waiters); counting pending deliveries under wake-one (the kernel merges
 * standard signals anyway, so a count would promise what it cannot keep).
 *
 * Locks. cfg_lock (a Weft mutex: set and clear may block briefly) orders
 * set/clear and guards `nset` and each slot's saved action. slot.lock (a
 * spin lock, wf_lock) guards everything else in the slot; `installed`
 * changes under both. Invariants: a node is in the list iff its owner
 * waits (weft_sig_wait, or an armed clause) and no waker unlinked it yet;
 * `pending` is 1 only while the list is empty; `pending` is 0
 * unless the mode is wake-one; nwaiters is the list's length.
 */
#include <string.h>
#include <weft/signal.h>
#include <weft/sync.h>
#include <weft/timer.h>

#include "sched/sched.h"
#include "signal/signal.h"
#include "signal/signal_int.h"
#include "timer/timer.h"

typedef struct sig_slot {
    int lock;
    int installed;
    int mode;             /* WEFT_SIG_WAKE_* */
    int pending;          /* wake-one: a delivery kept for the next waiter */
    int nwaiters;
    int64_t count;        /* deliveries dispatched since set */
    wf_sig_waiter *head, *tail; /* waiters, oldest first */
    struct sigaction old; /* the action before weft_sig_set; cfg_lock */
} sig_slot;

static sig_slot slots[WF_SIG_MAX];
static weft_mutex_t cfg_lock = WEFT_MUTEX_INITIALIZER;
static int nset; /* signals set; cfg_lock */

int wf_sig_supported(int sig)
{
    if (sig <= 0 || sig >= WF_SIG_MAX || sig >= NSIG)
        return 0;
    switch (sig) {
    case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGILL:
    case SIGFPE: case SIGTRAP: case SIGSYS: case SIGABRT: case SIGURG:
        return 0;
    default:
        return sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX);
    }
}

/* ---------------------------------------------------------- waiter list */

static void push(sig_slot *s, wf_sig_waiter *n)
{
    n->queued = 1;
    n->next = NULL;
    n->prev = s->tail;
    if (s->tail)
        s->tail->next = n;
    else
        s->head = n;
    s->tail = n;
    s->nwaiters++;
}

static void unlink_waiter(sig_slot *s, wf_sig_waiter *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        s->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        s->tail = n->prev;
    n->queued = 0;
    s->nwaiters--;
}

/* Unlink the oldest waiter and wake it with its reason, or `reason` if it
 * is an error (cancellation). Returns 1 if the wake won the waiter's
 * wf_wait, 0 if it was won already (its deadline, or another clause of
 * an any-wait) or no waiter was left (*empty then set). Slot lock held:
 * see the head for why waking under it keeps nodes alive. */
static int wake_oldest(sig_slot *s, int reason, int *empty)
{
    wf_sig_waiter *n = s->head;
    *empty = n == NULL;
    if (!n)
        return 0;
    unlink_waiter(s, n);
    return wf_wait_wake_urgent(n->wait, reason < 0 ? reason : n->reason);
}

/* Wake every waiter; the number of wakes that won. Slot lock held. */
static int wake_all(sig_slot *s, int reason)
{
    int woken = 0, empty = 0;
    while (!empty)
        woken += wake_oldest(s, reason, &empty);
    return woken;
}

/* Give one wake-one delivery: to the oldest waiter whose wf_wait we win
 * (those lost are unlinked: they are leaving), else keep it pending. */
static int give_one(sig_slot *s)
{
    int empty = 0;
    while (!empty) {
        if (wake_oldest(s, 0, &empty))
            return 1;
    }
    s->pending = 1;
    return 0;
}

/* ------------------------------------------------------------ delivery */

/* Dispatch n deliveries to sig's waiters: the number woken, or WEFT_EINVAL
 * if sig is not set (the deliveries are dropped). */
static int deliver(sig_slot *s, uint32_t n)
{
    int woken = 0;

    wf_lock(&s->lock);
    if (!s->installed) {
        wf_unlock(&s->lock);
        return WEFT_EINVAL;
    }
    s->count += n;
    if (s->mode == WEFT_SIG_WAKE_ALL)
        woken = wake_all(s, 0);
    else
        for (uint32_t i = 0; i < n && !s->pending; i++)
            woken += give_one(s);
    wf_unlock(&s->lock);
    return woken;
}

int wf_sig_deliver(int sig, uint32_t n)
{
    int woken = deliver(&slots[sig], n);
    return woken > 0 ? woken : 0;
}

int weft_sig_raise(int sig)
{
    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    int woken = deliver(&slots[sig], 1);
    return woken < 0 ? woken : 0;
}

/* ------------------------------------------------------------- waiting */

static void release_lock(void *lock)
{
    wf_unlock(lock);
}

/* Slot lock held: return at once (without queueing) if sig is not set,
 * has a delivery pending, or the caller only tries (deadline 0). Returns 1
 * to wait; else 0 and *rc. */
static int must_wait(sig_slot *s, int64_t deadline, int *rc)
{
    if (!s->installed || s->pending) {
        *rc = s->installed ? 0 : WEFT_EINVAL;
        s->pending = 0;
        return 0;
    }
    if (deadline == 0) {
        *rc = WEFT_ETIMEDOUT;
        return 0;
    }
    return 1;
}

/* The wait ended with a time-out: leave the list if still queued. A
 * delivery that found our wf_wait already won by the timeout went on to
 * the next waiter (or stayed pending), so the time-out is the answer. */
static int after_timeout(sig_slot *s, wf_sig_waiter *n)
{
    wf_lock(&s->lock);
    if (n->queued)
        unlink_waiter(s, n);
    wf_unlock(&s->lock);
    return WEFT_ETIMEDOUT;
}

int weft_sig_wait_until(int sig, int64_t deadline)
{
    wf_sig_waiter node = { .sig = sig, .reason = 0 };
    wf_wait w;
    wf_timeout to;
    int rc;

    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    sig_slot *s = &slots[sig];
    wf_wait_init(&w);
    node.wait = &w;
    /* Armed outside the slot lock (no lock order with the timer's). If it
     * fires before we queue, the block below returns at once. */
    wf_timeout_start(&to, &w, deadline == 0 ? WEFT_FOREVER : deadline);
    wf_lock(&s->lock);
    if (!must_wait(s, deadline, &rc)) {
        wf_unlock(&s->lock);
        wf_timeout_stop(&to);
        return rc;
    }
    push(s, &node);
    rc = wf_wait_block(&w, release_lock, &s->lock);
    wf_timeout_stop(&to);
    return rc == WEFT_ETIMEDOUT ? after_timeout(s, &node) : rc;
}

int weft_sig_wait(int sig)
{
    return weft_sig_wait_until(sig, WEFT_FOREVER);
}

/* --------------------------------------------- clauses (signal/signal.h) */

int wf_sig_wait_start(int sig, wf_sig_waiter *node, wf_wait *w, int reason)
{
    *node = (wf_sig_waiter){ .wait = w, .reason = reason, .sig = 0 };
    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    sig_slot *s = &slots[sig];
    int rc = 0;
    wf_lock(&s->lock);
    if (!s->installed) {
        rc = WEFT_EINVAL;
    } else if (s->pending) {
        if (wf_wait_wake(w, reason))
            s->pending = 0; /* else another clause won: keep it */
    } else {
        node->sig = sig;
        push(s, node);
    }
    wf_unlock(&s->lock);
    return rc;
}

void wf_sig_wait_stop(wf_sig_waiter *node)
{
    if (node->sig <= 0)
        return; /* never queued */
    sig_slot *s = &slots[node->sig];
    wf_lock(&s->lock);
    if (node->queued)
        unlink_waiter(s, node);
    wf_unlock(&s->lock);
}

/* ---------------------------------------------------- set, clear, mode */

static int is_foreign(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return 1;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static void mark_installed(sig_slot *s, int on)
{
    wf_lock(&s->lock);
    s->installed = on;
    s->pending = 0;
    if (on)
        s->count = 0;
    wf_unlock(&s->lock);
}

/* cfg_lock held. */
static int install(int sig)
{
    sig_slot *s = &slots[sig];
    struct sigaction cur;

    if (s->installed)
        return 0;
    if (sigaction(sig, NULL, &cur) != 0)
        return WEFT_EINVAL;
    if (is_foreign(&cur))
        return WEFT_EBUSY;
    int err = wf_sig_dispatch_start();
    if (err)
        goto fail_start;
    mark_installed(s, 1); /* before the handler: no early delivery is dropped */
    err = wf_sig_handler_install(sig, &s->old);
    if (err)
        goto fail_handler;
    nset++;
    return 0;
fail_handler:
    mark_installed(s, 0);
fail_start:
    if (nset == 0)
        wf_sig_dispatch_stop();
    return err;
}

/* cfg_lock held. */
static int uninstall(int sig)
{
    sig_slot *s = &slots[sig];

    if (!s->installed)
        return WEFT_EINVAL;
    sigaction(sig, &s->old, NULL);
    wf_lock(&s->lock);
    s->installed = 0;
    s->pending = 0;
    wake_all(s, WEFT_ECANCELED);
    wf_unlock(&s->lock);
    wf_sig_forget(sig);
    if (--nset == 0)
        wf_sig_dispatch_stop();
    return 0;
}

int weft_sig_set(int sig)
{
    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    weft_mutex_lock(&cfg_lock);
    int err = install(sig);
    weft_mutex_unlock(&cfg_lock);
    return err;
}

int weft_sig_clear(int sig)
{
    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    weft_mutex_lock(&cfg_lock);
    int err = uninstall(sig);
    weft_mutex_unlock(&cfg_lock);
    return err;
}

int weft_sig_set_mode(int sig, int mode)
{
    if (!wf_sig_supported(sig) ||
        (mode != WEFT_SIG_WAKE_ALL && mode != WEFT_SIG_WAKE_ONE))
        return WEFT_EINVAL;
    sig_slot *s = &slots[sig];
    wf_lock(&s->lock);
    s->mode = mode;
    if (mode != WEFT_SIG_WAKE_ONE)
        s->pending = 0;
    wf_unlock(&s->lock);
    return 0;
}

/* --------------------------------------------------------- inspection */

enum { FIELD_MODE, FIELD_WAITERS, FIELD_COUNT };

/* Read one field of sig's slot under its lock. */
static int64_t read_slot(int sig, int field)
{
    if (!wf_sig_supported(sig))
        return WEFT_EINVAL;
    sig_slot *s = &slots[sig];
    wf_lock(&s->lock);
    int64_t v = field == FIELD_MODE ? s->mode
              : field == FIELD_WAITERS ? s->nwaiters : s->count;
    wf_unlock(&s->lock);
    return v;
}

int weft_sig_get_mode(int sig)
{
    return (int)read_slot(sig, FIELD_MODE);
}

int weft_sig_waiters(int sig)
{
    return (int)read_slot(sig, FIELD_WAITERS);
}

int64_t weft_sig_count(int sig)
{
    return read_slot(sig, FIELD_COUNT);
}
